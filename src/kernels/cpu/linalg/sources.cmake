# The linalg kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/linalg/gemm.cc
  src/kernels/cpu/linalg/kernels.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/linalg/gemm_test.cc)
