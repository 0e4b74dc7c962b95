# The ai.onnx.ml kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/ml/kernels.cc
  src/kernels/cpu/ml/label_encoder.cc
  src/kernels/cpu/ml/simple.cc
  src/kernels/cpu/ml/tree_ensemble.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/ml/ml_test.cc)
