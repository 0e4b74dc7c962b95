# The text kernel family (string ops): library sources and unit tests (paths from the repository
# root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/text/case_map.cc
  src/kernels/cpu/text/kernels.cc
  src/kernels/cpu/text/strings.cc
  src/kernels/cpu/text/tfidf.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/text/strings_test.cc
  src/kernels/cpu/text/tfidf_test.cc)
