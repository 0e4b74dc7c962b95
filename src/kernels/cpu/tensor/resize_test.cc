// Expected values come from the numpy reference of the ONNX backend tests (interpolate_nd), and
// for antialias and half_pixel_symmetric from a port of the newer ONNX reference.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/registry.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
using I64 = std::vector<int64_t>;

std::shared_ptr<Tensor> Data44() {
  return MakeTensor<float>({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
}
std::shared_ptr<Tensor> Data22() {
  return MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4});
}

void ExpectNear(const Tensor& t, const F& expected, float tolerance = 1e-4f) {
  const F got = Values<float>(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tolerance) << i;
}

NodeTest WithScales(NodeTest test, const std::shared_ptr<Tensor>& x, const F& scales) {
  return test.Input(x).MissingInput().Input<float>({static_cast<int64_t>(scales.size())}, scales);
}
NodeTest WithSizes(NodeTest test, const std::shared_ptr<Tensor>& x, const I64& sizes) {
  return test.Input(x).MissingInput().MissingInput().Input<int64_t>(
      {static_cast<int64_t>(sizes.size())}, sizes);
}

TEST(TensorResize, NearestUpsampleDefault) {
  auto out = WithScales(NodeTest("Resize", 13), Data22(), {1, 1, 2, 3}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 4, 6}));
  EXPECT_EQ(Values<float>(*out[0]),
            (F{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
}

TEST(TensorResize, NearestModes) {
  auto floor_align = WithSizes(NodeTest("Resize", 13)
                                   .Attr("coordinate_transformation_mode", "align_corners")
                                   .Attr("nearest_mode", "floor"),
                               Data22(), {1, 1, 3, 3})
                         .Run();
  EXPECT_EQ(Values<float>(*floor_align[0]), (F{1, 1, 2, 1, 1, 2, 3, 3, 4}));
  auto ceil_half =
      WithSizes(NodeTest("Resize", 11).Attr("nearest_mode", "ceil"), Data22(), {1, 1, 3, 3}).Run();
  EXPECT_EQ(Values<float>(*ceil_half[0]), (F{1, 2, 2, 3, 4, 4, 3, 4, 4}));
  auto prefer_ceil = WithSizes(NodeTest("Resize", 19)
                                   .Attr("coordinate_transformation_mode", "asymmetric")
                                   .Attr("nearest_mode", "round_prefer_ceil"),
                               Data44(), {1, 1, 3, 5})
                         .Run();
  EXPECT_EQ(Values<float>(*prefer_ceil[0]), (F{1, 2, 3, 3, 4, 5, 6, 7, 7, 8, 13, 14, 15, 15, 16}));
  auto down = WithSizes(NodeTest("Resize", 13), Data44(), {1, 1, 3, 3}).Run();
  EXPECT_EQ(Values<float>(*down[0]), (F{1, 2, 4, 5, 6, 8, 13, 14, 16}));
}

TEST(TensorResize, NearestCopiesStringsAndInts) {
  auto s = WithScales(NodeTest("Resize", 13), MakeTensor<std::string>({2}, {"a", "b"}), {2}).Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"a", "a", "b", "b"}));
  auto i = WithScales(NodeTest("Resize", 18), MakeTensor<int64_t>({2}, {7, 9}), {1.5f}).Run();
  EXPECT_EQ(Values<int64_t>(*i[0]), (I64{7, 7, 9}));
}

TEST(TensorResize, LinearHalfPixel) {
  auto out =
      WithScales(NodeTest("Resize", 13).Attr("mode", "linear"), Data22(), {1, 1, 2, 2}).Run();
  ExpectNear(*out[0], {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3,
                       3.25f, 3.75f, 4});
}

TEST(TensorResize, LinearAlignCornersAndPytorchHalfPixel) {
  auto align = WithScales(NodeTest("Resize", 11)
                              .Attr("mode", "linear")
                              .Attr("coordinate_transformation_mode", "align_corners"),
                          Data44(), {1, 1, 0.6f, 0.6f})
                   .Run();
  // The fractional resized length 4 * 0.6 = 2.4 enters the formula (ONNX issue 2462).
  ExpectNear(*align[0], {1, 3.142857f, 9.571428f, 11.71428f});
  auto pytorch = WithSizes(NodeTest("Resize", 13)
                               .Attr("mode", "linear")
                               .Attr("coordinate_transformation_mode", "pytorch_half_pixel"),
                           Data44(), {1, 1, 3, 2})
                     .Run();
  ExpectNear(*pytorch[0], {2.166667f, 4.166667f, 7.5f, 9.5f, 12.83333f, 14.83333f});
}

TEST(TensorResize, LinearOneDimensionAndTypes) {
  auto d = WithSizes(NodeTest("Resize", 13).Attr("mode", "linear"),
                     MakeTensor<double>({5}, {0, 10, 20, 30, 40}), {2})
               .Run();
  EXPECT_EQ(Values<double>(*d[0]), (std::vector<double>{7.5, 32.5}));
  auto u8 = WithSizes(NodeTest("Resize", 13).Attr("mode", "linear"),
                      MakeTensor<uint8_t>({5}, {0, 10, 20, 30, 40}), {2})
                .Run();
  EXPECT_EQ(Values<uint8_t>(*u8[0]), (std::vector<uint8_t>{7, 32}));
  // Results that are integers exactly stay those integers: 126 = (180 + 2·99) / 3 came out of
  // the two-axis blend as 125.99999999999999, truncated to 125 before.
  auto exact = WithScales(NodeTest("Resize", 13).Attr("mode", "linear"),
                          MakeTensor<uint8_t>({1, 1, 1, 3}, {180, 99, 224}), {1, 1, 2, 3})
                   .Run();
  const std::vector<uint8_t> row = {180, 180, 153, 126, 99, 140, 182, 224, 224};
  std::vector<uint8_t> rows = row;
  rows.insert(rows.end(), row.begin(), row.end());
  EXPECT_EQ(Values<uint8_t>(*exact[0]), rows);
  // The rounding errors scale with the terms, not the result: output 16 reads 16/3 - 5 of the
  // way from 30 to -63, -1 exactly, which came out as -0.999999999999975 (a few errors of 20
  // off) and truncated to 0 before.
  auto small = WithScales(NodeTest("Resize", 13)
                              .Attr("mode", "linear")
                              .Attr("coordinate_transformation_mode", "asymmetric"),
                          MakeTensor<int8_t>({1, 1, 7, 1}, {0, 0, 0, 0, 0, 30, -63}), {1, 1, 3, 1})
                   .Run();
  std::vector<int8_t> thirds(13, 0);
  thirds.insert(thirds.end(), {10, 20, 30, -1, -32, -63, -63, -63});
  EXPECT_EQ(Values<int8_t>(*small[0]), thirds);
  // Large int32 values: only a few rounding errors count as "an integer" (a relative nudge of a
  // billionth made 1500000000 here into 1500000001).
  auto large = WithScales(NodeTest("Resize", 13).Attr("mode", "linear"),
                          MakeTensor<int32_t>({2}, {1500000000, 1500000002}), {2.0f})
                   .Run();
  EXPECT_EQ(Values<int32_t>(*large[0]),
            (std::vector<int32_t>{1500000000, 1500000000, 1500000001, 1500000002}));
  auto h = WithSizes(NodeTest("Resize", 13).Attr("mode", "linear"),
                     MakeTensor<Float16>({2}, {Float16::FromFloat(0), Float16::FromFloat(1)}), {4})
               .Run();
  EXPECT_FLOAT_EQ(Values<Float16>(*h[0])[1].ToFloat(), 0.25f);
}

TEST(TensorResize, CubicDefaultAndAsymmetric) {
  auto down =
      WithScales(NodeTest("Resize", 13).Attr("mode", "cubic"), Data44(), {1, 1, 0.8f, 0.8f}).Run();
  ExpectNear(*down[0], {1.471191f, 2.78125f, 4.082519f, 6.711426f, 8.021484f, 9.322754f, 11.9165f,
                        13.22656f, 14.52783f});
  auto asym = WithScales(NodeTest("Resize", 13)
                             .Attr("mode", "cubic")
                             .Attr("coordinate_transformation_mode", "asymmetric"),
                         Data44(), {1, 1, 2, 2})
                  .Run(2);
  const F row0 = {1, 1.40625f, 2, 2.5f, 3, 3.59375f, 4, 4.09375f};
  const F row7 = {13.375f, 13.78125f, 14.375f, 14.875f, 15.375f, 15.96875f, 16.375f, 16.46875f};
  const F got = Values<float>(*asym[0]);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_NEAR(got[i], row0[i], 1e-4f);
    EXPECT_NEAR(got[56 + i], row7[i], 1e-4f);
  }
}

TEST(TensorResize, CubicCoefficientAndExcludeOutside) {
  auto out = WithScales(NodeTest("Resize", 13)
                            .Attr("mode", "cubic")
                            .Attr("cubic_coeff_a", -0.5f)
                            .Attr("exclude_outside", int64_t{1}),
                        Data44(), {1, 1, 2, 2})
                 .Run();
  const F got = Values<float>(*out[0]);
  const F row0 = {0.5588235f, 0.814942f, 1.356982f, 1.897059f,
                  2.397059f,  2.937135f, 3.479176f, 3.735294f};
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(got[i], row0[i], 1e-4f);
  EXPECT_NEAR(got[63], 16.44118f, 1e-4f);
  EXPECT_NEAR(got[27], 7.25f, 1e-4f);
}

TEST(TensorResize, TfCropAndResizeExtrapolates) {
  auto out = NodeTest("Resize", 13)
                 .Attr("mode", "linear")
                 .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                 .Attr("extrapolation_value", 10.0f)
                 .Input(Data44())
                 .Input<float>({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})
                 .MissingInput()
                 .Input<int64_t>({4}, {1, 1, 3, 3})
                 .Run();
  ExpectNear(*out[0], {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10});
  // With scales, the crop spans the integer output length floor(4 * 0.8) = 3, not 3.2 (as in
  // TensorFlow's CropAndResize and ONNX Runtime): the same values as with sizes {1, 1, 3, 3}.
  auto scaled = NodeTest("Resize", 13)
                    .Attr("mode", "linear")
                    .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                    .Attr("extrapolation_value", 10.0f)
                    .Input(Data44())
                    .Input<float>({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f})
                    .Input<float>({4}, {1, 1, 0.8f, 0.8f})
                    .Run();
  EXPECT_EQ(scaled[0]->shape(), Shape({1, 1, 3, 3}));
  ExpectNear(*scaled[0], {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10});
  // One output column samples the middle of the crop: x = (0.2 + 0.6) / 2 * 3 = 1.2 -> 2.2.
  auto middle = NodeTest("Resize", 13)
                    .Attr("mode", "linear")
                    .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                    .Input(MakeTensor<float>({1, 4}, {1, 2, 3, 4}))
                    .Input<float>({4}, {0, 0.2f, 1, 0.6f})
                    .Input<float>({2}, {1, 0.4f})
                    .Run();
  ExpectNear(*middle[0], {2.2f});
  ExpectNodeError(
      WithSizes(NodeTest("Resize", 13).Attr("coordinate_transformation_mode", "tf_crop_and_resize"),
                Data44(), {1, 1, 3, 3}),
      ErrorCode::kInvalidArgument, "'roi'");
  // The run-path fuzzer's finding: a NaN in roi made a NaN coordinate, converted to an integer
  // (UBSan); it is refused with a status.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectNodeError(NodeTest("Resize", 13)
                      .Attr("mode", "linear")
                      .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                      .Input(Data44())
                      .Input<float>({8}, {0, 0, nan, 0.6f, 1, 1, 1.2f, 1.7f})
                      .MissingInput()
                      .Input<int64_t>({4}, {1, 1, 3, 3}),
                  ErrorCode::kInvalidArgument, "maps to no input coordinate (NaN)");
}

TEST(TensorResize, HalfPixelSymmetricFromOpset19) {
  auto out = WithScales(NodeTest("Resize", 19)
                            .Attr("mode", "linear")
                            .Attr("coordinate_transformation_mode", "half_pixel_symmetric"),
                        Data22(), {1, 1, 2.6f, 2.6f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 5, 5}));
  ExpectNear(*out[0], {1,         1.115385f, 1.5f,      1.884615f, 2,         1.230769f, 1.346154f,
                       1.730769f, 2.115385f, 2.230769f, 2,         2.115385f, 2.5f,      2.884615f,
                       3,         2.769231f, 2.884615f, 3.269231f, 3.653846f, 3.769231f, 3,
                       3.115385f, 3.5f,      3.884615f, 4});
  ExpectNodeError(
      WithScales(
          NodeTest("Resize", 18).Attr("coordinate_transformation_mode", "half_pixel_symmetric"),
          Data22(), {1, 1, 2, 2}),
      ErrorCode::kInvalidArgument, "half_pixel_symmetric");
}

TEST(TensorResize, TfHalfPixelForNnOnlyAtOpset11) {
  auto out =
      WithScales(
          NodeTest("Resize", 11).Attr("coordinate_transformation_mode", "tf_half_pixel_for_nn"),
          MakeTensor<float>({4}, {1, 2, 3, 4}), {0.5f})
          .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{2, 4}));  // x = (o + 0.5) * 2 -> 1, 3
  ExpectNodeError(
      WithScales(
          NodeTest("Resize", 13).Attr("coordinate_transformation_mode", "tf_half_pixel_for_nn"),
          Data22(), {1, 1, 2, 2}),
      ErrorCode::kInvalidArgument, "tf_half_pixel_for_nn");
}

TEST(TensorResize, Antialias) {
  auto linear =
      WithScales(NodeTest("Resize", 18).Attr("mode", "linear").Attr("antialias", int64_t{1}),
                 Data44(), {1, 1, 0.6f, 0.6f})
          .Run();
  ExpectNear(*linear[0], {2.875f, 4.5f, 9.375f, 11});
  auto cubic =
      WithScales(NodeTest("Resize", 18).Attr("mode", "cubic").Attr("antialias", int64_t{1}),
                 Data44(), {1, 1, 0.6f, 0.6f})
          .Run();
  ExpectNear(*cubic[0], {2.518072f, 4.285886f, 9.589329f, 11.35714f});
  auto wide =
      WithScales(NodeTest("Resize", 18).Attr("mode", "linear").Attr("antialias", int64_t{1}),
                 MakeTensor<float>({10}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), {0.3f})
          .Run();
  ExpectNear(*wide[0], {2.313433f, 5.5f, 8.686567f});
}

TEST(TensorResize, AxesAndKeepAspectRatio) {
  auto axes = WithScales(NodeTest("Resize", 18).Attr("axes", I64{2, 3}), Data22(), {2, 3}).Run();
  EXPECT_EQ(axes[0]->shape(), Shape({1, 1, 4, 6}));
  auto last = WithSizes(NodeTest("Resize", 18).Attr("mode", "linear").Attr("axes", I64{-1}),
                        MakeTensor<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}), {1})
                  .Run();
  EXPECT_EQ(Values<float>(*last[0]), (F{2.5f, 6.5f}));
  auto not_larger = WithSizes(NodeTest("Resize", 18)
                                  .Attr("axes", I64{2, 3})
                                  .Attr("keep_aspect_ratio_policy", "not_larger"),
                              Data44(), {3, 2})
                        .Run();
  EXPECT_EQ(not_larger[0]->shape(), Shape({1, 1, 2, 2}));
  EXPECT_EQ(Values<float>(*not_larger[0]), (F{1, 3, 9, 11}));
  auto not_smaller = WithSizes(NodeTest("Resize", 18)
                                   .Attr("axes", I64{2, 3})
                                   .Attr("keep_aspect_ratio_policy", "not_smaller"),
                               Data44(), {3, 2})
                         .Run();
  EXPECT_EQ(not_smaller[0]->shape(), Shape({1, 1, 3, 3}));
  EXPECT_EQ(Values<float>(*not_smaller[0]), (F{1, 2, 4, 5, 6, 8, 13, 14, 16}));
}

TEST(TensorResize, Opset10ScalesInput) {
  auto x = MakeTensor<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto down = NodeTest("Resize", 10).Input(x).Input<float>({4}, {1, 1, 0.6f, 0.6f}).Run();
  EXPECT_EQ(Values<float>(*down[0]), (F{1, 3}));
  auto linear = NodeTest("Resize", 10)
                    .Attr("mode", "linear")
                    .Input(x)
                    .Input<float>({4}, {1, 1, 0.6f, 0.6f})
                    .Run();
  ExpectNear(*linear[0], {1, 2.6666665f});
  auto up = NodeTest("Resize", 10)
                .Attr("mode", "linear")
                .Input(Data22())
                .Input<float>({4}, {1, 1, 2, 2})
                .Run();
  ExpectNear(*up[0], {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
}

TEST(TensorResize, Errors) {
  ExpectNodeError(NodeTest("Resize", 13).Input(Data22()), ErrorCode::kInvalidArgument,
                  "exactly one of the inputs 'scales' and 'sizes'");
  ExpectNodeError(WithScales(NodeTest("Resize", 13), Data22(), {1, 2}), ErrorCode::kInvalidArgument,
                  "scales has 2 entries");
  ExpectNodeError(WithScales(NodeTest("Resize", 13), Data22(), {1, 1, 0, 1}),
                  ErrorCode::kInvalidArgument, "must be positive");
  ExpectNodeError(WithScales(NodeTest("Resize", 13), Data22(), {1, 1, 1e30f, 1e30f}),
                  ErrorCode::kInvalidArgument, "out of range");
  ExpectNodeError(WithSizes(NodeTest("Resize", 13), Data22(), {1, 1, -1, 2}),
                  ErrorCode::kInvalidArgument, "negative");
  ExpectNodeError(WithSizes(NodeTest("Resize", 13), MakeTensor<float>({0}, {}), {2}),
                  ErrorCode::kInvalidArgument, "empty input");
  ExpectNodeError(WithScales(NodeTest("Resize", 13).Attr("mode", "area"), Data22(), {1, 1, 2, 2}),
                  ErrorCode::kInvalidArgument, "mode 'area'");
  ExpectNodeError(
      WithScales(NodeTest("Resize", 13).Attr("nearest_mode", "round"), Data22(), {1, 1, 2, 2}),
      ErrorCode::kInvalidArgument, "nearest_mode 'round'");
  ExpectNodeError(WithScales(NodeTest("Resize", 13).Attr("mode", "linear"),
                             MakeTensor<std::string>({1}, {"a"}), {2}),
                  ErrorCode::kNotImplemented, "string");
  ExpectNodeError(WithSizes(NodeTest("Resize", 18).Attr("keep_aspect_ratio_policy", "fit"),
                            Data22(), {1, 1, 2, 2}),
                  ErrorCode::kInvalidArgument, "keep_aspect_ratio_policy 'fit'");
  ExpectNodeError(WithScales(NodeTest("Resize", 18).Attr("axes", I64{3, -1}), Data22(), {2, 2}),
                  ErrorCode::kInvalidArgument, "repeat");
  ExpectNodeError(
      NodeTest("Resize", 13).Input(Data22()).MissingInput().Input<int64_t>({4}, {1, 1, 2, 2}),
      ErrorCode::kInvalidArgument, "'scales' must be float");
}

TEST(TensorUpsample, NearestAndLinear) {
  auto v9 = NodeTest("Upsample", 9).Input(Data22()).Input<float>({4}, {1, 1, 2, 3}).Run();
  EXPECT_EQ(Values<float>(*v9[0]),
            (F{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  auto v7 = NodeTest("Upsample", 7)
                .Attr("mode", "linear")
                .Attr("scales", F{1, 1, 2, 2})
                .Input(Data22())
                .Run();
  ExpectNear(*v7[0], {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
  ExpectNodeError(NodeTest("Upsample", 9).Input(Data22()).Input<float>({4}, {1, 1, 0.5f, 1}),
                  ErrorCode::kInvalidArgument, "must be >= 1");
  ExpectNodeError(NodeTest("Upsample", 7).Input(Data22()), ErrorCode::kInvalidGraph, "'scales'");
  ExpectNodeError(
      NodeTest("Upsample", 7).Attr("mode", "cubic").Attr("scales", F{1, 1, 2, 2}).Input(Data22()),
      ErrorCode::kInvalidArgument, "mode 'cubic'");
}

TEST(TensorUpsample, DeprecatedOpset10AndLaterKeepUpsample9) {
  // Upsample-10 (deprecated) reads `scales` as an input and resizes as Upsample-9 does: nearest
  // with floor coordinates, scales below 1 refused (Resize-10 would shrink).
  for (int opset : {10, 13, kLatestOpset}) {
    auto out = NodeTest("Upsample", opset).Input(Data22()).Input<float>({4}, {1, 1, 2, 3}).Run();
    EXPECT_EQ(Values<float>(*out[0]),
              (F{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}))
        << opset;
  }
  auto linear = NodeTest("Upsample", 10)
                    .Attr("mode", "linear")
                    .Input(Data22())
                    .Input<float>({4}, {1, 1, 2, 2})
                    .Run();
  ExpectNear(*linear[0], {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
  ExpectNodeError(NodeTest("Upsample", 10).Input(Data22()).Input<float>({4}, {1, 1, 0.5f, 1}),
                  ErrorCode::kInvalidArgument, "must be >= 1");
}

TEST(TensorResize, SizesAndRoiChecks) {
  ExpectNodeError(WithSizes(NodeTest("Resize", 13), Data22(), {2, 2}), ErrorCode::kInvalidArgument,
                  "sizes has 2 entries");
  ExpectNodeError(NodeTest("Resize", 13)
                      .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                      .Input(Data22())
                      .Input<float>({2, 4}, {0, 0, 0, 0, 1, 1, 1, 1})
                      .MissingInput()
                      .Input<int64_t>({4}, {1, 1, 2, 2}),
                  ErrorCode::kInvalidArgument, "'roi' must be 1-D");
}

TEST(TensorResize, ThreadsGiveTheSameResult) {
  std::vector<float> x(size_t{3} * 40 * 50);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101);
  auto run = [&](int threads) {
    return Values<float>(*WithScales(NodeTest("Resize", 13).Attr("mode", "cubic"),
                                     MakeTensor<float>({3, 40, 50}, x), {1, 1.7f, 0.55f})
                              .Run(threads)[0]);
  };
  EXPECT_EQ(run(1), run(4));
}

// Five dimensions, several of them weighted (the outer axes combine their taps per row), with
// extrapolation: the same on one thread and on four.
TEST(TensorResize, FiveDimensionsOnSeveralThreads) {
  std::vector<float> x(size_t{2} * 3 * 6 * 9 * 20);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 53) % 97);
  auto data = [&] { return MakeTensor<float>({2, 3, 6, 9, 20}, x); };
  auto antialias = [&](int threads) {
    return Values<float>(
        *WithScales(NodeTest("Resize", 18).Attr("mode", "cubic").Attr("antialias", int64_t{1}),
                    data(), {1, 0.7f, 0.5f, 1.6f, 0.3f})
             .Run(threads)[0]);
  };
  EXPECT_EQ(antialias(1), antialias(4));
  auto crop = [&](int threads) {
    return Values<float>(*NodeTest("Resize", 13)
                              .Attr("mode", "linear")
                              .Attr("coordinate_transformation_mode", "tf_crop_and_resize")
                              .Attr("extrapolation_value", 7.0f)
                              .Input(data())
                              .Input<float>({10}, {0, -0.2f, 0.1f, 0.3f, 0, 1, 1.3f, 0.9f, 0.8f, 1})
                              .MissingInput()
                              .Input<int64_t>({5}, {2, 4, 7, 5, 30})
                              .Run(threads)[0]);
  };
  const std::vector<float> one = crop(1);
  EXPECT_EQ(one, crop(4));
  EXPECT_EQ(one.back(), 7.0f);  // the last output channel lies past the input (roi end 1.3)
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

// The float path over the last two axes (RunPlanes) against the generic one, which doubles
// take: every mode, coordinate mode, antialias, growing and shrinking, on [2, 3, h, w] data.
TEST(TensorResize, FloatPlanesMatchTheGenericPath) {
  struct Case {
    const char* mode;
    const char* coordinates;
    int64_t antialias;
    I64 sizes;
  };
  const Case cases[] = {
      {"linear", "half_pixel", 0, {2, 3, 20, 33}},
      {"linear", "align_corners", 0, {2, 3, 9, 4}},
      {"linear", "asymmetric", 0, {2, 3, 7, 16}},
      {"linear", "pytorch_half_pixel", 0, {2, 3, 1, 9}},
      {"linear", "half_pixel", 1, {2, 3, 3, 4}},
      {"cubic", "half_pixel", 0, {2, 3, 17, 11}},
      {"cubic", "align_corners", 0, {2, 3, 5, 5}},
      {"cubic", "half_pixel", 1, {2, 3, 2, 3}},
      {"nearest", "half_pixel", 0, {2, 3, 13, 19}},
      {"nearest", "asymmetric", 0, {2, 3, 4, 3}},
      {"linear", "half_pixel", 0, {2, 3, 6, 10}},  // the rows as they are, columns resized
  };
  std::vector<float> f(2 * 3 * 6 * 7);
  std::vector<double> d(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<float>((i * 37) % 23) * 0.25f - 2.0f;
    d[i] = f[i];
  }
  for (const Case& c : cases) {
    const auto make = [&](auto x) {
      return WithSizes(NodeTest("Resize", 19)
                           .Attr("mode", c.mode)
                           .Attr("coordinate_transformation_mode", c.coordinates)
                           .Attr("antialias", c.antialias),
                       x, c.sizes)
          .Run();
    };
    const auto fast = make(MakeTensor<float>({2, 3, 6, 7}, f));
    const auto generic = make(MakeTensor<double>({2, 3, 6, 7}, d));
    const std::vector<float> got = Values<float>(*fast[0]);
    const std::vector<double> want = Values<double>(*generic[0]);
    ASSERT_EQ(got.size(), want.size()) << c.mode << " " << c.coordinates;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5)
          << c.mode << " " << c.coordinates << " antialias " << c.antialias << " element " << i;
    }
  }
}

// The float path over any two adjacent axes: NHWC images ([N, H, W, C], axes 1 and 2), a single
// resized axis in the middle or first, and rank 3, against the generic path, on two threads.
TEST(TensorResize, FloatPlanesOfOtherAxesMatchTheGenericPath) {
  struct Case {
    const char* mode;
    const char* coordinates;
    I64 shape;
    I64 sizes;
  };
  const Case cases[] = {
      {"linear", "half_pixel", {2, 6, 7, 5}, {2, 20, 33, 5}},         // NHWC, growing
      {"linear", "align_corners", {2, 6, 7, 19}, {2, 4, 3, 19}},      // NHWC, shrinking
      {"cubic", "half_pixel", {1, 6, 7, 16}, {1, 13, 11, 16}},        // NHWC cubic
      {"nearest", "asymmetric", {2, 6, 7, 3}, {2, 12, 14, 3}},        // NHWC nearest
      {"linear", "pytorch_half_pixel", {3, 6, 7, 2}, {3, 6, 15, 2}},  // one axis (W) of NHWC
      {"linear", "half_pixel", {6, 7, 4}, {11, 7, 4}},                // axis 0 of rank 3
      {"cubic", "asymmetric", {2, 7, 9}, {2, 7, 20}},                 // the last axis alone
  };
  for (const Case& c : cases) {
    size_t n = 1;
    for (int64_t v : c.shape) n *= static_cast<size_t>(v);
    std::vector<float> f(n);
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) {
      f[i] = static_cast<float>((i * 37) % 23) * 0.25f - 2.0f;
      d[i] = f[i];
    }
    const auto make = [&](auto x) {
      return WithSizes(NodeTest("Resize", 19)
                           .Attr("mode", c.mode)
                           .Attr("coordinate_transformation_mode", c.coordinates),
                       x, c.sizes)
          .Run(2);
    };
    const auto fast = make(MakeTensor<float>(c.shape, f));
    const auto generic = make(MakeTensor<double>(c.shape, d));
    const std::vector<float> got = Values<float>(*fast[0]);
    const std::vector<double> want = Values<double>(*generic[0]);
    ASSERT_EQ(got.size(), want.size()) << c.mode << " " << c.coordinates;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5) << c.mode << " " << c.coordinates << " element " << i;
    }
  }
}

}  // namespace
}  // namespace kiln::testing
