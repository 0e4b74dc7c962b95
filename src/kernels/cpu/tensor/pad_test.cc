#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using I64 = std::vector<int64_t>;
using F = std::vector<float>;

TEST(TensorPad, ConstantWithValueInput) {
  // numpy.pad([[1,2],[3,4]], ((0,1),(1,0)), constant_values=9)
  auto out = NodeTest("Pad", 13)
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<int64_t>({4}, {0, 1, 1, 0})
                 .Input<float>({}, {9})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (F{9, 1, 2, 9, 3, 4, 9, 9, 9}));
}

TEST(TensorPad, ReflectWiderThanAxisRepeatsAsNumpy) {
  auto out = NodeTest("Pad", 11)
                 .Attr("mode", "reflect")
                 .Input<int32_t>({3}, {1, 2, 3})
                 .Input<int64_t>({2}, {5, 4})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
}

TEST(TensorPad, WrapFromOpset19) {
  auto x = MakeTensor<int32_t>({3}, {1, 2, 3});
  auto out = NodeTest("Pad", 19).Attr("mode", "wrap").Input(x).Input<int64_t>({2}, {4, 5}).Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2}));
  ExpectNodeError(NodeTest("Pad", 18).Attr("mode", "wrap").Input(x).Input<int64_t>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "mode 'wrap'");
}

TEST(TensorPad, EdgeWithAxes) {
  // numpy.pad([[1,2],[3,4]], ((1,0),(0,2)), 'edge'), given through axes [1, 0].
  auto out = NodeTest("Pad", 18)
                 .Attr("mode", "edge")
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<int64_t>({4}, {0, 1, 2, 0})
                 .MissingInput()
                 .Input<int64_t>({2}, {-1, 0})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 4}));
  EXPECT_EQ(Values<float>(*out[0]), (F{1, 2, 2, 2, 1, 2, 2, 2, 3, 4, 4, 4}));
}

TEST(TensorPad, NegativePadsCrop) {
  auto out = NodeTest("Pad", 13)
                 .Attr("mode", "reflect")
                 .Input<float>({5}, {1, 2, 3, 4, 5})
                 .Input<int64_t>({2}, {-1, 2})
                 .Run();
  // Crop to [2,3,4,5], then reflect two on the right: [2,3,4,5,4,3].
  EXPECT_EQ(Values<float>(*out[0]), (F{2, 3, 4, 5, 4, 3}));
}

TEST(TensorPad, AttributeFormsOfOpsets1And2) {
  auto v2 =
      NodeTest("Pad", 2).Attr("pads", I64{1, 0}).Attr("value", 1.5f).Input<double>({1}, {7}).Run();
  EXPECT_EQ(Values<double>(*v2[0]), (std::vector<double>{1.5, 7}));
  auto v1 = NodeTest("Pad", 1)
                .Attr("paddings", I64{0, 1})
                .Attr("value", 2.0f)
                .Input<Float16>({1}, {Float16::FromFloat(3)})
                .Run();
  EXPECT_FLOAT_EQ(Values<Float16>(*v1[0])[1].ToFloat(), 2.0f);
  ExpectNodeError(NodeTest("Pad", 2).Input<float>({1}, {7}), ErrorCode::kInvalidGraph, "'pads'");
}

TEST(TensorPad, StringsDefaultToEmpty) {
  auto out = NodeTest("Pad", 13).Input<std::string>({1}, {"a"}).Input<int64_t>({2}, {1, 1}).Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"", "a", ""}));
}

TEST(TensorPad, Errors) {
  auto x = MakeTensor<float>({2}, {1, 2});
  ExpectNodeError(NodeTest("Pad", 13).Input(x).Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "must have 2 entries");
  ExpectNodeError(NodeTest("Pad", 13).Input(x).Input<int64_t>({2}, {-2, -1}),
                  ErrorCode::kInvalidArgument, "crop more");
  ExpectNodeError(
      NodeTest("Pad", 13).Attr("mode", "edge").Input<float>({0}, {}).Input<int64_t>({2}, {1, 0}),
      ErrorCode::kInvalidArgument, "empty axis 0");
  ExpectNodeError(NodeTest("Pad", 13).Input(x).Input<int64_t>({2}, {1, 1}).Input<double>({}, {1}),
                  ErrorCode::kInvalidArgument, "'constant_value'");
  ExpectNodeError(NodeTest("Pad", 13).Attr("mode", "mirror").Input(x).Input<int64_t>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "mode 'mirror'");
  ExpectNodeError(NodeTest("Pad", 13).Input(x).Input<int64_t>({2}, {INT64_MAX, 1}),
                  ErrorCode::kInvalidArgument, "too large");
  ExpectNodeError(NodeTest("Pad", 18)
                      .Input(x)
                      .Input<int64_t>({2}, {1, 1})
                      .MissingInput()
                      .Input<int64_t>({1}, {3}),
                  ErrorCode::kInvalidArgument, "axes entry 3");
}

TEST(TensorPad, AxesMustNotRepeat) {
  ExpectNodeError(NodeTest("Pad", 18)
                      .Input<float>({2}, {1, 2})
                      .Input<int64_t>({4}, {1, 1, 1, 1})
                      .MissingInput()
                      .Input<int64_t>({2}, {0, -1}),
                  ErrorCode::kInvalidArgument, "repeat");
}

}  // namespace
}  // namespace kiln::testing
