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
# The Swish epilogue in AVX-512 intrinsics (CMakeLists.txt sets the flag), used where the machine
# runs it.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND KILN_SOURCES src/kernels/cpu/nn/swish_avx512.cc)
  list(APPEND KILN_UNIT_TEST_SOURCES src/kernels/cpu/nn/swish_avx512_test.cc)
endif()
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/nn/batch_norm_test.cc
  src/kernels/cpu/nn/conv_epilogue_test.cc
  src/kernels/cpu/nn/conv_test.cc
  src/kernels/cpu/nn/conv_transpose_test.cc
  src/kernels/cpu/nn/global_pool_test.cc
  src/kernels/cpu/nn/group_norm_test.cc
  src/kernels/cpu/nn/loss_test.cc
  src/kernels/cpu/nn/normalization_test.cc
  src/kernels/cpu/nn/pool_test.cc)
