// Level 2 fusions: each on a before/after graph (which ops remain) and on numerics (the same
// outputs as the unoptimized graph on random inputs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "kernels/registry.h"
#include "optimizer/optimizer.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::Bytes;
using testing::ExpectSameOutputs;
using testing::ExpectSameOutputsSized;
using testing::GraphBuilder;
using testing::Int32s;
using testing::OpCounts;
using testing::OpsAfter;

ir::Attribute Pads(int64_t p) {
  return IntsAttr("pads", {p, p, p, p});
}

// ---- Conv + BatchNormalization ----

ir::Model ConvBn(bool conv_bias, int64_t training_mode) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 3, 7, 7});
  std::vector<ir::Value*> in{x, b.Floats({4, 3, 3, 3})};
  if (conv_bias) in.push_back(b.Floats({4}));
  ir::Value* y = b.Op("Conv", in, {Pads(1)});
  ir::Value* var = b.Floats({4}, {0.5f, 1.5f, 2.0f, 0.1f});
  b.Output(b.Op("BatchNormalization", {y, b.Floats({4}), b.Floats({4}), b.Floats({4}), var},
                {FloatAttr("epsilon", 1e-3f), IntAttr("training_mode", training_mode)}));
  return b.Model();
}

TEST(ConvBnFusion, FoldsTheNormalizationIntoWeightsAndBias) {
  for (bool bias : {true, false}) {
    EXPECT_EQ(OpsAfter(ConvBn(bias, 0), 2), (OpCounts{{"Conv", 1}}));
    ExpectSameOutputs([&] { return ConvBn(bias, 0); }, 2);
  }
}

TEST(ConvBnFusion, LeavesTrainingModeAlone) {
  EXPECT_EQ(OpsAfter(ConvBn(true, 1), 2), (OpCounts{{"BatchNormalization", 1}, {"Conv", 1}}));
}

// ---- Conv + residual + activation ----

enum class Act { kNone, kRelu, kClip, kSwish, kLeaky, kHardSigmoid };

ir::Model ConvAct(Act act, bool residual, bool broadcast_residual = false) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 3, 9, 9});
  ir::Value* y = b.Op("Conv", {x, b.Floats({6, 3, 3, 3}), b.Floats({6})},
                      {Pads(1), IntsAttr("strides", {1, 1})});
  if (residual) {
    ir::Value* z =
        broadcast_residual ? b.Floats({1, 6, 1, 1}) : b.Op("Conv", {x, b.Floats({6, 3, 1, 1})});
    y = b.Op("Add", {y, z});
  }
  switch (act) {
    case Act::kNone:
      break;
    case Act::kRelu:
      y = b.Op("Relu", {y});
      break;
    case Act::kClip:
      y = b.Op("Clip", {y, b.Floats({}, {0.0f}), b.Floats({}, {0.5f})});
      break;
    case Act::kSwish:
      y = b.Op("Mul", {y, b.Op("Sigmoid", {y})});
      break;
    case Act::kLeaky:
      y = b.Op("LeakyRelu", {y}, {FloatAttr("alpha", 0.3f)});
      break;
    case Act::kHardSigmoid:
      y = b.Op("HardSigmoid", {y}, {FloatAttr("alpha", 0.3f), FloatAttr("beta", 0.4f)});
      break;
  }
  b.Output(y);
  return b.Model();
}

TEST(ConvActivationFusion, FusesEachActivation) {
  for (Act act : {Act::kRelu, Act::kClip, Act::kSwish, Act::kLeaky, Act::kHardSigmoid}) {
    EXPECT_EQ(OpsAfter(ConvAct(act, false), 2), (OpCounts{{"com.microsoft.FusedConv", 1}}));
    ExpectSameOutputs([&] { return ConvAct(act, false); }, 2);
  }
}

TEST(ConvActivationFusion, FusesAResidualAddWithAndWithoutActivation) {
  for (Act act : {Act::kNone, Act::kRelu}) {
    // The residual branch's own Conv stays a Conv (it feeds the Add, which the first one took).
    EXPECT_EQ(OpsAfter(ConvAct(act, true), 2),
              (OpCounts{{"Conv", 1}, {"com.microsoft.FusedConv", 1}}));
    ExpectSameOutputs([&] { return ConvAct(act, true); }, 2);
  }
}

TEST(ConvActivationFusion, LeavesABroadcastAddAndALoneConvAlone) {
  EXPECT_EQ(OpsAfter(ConvAct(Act::kRelu, true, true), 2),
            (OpCounts{{"Add", 1}, {"Conv", 1}, {"Relu", 1}}));
  EXPECT_EQ(OpsAfter(ConvAct(Act::kNone, false), 2), (OpCounts{{"Conv", 1}}));
  ExpectSameOutputs([] { return ConvAct(Act::kRelu, true, true); }, 2);
}

// A residual block exported with dynamic axes: a 3×3 conv (pads 1) plus a 1×1 shortcut conv of
// x [batch, 3, h, w], then Relu. With stride 1 both branches are [batch, 6, h, w] in every run
// and the Add fuses; with stride 2 the spatial sizes are not known at load, so it does not.
ir::Model DynamicResidual(const std::vector<GraphBuilder::Dim>& dims, int64_t stride) {
  GraphBuilder b;
  ir::Value* x = b.DynamicInput("x", dims);
  ir::Value* y = b.Op("Conv", {x, b.Floats({6, 3, 3, 3}), b.Floats({6})},
                      {Pads(1), IntsAttr("strides", {stride, stride})});
  ir::Value* z = b.Op("Conv", {x, b.Floats({6, 3, 1, 1})}, {IntsAttr("strides", {stride, stride})});
  b.Output(b.Op("Relu", {b.Op("Add", {y, z})}));
  return b.Model();
}

TEST(ConvActivationFusion, FusesAResidualAddOverDynamicAxes) {
  const std::map<std::string, int64_t> sizes{{"batch", 2}, {"h", 7}, {"w", 5}};
  for (const std::vector<GraphBuilder::Dim>& dims :
       {std::vector<GraphBuilder::Dim>{"batch", 3, 9, 9},
        std::vector<GraphBuilder::Dim>{"batch", 3, "h", "w"}}) {
    EXPECT_EQ(OpsAfter(DynamicResidual(dims, 1), 2),
              (OpCounts{{"Conv", 1}, {"com.microsoft.FusedConv", 1}}));
    ExpectSameOutputsSized([&] { return DynamicResidual(dims, 1); }, 2, sizes);
  }
  const std::vector<GraphBuilder::Dim> image{"batch", 3, "h", "w"};
  EXPECT_EQ(OpsAfter(DynamicResidual(image, 2), 2),
            (OpCounts{{"Add", 1}, {"Conv", 2}, {"Relu", 1}}));
  ExpectSameOutputsSized([&] { return DynamicResidual(image, 2); }, 2, sizes);
  // At level 3 the block runs channels-last, the residual still fused, as in a static export.
  EXPECT_EQ(OpsAfter(DynamicResidual(image, 1), 3),
            (OpCounts{{"Transpose", 3}, {"ai.kiln.NhwcConv", 2}}));
  EXPECT_EQ(OpsAfter(DynamicResidual(image, 1), 3), OpsAfter(DynamicResidual({2, 3, 7, 5}, 1), 3));
  ExpectSameOutputsSized([&] { return DynamicResidual(image, 1); }, 3, sizes);
}

TEST(ConvActivationFusion, LeavesAConvWhoseOutputHasOtherReaders) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {1, 2, 5, 5});
    ir::Value* y = b.Op("Conv", {x, b.Floats({2, 2, 1, 1})});
    b.Output(b.Op("Relu", {y}));
    b.Output(y);
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 2), (OpCounts{{"Conv", 1}, {"Relu", 1}}));
}

// ---- GELU ----

enum class GeluForm { kErfDivOuterHalf, kErfMulInnerHalf, kErfHalfFirst, kTanhMul, kTanhPow };

ir::Model GeluModel(GeluForm form, bool bias) {
  GraphBuilder b;
  ir::Value* in = b.Input("x", {2, 5, 8});
  ir::Value* x = b.Op("MatMul", {in, b.Floats({8, 8})});
  if (bias) x = b.Op("Add", {b.Floats({8}), x});
  auto scalar = [&](float v) { return b.Floats({}, {v}); };
  ir::Value* f = nullptr;
  if (form == GeluForm::kTanhMul || form == GeluForm::kTanhPow) {
    ir::Value* cube = form == GeluForm::kTanhPow ? b.Op("Pow", {x, scalar(3.0f)})
                                                 : b.Op("Mul", {x, b.Op("Mul", {x, x})});
    ir::Value* inner = b.Op("Add", {x, b.Op("Mul", {scalar(0.044715f), cube})});
    f = b.Op("Tanh", {b.Op("Mul", {scalar(0.7978845608f), inner})});
  } else if (form == GeluForm::kErfMulInnerHalf) {
    f = b.Op("Erf", {b.Op("Mul", {x, scalar(0.70710678f)})});
  } else {
    f = b.Op("Erf", {b.Op("Div", {x, scalar(1.41421356f)})});
  }
  ir::Value* a = b.Op("Add", {scalar(1.0f), f});
  ir::Value* y = nullptr;
  switch (form) {
    case GeluForm::kErfMulInnerHalf:
      y = b.Op("Mul", {x, b.Op("Mul", {a, scalar(0.5f)})});
      break;
    case GeluForm::kErfHalfFirst:
      y = b.Op("Mul", {b.Op("Mul", {x, scalar(0.5f)}), a});
      break;
    default:
      y = b.Op("Mul", {scalar(0.5f), b.Op("Mul", {x, a})});
  }
  b.Output(y);
  return b.Model();
}

TEST(GeluFusion, FusesTheErfForms) {
  for (GeluForm f :
       {GeluForm::kErfDivOuterHalf, GeluForm::kErfMulInnerHalf, GeluForm::kErfHalfFirst}) {
    EXPECT_EQ(OpsAfter(GeluModel(f, false), 2),
              (OpCounts{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.Gelu", 1}}));
    ExpectSameOutputs([&] { return GeluModel(f, false); }, 2);
  }
}

TEST(GeluFusion, FusesTheTanhForms) {
  for (GeluForm f : {GeluForm::kTanhMul, GeluForm::kTanhPow}) {
    EXPECT_EQ(OpsAfter(GeluModel(f, false), 2),
              (OpCounts{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.FastGelu", 1}}));
    ExpectSameOutputs([&] { return GeluModel(f, false); }, 2);
  }
}

TEST(BiasGeluFusion, TakesTheBiasAddIntoTheGelu) {
  EXPECT_EQ(OpsAfter(GeluModel(GeluForm::kErfDivOuterHalf, true), 2),
            (OpCounts{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.BiasGelu", 1}}));
  ExpectSameOutputs([] { return GeluModel(GeluForm::kErfDivOuterHalf, true); }, 2);
  EXPECT_EQ(OpsAfter(GeluModel(GeluForm::kTanhPow, true), 2),
            (OpCounts{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.FastGelu", 1}}));
  ExpectSameOutputs([] { return GeluModel(GeluForm::kTanhPow, true); }, 2);
}

TEST(GeluFusion, LeavesAWrongConstantAlone) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {4});
    ir::Value* f = b.Op("Erf", {b.Op("Div", {x, b.Floats({}, {1.5f})})});
    b.Output(b.Op(
        "Mul", {b.Floats({}, {0.5f}), b.Op("Mul", {x, b.Op("Add", {b.Floats({}, {1.0f}), f})})}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 2), (OpCounts{{"Add", 1}, {"Div", 1}, {"Erf", 1}, {"Mul", 2}}));
}

// ---- LayerNorm (decomposed, as opset-13 exports write it) ----

ir::Model DecomposedLayerNorm(bool pow, bool affine) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 3, 16});
  auto mean = [&](ir::Value* v) { return b.Op("ReduceMean", {v}, {IntsAttr("axes", {-1})}, 13); };
  ir::Value* d = b.Op("Sub", {x, mean(x)});
  ir::Value* sq = pow ? b.Op("Pow", {d, b.Floats({}, {2.0f})}) : b.Op("Mul", {d, d});
  ir::Value* s = b.Op("Sqrt", {b.Op("Add", {mean(sq), b.Floats({}, {1e-5f})})});
  ir::Value* y = b.Op("Div", {d, s});
  if (affine) y = b.Op("Add", {b.Op("Mul", {y, b.Floats({16})}), b.Floats({16})});
  b.Output(y);
  return b.Model();
}

TEST(LayerNormFusion, FusesTheDecomposedForms) {
  for (bool pow : {true, false}) {
    for (bool affine : {true, false}) {
      EXPECT_EQ(OpsAfter(DecomposedLayerNorm(pow, affine), 2),
                (OpCounts{{"LayerNormalization", 1}}));
      ExpectSameOutputs([&] { return DecomposedLayerNorm(pow, affine); }, 2);
    }
  }
}

// ---- SkipLayerNorm ----

ir::Model SkipLn(bool bias, bool sum_read_elsewhere) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 4, 16});
  ir::Value* h = b.Op("MatMul", {x, b.Floats({16, 16})});
  if (bias) h = b.Op("Add", {h, b.Floats({16})});
  ir::Value* sum = b.Op("Add", {x, h});
  b.Output(b.Op("LayerNormalization", {sum, b.Floats({16}), b.Floats({16})},
                {IntAttr("axis", -1), FloatAttr("epsilon", 1e-6f)}));
  if (sum_read_elsewhere) b.Output(b.Op("Relu", {sum}));
  return b.Model();
}

TEST(SkipLayerNormFusion, FusesTheResidualAddAndTheBias) {
  for (bool bias : {false, true}) {
    for (bool elsewhere : {false, true}) {
      OpCounts want{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.SkipLayerNormalization", 1}};
      if (elsewhere) want["Relu"] = 1;
      EXPECT_EQ(OpsAfter(SkipLn(bias, elsewhere), 2), want);
      ExpectSameOutputs([&] { return SkipLn(bias, elsewhere); }, 2);
    }
  }
}

// The kernel takes 2-D or 3-D inputs: a 4-D residual (a Swin block's [1, H, W, C]) or a 1-D one
// is left to Add and LayerNormalization, and the model still runs.
TEST(SkipLayerNormFusion, LeavesResidualsOfAnotherRankAlone) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{1, 3, 4, 16}, {16}}) {
    const auto model = [&] {
      GraphBuilder b;
      ir::Value* x = b.Input("x", dims);
      ir::Value* sum = b.Op("Add", {x, b.Op("Relu", {x})});
      b.Output(
          b.Op("LayerNormalization", {sum, b.Floats({16}), b.Floats({16})}, {IntAttr("axis", -1)}));
      return b.Model();
    };
    EXPECT_EQ(OpsAfter(model(), 2), (OpCounts{{"Relu", 1}, {"Add", 1}, {"LayerNormalization", 1}}));
    ExpectSameOutputs(model, 2);
  }
}

// ---- Attention ----

// B=2, S=6, D=16, H=2 (Dh=8). packed: one qkv projection as torch's fused Linear exports it;
// otherwise three projections (Hugging Face style, keys transposed with [0, 2, 3, 1]).
ir::Model AttentionModel(bool packed, bool mask, bool mul_scale) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 6, 16});
  ir::Value *q = nullptr, *kt = nullptr, *v = nullptr;
  if (packed) {
    ir::Value* qkv = b.Op("Add", {b.Floats({48}), b.Op("MatMul", {x, b.Floats({16, 48})})});
    ir::Value* r = b.Op("Reshape", {qkv, b.Ints({5}, {2, 6, 3, 2, 8})});
    ir::Value* t = b.Op("Transpose", {r}, {IntsAttr("perm", {2, 0, 3, 1, 4})});
    std::vector<ir::Value*> parts =
        b.Node("Split", {t, b.Ints({3}, {1, 1, 1})}, 3, {IntAttr("axis", 0)});
    ir::Value* axes = b.Ints({1}, {0});
    q = b.Op("Squeeze", {parts[0], axes});
    ir::Value* k = b.Op("Squeeze", {parts[1], axes});
    v = b.Op("Squeeze", {parts[2], axes});
    kt = b.Op("Transpose", {k}, {IntsAttr("perm", {0, 1, 3, 2})});
  } else {
    auto heads = [&](std::vector<int64_t> perm) {
      ir::Value* p = b.Op("Add", {b.Op("MatMul", {x, b.Floats({16, 16})}), b.Floats({16})});
      ir::Value* r = b.Op("Reshape", {p, b.Ints({4}, {2, 6, 2, 8})});
      return b.Op("Transpose", {r}, {IntsAttr("perm", std::move(perm))});
    };
    q = heads({0, 2, 1, 3});
    kt = heads({0, 2, 3, 1});
    v = heads({0, 2, 1, 3});
  }
  ir::Value* s = b.Op("MatMul", {q, kt});
  s = mul_scale ? b.Op("Mul", {s, b.Floats({}, {0.35355339f})})
                : b.Op("Div", {s, b.Floats({}, {2.8284271f})});
  if (mask) s = b.Op("Add", {s, b.Floats({2, 1, 1, 6})});
  ir::Value* p = b.Op("Softmax", {s}, {IntAttr("axis", -1)});
  ir::Value* o = b.Op("Transpose", {b.Op("MatMul", {p, v})}, {IntsAttr("perm", {0, 2, 1, 3})});
  b.Output(b.Op("Reshape", {o, b.Ints({3}, {2, 6, 16})}));
  return b.Model();
}

TEST(AttentionFusion, FusesPackedQkvAttention) {
  for (bool mask : {false, true}) {
    OpCounts want{{"ai.kiln.BlockedMatMul", 3}, {"com.microsoft.MultiHeadAttention", 1}};
    if (mask) want["Expand"] = 1;  // the [B, 1, 1, L] mask broadcast over the queries
    EXPECT_EQ(OpsAfter(AttentionModel(true, mask, false), 2), want);
    ExpectSameOutputs([&] { return AttentionModel(true, mask, false); }, 2);
  }
}

// The names of the initializers in `g` that nothing reads (and no output names).
std::vector<std::string> UnreadInitializers(const ir::Graph& g) {
  std::vector<std::string> out;
  for (const auto& v : g.values()) {
    if (v->initializer() != nullptr && !g.IsUsed(v.get())) out.push_back(v->name());
  }
  return out;
}

// The packed weight that a fusion splits into three column blocks is freed, not kept beside them.
TEST(AttentionFusion, FreesThePackedWeightItSplits) {
  ir::Model m = AttentionModel(true, false, false);
  std::vector<std::weak_ptr<const Tensor>> packed;
  for (const auto& v : m.graph->values()) {
    if (v->initializer() != nullptr && v->initializer()->shape().rank() == 2) {
      packed.push_back(v->initializer());
    }
  }
  ASSERT_EQ(packed.size(), 1u);
  Optimize(*m.graph, 2, CpuKernels());
  EXPECT_TRUE(packed[0].expired());
  EXPECT_EQ(UnreadInitializers(*m.graph), std::vector<std::string>{});
}

TEST(AttentionFusion, FusesSeparateProjections) {
  EXPECT_EQ(OpsAfter(AttentionModel(false, true, true), 2),
            (OpCounts{{"Expand", 1},
                      {"ai.kiln.BlockedMatMul", 3},  // each projection's bias Add taken in
                      {"com.microsoft.MultiHeadAttention", 1}}));
  ExpectSameOutputs([] { return AttentionModel(false, true, true); }, 2);
  ExpectSameOutputs([] { return AttentionModel(false, false, false); }, 2);
}

// torch's nn.MultiheadAttention as ViT exports it (sequence first, batch 1): a packed projection
// of the [S, 1, E] transpose, three Slices, [S, H, Dh] views, the query scaled before the product.
ir::Model SequenceFirstAttention(bool packed_projection) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 6, 16});
  ir::Value* xt = b.Op("Transpose", {x}, {IntsAttr("perm", {1, 0, 2})});
  ir::Value* qkv = b.Op("Add", {b.Floats({48}), b.Op("MatMul", {xt, b.Floats({16, 48})})});
  if (!packed_projection) qkv = b.Op("Relu", {qkv});  // not x·W + b: slices are reshaped instead
  auto part = [&](int64_t p, std::vector<int64_t> perm) {
    ir::Value* sl =
        b.Op("Slice", {qkv, b.Ints({1}, {16 * p}), b.Ints({1}, {16 * (p + 1)}), b.Ints({1}, {-1})});
    ir::Value* r = b.Op("Reshape", {sl, b.Ints({3}, {6, 2, 8})});
    return b.Op("Transpose", {r}, {IntsAttr("perm", std::move(perm))});
  };
  ir::Value* q = b.Op("Div", {part(0, {1, 0, 2}), b.Floats({}, {2.8284271f})});
  ir::Value* p = b.Op("Softmax", {b.Op("MatMul", {q, part(1, {1, 2, 0})})}, {IntAttr("axis", -1)});
  ir::Value* o =
      b.Op("Transpose", {b.Op("MatMul", {p, part(2, {1, 0, 2})})}, {IntsAttr("perm", {1, 0, 2})});
  ir::Value* flat = b.Op("Reshape", {o, b.Ints({2}, {6, 16})});
  b.Output(b.Op("Gemm", {flat, b.Floats({16, 16}), b.Floats({16})}, {IntAttr("transB", 1)}));
  return b.Model();
}

TEST(AttentionFusion, FusesSequenceFirstAttention) {
  EXPECT_EQ(
      OpsAfter(SequenceFirstAttention(true), 2),
      (OpCounts{
          {"Reshape", 1}, {"ai.kiln.BlockedMatMul", 4}, {"com.microsoft.MultiHeadAttention", 1}}));
  ExpectSameOutputs([] { return SequenceFirstAttention(true); }, 2);
  EXPECT_EQ(OpsAfter(SequenceFirstAttention(false), 2),
            (OpCounts{{"ai.kiln.BlockedMatMul", 2},  // the packed projection's bias taken in
                      {"Relu", 1},
                      {"Reshape", 4},
                      {"Slice", 3},
                      {"Transpose", 1},
                      {"com.microsoft.MultiHeadAttention", 1}}));
  ExpectSameOutputs([] { return SequenceFirstAttention(false); }, 2);
}

// ---- Dynamic axes ----

// A transformer block's residual as torch exports it with dynamic batch and sequence axes: x
// [batch, seq, 16] through a Linear, plus a residual y of the given dims, then LayerNorm.
ir::Model DynamicSkipLn(const std::vector<GraphBuilder::Dim>& residual) {
  GraphBuilder b;
  ir::Value* x = b.DynamicInput("x", {"batch", "seq", 16});
  ir::Value* y = b.DynamicInput("y", residual);
  ir::Value* h = b.Op("Add", {b.Op("MatMul", {x, b.Floats({16, 16})}), b.Floats({16})});
  b.Output(b.Op("LayerNormalization", {b.Op("Add", {y, h}), b.Floats({16}), b.Floats({16})},
                {IntAttr("axis", -1)}));
  return b.Model();
}

// Symbolic dimensions prove the residual's operands the same shape when both have the dims
// [batch, seq, 16]; a residual that broadcasts ([1, seq, 16]), or whose sequence axis has
// another name, is left to Add and LayerNormalization.
TEST(SkipLayerNormFusion, FusesOverDynamicAxesWhenTheShapesAreTheSame) {
  const std::map<std::string, int64_t> sizes{{"batch", 2}, {"seq", 5}, {"other", 5}};
  const std::vector<GraphBuilder::Dim> same{"batch", "seq", 16};
  EXPECT_EQ(OpsAfter(DynamicSkipLn(same), 2),
            (OpCounts{{"ai.kiln.BlockedMatMul", 1}, {"com.microsoft.SkipLayerNormalization", 1}}));
  ExpectSameOutputsSized([&] { return DynamicSkipLn(same); }, 2, sizes);
  for (const std::vector<GraphBuilder::Dim>& other :
       {std::vector<GraphBuilder::Dim>{1, "seq", 16},
        std::vector<GraphBuilder::Dim>{"batch", "other", 16}}) {
    EXPECT_EQ(OpsAfter(DynamicSkipLn(other), 2),
              (OpCounts{{"Add", 1}, {"LayerNormalization", 1}, {"ai.kiln.BlockedMatMul", 1}}));
    ExpectSameOutputsSized([&] { return DynamicSkipLn(other); }, 2, sizes);
  }
}

// torch's split of packed heads r [B, S, 3, H, Dh]: q [B, H, S, Dh], kᵀ [B, H, Dh, S], v.
struct PackedHeads {
  ir::Value* q;
  ir::Value* kt;
  ir::Value* v;
};
PackedHeads SplitPackedHeads(GraphBuilder& b, ir::Value* r) {
  ir::Value* t = b.Op("Transpose", {r}, {IntsAttr("perm", {2, 0, 3, 1, 4})});
  std::vector<ir::Value*> parts =
      b.Node("Split", {t, b.Ints({3}, {1, 1, 1})}, 3, {IntAttr("axis", 0)});
  ir::Value* axes = b.Ints({1}, {0});
  ir::Value* kt =
      b.Op("Transpose", {b.Op("Squeeze", {parts[1], axes})}, {IntsAttr("perm", {0, 1, 3, 2})});
  return {b.Op("Squeeze", {parts[0], axes}), kt, b.Op("Squeeze", {parts[2], axes})};
}

// Packed-qkv attention as torch exports it with dynamic axes: x [batch, seq, 16], the heads'
// Reshape targets Concat(Unsqueeze(Gather(Shape(x), i)), ...) and the padding mask an input
// [batch, mask_seq] made a [B, 1, 1, L] additive bias. H = 2, Dh = 8.
ir::Model DynamicAttention(const char* mask_seq) {
  GraphBuilder b;
  ir::Value* x = b.DynamicInput("x", {"batch", "seq", 16});
  ir::Value* mask = b.DynamicInput("mask", {"batch", mask_seq});
  ir::Value* shape = b.Op("Shape", {x});
  auto dim = [&](int64_t i) {
    ir::Value* d = b.Op("Gather", {shape, b.Ints({}, {i})}, {IntAttr("axis", 0)});
    return b.Op("Unsqueeze", {d, b.Ints({1}, {0})});
  };
  auto target = [&](const std::vector<int64_t>& rest) {
    std::vector<ir::Value*> parts{dim(0), dim(1)};
    for (int64_t r : rest) parts.push_back(b.Ints({1}, {r}));
    return b.Op("Concat", parts, {IntAttr("axis", 0)});
  };
  ir::Value* qkv = b.Op("Add", {b.Op("MatMul", {x, b.Floats({16, 48})}), b.Floats({48})});
  ir::Value* r = b.Op("Reshape", {qkv, target({3, 2, 8})});
  const auto [q, kt, v] = SplitPackedHeads(b, r);
  ir::Value* keep = b.Op("Unsqueeze", {mask, b.Ints({2}, {1, 2})});
  ir::Value* bias = b.Op("Mul", {b.Op("Sub", {b.Floats({}, {1.0f}), keep}), b.Floats({}, {-8.0f})});
  ir::Value* s = b.Op("Div", {b.Op("MatMul", {q, kt}), b.Floats({}, {2.8284271f})});
  ir::Value* p = b.Op("Softmax", {b.Op("Add", {s, bias})}, {IntAttr("axis", -1)});
  ir::Value* o = b.Op("Transpose", {b.Op("MatMul", {p, v})}, {IntsAttr("perm", {0, 2, 1, 3})});
  b.Output(b.Op("Reshape", {o, target({16})}));
  return b.Model();
}

// The heads' reshapes match through the symbols their computed targets carry, and the mask is
// expanded over the queries to a shape taken at run time ([1, 1, S, 1] from Shape of the query
// source); at other sizes than the first too. A mask whose key axis is not named "seq" is not the
// queries' and keys' length as far as load can tell: no fusion.
TEST(AttentionFusion, FusesTorchsDynamicAxesExport) {
  EXPECT_EQ(OpsAfter(DynamicAttention("seq"), 2),
            (OpCounts{{"Concat", 1},
                      {"Expand", 1},
                      {"Mul", 1},
                      {"Shape", 1},
                      {"Sub", 1},
                      {"Unsqueeze", 1},
                      {"ai.kiln.BlockedMatMul", 3},
                      {"com.microsoft.MultiHeadAttention", 1}}));
  for (int64_t seq : {5, 1, 13}) {
    ExpectSameOutputsSized([] { return DynamicAttention("seq"); }, 2, {{"batch", 2}, {"seq", seq}});
  }
  const OpCounts unfused = OpsAfter(DynamicAttention("keys"), 2);
  EXPECT_EQ(unfused.count("com.microsoft.MultiHeadAttention"), 0u);
  EXPECT_EQ(unfused.at("Softmax"), 1);
  ExpectSameOutputsSized([] { return DynamicAttention("keys"); }, 2,
                         {{"batch", 2}, {"seq", 5}, {"keys", 5}});
}

// Packed-qkv attention of x [1, 5, 48] whose heads' Reshape has the constant target
// [1, 5, 3, heads, head_size], as torch exports it with static shapes (2 heads of 8 match).
ir::Model PackedAttention(int64_t heads, int64_t head_size = 8) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 5, 48});
  ir::Value* qkv = b.Op("MatMul", {x, b.Floats({48, 48})});
  ir::Value* r = b.Op("Reshape", {qkv, b.Ints({5}, {1, 5, 3, heads, head_size})});
  const auto [q, kt, v] = SplitPackedHeads(b, r);
  ir::Value* s = b.Op("Div", {b.Op("MatMul", {q, kt}), b.Floats({}, {2.8284271f})});
  ir::Value* p = b.Op("Softmax", {s}, {IntAttr("axis", -1)});
  ir::Value* o = b.Op("Transpose", {b.Op("MatMul", {p, v})}, {IntsAttr("perm", {0, 2, 1, 3})});
  b.Output(b.Op("Reshape", {o, b.Ints({3}, {1, 5, 16})}));
  return b.Model();
}

// A head count so large that 3 · heads · 16 overflows int64 (the fuzzer made one: the Reshape's
// own check cannot count those elements) is not a match, and costs the pass no overflow (which
// the sanitizer build would report).
TEST(AttentionFusion, HeadSizesWhoseProductOverflowsAreNotAMatch) {
  EXPECT_EQ(OpsAfter(PackedAttention(2), 2).count("com.microsoft.MultiHeadAttention"), 1u);
  ExpectSameOutputs([] { return PackedAttention(2); }, 2);
  const OpCounts huge = OpsAfter(PackedAttention(384307168202282325, 16), 2);
  EXPECT_EQ(huge.count("com.microsoft.MultiHeadAttention"), 0u);
  EXPECT_EQ(huge.at("Softmax"), 1);
}

// Blocked weights: MatMul and Gemm (with its bias, its weight plain or transposed) against a
// constant weight become BlockedMatMul with blocks of 32 columns (PackedGemm's panels), the
// original weights freed; matrix-vector or scaled products stay as they are, and a weight
// shared by several products is blocked once when all of them read it the same way.
TEST(BlockedMatMul, BlocksWideAndTransposedWeights) {
  auto wide = [] {  // 1100 columns: 34 blocks of 32 and one of 12
    GraphBuilder b;
    ir::Value* x = b.Input("x", {2, 20, 8});
    b.Output(b.Op("Relu", {b.Op("MatMul", {x, b.Floats({8, 1100})})}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(wide(), 2), (OpCounts{{"Relu", 1}, {"ai.kiln.BlockedMatMul", 1}}));
  ExpectSameOutputs(wide, 2);
  auto narrow = [](int64_t n) {  // 64 columns: two whole blocks; 40: one and one of 8
    GraphBuilder b;
    ir::Value* x = b.Input("x", {3, 12, 16});
    b.Output(b.Op("MatMul", {x, b.Floats({16, n})}));
    return b.Model();
  };
  for (int64_t n : {64, 40}) {
    EXPECT_EQ(OpsAfter(narrow(n), 2), (OpCounts{{"ai.kiln.BlockedMatMul", 1}}));
    ExpectSameOutputs([&] { return narrow(n); }, 2);
  }
  // Rows unknown until run time (a free batch dimension): blocked too.
  GraphBuilder free_rows;
  ir::Value* fx = free_rows.Input("x", {-1, 12, 16});
  free_rows.Output(free_rows.Op("MatMul", {fx, free_rows.Floats({16, 40})}));
  EXPECT_EQ(OpsAfter(free_rows.Model(), 2), (OpCounts{{"ai.kiln.BlockedMatMul", 1}}));
  // Transposed: 50 columns (one block of 32 and one of 18), and 1100, K not a multiple of the
  // 16-wide tiles the layout is written in.
  auto transposed = [](bool bias, int64_t n = 50) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {40, 20});
    std::vector<ir::Value*> in = {x, b.Floats({n, 20})};
    if (bias) in.push_back(b.Floats({n}));
    b.Output(b.Op("Gemm", in, {IntAttr("transB", 1)}));
    return b.Model();
  };
  for (bool bias : {false, true}) {
    for (int64_t n : {50, 1100}) {
      EXPECT_EQ(OpsAfter(transposed(bias, n), 2), (OpCounts{{"ai.kiln.BlockedMatMul", 1}}));
      ExpectSameOutputs([&] { return transposed(bias, n); }, 2);
    }
  }
  ir::Model m = wide();
  std::weak_ptr<const Tensor> weights;
  for (const auto& v : m.graph->values()) {
    if (v->initializer() != nullptr) weights = v->initializer();
  }
  Optimize(*m.graph, 2, CpuKernels());
  EXPECT_TRUE(weights.expired()) << "the original weights were freed";
  EXPECT_EQ(UnreadInitializers(*m.graph), std::vector<std::string>{});
}

TEST(BlockedMatMul, BlocksASharedWeightOnce) {
  // W [8, 100] read by `readers` products: MatMul(x [m, 8], W), or (transposed) Gemm(x [m, 100],
  // W, C [8]) with transB, which reads it as [100, 8]. `mixed` flips the last reader's way,
  // `other` adds a reader that is not a product (an Add with an input), `output` makes W a graph
  // output too.
  struct Variant {
    int readers = 2;
    bool transposed = false, mixed = false, other = false, output = false;
  };
  auto build = [](Variant v) {
    GraphBuilder b;
    ir::Value* w = b.Floats({8, 100});
    for (int i = 0; i < v.readers; ++i) {
      const bool transposed = v.mixed && i == v.readers - 1 ? !v.transposed : v.transposed;
      ir::Value* x = b.Input("x" + std::to_string(i), {3 + i, transposed ? 100 : 8});
      b.Output(transposed ? b.Op("Gemm", {x, w, b.Floats({8})}, {IntAttr("transB", 1)})
                          : b.Op("MatMul", {x, w}));
    }
    if (v.other) b.Output(b.Op("Add", {w, b.Input("y", {8, 100})}));
    if (v.output) b.Output(w);
    return b.Model();
  };
  auto weights = [](const ir::Model& m) {
    size_t n = 0;
    for (const auto& v : m.graph->values()) {
      if (v->initializer() != nullptr && v->initializer()->element_count() == 800) ++n;
    }
    return n;
  };
  for (int readers : {2, 3}) {
    for (bool transposed : {false, true}) {
      const Variant v{readers, transposed};
      EXPECT_EQ(OpsAfter(build(v), 2), (OpCounts{{"ai.kiln.BlockedMatMul", readers}}));
      ExpectSameOutputs([&] { return build(v); }, 2);
      ir::Model m = build(v);
      Optimize(*m.graph, 2, CpuKernels());
      EXPECT_EQ(weights(m), 1u) << "one blocked copy, the original freed";
      EXPECT_EQ(UnreadInitializers(*m.graph), std::vector<std::string>{});
    }
  }
  // Some reader cannot read the blocked layout: every reader keeps the weight as it is.
  EXPECT_EQ(OpsAfter(build({3, false, true}), 2), (OpCounts{{"MatMul", 2}, {"Gemm", 1}}));
  ExpectSameOutputs([&] { return build({3, false, true}); }, 2);
  EXPECT_EQ(OpsAfter(build({3, true, true}), 2), (OpCounts{{"MatMul", 1}, {"Gemm", 2}}));
  EXPECT_EQ(OpsAfter(build({2, false, false, true}), 2), (OpCounts{{"MatMul", 2}, {"Add", 1}}));
  EXPECT_EQ(OpsAfter(build({2, false, false, false, true}), 2), (OpCounts{{"MatMul", 2}}));
}

// A MatMul's bias (an Add of a constant [N], either side) becomes the BlockedMatMul's; an Add
// of anything else, or one the product's output is not read by alone, stays.
TEST(BlockedMatMul, TakesAMatMulsBias) {
  // 0: Y + b, 1: b + Y, 2: b has 1 element, 3: b is [1, N], 4: b is an input, 5: Y read twice,
  // 6: Y a graph output too.
  auto build = [](int variant) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {3, 12, 16});
    ir::Value* y = b.Op("MatMul", {x, b.Floats({16, 40})});
    ir::Value* bias = variant == 2   ? b.Floats({1})
                      : variant == 3 ? b.Floats({1, 40})
                      : variant == 4 ? b.Input("b", {40})
                                     : b.Floats({40});
    b.Output(b.Op("Add", variant == 1 ? std::vector{bias, y} : std::vector{y, bias}));
    if (variant == 5) b.Output(b.Op("Relu", {y}));
    if (variant == 6) b.Output(y);
    return b.Model();
  };
  for (int variant = 0; variant < 7; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    OpCounts want{{"ai.kiln.BlockedMatMul", 1}};
    if (variant >= 2) want["Add"] = 1;
    if (variant == 5) want["Relu"] = 1;
    EXPECT_EQ(OpsAfter(build(variant), 2), want);
    ExpectSameOutputs([&] { return build(variant); }, 2);
  }
}

// A product whose A has a last dimension known only at run time (a Reshape to a computed shape,
// as exporters write with dynamic axes) is blocked too, its bias taken in; the kernel checks the
// dimension as MatMul does.
TEST(BlockedMatMul, BlocksAnAWhoseShapeIsKnownAtRunTime) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* a =
        b.Op("Reshape", {b.Input("x", {2, 3, 4, 4}), b.Input("s", {3}, DataType::kInt64)});
    b.Output(b.Op("Add", {b.Op("MatMul", {a, b.Floats({16, 40})}), b.Floats({40})}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 2), (OpCounts{{"Reshape", 1}, {"ai.kiln.BlockedMatMul", 1}}));
  std::shared_ptr<Tensor> x =
      Tensor::Allocate(DataType::kFloat, Shape({2, 3, 4, 4}), CpuAllocator());
  for (size_t i = 0; i < x->element_count(); ++i) {
    static_cast<float*>(x->data())[i] = static_cast<float>(i % 13) * 0.25f - 1.5f;
  }
  auto shape = [](std::vector<int64_t> dims) {
    std::shared_ptr<Tensor> t = Tensor::Allocate(DataType::kInt64, Shape({3}), CpuAllocator());
    std::copy(dims.begin(), dims.end(), static_cast<int64_t*>(t->data()));
    return t;
  };
  const std::vector<Value> good = {Value(x), Value(shape({2, 3, 16}))};
  const auto want = testing::RunModel(build(), 0, good);
  const auto got = testing::RunModel(build(), 2, good);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0]->shape(), want[0]->shape());
  const auto* w = static_cast<const float*>(want[0]->data());
  const auto* g = static_cast<const float*>(got[0]->data());
  for (size_t i = 0; i < want[0]->element_count(); ++i) EXPECT_NEAR(g[i], w[i], 1e-5f) << i;
  // A last dimension that is not K fails as the MatMul would, naming the product's node.
  try {
    testing::RunModel(build(), 2, {Value(x), Value(shape({2, 4, 12}))});
    ADD_FAILURE() << "no error for A [2, 4, 12] against W [16, 40]";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("MatMul"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2,4,12]"), std::string::npos) << e.what();
  }
}

TEST(BlockedMatMul, LeavesOtherProductsAlone) {
  auto build = [](int variant) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {variant == 1 ? 1 : 40, 8});
    ir::Value* w = b.Floats({8, variant == 0 ? 1024 : 1100});
    if (variant == 3) {
      b.Output(b.Op("Gemm", {x, b.Floats({50, 8})}, {IntAttr("transB", 1), FloatAttr("alpha", 2)}));
      return b.Model();
    }
    b.Output(b.Op("MatMul", {x, w}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(0), 2), (OpCounts{{"ai.kiln.BlockedMatMul", 1}}));  // 40 rows: blocked
  EXPECT_EQ(OpsAfter(build(1), 2), (OpCounts{{"MatMul", 1}}));  // 1 row: matrix-vector
  EXPECT_EQ(OpsAfter(build(3), 2), (OpCounts{{"Gemm", 1}}));
  // Before opset 11 C is required (and before 7 must be [M, N]): Gemm's own kernel judges, even
  // where (as here, at opset 9) the node would also qualify.
  GraphBuilder old;
  ir::Value* x = old.Input("x", {40, 8});
  old.Output(old.Op("Gemm", {x, old.Floats({50, 8}), old.Floats({50})}, {IntAttr("transB", 1)}));
  ir::Model m = old.Model();
  for (const auto& n : m.graph->nodes()) n->set_opset(9);
  EXPECT_EQ(OpsAfter(m, 2), (OpCounts{{"Gemm", 1}}));
}

// ---- DynamicQuantizeLinear → MatMulInteger → Cast → Mul [→ Add] ----

// The graph ONNX Runtime's quantize_dynamic writes for `products` MatMuls of one input x [2, 5,
// 24] by int8 weights [24, 16]: one DynamicQuantizeLinear shared by them all, each product's
// scale Mul(s, w_scale) (one value or one per column), and a bias Add when `bias`. `cast_read`
// makes the first product's Cast output a graph output too (then that product is left alone).
ir::Model DynamicQuant(int products, bool bias, bool per_column, bool cast_read = false) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 5, 24});
  std::vector<ir::Value*> q = b.Node("DynamicQuantizeLinear", {x}, 3);
  for (int p = 0; p < products; ++p) {
    auto w = Tensor::Allocate(DataType::kInt8, Shape({24, 16}), CpuAllocator());
    auto* wd = static_cast<int8_t*>(w->data());
    for (int i = 0; i < 24 * 16; ++i) wd[i] = static_cast<int8_t>((i * 37 + p * 11) % 255 - 127);
    ir::Value* mm = b.Op("MatMulInteger", {q[0], b.Const(std::move(w)), q[2]});
    ir::Value* c = b.Op("Cast", {mm}, {IntAttr("to", 1)});
    if (cast_read && p == 0) b.Output(c);
    ir::Value* ws = per_column ? b.Floats({16}) : b.Floats({}, {0.02f});
    ir::Value* y = b.Op("Mul", {c, b.Op("Mul", {q[1], ws})});
    if (bias) y = b.Op("Add", {y, b.Floats({16})});
    b.Output(y);
  }
  return b.Model();
}

TEST(DynamicQuantFusion, FusesEachProductIntoOneNodeWithTheSameBits) {
  for (bool bias : {false, true}) {
    for (bool per_column : {false, true}) {
      for (int products : {1, 3}) {
        SCOPED_TRACE(std::to_string(products) + " products, bias " + std::to_string(bias) +
                     ", per column " + std::to_string(per_column));
        EXPECT_EQ(OpsAfter(DynamicQuant(products, bias, per_column), 2),
                  (OpCounts{{"com.microsoft.DynamicQuantizeMatMul", products}}));
        // Bit for bit: the kernel computes the chain's values in the chain's order.
        EXPECT_EQ(ExpectSameOutputs([&] { return DynamicQuant(products, bias, per_column); }, 2,
                                    0.0f, 0.0f),
                  0.0f);
      }
    }
  }
}

TEST(DynamicQuantFusion, LeavesAProductWhoseIntermediateHasOtherReaders) {
  // The first product's Cast is a graph output: that chain stays; the second is fused.
  EXPECT_EQ(OpsAfter(DynamicQuant(2, true, false, true), 2),
            (OpCounts{{"Add", 1},
                      {"Cast", 1},
                      {"DynamicQuantizeLinear", 1},
                      {"MatMulInteger", 1},
                      {"Mul", 2},
                      {"com.microsoft.DynamicQuantizeMatMul", 1}}));
  ExpectSameOutputs([] { return DynamicQuant(2, true, false, true); }, 2, 0.0f, 0.0f);
}

// ---- DequantizeLinear → Conv [→ Relu] → QuantizeLinear ----

struct QdqConvCase {
  DataType act = DataType::kUint8;  // x and y
  bool per_channel = true;
  bool bias = true;
  bool relu = false;
  int y_zero = 0;
};

// A float input quantized, a 3×3 convolution of 4 → 6 channels in QDQ form, quantized and
// dequantized again to a float output.
ir::Model QdqConv(const QdqConvCase& c) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 4, 9, 8});
  const bool s8 = c.act == DataType::kInt8;
  auto zero = [&](int v) {
    auto t = Tensor::Allocate(c.act, Shape(std::vector<int64_t>{}), CpuAllocator());
    if (s8) {
      *static_cast<int8_t*>(t->data()) = static_cast<int8_t>(v);
    } else {
      *static_cast<uint8_t*>(t->data()) = static_cast<uint8_t>(v);
    }
    return b.Const(std::move(t));
  };
  const float xs = 2.0f / 255.0f;
  ir::Value* xq = b.Op("QuantizeLinear", {x, b.Floats({}, {xs}), zero(s8 ? 0 : 128)});
  ir::Value* xf = b.Op("DequantizeLinear", {xq, b.Floats({}, {xs}), zero(s8 ? 0 : 128)});
  std::vector<float> ws = c.per_channel
                              ? std::vector<float>{0.01f, 0.02f, 0.005f, 0.03f, 0.011f, 0.017f}
                              : std::vector<float>{0.013f};
  const std::vector<int64_t> ws_dims =
      c.per_channel ? std::vector<int64_t>{6} : std::vector<int64_t>{};
  ir::Value* wf = b.Op("DequantizeLinear",
                       {b.Const(Bytes(DataType::kInt8, {6, 4, 3, 3}, 5)), b.Floats(ws_dims, ws)},
                       {IntAttr("axis", 0)});
  std::vector<ir::Value*> conv_in = {xf, wf};
  if (c.bias) {
    std::vector<float> bs(ws.size());
    for (size_t i = 0; i < ws.size(); ++i) bs[i] = xs * ws[i];
    conv_in.push_back(b.Op("DequantizeLinear",
                           {b.Const(Int32s({300, -200, 50, 0, -1000, 777})), b.Floats(ws_dims, bs)},
                           {IntAttr("axis", 0)}));
  }
  ir::Value* y = b.Op("Conv", conv_in, {Pads(1)});
  if (c.relu) y = b.Op("Relu", {y});
  const float ys = 0.05f;
  ir::Value* yq = b.Op("QuantizeLinear", {y, b.Floats({}, {ys}), zero(c.y_zero)});
  b.Output(b.Op("DequantizeLinear", {yq, b.Floats({}, {ys}), zero(c.y_zero)}));
  return b.Model();
}

TEST(QdqConvFusion, MakesAQLinearConvWithinOneStepOfTheFloatChain) {
  std::vector<QdqConvCase> cases = {
      {},
      {DataType::kInt8, true, true, false, 0},
      {DataType::kUint8, false, false, false, 7},
      {DataType::kUint8, true, true, true, 0},
      {DataType::kInt8, true, false, true, -128},
  };
  for (const QdqConvCase& c : cases) {
    SCOPED_TRACE("int8 " + std::to_string(c.act == DataType::kInt8) + " per channel " +
                 std::to_string(c.per_channel) + " bias " + std::to_string(c.bias) + " relu " +
                 std::to_string(c.relu));
    EXPECT_EQ(OpsAfter(QdqConv(c), 2),
              (OpCounts{{"DequantizeLinear", 1}, {"QLinearConv", 1}, {"QuantizeLinear", 1}}));
    // One step of y's quantization (0.05) at most, where the float sums round differently.
    ExpectSameOutputs([&] { return QdqConv(c); }, 2, 0.0f, 0.0501f);
  }
}

TEST(QdqConvFusion, LeavesAReluTheSaturationWouldNotApply) {
  // y's zero point 10: values below it are not clamped by saturation, so the Relu stays and the
  // chain is not fused.
  const QdqConvCase c{DataType::kUint8, true, true, true, 10};
  const OpCounts after = OpsAfter(QdqConv(c), 2);
  EXPECT_EQ(after.count("QLinearConv"), 0u);
  EXPECT_EQ(after.at("QuantizeLinear"), 2);
  ExpectSameOutputs([&] { return QdqConv(c); }, 2, 1e-4f, 1e-5f);
}

// ---- DequantizeLinear → MatMul → QuantizeLinear ----

// x [2, 5, 24] quantized to `act`, times int8 weights [24, 16] in QDQ form (scale one value or
// one per column), quantized and dequantized again.
ir::Model QdqMatMul(DataType act, bool per_column) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 5, 24});
  const bool s8 = act == DataType::kInt8;
  auto zero = [&](int v) {
    auto t = Tensor::Allocate(act, Shape(std::vector<int64_t>{}), CpuAllocator());
    if (s8) {
      *static_cast<int8_t*>(t->data()) = static_cast<int8_t>(v);
    } else {
      *static_cast<uint8_t*>(t->data()) = static_cast<uint8_t>(v);
    }
    return b.Const(std::move(t));
  };
  const float xs = 2.0f / 255.0f;
  ir::Value* xq = b.Op("QuantizeLinear", {x, b.Floats({}, {xs}), zero(s8 ? 3 : 128)});
  ir::Value* xf = b.Op("DequantizeLinear", {xq, b.Floats({}, {xs}), zero(s8 ? 3 : 128)});
  std::vector<float> ws(per_column ? 16 : 1);
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = 0.004f + 0.001f * static_cast<float>(i % 5);
  const std::vector<int64_t> ws_dims =
      per_column ? std::vector<int64_t>{16} : std::vector<int64_t>{};
  ir::Value* wf = b.Op("DequantizeLinear",
                       {b.Const(Bytes(DataType::kInt8, {24, 16}, 9)), b.Floats(ws_dims, ws)});
  const float ys = 0.02f;
  ir::Value* yq =
      b.Op("QuantizeLinear", {b.Op("MatMul", {xf, wf}), b.Floats({}, {ys}), zero(s8 ? -2 : 100)});
  b.Output(b.Op("DequantizeLinear", {yq, b.Floats({}, {ys}), zero(s8 ? -2 : 100)}));
  return b.Model();
}

TEST(QdqMatMulFusion, MakesAQLinearMatMulWithinOneStepOfTheFloatChain) {
  for (DataType act : {DataType::kUint8, DataType::kInt8}) {
    for (bool per_column : {false, true}) {
      SCOPED_TRACE("int8 " + std::to_string(act == DataType::kInt8) + " per column " +
                   std::to_string(per_column));
      EXPECT_EQ(OpsAfter(QdqMatMul(act, per_column), 2),
                (OpCounts{{"DequantizeLinear", 1}, {"QLinearMatMul", 1}, {"QuantizeLinear", 1}}));
      // One step of y's quantization (0.02) at most.
      ExpectSameOutputs([&] { return QdqMatMul(act, per_column); }, 2, 0.0f, 0.0201f);
    }
  }
}

}  // namespace
}  // namespace kiln::optimizer
