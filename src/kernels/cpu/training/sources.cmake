# The training kernel family (ai.onnx.preview.training optimizers): library sources and unit tests
# (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/training/kernels.cc
  src/kernels/cpu/training/optimizers.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/training/optimizers_test.cc)
