// GridSample and AffineGrid: values worked out by hand from the ONNX formulas (bicubic pasted
// from torch.nn.functional.grid_sample, in float64), each opset's mode names, every error the
// kernels raise.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using Floats = std::vector<float>;
using Ints = std::vector<int64_t>;

void ExpectNear(const Floats& got, const Floats& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// X = [[1, 2], [3, 4]] sampled at (x, y) points.
NodeTest Sample2x2(int64_t opset, const char* mode, const char* padding, int64_t align,
                   const Floats& points) {
  return NodeTest("GridSample", opset)
      .Attr("mode", mode)
      .Attr("padding_mode", padding)
      .Attr("align_corners", align)
      .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
      .Input<float>({1, 1, static_cast<int64_t>(points.size() / 2), 2}, points);
}

// com.microsoft GridSample (ONNX Runtime's, from before opset 16) is ONNX's at opset 16: the
// mode names bilinear and bicubic.
TEST(ImageGridSample, MicrosoftDomainFormIsOpset16s) {
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      const Floats points = {-1.2f, -1, 1, 0.7f, 0, 0, 0.3f, -1, 0, -0.4f};
      auto want = Sample2x2(16, mode, padding, 0, points).Run();
      NodeTest ms("GridSample", 1, "com.microsoft");
      ms.Attr("mode", mode)
          .Attr("padding_mode", padding)
          .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
          .Input<float>({1, 1, 5, 2}, points);
      auto got = ms.Run();
      EXPECT_EQ(Values<float>(*got[0]), Values<float>(*want[0])) << mode << " " << padding;
    }
  }
  ExpectNodeError(NodeTest("GridSample", 1, "com.microsoft")
                      .Attr("mode", "linear")
                      .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                      .Input<float>({1, 1, 1, 2}, {0, 0}),
                  ErrorCode::kInvalidGraph, "bilinear, nearest or bicubic");
}

TEST(ImageGridSample, BilinearAlignCorners) {
  auto out = Sample2x2(16, "bilinear", "zeros", 1, {-1, -1, 1, 1, 0, 0, 1, -1, 0, -1}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 1, 5}));
  ExpectNear(Values<float>(*out[0]), {1, 4, 2.5f, 2, 1.5f});
}

TEST(ImageGridSample, LinearWithoutAlignCornersPadsWithZeros) {
  // Without align_corners, x = -1 is the left edge of pixel 0: half of it is outside (zero).
  auto out = Sample2x2(20, "linear", "zeros", 0, {-1, -0.5f, -0.5f, -0.5f, -3, 0}).Run();
  ExpectNear(Values<float>(*out[0]), {0.5f, 1, 0});
}

TEST(ImageGridSample, BorderAndReflection) {
  auto border = Sample2x2(16, "bilinear", "border", 1, {2, 2, -5, 0}).Run();
  ExpectNear(Values<float>(*border[0]), {4, 2});
  // Normalized 2 is pixel 1.5 with align_corners; reflected about pixel 1 it is 0.5. -3 is
  // pixel -1: reflected about 0 and then about 1, it is 1.
  auto reflect = Sample2x2(16, "bilinear", "reflection", 1, {2, 2, 0, -3}).Run();
  ExpectNear(Values<float>(*reflect[0]), {2.5f, 3.5f});
}

TEST(ImageGridSample, NearestRoundsHalfToEven) {
  // Pixel coordinates 0.5 -> 0, 1 -> 1 and 1.5 -> 2 (outside: zero) without align_corners.
  auto out = Sample2x2(20, "nearest", "zeros", 0, {0, 0, 0.5f, 0.5f, 1, 1}).Run();
  ExpectNear(Values<float>(*out[0]), {1, 4, 0});
}

TEST(ImageGridSample, BicubicMatchesTorch) {
  Floats x;
  for (int i = 0; i < 6; ++i) x.push_back(static_cast<float>(i) * 1.5f - 1);
  const Floats grid{-0.8f, -0.6f, 0.3f, 0.9f};
  const struct {
    int64_t align;
    const char* padding;
    Floats want;
  } cases[] = {{0, "zeros", {-0.77745682f, 5.02874374f}},
               {1, "zeros", {-0.02329899f, 7.18227911f}},
               {0, "border", {-0.93962580f, 6.56872129f}}};
  for (const auto& c : cases) {
    auto out = NodeTest("GridSample", 20)
                   .Attr("mode", "cubic")
                   .Attr("padding_mode", c.padding)
                   .Attr("align_corners", c.align)
                   .Input<float>({1, 1, 3, 2}, x)
                   .Input<float>({1, 1, 2, 2}, grid)
                   .Run();
    ExpectNear(Values<float>(*out[0]), c.want, 1e-4f);
  }
}

// Points outside the image under border and reflection padding: cubic pads each of its 16 taps
// and never moves the point (PyTorch and ONNX Runtime; the ONNX reference clamps or reflects
// the point first, which differs once it lies over half a pixel outside). Values from torch.
TEST(ImageGridSample, BicubicPadsTapsNotThePoint) {
  Floats x;
  for (int i = 0; i < 12; ++i) x.push_back(static_cast<float>((i + 1) * (i % 2 == 0 ? 1 : -1)));
  const Floats grid{-1.3f, -0.2f, 1.2f, 0.5f, 0.4f, -1.25f, -2.6f, 1.7f, 3.9f, -3.1f};
  const struct {
    int64_t align;
    const char* padding;
    Floats want;
  } cases[] = {{0, "border", {3.443f, -11.379289f, 1.571077f, 9.0f, -4.0f}},
               {1, "border", {4.812875f, -12.552437f, 2.325805f, 9.189f, -4.0f}},
               {0, "reflection", {2.729618f, -12.683516f, 1.380867f, -3.95956f, -5.53666f}},
               {1, "reflection", {-0.02182f, -6.4165f, 3.007f, 2.020816f, -3.716683f}}};
  for (const auto& c : cases) {
    auto out = NodeTest("GridSample", 16)
                   .Attr("mode", "bicubic")
                   .Attr("padding_mode", c.padding)
                   .Attr("align_corners", c.align)
                   .Input<float>({1, 1, 3, 4}, x)
                   .Input<float>({1, 1, 5, 2}, grid)
                   .Run();
    SCOPED_TRACE(std::string(c.padding) + " align_corners " + std::to_string(c.align));
    ExpectNear(Values<float>(*out[0]), c.want, 1e-4f);
  }
}

// Points far outside (1e30) under cubic reflection: the point is brought back by an exact
// remainder, so every tap index stays defined (UBSan watches the conversions) and values finite.
TEST(ImageGridSample, BicubicReflectionOfHugeCoordinates) {
  for (int64_t align : {0, 1}) {
    auto out = NodeTest("GridSample", 16)
                   .Attr("mode", "bicubic")
                   .Attr("padding_mode", "reflection")
                   .Attr("align_corners", align)
                   .Input<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})
                   .Input<float>({1, 1, 3, 2}, {1e30f, -1e30f, 3e37f, 0.5f, -7e35f, 1e20f})
                   .Run();
    for (float v : Values<float>(*out[0])) EXPECT_TRUE(std::isfinite(v)) << v;
  }
}

TEST(ImageGridSample, VolumetricTrilinearAndChannels) {
  Floats x(16);
  for (size_t i = 0; i < 8; ++i) {
    x[i] = static_cast<float>(i);
    x[8 + i] = 10 * static_cast<float>(i);
  }
  auto out = NodeTest("GridSample", 22)
                 .Attr("align_corners", int64_t{1})
                 .Input<float>({1, 2, 2, 2, 2}, x)
                 .Input<float>({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, 1})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 1, 1, 2}));
  // (x, y, z) = (1, -1, 1) is X[z = 1, y = 0, x = 1] = element 5.
  ExpectNear(Values<float>(*out[0]), {3.5f, 5, 35, 50});
}

TEST(ImageGridSample, DoubleEmptyAndTwoThreads) {
  auto d = NodeTest("GridSample", 16)
               .Input<double>({1, 1, 2, 2}, {1, 2, 3, 4})
               .Input<double>({1, 1, 1, 2}, {0, 0})
               .Run();
  EXPECT_EQ(Values<double>(*d[0]), (std::vector<double>{2.5}));
  auto mixed = NodeTest("GridSample", 16)
                   .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                   .Input<double>({1, 1, 1, 2}, {0, 0})
                   .Run();
  EXPECT_EQ(Values<float>(*mixed[0]), (Floats{2.5f}));
  auto empty = NodeTest("GridSample", 16)
                   .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                   .Input<float>({1, 0, 3, 2}, {})
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({1, 1, 0, 3}));
  Floats x(size_t{2} * 3 * 5 * 7);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i));
  Floats grid(size_t{2} * 9 * 11 * 2);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = 1.3f * std::cos(static_cast<float>(i) * 0.7f);
  auto run = [&](int threads) {
    return Values<float>(*NodeTest("GridSample", 16)
                              .Attr("mode", "bicubic")
                              .Attr("padding_mode", "reflection")
                              .Input<float>({2, 3, 5, 7}, x)
                              .Input<float>({2, 9, 11, 2}, grid)
                              .Run(threads)[0]);
  };
  EXPECT_EQ(run(1), run(2));
}

TEST(ImageGridSample, Errors) {
  ExpectNodeError(Sample2x2(16, "linear", "zeros", 0, {0, 0}), ErrorCode::kInvalidGraph,
                  "attribute 'mode'");
  ExpectNodeError(Sample2x2(20, "bilinear", "zeros", 0, {0, 0}), ErrorCode::kInvalidGraph,
                  "attribute 'mode'");
  ExpectNodeError(Sample2x2(20, "linear", "mirror", 0, {0, 0}), ErrorCode::kInvalidGraph,
                  "attribute 'padding_mode'");
  ExpectNodeError(Sample2x2(20, "linear", "zeros", 2, {0, 0}), ErrorCode::kInvalidGraph,
                  "attribute 'align_corners'");
  ExpectNodeError(NodeTest("GridSample", 16)
                      .Input<float>({1, 1, 1, 1, 1}, {1})
                      .Input<float>({1, 1, 1, 1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "input 'X'");
  ExpectNodeError(NodeTest("GridSample", 20)
                      .Attr("mode", "cubic")
                      .Input<float>({1, 1, 1, 1, 1}, {1})
                      .Input<float>({1, 1, 1, 1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "cubic");
  ExpectNodeError(NodeTest("GridSample", 20)
                      .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                      .Input<float>({1, 1, 1, 3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "input 'grid'");
  ExpectNodeError(NodeTest("GridSample", 20)
                      .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                      .Input<float>({2, 1, 1, 2}, {0, 0, 0, 0}),
                  ErrorCode::kInvalidArgument, "input 'grid'");
  ExpectNodeError(NodeTest("GridSample", 20)
                      .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                      .Input<int64_t>({1, 1, 1, 2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "grid");
  ExpectNodeError(
      NodeTest("GridSample", 20).Input<float>({1, 1, 0, 2}, {}).Input<float>({1, 1, 1, 2}, {0, 0}),
      ErrorCode::kInvalidArgument, "no pixels");
}

TEST(ImageGridSample, NonFiniteCoordinatesReadZeros) {
  const float inf = INFINITY;
  auto out = Sample2x2(20, "linear", "zeros", 0, {NAN, 0, inf, 0, 0, -inf}).Run();
  ExpectNear(Values<float>(*out[0]), {0, 0, 0});
}

TEST(ImageAffineGrid, TwoDimensional) {
  // Identity plus a shift of 0.5 in x.
  auto out = NodeTest("AffineGrid", 20)
                 .Input<float>({1, 2, 3}, {1, 0, 0.5f, 0, 1, 0})
                 .Input<int64_t>({4}, {1, 1, 2, 3})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 3, 2}));
  const float a = 2.0f / 3;
  ExpectNear(Values<float>(*out[0]), {0.5f - a, -0.5f, 0.5f, -0.5f, 0.5f + a, -0.5f, 0.5f - a, 0.5f,
                                      0.5f, 0.5f, 0.5f + a, 0.5f});
  auto aligned = NodeTest("AffineGrid", 20)
                     .Attr("align_corners", int64_t{1})
                     .Input<float>({1, 2, 3}, {2, 0, 0, 0, 1, 0})
                     .Input<int64_t>({4}, {1, 1, 1, 3})
                     .Run();
  // A single row sits at -1 with align_corners.
  ExpectNear(Values<float>(*aligned[0]), {-2, -1, 0, -1, 2, -1});
}

TEST(ImageAffineGrid, ThreeDimensional) {
  // theta maps (x, y, z, 1) to (z, y, x): a swap of x and z.
  auto out = NodeTest("AffineGrid", 20)
                 .Attr("align_corners", int64_t{1})
                 .Input<double>({1, 3, 4}, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0})
                 .Input<int64_t>({5}, {1, 1, 2, 1, 2})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 1, 2, 3}));
  EXPECT_EQ(Values<double>(*out[0]),
            (std::vector<double>{-1, -1, -1, -1, -1, 1, 1, -1, -1, 1, -1, 1}));
}

TEST(ImageAffineGrid, Errors) {
  ExpectNodeError(
      NodeTest("AffineGrid", 20).Input<float>({1, 2, 3}, Floats(6)).Input<int64_t>({3}, {1, 1, 2}),
      ErrorCode::kInvalidArgument, "input 'size'");
  ExpectNodeError(NodeTest("AffineGrid", 20)
                      .Input<float>({1, 3, 4}, Floats(12))
                      .Input<int64_t>({4}, {1, 1, 2, 2}),
                  ErrorCode::kInvalidArgument, "input 'theta'");
  ExpectNodeError(NodeTest("AffineGrid", 20)
                      .Input<float>({1, 2, 3}, Floats(6))
                      .Input<int64_t>({4}, {1, 1, -2, 2}),
                  ErrorCode::kInvalidArgument, "negative");
  ExpectNodeError(NodeTest("AffineGrid", 20)
                      .Attr("align_corners", int64_t{3})
                      .Input<float>({1, 2, 3}, Floats(6))
                      .Input<int64_t>({4}, {1, 1, 2, 2}),
                  ErrorCode::kInvalidGraph, "attribute 'align_corners'");
}

}  // namespace
}  // namespace kiln::testing
