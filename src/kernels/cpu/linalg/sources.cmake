# The linalg kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/linalg/einsum.cc
  src/kernels/cpu/linalg/einsum_equation.cc
  src/kernels/cpu/linalg/gemm.cc
  src/kernels/cpu/linalg/gemm_op.cc
  src/kernels/cpu/linalg/kernels.cc
  src/kernels/cpu/linalg/layer_norm.cc
  src/kernels/cpu/linalg/linalg_util.cc
  src/kernels/cpu/linalg/matmul.cc
  src/kernels/cpu/linalg/softmax.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/linalg/einsum_test.cc
  src/kernels/cpu/linalg/gemm_op_test.cc
  src/kernels/cpu/linalg/gemm_test.cc
  src/kernels/cpu/linalg/layer_norm_test.cc
  src/kernels/cpu/linalg/matmul_test.cc
  src/kernels/cpu/linalg/softmax_test.cc)
