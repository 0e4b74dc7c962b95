#include <gtest/gtest.h>

#include <numeric>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using I32 = std::vector<int32_t>;

std::shared_ptr<Tensor> Grid() {  // 4x5 of 0..19
  std::vector<int32_t> v(20);
  std::iota(v.begin(), v.end(), 0);
  return MakeTensor<int32_t>({4, 5}, v);
}

TEST(TensorSlice, NegativeStepsClampAsNumpy) {
  // numpy: x[3:0:-2, -1:-6:-2]
  auto out = NodeTest("Slice", 13)
                 .Input(Grid())
                 .Input<int64_t>({2}, {3, -1})
                 .Input<int64_t>({2}, {0, -6})
                 .Input<int64_t>({2}, {0, 1})
                 .Input<int64_t>({2}, {-2, -2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (I32{19, 17, 15, 9, 7, 5}));
}

TEST(TensorSlice, EndsPastTheEndAndStep3) {
  // numpy: x[1:100, ::3] with INT64_MAX as the open end.
  auto out = NodeTest("Slice", 10)
                 .Input(Grid())
                 .Input<int32_t>({2}, {1, 0})
                 .Input<int32_t>({2}, {100, INT32_MAX})
                 .MissingInput()
                 .Input<int32_t>({2}, {1, 3})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (I32{5, 8, 10, 13, 15, 18}));
}

TEST(TensorSlice, ExtremeBoundsAndReverse) {
  auto out = NodeTest("Slice", 13)
                 .Input<float>({3}, {1, 2, 3})
                 .Input<int64_t>({1}, {INT64_MAX})
                 .Input<int64_t>({1}, {INT64_MIN})
                 .Input<int64_t>({1}, {0})
                 .Input<int64_t>({1}, {-1})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{3, 2, 1}));
  auto huge_step = NodeTest("Slice", 13)
                       .Input<float>({3}, {1, 2, 3})
                       .Input<int64_t>({1}, {-1})
                       .Input<int64_t>({1}, {INT64_MIN})
                       .Input<int64_t>({1}, {0})
                       .Input<int64_t>({1}, {INT64_MIN})
                       .Run();
  EXPECT_EQ(Values<float>(*huge_step[0]), (std::vector<float>{3}));
}

TEST(TensorSlice, EmptyResultAndEmptyAxis) {
  auto out =
      NodeTest("Slice", 13).Input(Grid()).Input<int64_t>({1}, {3}).Input<int64_t>({1}, {1}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 5}));
  auto empty = NodeTest("Slice", 13)
                   .Input<float>({0}, {})
                   .Input<int64_t>({1}, {-1})
                   .Input<int64_t>({1}, {-10})
                   .Input<int64_t>({1}, {0})
                   .Input<int64_t>({1}, {-1})
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0}));
}

TEST(TensorSlice, Opset1Attributes) {
  auto out = NodeTest("Slice", 1)
                 .Attr("starts", I64{1})
                 .Attr("ends", I64{-1})
                 .Attr("axes", I64{1})
                 .Input(Grid())
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({4, 3}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (I32{1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18}));
  auto strings = NodeTest("Slice", 9)
                     .Attr("starts", I64{1})
                     .Attr("ends", I64{3})
                     .Input<std::string>({3}, {"a", "b", "c"})
                     .Run();
  EXPECT_EQ(Values<std::string>(*strings[0]), (std::vector<std::string>{"b", "c"}));
}

TEST(TensorSlice, Errors) {
  ExpectNodeError(
      NodeTest("Slice", 13).Input(Grid()).Input<int64_t>({1}, {0}).Input<int64_t>({2}, {1, 1}),
      ErrorCode::kInvalidArgument, "differ in length");
  ExpectNodeError(NodeTest("Slice", 13)
                      .Input(Grid())
                      .Input<int64_t>({1}, {0})
                      .Input<int64_t>({1}, {1})
                      .Input<int64_t>({1}, {0})
                      .Input<int64_t>({1}, {0}),
                  ErrorCode::kInvalidArgument, "has a 0");
  ExpectNodeError(NodeTest("Slice", 13)
                      .Input(Grid())
                      .Input<int64_t>({2}, {0, 0})
                      .Input<int64_t>({2}, {1, 1})
                      .Input<int64_t>({2}, {1, -1}),
                  ErrorCode::kInvalidArgument, "repeat");
  ExpectNodeError(NodeTest("Slice", 13)
                      .Input(Grid())
                      .Input<int64_t>({1}, {0})
                      .Input<int64_t>({1}, {1})
                      .Input<int64_t>({1}, {2}),
                  ErrorCode::kInvalidArgument, "axes entry 2");
  ExpectNodeError(
      NodeTest("Slice", 13).Input(Grid()).Input<int64_t>({1, 1}, {0}).Input<int64_t>({1}, {1}),
      ErrorCode::kInvalidArgument, "'starts' must be 1-D");
  ExpectNodeError(NodeTest("Slice", 1).Attr("starts", I64{0}).Input(Grid()),
                  ErrorCode::kInvalidGraph, "'ends'");
}

TEST(TensorTile, RepeatsEveryAxis) {
  auto out =
      NodeTest("Tile", 13).Input<int64_t>({2, 2}, {1, 2, 3, 4}).Input<int64_t>({2}, {2, 3}).Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({4, 6}));
  EXPECT_EQ(Values<int64_t>(*out[0]),
            (I64{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  auto zero = NodeTest("Tile", 6).Input<float>({2}, {1, 2}).Input<int64_t>({1}, {0}).Run();
  EXPECT_EQ(zero[0]->shape(), Shape({0}));
}

TEST(TensorTile, Opset1TilesAndAxis) {
  auto out = NodeTest("Tile", 1)
                 .Input<float>({2, 1}, {1, 2})
                 .Input<int64_t>({}, {3})
                 .Input<int64_t>({}, {1})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

TEST(TensorTile, Errors) {
  auto x = MakeTensor<float>({2}, {1, 2});
  ExpectNodeError(NodeTest("Tile", 13).Input(x).Input<int64_t>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "'repeats' has shape [2]");
  ExpectNodeError(NodeTest("Tile", 13).Input(x).Input<int64_t>({1}, {-1}),
                  ErrorCode::kInvalidArgument, "negative");
  ExpectNodeError(NodeTest("Tile", 13).Input(x).Input<int64_t>({1}, {INT64_MAX}),
                  ErrorCode::kInvalidArgument, "overflows");
  ExpectNodeError(NodeTest("Tile", 13)
                      .Input<float>({2, 2}, {1, 2, 3, 4})
                      .Input<int64_t>({2}, {INT64_MAX / 2, INT64_MAX / 2}),
                  ErrorCode::kInvalidArgument, "too many elements");
}

}  // namespace
}  // namespace kiln::testing
