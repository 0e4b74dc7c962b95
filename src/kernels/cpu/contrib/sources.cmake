# The contrib kernel family (com.microsoft fused ops): library sources and unit tests (paths from
# the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/contrib/attention_contrib.cc
  src/kernels/cpu/contrib/embed_layer_norm.cc
  src/kernels/cpu/contrib/experimental.cc
  src/kernels/cpu/contrib/fused_gemm.cc
  src/kernels/cpu/contrib/fused_matmul.cc
  src/kernels/cpu/contrib/gelu.cc
  src/kernels/cpu/contrib/group_query_attention.cc
  src/kernels/cpu/contrib/kernels.cc
  src/kernels/cpu/contrib/moe.cc
  src/kernels/cpu/contrib/multi_head_attention.cc
  src/kernels/cpu/contrib/skip_layer_norm.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/contrib/attention_contrib_test.cc
  src/kernels/cpu/contrib/embed_layer_norm_test.cc
  src/kernels/cpu/contrib/experimental_test.cc
  src/kernels/cpu/contrib/fused_gemm_test.cc
  src/kernels/cpu/contrib/fused_matmul_test.cc
  src/kernels/cpu/contrib/gelu_test.cc
  src/kernels/cpu/contrib/moe_test.cc
  src/kernels/cpu/contrib/qmoe_test.cc
  src/kernels/cpu/contrib/group_query_attention_test.cc
  src/kernels/cpu/contrib/multi_head_attention_test.cc
  src/kernels/cpu/contrib/skip_layer_norm_test.cc)
# The AVX-512 attention head (CMakeLists.txt sets the flag), used where the machine runs it.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND KILN_SOURCES src/kernels/cpu/contrib/attention_avx512.cc)
endif()
