// Level 3: the channels-last layout pass on convolution chains shaped like the zoo's CNNs, and
// nhwc_concat_split after it.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "optimizer/optimizer.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::ExpectSameOutputs;
using testing::ExpectSameOutputsSized;
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
  // The pool's output is the model's: nhwc_concat_split gains nothing by moving the Concat after
  // the pool, so the pool stays whole.
  EXPECT_EQ(OpsAfter(Fire(), 3), (OpCounts{{"Concat", 1},
                                           {"Transpose", 2},
                                           {"ai.kiln.NhwcAveragePool", 1},
                                           {"ai.kiln.NhwcConv", 3}}));
  ExpectSameOutputs(Fire, 3);
}

// A DenseNet-like pre-activation block, twice: the input and a conv's output concatenated, then
// BatchNormalization → Relu → 1×1 conv (the normalization reads the Concat, so no convolution
// absorbs it).
ir::Model DenseBlock() {
  GraphBuilder b;
  ir::Value* x = b.Op("Conv", {b.Input("x", {1, 3, 8, 8}), b.Floats({4, 3, 3, 3})}, {Pads(1)});
  ir::Value* y = b.Op("Conv", {x, b.Floats({6, 4, 3, 3})}, {Pads(1)});
  for (int i = 0; i < 2; ++i) {
    ir::Value* c = b.Op("Concat", {x, y}, {IntAttr("axis", 1)});
    const std::vector<float> var = {0.5f, 1, 2, 0.25f, 1.5f, 3, 0.75f, 1, 2.5f, 0.1f};
    ir::Value* n = b.Op("BatchNormalization",
                        {c, b.Floats({10}), b.Floats({10}), b.Floats({10}), b.Floats({10}, var)},
                        {FloatAttr("epsilon", 1e-3f)});
    y = b.Op("Conv", {b.Op("Relu", {n}), b.Floats({6, 10, 1, 1})});
    x = b.Op("Conv", {c, b.Floats({4, 10, 1, 1})});
  }
  b.Output(b.Op("Add", {y, b.Op("Conv", {x, b.Floats({6, 4, 1, 1})})}));
  return b.Model();
}

// The normalization becomes an affine map in NHWC, which with its Relu then goes into the 1×1
// convolution reading it (nhwc_scale_fusion: channel_scale, channel_shift, channel_relu).
TEST(NhwcLayout, BatchNormalizationOfAConcatBecomesAnAffineInNhwc) {
  const OpCounts ops = OpsAfter(DenseBlock(), 3);
  EXPECT_EQ(ops.count("BatchNormalization"), 0u);
  EXPECT_EQ(ops.count("Mul"), 0u);
  EXPECT_EQ(ops.count("Relu"), 0u);
  EXPECT_EQ(ops.at("Transpose"), 2u);  // the input's and the output's only
  ExpectSameOutputs(DenseBlock, 3);
}

// Concat → BatchNormalization → Relu → 1×1 conv (variant 0), and the same without the Relu
// (1): the affine map and Relu go into the convolution. Variants that must stay: the Relu also
// read by a second convolution (2), a 3×3 reader (3), the normalization a model output too (4),
// and an x of one channel that the per-channel constants broadcast over (5).
ir::Model PreActivation(int variant) {
  GraphBuilder b;
  ir::Value* in = b.Input("x", {1, 3, 6, 7});
  ir::Value* a = b.Op("Conv", {in, b.Floats({variant == 5 ? 1 : 4, 3, 3, 3})}, {Pads(1)});
  ir::Value* a2 = b.Op("Conv", {in, b.Floats({3, 3, 1, 1})});
  const int64_t c = variant == 5 ? 5 : 11;
  ir::Value* x =
      variant == 5 ? a : b.Op("Concat", {a, a2, b.Op("Relu", {a})}, {IntAttr("axis", 1)});
  if (variant == 5) {
    // [1, 1, 6, 7] times [1, 5, 1, 1]: five channels by broadcasting.
    x = b.Op("Mul", {x, b.Floats({1, c, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f, 1.5f})});
    x = b.Op("Add", {x, b.Floats({1, c, 1, 1}, {0.1f, 0.2f, -0.3f, 0.4f, 0.0f})});
  } else {
    std::vector<float> var(static_cast<size_t>(c));
    for (size_t i = 0; i < var.size(); ++i) var[i] = 0.25f + 0.5f * static_cast<float>(i);
    x = b.Op("BatchNormalization",
             {x, b.Floats({c}), b.Floats({c}), b.Floats({c}), b.Floats({c}, var)});
    if (variant == 4) b.Output(x);
  }
  if (variant != 1) x = b.Op("Relu", {x});
  if (variant == 2) b.Output(b.Op("Conv", {x, b.Floats({2, c, 1, 1})}));
  if (variant == 3) {
    b.Output(b.Op("Conv", {x, b.Floats({6, c, 3, 3}), b.Floats({6})}, {Pads(1)}));
  } else {
    b.Output(b.Op("Conv", {x, b.Floats({6, c, 1, 1}), b.Floats({6})}));
  }
  return b.Model();
}

TEST(NhwcScaleFusion, AffineAndReluGoIntoThePointwiseReader) {
  for (int variant : {0, 1}) {
    SCOPED_TRACE(variant);
    const OpCounts ops = OpsAfter(PreActivation(variant), 3);
    EXPECT_EQ(ops.count("Mul") + ops.count("Add"), 0u);
    EXPECT_EQ(ops.count("Relu"), 1u);  // the Concat's own
    ExpectSameOutputs([variant] { return PreActivation(variant); }, 3);
  }
  for (int variant : {2, 3, 4, 5}) {
    SCOPED_TRACE(variant);
    const OpCounts ops = OpsAfter(PreActivation(variant), 3);
    EXPECT_EQ(ops.count("Mul"), 1u);
    EXPECT_EQ(ops.count("Add"), 1u);
    ExpectSameOutputs([variant] { return PreActivation(variant); }, 3);
  }
}

// Two SqueezeNet fire modules in a row: the first's Concat feeds a max pool and then the second's
// 1×1 squeeze convolution; the second's feeds two 1×1 convolutions whose Add becomes one's
// residual Z (so a split reader keeps its Z in place).
ir::Model TwoFires() {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 6, 13, 13});
  const auto fire = [&](ir::Value* in, int64_t c, int64_t e) {
    ir::Value* s = b.Op("Relu", {b.Op("Conv", {in, b.Floats({4, c, 1, 1}), b.Floats({4})})});
    ir::Value* e1 = b.Op("Relu", {b.Op("Conv", {s, b.Floats({e, 4, 1, 1}), b.Floats({e})})});
    ir::Value* e3 =
        b.Op("Relu", {b.Op("Conv", {s, b.Floats({e + 1, 4, 3, 3}), b.Floats({e + 1})}, {Pads(1)})});
    return b.Op("Concat", {e1, e3}, {IntAttr("axis", 1)});
  };
  ir::Value* f = fire(x, 6, 5);  // 11 channels
  f = b.Op("MaxPool", {f}, {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2})});
  f = fire(f, 11, 7);  // 15 channels
  ir::Value* a = b.Op("Conv", {f, b.Floats({3, 15, 1, 1}), b.Floats({3})});
  ir::Value* c = b.Op("Relu", {b.Op("Conv", {f, b.Floats({3, 15, 1, 1})})});
  b.Output(b.Op("Add", {a, c}));
  return b.Model();
}

TEST(NhwcConcatSplit, OneByOneConvolutionsReadTheConcatenatedPartsInPlace) {
  // Level 3: no Concat left; the first one went past the max pool (two pools), every 1×1
  // convolution after a fire reads its two parts (input_channels).
  EXPECT_EQ(OpsAfter(TwoFires(), 3),
            (OpCounts{{"Transpose", 2}, {"ai.kiln.NhwcConv", 8}, {"ai.kiln.NhwcMaxPool", 2}}));
  ExpectSameOutputs(TwoFires, 3);
  ir::Model m = TwoFires();
  const std::vector<PassReport> reports = Optimize(*m.graph, 3, CpuKernels());
  size_t split = 0;
  for (const PassReport& r : reports) {
    if (r.pass == "nhwc_concat_split") split = r.rewrites;
  }
  EXPECT_EQ(split, 2u);
  size_t readers = 0;
  for (const ir::Node* n : m.graph->TopologicalOrder()) {
    const ir::Attribute* parts = n->FindAttribute("input_channels");
    if (parts == nullptr) continue;
    ++readers;
    EXPECT_EQ(n->inputs().size(), 5u);
    EXPECT_TRUE(parts->ints == std::vector<int64_t>({5, 6}) ||
                parts->ints == std::vector<int64_t>({7, 8}));
  }
  EXPECT_EQ(readers, 3u);  // the second squeeze and both final convolutions
}

TEST(NhwcConcatSplit, LeavesConcatsThatOtherReadersNeed) {
  // A 3×3 reader, a strided 1×1 reader, and a 1×1 reader next to another kind of reader.
  const auto build = [](int variant) {
    return [variant] {
      GraphBuilder b;
      ir::Value* x = b.Input("x", {1, 3, 8, 8});
      ir::Value* p = b.Op("Conv", {x, b.Floats({4, 3, 1, 1})});
      ir::Value* q = b.Op("Conv", {x, b.Floats({5, 3, 3, 3})}, {Pads(1)});
      ir::Value* c = b.Op("Concat", {p, q}, {IntAttr("axis", 1)});
      if (variant == 0) {
        b.Output(b.Op("Conv", {c, b.Floats({2, 9, 3, 3})}));
      } else if (variant == 1) {
        b.Output(b.Op("Conv", {c, b.Floats({2, 9, 1, 1})}, {IntsAttr("strides", {2, 2})}));
      } else {
        b.Output(b.Op("Conv", {c, b.Floats({2, 9, 1, 1})}));
        b.Output(b.Op("Relu", {c}));
      }
      return b.Model();
    };
  };
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(OpsAfter(build(variant)(), 3).count("Concat"), 1u);
    ExpectSameOutputs(build(variant), 3);
  }
}

// EfficientNet's squeeze-and-excitation block ending in its 1×1 projection: the Mul goes into the
// projection (channel_scale). Variants that must stay: the scale from another tensor's pool (its
// batch need not match), a 3×3 reader, and a product that is also a model output.
ir::Model ExciteThenProject(int variant) {
  GraphBuilder b;
  ir::Value* in = b.Input("x", {2, 4, 7, 7});
  ir::Value* x = b.Op("Conv", {in, b.Floats({8, 4, 1, 1})});
  x = b.Op("Mul", {x, b.Op("Sigmoid", {x})});
  ir::Value* pooled = b.Op("GlobalAveragePool", {variant == 1 ? in : x});
  ir::Value* s = b.Op("Conv", {pooled, b.Floats({2, variant == 1 ? 4 : 8, 1, 1}), b.Floats({2})});
  s = b.Op("Mul", {s, b.Op("Sigmoid", {s})});
  s = b.Op("Sigmoid", {b.Op("Conv", {s, b.Floats({8, 2, 1, 1}), b.Floats({8})})});
  x = b.Op("Mul", {s, x});        // the scale first: either order
  if (variant == 3) b.Output(x);  // the scaled x is the model's too
  if (variant == 2) {
    b.Output(b.Op("Conv", {x, b.Floats({3, 8, 3, 3}), b.Floats({3})}, {Pads(1)}));
  } else {
    b.Output(b.Op("Conv", {x, b.Floats({3, 8, 1, 1}), b.Floats({3})}));
  }
  return b.Model();
}

TEST(NhwcScaleFusion, ExcitationScalesTheProjectionsInput) {
  EXPECT_EQ(
      OpsAfter(ExciteThenProject(0), 3),
      (OpCounts{{"Transpose", 2}, {"ai.kiln.NhwcConv", 4}, {"ai.kiln.NhwcGlobalAveragePool", 1}}));
  ExpectSameOutputs([] { return ExciteThenProject(0); }, 3);
  for (int variant : {1, 2, 3}) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(OpsAfter(ExciteThenProject(variant), 3).count("Mul"), 1u);
    ExpectSameOutputs([variant] { return ExciteThenProject(variant); }, 3);
  }
}

// MobileNetV2's inverted-residual block (1×1 expansion + Clip, depthwise 3×3 stride 2 + Clip, 1×1
// projection) on a 64×64 map expanded to 64 channels (1 MB an image), or with EfficientNet-B0's
// Swish: the expansion goes into the depthwise convolution (attribute expand). Variants that must
// stay apart: a map under 1 MB, an expansion the model outputs too, 24 channels (not whole
// chunks of 16), a 3×3 product reading the expansion, a dilated depthwise layer.
ir::Model InvertedResidual(int variant, bool swish = false) {
  GraphBuilder b;
  const int64_t side = variant == 1 ? 32 : variant == 3 ? 108 : 64;
  const int64_t m = variant == 3 ? 24 : 64;
  ir::Value* in = b.Input("x", {2, 8, side, side});
  const auto act = [&](ir::Value* v) {
    return swish ? b.Op("Mul", {v, b.Op("Sigmoid", {v})})
                 : b.Op("Clip", {v, b.Floats({}, {0.0f}), b.Floats({}, {6.0f})});
  };
  ir::Value* e = act(b.Op("Conv", {in, b.Floats({m, 8, 1, 1}), b.Floats({m})}));
  if (variant == 2) b.Output(e);
  ir::Value* d = nullptr;
  if (variant == 4) {
    d = b.Op("Conv", {e, b.Floats({m, m, 3, 3}), b.Floats({m})},
             {Pads(1), IntsAttr("strides", {2, 2})});
  } else {
    std::vector<ir::Attribute> attrs = {Pads(1), IntAttr("group", m), IntsAttr("strides", {2, 2})};
    if (variant == 5) attrs.push_back(IntsAttr("dilations", {2, 2}));
    d = b.Op("Conv", {e, b.Floats({m, 1, 3, 3}), b.Floats({m})}, std::move(attrs));
  }
  b.Output(b.Op("Conv", {act(d), b.Floats({8, m, 1, 1}), b.Floats({8})}));
  return b.Model();
}

TEST(NhwcExpandFusion, InvertedResidualExpandsInsideTheDepthwiseLayer) {
  for (bool swish : {false, true}) {
    SCOPED_TRACE(swish ? "Swish" : "Clip");
    EXPECT_EQ(OpsAfter(InvertedResidual(0, swish), 3),
              (OpCounts{{"Transpose", 2}, {"ai.kiln.NhwcConv", 2}}));
    ExpectSameOutputs([swish] { return InvertedResidual(0, swish); }, 3);
  }
  for (int variant : {1, 2, 3, 4, 5}) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(OpsAfter(InvertedResidual(variant), 3).at("ai.kiln.NhwcConv"), 3u);
    // (Variant 4's 576-term sums, in another order at level 3, differ by up to about 2e-5.)
    ExpectSameOutputs([variant] { return InvertedResidual(variant); }, 3, 1e-4f, 1e-4f);
  }
}

// ai.kiln nodes with their X left empty (a malformed model) are left for their kernels to
// reject: the channels-last passes do not follow the missing input.
TEST(NhwcConcatSplit, LeavesMalformedNodesToTheirKernels) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 4, 5, 5});
  ir::Value* t = b.Op("Transpose", {x}, {IntsAttr("perm", {0, 2, 3, 1})});
  ir::Value* pooled =
      b.Node("NhwcMaxPool", {nullptr}, 1, {IntsAttr("kernel_shape", {1, 1})}, 1, "ai.kiln")[0];
  ir::Value* s = b.Node("NhwcConv", {nullptr, b.Floats({4, 4, 1, 1})}, 1, {}, 1, "ai.kiln")[0];
  ir::Value* m = b.Op("Mul", {t, b.Op("Sigmoid", {s})});
  ir::Value* c = b.Op("Concat", {m, pooled}, {IntAttr("axis", 3)});
  b.Output(b.Node("NhwcConv", {c, b.Floats({2, 8, 1, 1})}, 1, {}, 1, "ai.kiln")[0]);
  EXPECT_EQ(OpsAfter(b.Model(), 3).count("ai.kiln.NhwcConv"), 1u);
}

// A ShuffleNet v2 unit over x [batch, 8, 6, 6]: the channels halved (Slice, or Split when
// `split`), one half through a 1×1 and a depthwise 3×3 convolution, the halves concatenated
// and shuffled (Reshape to [batch, 2, 4, 6, 6], Transpose (0, 2, 1, 3, 4), Reshape back), then a
// 1×1 convolution. `reshape_n` is the Reshapes' first dimension (0: copy the input's).
ir::Model ShuffleUnit(const GraphBuilder::Dim& batch, bool split, int64_t reshape_n) {
  GraphBuilder b;
  ir::Value* x =
      b.Op("Conv", {b.DynamicInput("x", {batch, 3, 6, 6}), b.Floats({8, 3, 3, 3})}, {Pads(1)});
  ir::Value* keep = nullptr;
  ir::Value* half = nullptr;
  if (split) {
    std::vector<ir::Value*> parts =
        b.Node("Split", {x, b.Ints({2}, {4, 4})}, 2, {IntAttr("axis", 1)});
    keep = parts[0];
    half = parts[1];
  } else {
    keep = b.Op("Slice", {x, b.Ints({1}, {0}), b.Ints({1}, {4}), b.Ints({1}, {-3})});
    half = b.Op("Slice", {x, b.Ints({1}, {4}), b.Ints({1}, {8}), b.Ints({1}, {1})});
  }
  half = b.Op("Relu", {b.Op("Conv", {half, b.Floats({4, 4, 1, 1})})});
  half = b.Op("Conv", {half, b.Floats({4, 1, 3, 3})}, {Pads(1), IntAttr("group", 4)});
  ir::Value* c = b.Op("Concat", {keep, half}, {IntAttr("axis", 1)});
  c = b.Op("Reshape", {c, b.Ints({5}, {reshape_n, 2, 4, 6, 6})});
  c = b.Op("Transpose", {c}, {IntsAttr("perm", {0, 2, 1, 3, 4})});
  c = b.Op("Reshape", {c, b.Ints({4}, {reshape_n, 8, 6, 6})});
  b.Output(b.Op("Conv", {c, b.Floats({5, 8, 1, 1})}));
  return b.Model();
}

TEST(NhwcLayout, ChannelShuffleRunsChannelsLast) {
  const std::map<std::string, int64_t> sizes{{"batch", 3}};
  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "Split" : "Slice");
    for (const GraphBuilder::Dim& batch : {GraphBuilder::Dim(2), GraphBuilder::Dim("batch")}) {
      auto build = [&] { return ShuffleUnit(batch, split, batch.size > 0 ? batch.size : 0); };
      // The input's transpose and the output's, and the shuffle's own (0, 1, 2, 4, 3).
      const OpCounts ops = OpsAfter(build(), 3);
      EXPECT_EQ(ops.at("Transpose"), 3);
      EXPECT_EQ(ops.at("Reshape"), 2);
      EXPECT_EQ(ops.at("ai.kiln.NhwcConv"), 4);
      ExpectSameOutputsSized(build, 3, sizes);
    }
  }
}

// Reshapes that move N, H or W stay channels-first; a Transpose that moves H and W after a
// channel regroup becomes one Transpose with the layout's own back to channels-first.
TEST(NhwcLayout, LeavesReshapesAndTransposesOfTheSpatialAxesAlone) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    auto build = [&] {
      GraphBuilder b;
      ir::Value* x = b.Op("Conv", {b.Input("x", {2, 3, 4, 6}), b.Floats({8, 3, 1, 1})});
      if (variant == 0) {
        x = b.Op("Reshape", {x, b.Ints({5}, {2, 8, 4, 2, 3})});  // W split
      } else if (variant == 1) {
        x = b.Op("Reshape", {x, b.Ints({4}, {1, 16, 4, 6})});  // N into C
      } else {
        x = b.Op("Transpose", {b.Op("Reshape", {x, b.Ints({5}, {2, 2, 4, 4, 6})})},
                 {IntsAttr("perm", {0, 1, 2, 4, 3})});  // H and W swapped
      }
      b.Output(x);
      return b.Model();
    };
    const OpCounts ops = OpsAfter(build(), 3);
    // The convolution's two transposes (the second one the variant's own too).
    EXPECT_EQ(ops.at("Transpose"), 2);
    ExpectSameOutputs(build, 3);
  }
}

// A detection head (SSD, RetinaNet): a convolution's [N, A·K, H, W] viewed as [N, A, K, H, W],
// permuted by (0, 3, 4, 1, 2) and flattened to [N, H·W·A, K]. The view regroups channels, and
// the permutation is then the layout's own way back: both transposes go, and only the input's
// is left. Read also by a second head (variant 1), the convolution's output keeps its transpose.
TEST(NhwcLayout, DetectionHeadPermutationCancelsTheLayouts) {
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant);
    auto build = [&] {
      GraphBuilder b;
      ir::Value* x = b.Op("Conv", {b.Input("x", {2, 3, 5, 6}), b.Floats({12, 3, 3, 3})}, {Pads(1)});
      ir::Value* h = b.Op("Reshape", {x, b.Ints({5}, {2, 3, 4, 5, 6})});
      h = b.Op("Transpose", {h}, {IntsAttr("perm", {0, 3, 4, 1, 2})});
      b.Output(b.Op("Reshape", {h, b.Ints({3}, {2, -1, 4})}));
      if (variant == 1) b.Output(b.Op("Relu", {x}));
      return b.Model();
    };
    const OpCounts ops = OpsAfter(build(), 3);
    EXPECT_EQ(ops.at("Transpose"), variant == 0 ? 1 : 2);
    ExpectSameOutputs(build, 3);
  }
}

// An R(2+1)D-like block over x [batch, 3, 5, 9, 8] (video): a (1, 3, 3) convolution, a (3, 1, 1)
// one, a residual Add, the downsampling pair (spatial stride (1, 2, 2), temporal stride 2) beside
// a 1×1×1 stride-2 shortcut; then S3D's pools: MaxPool (3, 3, 3) padded, AveragePool (1, 2, 2)
// with ceil_mode and count_include_pad (`avg_pads`) or (2, 1, 1) unstrided; a Concat of
// channels, and the global average.
ir::Model VideoBlock(const GraphBuilder::Dim& batch, bool avg_pads) {
  GraphBuilder b;
  const auto conv = [&](ir::Value* x, int64_t m, int64_t c, std::vector<int64_t> k,
                        std::vector<int64_t> strides, std::vector<int64_t> pads) {
    return b.Op(
        "Relu",
        {b.Op("Conv", {x, b.Floats({m, c, k[0], k[1], k[2]}), b.Floats({m})},
              {IntsAttr("strides", std::move(strides)), IntsAttr("pads", std::move(pads))})});
  };
  ir::Value* x = b.DynamicInput("x", {batch, 3, 5, 9, 8});
  x = conv(x, 6, 3, {1, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 1, 1});
  ir::Value* r = conv(x, 6, 6, {3, 1, 1}, {1, 1, 1}, {1, 0, 0, 1, 0, 0});
  x = b.Op("Relu", {b.Op("Add", {r, x})});
  ir::Value* d = conv(x, 8, 6, {1, 3, 3}, {1, 2, 2}, {0, 1, 1, 0, 1, 1});
  d = conv(d, 8, 8, {3, 1, 1}, {2, 1, 1}, {1, 0, 0, 1, 0, 0});
  ir::Value* s = conv(x, 8, 6, {1, 1, 1}, {2, 2, 2}, {0, 0, 0, 0, 0, 0});
  x = b.Op("Add", {d, s});  // [batch, 8, 3, 5, 4]
  ir::Value* m = b.Op("MaxPool", {x},
                      {IntsAttr("kernel_shape", {3, 3, 3}), IntsAttr("pads", {1, 1, 1, 1, 1, 1}),
                       IntsAttr("strides", {1, avg_pads ? 2 : 1, 1})});
  ir::Value* a = nullptr;
  if (avg_pads) {
    a = b.Op(
        "AveragePool", {x},
        {IntsAttr("kernel_shape", {1, 2, 2}), IntsAttr("pads", {0, 1, 0, 0, 0, 1}),
         IntsAttr("strides", {1, 2, 1}), IntAttr("ceil_mode", 1), IntAttr("count_include_pad", 1)});
  } else {
    a = b.Op("AveragePool", {x},
             {IntsAttr("kernel_shape", {2, 1, 1}), IntsAttr("pads", {1, 0, 0, 0, 0, 0}),
              IntsAttr("strides", {1, 1, 1})});
  }
  ir::Value* c = b.Op("Concat", {m, a}, {IntAttr("axis", 1)});
  b.Output(b.Op("GlobalAveragePool", {conv(c, 4, 16, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0})}));
  return b.Model();
}

TEST(NhwcLayout, FactoredVideoLayersRunChannelsLast) {
  const std::map<std::string, int64_t> sizes{{"batch", 2}};
  for (bool avg_pads : {false, true}) {
    SCOPED_TRACE(avg_pads ? "AveragePool (1, 2, 2)" : "AveragePool (2, 1, 1)");
    for (const GraphBuilder::Dim& batch : {GraphBuilder::Dim(1), GraphBuilder::Dim("batch")}) {
      auto build = [&] { return VideoBlock(batch, avg_pads); };
      const OpCounts ops = OpsAfter(build(), 3);
      // The input's transpose and the output's only; the 3-D MaxPool as two 2-D ones.
      EXPECT_EQ(ops.at("Transpose"), 2);
      EXPECT_EQ(ops.at("ai.kiln.NhwcConv"), 6);
      EXPECT_EQ(ops.at("ai.kiln.NhwcMaxPool"), 2);
      EXPECT_EQ(ops.at("ai.kiln.NhwcAveragePool"), 1);
      EXPECT_EQ(ops.at("ai.kiln.NhwcGlobalAveragePool"), 1);
      EXPECT_EQ(ops.count("Conv") + ops.count("com.microsoft.FusedConv"), 0u);  // none left
      ExpectSameOutputsSized(build, 3, sizes);
    }
  }
}

// A 5-D network without a factored convolution (R3D: 3×3×3 layers) stays channels-first, its
// 1×1×1 layers and pools too; and a 3×3×3 layer among factored ones keeps its own transposes.
TEST(NhwcLayout, LeavesThreeDimensionalWindowsChannelsFirst) {
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant);
    auto build = [&] {
      GraphBuilder b;
      ir::Value* x = b.Input("x", {1, 2, 4, 5, 5});
      const std::vector<int64_t> k =
          variant == 0 ? std::vector<int64_t>{1, 1, 1} : std::vector<int64_t>{1, 3, 3};
      x = b.Op("Conv", {x, b.Floats({3, 2, k[0], k[1], k[2]})},
               {IntsAttr("pads", {0, k[1] / 2, k[2] / 2, 0, k[1] / 2, k[2] / 2})});
      x = b.Op("Conv", {x, b.Floats({4, 3, 3, 3, 3})}, {IntsAttr("pads", {1, 1, 1, 1, 1, 1})});
      b.Output(b.Op("MaxPool", {x}, {IntsAttr("kernel_shape", {1, 2, 2})}));
      return b.Model();
    };
    OpCounts ops = OpsAfter(build(), 3);
    EXPECT_EQ(ops["ai.kiln.NhwcConv"], variant == 0 ? 0 : 1);
    EXPECT_EQ(ops["ai.kiln.NhwcMaxPool"], variant == 0 ? 0 : 1);
    // Variant 1: into channels-last for the first layer, out for the 3×3×3 one, in for the pool
    // and out at the end.
    EXPECT_EQ(ops["Transpose"], variant == 0 ? 0 : 4);
    ExpectSameOutputs(build, 3);
  }
}

// MnasNet's and ShuffleNet's head: a convolution, then the mean over H and W. Variants: ReduceMean
// without keepdims (axes an attribute) and ReduceSum with (axes an input) run on the
// channels-last value, the first with no transpose after it; a ReduceMax over H alone without
// keepdims ([N, C, W] against channels-last's [N, W, C]) stays channels-first.
TEST(NhwcLayout, ReductionsOverTheImageRunChannelsLast) {
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    auto build = [&] {
      GraphBuilder b;
      ir::Value* x = b.Op("Conv", {b.Input("x", {2, 3, 5, 6}), b.Floats({8, 3, 3, 3})}, {Pads(1)});
      if (variant == 0) {
        x = b.Op("ReduceMean", {x}, {IntsAttr("axes", {2, 3}), IntAttr("keepdims", 0)}, 13);
      } else if (variant == 1) {
        x = b.Op("ReduceSum", {x, b.Ints({2}, {-1, -2})}, {}, 13);
      } else {
        x = b.Op("ReduceMax", {x}, {IntsAttr("axes", {2}), IntAttr("keepdims", 0)}, 13);
      }
      b.Output(b.Op("Relu", {x}));
      return b.Model();
    };
    OpCounts ops = OpsAfter(build(), 3);
    // The input's transpose; keepdims 1 and the ReduceMax keep one after.
    EXPECT_EQ(ops["Transpose"], variant == 0 ? 1 : 2);
    ExpectSameOutputs(build, 3);
  }
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
