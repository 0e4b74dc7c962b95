// Inference rules of Gather*, Pad, Resize/Upsample, Constant, ConstantOfShape, Range, EyeLike,
// OneHot, NonZero, Compress, the random ops, and the rule table itself.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"
#include "kernels/registry.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;

TEST(InferRuleTable, CoversTheRegisteredKernels) {
  for (const char* op : {"Add", "MatMul", "Gemm", "Einsum", "Conv", "Reshape", "Resize", "TopK",
                         "ReduceSum", "Pad", "Slice", "LSTM", "If", "Loop"}) {
    const bool expected = std::string(op) != "If" && std::string(op) != "Loop";
    EXPECT_EQ(FindRule("", op) != nullptr, expected) << op;
    EXPECT_TRUE(CpuKernels().Knows("", op)) << op;
  }
  EXPECT_NE(FindRule("ai.onnx", "Relu"), nullptr);
  EXPECT_EQ(FindRule("com.microsoft", "Relu"), nullptr);
}

TEST(InferGather, ReplacesTheAxisByTheIndicesShape) {
  auto out = RuleTest("Gather", 13).Attr("axis", -2).Input(kF, {5, 6, 7}).Input(kI64, {2, 3}).Run();
  EXPECT_EQ(Dims(out[0]), (V{5, 2, 3, 7}));
  EXPECT_FALSE(RuleTest("Gather", 13).Input(kF, {5}).UnknownRankInput(kI64).Run()[0].shape);
  ExpectFail([] { RuleTest("Gather", 13).Attr("axis", 1).Input(kF, {5}).Input(kI64, {2}).Run(); },
             {"axis 1", "input 'data'"});
}

TEST(InferGatherElements, HasTheIndicesShape) {
  auto out = RuleTest("GatherElements", 13).Input(kF, {4, 5}).Input(kI64, {7, 5}).Run();
  EXPECT_EQ(Dims(out[0]), (V{7, 5}));
  ExpectFail(
      [] {
        RuleTest("GatherElements", 13).Input(kF, {4, 5}).Input(kI64, {2, 6}).Run();
      },
      {"input 'indices'", "does not fit"});
}

TEST(InferGatherND, BatchDims) {
  auto out = RuleTest("GatherND", 13).Input(kF, {2, 3, 4}).Input(kI64, {5, 2}).Run();
  EXPECT_EQ(Dims(out[0]), (V{5, 4}));
  auto batched = RuleTest("GatherND", 12)
                     .Attr("batch_dims", 1)
                     .Input(kF, {2, 3, 4})
                     .Input(kI64, {2, 5, 1})
                     .Run();
  EXPECT_EQ(Dims(batched[0]), (V{2, 5, 4}));
  EXPECT_FALSE(RuleTest("GatherND", 13).Input(kF, {2, 3}).Input(kI64, {5, -1}).Run()[0].shape);
  ExpectFail(
      [] {
        RuleTest("GatherND", 13).Input(kF, {2, 3}).Input(kI64, {5, 3}).Run();
      },
      {"last dimension of input 'indices'"});
  ExpectFail(
      [] {
        RuleTest("GatherND", 13).Attr("batch_dims", 2).Input(kF, {2, 3}).Input(kI64, {2, 1}).Run();
      },
      {"batch_dims 2"});
}

TEST(InferPad, AttributePadsBeforeOpset11) {
  auto out = RuleTest("Pad", 2).Attr("pads", V{1, 0, 1, 2}).Input(kF, {3, 4}).Run();
  EXPECT_EQ(Dims(out[0]), (V{5, 6}));
  auto paddings = RuleTest("Pad", 1).Attr("paddings", V{0, 1, 0, 1}).Input(kF, {3, 4}).Run();
  EXPECT_EQ(Dims(paddings[0]), (V{3, 6}));
}

TEST(InferPad, ConstantPadsAndAxes) {
  auto out = RuleTest("Pad", 13).Input(kF, {3, -1}).ConstInput<int64_t>({4}, {1, 2, -1, 3}).Run();
  EXPECT_EQ(Dims(out[0]), (V{3, -1}));
  auto axes = RuleTest("Pad", 18)
                  .Input(kF, {3, 4, 5})
                  .ConstInput<int64_t>({2}, {2, 1})
                  .MissingInput()
                  .ConstInput<int64_t>({1}, {-1})
                  .Run();
  EXPECT_EQ(Dims(axes[0]), (V{3, 4, 8}));
  auto runtime = RuleTest("Pad", 13).Input(kF, {3, 4}).Input(kI64, {4}).Run();
  EXPECT_EQ(Dims(runtime[0]), (V{-1, -1}));
}

TEST(InferPad, FailsOnBadPads) {
  ExpectFail(
      [] {
        RuleTest("Pad", 13).Input(kF, {3}).ConstInput<int64_t>({2}, {-2, -2}).Run();
      },
      {"crop more than axis 0"});
  ExpectFail([] { RuleTest("Pad", 13).Input(kF, {3}).ConstInput<int64_t>({1}, {1}).Run(); },
             {"must have 2 values"});
  ExpectFail(
      [] {
        RuleTest("Pad", 13)
            .Attr("mode", "edge")
            .Input(kF, {0})
            .ConstInput<int64_t>({2}, {1, 0})
            .Run();
      },
      {"cannot pad empty axis 0"});
}

TEST(InferResize, ScalesFloorTheProduct) {
  auto out = RuleTest("Resize", 13)
                 .Input(kF, {1, 3, 5, 7})
                 .MissingInput()
                 .ConstInput<float>({4}, {1.0f, 1.0f, 1.5f, 0.3f})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 3, 7, 2}));
  auto v10 = RuleTest("Resize", 10).Input(kF, {2, 3}).ConstInput<float>({2}, {2.0f, 0.5f}).Run();
  EXPECT_EQ(Dims(v10[0]), (V{4, 1}));
  auto upsample =
      RuleTest("Upsample", 7).Attr("scales", std::vector<float>{1, 2}).Input(kF, {2, -1}).Run();
  EXPECT_EQ(Dims(upsample[0]), (V{2, -1}));
}

TEST(InferResize, SizesAxesAndAspectPolicy) {
  auto sizes = RuleTest("Resize", 13)
                   .Input(kF, {1, 3, 5, 7})
                   .MissingInput()
                   .ConstInput<float>({0}, {})
                   .ConstInput<int64_t>({4}, {1, 3, 10, 4})
                   .Run();
  EXPECT_EQ(Dims(sizes[0]), (V{1, 3, 10, 4}));
  auto axes = RuleTest("Resize", 18)
                  .Attr("axes", V{2, 3})
                  .Attr("keep_aspect_ratio_policy", "not_larger")
                  .Input(kF, {1, 3, 4, 8})
                  .MissingInput()
                  .MissingInput()
                  .ConstInput<int64_t>({2}, {8, 8})
                  .Run();
  EXPECT_EQ(Dims(axes[0]), (V{1, 3, 4, 8}));
  auto runtime = RuleTest("Resize", 18)
                     .Attr("axes", V{-1})
                     .Input(kF, {1, 3, 4, 8})
                     .MissingInput()
                     .MissingInput()
                     .Input(kI64, {1})
                     .Run();
  EXPECT_EQ(Dims(runtime[0]), (V{1, 3, 4, -1}));
}

TEST(InferResize, FailsOnBadScales) {
  ExpectFail(
      [] {
        RuleTest("Resize", 13).Input(kF, {2}).MissingInput().MissingInput().MissingInput().Run();
      },
      {"exactly one of the inputs 'scales' and 'sizes'"});
  ExpectFail([] { RuleTest("Upsample", 9).Input(kF, {2}).ConstInput<float>({1}, {0.5f}).Run(); },
             {"must be >= 1"});
  ExpectFail(
      [] {
        RuleTest("Resize", 10).Input(kF, {2, 2}).ConstInput<float>({1}, {2.0f}).Run();
      },
      {"scales has 1 entries for 2 axes"});
}

TEST(InferConstant, ValueAttributes) {
  auto tensor = RuleTest("Constant", 13).Attr("value", MakeTensor<int32_t>({2}, {1, 2})).Run();
  EXPECT_EQ(tensor[0].type, DataType::kInt32);
  EXPECT_EQ(Dims(tensor[0]), (V{2}));
  auto ints = RuleTest("Constant", 13).Attr("value_ints", V{1, 2, 3}).Run();
  EXPECT_EQ(ints[0].type, kI64);
  EXPECT_EQ(Dims(ints[0]), (V{3}));
  auto scalar = RuleTest("Constant", 13).Attr("value_float", 1.5f).Run();
  EXPECT_EQ(Dims(scalar[0]), (V{}));
}

TEST(InferConstantOfShape, ShapeFromTheConstantInput) {
  auto out = RuleTest("ConstantOfShape", 9)
                 .Attr("value", MakeTensor<int64_t>({1}, {7}))
                 .ConstInput<int64_t>({2}, {2, 3})
                 .Run();
  EXPECT_EQ(out[0].type, kI64);
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
  auto runtime = RuleTest("ConstantOfShape", 9).Input(kI64, {3}).Run();
  EXPECT_EQ(runtime[0].type, kF);
  EXPECT_EQ(Dims(runtime[0]), (V{-1, -1, -1}));
  ExpectFail([] { RuleTest("ConstantOfShape", 9).ConstInput<int64_t>({1}, {-1}).Run(); },
             {"input 'input'", "negative"});
}

TEST(InferRange, CountsConstantRanges) {
  auto ints = RuleTest("Range", 11)
                  .ConstInput<int64_t>({}, {10})
                  .ConstInput<int64_t>({}, {1})
                  .ConstInput<int64_t>({}, {-3})
                  .Run();
  EXPECT_EQ(Dims(ints[0]), (V{3}));
  auto floats = RuleTest("Range", 11)
                    .ConstInput<float>({}, {0.0f})
                    .ConstInput<float>({}, {1.0f})
                    .ConstInput<float>({}, {0.3f})
                    .Run();
  EXPECT_EQ(Dims(floats[0]), (V{4}));
  auto empty = RuleTest("Range", 11)
                   .ConstInput<int32_t>({}, {5})
                   .ConstInput<int32_t>({}, {1})
                   .ConstInput<int32_t>({}, {1})
                   .Run();
  EXPECT_EQ(Dims(empty[0]), (V{0}));
  auto runtime = RuleTest("Range", 11).Input(kI64, {}).Input(kI64, {}).Input(kI64, {}).Run();
  EXPECT_EQ(runtime[0].type, kI64);
  EXPECT_EQ(Dims(runtime[0]), (V{-1}));
  ExpectFail(
      [] {
        RuleTest("Range", 11)
            .ConstInput<int64_t>({}, {0})
            .ConstInput<int64_t>({}, {4})
            .ConstInput<int64_t>({}, {0})
            .Run();
      },
      {"input 'delta' is 0"});
}

TEST(InferEyeLike, DtypeOrInputType) {
  auto out = RuleTest("EyeLike", 9).Attr("dtype", int64_t{7}).Input(kF, {3, 4}).Run();
  EXPECT_EQ(out[0].type, kI64);
  EXPECT_EQ(Dims(out[0]), (V{3, 4}));
  EXPECT_EQ(RuleTest("EyeLike", 9).Input(kF, {3, 4}).Run()[0].type, kF);
  ExpectFail([] { RuleTest("EyeLike", 9).Input(kF, {3}).Run(); }, {"2-D"});
}

TEST(InferOneHot, InsertsTheDepth) {
  auto out = RuleTest("OneHot", 11)
                 .Input(kI64, {2, 3})
                 .ConstInput<float>({}, {4.7f})
                 .Input(DataType::kInt32, {2})
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kInt32);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  auto axis0 =
      RuleTest("OneHot", 11).Attr("axis", 0).Input(kI64, {2}).Input(kI64, {1}).Input(kF, {2}).Run();
  EXPECT_EQ(Dims(axis0[0]), (V{-1, 2}));
  ExpectFail(
      [] {
        RuleTest("OneHot", 11).Input(kI64, {2}).ConstInput<int64_t>({1}, {0}).Input(kF, {2}).Run();
      },
      {"input 'depth'"});
}

TEST(InferNonZero, RankByUnknownCount) {
  auto out = RuleTest("NonZero", 13).Input(kF, {2, 3}).Run();
  EXPECT_EQ(out[0].type, kI64);
  EXPECT_EQ(Dims(out[0]), (V{2, -1}));
  EXPECT_EQ(Dims(RuleTest("NonZero", 13).UnknownRankInput(kF).Run()[0]), (V{-1, -1}));
}

TEST(InferCompress, KeptCountIsUnknown) {
  EXPECT_EQ(Dims(RuleTest("Compress", 11).Input(kF, {2, 3}).Input(DataType::kBool, {3}).Run()[0]),
            (V{-1}));
  EXPECT_EQ(Dims(RuleTest("Compress", 11)
                     .Attr("axis", -1)
                     .Input(kF, {2, 3})
                     .Input(DataType::kBool, {3})
                     .Run()[0]),
            (V{2, -1}));
}

TEST(InferRandomNormal, ShapeAndDtypeAttributes) {
  auto out = RuleTest("RandomNormal", 1).Attr("shape", V{2, 3}).Attr("dtype", int64_t{11}).Run();
  EXPECT_EQ(out[0].type, DataType::kDouble);
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
  auto like = RuleTest("RandomUniformLike", 1).Input(DataType::kFloat16, {4}).Run();
  EXPECT_EQ(like[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(like[0]), (V{4}));
}

}  // namespace
}  // namespace kiln::infer::testing
