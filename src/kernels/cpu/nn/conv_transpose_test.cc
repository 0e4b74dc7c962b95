// ConvTranspose: values against references computed with torch from nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;
using nn_test::Vec;

TEST(NnConvTranspose, TwoChannelsOfOnes) {
  std::vector<float> x(9);
  for (size_t i = 0; i < 9; ++i) x[i] = static_cast<float>(i);
  auto out = NodeTest("ConvTranspose", 11)
                 .Input<float>({1, 1, 3, 3}, x)
                 .Input<float>({1, 2, 3, 3}, std::vector<float>(18, 1.0f))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 5, 5}));
  const std::vector<float> plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                    27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<float> want = plane;
  want.insert(want.end(), plane.begin(), plane.end());
  EXPECT_EQ(Values<float>(*out[0]), want);
}

TEST(NnConvTranspose, GroupsStridesDilationsPadsOutputPaddingBias) {
  auto out = NodeTest("ConvTranspose", 22)
                 .Attr("group", int64_t{2})
                 .Attr("strides", std::vector<int64_t>{3, 2})
                 .Attr("pads", std::vector<int64_t>{1, 2, 0, 1})
                 .Attr("dilations", std::vector<int64_t>{2, 1})
                 .Attr("output_padding", std::vector<int64_t>{1, 0})
                 .Input<float>({1, 4, 3, 3}, Pattern(36))
                 .Input<float>({4, 1, 2, 3}, Pattern(24, 5), true)
                 .Input<float>({2}, {0.5f, -0.25f})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 9, 4}));
  ExpectNear(
      Values<float>(*out[0]),
      {0.5f,       0.5f,      0.5f,       0.5f,      -0.140625f, -0.171875f, 1.578125f,  0.15625f,
       -0.40625f,  0.578125f, 1.921875f,  0.28125f,  0.5f,       0.5f,       0.5f,       0.5f,
       0.234375f,  0.015625f, 0.09375f,   1.671875f, -0.0625f,   -0.046875f, 0.40625f,   1.515625f,
       0.5f,       0.5f,      0.5f,       0.5f,      1.671875f,  0.203125f,  -0.328125f, -0.265625f,
       0.5f,       0.5f,      0.5f,       0.5f,      -0.25f,     -0.25f,     -0.25f,     -0.25f,
       -0.765625f, 0.125f,    -1.484375f, -0.5f,     -1.09375f,  -0.75f,     1.1875f,    -0.40625f,
       -0.25f,     -0.25f,    -0.25f,     -0.25f,    -1.0625f,   -0.6875f,   1.40625f,   -0.25f,
       -0.359375f, -0.78125f, -0.734375f, 0.09375f,  -0.25f,     -0.25f,     -0.25f,     -0.25f,
       -0.296875f, -0.4375f,  -0.484375f, 0.0f,      -0.25f,     -0.25f,     -0.25f,     -0.25f},
      1e-6);
}

TEST(NnConvTranspose, OneDGroupedWithBias) {
  auto out = NodeTest("ConvTranspose", 1)
                 .Attr("group", int64_t{2})
                 .Attr("strides", std::vector<int64_t>{2})
                 .Attr("pads", std::vector<int64_t>{1, 0})
                 .Input<float>({2, 2, 4}, Pattern(16))
                 .Input<float>({2, 3, 3}, Pattern(18, 3))
                 .Input<float>({6}, {1.0f, 0.0f, -1.0f, 0.5f, 0.25f, -0.5f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 6, 8}));
  ExpectNear(
      Values<float>(*out[0]),
      {1.625f,    1.375f,     1.078125f,  0.28125f,   0.53125f,  1.3125f,    1.3125f,    1.125f,
       -0.5f,     -0.890625f, -0.0625f,   -0.015625f, 0.375f,    0.59375f,   -0.25f,     -0.4375f,
       -0.5f,     -0.765625f, -0.9375f,   -1.640625f, -1.375f,   -0.65625f,  -0.75f,     -0.9375f,
       0.734375f, 0.65625f,   -0.046875f, -0.375f,    0.5f,      0.71875f,   1.046875f,  1.375f,
       0.109375f, 0.90625f,   0.578125f,  0.25f,      0.25f,     -0.40625f,  -0.078125f, 0.25f,
       -0.21875f, -1.203125f, -1.15625f,  0.375f,     -0.5f,     -0.171875f, 0.15625f,   -1.375f,
       1.234375f, 0.59375f,   0.6875f,    1.625f,     1.46875f,  1.0625f,    0.921875f,  0.96875f,
       -0.1875f,  -0.265625f, 0.25f,      0.34375f,   -0.375f,   -0.640625f, 0.0625f,    0.109375f,
       -0.8125f,  -1.390625f, -1.25f,     -0.40625f,  -0.625f,   -1.015625f, -1.0625f,   -1.015625f,
       1.125f,    1.4375f,    0.34375f,   0.40625f,   0.890625f, 0.96875f,   0.109375f,  -0.125f,
       -0.125f,   0.4375f,    0.34375f,   -0.21875f,  0.015625f, 0.71875f,   0.484375f,  0.25f,
       0.25f,     -1.59375f,  -0.6875f,   -0.015625f, -0.03125f, -1.359375f, -0.96875f,  0.125f},
      1e-6);
}

TEST(NnConvTranspose, ThreeD) {
  auto out = NodeTest("ConvTranspose", 11)
                 .Attr("strides", std::vector<int64_t>{2, 1, 2})
                 .Attr("pads", std::vector<int64_t>{0, 1, 1, 0, 0, 1})
                 .Input<float>({1, 2, 2, 3, 2}, Pattern(24))
                 .Input<float>({2, 1, 2, 2, 3}, Pattern(24, 5))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 4, 3, 3}));
  ExpectNear(
      Values<float>(*out[0]),
      {1.3125f,   -0.9375f,  -0.328125f, -0.109375f, -0.328125f, -0.421875f, -0.109375f, -0.890625f,
       0.046875f, -1.5f,     1.515625f,  0.15625f,   0.484375f,  0.171875f,  0.015625f,  0.375f,
       0.265625f, -0.875f,   -0.296875f, 0.625f,     -0.078125f, -0.390625f, 1.234375f,  -0.171875f,
       0.03125f,  0.984375f, -0.078125f, 0.203125f,  -0.390625f, 0.53125f,   0.0625f,    -0.671875f,
       0.390625f, -0.75f,    -0.125f,    0.125f},
      1e-6);
}

// The full output of X [1,1,3] (Pattern) and W [1,1,3] (Pattern step 5), stride 2: 7 elements.
constexpr float kFull1D[] = {1.0f, 0.375f, -0.125f, 0.046875f, -0.78125f, -0.28125f, 0.1875f};

std::vector<float> OutputShape1D(int64_t opset, int64_t size, const char* auto_pad = "NOTSET") {
  auto out = NodeTest("ConvTranspose", opset)
                 .Attr("auto_pad", auto_pad)
                 .Attr("strides", std::vector<int64_t>{2})
                 .Attr("output_shape", std::vector<int64_t>{size})
                 .Input<float>({1, 1, 3}, Pattern(3))
                 .Input<float>({1, 1, 3}, Pattern(3, 5))
                 .Input<float>({1}, {0.5f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, size}));
  return Values<float>(*out[0]);
}

TEST(NnConvTranspose, OutputShapeOddPaddingSideDependsOnOpset) {
  // Total padding 7 - 6 = 1: at the end before opset 11, at the beginning from opset 11.
  std::vector<float> v1(6), v11(6);
  for (size_t i = 0; i < 6; ++i) {
    v1[i] = kFull1D[i] + 0.5f;
    v11[i] = kFull1D[i + 1] + 0.5f;
  }
  ExpectNear(OutputShape1D(1, 6), v1, 1e-6);
  ExpectNear(OutputShape1D(11, 6), v11, 1e-6);
  ExpectNear(OutputShape1D(1, 6, "VALID"), v1, 1e-6);
  ExpectNear(OutputShape1D(11, 6, "VALID"), v11, 1e-6);
  // SAME_UPPER puts it at the end and SAME_LOWER at the beginning in every version.
  ExpectNear(OutputShape1D(1, 6, "SAME_UPPER"), v1, 1e-6);
  ExpectNear(OutputShape1D(11, 6, "SAME_UPPER"), v1, 1e-6);
  ExpectNear(OutputShape1D(1, 6, "SAME_LOWER"), v11, 1e-6);
  ExpectNear(OutputShape1D(22, 6, "SAME_LOWER"), v11, 1e-6);
}

TEST(NnConvTranspose, OutputShapeLargerThanFullGetsOnlyBias) {
  std::vector<float> want(9, 0.5f);
  for (size_t i = 0; i < 7; ++i) want[i] += kFull1D[i];
  ExpectNear(OutputShape1D(11, 9), want, 1e-6);
}

TEST(NnConvTranspose, OutputShapeWithBatchAndChannels) {
  auto out = NodeTest("ConvTranspose", 11)
                 .Attr("strides", std::vector<int64_t>{2})
                 .Attr("output_shape", std::vector<int64_t>{1, 1, 7})
                 .Input<float>({1, 1, 3}, Pattern(3))
                 .Input<float>({1, 1, 3}, Pattern(3, 5))
                 .Run();
  ExpectNear(Values<float>(*out[0]), Vec(kFull1D), 1e-6);
}

// The full 7x7 output of X [1,1,3,3] and W [1,1,3,3] (step 5), strides 2.
constexpr float kFull2D[] = {
    1.0f,     0.375f,  -0.125f,    0.046875f,  -0.78125f,  -0.28125f,  0.1875f,
    -0.875f,  0.625f,  -0.109375f, 0.078125f,  0.65625f,   -0.46875f,  0.0f,
    -0.125f,  1.0625f, -0.328125f, -0.03125f,  1.46875f,   -0.328125f, -0.40625f,
    -0.4375f, 0.3125f, 0.328125f,  -0.234375f, -0.765625f, 0.546875f,  0.0f,
    -0.3125f, 0.4375f, -0.515625f, -0.65625f,  -0.046875f, 0.90625f,   0.125f,
    0.0f,     0.0f,    0.765625f,  -0.546875f, -0.328125f, 0.234375f,  0.0f,
    0.0f,     0.0f,    0.546875f,  -0.765625f, -0.453125f, 0.328125f,  0.09375f};

std::vector<float> Crop6(size_t offset) {
  std::vector<float> v(36);
  for (size_t r = 0; r < 6; ++r) {
    for (size_t c = 0; c < 6; ++c) v[r * 6 + c] = kFull2D[(r + offset) * 7 + c + offset];
  }
  return v;
}

TEST(NnConvTranspose, AutoPadSameUpperAndLower) {
  for (int64_t opset : {1, 11}) {
    for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
      auto out = NodeTest("ConvTranspose", opset)
                     .Attr("auto_pad", mode)
                     .Attr("strides", std::vector<int64_t>{2, 2})
                     .Input<float>({1, 1, 3, 3}, Pattern(9))
                     .Input<float>({1, 1, 3, 3}, Pattern(9, 5))
                     .Run();
      EXPECT_EQ(out[0]->shape(), Shape({1, 1, 6, 6}));
      // Total padding 1: at the end for SAME_UPPER, at the beginning for SAME_LOWER.
      ExpectNear(Values<float>(*out[0]), Crop6(std::string(mode) == "SAME_UPPER" ? 0 : 1), 1e-6);
    }
  }
}

TEST(NnConvTranspose, AutoPadValidGivesTheFullOutput) {
  auto out = NodeTest("ConvTranspose", 11)
                 .Attr("auto_pad", "VALID")
                 .Attr("strides", std::vector<int64_t>{2, 2})
                 .Input<float>({1, 1, 3, 3}, Pattern(9))
                 .Input<float>({1, 1, 3, 3}, Pattern(9, 5))
                 .Run();
  ExpectNear(Values<float>(*out[0]), Vec(kFull2D), 1e-6);
}

TEST(NnConvTranspose, PointwiseDoubleAndFloat16) {
  const std::vector<float> want = {2.328125f,  0.59375f,  0.71875f,  1.640625f,
                                   -0.296875f, -1.71875f, -1.28125f, -0.046875f};
  std::vector<float> xf = Pattern(12), wf = Pattern(6, 5);
  auto d = NodeTest("ConvTranspose", 11)
               .Input<double>({1, 3, 2, 2}, nn_test::Cast<double>(xf))
               .Input<double>({3, 2, 1, 1}, nn_test::Cast<double>(wf))
               .Input<double>({2}, {1.0, -1.0})
               .Run();
  ExpectNear(Values<double>(*d[0]), nn_test::Cast<double>(want), 1e-12);

  const std::vector<Float16> xh = nn_test::Cast<Float16>(xf);
  const std::vector<Float16> wh = nn_test::Cast<Float16>(wf);
  auto h = NodeTest("ConvTranspose", 11)
               .Input<Float16>({1, 3, 2, 2}, xh)
               .Input<Float16>({3, 2, 1, 1}, wh)
               .Input<Float16>({2}, {Float16::FromFloat(1.0f), Float16::FromFloat(-1.0f)})
               .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<Float16>(*h[0]));
  ExpectNear(got, want, 1e-6);
}

NodeTest Bad(int64_t group, const std::vector<int64_t>& x_shape,
             const std::vector<int64_t>& w_shape) {
  size_t xn = 1, wn = 1;
  for (int64_t d : x_shape) xn *= static_cast<size_t>(d);
  for (int64_t d : w_shape) wn *= static_cast<size_t>(d);
  NodeTest t("ConvTranspose", 11);
  t.Attr("group", group).Input<float>(x_shape, Pattern(xn)).Input<float>(w_shape, Pattern(wn));
  return t;
}

TEST(NnConvTranspose, RejectsBadShapes) {
  ExpectError(
      [] {
        Bad(2, {1, 3, 3, 3}, {3, 1, 2, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "3 channels", "'group' 2"});
  ExpectError(
      [] {
        Bad(1, {1, 3, 3, 3}, {2, 1, 2, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "2 input channels", "has 3"});
  ExpectError(
      [] {
        Bad(1, {1, 3, 3, 3}, {3, 1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "same rank"});
  ExpectError([] { Bad(1, {3, 3}, {3, 3}).Run(); }, ErrorCode::kInvalidArgument, {"'X'", "rank 3"});
  ExpectError(
      [] {
        Bad(1, {1, 1, 3}, {1, 2, 3}).Input<float>({3}, Pattern(3)).Run();
      },
      ErrorCode::kInvalidArgument, {"'B'", "expected [2]"});
  ExpectError(
      [] {
        Bad(1, {1, 1, 3}, {1, 1, 2}).Attr("pads", std::vector<int64_t>{2, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "no output", "full size 4, padding 4"});
}

TEST(NnConvTranspose, RejectsBadAttributes) {
  auto with = [](const char* name, std::vector<int64_t> v) {
    return Bad(1, {1, 1, 3, 3}, {1, 1, 2, 2}).Attr(name, std::move(v));
  };
  ExpectError(
      [&] {
        with("output_padding", {1, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'output_padding'", "less than the stride"});
  ExpectError(
      [&] {
        with("output_padding", {-1, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'output_padding'", ">= 0"});
  ExpectError([&] { with("output_padding", {0}).Run(); }, ErrorCode::kInvalidArgument,
              {"'output_padding'", "2 spatial axes"});
  ExpectError([&] { with("output_shape", {4}).Run(); }, ErrorCode::kInvalidArgument,
              {"'output_shape'", "1 values"});
  ExpectError(
      [&] {
        with("output_shape", {4, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'output_shape'", "positive"});
  ExpectError(
      [&] {
        with("strides", {0, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "positive"});
  ExpectError(
      [&] {
        with("dilations", {1, 1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'dilations'", "3 values"});
  ExpectError(
      [&] {
        with("kernel_shape", {3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'kernel_shape'", "'W'"});
  ExpectError(
      [] {
        Bad(-1, {1, 1, 3, 3}, {1, 1, 2, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'group'", "positive"});
  ExpectError(
      [] {
        NodeTest("ConvTranspose", 11)
            .Input<float>({1, 1, 3}, Pattern(3))
            .Input<double>({1, 1, 2}, {1.0, 2.0})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "double"});
}

}  // namespace
}  // namespace kiln::testing
