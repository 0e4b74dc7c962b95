# The random kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/random/kernels.cc
  src/kernels/cpu/random/random.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/random/random_test.cc)
