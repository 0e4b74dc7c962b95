// Symbolic dimensions (infer.h): how the rules carry them, and the dims values of shape tensors
// (TensorFacts::dims_value) from Shape through Gather, Unsqueeze, Concat and Cast into Reshape,
// Expand, ConstantOfShape and Range, as torch exports models with dynamic axes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "infer/rule_test_util.h"
#include "infer/rule_util.h"

namespace kiln::infer {
namespace {

using testing::Dims;
using testing::RuleTest;
using V = std::vector<int64_t>;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;
const int64_t B = SymbolicDim(0);
const int64_t S = SymbolicDim(1);
const int64_t T = SymbolicDim(2);

// An int64 input of these dims whose contents are the dimensions `value`.
TensorFacts DimsValue(V dims, V value) {
  TensorFacts f;
  f.type = kI64;
  f.shape = Shape(std::move(dims));
  f.dims_value = std::move(value);
  return f;
}

TEST(SymbolicDims, AreNegativeFarApartAndNotWhatArithmeticOnThemGives) {
  EXPECT_TRUE(IsSymbolicDim(B));
  EXPECT_TRUE(IsSymbolicDim(SymbolicDim(kMaxSymbolicDims - 1)));
  EXPECT_FALSE(IsSymbolicDim(SymbolicDim(kMaxSymbolicDims)));
  EXPECT_NE(B, S);
  for (int64_t d : {int64_t{-1}, int64_t{0}, int64_t{7}, S + 1, S - 2, S * 2, S / 2, S * 768}) {
    EXPECT_FALSE(IsSymbolicDim(d)) << d;
  }
  EXPECT_TRUE(IsNamedDim(S));
  EXPECT_TRUE(IsNamedDim(0));
  EXPECT_FALSE(IsNamedDim(-1));
}

TEST(SymbolicDims, BroadcastingKeepsASymbolOnlyWhereTheResultIsIt) {
  auto add = [](V a, V b) {
    return Dims(RuleTest("Add", 14).Input(kF, std::move(a)).Input(kF, std::move(b)).Run()[0]);
  };
  EXPECT_EQ(add({B, S, 8}, {B, S, 8}), (V{B, S, 8}));
  EXPECT_EQ(add({B, S, 8}, {1, S, 8}), (V{B, S, 8}));
  EXPECT_EQ(add({1, S, 8}, {B, 1, 8}), (V{B, S, 8}));
  EXPECT_EQ(add({S, 8}, {B, 1, 1}), (V{B, S, 8}));  // a rank padded with 1s
  EXPECT_EQ(add({B, 3}, {5, 3}), (V{5, 3}));        // B is 5 or 1
  // Either side may be the 1 that the other broadcasts over: not known.
  EXPECT_EQ(add({B, 3}, {T, 3}), (V{-1, 3}));
  EXPECT_EQ(add({B, 3}, {-1, 3}), (V{-1, 3}));
  EXPECT_EQ(add({-1, 3}, {B, 3}), (V{-1, 3}));
}

TEST(SymbolicDims, RulesPassThemThrough) {
  auto mm = RuleTest("MatMul", 13).Input(kF, {B, S, 64}).Input(kF, {64, 32}).Run();
  EXPECT_EQ(Dims(mm[0]), (V{B, S, 32}));
  auto t = RuleTest("Transpose", 13).Attr("perm", V{0, 2, 1}).Input(kF, {B, S, 8}).Run();
  EXPECT_EQ(Dims(t[0]), (V{B, 8, S}));
  // A rule that does not take symbols (InputNamedDims) sees unknown dimensions: Pad leaves an
  // unknown one in place, which must not become S padded by 2.
  auto pad = RuleTest("Pad", 13).Input(kF, {B, S}).ConstInput<int64_t>({4}, {0, 1, 0, 1}).Run();
  EXPECT_EQ(Dims(pad[0]), (V{-1, -1}));
  // Concatenating along a symbolic axis: unknown.
  auto cat = RuleTest("Concat", 13).Attr("axis", 0).Input(kF, {S, 4}).Input(kF, {S, 4}).Run();
  EXPECT_EQ(Dims(cat[0]), (V{-1, 4}));
  // Slice: the axes it leaves alone keep their symbols; one it cuts is unknown (clamping).
  auto slice = RuleTest("Slice", 13)
                   .Input(kF, {B, 8, S})
                   .ConstInput<int64_t>({2}, {2, 0})
                   .ConstInput<int64_t>({2}, {6, 3})
                   .ConstInput<int64_t>({2}, {1, -1})
                   .Run();
  EXPECT_EQ(Dims(slice[0]), (V{B, 4, -1}));
}

// Convolution and pooling keep the batch and the channels, and a spatial symbol where the
// window cannot change the size (stride 1 with the kernel's extent less one in pads, or SAME):
// a CNN exported with a dynamic batch or image size keeps them through its layers.
TEST(SymbolicDims, WindowsKeepTheBatchAndTheSizesTheyCannotChange) {
  const auto conv = [](V x, int64_t k, V pads, V strides, const char* auto_pad = nullptr) {
    RuleTest t("Conv", 11);
    t.Attr("pads", std::move(pads)).Attr("strides", std::move(strides));
    if (auto_pad != nullptr) t.Attr("auto_pad", auto_pad);
    return Dims(t.Input(kF, std::move(x)).Input(kF, {16, 3, k, k}).Run()[0]);
  };
  EXPECT_EQ(conv({B, 3, S, T}, 3, {1, 1, 1, 1}, {1, 1}), (V{B, 16, S, T}));
  EXPECT_EQ(conv({B, 3, S, T}, 1, {0, 0, 0, 0}, {1, 1}), (V{B, 16, S, T}));
  EXPECT_EQ(conv({B, 3, S, T}, 3, {0, 0, 2, 2}, {1, 1}), (V{B, 16, S, T}));  // pads at one end
  EXPECT_EQ(conv({B, 3, S, T}, 3, {0, 0, 0, 0}, {1, 1}, "SAME_UPPER"), (V{B, 16, S, T}));
  EXPECT_EQ(conv({B, 3, S, 9}, 3, {0, 1, 0, 1}, {1, 1}), (V{B, 16, -1, 9}));  // S - 2
  EXPECT_EQ(conv({B, 3, S, 9}, 3, {1, 1, 1, 1}, {2, 2}), (V{B, 16, -1, 5}));  // about S / 2
  EXPECT_EQ(conv({B, 3, S, 9}, 3, {0, 0, 0, 0}, {2, 1}, "SAME_UPPER"), (V{B, 16, -1, 9}));
  auto dilated = RuleTest("Conv", 11)
                     .Attr("pads", V{2, 1, 2, 1})
                     .Attr("dilations", V{2, 2})
                     .Input(kF, {B, 3, S, S})
                     .Input(kF, {16, 3, 3, 3})
                     .Run();
  EXPECT_EQ(Dims(dilated[0]), (V{B, 16, S, -1}));  // dilation 2 needs 4 pads; 2 shrink it

  auto pool = RuleTest("MaxPool", 12)
                  .Attr("kernel_shape", V{3, 3})
                  .Attr("pads", V{1, 1, 1, 1})
                  .Attr("strides", V{1, 2})
                  .Input(kF, {B, 8, S, T})
                  .Run();
  EXPECT_EQ(Dims(pool[0]), (V{B, 8, S, -1}));
  auto global = RuleTest("GlobalAveragePool", 1).Input(kF, {B, 8, S, T}).Run();
  EXPECT_EQ(Dims(global[0]), (V{B, 8, 1, 1}));
  auto bn = RuleTest("BatchNormalization", 15)
                .Input(kF, {B, 8, S, T})
                .Input(kF, {8})
                .Input(kF, {8})
                .Input(kF, {8})
                .Input(kF, {8})
                .Run();
  EXPECT_EQ(Dims(bn[0]), (V{B, 8, S, T}));
  // The classifier's end: Flatten keeps a symbol that is the only dimension of its side other
  // than 1s, and Gemm the rows.
  auto flat = RuleTest("Flatten", 13).Input(kF, {B, 8, 1, 1}).Run();
  EXPECT_EQ(Dims(flat[0]), (V{B, 8}));
  auto flat_s = RuleTest("Flatten", 13).Attr("axis", 2).Input(kF, {1, B, 1, S}).Run();
  EXPECT_EQ(Dims(flat_s[0]), (V{B, S}));
  auto flat_two = RuleTest("Flatten", 13).Input(kF, {B, 8, S, 1}).Run();
  EXPECT_EQ(Dims(flat_two[0]), (V{B, -1}));
  auto flat_zero = RuleTest("Flatten", 13).Input(kF, {B, 0, 1, 1}).Run();
  EXPECT_EQ(Dims(flat_zero[0]), (V{B, 0}));
  auto gemm = RuleTest("Gemm", 13).Attr("transB", 1).Input(kF, {B, 8}).Input(kF, {10, 8}).Run();
  EXPECT_EQ(Dims(gemm[0]), (V{B, 10}));

  // The channels-last forms the layout pass makes, and FusedConv.
  auto nhwc = RuleTest("NhwcConv", 1, "ai.kiln")
                  .Attr("pads", V{1, 1, 1, 1})
                  .Input(kF, {B, S, T, 3})
                  .Input(kF, {16, 3, 3, 3})
                  .Run();
  EXPECT_EQ(Dims(nhwc[0]), (V{B, S, T, 16}));
  auto nhwc_pool = RuleTest("NhwcMaxPool", 1, "ai.kiln")
                       .Attr("kernel_shape", V{2, 2})
                       .Attr("strides", V{2, 2})
                       .Input(kF, {B, S, 8, 3})
                       .Run();
  EXPECT_EQ(Dims(nhwc_pool[0]), (V{B, -1, 4, 3}));
  auto nhwc_global = RuleTest("NhwcGlobalAveragePool", 1, "ai.kiln").Input(kF, {B, S, T, 3}).Run();
  EXPECT_EQ(Dims(nhwc_global[0]), (V{B, 1, 1, 3}));
  auto fused = RuleTest("FusedConv", 1, "com.microsoft")
                   .Input(kF, {B, 3, S, 9})
                   .Input(kF, {16, 3, 1, 1})
                   .Run();
  EXPECT_EQ(Dims(fused[0]), (V{B, 16, S, 9}));
}

// A rule can only pass on the symbols its node's inputs have, in their shapes or dims values.
TEST(SymbolicDims, AnOutputKeepsOnlyTheSymbolsOfItsInputs) {
  ir::Graph g;
  ir::Value* in = g.AddValue("in");
  ir::Value* out = g.AddValue("out");
  ir::Node* node = g.AddNode("n", "Relu", "");
  g.Connect(node, {in}, {out});
  const KernelInfo info(*node);
  TensorFacts x;
  x.type = kF;
  x.shape = Shape({B, 4});
  x.dims_value = V{T};
  const TensorFacts* inputs[] = {&x};
  std::vector<TensorFacts> outputs(1);
  InferenceContext ctx(info, inputs, outputs);
  SetOutputDims(ctx, 0, kF, V{B, T, S, -7});
  EXPECT_EQ(Dims(outputs[0]), (V{B, T, -1, -1}));
  EXPECT_EQ(DimsText(V{B, 2}), "[-1,2]");
}

TEST(SymbolicDims, ShapeGivesItsDimsAsItsValue) {
  auto all = RuleTest("Shape", 15).Input(kF, {B, S, 768}).Run();
  EXPECT_EQ(Dims(all[0]), (V{3}));
  ASSERT_TRUE(all[0].dims_value);
  EXPECT_EQ(*all[0].dims_value, (V{B, S, 768}));
  auto middle = RuleTest("Shape", 15).Attr("start", 1).Attr("end", -1).Input(kF, {B, S, 768}).Run();
  ASSERT_TRUE(middle[0].dims_value);
  EXPECT_EQ(*middle[0].dims_value, (V{S}));
  // An unnamed unknown dimension: no value.
  EXPECT_FALSE(RuleTest("Shape", 15).Input(kF, {B, -1}).Run()[0].dims_value);
}

TEST(SymbolicDims, GatherUnsqueezeConcatAndCastCarryTheValue) {
  auto scalar =
      RuleTest("Gather", 13).Input(DimsValue({3}, {B, S, 768})).ConstInput<int64_t>({}, {1}).Run();
  EXPECT_EQ(Dims(scalar[0]), V{});
  ASSERT_TRUE(scalar[0].dims_value);
  EXPECT_EQ(*scalar[0].dims_value, (V{S}));
  auto picked = RuleTest("Gather", 13)
                    .Input(DimsValue({3}, {B, S, 768}))
                    .ConstInput<int64_t>({2}, {-1, 0})
                    .Run();
  ASSERT_TRUE(picked[0].dims_value);
  EXPECT_EQ(*picked[0].dims_value, (V{768, B}));
  // Out of range: left to the kernel, no value.
  EXPECT_FALSE(RuleTest("Gather", 13)
                   .Input(DimsValue({3}, {B, S, 768}))
                   .ConstInput<int64_t>({}, {3})
                   .Run()[0]
                   .dims_value);

  auto unsqueezed =
      RuleTest("Unsqueeze", 13).Input(DimsValue({}, {S})).ConstInput<int64_t>({1}, {0}).Run();
  EXPECT_EQ(Dims(unsqueezed[0]), (V{1}));
  ASSERT_TRUE(unsqueezed[0].dims_value);
  EXPECT_EQ(*unsqueezed[0].dims_value, (V{S}));
  auto squeezed =
      RuleTest("Squeeze", 13).Input(DimsValue({1}, {S})).ConstInput<int64_t>({1}, {0}).Run();
  ASSERT_TRUE(squeezed[0].dims_value);
  EXPECT_EQ(*squeezed[0].dims_value, (V{S}));

  auto joined = RuleTest("Concat", 13)
                    .Attr("axis", 0)
                    .Input(DimsValue({1}, {B}))
                    .Input(DimsValue({1}, {S}))
                    .ConstInput<int64_t>({2}, {12, -1})
                    .Run();
  EXPECT_EQ(Dims(joined[0]), (V{4}));
  ASSERT_TRUE(joined[0].dims_value);
  EXPECT_EQ(*joined[0].dims_value, (V{B, S, 12, -1}));
  // A piece that is not known so: no value.
  EXPECT_FALSE(RuleTest("Concat", 13)
                   .Attr("axis", 0)
                   .Input(DimsValue({1}, {B}))
                   .Input(kI64, {1})
                   .Run()[0]
                   .dims_value);

  auto to_int = RuleTest("Cast", 13)
                    .Attr("to", static_cast<int64_t>(DataType::kInt32))
                    .Input(DimsValue({}, {S}))
                    .Run();
  ASSERT_TRUE(to_int[0].dims_value);
  EXPECT_EQ(*to_int[0].dims_value, (V{S}));
  EXPECT_FALSE(RuleTest("Cast", 13)
                   .Attr("to", static_cast<int64_t>(DataType::kFloat))
                   .Input(DimsValue({}, {S}))
                   .Run()[0]
                   .dims_value);
  auto same = RuleTest("Identity", 16).Input(DimsValue({2}, {B, S})).Run();
  ASSERT_TRUE(same[0].dims_value);
  EXPECT_EQ(*same[0].dims_value, (V{B, S}));
  // Neg is not Identity: the value is not carried.
  EXPECT_FALSE(RuleTest("Neg", 13).Input(DimsValue({2}, {B, S})).Run()[0].dims_value);
}

TEST(SymbolicDims, ReshapeToADimsValue) {
  auto reshape = [](V x, TensorFacts target) {
    return Dims(RuleTest("Reshape", 14).Input(kF, std::move(x)).Input(std::move(target)).Run()[0]);
  };
  // Heads split and joined as torch writes them: Concat(Gather(Shape(x), 0), ..., H, Dh).
  EXPECT_EQ(reshape({B, S, 768}, DimsValue({4}, {B, S, 12, 64})), (V{B, S, 12, 64}));
  EXPECT_EQ(reshape({B, S, 12, 64}, DimsValue({3}, {B, S, 768})), (V{B, S, 768}));
  // -1 from what is left once the symbols on both sides cancel.
  EXPECT_EQ(reshape({B, S, 12, 64}, DimsValue({3}, {B, S, -1})), (V{B, S, 768}));
  EXPECT_EQ(reshape({B, S, 768}, DimsValue({4}, {0, 0, 12, -1})), (V{B, S, 12, 64}));
  // S does not cancel: -1 depends on it.
  EXPECT_EQ(reshape({B, S, 768}, DimsValue({3}, {B, -1, 64})), (V{B, -1, 64}));
  // A symbol of the target need not be one of the input's.
  EXPECT_EQ(reshape({-1, 8}, DimsValue({2}, {T, 8})), (V{T, 8}));
  // A contradiction the symbols cannot hide still fails.
  testing::ExpectFail(
      [&] {
        reshape({B, 6}, DimsValue({3}, {B, 4, -1}));
      },
      {"cannot infer the -1 dimension"});
}

TEST(SymbolicDims, ExpandConstantOfShapeAndRangeSizeByTheDimsValue) {
  auto expand =
      RuleTest("Expand", 13).Input(kF, {B, 1, 1, S}).Input(DimsValue({4}, {1, 1, S, 1})).Run();
  EXPECT_EQ(Dims(expand[0]), (V{B, 1, S, S}));
  auto filled = RuleTest("ConstantOfShape", 9).Input(DimsValue({2}, {S, S})).Run();
  EXPECT_EQ(Dims(filled[0]), (V{S, S}));
  auto range = [](int64_t start, int64_t delta) {
    return Dims(RuleTest("Range", 11)
                    .ConstInput<int64_t>({}, {start})
                    .Input(DimsValue({}, {S}))
                    .ConstInput<int64_t>({}, {delta})
                    .Run()[0]);
  };
  EXPECT_EQ(range(0, 1), (V{S}));
  // From 1, or by 2: not S elements.
  EXPECT_EQ(range(1, 1), (V{-1}));
  EXPECT_EQ(range(0, 2), (V{-1}));
}

}  // namespace
}  // namespace kiln::infer
