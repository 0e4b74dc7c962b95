# Static shape and type inference rules: library sources and unit tests (paths from the
# repository root).
list(APPEND KILN_SOURCES
  src/infer/elementwise_rules.cc
  src/infer/linalg_rules.cc
  src/infer/contrib_rules.cc
  src/infer/nhwc_rules.cc
  src/infer/nn_rules.cc
  src/infer/reduce_rules.cc
  src/infer/rule_util.cc
  src/infer/rules.cc
  src/infer/shape_rules.cc
  src/infer/tensor_rules.cc
  src/infer/loss_norm_rules.cc
  src/infer/attention_rules.cc
  src/infer/quant_rules.cc
  src/infer/signal_rules.cc
  src/infer/image_rules.cc
  src/infer/data_rules.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/infer/contrib_rules_test.cc
  src/infer/elementwise_rules_test.cc
  src/infer/linalg_rules_test.cc
  src/infer/nhwc_rules_test.cc
  src/infer/nn_rules_test.cc
  src/infer/reduce_rules_test.cc
  src/infer/shape_rules_test.cc
  src/infer/tensor_rules_test.cc
  src/infer/loss_norm_rules_test.cc
  src/infer/attention_rules_test.cc
  src/infer/quant_rules_test.cc
  src/infer/signal_rules_test.cc
  src/infer/image_rules_test.cc
  src/infer/data_rules_test.cc
  src/infer/symbolic_dims_test.cc)
