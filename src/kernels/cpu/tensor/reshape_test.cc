#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;

TEST(TensorReshape, InfersMinusOneAndCopiesZero) {
  auto out = NodeTest("Reshape", 14)
                 .Input<float>({2, 3, 4}, std::vector<float>(24, 1.0f))
                 .Input<int64_t>({3}, {0, -1, 2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 6, 2}));
}

TEST(TensorReshape, KeepsValuesInOrder) {
  auto out = NodeTest("Reshape", 5)
                 .Input<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<int64_t>({2}, {3, 2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 2}));
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(TensorReshape, Opset1ShapeAttribute) {
  auto out = NodeTest("Reshape", 1)
                 .Attr("shape", I64{-1})
                 .Attr("consumed_inputs", I64{0})
                 .Input<std::string>({2, 1}, {"x", "y"})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"x", "y"}));
}

TEST(TensorReshape, AllowZeroKeepsZero) {
  auto out = NodeTest("Reshape", 14)
                 .Attr("allowzero", int64_t{1})
                 .Input<float>({0, 3}, {})
                 .Input<int64_t>({3}, {3, 0, 4})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 0, 4}));
}

TEST(TensorReshape, ZeroCopiesWithoutAllowZero) {
  auto out = NodeTest("Reshape", 13).Input<float>({0, 3}, {}).Input<int64_t>({2}, {0, 3}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 3}));
}

// Shapes and axes are read into inline vectors: int32 inputs, and ranks past the inline capacity
// of 8 (which go to the heap), give the same results.
TEST(TensorReshape, Int32ShapeAndRanksPastEight) {
  auto x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto a = NodeTest("Reshape", 14).Input(x).Input<int32_t>({3}, {3, -1, 1}).Run();
  EXPECT_EQ(a[0]->shape(), Shape({3, 2, 1}));
  EXPECT_EQ(Values<float>(*a[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto b =
      NodeTest("Reshape", 14).Input(x).Input<int64_t>({10}, {1, 1, 2, 1, 1, 1, 3, 1, 1, 1}).Run();
  EXPECT_EQ(b[0]->shape(), Shape({1, 1, 2, 1, 1, 1, 3, 1, 1, 1}));
  auto c = NodeTest("Unsqueeze", 13).Input(x).Input<int32_t>({8}, {0, 1, 2, 3, 5, 7, 8, 9}).Run();
  EXPECT_EQ(c[0]->shape(), Shape({1, 1, 1, 1, 2, 1, 3, 1, 1, 1}));
  auto d = NodeTest("Squeeze", 13).Input(c[0]).Input<int64_t>({8}, {0, 1, 2, 3, 5, 7, 8, 9}).Run();
  EXPECT_EQ(d[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*d[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(TensorReshape, Errors) {
  auto x = MakeTensor<float>({2, 3}, std::vector<float>(6, 0.0f));
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({2}, {-1, -1}),
                  ErrorCode::kInvalidArgument, "more than one -1");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({2}, {4, 2}),
                  ErrorCode::kInvalidArgument, "cannot reshape input [2,3]");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({2}, {4, -1}),
                  ErrorCode::kInvalidArgument, "cannot infer");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({2}, {-2, 3}),
                  ErrorCode::kInvalidArgument, "has dimension -2");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({3}, {6, 1, 0}),
                  ErrorCode::kInvalidArgument, "copies dimension 2");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({1, 2}, {3, 2}),
                  ErrorCode::kInvalidArgument, "must be 1-D");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<float>({2}, {3, 2}),
                  ErrorCode::kInvalidArgument, "int64 or int32");
  ExpectNodeError(
      NodeTest("Reshape", 14).Attr("allowzero", int64_t{1}).Input(x).Input<int64_t>({2}, {0, -1}),
      ErrorCode::kInvalidArgument, "both 0 and -1");
  ExpectNodeError(NodeTest("Reshape", 14).Input(x).Input<int64_t>({3}, {INT64_MAX / 2, 4, 1}),
                  ErrorCode::kInvalidArgument, "overflows");
  ExpectNodeError(NodeTest("Reshape", 1).Input(x), ErrorCode::kInvalidGraph, "'shape'");
}

TEST(TensorFlatten, DefaultAxisOne) {
  auto out = NodeTest("Flatten", 13).Input<float>({2, 3, 4}, std::vector<float>(24, 0)).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 12}));
}

TEST(TensorFlatten, AxisZeroAndRank) {
  auto x = MakeTensor<float>({2, 3}, std::vector<float>(6, 0));
  EXPECT_EQ(NodeTest("Flatten", 1).Attr("axis", int64_t{0}).Input(x).Run()[0]->shape(),
            Shape({1, 6}));
  EXPECT_EQ(NodeTest("Flatten", 9).Attr("axis", int64_t{2}).Input(x).Run()[0]->shape(),
            Shape({6, 1}));
}

TEST(TensorFlatten, NegativeAxisFromOpset11) {
  auto x = MakeTensor<float>({2, 3, 4}, std::vector<float>(24, 0));
  EXPECT_EQ(NodeTest("Flatten", 11).Attr("axis", int64_t{-1}).Input(x).Run()[0]->shape(),
            Shape({6, 4}));
  ExpectNodeError(NodeTest("Flatten", 9).Attr("axis", int64_t{-1}).Input(x),
                  ErrorCode::kInvalidArgument, "axis -1");
  ExpectNodeError(NodeTest("Flatten", 13).Attr("axis", int64_t{4}).Input(x),
                  ErrorCode::kInvalidArgument, "axis 4");
}

TEST(TensorSqueeze, AxesInputAndAllOnes) {
  auto x = MakeTensor<float>({1, 3, 1}, {1, 2, 3});
  auto a = NodeTest("Squeeze", 13).Input(x).Input<int64_t>({1}, {-1}).Run();
  EXPECT_EQ(a[0]->shape(), Shape({1, 3}));
  EXPECT_EQ(Values<float>(*a[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(NodeTest("Squeeze", 13).Input(x).Run()[0]->shape(), Shape({3}));
  EXPECT_EQ(NodeTest("Squeeze", 1).Attr("axes", I64{0}).Input(x).Run()[0]->shape(), Shape({3, 1}));
  EXPECT_EQ(NodeTest("Squeeze", 11).Input(x).Run()[0]->shape(), Shape({3}));
}

TEST(TensorSqueeze, Errors) {
  auto x = MakeTensor<float>({1, 3}, {1, 2, 3});
  ExpectNodeError(NodeTest("Squeeze", 13).Input(x).Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "cannot squeeze axis 1");
  ExpectNodeError(NodeTest("Squeeze", 13).Input(x).Input<int64_t>({1}, {2}),
                  ErrorCode::kInvalidArgument, "axes entry 2");
  ExpectNodeError(NodeTest("Squeeze", 11).Attr("axes", I64{0, -2}).Input(x),
                  ErrorCode::kInvalidArgument, "repeat");
}

TEST(TensorUnsqueeze, InsertsAxes) {
  auto x = MakeTensor<int64_t>({3}, {1, 2, 3});
  EXPECT_EQ(NodeTest("Unsqueeze", 13).Input(x).Input<int64_t>({2}, {0, -1}).Run()[0]->shape(),
            Shape({1, 3, 1}));
  EXPECT_EQ(NodeTest("Unsqueeze", 1).Attr("axes", I64{1}).Input(x).Run()[0]->shape(),
            Shape({3, 1}));
  auto s = NodeTest("Unsqueeze", 21).Input<float>({}, {7}).Input<int64_t>({1}, {0}).Run();
  EXPECT_EQ(s[0]->shape(), Shape({1}));
  EXPECT_EQ(Values<float>(*s[0]), (std::vector<float>{7}));
}

TEST(TensorUnsqueeze, Errors) {
  auto x = MakeTensor<int64_t>({3}, {1, 2, 3});
  ExpectNodeError(NodeTest("Unsqueeze", 13).Input(x).Input<int64_t>({1}, {2}),
                  ErrorCode::kInvalidArgument, "axes entry 2");
  ExpectNodeError(NodeTest("Unsqueeze", 13).Input(x).Input<int64_t>({2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "repeat");
  ExpectNodeError(NodeTest("Unsqueeze", 11).Input(x), ErrorCode::kInvalidGraph, "'axes'");
  ExpectNodeError(NodeTest("Unsqueeze", 13).Input(x), ErrorCode::kInvalidArgument, "'axes'");
}

TEST(TensorShape, WholeShapeAndSlices) {
  auto x = MakeTensor<float>({2, 3, 4}, std::vector<float>(24, 0));
  EXPECT_EQ(Values<int64_t>(*NodeTest("Shape", 1).Input(x).Run()[0]), (I64{2, 3, 4}));
  EXPECT_EQ(Values<int64_t>(*NodeTest("Shape", 15).Attr("start", int64_t{-2}).Input(x).Run()[0]),
            (I64{3, 4}));
  EXPECT_EQ(Values<int64_t>(*NodeTest("Shape", 15)
                                 .Attr("start", int64_t{1})
                                 .Attr("end", int64_t{-1})
                                 .Input(x)
                                 .Run()[0]),
            (I64{3}));
  EXPECT_EQ(Values<int64_t>(*NodeTest("Shape", 19)
                                 .Attr("start", int64_t{-10})
                                 .Attr("end", int64_t{10})
                                 .Input(x)
                                 .Run()[0]),
            (I64{2, 3, 4}));
  EXPECT_EQ(NodeTest("Shape", 21)
                .Attr("start", int64_t{2})
                .Attr("end", int64_t{1})
                .Input(x)
                .Run()[0]
                ->shape(),
            Shape({0}));
}

TEST(TensorSize, CountsElements) {
  auto out = NodeTest("Size", 13).Input<std::string>({2, 2}, {"a", "b", "c", "d"}).Run();
  EXPECT_EQ(out[0]->shape(), Shape());
  EXPECT_EQ(Values<int64_t>(*out[0]), (I64{4}));
  EXPECT_EQ(Values<int64_t>(*NodeTest("Size", 1).Input<float>({0, 3}, {}).Run()[0]), (I64{0}));
}

TEST(TensorSqueeze, AxesInputMustBe1D) {
  ExpectNodeError(NodeTest("Squeeze", 13).Input<float>({1, 1}, {1}).Input<int64_t>({1, 1}, {0}),
                  ErrorCode::kInvalidArgument, "'axes' must be 1-D");
}

}  // namespace
}  // namespace kiln::testing
