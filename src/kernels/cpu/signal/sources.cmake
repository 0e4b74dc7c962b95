# The signal kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/signal/det.cc
  src/kernels/cpu/signal/dft.cc
  src/kernels/cpu/signal/kernels.cc
  src/kernels/cpu/signal/windows.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/signal/det_test.cc
  src/kernels/cpu/signal/dft_test.cc
  src/kernels/cpu/signal/windows_test.cc)
