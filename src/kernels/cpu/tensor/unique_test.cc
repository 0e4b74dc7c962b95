#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using F = std::vector<float>;

TEST(TensorUnique, SortedFlattened) {
  auto out = NodeTest("Unique", 11).Input<float>({2, 3}, {2, 1, 1, 3, 4, 3}).Outputs(4).Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 2, 3, 4}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (I64{1, 0, 3, 4}));
  EXPECT_EQ(Values<int64_t>(*out[2]), (I64{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(Values<int64_t>(*out[3]), (I64{2, 1, 2, 1}));
}

TEST(TensorUnique, FirstOccurrenceOrderAndStrings) {
  auto out = NodeTest("Unique", 11)
                 .Attr("sorted", int64_t{0})
                 .Input<std::string>({5}, {"b", "a", "b", "c", "a"})
                 .Outputs(4)
                 .Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (I64{0, 1, 3}));
  EXPECT_EQ(Values<int64_t>(*out[2]), (I64{0, 1, 0, 2, 1}));
  EXPECT_EQ(Values<int64_t>(*out[3]), (I64{2, 2, 1}));
}

TEST(TensorUnique, NaNsAreOneValueAfterEveryNumberAsInNumpy) {
  // numpy.unique([nan, 1, nan, 0, -0.0]): [0, 1, nan], index [3, 1, 0], inverse [2, 1, 2, 0, 0],
  // counts [2, 1, 2]: the NaNs group together (the sort needs a strict weak order), -0 equals 0.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("Unique", 11).Input<float>({5}, {nan, 1, nan, 0, -0.0f}).Outputs(4).Run();
  const F y = Values<float>(*out[0]);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(Values<int64_t>(*out[1]), (I64{3, 1, 0}));
  EXPECT_EQ(Values<int64_t>(*out[2]), (I64{2, 1, 2, 0, 0}));
  EXPECT_EQ(Values<int64_t>(*out[3]), (I64{2, 1, 2}));
  // In first-occurrence order the NaN group comes first.
  auto unsorted = NodeTest("Unique", 11)
                      .Attr("sorted", int64_t{0})
                      .Input<float>({5}, {nan, 1, nan, 0, -0.0f})
                      .Outputs(4)
                      .Run();
  EXPECT_TRUE(std::isnan(Values<float>(*unsorted[0])[0]));
  EXPECT_EQ(Values<int64_t>(*unsorted[2]), (I64{0, 1, 0, 2, 2}));
}

TEST(TensorUnique, SlicesAlongAnAxis) {
  // Columns of [[1, 0, 1], [2, 5, 2]]: (1,2), (0,5), (1,2) → sorted (0,5), (1,2).
  auto out = NodeTest("Unique", 11)
                 .Attr("axis", int64_t{-1})
                 .Input<int32_t>({2, 3}, {1, 0, 1, 2, 5, 2})
                 .Outputs(4)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{0, 1, 5, 2}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (I64{1, 0}));
  EXPECT_EQ(Values<int64_t>(*out[2]), (I64{1, 0, 1}));
  EXPECT_EQ(Values<int64_t>(*out[3]), (I64{1, 2}));
}

TEST(TensorUnique, EmptyInputAndOptionalOutputs) {
  auto out = NodeTest("Unique", 11).Input<float>({0}, {}).Outputs(4, {1, 2}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({0}));
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(out[3]->shape(), Shape({0}));
}

TEST(TensorUnique, Errors) {
  ExpectNodeError(NodeTest("Unique", 11).Attr("axis", int64_t{2}).Input<float>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "axis");
  ExpectNodeError(NodeTest("Unique", 11).Attr("axis", int64_t{0}).Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "'axis'");
}

TEST(TensorCompress, AlongAxisAndFlattened) {
  auto rows = NodeTest("Compress", 11)
                  .Attr("axis", int64_t{0})
                  .Input<float>({3, 2}, {1, 2, 3, 4, 5, 6})
                  .Input<bool>({2}, {false, true})
                  .Run();
  EXPECT_EQ(rows[0]->shape(), Shape({1, 2}));
  EXPECT_EQ(Values<float>(*rows[0]), (F{3, 4}));
  auto cols = NodeTest("Compress", 11)
                  .Attr("axis", int64_t{-1})
                  .Input<float>({3, 2}, {1, 2, 3, 4, 5, 6})
                  .Input<bool>({2}, {true, false})
                  .Run();
  EXPECT_EQ(Values<float>(*cols[0]), (F{1, 3, 5}));
  auto flat = NodeTest("Compress", 9)
                  .Input<std::string>({2, 2}, {"a", "b", "c", "d"})
                  .Input<bool>({4}, {false, true, true, false})
                  .Run();
  EXPECT_EQ(Values<std::string>(*flat[0]), (std::vector<std::string>{"b", "c"}));
  auto none = NodeTest("Compress", 11).Input<float>({0}, {}).Input<bool>({0}, {}).Run();
  EXPECT_EQ(none[0]->shape(), Shape({0}));
}

TEST(TensorCompress, Errors) {
  ExpectNodeError(NodeTest("Compress", 11).Input<float>({2}, {1, 2}).Input<int64_t>({2}, {1, 0}),
                  ErrorCode::kInvalidArgument, "'condition'");
  ExpectNodeError(
      NodeTest("Compress", 11).Input<float>({2}, {1, 2}).Input<bool>({3}, {false, false, true}),
      ErrorCode::kInvalidArgument, "'condition' selects entry 2");
  ExpectNodeError(NodeTest("Compress", 11)
                      .Attr("axis", int64_t{1})
                      .Input<float>({2}, {1, 2})
                      .Input<bool>({1}, {true}),
                  ErrorCode::kInvalidArgument, "axis");
}

TEST(TensorReverseSequence, TimeMajorAndBatchMajor) {
  // [time 3, batch 2]: batch 0 reverses 3 steps, batch 1 reverses 2.
  auto time = NodeTest("ReverseSequence", 10)
                  .Input<float>({3, 2}, {1, 10, 2, 20, 3, 30})
                  .Input<int64_t>({2}, {3, 2})
                  .Run();
  EXPECT_EQ(Values<float>(*time[0]), (F{3, 20, 2, 10, 1, 30}));
  auto batch = NodeTest("ReverseSequence", 10)
                   .Attr("batch_axis", int64_t{0})
                   .Attr("time_axis", int64_t{1})
                   .Input<std::string>({2, 3, 1}, {"a", "b", "c", "d", "e", "f"})
                   .Input<int64_t>({2}, {1, 3})
                   .Run();
  EXPECT_EQ(Values<std::string>(*batch[0]),
            (std::vector<std::string>{"a", "b", "c", "f", "e", "d"}));
}

TEST(TensorReverseSequence, Errors) {
  ExpectNodeError(NodeTest("ReverseSequence", 10).Attr("batch_axis", int64_t{0}),
                  ErrorCode::kInvalidGraph, "'batch_axis'");
  ExpectNodeError(
      NodeTest("ReverseSequence", 10).Input<float>({2}, {1, 2}).Input<int64_t>({1}, {1}),
      ErrorCode::kInvalidArgument, "rank >= 2");
  ExpectNodeError(
      NodeTest("ReverseSequence", 10).Input<float>({2, 2}, {1, 2, 3, 4}).Input<int64_t>({1}, {1}),
      ErrorCode::kInvalidArgument, "'sequence_lens' must be");
  ExpectNodeError(NodeTest("ReverseSequence", 10)
                      .Input<float>({2, 2}, {1, 2, 3, 4})
                      .Input<int64_t>({2}, {1, 3}),
                  ErrorCode::kInvalidArgument, "entry 1 is 3");
}

}  // namespace
}  // namespace kiln::testing
