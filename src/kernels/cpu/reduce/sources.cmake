# The reduce kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/reduce/kernels.cc)
list(APPEND KILN_UNIT_TEST_SOURCES)
