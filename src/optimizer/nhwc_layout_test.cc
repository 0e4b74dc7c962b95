// Level 3: the channels-last layout pass on convolution chains shaped like the zoo's CNNs.
#include <gtest/gtest.h>

#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::ExpectSameOutputs;
using testing::GraphBuilder;
using testing::OpCounts;
using testing::OpsAfter;

ir::Attribute Pads(int64_t p) {
  return IntsAttr("pads", {p, p, p, p});
}

// ResNet-like: stem conv + max pool, a residual block, global pool, flatten, classifier.
ir::Model ResidualNet() {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 3, 16, 16});
  ir::Value* y = b.Op("Relu", {b.Op("Conv", {x, b.Floats({8, 3, 3, 3}), b.Floats({8})},
                                    {Pads(1), IntsAttr("strides", {2, 2})})});
  y = b.Op("MaxPool", {y},
           {IntsAttr("kernel_shape", {3, 3}), Pads(1), IntsAttr("strides", {2, 2})});
  ir::Value* r = b.Op("Relu", {b.Op("Conv", {y, b.Floats({8, 8, 3, 3})}, {Pads(1)})});
  r = b.Op("Conv", {r, b.Floats({8, 8, 1, 1}), b.Floats({8})});
  y = b.Op("Relu", {b.Op("Add", {r, y})});
  y = b.Op("Flatten", {b.Op("GlobalAveragePool", {y})});
  b.Output(b.Op("Gemm", {y, b.Floats({10, 8}), b.Floats({10})}, {IntAttr("transB", 1)}));
  return b.Model();
}

TEST(NhwcLayout, KeepsAResidualNetworkInNhwcWithTransposesOnlyAtTheEdges) {
  // Level 2 alone: fused convolutions in NCHW.
  EXPECT_EQ(OpsAfter(ResidualNet(), 2), (OpCounts{{"Flatten", 1},
                                                  {"Gemm", 1},
                                                  {"GlobalAveragePool", 1},
                                                  {"MaxPool", 1},
                                                  {"com.microsoft.FusedConv", 3}}));
  // Level 3: one transpose into NHWC at the input, one back before Flatten.
  EXPECT_EQ(OpsAfter(ResidualNet(), 3), (OpCounts{{"Flatten", 1},
                                                  {"Gemm", 1},
                                                  {"Transpose", 2},
                                                  {"ai.kiln.NhwcConv", 3},
                                                  {"ai.kiln.NhwcGlobalAveragePool", 1},
                                                  {"ai.kiln.NhwcMaxPool", 1}}));
  ExpectSameOutputs(ResidualNet, 3);
}

// EfficientNet-like squeeze-and-excitation: x · sigmoid(conv(swish(conv(mean(x))))), then a
// depthwise conv, and an output left in NCHW.
ir::Model SqueezeExcite() {
  GraphBuilder b;
  ir::Value* in = b.Input("x", {1, 4, 8, 8});
  ir::Value* x = b.Op("Conv", {in, b.Floats({8, 4, 1, 1})});
  x = b.Op("Mul", {x, b.Op("Sigmoid", {x})});
  ir::Value* s = b.Op("GlobalAveragePool", {x});
  s = b.Op("Conv", {s, b.Floats({2, 8, 1, 1}), b.Floats({2})});
  s = b.Op("Mul", {s, b.Op("Sigmoid", {s})});
  s = b.Op("Sigmoid", {b.Op("Conv", {s, b.Floats({8, 2, 1, 1}), b.Floats({8})})});
  x = b.Op("Mul", {x, s});
  x = b.Op("Conv", {x, b.Floats({8, 1, 3, 3})}, {Pads(1), IntAttr("group", 8)});
  b.Output(b.Op("Add", {x, b.Floats({8, 1, 1})}));  // a per-channel constant, in NHWC too
  return b.Model();
}

TEST(NhwcLayout, PushesTransposesThroughElementwiseOpsAndConstants) {
  EXPECT_EQ(OpsAfter(SqueezeExcite(), 3), (OpCounts{{"Add", 1},
                                                    {"Mul", 1},
                                                    {"Transpose", 2},
                                                    {"ai.kiln.NhwcConv", 4},
                                                    {"ai.kiln.NhwcGlobalAveragePool", 1}}));
  ExpectSameOutputs(SqueezeExcite, 3);
}

// SqueezeNet-like fire module: two branches concatenated on channels, then average pooling.
ir::Model Fire() {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 6, 9, 9});
  ir::Value* s = b.Op("Relu", {b.Op("Conv", {x, b.Floats({4, 6, 1, 1})})});
  ir::Value* e1 = b.Op("Relu", {b.Op("Conv", {s, b.Floats({5, 4, 1, 1})})});
  ir::Value* e3 = b.Op("Relu", {b.Op("Conv", {s, b.Floats({5, 4, 3, 3})}, {Pads(1)})});
  ir::Value* c = b.Op("Concat", {e1, e3}, {IntAttr("axis", 1)});
  b.Output(b.Op(
      "AveragePool", {c},
      {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntAttr("ceil_mode", 1)}));
  return b.Model();
}

TEST(NhwcLayout, ConcatenatesOnTheChannelAxisInNhwc) {
  EXPECT_EQ(OpsAfter(Fire(), 3), (OpCounts{{"Concat", 1},
                                           {"Transpose", 2},
                                           {"ai.kiln.NhwcAveragePool", 1},
                                           {"ai.kiln.NhwcConv", 3}}));
  ExpectSameOutputs(Fire, 3);
}

TEST(NhwcLayout, LeavesNonFloatAndOneDimensionalConvolutionsAlone) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {1, 2, 9});
    b.Output(b.Op("Conv", {x, b.Floats({3, 2, 3})}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 3), (OpCounts{{"Conv", 1}}));
}

}  // namespace
}  // namespace kiln::optimizer
