// Inference rules of Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size, Transpose,
// DepthToSpace, SpaceToDepth, Concat, Split, Slice and Tile.
#include <gtest/gtest.h>

#include <cstdint>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;

TEST(InferReshape, ZeroCopiesAndMinusOneInfers) {
  auto out =
      RuleTest("Reshape", 14).Input(kF, {2, 3, 4}).ConstInput<int64_t>({3}, {0, -1, 2}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 6, 2}));
}

TEST(InferReshape, UnknownBatchCopiedByZeroStillInfers) {
  auto out = RuleTest("Reshape", 13).Input(kF, {-1, 3, 4}).ConstInput<int64_t>({2}, {0, -1}).Run();
  EXPECT_EQ(Dims(out[0]), (V{-1, 12}));
  auto unknown =
      RuleTest("Reshape", 13).Input(kF, {-1, 3, 4}).ConstInput<int64_t>({2}, {-1, 6}).Run();
  EXPECT_EQ(Dims(unknown[0]), (V{-1, 6}));
}

TEST(InferReshape, AllowzeroKeepsZeros) {
  auto out = RuleTest("Reshape", 14)
                 .Attr("allowzero", 1)
                 .Input(kF, {0, 4})
                 .ConstInput<int64_t>({2}, {4, 0})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{4, 0}));
  ExpectFail(
      [] {
        RuleTest("Reshape", 14)
            .Attr("allowzero", 1)
            .Input(kF, {0, 4})
            .ConstInput<int64_t>({2}, {-1, 0})
            .Run();
      },
      {"both 0 and -1"});
}

TEST(InferReshape, ShapeAttributeBeforeOpset5) {
  auto out = RuleTest("Reshape", 1).Attr("shape", V{-1, 2}).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(out[0]), (V{3, 2}));
  ExpectFail(
      [] {
        RuleTest("Reshape", 4).Input(kF, {2, 3}).Run();
      },
      {"attribute 'shape' is required"});
}

TEST(InferReshape, UnknownShapeInputGivesItsLengthAsRank) {
  auto out = RuleTest("Reshape", 13).Input(kF, {2, 3}).Input(kI64, {3}).Run();
  EXPECT_EQ(Dims(out[0]), (V{-1, -1, -1}));
  EXPECT_FALSE(RuleTest("Reshape", 13).Input(kF, {2}).Input(kI64, {-1}).Run()[0].shape);
}

TEST(InferReshape, FailsOnCountMismatch) {
  ExpectFail(
      [] {
        RuleTest("Reshape", 13).Input(kF, {2, 3}).ConstInput<int64_t>({1}, {5}).Run();
      },
      {"cannot reshape input 'data' [2,3]", "[5]"});
  ExpectFail(
      [] {
        RuleTest("Reshape", 13).Input(kF, {2, 3}).ConstInput<int64_t>({2}, {4, -1}).Run();
      },
      {"cannot infer the -1 dimension"});
  ExpectFail(
      [] {
        RuleTest("Reshape", 13).Input(kF, {2, 3}).ConstInput<int64_t>({2}, {-1, -1}).Run();
      },
      {"more than one -1"});
  ExpectFail(
      [] {
        RuleTest("Reshape", 13).Input(kF, {6}).ConstInput<int64_t>({2}, {0, 0}).Run();
      },
      {"copies dimension 1"});
  ExpectFail([] { RuleTest("Reshape", 13).Input(kF, {6}).ConstInput<int64_t>({1}, {-3}).Run(); },
             {"dimension -3"});
}

TEST(InferFlatten, SplitsAtAxis) {
  EXPECT_EQ(Dims(RuleTest("Flatten", 13).Input(kF, {2, 3, 4}).Run()[0]), (V{2, 12}));
  EXPECT_EQ(Dims(RuleTest("Flatten", 13).Attr("axis", -1).Input(kF, {2, -1, 4}).Run()[0]),
            (V{-1, 4}));
  EXPECT_EQ(Dims(RuleTest("Flatten", 13).Attr("axis", 0).Input(kF, {0, -1}).Run()[0]), (V{1, 0}));
  EXPECT_EQ(Dims(RuleTest("Flatten", 13).UnknownRankInput(kF).Run()[0]), (V{-1, -1}));
  ExpectFail(
      [] {
        RuleTest("Flatten", 9).Attr("axis", -1).Input(kF, {2, 3}).Run();
      },
      {"axis -1", "input 'input'"});
}

TEST(InferSqueeze, AxesAttributeOrInput) {
  EXPECT_EQ(Dims(RuleTest("Squeeze", 11).Attr("axes", V{-1}).Input(kF, {1, 3, 1}).Run()[0]),
            (V{1, 3}));
  EXPECT_EQ(
      Dims(RuleTest("Squeeze", 13).Input(kF, {1, -1, 1}).ConstInput<int64_t>({1}, {0}).Run()[0]),
      (V{-1, 1}));
  EXPECT_EQ(Dims(RuleTest("Squeeze", 13).Input(kF, {1, 3, 1}).Run()[0]), (V{3}));
  EXPECT_FALSE(RuleTest("Squeeze", 13).Input(kF, {1, -1}).Run()[0].shape);
  EXPECT_FALSE(RuleTest("Squeeze", 13).Input(kF, {1, 3}).Input(kI64, {1}).Run()[0].shape);
  ExpectFail(
      [] {
        RuleTest("Squeeze", 11).Attr("axes", V{1}).Input(kF, {1, 3}).Run();
      },
      {"cannot squeeze axis 1"});
}

TEST(InferUnsqueeze, InsertsOnes) {
  EXPECT_EQ(Dims(RuleTest("Unsqueeze", 11).Attr("axes", V{0, -1}).Input(kF, {3, 4}).Run()[0]),
            (V{1, 3, 4, 1}));
  EXPECT_EQ(Dims(RuleTest("Unsqueeze", 13).Input(kF, {3}).ConstInput<int64_t>({1}, {1}).Run()[0]),
            (V{3, 1}));
  ExpectFail([] { RuleTest("Unsqueeze", 13).Input(kF, {3}).Run(); }, {"input 'axes' is required"});
  ExpectFail(
      [] {
        RuleTest("Unsqueeze", 11).Attr("axes", V{0, 0}).Input(kF, {3}).Run();
      },
      {"repeat an axis"});
  ExpectFail([] { RuleTest("Unsqueeze", 11).Attr("axes", V{3}).Input(kF, {3}).Run(); },
             {"axes entry 3"});
}

TEST(InferShape, StartAndEndFromOpset15) {
  auto all = RuleTest("Shape", 13).Input(kF, {2, -1, 4}).Run();
  EXPECT_EQ(all[0].type, kI64);
  EXPECT_EQ(Dims(all[0]), (V{3}));
  EXPECT_EQ(Dims(RuleTest("Shape", 15).Attr("start", -2).Input(kF, {2, 3, 4}).Run()[0]), (V{2}));
  EXPECT_EQ(
      Dims(RuleTest("Shape", 15).Attr("start", 2).Attr("end", 1).Input(kF, {2, 3, 4}).Run()[0]),
      (V{0}));
  EXPECT_EQ(Dims(RuleTest("Shape", 13).Attr("start", 1).Input(kF, {2, 3}).Run()[0]), (V{2}));
  EXPECT_EQ(Dims(RuleTest("Shape", 15).UnknownRankInput(kF).Run()[0]), (V{-1}));
}

TEST(InferSize, Int64Scalar) {
  auto out = RuleTest("Size", 13).UnknownRankInput(kF).Run();
  EXPECT_EQ(out[0].type, kI64);
  EXPECT_EQ(Dims(out[0]), (V{}));
}

TEST(InferTranspose, PermOrReverse) {
  EXPECT_EQ(Dims(RuleTest("Transpose", 13).Input(kF, {2, 3, 4}).Run()[0]), (V{4, 3, 2}));
  EXPECT_EQ(Dims(RuleTest("Transpose", 13).Attr("perm", V{1, 0, 2}).Input(kF, {2, 3, 4}).Run()[0]),
            (V{3, 2, 4}));
  EXPECT_EQ(Dims(RuleTest("Transpose", 13).Attr("perm", V{1, 0}).UnknownRankInput(kF).Run()[0]),
            (V{-1, -1}));
  ExpectFail(
      [] {
        RuleTest("Transpose", 13).Attr("perm", V{0, 0}).Input(kF, {2, 3}).Run();
      },
      {"not a permutation"});
  ExpectFail(
      [] {
        RuleTest("Transpose", 13).Attr("perm", V{0}).Input(kF, {2, 3}).Run();
      },
      {"perm [0] has 1 entries"});
}

TEST(InferDepthToSpace, MovesChannelsToSpace) {
  EXPECT_EQ(
      Dims(RuleTest("DepthToSpace", 13).Attr("blocksize", 2).Input(kF, {1, 8, 2, -1}).Run()[0]),
      (V{1, 2, 4, -1}));
  EXPECT_EQ(
      Dims(RuleTest("SpaceToDepth", 13).Attr("blocksize", 2).Input(kF, {1, 3, 4, 6}).Run()[0]),
      (V{1, 12, 2, 3}));
  ExpectFail(
      [] {
        RuleTest("DepthToSpace", 13).Attr("blocksize", 2).Input(kF, {1, 6, 2, 2}).Run();
      },
      {"blocksize^2"});
  ExpectFail(
      [] {
        RuleTest("SpaceToDepth", 13).Attr("blocksize", 2).Input(kF, {1, 3, 3, 2}).Run();
      },
      {"not divisible by blocksize 2"});
  ExpectFail(
      [] {
        RuleTest("SpaceToDepth", 13).Attr("blocksize", 0).Input(kF, {1, 3, 4, 4}).Run();
      },
      {"blocksize"});
}

TEST(InferConcat, AddsAlongTheAxis) {
  auto out = RuleTest("Concat", 13)
                 .Attr("axis", -1)
                 .Input(kF, {2, -1, 3})
                 .Input(kF, {-1, 4, 5})
                 .MissingInput()
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 4, 8}));
  auto unknown =
      RuleTest("Concat", 13).Attr("axis", 0).Input(kF, {2, 3}).UnknownRankInput(kF).Run();
  EXPECT_EQ(Dims(unknown[0]), (V{-1, 3}));
  EXPECT_EQ(Dims(RuleTest("Concat", 1).Input(kF, {2, 3}).Input(kF, {2, 3}).Run()[0]), (V{2, 6}));
}

TEST(InferConcat, NegativeAxisCountsFromTheBackInEveryOpset) {
  // Opset 11 documented it; older exporters (PyTorch's GLU at opset 6) already wrote it.
  EXPECT_EQ(
      Dims(RuleTest("Concat", 4).Attr("axis", -1).Input(kF, {2, 3}).Input(kF, {2, 1}).Run()[0]),
      (V{2, 4}));
  const auto parts = RuleTest("Split", 2).Attr("axis", -1).Input(kF, {2, 6}).Outputs(2).Run();
  EXPECT_EQ(Dims(parts[0]), (V{2, 3}));
}

TEST(InferConcat, FailsOnMismatch) {
  ExpectFail(
      [] {
        RuleTest("Concat", 13).Attr("axis", 0).Input(kF, {2, 3}).Input(kF, {2, 4}).Run();
      },
      {"input 1 has shape [2,4]", "outside axis 0"});
  ExpectFail([] { RuleTest("Concat", 13).Input(kF, {2}).Run(); }, {"attribute 'axis' is required"});
  ExpectFail(
      [] {
        RuleTest("Concat", 13).Attr("axis", 2).Input(kF, {2, 3}).Run();
      },
      {"axis 2", "input 'inputs'"});
}

TEST(InferSplit, EqualPartsSplitAttributeAndInput) {
  auto equal = RuleTest("Split", 13).Attr("axis", 1).Input(kF, {2, 6}).Outputs(3).Run();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Dims(equal[i]), (V{2, 2}));
  auto attr = RuleTest("Split", 11).Attr("split", V{1, 5}).Input(kF, {6, -1}).Outputs(2).Run();
  EXPECT_EQ(Dims(attr[1]), (V{5, -1}));
  auto input =
      RuleTest("Split", 13).Input(kF, {6}).ConstInput<int64_t>({2}, {2, 4}).Outputs(2).Run();
  EXPECT_EQ(Dims(input[0]), (V{2}));
  EXPECT_EQ(Dims(input[1]), (V{4}));
  auto runtime = RuleTest("Split", 13).Input(kF, {6, 2}).Input(kI64, {2}).Outputs(2).Run();
  EXPECT_EQ(Dims(runtime[0]), (V{-1, 2}));
}

TEST(InferSplit, NumOutputsFromOpset18) {
  auto out = RuleTest("Split", 18).Attr("num_outputs", 3).Input(kF, {7}).Outputs(3).Run();
  EXPECT_EQ(Dims(out[0]), (V{3}));
  EXPECT_EQ(Dims(out[2]), (V{1}));
  ExpectFail([] { RuleTest("Split", 18).Attr("num_outputs", 2).Input(kF, {7}).Outputs(3).Run(); },
             {"attribute 'num_outputs' is 2"});
}

TEST(InferSplit, FailsOnBadSizes) {
  ExpectFail([] { RuleTest("Split", 13).Input(kF, {7}).Outputs(2).Run(); },
             {"cannot be split into 2 equal parts"});
  ExpectFail(
      [] {
        RuleTest("Split", 11).Attr("split", V{2, 3}).Input(kF, {6}).Outputs(2).Run();
      },
      {"adds up to 5"});
  ExpectFail([] { RuleTest("Split", 11).Attr("split", V{2}).Input(kF, {6}).Outputs(2).Run(); },
             {"1 entries for 2 outputs"});
  ExpectFail(
      [] {
        RuleTest("Split", 11).Attr("split", V{4, -2}).Input(kF, {6}).Outputs(2).Run();
      },
      {"split entry 1 is -2; sizes cannot be negative"});
  // A negative size with the input's shape unknown (a fuzzed model once read the absent shape
  // for the message).
  ExpectFail(
      [] {
        RuleTest("Split", 13)
            .UnknownRankInput(kF)
            .ConstInput<int64_t>({2}, {2, -4})
            .Outputs(2)
            .Run();
      },
      {"split entry 1 is -4"});
}

TEST(InferSlice, ClampsLikeTheKernel) {
  auto out = RuleTest("Slice", 13)
                 .Input(kF, {10, 20, 5})
                 .ConstInput<int64_t>({3}, {1, -100, 4})
                 .ConstInput<int64_t>({3}, {INT64_MAX, 15, 0})
                 .ConstInput<int64_t>({3}, {0, 1, -1})
                 .ConstInput<int64_t>({3}, {3, 2, -2})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{3, 8, 2}));
  auto unknown_dim = RuleTest("Slice", 13)
                         .Input(kF, {-1, 4})
                         .ConstInput<int32_t>({1}, {1})
                         .ConstInput<int32_t>({1}, {3})
                         .Run();
  EXPECT_EQ(Dims(unknown_dim[0]), (V{-1, 4}));
  auto runtime = RuleTest("Slice", 13).Input(kF, {4, 4}).Input(kI64, {1}).Input(kI64, {1}).Run();
  EXPECT_EQ(Dims(runtime[0]), (V{-1, -1}));
}

TEST(InferSlice, AttributesBeforeOpset10) {
  auto out = RuleTest("Slice", 9)
                 .Attr("starts", V{-3})
                 .Attr("ends", V{-1})
                 .Attr("axes", V{1})
                 .Input(kF, {2, 10})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 2}));
  ExpectFail([] { RuleTest("Slice", 9).Attr("starts", V{0}).Input(kF, {2}).Run(); },
             {"attribute 'ends' is required"});
}

TEST(InferSlice, FailsOnBadParameters) {
  ExpectFail(
      [] {
        RuleTest("Slice", 13)
            .Input(kF, {4})
            .ConstInput<int64_t>({1}, {0})
            .ConstInput<int64_t>({1}, {2})
            .ConstInput<int64_t>({1}, {0})
            .ConstInput<int64_t>({1}, {0})
            .Run();
      },
      {"steps [0] has a 0"});
  ExpectFail(
      [] {
        RuleTest("Slice", 13)
            .Input(kF, {4})
            .ConstInput<int64_t>({2}, {0, 1})
            .ConstInput<int64_t>({1}, {2})
            .Run();
      },
      {"differ in length"});
}

TEST(InferTile, MultipliesByRepeats) {
  EXPECT_EQ(Dims(RuleTest("Tile", 13).Input(kF, {2, -1}).ConstInput<int64_t>({2}, {3, 2}).Run()[0]),
            (V{6, -1}));
  EXPECT_EQ(Dims(RuleTest("Tile", 13).Input(kF, {2, 3}).Input(kI64, {2}).Run()[0]), (V{-1, -1}));
  EXPECT_EQ(Dims(RuleTest("Tile", 5)
                     .Input(kF, {2, 3})
                     .ConstInput<int64_t>({}, {4})
                     .ConstInput<int64_t>({}, {-1})
                     .Run()[0]),
            (V{2, 12}));
  ExpectFail(
      [] {
        RuleTest("Tile", 13).Input(kF, {2, 3}).ConstInput<int64_t>({1}, {3}).Run();
      },
      {"input 'repeats'"});
  ExpectFail([] { RuleTest("Tile", 13).Input(kF, {2}).ConstInput<int64_t>({1}, {-1}).Run(); },
             {"negative"});
}

}  // namespace
}  // namespace kiln::infer::testing
