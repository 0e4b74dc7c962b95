# The graph optimizer: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/optimizer/constant_folding.cc
  src/optimizer/dead_code.cc
  src/optimizer/identity_elimination.cc
  src/optimizer/optimizer.cc
  src/optimizer/pattern.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/optimizer/basic_passes_test.cc
  src/optimizer/test_util.cc)
