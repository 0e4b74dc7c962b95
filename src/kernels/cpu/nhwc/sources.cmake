# The nhwc kernel family (ai.kiln channels-last ops): library sources and unit tests (paths from
# the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/nhwc/kernels.cc
  src/kernels/cpu/nhwc/nhwc_conv.cc
  src/kernels/cpu/nhwc/nhwc_depthwise.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_k3.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_k5.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_k7.cc
  src/kernels/cpu/nhwc/nhwc_grouped.cc
  src/kernels/cpu/nhwc/nhwc_stem.cc
  src/kernels/cpu/nhwc/nhwc_winograd.cc
  src/kernels/cpu/nhwc/nhwc_pool.cc
  src/kernels/cpu/nhwc/nhwc_regions.cc)
# Files of row loops only (no kernel is created there): the fuzz build compiles them without
# sanitizers or coverage (see CMakeLists.txt).
list(APPEND KILN_LOOP_ONLY_SOURCES
  src/kernels/cpu/nhwc/nhwc_depthwise_k3.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_k5.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_k7.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/nhwc/nhwc_conv_bf16_test.cc
  src/kernels/cpu/nhwc/nhwc_conv_test.cc
  src/kernels/cpu/nhwc/nhwc_pool_test.cc
  src/kernels/cpu/nhwc/nhwc_stem_test.cc
  src/kernels/cpu/nhwc/fused_conv_test.cc
  src/kernels/cpu/nhwc/nhwc_depthwise_test.cc)
