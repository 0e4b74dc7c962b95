#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

// [2,6]
std::vector<float> X() {
  return {3, 1, 3, -2, 5, 0, 0, 5, 5, 1, -1, 5};
}

TEST(ReduceTopK, Opset1AttributeK) {
  auto out = NodeTest("TopK", 1).Attr("k", int64_t{3}).Input<float>({2, 6}, X()).Outputs(2).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{5, 3, 3, 5, 5, 5}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (std::vector<int64_t>{4, 0, 2, 1, 2, 5}));
}

TEST(ReduceTopK, Opset10InputK) {
  auto out =
      NodeTest("TopK", 10).Input<float>({2, 6}, X()).Input<int64_t>({1}, {2}).Outputs(2).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{5, 3, 5, 5}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (std::vector<int64_t>{4, 0, 1, 2}));
}

TEST(ReduceTopK, SmallestAlongAxis0) {
  auto out = NodeTest("TopK", 11)
                 .Attr("axis", int64_t{-2})
                 .Attr("largest", int64_t{0})
                 .Input<float>({2, 6}, X())
                 .Input<int64_t>({1}, {2})
                 .Outputs(2)
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({2, 6}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0, 1, 3, -2, -1, 0, 3, 5, 5, 1, 5, 5}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (std::vector<int64_t>{1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1}));
}

TEST(ReduceTopK, NanIsLargest) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto big = NodeTest("TopK", 11)
                 .Input<float>({4}, {1, nan, 7, 2})
                 .Input<int64_t>({1}, {2})
                 .Outputs(2)
                 .Run();
  EXPECT_TRUE(std::isnan(Values<float>(*big[0])[0]));
  EXPECT_EQ(Values<int64_t>(*big[1]), (std::vector<int64_t>{1, 2}));
  auto small = NodeTest("TopK", 11)
                   .Attr("largest", int64_t{0})
                   .Input<float>({4}, {1, nan, 7, 2})
                   .Input<int64_t>({1}, {4})
                   .Outputs(2)
                   .Run();
  EXPECT_EQ(Values<int64_t>(*small[1]), (std::vector<int64_t>{0, 3, 2, 1}));
}

TEST(ReduceTopK, IntegersKZeroAndMissingOutput) {
  auto ints = NodeTest("TopK", 11)
                  .Input<int32_t>({5}, {4, -1, 9, 9, 0})
                  .Input<int64_t>({1}, {3})
                  .Outputs(2)
                  .Run();
  EXPECT_EQ(Values<int32_t>(*ints[0]), (std::vector<int32_t>{9, 9, 4}));
  EXPECT_EQ(Values<int64_t>(*ints[1]), (std::vector<int64_t>{2, 3, 0}));
  auto zero =
      NodeTest("TopK", 11).Input<float>({2, 6}, X()).Input<int64_t>({1}, {0}).Outputs(2).Run();
  EXPECT_EQ(zero[0]->shape(), Shape({2, 0}));
  auto only_indices =
      NodeTest("TopK", 11).Input<float>({2, 6}, X()).Input<int64_t>({1}, {1}).Outputs(2, {0}).Run();
  EXPECT_EQ(only_indices[0], nullptr);
  EXPECT_EQ(Values<int64_t>(*only_indices[1]), (std::vector<int64_t>{4, 1}));
}

TEST(ReduceTopKErrors, KOutOfRangeAndBadShape) {
  ExpectNodeError(
      NodeTest("TopK", 11).Input<float>({2, 6}, X()).Input<int64_t>({1}, {7}).Outputs(2),
      ErrorCode::kInvalidArgument, "k = 7 is out of range for axis -1 of size 6");
  ExpectNodeError(
      NodeTest("TopK", 11).Input<float>({2, 6}, X()).Input<int64_t>({1}, {-1}).Outputs(2),
      ErrorCode::kInvalidArgument, "k = -1");
  ExpectNodeError(
      NodeTest("TopK", 11).Input<float>({2, 6}, X()).Input<int64_t>({2}, {1, 2}).Outputs(2),
      ErrorCode::kInvalidArgument, "input 'K' must hold one value");
  ExpectNodeError(NodeTest("TopK", 1).Attr("k", int64_t{-2}).Input<float>({2, 6}, X()).Outputs(2),
                  ErrorCode::kInvalidGraph, "attribute 'k' must not be negative");
  ExpectNodeError(NodeTest("TopK", 1).Input<float>({2, 6}, X()).Outputs(2),
                  ErrorCode::kInvalidGraph, "'k'");
  ExpectNodeError(NodeTest("TopK", 11)
                      .Attr("axis", int64_t{2})
                      .Input<float>({2, 6}, X())
                      .Input<int64_t>({1}, {1})
                      .Outputs(2),
                  ErrorCode::kInvalidArgument, "axis 2 is out of range");
}

}  // namespace
}  // namespace kiln::testing
