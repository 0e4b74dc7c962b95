// Inference rules of the image family: GridSample, AffineGrid, NonMaxSuppression, RoiAlign,
// Col2Im, CenterCropPad, DeformConv, MaxUnpool and ImageDecoder.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kI64 = DataType::kInt64;

TEST(InferGridSample, OutputTakesTheGridsSpatialDims) {
  auto out =
      RuleTest("GridSample", 20).Input(kF, {2, 3, 5, 6, 7}).Input(kF, {2, 4, -1, 9, 3}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4, -1, 9}));
  ExpectFail(
      [] {
        RuleTest("GridSample", 20).Input(kF, {1, 1, 4, 4}).Input(kF, {1, 2, 2}).Run();
      },
      {"input 'grid'"});
}

TEST(InferAffineGrid, FromAKnownSizeOrThetasShape) {
  auto known = RuleTest("AffineGrid", 20)
                   .Input(kF, {2, 3, 4})
                   .ConstInput<int64_t>({5}, {2, 1, 6, 7, 8})
                   .Run();
  EXPECT_EQ(Dims(known[0]), (V{2, 6, 7, 8, 3}));
  auto rank = RuleTest("AffineGrid", 20).Input(kF, {2, 2, 3}).Input(kI64, {4}).Run();
  EXPECT_EQ(Dims(rank[0]), (V{2, -1, -1, 2}));
  ExpectFail(
      [] {
        RuleTest("AffineGrid", 20).Input(kF, {2, 2, 3}).ConstInput<int64_t>({3}, {2, 1, 6}).Run();
      },
      {"input 'size'"});
}

TEST(InferNonMaxSuppression, RowsDependOnTheData) {
  auto out = RuleTest("NonMaxSuppression", 11).Input(kF, {1, 6, 4}).Input(kF, {1, 1, 6}).Run();
  EXPECT_EQ(out[0].type, kI64);
  EXPECT_EQ(Dims(out[0]), (V{-1, 3}));
}

TEST(InferRoiAlign, RoisChannelsAndOutputSize) {
  auto out = RuleTest("RoiAlign", 16)
                 .Attr("output_height", int64_t{5})
                 .Input(kF, {1, 8, 10, 10})
                 .Input(kF, {3, 4})
                 .Input(kI64, {3})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{3, 8, 5, 1}));
  ExpectFail(
      [] {
        RuleTest("RoiAlign", 16).Input(kF, {1, 8, 10, 10}).Input(kF, {3, 5}).Input(kI64, {3}).Run();
      },
      {"input 'rois'"});
}

TEST(InferCol2Im, ImageShapeAndChannels) {
  auto out = RuleTest("Col2Im", 18)
                 .Input(kF, {1, 12, 4})
                 .ConstInput<int64_t>({2}, {3, 3})
                 .ConstInput<int64_t>({2}, {2, 2})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 3, 3, 3}));
  auto unknown =
      RuleTest("Col2Im", 18).Input(kF, {1, 12, 4}).Input(kI64, {3}).Input(kI64, {3}).Run();
  EXPECT_EQ(Dims(unknown[0]), (V{1, -1, -1, -1, -1}));
}

TEST(InferCenterCropPad, TargetSizesAlongAxes) {
  auto out = RuleTest("CenterCropPad", 18)
                 .Attr("axes", V{-1})
                 .Input(kF, {3, 20, 8})
                 .ConstInput<int64_t>({1}, {5})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{3, 20, 5}));
  auto unknown = RuleTest("CenterCropPad", 18).Input(kF, {3, 20}).Input(kI64, {2}).Run();
  EXPECT_EQ(Dims(unknown[0]), (V{-1, -1}));
  ExpectFail(
      [] {
        RuleTest("CenterCropPad", 18).Attr("axes", V{3}).Input(kF, {3, 20}).Input(kI64, {1}).Run();
      },
      {"attribute 'axes'"});
}

TEST(InferDeformConv, ConvolutionSizes) {
  auto out = RuleTest("DeformConv", 19)
                 .Attr("pads", V{1, 1, 1, 1})
                 .Attr("strides", V{2, 1})
                 .Input(kF, {1, 4, 9, 9})
                 .Input(kF, {6, 4, 3, 3})
                 .Input(kF, {1, 18, 5, 9})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 6, 5, 9}));
  ExpectFail(
      [] {
        RuleTest("DeformConv", 19)
            .Input(kF, {1, 4, 2, 2})
            .Input(kF, {6, 4, 3, 3})
            .Input(kF, {1, 18, 1, 1})
            .Run();
      },
      {"kernel extent"});
}

TEST(InferMaxUnpool, DefaultSizeOrOutputShape) {
  auto out = RuleTest("MaxUnpool", 11)
                 .Attr("kernel_shape", V{2, 2})
                 .Attr("strides", V{2, 2})
                 .Input(kF, {1, 3, 2, -1})
                 .Input(kI64, {1, 3, 2, -1})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{1, 3, 4, -1}));
  auto shaped = RuleTest("MaxUnpool", 11)
                    .Attr("kernel_shape", V{2, 2})
                    .Input(kF, {1, 3, 2, 2})
                    .Input(kI64, {1, 3, 2, 2})
                    .ConstInput<int64_t>({4}, {1, 3, 5, 5})
                    .Run();
  EXPECT_EQ(Dims(shaped[0]), (V{1, 3, 5, 5}));
  ExpectFail(
      [] {
        RuleTest("MaxUnpool", 11)
            .Attr("kernel_shape", V{2})
            .Input(kF, {1, 3, 2, 2})
            .Input(kI64, {1, 3, 2, 2})
            .Run();
      },
      {"input 'X'"});
}

TEST(InferImageDecoder, SizeDependsOnTheDataChannelsOnThePixelFormat) {
  auto rgb = RuleTest("ImageDecoder", 20).Input(DataType::kUint8, {1058}).Run();
  EXPECT_EQ(rgb[0].type, DataType::kUint8);
  EXPECT_EQ(Dims(rgb[0]), (V{-1, -1, 3}));
  auto bgr =
      RuleTest("ImageDecoder", 20).Attr("pixel_format", "BGR").Input(DataType::kUint8, {9}).Run();
  EXPECT_EQ(Dims(bgr[0]), (V{-1, -1, 3}));
  auto gray = RuleTest("ImageDecoder", 20)
                  .Attr("pixel_format", "Grayscale")
                  .Input(DataType::kUint8, {-1})
                  .Run();
  EXPECT_EQ(Dims(gray[0]), (V{-1, -1, 1}));
}

}  // namespace
}  // namespace kiln::infer::testing
