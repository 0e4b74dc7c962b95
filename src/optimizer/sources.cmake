# The graph optimizer: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/optimizer/activation.cc
  src/optimizer/attention_fusion.cc
  src/optimizer/bias_gelu_fusion.cc
  src/optimizer/blocked_matmul.cc
  src/optimizer/constant_folding.cc
  src/optimizer/conv_activation_fusion.cc
  src/optimizer/conv_bn_fusion.cc
  src/optimizer/conv_dead_taps.cc
  src/optimizer/dead_code.cc
  src/optimizer/dynamic_quant_fusion.cc
  src/optimizer/gelu_fusion.cc
  src/optimizer/gradient.cc
  src/optimizer/identity_elimination.cc
  src/optimizer/layer_norm_fusion.cc
  src/optimizer/nhwc_concat_split.cc
  src/optimizer/nhwc_expand_fusion.cc
  src/optimizer/nhwc_layout.cc
  src/optimizer/nhwc_pattern.cc
  src/optimizer/nhwc_scale_fusion.cc
  src/optimizer/nhwc_video.cc
  src/optimizer/optimizer.cc
  src/optimizer/pattern.cc
  src/optimizer/qdq_fusion.cc
  src/optimizer/qdq_ops_fusion.cc
  src/optimizer/qdq_util.cc
  src/optimizer/row_gather_pushdown.cc
  src/optimizer/skip_layer_norm_fusion.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/optimizer/basic_passes_test.cc
  src/optimizer/conv_dead_taps_test.cc
  src/optimizer/fusion_passes_test.cc
  src/optimizer/gradient_test.cc
  src/optimizer/nhwc_layout_test.cc
  src/optimizer/qdq_ops_fusion_test.cc
  src/optimizer/row_gather_pushdown_test.cc
  src/optimizer/test_util.cc)
