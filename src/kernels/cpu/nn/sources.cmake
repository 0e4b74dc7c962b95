# The nn kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/nn/batch_norm.cc
  src/kernels/cpu/nn/conv.cc
  src/kernels/cpu/nn/conv_epilogue.cc
  src/kernels/cpu/nn/conv_transpose.cc
  src/kernels/cpu/nn/global_pool.cc
  src/kernels/cpu/nn/group_norm.cc
  src/kernels/cpu/nn/kernels.cc
  src/kernels/cpu/nn/loss.cc
  src/kernels/cpu/nn/nn_types.cc
  src/kernels/cpu/nn/normalization.cc
  src/kernels/cpu/nn/pool.cc
  src/kernels/cpu/nn/window.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/nn/batch_norm_test.cc
  src/kernels/cpu/nn/conv_test.cc
  src/kernels/cpu/nn/conv_transpose_test.cc
  src/kernels/cpu/nn/global_pool_test.cc
  src/kernels/cpu/nn/group_norm_test.cc
  src/kernels/cpu/nn/loss_test.cc
  src/kernels/cpu/nn/normalization_test.cc
  src/kernels/cpu/nn/pool_test.cc)
