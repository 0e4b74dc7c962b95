// Col2Im, CenterCropPad, DeformConv and MaxUnpool: values against references computed here (a
// direct convolution for DeformConv with zero offsets, overlap counts for Col2Im), every error
// the kernels raise.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using Floats = std::vector<float>;
using Ints = std::vector<int64_t>;

TEST(ImageCol2Im, SumsOverlappingBlocks) {
  // A 3 x 3 image from 2 x 2 blocks at stride 1 (4 positions), every value 1: each pixel gets
  // the number of blocks covering it.
  auto out = NodeTest("Col2Im", 18)
                 .Input<float>({1, 4, 4}, Floats(16, 1))
                 .Input<int64_t>({2}, {3, 3})
                 .Input<int64_t>({2}, {2, 2})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 3, 3}));
  Floats want(9);
  for (size_t y = 0; y < 3; ++y) {
    for (size_t x = 0; x < 3; ++x) {
      const int cy = (y > 0 ? 1 : 0) + (y < 2 ? 1 : 0);
      const int cx = (x > 0 ? 1 : 0) + (x < 2 ? 1 : 0);
      want[y * 3 + x] = static_cast<float>(cy * cx);
    }
  }
  EXPECT_EQ(Values<float>(*out[0]), want);
}

TEST(ImageCol2Im, StridesPadsAndDilations) {
  // 1-D: image 4, block 2 with dilation 2, pad 1 at the start, stride 2: padded length 5,
  // positions 0 and 2 cover padded 0, 2 and 2, 4, i.e. image -1 (dropped), 1, 1, 3.
  auto out = NodeTest("Col2Im", 18)
                 .Attr("dilations", Ints{2})
                 .Attr("pads", Ints{1, 0})
                 .Attr("strides", Ints{2})
                 .Input<double>({1, 2, 2}, {1, 2, 10, 20})
                 .Input<int64_t>({1}, {4})
                 .Input<int64_t>({1}, {2})
                 .Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{0, 12, 0, 20}));
}

TEST(ImageCol2Im, Errors) {
  ExpectNodeError(NodeTest("Col2Im", 18)
                      .Input<float>({1, 4, 3}, Floats(12))
                      .Input<int64_t>({2}, {3, 3})
                      .Input<int64_t>({2}, {2, 2}),
                  ErrorCode::kInvalidArgument, "input 'input'");
  ExpectNodeError(NodeTest("Col2Im", 18)
                      .Input<float>({1, 4, 4}, Floats(16))
                      .Input<int64_t>({2}, {3, 3})
                      .Input<int64_t>({1}, {2}),
                  ErrorCode::kInvalidArgument, "input 'block_shape'");
  ExpectNodeError(NodeTest("Col2Im", 18)
                      .Attr("strides", Ints{1})
                      .Input<float>({1, 4, 4}, Floats(16))
                      .Input<int64_t>({2}, {3, 3})
                      .Input<int64_t>({2}, {2, 2}),
                  ErrorCode::kInvalidArgument, "attribute 'strides'");
  ExpectNodeError(NodeTest("Col2Im", 18)
                      .Attr("dilations", Ints{0, 1})
                      .Input<float>({1, 4, 4}, Floats(16))
                      .Input<int64_t>({2}, {3, 3})
                      .Input<int64_t>({2}, {2, 2}),
                  ErrorCode::kInvalidArgument, "dilations");
}

TEST(ImageCenterCropPad, CropsAndPadsAroundTheCentre) {
  Floats x(12);
  for (size_t i = 0; i < 12; ++i) x[i] = static_cast<float>(i + 1);
  // [4, 3] -> [2, 5]: rows 1-2 kept, one zero column before and one after.
  auto out =
      NodeTest("CenterCropPad", 18).Input<float>({4, 3}, x).Input<int64_t>({2}, {2, 5}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 5}));
  EXPECT_EQ(Values<float>(*out[0]), (Floats{0, 4, 5, 6, 0, 0, 7, 8, 9, 0}));
  // Only axis -1, grown by 3: one zero before, two after.
  auto axes = NodeTest("CenterCropPad", 18)
                  .Attr("axes", Ints{-1})
                  .Input<int32_t>({1, 2}, {1, 2})
                  .Input<int64_t>({1}, {5})
                  .Run();
  EXPECT_EQ(Values<int32_t>(*axes[0]), (std::vector<int32_t>{0, 1, 2, 0, 0}));
}

TEST(ImageCenterCropPad, EmptyTargetAndStrings) {
  auto empty = NodeTest("CenterCropPad", 18)
                   .Input<float>({2, 2}, {1, 2, 3, 4})
                   .Input<int64_t>({2}, {0, 2})
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 2}));
  auto strings = NodeTest("CenterCropPad", 18)
                     .Input<std::string>({2}, {"a", "b"})
                     .Input<int64_t>({1}, {4})
                     .Run();
  EXPECT_EQ(Values<std::string>(*strings[0]), (std::vector<std::string>{"", "a", "b", ""}));
}

TEST(ImageCenterCropPad, Errors) {
  ExpectNodeError(
      NodeTest("CenterCropPad", 18).Input<float>({2, 2}, Floats(4)).Input<int64_t>({1}, {2}),
      ErrorCode::kInvalidArgument, "input 'shape'");
  ExpectNodeError(NodeTest("CenterCropPad", 18)
                      .Attr("axes", Ints{0, -2})
                      .Input<float>({2, 2}, Floats(4))
                      .Input<int64_t>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "attribute 'axes'");
  ExpectNodeError(NodeTest("CenterCropPad", 18)
                      .Attr("axes", Ints{2})
                      .Input<float>({2, 2}, Floats(4))
                      .Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "axes");
  ExpectNodeError(
      NodeTest("CenterCropPad", 18).Input<float>({2, 2}, Floats(4)).Input<int64_t>({2}, {1, -1}),
      ErrorCode::kInvalidArgument, "input 'shape'");
}

// Direct 2-D convolution (stride 1, no padding) of x [1, C, H, W] with w [M, C, kH, kW].
Floats Conv(const Floats& x, int64_t c, int64_t h, int64_t w, const Floats& wt, int64_t m,
            int64_t kh, int64_t kw) {
  Floats y;
  for (int64_t o = 0; o < m; ++o) {
    for (int64_t oy = 0; oy + kh <= h; ++oy) {
      for (int64_t ox = 0; ox + kw <= w; ++ox) {
        float acc = 0;
        for (int64_t ci = 0; ci < c; ++ci) {
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              acc += x[static_cast<size_t>((ci * h + oy + i) * w + ox + j)] *
                     wt[static_cast<size_t>(((o * c + ci) * kh + i) * kw + j)];
            }
          }
        }
        y.push_back(acc);
      }
    }
  }
  return y;
}

void ExpectNear(const Floats& got, const Floats& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << "at " << i;
}

TEST(ImageDeformConv, ZeroOffsetsAreAConvolution) {
  Floats x(size_t{2} * 4 * 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 2;
  const Floats w{1, -1, 2, 0.5f, 0, 1, -2, 1, 3, 1, 1, 1, -1, 0, 0, 2};  // [2, 2, 2, 2]
  auto out = NodeTest("DeformConv", 19)
                 .Input<float>({1, 2, 4, 4}, x)
                 .Input<float>({2, 2, 2, 2}, w)
                 .Input<float>({1, 8, 3, 3}, Floats(72, 0))
                 .Input<float>({2}, {1, -1})
                 .Run(2);
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 3, 3}));
  Floats want = Conv(x, 2, 4, 4, w, 2, 2, 2);
  for (size_t i = 0; i < want.size(); ++i) want[i] += i < 9 ? 1.0f : -1.0f;
  ExpectNear(Values<float>(*out[0]), want);
}

TEST(ImageDeformConv, OffsetsMaskAndGroups) {
  // 1 x 1 kernel on a 1 x 3 image: an offset of +0.5 in x averages neighbours, +1 past the end
  // reads zero; the mask scales each tap.
  auto out = NodeTest("DeformConv", 22)
                 .Attr("group", int64_t{2})
                 .Attr("offset_group", int64_t{2})
                 .Input<float>({1, 2, 1, 3}, {1, 2, 3, 10, 20, 30})
                 .Input<float>({2, 1, 1, 1}, {1, 1})
                 .Input<float>({1, 4, 1, 3}, {0, 0, 0, 0.5f, 0.5f, 1,  // group 0: dy, dx
                                              0, 0, 0, 0, 0, 0})       // group 1
                 .MissingInput()
                 .Input<float>({1, 2, 1, 3}, {1, 1, 1, 2, 2, 0.5f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 1, 3}));
  ExpectNear(Values<float>(*out[0]), {1.5f, 2.5f, 0, 20, 40, 15});
}

TEST(ImageDeformConv, Errors) {
  auto base = [] {
    return NodeTest("DeformConv", 19)
        .Input<float>({1, 2, 3, 3}, Floats(18))
        .Input<float>({2, 2, 2, 2}, Floats(16));
  };
  ExpectNodeError(base().Input<float>({1, 8, 3, 3}, Floats(72)), ErrorCode::kInvalidArgument,
                  "input 'offset'");
  ExpectNodeError(base()
                      .Input<float>({1, 8, 2, 2}, Floats(32))
                      .MissingInput()
                      .Input<float>({1, 4, 2, 3}, Floats(24)),
                  ErrorCode::kInvalidArgument, "input 'mask'");
  ExpectNodeError(base().Input<float>({1, 8, 2, 2}, Floats(32)).Input<float>({3}, Floats(3)),
                  ErrorCode::kInvalidArgument, "input 'B'");
  ExpectNodeError(NodeTest("DeformConv", 19)
                      .Input<float>({1, 2, 3, 3}, Floats(18))
                      .Input<float>({2, 1, 2, 2}, Floats(8))
                      .Input<float>({1, 8, 2, 2}, Floats(32)),
                  ErrorCode::kInvalidArgument, "input 'W'");
  ExpectNodeError(base().Attr("group", int64_t{3}).Input<float>({1, 8, 2, 2}, Floats(32)),
                  ErrorCode::kInvalidArgument, "attributes 'group'");
  ExpectNodeError(base().Attr("strides", Ints{0, 1}).Input<float>({1, 8, 2, 2}, Floats(32)),
                  ErrorCode::kInvalidGraph, "'strides'");
  ExpectNodeError(NodeTest("DeformConv", 19)
                      .Input<float>({1, 2, 3}, Floats(6))
                      .Input<float>({2, 2, 2, 2}, Floats(16))
                      .Input<float>({1, 8, 2, 2}, Floats(32)),
                  ErrorCode::kInvalidArgument, "input 'X'");
}

TEST(ImageMaxUnpool, ScattersToIndices) {
  auto out = NodeTest("MaxUnpool", 11)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("strides", Ints{2, 2})
                 .Input<float>({1, 1, 2, 2}, {5, 6, 7, 8})
                 .Input<int64_t>({1, 1, 2, 2}, {0, 3, 9, 15})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 4, 4}));
  Floats want(16, 0);
  want[0] = 5;
  want[3] = 6;
  want[9] = 7;
  want[15] = 8;
  EXPECT_EQ(Values<float>(*out[0]), want);
  auto shaped = NodeTest("MaxUnpool", 9)
                    .Attr("kernel_shape", Ints{2})
                    .Attr("strides", Ints{2})
                    .Input<double>({1, 1, 2}, {5, 6})
                    .Input<int64_t>({1, 1, 2}, {1, 3})
                    .Input<int64_t>({3}, {1, 1, 5})
                    .Run();
  // The indices refer to the default shape [1, 1, 4]; the larger output keeps the coordinates.
  EXPECT_EQ(Values<double>(*shaped[0]), (std::vector<double>{0, 5, 0, 6, 0}));
}

TEST(ImageMaxUnpool, Errors) {
  auto base = [](const Ints& idx) {
    return NodeTest("MaxUnpool", 11)
        .Attr("kernel_shape", Ints{2})
        .Attr("strides", Ints{2})
        .Input<float>({1, 1, 2}, {5, 6})
        .Input<int64_t>({1, 1, static_cast<int64_t>(idx.size())}, idx);
  };
  ExpectNodeError(base({0, 4}), ErrorCode::kInvalidArgument, "input 'I'");
  ExpectNodeError(base({0, 1, 2}), ErrorCode::kInvalidArgument, "input 'I'");
  ExpectNodeError(base({0, 1}).Input<int64_t>({3}, {2, 1, 4}), ErrorCode::kInvalidArgument,
                  "input 'output_shape'");
  ExpectNodeError(base({0, 3}).Input<int64_t>({3}, {1, 1, 3}), ErrorCode::kInvalidArgument,
                  "outside 'output_shape'");
  ExpectNodeError(
      NodeTest("MaxUnpool", 11).Input<float>({1, 1, 2}, {5, 6}).Input<int64_t>({1, 1, 2}, {0, 1}),
      ErrorCode::kInvalidGraph, "attribute 'kernel_shape'");
  ExpectNodeError(NodeTest("MaxUnpool", 11)
                      .Attr("kernel_shape", Ints{2})
                      .Attr("pads", Ints{1})
                      .Input<float>({1, 1, 2}, {5, 6})
                      .Input<int64_t>({1, 1, 2}, {0, 1}),
                  ErrorCode::kInvalidGraph, "'pads'");
  ExpectNodeError(NodeTest("MaxUnpool", 11)
                      .Attr("kernel_shape", Ints{2, 2})
                      .Input<float>({1, 1, 2}, {5, 6})
                      .Input<int64_t>({1, 1, 2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "input 'X'");
}

}  // namespace
}  // namespace kiln::testing
