# The tensor kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/tensor/identity.cc
  src/kernels/cpu/tensor/kernels.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/tensor/identity_test.cc)
