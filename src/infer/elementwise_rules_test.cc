// Inference rules of the elementwise ops: same-as-input, bool results, Cast/CastLike, Dropout,
// numpy and legacy broadcasting, the variadic ops, Where and Expand.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferUnary, KeepsTypeAndShape) {
  for (const char* op : {"Relu",   "Sin",    "Tan",       "Asin",
                         "Sign",   "Round",  "Selu",      "Mish",
                         "Celu",   "Shrink", "Softsign",  "ThresholdedRelu",
                         "Clip",   "LRN",    "Softmax",   "InstanceNormalization",
                         "CumSum", "Trilu",  "ScatterND", "PRelu"}) {
    auto out = RuleTest(op, 13).Input(kF, {2, -1, 3}).Run();
    EXPECT_EQ(out[0].type, kF) << op;
    EXPECT_EQ(Dims(out[0]), (V{2, -1, 3})) << op;
  }
  auto b = RuleTest("Not", 1).Input(DataType::kBool, {4}).Run();
  EXPECT_EQ(b[0].type, DataType::kBool);
  auto bits = RuleTest("BitwiseNot", 18).Input(DataType::kUint8, {4}).Run();
  EXPECT_EQ(bits[0].type, DataType::kUint8);
}

TEST(InferUnary, UnknownRankStaysUnknown) {
  auto out = RuleTest("Exp", 13).UnknownRankInput(DataType::kDouble).Run();
  EXPECT_EQ(out[0].type, DataType::kDouble);
  EXPECT_FALSE(out[0].shape.has_value());
}

TEST(InferIsNaN, GivesBool) {
  for (const char* op : {"IsNaN", "IsInf"}) {
    auto out = RuleTest(op, 13).Input(kF, {3, 2}).Run();
    EXPECT_EQ(out[0].type, DataType::kBool);
    EXPECT_EQ(Dims(out[0]), (V{3, 2}));
  }
}

TEST(InferCast, TakesTheTargetType) {
  auto out = RuleTest("Cast", 13).Attr("to", int64_t{7}).Input(kF, {2, 3}).Run();
  EXPECT_EQ(out[0].type, DataType::kInt64);
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
}

TEST(InferCast, ReadsTypeNamesBeforeOpset6) {
  auto out = RuleTest("Cast", 1).Attr("to", "INT32").Input(kF, {2}).Run();
  EXPECT_EQ(out[0].type, DataType::kInt32);
  ExpectFail([] { RuleTest("Cast", 1).Attr("to", "NOPE").Input(kF, {2}).Run(); },
             {"attribute 'to'", "NOPE"});
}

TEST(InferCast, FailsOnAnUnknownTypeNumber) {
  ExpectFail([] { RuleTest("Cast", 13).Attr("to", int64_t{99}).Input(kF, {2}).Run(); },
             {"attribute 'to' is 99"});
}

TEST(InferCastLike, TakesTheSecondInputsType) {
  auto out = RuleTest("CastLike", 15).Input(kF, {5}).Input(DataType::kFloat16, {}).Run();
  EXPECT_EQ(out[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(out[0]), (V{5}));
}

TEST(InferDropout, MaskIsBoolFromOpset10) {
  auto out = RuleTest("Dropout", 13).Input(kF, {2, 3}).Outputs(2).Run();
  EXPECT_EQ(out[1].type, DataType::kBool);
  EXPECT_EQ(Dims(out[1]), (V{2, 3}));
  auto old = RuleTest("Dropout", 7).Input(kF, {2, 3}).Outputs(2).Run();
  EXPECT_EQ(old[1].type, kF);
  auto no_mask = RuleTest("Dropout", 13).Input(kF, {2}).Outputs(2, {1}).Run();
  EXPECT_EQ(no_mask[1].type, DataType::kUndefined);
}

TEST(InferAdd, BroadcastsLikeNumpy) {
  auto out = RuleTest("Add", 14).Input(kF, {2, 1, 4}).Input(kF, {3, 1}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
}

TEST(InferAdd, UnknownDimensionsBroadcastWhereCertain) {
  // -1 against 5 is 5 (the unknown one is 1 or 5); -1 against 1 stays unknown.
  auto out = RuleTest("Mul", 14).Input(kF, {-1, -1, 1}).Input(kF, {5, 1, 1}).Run();
  EXPECT_EQ(Dims(out[0]), (V{5, -1, 1}));
}

TEST(InferAdd, UnknownRankGivesUnknownShape) {
  auto out = RuleTest("Sub", 14).UnknownRankInput(kF).Input(kF, {3}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_FALSE(out[0].shape.has_value());
}

TEST(InferAdd, FailsOnStaticMismatch) {
  ExpectFail(
      [] {
        RuleTest("Add", 14).Input(kF, {2, 3}).Input(kF, {4, 3}).Run();
      },
      {"input 'B'", "[4,3]", "does not broadcast", "[2,3]"});
}

TEST(InferAdd, LegacyBroadcastHasTheFirstInputsShape) {
  auto out = RuleTest("Add", 6)
                 .Attr("broadcast", int64_t{1})
                 .Attr("axis", int64_t{1})
                 .Input(kF, {2, 3, 4})
                 .Input(kF, {3})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  ExpectFail(
      [] {
        RuleTest("Div", 6).Input(kF, {2, 3}).Input(kF, {3}).Run();
      },
      {"input 'B'", "broadcast"});
}

TEST(InferEqual, ComparisonsGiveBool) {
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    auto out = RuleTest(op, 16).Input(DataType::kInt32, {3}).Input(DataType::kInt32, {2, 1}).Run();
    EXPECT_EQ(out[0].type, DataType::kBool) << op;
    EXPECT_EQ(Dims(out[0]), (V{2, 3})) << op;
  }
  auto logic = RuleTest("And", 7).Input(DataType::kBool, {2}).Input(DataType::kBool, {1}).Run();
  EXPECT_EQ(Dims(logic[0]), (V{2}));
}

TEST(InferSum, BroadcastsAllInputsFromOpset8) {
  auto out = RuleTest("Sum", 13).Input(kF, {3, 1}).Input(kF, {4}).Input(kF, {2, 1, 1}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  ExpectFail([] { RuleTest("Max", 13).Input(kF, {3}).Input(kF, {2}).Run(); }, {"input 'data_1'"});
}

TEST(InferSum, NeedsEqualShapesBeforeOpset8) {
  auto out = RuleTest("Mean", 6).Input(kF, {-1, 3}).Input(kF, {2, -1}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
  ExpectFail(
      [] {
        RuleTest("Min", 6).Input(kF, {2, 3}).Input(kF, {3}).Run();
      },
      {"input 'data_1'", "same shape before opset 8"});
}

TEST(InferWhere, BroadcastsThreeWays) {
  auto out = RuleTest("Where", 16)
                 .Input(DataType::kBool, {2, 1})
                 .Input(DataType::kInt64, {3})
                 .Input(DataType::kInt64, {1, 1})
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kInt64);
  EXPECT_EQ(Dims(out[0]), (V{2, 3}));
  ExpectFail(
      [] { RuleTest("Where", 16).Input(DataType::kBool, {2}).Input(kF, {3}).Input(kF, {1}).Run(); },
      {"input 'X'"});
}

TEST(InferExpand, BroadcastsWithTheConstantShape) {
  auto out = RuleTest("Expand", 13).Input(kF, {3, 1}).ConstInput<int64_t>({3}, {2, 1, 4}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  auto unknown = RuleTest("Expand", 13).Input(kF, {3, 1}).Input(DataType::kInt64, {3}).Run();
  EXPECT_FALSE(unknown[0].shape.has_value());
  EXPECT_EQ(unknown[0].type, kF);
}

TEST(InferExpand, FailsOnBadShapes) {
  ExpectFail([] { RuleTest("Expand", 13).Input(kF, {3}).ConstInput<int64_t>({1}, {-2}).Run(); },
             {"input 'shape'", "-2"});
  ExpectFail([] { RuleTest("Expand", 13).Input(kF, {3}).ConstInput<int64_t>({1}, {4}).Run(); },
             {"input 'input'", "does not broadcast"});
}

}  // namespace
}  // namespace kiln::infer::testing
