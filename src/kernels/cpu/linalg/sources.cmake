# The linalg kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/linalg/bf16_gemm.cc
  src/kernels/cpu/linalg/blocked_matmul.cc
  src/kernels/cpu/linalg/einsum.cc
  src/kernels/cpu/linalg/einsum_equation.cc
  src/kernels/cpu/linalg/gemm.cc
  src/kernels/cpu/linalg/gemm_op.cc
  src/kernels/cpu/linalg/inverse.cc
  src/kernels/cpu/linalg/kernels.cc
  src/kernels/cpu/linalg/layer_norm.cc
  src/kernels/cpu/linalg/linalg_util.cc
  src/kernels/cpu/linalg/matmul.cc
  src/kernels/cpu/linalg/packed_gemm.cc
  src/kernels/cpu/linalg/softmax.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/linalg/bf16_gemm_test.cc
  src/kernels/cpu/linalg/blocked_matmul_test.cc
  src/kernels/cpu/linalg/einsum_test.cc
  src/kernels/cpu/linalg/gemm_op_test.cc
  src/kernels/cpu/linalg/gemm_test.cc
  src/kernels/cpu/linalg/inverse_test.cc
  src/kernels/cpu/linalg/layer_norm_test.cc
  src/kernels/cpu/linalg/matmul_test.cc
  src/kernels/cpu/linalg/packed_gemm_test.cc
  src/kernels/cpu/linalg/softmax_test.cc)
# PackedGemm's x86 micro-kernels, each compiled for its instruction set (CMakeLists.txt sets the
# flags) and called only on machines that run it.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND KILN_SOURCES
    src/kernels/cpu/linalg/bf16_kernel_avx512.cc
    src/kernels/cpu/linalg/packed_kernel_avx2.cc
    src/kernels/cpu/linalg/packed_kernel_avx512.cc)
endif()
