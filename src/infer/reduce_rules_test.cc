// Inference rules of the Reduce* ops, ArgMax/ArgMin and TopK.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferReduce, AxesAttributeBeforeOpset18) {
  auto kept = RuleTest("ReduceMean", 13).Attr("axes", V{-1, 0}).Input(kF, {2, 3, 4}).Run();
  EXPECT_EQ(kept[0].type, kF);
  EXPECT_EQ(Dims(kept[0]), (V{1, 3, 1}));
  auto dropped =
      RuleTest("ReduceMax", 13).Attr("axes", V{1}).Attr("keepdims", 0).Input(kF, {2, 3, 4}).Run();
  EXPECT_EQ(Dims(dropped[0]), (V{2, 4}));
  auto all = RuleTest("ReduceL2", 13).Attr("keepdims", 0).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(all[0]), (V{}));
}

TEST(InferReduce, AxesInputFromReduceSum13AndOthers18) {
  auto sum = RuleTest("ReduceSum", 13).Input(kF, {2, 3, 4}).ConstInput<int64_t>({1}, {1}).Run();
  EXPECT_EQ(Dims(sum[0]), (V{2, 1, 4}));
  auto prod = RuleTest("ReduceProd", 18)
                  .Attr("keepdims", 0)
                  .Input(kF, {2, 3, 4})
                  .ConstInput<int32_t>({2}, {0, 2})
                  .Run();
  EXPECT_EQ(Dims(prod[0]), (V{3}));
  // At ReduceSum-11 the second input does not exist; the attribute counts.
  auto old = RuleTest("ReduceSum", 11).Attr("axes", V{0}).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(old[0]), (V{1, 3}));
}

TEST(InferReduce, NoopWithEmptyAxes) {
  auto noop = RuleTest("ReduceSum", 13).Attr("noop_with_empty_axes", 1).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(noop[0]), (V{2, 3}));
  auto empty = RuleTest("ReduceLogSumExp", 18).Input(kF, {2, 3}).ConstInput<int64_t>({0}, {}).Run();
  EXPECT_EQ(Dims(empty[0]), (V{1, 1}));
}

TEST(InferReduce, UnknownAxesKeepRankOnlyWithKeepdims) {
  auto kept = RuleTest("ReduceMin", 18).Input(kF, {2, 1, 4}).Input(DataType::kInt64, {1}).Run();
  EXPECT_EQ(Dims(kept[0]), (V{-1, 1, -1}));
  auto dropped = RuleTest("ReduceMin", 18)
                     .Attr("keepdims", 0)
                     .Input(kF, {2, 1, 4})
                     .Input(DataType::kInt64, {1})
                     .Run();
  EXPECT_FALSE(dropped[0].shape.has_value());
  EXPECT_EQ(dropped[0].type, kF);
}

TEST(InferReduce, FailsOnBadAxes) {
  ExpectFail(
      [] {
        RuleTest("ReduceMean", 13).Attr("axes", V{3}).Input(kF, {2, 3}).Run();
      },
      {"axis 3", "input 'data'"});
  ExpectFail(
      [] {
        RuleTest("ReduceMean", 13).Attr("axes", V{1, -1}).Input(kF, {2, 3}).Run();
      },
      {"more than once"});
}

TEST(InferArgMax, Int64WithKeepdims) {
  auto out = RuleTest("ArgMax", 13).Attr("axis", -1).Input(kF, {2, 3}).Run();
  EXPECT_EQ(out[0].type, DataType::kInt64);
  EXPECT_EQ(Dims(out[0]), (V{2, 1}));
  auto dropped = RuleTest("ArgMin", 13).Attr("keepdims", 0).Input(kF, {2, 3}).Run();
  EXPECT_EQ(Dims(dropped[0]), (V{3}));
  ExpectFail(
      [] {
        RuleTest("ArgMax", 13).Attr("axis", 2).Input(kF, {2, 3}).Run();
      },
      {"axis 2", "input 'data'"});
  ExpectFail([] { RuleTest("ArgMax", 13).Input(kF, {0, 3}).Run(); }, {"size 0"});
}

TEST(InferTopK, KFromAttributeOrConstantInput) {
  auto v1 = RuleTest("TopK", 1).Attr("k", 2).Input(kF, {3, 5}).Outputs(2).Run();
  EXPECT_EQ(Dims(v1[0]), (V{3, 2}));
  EXPECT_EQ(v1[1].type, DataType::kInt64);
  auto v11 = RuleTest("TopK", 11)
                 .Attr("axis", 0)
                 .Input(kF, {3, 5})
                 .ConstInput<int64_t>({1}, {3})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Dims(v11[0]), (V{3, 5}));
  EXPECT_EQ(Dims(v11[1]), (V{3, 5}));
  auto unknown =
      RuleTest("TopK", 11).Input(kF, {3, 5}).Input(DataType::kInt64, {1}).Outputs(2).Run();
  EXPECT_EQ(Dims(unknown[0]), (V{3, -1}));
}

TEST(InferTopK, FailsWhenKExceedsTheAxis) {
  ExpectFail(
      [] {
        RuleTest("TopK", 11).Input(kF, {3, 5}).ConstInput<int64_t>({1}, {6}).Outputs(2).Run();
      },
      {"k = 6", "input 'X'"});
  ExpectFail([] { RuleTest("TopK", 1).Input(kF, {3}).Outputs(2).Run(); },
             {"attribute 'k' is required"});
}

}  // namespace
}  // namespace kiln::infer::testing
