#include <gtest/gtest.h>

#include <cmath>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using F = std::vector<float>;

TEST(TensorConstant, ValueTensor) {
  auto out = NodeTest("Constant", 1)
                 .Attr("value", std::shared_ptr<const Tensor>(MakeTensor<float>({2}, {1, 2})))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 2}));
}

TEST(TensorConstant, ScalarAndListAttributesFromOpset12) {
  auto f = NodeTest("Constant", 12).Attr("value_float", 2.5f).Run();
  EXPECT_EQ(f[0]->shape(), Shape());
  EXPECT_EQ(Values<float>(*f[0]), (F{2.5f}));
  auto fs = NodeTest("Constant", 13).Attr("value_floats", F{1, 2}).Run();
  EXPECT_EQ(fs[0]->shape(), Shape({2}));
  auto i = NodeTest("Constant", 19).Attr("value_int", int64_t{7}).Run();
  EXPECT_EQ(Values<int64_t>(*i[0]), (I64{7}));
  auto is = NodeTest("Constant", 21).Attr("value_ints", I64{3, 4, 5}).Run();
  EXPECT_EQ(Values<int64_t>(*is[0]), (I64{3, 4, 5}));
  auto s = NodeTest("Constant", 23).Attr("value_string", "hi").Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"hi"}));
  auto ss =
      NodeTest("Constant", 12).Attr("value_strings", std::vector<std::string>{"a", "b"}).Run();
  EXPECT_EQ(Values<std::string>(*ss[0]), (std::vector<std::string>{"a", "b"}));
}

TEST(TensorConstant, Errors) {
  ExpectNodeError(NodeTest("Constant", 13), ErrorCode::kInvalidGraph, "exactly one");
  ExpectNodeError(NodeTest("Constant", 13).Attr("value_int", int64_t{1}).Attr("value_float", 1.0f),
                  ErrorCode::kInvalidGraph, "not 2");
  ExpectNodeError(NodeTest("Constant", 11).Attr("value_int", int64_t{1}), ErrorCode::kInvalidGraph,
                  "not allowed at opset 11");
  ExpectNodeError(
      NodeTest("Constant", 13)
          .Attr("sparse_value", std::shared_ptr<const Tensor>(MakeTensor<float>({1}, {1}))),
      ErrorCode::kNotImplemented, "sparse_value");
}

TEST(TensorConstantOfShape, FillsWithValue) {
  auto zero = NodeTest("ConstantOfShape", 9).Input<int64_t>({2}, {2, 3}).Run();
  EXPECT_EQ(zero[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*zero[0]), F(6, 0.0f));
  auto ints = NodeTest("ConstantOfShape", 20)
                  .Attr("value", std::shared_ptr<const Tensor>(MakeTensor<int32_t>({1}, {4})))
                  .Input<int64_t>({1}, {3})
                  .Run();
  EXPECT_EQ(Values<int32_t>(*ints[0]), (std::vector<int32_t>{4, 4, 4}));
  auto scalar = NodeTest("ConstantOfShape", 9).Input<int64_t>({0}, {}).Run();
  EXPECT_EQ(scalar[0]->shape(), Shape());
}

TEST(TensorConstantOfShape, Errors) {
  ExpectNodeError(NodeTest("ConstantOfShape", 9).Input<int64_t>({2}, {2, -1}),
                  ErrorCode::kInvalidArgument, "negative dimension at index 1");
  ExpectNodeError(NodeTest("ConstantOfShape", 9).Input<int64_t>({2}, {INT64_MAX, 4}),
                  ErrorCode::kInvalidArgument, "too many elements");
  ExpectNodeError(NodeTest("ConstantOfShape", 9)
                      .Attr("value", std::shared_ptr<const Tensor>(MakeTensor<float>({2}, {1, 2})))
                      .Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidGraph, "one element");
}

TEST(TensorRange, HalfTypesStepInFloat) {
  auto h = NodeTest("Range", 27)
               .Input<Float16>({}, {Float16::FromFloat(1)})
               .Input<Float16>({}, {Float16::FromFloat(2)})
               .Input<Float16>({}, {Float16::FromFloat(0.25f)})
               .Run();
  ASSERT_EQ(h[0]->shape(), Shape({4}));
  EXPECT_EQ(Values<Float16>(*h[0])[3].ToFloat(), 1.75f);
  auto b = NodeTest("Range", 27)
               .Input<BFloat16>({}, {BFloat16::FromFloat(4)})
               .Input<BFloat16>({}, {BFloat16::FromFloat(1)})
               .Input<BFloat16>({}, {BFloat16::FromFloat(-1.5f)})
               .Run();
  ASSERT_EQ(b[0]->shape(), Shape({2}));
  EXPECT_EQ(Values<BFloat16>(*b[0])[1].ToFloat(), 2.5f);
  ExpectNodeError(NodeTest("Range", 27)
                      .Input<Float16>({}, {Float16::FromFloat(1)})
                      .Input<Float16>({}, {Float16::FromFloat(2)})
                      .Input<Float16>({}, {Float16::FromFloat(0)}),
                  ErrorCode::kInvalidArgument, "'delta' is 0");
}

TEST(TensorRange, IntegersAndFloats) {
  auto i = NodeTest("Range", 11)
               .Input<int32_t>({}, {10})
               .Input<int32_t>({}, {1})
               .Input<int32_t>({}, {-3})
               .Run();
  EXPECT_EQ(Values<int32_t>(*i[0]), (std::vector<int32_t>{10, 7, 4}));
  auto f = NodeTest("Range", 11)
               .Input<float>({}, {1})
               .Input<float>({}, {2})
               .Input<float>({}, {0.25f})
               .Run();
  EXPECT_EQ(Values<float>(*f[0]), (F{1, 1.25f, 1.5f, 1.75f}));
  auto empty = NodeTest("Range", 11)
                   .Input<int64_t>({}, {5})
                   .Input<int64_t>({}, {1})
                   .Input<int64_t>({}, {2})
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0}));
  auto wide = NodeTest("Range", 11)
                  .Input<int64_t>({}, {INT64_MIN})
                  .Input<int64_t>({}, {INT64_MAX})
                  .Input<int64_t>({}, {INT64_MAX})
                  .Run();
  EXPECT_EQ(Values<int64_t>(*wide[0]), (I64{INT64_MIN, -1, INT64_MAX - 1}));
}

TEST(TensorRange, Errors) {
  ExpectNodeError(
      NodeTest("Range", 11).Input<float>({}, {0}).Input<float>({}, {1}).Input<float>({}, {0}),
      ErrorCode::kInvalidArgument, "'delta' is 0");
  ExpectNodeError(NodeTest("Range", 11)
                      .Input<float>({}, {0})
                      .Input<float>({}, {INFINITY})
                      .Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "too many");
  ExpectNodeError(
      NodeTest("Range", 11).Input<float>({}, {0}).Input<double>({}, {1}).Input<float>({}, {1}),
      ErrorCode::kInvalidArgument, "'limit'");
}

TEST(TensorEyeLike, DiagonalsAndDtype) {
  auto out = NodeTest("EyeLike", 9).Attr("k", int64_t{1}).Input<float>({3, 4}, F(12, 5)).Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  auto neg = NodeTest("EyeLike", 22)
                 .Attr("k", int64_t{-1})
                 .Attr("dtype", int64_t{7})
                 .Input<float>({3, 2}, F(6, 0))
                 .Run();
  EXPECT_EQ(Values<int64_t>(*neg[0]), (I64{0, 0, 1, 0, 0, 1}));
  auto far = NodeTest("EyeLike", 9)
                 .Attr("k", int64_t{INT64_MIN})
                 .Input<int32_t>({2, 2}, {1, 1, 1, 1})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*far[0]), (std::vector<int32_t>{0, 0, 0, 0}));
  auto h = NodeTest("EyeLike", 9).Input<Float16>({1, 1}, {Float16{}}).Run();
  EXPECT_FLOAT_EQ(Values<Float16>(*h[0])[0].ToFloat(), 1.0f);
}

TEST(TensorEyeLike, Errors) {
  ExpectNodeError(NodeTest("EyeLike", 9).Input<float>({3}, F(3, 0)), ErrorCode::kInvalidArgument,
                  "2-D");
  ExpectNodeError(NodeTest("EyeLike", 9).Attr("dtype", int64_t{99}).Input<float>({1, 1}, {0}),
                  ErrorCode::kInvalidArgument, "dtype");
  ExpectNodeError(NodeTest("EyeLike", 9).Attr("dtype", int64_t{8}).Input<float>({1, 1}, {0}),
                  ErrorCode::kNotImplemented, "string");
}

TEST(TensorOneHot, LastAxisWithNegativeAndOutOfRange) {
  auto out = NodeTest("OneHot", 11)
                 .Input<int64_t>({4}, {0, -1, 5, 1})
                 .Input<float>({}, {3})
                 .Input<float>({2}, {0, 2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({4, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (F{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0}));
}

TEST(TensorOneHot, Axis0AndFloatIndices) {
  auto out = NodeTest("OneHot", 9)
                 .Attr("axis", int64_t{0})
                 .Input<float>({2}, {1.7f, NAN})
                 .Input<int32_t>({1}, {2})
                 .Input<std::string>({2}, {"off", "on"})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"off", "off", "on", "off"}));
}

TEST(TensorOneHot, Errors) {
  auto ind = MakeTensor<int64_t>({1}, {0});
  ExpectNodeError(
      NodeTest("OneHot", 11).Input(ind).Input<int64_t>({}, {0}).Input<float>({2}, {0, 1}),
      ErrorCode::kInvalidArgument, "'depth' must be positive");
  ExpectNodeError(
      NodeTest("OneHot", 11).Input(ind).Input<int64_t>({}, {2}).Input<float>({3}, {0, 1, 2}),
      ErrorCode::kInvalidArgument, "'values'");
  ExpectNodeError(NodeTest("OneHot", 11)
                      .Attr("axis", int64_t{2})
                      .Input(ind)
                      .Input<int64_t>({}, {2})
                      .Input<float>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "axis 2");
  ExpectNodeError(NodeTest("OneHot", 11)
                      .Input<int64_t>({2}, {0, 0})
                      .Input<int64_t>({}, {INT64_MAX})
                      .Input<float>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "too many elements");
}

TEST(TensorConstantOfShape, ShapeMustBe1D) {
  ExpectNodeError(NodeTest("ConstantOfShape", 9).Input<int64_t>({1, 1}, {2}),
                  ErrorCode::kInvalidArgument, "must be 1-D");
}

TEST(TensorOneHot, DepthMustBeOneValue) {
  ExpectNodeError(NodeTest("OneHot", 11)
                      .Input<int64_t>({1}, {0})
                      .Input<int64_t>({2}, {2, 3})
                      .Input<float>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "'depth' must hold one value");
}

}  // namespace
}  // namespace kiln::testing
