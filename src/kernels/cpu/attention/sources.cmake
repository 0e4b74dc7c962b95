# The attention kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/attention/attention.cc
  src/kernels/cpu/attention/attention_util.cc
  src/kernels/cpu/attention/causal_conv_with_state.cc
  src/kernels/cpu/attention/flex_attention.cc
  src/kernels/cpu/attention/kernels.cc
  src/kernels/cpu/attention/linear_attention.cc
  src/kernels/cpu/attention/rotary_embedding.cc
  src/kernels/cpu/attention/tensor_scatter.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/attention/attention_ops_test.cc
  src/kernels/cpu/attention/attention_test.cc
  src/kernels/cpu/attention/flex_attention_test.cc)
