// NhwcConv against the ONNX Conv kernel: X transposed to NCHW, Conv, the activation (and Z) in
// plain C++, transposed back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/nhwc/nhwc_conv_check.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/cpu/nhwc/nhwc_winograd.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nhwc_test::CheckCase;
using nhwc_test::ConvCase;
using nhwc_test::ExpectClose;
using nhwc_test::Random;
using V = std::vector<int64_t>;

std::vector<ConvCase> Cases() {
  std::vector<ConvCase> cases;
  const auto add = [&](ConvCase k) { cases.push_back(std::move(k)); };
  add({.name = "1x1", .c = 8, .m = 12, .kh = 1, .kw = 1});
  add({.name = "1x1 no bias relu",
       .c = 8,
       .m = 12,
       .kh = 1,
       .kw = 1,
       .bias = false,
       .activation = "Relu"});
  add({.name = "1x1 stride 2", .h = 10, .c = 8, .m = 5, .kh = 1, .kw = 1, .strides = {2, 2}});
  add({.name = "3x3 pad 1", .h = 11, .w = 13, .c = 5, .m = 7, .pads = {1, 1, 1, 1}});
  add({.name = "3x3 pad 1 stride 2",
       .h = 11,
       .w = 13,
       .c = 5,
       .m = 7,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .z = true});
  add({.name = "7x7/2 pad 3 C=3",
       .h = 33,
       .w = 31,
       .c = 3,
       .m = 16,
       .kh = 7,
       .kw = 7,
       .strides = {2, 2},
       .pads = {3, 3, 3, 3},
       .activation = "Relu"});
  add({.name = "7x7/2 pad 3 C=4",
       .h = 20,
       .w = 23,
       .c = 4,
       .m = 8,
       .kh = 7,
       .kw = 7,
       .strides = {2, 2},
       .pads = {3, 3, 3, 3}});
  // A first layer's 3×3/2 over 3 channels (runs of 9 floats) on an image large enough for
  // several pixel blocks, which then start and end inside output rows.
  add({.name = "3x3/2 pad 1 C=3, several blocks",
       .h = 96,
       .w = 94,
       .c = 3,
       .m = 32,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .activation = "Swish"});
  add({.name = "5x5", .h = 12, .w = 9, .c = 6, .m = 4, .kh = 5, .kw = 5});
  add({.name = "dilation 2",
       .h = 13,
       .w = 12,
       .c = 4,
       .m = 6,
       .dilations = {2, 2},
       .pads = {2, 2, 2, 2}});
  add({.name = "dilation 2x1 3x2",
       .h = 13,
       .w = 12,
       .c = 4,
       .m = 6,
       .kw = 2,
       .dilations = {2, 1},
       .pads = {1, 0, 2, 1}});
  add({.name = "asymmetric pads",
       .h = 10,
       .w = 7,
       .c = 3,
       .m = 5,
       .strides = {1, 2},
       .pads = {0, 1, 2, 1}});
  add({.name = "SAME_UPPER",
       .h = 10,
       .w = 9,
       .c = 4,
       .m = 5,
       .strides = {2, 2},
       .auto_pad = "SAME_UPPER"});
  add({.name = "SAME_LOWER",
       .h = 10,
       .w = 9,
       .c = 4,
       .m = 5,
       .kh = 4,
       .kw = 4,
       .strides = {2, 3},
       .auto_pad = "SAME_LOWER",
       .z = true});
  add({.name = "VALID", .h = 10, .w = 9, .c = 4, .m = 5, .strides = {2, 2}, .auto_pad = "VALID"});
  add({.name = "depthwise C=70",
       .h = 9,
       .w = 10,
       .c = 70,
       .m = 70,
       .group = 70,
       .pads = {1, 1, 1, 1},
       .activation = "Clip",
       .params = {-0.5f, 0.75f}});
  add({.name = "depthwise C=64 stride 2",
       .h = 9,
       .w = 10,
       .c = 64,
       .m = 64,
       .group = 64,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .z = true});
  add({.name = "depthwise multiplier 2",
       .h = 8,
       .w = 7,
       .c = 6,
       .m = 12,
       .group = 6,
       .pads = {1, 2, 1, 0},
       .bias = false});
  add({.name = "depthwise 5x5 dilation 2",
       .h = 12,
       .w = 11,
       .c = 9,
       .m = 9,
       .kh = 5,
       .kw = 5,
       .group = 9,
       .dilations = {2, 2},
       .auto_pad = "SAME_UPPER"});
  add({.name = "group 2",
       .h = 9,
       .w = 8,
       .c = 8,
       .m = 6,
       .group = 2,
       .pads = {1, 1, 1, 1},
       .z = true});
  add({.name = "group 4", .h = 9, .w = 8, .c = 8, .m = 12, .group = 4, .strides = {2, 1}});
  add({.name = "group 2 1x1", .c = 8, .m = 6, .kh = 1, .kw = 1, .group = 2});
  add({.name = "several blocks 3x3",
       .h = 64,
       .w = 64,
       .c = 16,
       .m = 16,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Swish"});
  add({.name = "several blocks 1x1",
       .h = 56,
       .w = 57,
       .c = 32,
       .m = 24,
       .kh = 1,
       .kw = 1,
       .activation = "HardSwish"});
  add({.name = "several blocks depthwise",
       .h = 60,
       .w = 61,
       .c = 32,
       .m = 32,
       .group = 32,
       .pads = {1, 1, 1, 1}});
  add({.name = "N=1 odd", .n = 1, .h = 5, .w = 3, .c = 1, .m = 3, .kh = 2, .kw = 3});
  // 3×3 stride 1 with 16 to 512 channels: Winograd F(2×2, 3×3), odd and even output sizes, every
  // padding form, more than one panel of output channels, and many tile rows.
  add({.name = "winograd pad 1",
       .c = 16,
       .m = 20,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Relu"});
  add({.name = "winograd no pad", .h = 8, .w = 7, .c = 24, .m = 16});
  add({.name = "winograd uneven pads", .h = 7, .w = 10, .c = 17, .m = 33, .pads = {0, 2, 2, 0}});
  add({.name = "winograd SAME_UPPER", .h = 15, .w = 4, .c = 16, .m = 40, .auto_pad = "SAME_UPPER"});
  add({.name = "winograd 1x1 image",
       .n = 1,
       .h = 1,
       .w = 1,
       .c = 16,
       .m = 16,
       .pads = {1, 1, 1, 1}});
  add({.name = "winograd many tile rows",
       .n = 3,
       .h = 30,
       .w = 29,
       .c = 32,
       .m = 64,
       .pads = {1, 1, 1, 1},
       .bias = false,
       .z = true});
  // Over 16384 C·M (transformed weights over 1 MB): larger blocks, still three of them here.
  add({.name = "winograd large weights, several blocks",
       .n = 1,
       .h = 30,
       .w = 29,
       .c = 128,
       .m = 160,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Relu",
       .w_scale = 0.05f});
  // Known at load to be small (under kWinogradMinPixels): the im2col product instead. The hint is
  // only a hint: an unknown batch (which keeps Winograd), and inputs other than the one it
  // describes.
  add({.name = "winograd channels, 7x7 image known at load",
       .n = 1,
       .h = 7,
       .w = 7,
       .c = 32,
       .m = 40,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Relu",
       .shape_hint = {1, 7, 7, 32}});
  add({.name = "winograd channels, unknown batch of 6x5 images",
       .n = 3,
       .h = 6,
       .w = 5,
       .c = 16,
       .m = 16,
       .pads = {1, 1, 1, 1},
       .shape_hint = {-1, 6, 5, 16}});
  add({.name = "winograd channels, hint of a small image but a large one given",
       .n = 2,
       .h = 17,
       .w = 16,
       .c = 24,
       .m = 24,
       .pads = {1, 1, 1, 1},
       .shape_hint = {1, 7, 7, 24}});
  add({.name = "winograd channels, 8x8 image known at load (stays Winograd)",
       .n = 1,
       .h = 8,
       .w = 8,
       .c = 16,
       .m = 16,
       .pads = {1, 1, 1, 1},
       .shape_hint = {1, 8, 8, 16}});
  add({.name = "winograd channels, hint without height",
       .n = 1,
       .h = 5,
       .w = 5,
       .c = 16,
       .m = 16,
       .pads = {1, 1, 1, 1},
       .shape_hint = {1, -1, 5, 16}});
  // Unfolded rows of 1024 floats are padded past 4 KB (ColStride): a deep layer (the whole image
  // unfolded at 2 threads) and blocks.
  add({.name = "1x1 stride 2, 1024 channels",
       .n = 1,
       .h = 5,
       .w = 6,
       .c = 1024,
       .m = 40,
       .kh = 1,
       .kw = 1,
       .strides = {2, 2},
       .z = true});
  // 1024 products per sum: W scaled like the other deep cases (with W in ±1 the sums reach ±20,
  // where float rounding alone differs by more than the absolute tolerance).
  add({.name = "2x2, 256 channels, blocks",
       .n = 1,
       .h = 20,
       .w = 21,
       .c = 256,
       .m = 33,
       .kh = 2,
       .kw = 2,
       .w_scale = 0.05f});
  add({.name = "3x3 stride 2, 16 channels (not Winograd)",
       .h = 12,
       .w = 12,
       .c = 16,
       .m = 16,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1}});
  return cases;
}

// The hint changes the path, not the result: on a 7×7 image the specialized kernel's bits differ
// from Winograd's (other roundings) while both match Conv (CheckCase above), and a hint of a
// large image, an unknown batch or width, or none, leaves Winograd's bits.
TEST(NhwcConv, SmallImageKnownAtLoadLeavesWinograd) {
  EXPECT_TRUE(cpu::nhwc::WinogradPays(16, 16, 0));
  EXPECT_TRUE(cpu::nhwc::WinogradPays(512, 512, cpu::nhwc::kWinogradMinPixels));
  EXPECT_FALSE(cpu::nhwc::WinogradPays(512, 512, cpu::nhwc::kWinogradMinPixels - 1));
  EXPECT_FALSE(cpu::nhwc::WinogradPays(15, 16, 0));
  EXPECT_FALSE(cpu::nhwc::WinogradPays(16, 513, 0));
  const std::vector<float> x = Random(size_t{7} * 7 * 32, 11);
  const std::vector<float> w = Random(size_t{32} * 32 * 9, 12);
  const auto run = [&](const V& hint) {
    NodeTest t("NhwcConv", 1, "ai.kiln");
    t.Attr("pads", V{1, 1, 1, 1});
    t.Input<float>({1, 7, 7, 32}, x).Input<float>({32, 32, 3, 3}, w, /*constant=*/true);
    if (!hint.empty()) t.ShapeHint(0, Shape(hint));
    return Values<float>(*t.Run()[0]);
  };
  const std::vector<float> winograd = run({});
  EXPECT_NE(run({1, 7, 7, 32}), winograd);
  EXPECT_EQ(run({1, 16, 16, 32}), winograd);
  EXPECT_EQ(run({-1, 7, 7, 32}), winograd);  // the batch may be large
  EXPECT_EQ(run({1, 7, -1, 32}), winograd);
}

// A grouped Winograd layer stays on Winograd on a small image known at load, where a layer of one
// group leaves it (above): a group's transformed weights are small enough to stay in cache.
TEST(NhwcConv, GroupedSmallImageKnownAtLoadStaysOnWinograd) {
  const std::vector<float> x = Random(size_t{7} * 7 * 64, 13);
  const std::vector<float> w = Random(size_t{64} * 32 * 9, 14);
  const auto run = [&](const V& hint) {
    NodeTest t("NhwcConv", 1, "ai.kiln");
    t.Attr("pads", V{1, 1, 1, 1}).Attr("group", int64_t{2});
    t.Input<float>({1, 7, 7, 64}, x).Input<float>({64, 32, 3, 3}, w, /*constant=*/true);
    if (!hint.empty()) t.ShapeHint(0, Shape(hint));
    return Values<float>(*t.Run()[0]);
  };
  EXPECT_EQ(run({1, 7, 7, 64}), run({}));
}

TEST(NhwcConv, MatchesConvOnManyShapes) {
  for (const ConvCase& k : Cases()) {
    CheckCase(k, 1);
    CheckCase(k, 2);
  }
}

// Grouped 3×3 stride-1 layers whose groups are too wide for the narrow-group path run as Winograd
// group by group (RegNet's): two groups of 24, three of 32 channels into 48 features each with a
// batch of 2, Z and Swish, groups of 40 on an image with odd sides, and a small image known at
// load (which stays on Winograd: GroupedSmallImageKnownAtLoadStaysOnWinograd).
TEST(NhwcConv, GroupedWinogradMatchesConv) {
  EXPECT_FALSE(cpu::nhwc::GroupedFits(2, 24, 24));
  EXPECT_TRUE(cpu::nhwc::WinogradPays(24, 24, 0));
  const std::vector<ConvCase> cases = {
      {.name = "2 groups of 24",
       .n = 1,
       .h = 12,
       .w = 10,
       .c = 48,
       .m = 48,
       .group = 2,
       .pads = {1, 1, 1, 1}},
      {.name = "3 groups of 32 into 48",
       .h = 9,
       .w = 14,
       .c = 96,
       .m = 144,
       .group = 3,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Swish",
       .w_scale = 0.3f},
      {.name = "groups of 40, odd sides, no padding",
       .n = 1,
       .h = 13,
       .w = 11,
       .c = 80,
       .m = 80,
       .group = 2,
       .w_scale = 0.3f},
      {.name = "groups of 24 on a small image known at load",
       .n = 1,
       .h = 5,
       .w = 5,
       .c = 48,
       .m = 48,
       .group = 2,
       .pads = {1, 1, 1, 1},
       .shape_hint = {1, 5, 5, 48}},
  };
  for (const ConvCase& k : cases) {
    CheckCase(k, 1);
    CheckCase(k, 2);
  }
}

// Layers where at most 3/4 of the taps reach the image run region by region over their live taps
// only (RunRegions): atrous 3×3 (DeepLabV3's ASPP), a stride and dilations that differ by axis
// over five column bands, regions several blocks long whose blocks end inside rows, and output
// rows no tap reaches (bias, Z and activation alone).
TEST(NhwcConv, LiveTapsByRegionMatchConv) {
  const std::vector<ConvCase> cases = {
      {.name = "atrous d12 on 24x32",
       .n = 1,
       .h = 24,
       .w = 32,
       .c = 16,
       .m = 40,
       .dilations = {12, 12},
       .pads = {12, 12, 12, 12},
       .z = true,
       .activation = "Relu"},
      {.name = "3x5 stride 2x1 dilations 6x4",
       .h = 40,
       .w = 27,
       .c = 5,
       .m = 9,
       .kw = 5,
       .strides = {2, 1},
       .dilations = {6, 4},
       .pads = {6, 8, 6, 8}},
      {.name = "d48 on 96x96, blocks inside rows",
       .n = 1,
       .h = 96,
       .w = 96,
       .c = 3,
       .m = 8,
       .dilations = {48, 48},
       .pads = {48, 48, 48, 48},
       .activation = "Swish"},
      {.name = "rows of padding only",
       .h = 4,
       .w = 40,
       .c = 5,
       .m = 7,
       .pads = {20, 1, 20, 1},
       .z = true,
       .activation = "Sigmoid"},
  };
  for (const ConvCase& k : cases) {
    CheckCase(k, 1);
    CheckCase(k, 2);
  }
}

// Dilated 3×3 stride-1 layers of one group run as Winograd phase by phase (each tile's outputs and
// taps d apart) where most taps read the image: bands of 2·d rows that fit the output exactly and
// ones that do not (a last band missing row phases, column phases with different tile counts),
// dilations that differ by axis with asymmetric pads, SAME padding, an image narrower than a band,
// a batch of 2 with Z, bands too large for one product (256 channels: two rows of tiles at a
// time, four to a band), and a dilation above kWinogradDilation that the input's size, known at
// load, sends to Winograd.
TEST(NhwcConv, DilatedWinogradMatchesConv) {
  const std::vector<ConvCase> cases = {
      {.name = "d2, bands that fit",
       .h = 20,
       .w = 28,
       .c = 16,
       .m = 24,
       .dilations = {2, 2},
       .pads = {2, 2, 2, 2},
       .z = true,
       .activation = "Relu"},
      {.name = "d4, odd sides",
       .n = 1,
       .h = 21,
       .w = 19,
       .c = 32,
       .m = 16,
       .dilations = {4, 4},
       .pads = {4, 4, 4, 4},
       .w_scale = 0.3f},
      {.name = "d2x3, asymmetric pads",
       .n = 1,
       .h = 17,
       .w = 23,
       .c = 20,
       .m = 36,
       .dilations = {2, 3},
       .pads = {2, 1, 3, 4},
       .w_scale = 0.3f},
      {.name = "d3 SAME_UPPER",
       .n = 1,
       .h = 13,
       .w = 17,
       .c = 16,
       .m = 16,
       .dilations = {3, 3},
       .auto_pad = "SAME_UPPER"},
      {.name = "d4, narrower than a band",
       .n = 1,
       .h = 10,
       .w = 5,
       .c = 16,
       .m = 17,
       .dilations = {4, 4},
       .pads = {4, 4, 4, 4},
       .activation = "Swish"},
      {.name = "d4, 256 channels: bands in chunks of rows of tiles",
       .n = 1,
       .h = 20,
       .w = 48,
       .c = 256,
       .m = 256,
       .dilations = {4, 4},
       .pads = {4, 4, 4, 4},
       .w_scale = 0.1f},
      {.name = "d6 on 40x44 known at load",
       .n = 1,
       .h = 40,
       .w = 44,
       .c = 16,
       .m = 16,
       .dilations = {6, 6},
       .pads = {6, 6, 6, 6},
       .shape_hint = {1, 40, 44, 16}},
  };
  for (const ConvCase& k : cases) {
    CheckCase(k, 1);
    CheckCase(k, 2);
  }
}

// Which path a dilated layer takes, seen in its bits (Winograd's roundings differ from the
// product's): dilation 2 runs as Winograd whatever the hint says of a large map, leaves it for a
// map whose taps mostly read padding; dilation 8 runs region by region until a map where its taps
// mostly read the image is known at load. SAME padding counts as its pads: on 8×8 at dilation 2,
// 20 of 24 taps along each axis are live (under 3/4 of the 9 per pixel).
TEST(NhwcConv, DilatedLayerPathFollowsTheLiveTaps) {
  const auto run = [](int64_t d, int64_t side, const V& hint, bool same = false) {
    const std::vector<float> x = Random(static_cast<size_t>(side * side * 16), 21);
    const std::vector<float> w = Random(size_t{16} * 16 * 9, 22);
    NodeTest t("NhwcConv", 1, "ai.kiln");
    if (same) {
      t.Attr("auto_pad", std::string("SAME_UPPER"));
    } else {
      t.Attr("pads", V{d, d, d, d});
    }
    t.Attr("dilations", V{d, d});
    t.Input<float>({1, side, side, 16}, x).Input<float>({16, 16, 3, 3}, w, /*constant=*/true);
    if (!hint.empty()) t.ShapeHint(0, Shape(hint));
    return Values<float>(*t.Run()[0]);
  };
  const std::vector<float> d2 = run(2, 24, {});
  EXPECT_EQ(run(2, 24, {1, 24, 24, 16}), d2);
  EXPECT_EQ(run(2, 24, {-1, 24, -1, 16}), d2);  // the width unknown: the load-time choice
  EXPECT_NE(run(2, 24, {1, 4, 4, 16}), d2);     // 4×4 at dilation 2: 4 of 9 taps live
  const std::vector<float> d8 = run(8, 72, {});
  EXPECT_NE(run(8, 72, {1, 72, 72, 16}), d8);
  EXPECT_EQ(run(8, 72, {1, 20, 20, 16}), d8);
  EXPECT_NE(run(2, 8, {1, 8, 8, 16}, true), run(2, 8, {}, true));
}

// The narrow-group path (nhwc_grouped.cc) takes groups of 2, 4, 8 or 16 channels on both sides
// with M a multiple of 8; the rest stay on the im2col product.
TEST(NhwcConv, NarrowGroupsFit) {
  EXPECT_TRUE(cpu::nhwc::GroupedFits(32, 4, 4));   // ResNeXt
  EXPECT_TRUE(cpu::nhwc::GroupedFits(3, 16, 16));  // RegNet
  EXPECT_TRUE(cpu::nhwc::GroupedFits(8, 2, 2));
  EXPECT_TRUE(cpu::nhwc::GroupedFits(5, 8, 8));
  EXPECT_FALSE(cpu::nhwc::GroupedFits(1, 16, 16));   // one group: dense
  EXPECT_FALSE(cpu::nhwc::GroupedFits(32, 32, 32));  // wide groups fill the micro-kernel
  EXPECT_FALSE(cpu::nhwc::GroupedFits(4, 4, 8));     // C/group != M/group
  EXPECT_FALSE(cpu::nhwc::GroupedFits(3, 2, 2));     // M = 6: not a multiple of 8
  EXPECT_FALSE(cpu::nhwc::GroupedFits(8, 6, 6));
}

// Every form of the narrow-group path against ONNX Conv: each group width, inner tiles of 8 and 4
// columns and edge columns, images narrower than a tile or than the kernel, strides, dilations,
// asymmetric padding, 1×1, 5×5 and 3×1 kernels, a last block of channels narrower than 32, bands
// of rows that cross images, and the epilogue.
TEST(NhwcConv, NarrowGroupsMatchConv) {
  const std::vector<ConvCase> cases = {
      {.name = "q2",
       .h = 9,
       .w = 11,
       .c = 16,
       .m = 16,
       .group = 8,
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Relu"},
      {.name = "q4 tiles", .h = 13, .w = 23, .c = 32, .m = 32, .group = 8, .pads = {1, 1, 1, 1}},
      {.name = "q4 stride 2",
       .h = 15,
       .w = 17,
       .c = 64,
       .m = 64,
       .group = 16,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1}},
      {.name = "q8 40 channels",
       .h = 10,
       .w = 12,
       .c = 40,
       .m = 40,
       .group = 5,
       .pads = {1, 0, 2, 1},
       .z = true},
      {.name = "q16 dilated",
       .h = 12,
       .w = 19,
       .c = 48,
       .m = 48,
       .group = 3,
       .dilations = {2, 2},
       .pads = {2, 2, 2, 2}},
      {.name = "q16 stride 2",
       .n = 2,
       .h = 14,
       .w = 29,
       .c = 48,
       .m = 48,
       .group = 3,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Relu"},
      {.name = "q16 narrow image",
       .h = 7,
       .w = 5,
       .c = 32,
       .m = 32,
       .group = 2,
       .pads = {1, 1, 1, 1}},
      {.name = "q4 1x1", .h = 5, .w = 19, .c = 32, .m = 32, .kh = 1, .kw = 1, .group = 8},
      {.name = "q8 5x5",
       .h = 9,
       .w = 14,
       .c = 16,
       .m = 16,
       .kh = 5,
       .kw = 5,
       .group = 2,
       .pads = {2, 2, 2, 2},
       .bias = false},
      {.name = "q8 3x1",
       .h = 6,
       .w = 9,
       .c = 24,
       .m = 24,
       .kh = 3,
       .kw = 1,
       .group = 3,
       .pads = {1, 0, 1, 0}},
      {.name = "q2 image narrower than the kernel",
       .h = 3,
       .w = 2,
       .c = 8,
       .m = 8,
       .group = 4,
       .pads = {1, 1, 1, 1}},
      {.name = "q4 batch 3 no pad",
       .n = 3,
       .h = 6,
       .w = 30,
       .c = 96,
       .m = 96,
       .group = 24,
       .activation = "Clip",
       .params = {-0.5f, 0.5f}},
  };
  // Groups of 16 run 16-float vectors where the machine has AVX-512: the 8-float path too, forced
  // (on a machine without AVX-512 both passes run it).
  for (const bool avx512 : {true, false}) {
    const cpu::ScopedVectorMathAvx512 scope(avx512);
    for (const ConvCase& k : cases) {
      ASSERT_TRUE(cpu::nhwc::GroupedFits(static_cast<size_t>(k.group),
                                         static_cast<size_t>(k.c / k.group),
                                         static_cast<size_t>(k.m / k.group)))
          << k.name;
      CheckCase(k, 1);
      CheckCase(k, 2);
    }
  }
}

// 271² = 73441 pixels at 2 threads, 64 → 256 channels: 288 blocks. Rounding the block size up
// (256) once put the last block past the end of X, Z and Y (found in review; ASan reports it).
// The blocks now share the pixels out exactly.
TEST(NhwcConv, BlocksCoverTheImageExactly) {
  CheckCase({.name = "73441 pixels",
             .n = 1,
             .h = 271,
             .w = 271,
             .c = 64,
             .m = 256,
             .kh = 1,
             .kw = 1,
             .z = true},
            2);
}

TEST(NhwcConv, EveryActivationWithBiasAndZ) {
  const std::vector<std::pair<std::string, std::vector<float>>> acts = {
      {"Relu", {}},      {"LeakyRelu", {}}, {"LeakyRelu", {0.3f}}, {"Clip", {-0.2f, 0.4f}},
      {"Sigmoid", {}},   {"Tanh", {}},      {"HardSigmoid", {}},   {"HardSigmoid", {0.3f, 0.4f}},
      {"HardSwish", {}}, {"Swish", {}}};
  for (const auto& [name, params] : acts) {
    for (bool depthwise : {false, true}) {
      ConvCase k{.name = name + (depthwise ? " depthwise" : " dense"),
                 .c = 6,
                 .m = 6,
                 .group = depthwise ? 6 : 1,
                 .pads = {1, 1, 1, 1},
                 .z = true,
                 .activation = name,
                 .params = params};
      CheckCase(k, 2);
    }
  }
}

NodeTest Basic(const V& x_shape, const V& w_shape) {
  NodeTest t("NhwcConv", 1, "ai.kiln");
  size_t xn = 1, wn = 1;
  for (int64_t d : x_shape) xn *= static_cast<size_t>(d);
  for (int64_t d : w_shape) wn *= static_cast<size_t>(d);
  t.Input<float>(x_shape, Random(xn, 1)).Input<float>(w_shape, Random(wn, 2), true);
  return t;
}

TEST(NhwcConv, Errors) {
  ExpectNodeError(Basic({1, 4, 4}, {2, 4, 1, 1}), ErrorCode::kInvalidArgument,
                  "input 'X' has shape [1,4,4]");
  ExpectNodeError(Basic({1, 4, 4, 3}, {2, 4, 1, 1}), ErrorCode::kInvalidArgument, "input 'W'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1}), ErrorCode::kInvalidArgument, "input 'W'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {3, 2, 1, 1}).Attr("group", int64_t{2}),
                  ErrorCode::kInvalidArgument, "attribute 'group'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 3, 3}).Attr("kernel_shape", V{2, 2}),
                  ErrorCode::kInvalidArgument, "attribute 'kernel_shape'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1, 1}).Input<float>({3}, {1, 2, 3}),
                  ErrorCode::kInvalidArgument, "input 'B'");
  ExpectNodeError(
      Basic({1, 4, 4, 4}, {2, 4, 1, 1}).MissingInput().Input<float>({1, 4, 4, 3}, Random(48, 3)),
      ErrorCode::kInvalidArgument, "input 'Z' has shape [1,4,4,3]");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1, 1}).Attr("activation", "Gelu"),
                  ErrorCode::kInvalidGraph, "attribute 'activation'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1, 1}).Attr("activation", "Clip"),
                  ErrorCode::kInvalidGraph, "attribute 'activation_params'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1, 1})
                      .Attr("activation", "Relu")
                      .Attr("activation_params", std::vector<float>{1.0f}),
                  ErrorCode::kInvalidGraph, "attribute 'activation_params'");
  ExpectNodeError(Basic({1, 4, 4, 4}, {2, 4, 1, 1}).Attr("strides", V{0, 1}),
                  ErrorCode::kInvalidArgument, "attribute 'strides'");
  ExpectNodeError(Basic({1, 2, 2, 4}, {2, 4, 3, 3}), ErrorCode::kInvalidArgument, "input 'X'");
  // W computed at run time: NhwcConv packs it once at creation.
  ExpectNodeError(NodeTest("NhwcConv", 1, "ai.kiln")
                      .Input<float>({1, 4, 4, 4}, Random(64, 1))
                      .Input<float>({2, 4, 1, 1}, Random(8, 2)),
                  ErrorCode::kInvalidGraph, "input 'W'");
  ExpectNodeError(NodeTest("NhwcConv", 1, "ai.kiln")
                      .Input<double>({1, 1, 1, 1}, {1.0})
                      .Input<float>({1, 1, 1, 1}, {1.0f}, true),
                  ErrorCode::kNotImplemented, "double");
  ExpectNodeError(NodeTest("NhwcConv", 1, "ai.kiln")
                      .Input<float>({1, 1, 1, 1}, {1.0f})
                      .Input<double>({1, 1, 1, 1}, {1.0}, true),
                  ErrorCode::kNotImplemented, "input 'W'");
}

// input_channels: X in parts along the channels (inputs 0, 4, 5, ...), as nhwc_concat_split
// leaves a 1×1 convolution of a Concat; the same as the convolution of the concatenation, with B,
// Z and an activation, at 1 and 2 threads.
void CheckParts(int64_t n, int64_t h, int64_t w, const std::vector<int64_t>& parts) {
  const int64_t m = 7;
  int64_t c = 0;
  for (int64_t part : parts) c += part;
  std::vector<std::vector<float>> xs;
  std::vector<float> joined(static_cast<size_t>(n * h * w * c));
  int64_t start = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    xs.push_back(Random(static_cast<size_t>(n * h * w * parts[i]), 10 + static_cast<unsigned>(i)));
    for (int64_t pix = 0; pix < n * h * w; ++pix) {
      for (int64_t k = 0; k < parts[i]; ++k) {
        joined[static_cast<size_t>(pix * c + start + k)] =
            xs[i][static_cast<size_t>(pix * parts[i] + k)];
      }
    }
    start += parts[i];
  }
  const std::vector<float> weights = Random(static_cast<size_t>(m * c), 20);
  const std::vector<float> bias = Random(static_cast<size_t>(m), 21);
  const std::vector<float> z = Random(static_cast<size_t>(n * h * w * m), 22);
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    auto want = NodeTest("NhwcConv", 1, "ai.kiln")
                    .Attr("activation", "Relu")
                    .Input<float>({n, h, w, c}, joined)
                    .Input<float>({m, c, 1, 1}, weights, true)
                    .Input<float>({m}, bias)
                    .Input<float>({n, h, w, m}, z)
                    .Run(threads);
    NodeTest split("NhwcConv", 1, "ai.kiln");
    split.Attr("activation", "Relu")
        .Attr("input_channels", parts)
        .Input<float>({n, h, w, parts[0]}, xs[0])
        .Input<float>({m, c, 1, 1}, weights, true)
        .Input<float>({m}, bias)
        .Input<float>({n, h, w, m}, z);
    for (size_t i = 1; i < parts.size(); ++i) split.Input<float>({n, h, w, parts[i]}, xs[i]);
    auto got = split.Run(threads);
    ASSERT_EQ(got[0]->shape(), want[0]->shape());
    ExpectClose(Values<float>(*got[0]), Values<float>(*want[0]), "input_channels");
  }
}

// Enough pixels for blocks per thread, and a deep layer's few (25: the whole image at once, each
// part's product split over the pool), there with more parts than SmallVector keeps inline.
TEST(NhwcConv, InputInPartsMatchesTheConcatenation) {
  CheckParts(2, 9, 23, {3, 5, 2});
  CheckParts(1, 5, 5, {2, 1, 3, 1, 1, 2, 1, 1, 4, 2});
}

TEST(NhwcConv, InputInPartsErrors) {
  const auto split = [](const V& parts, const V& w_shape, const V& x1_shape) {
    NodeTest t("NhwcConv", 1, "ai.kiln");
    t.Attr("input_channels", parts)
        .Input<float>({1, 4, 4, 3}, Random(48, 1))
        .Input<float>(
            w_shape,
            Random(static_cast<size_t>(w_shape[0] * w_shape[1] * w_shape[2] * w_shape[3]), 2), true)
        .MissingInput()
        .MissingInput();
    size_t n1 = 1;
    for (int64_t d : x1_shape) n1 *= static_cast<size_t>(d);
    if (!x1_shape.empty()) t.Input<float>(x1_shape, Random(n1, 3));
    return t;
  };
  ExpectNodeError(split({3, 2}, {2, 6, 1, 1}, {1, 4, 4, 2}), ErrorCode::kInvalidArgument,
                  "adds up to 5 channels, but input 'W' has 6");
  ExpectNodeError(split({3}, {2, 3, 1, 1}, {}), ErrorCode::kInvalidArgument, "at least 2");
  ExpectNodeError(split({3, 0}, {2, 3, 1, 1}, {1, 4, 4, 0}), ErrorCode::kInvalidArgument,
                  "each must be positive");
  ExpectNodeError(split({3, 2}, {2, 5, 3, 3}, {1, 4, 4, 2}), ErrorCode::kInvalidArgument,
                  "needs a 1×1 kernel in one group");
  ExpectNodeError(split({3, 2}, {2, 5, 1, 1}, {}), ErrorCode::kInvalidArgument, "needs 5 inputs");
  ExpectNodeError(split({3, 2}, {2, 5, 1, 1}, {1, 4, 4, 3}), ErrorCode::kInvalidArgument,
                  "input 4 (X part 1) is float [1,4,4,3]");
  ExpectNodeError(split({3, 2}, {2, 5, 1, 1}, {1, 4, 5, 2}), ErrorCode::kInvalidArgument,
                  "X part 1");
  ExpectNodeError(split({3, 2}, {2, 5, 1, 1}, {1, 4, 4, 2}).Attr("strides", V{2, 2}),
                  ErrorCode::kInvalidArgument, "stride 1 and no padding");
}

// channel_scale: the product of X·S, S per image ([N, 1, 1, C]) or shared ([1, 1, 1, C]), and
// with channel_shift and channel_relu of max(X·S + T, 0) (each alone too), against the NhwcConv
// of X already so transformed, with B, Z and an activation, at 1 and 2 threads.
void CheckChannelAffine(int64_t n, int64_t h, int64_t w, int64_t c, bool shift, bool relu) {
  const int64_t m = 5;
  const std::vector<float> x = Random(static_cast<size_t>(n * h * w * c), 30);
  const std::vector<float> weights = Random(static_cast<size_t>(m * c), 31);
  const std::vector<float> bias = Random(static_cast<size_t>(m), 32);
  const std::vector<float> z = Random(static_cast<size_t>(n * h * w * m), 33);
  const std::vector<float> t = Random(static_cast<size_t>(c), 35);
  for (int64_t scale_images : {n, int64_t{1}}) {
    const std::vector<float> s = Random(static_cast<size_t>(scale_images * c), 34);
    std::vector<float> scaled(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t image = scale_images == 1 ? 0 : i / static_cast<size_t>(h * w * c);
      const size_t ch = i % static_cast<size_t>(c);
      scaled[i] = x[i] * s[image * static_cast<size_t>(c) + ch] + (shift ? t[ch] : 0.0f);
      if (relu) scaled[i] = std::max(scaled[i], 0.0f);
    }
    for (int threads : {1, 2}) {
      SCOPED_TRACE("S images " + std::to_string(scale_images) + ", threads " +
                   std::to_string(threads) + ", shift " + std::to_string(shift) + ", relu " +
                   std::to_string(relu));
      const auto run = [&](const std::vector<float>& input, bool with_scale) {
        NodeTest nt("NhwcConv", 1, "ai.kiln");
        nt.Attr("activation", "Relu")
            .Input<float>({n, h, w, c}, input)
            .Input<float>({m, c, 1, 1}, weights, true)
            .Input<float>({m}, bias)
            .Input<float>({n, h, w, m}, z);
        if (with_scale) {
          nt.Attr("channel_scale", int64_t{1}).Input<float>({scale_images, 1, 1, c}, s);
          if (shift) nt.Attr("channel_shift", int64_t{1}).Input<float>({1, 1, 1, c}, t);
          if (relu) nt.Attr("channel_relu", int64_t{1});
        }
        return Values<float>(*nt.Run(threads)[0]);
      };
      ExpectClose(run(x, true), run(scaled, false), "channel_scale");
    }
  }
}

void CheckChannelScale(int64_t n, int64_t h, int64_t w, int64_t c = 9) {
  for (const bool shift : {false, true}) {
    for (const bool relu : {false, true}) CheckChannelAffine(n, h, w, c, shift, relu);
  }
}

// Enough pixels for blocks per thread, and a deep layer's few (the whole image scaled at once).
TEST(NhwcConv, ChannelScaleMatchesScalingFirst) {
  CheckChannelScale(2, 11, 13);
  CheckChannelScale(2, 3, 4);
  // 1024 channels: the scaled copy's rows are padded past 4 KB (ColStride).
  CheckChannelScale(2, 11, 13, 1024);
  CheckChannelScale(1, 3, 4, 1024);
}

TEST(NhwcConv, ChannelScaleErrors) {
  const auto scaled = [](const V& w_shape, const V& s_shape) {
    NodeTest t("NhwcConv", 1, "ai.kiln");
    t.Attr("channel_scale", int64_t{1})
        .Input<float>({2, 4, 4, 3}, Random(96, 1))
        .Input<float>(
            w_shape,
            Random(static_cast<size_t>(w_shape[0] * w_shape[1] * w_shape[2] * w_shape[3]), 2), true)
        .MissingInput()
        .MissingInput();
    size_t count = 1;
    for (int64_t d : s_shape) count *= static_cast<size_t>(d);
    if (!s_shape.empty()) t.Input<float>(s_shape, Random(count, 3));
    return t;
  };
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 4}), ErrorCode::kInvalidArgument,
                  "input 4 (S) is float [2,1,1,4]; it must be float [2 or 1, 1, 1, 3]");
  ExpectNodeError(scaled({2, 3, 1, 1}, {3, 1, 1, 3}), ErrorCode::kInvalidArgument, "input 4 (S)");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 2, 1, 3}), ErrorCode::kInvalidArgument, "input 4 (S)");
  ExpectNodeError(scaled({2, 3, 1, 1}, {}), ErrorCode::kInvalidArgument, "and input 4 (S)");
  ExpectNodeError(scaled({2, 3, 3, 3}, {2, 1, 1, 3}), ErrorCode::kInvalidArgument,
                  "needs a 1×1 kernel in one group");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3}).Attr("pads", V{1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "stride 1 and no padding");
  // channel_shift: T [1, 1, 1, C] as input 5, the last; channel_relu; both need channel_scale.
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3}).Attr("channel_shift", int64_t{1}),
                  ErrorCode::kInvalidArgument, "and input 5 (T), the last");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3})
                      .Attr("channel_shift", int64_t{1})
                      .Input<float>({1, 1, 1, 4}, Random(4, 4)),
                  ErrorCode::kInvalidArgument,
                  "input 5 (T) is float [1,1,1,4]; it must be float [1, 1, 1, 3]");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3})
                      .Attr("channel_shift", int64_t{1})
                      .Input<float>({2, 1, 1, 3}, Random(6, 4)),
                  ErrorCode::kInvalidArgument, "input 5 (T)");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3}).Input<float>({1, 1, 1, 3}, Random(3, 4)),
                  ErrorCode::kInvalidArgument, "and input 4 (S), the last");
  ExpectNodeError(NodeTest("NhwcConv", 1, "ai.kiln")
                      .Attr("channel_relu", int64_t{1})
                      .Input<float>({1, 2, 2, 3}, Random(12, 1))
                      .Input<float>({2, 3, 1, 1}, Random(6, 2), true),
                  ErrorCode::kInvalidArgument, "'channel_relu' needs attribute 'channel_scale'");
  ExpectNodeError(scaled({2, 3, 1, 1}, {2, 1, 1, 3}).Attr("channel_shift", int64_t{3}),
                  ErrorCode::kInvalidArgument, "'channel_shift' is 3; it must be 0 or 1");
  ExpectNodeError(NodeTest("NhwcConv", 1, "ai.kiln")
                      .Attr("channel_scale", int64_t{2})
                      .Input<float>({1, 2, 2, 3}, Random(12, 1))
                      .Input<float>({2, 3, 1, 1}, Random(6, 2), true),
                  ErrorCode::kInvalidArgument, "must be 0 or 1");
}

}  // namespace
}  // namespace kiln::testing
