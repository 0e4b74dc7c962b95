# The controlflow kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/controlflow/control_flow.cc
  src/kernels/cpu/controlflow/scan.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/controlflow/control_flow_test.cc
  src/kernels/cpu/controlflow/scan_test.cc)
