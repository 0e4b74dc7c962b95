#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

// [3,4]; expected indices are numpy's argmax/argmin (first occurrence).
std::vector<float> X() {
  return {3, 1, 3, -2, 0, 5, 5, 1, 2, 2, -1, 7};
}

TEST(ReduceArgMax, Axis0KeepsDimsByDefault) {
  auto out = NodeTest("ArgMax", 1).Input<float>({3, 4}, X()).Run();
  EXPECT_EQ(out[0]->type(), DataType::kInt64);
  EXPECT_EQ(out[0]->shape(), Shape({1, 4}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{0, 1, 1, 2}));
}

TEST(ReduceArgMax, NegativeAxisWithoutKeepdims) {
  auto out = NodeTest("ArgMax", 11)
                 .Attr("axis", int64_t{-1})
                 .Attr("keepdims", int64_t{0})
                 .Input<float>({3, 4}, X())
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({3}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{0, 1, 3}));
}

TEST(ReduceArgMin, FirstAndLastIndex) {
  auto first = NodeTest("ArgMin", 13).Attr("axis", int64_t{1}).Input<float>({3, 4}, X()).Run();
  EXPECT_EQ(Values<int64_t>(*first[0]), (std::vector<int64_t>{3, 0, 2}));
  auto last = NodeTest("ArgMin", 12)
                  .Attr("axis", int64_t{0})
                  .Attr("select_last_index", int64_t{1})
                  .Input<float>({3, 4}, {3, 1, 3, -2, 0, 5, 5, 1, 0, 1, -1, 7})
                  .Run();
  EXPECT_EQ(Values<int64_t>(*last[0]), (std::vector<int64_t>{2, 2, 2, 0}));
}

TEST(ReduceArgMax, SelectLastIndexBreaksTiesUpward) {
  auto out = NodeTest("ArgMax", 12)
                 .Attr("axis", int64_t{1})
                 .Attr("select_last_index", int64_t{1})
                 .Input<float>({3, 4}, X())
                 .Run();
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{2, 2, 3}));
  // Before opset 12 the attribute does not exist: first index.
  auto old = NodeTest("ArgMax", 11)
                 .Attr("axis", int64_t{1})
                 .Attr("select_last_index", int64_t{1})
                 .Input<float>({3, 4}, X())
                 .Run();
  EXPECT_EQ(Values<int64_t>(*old[0]), (std::vector<int64_t>{0, 1, 3}));
}

TEST(ReduceArgMax, NanWinsLikeNumpy) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto mx = NodeTest("ArgMax", 13).Input<float>({4}, {1, nan, 5, nan}).Run();
  EXPECT_EQ(Values<int64_t>(*mx[0])[0], 1);
  auto mn = NodeTest("ArgMin", 13).Input<float>({4}, {1, nan, -5, nan}).Run();
  EXPECT_EQ(Values<int64_t>(*mn[0])[0], 1);
  auto last = NodeTest("ArgMax", 13)
                  .Attr("select_last_index", int64_t{1})
                  .Input<float>({4}, {1, nan, 5, nan})
                  .Run();
  EXPECT_EQ(Values<int64_t>(*last[0])[0], 3);
}

TEST(ReduceArgMax, IntegerAndHalfTypes) {
  auto u8 = NodeTest("ArgMax", 13).Input<uint8_t>({3}, {7, 255, 3}).Run();
  EXPECT_EQ(Values<int64_t>(*u8[0])[0], 1);
  auto i64 = NodeTest("ArgMin", 13).Input<int64_t>({3}, {7, -9, 3}).Run();
  EXPECT_EQ(Values<int64_t>(*i64[0])[0], 1);
  std::vector<BFloat16> h;
  for (float v : {0.5f, -1.0f, 2.0f}) h.push_back(BFloat16::FromFloat(v));
  auto bf = NodeTest("ArgMax", 13).Input<BFloat16>({3}, h).Run();
  EXPECT_EQ(Values<int64_t>(*bf[0])[0], 2);
}

TEST(ReduceArgMax, EmptyOuterDimensionGivesEmptyOutput) {
  auto out = NodeTest("ArgMax", 13).Attr("axis", int64_t{1}).Input<float>({0, 3}, {}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 1}));
}

TEST(ReduceArgErrors, AxisOutOfRangeAndEmptyAxis) {
  ExpectNodeError(NodeTest("ArgMax", 13).Attr("axis", int64_t{2}).Input<float>({3, 4}, X()),
                  ErrorCode::kInvalidArgument, "axis 2 is out of range for rank 2");
  ExpectNodeError(NodeTest("ArgMin", 13).Attr("axis", int64_t{1}).Input<float>({2, 0}, {}),
                  ErrorCode::kInvalidArgument, "axis 1 of size 0");
  ExpectNodeError(NodeTest("ArgMin", 13).Input<bool>({2}, {true, false}),
                  ErrorCode::kNotImplemented, "element type bool");
}

}  // namespace
}  // namespace kiln::testing
