# Static shape and type inference rules: library sources and unit tests (paths from the
# repository root).
list(APPEND KILN_SOURCES
  src/infer/rules.cc)
list(APPEND KILN_UNIT_TEST_SOURCES)
