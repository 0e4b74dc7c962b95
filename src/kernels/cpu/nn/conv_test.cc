// Conv: values against references computed with torch from nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;
using nn_test::Vec;

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(NnConv, TwoDWithAndWithoutPadding) {
  const std::vector<float> ones(9, 1.0f);
  auto padded = NodeTest("Conv", 11)
                    .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                    .Input<float>({1, 1, 5, 5}, Iota(25))
                    .Input<float>({1, 1, 3, 3}, ones)
                    .Run();
  EXPECT_EQ(padded[0]->shape(), Shape({1, 1, 5, 5}));
  EXPECT_EQ(Values<float>(*padded[0]),
            (std::vector<float>{12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                                117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84}));
  auto plain = NodeTest("Conv", 1)
                   .Attr("kernel_shape", std::vector<int64_t>{3, 3})
                   .Input<float>({1, 1, 5, 5}, Iota(25))
                   .Input<float>({1, 1, 3, 3}, ones)
                   .Run();
  EXPECT_EQ(plain[0]->shape(), Shape({1, 1, 3, 3}));
  EXPECT_EQ(Values<float>(*plain[0]),
            (std::vector<float>{54, 63, 72, 99, 108, 117, 144, 153, 162}));
}

TEST(NnConv, GroupsStridesDilationsAsymmetricPadsBias) {
  auto out = NodeTest("Conv", 22)
                 .Attr("group", int64_t{2})
                 .Attr("strides", std::vector<int64_t>{2, 1})
                 .Attr("dilations", std::vector<int64_t>{1, 2})
                 .Attr("pads", std::vector<int64_t>{1, 0, 2, 1})
                 .Input<float>({1, 2, 5, 6}, Pattern(60))
                 .Input<float>({4, 1, 3, 2}, Pattern(24, 5), true)
                 .Input<float>({4}, {0.5f, -0.25f, 1.0f, -1.0f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 4, 3, 5}));
  ExpectNear(
      Values<float>(*out[0]),
      {0.90625f,  -0.515625f, 1.25f,      -0.703125f, 1.0625f,   1.515625f,  -1.640625f, 1.84375f,
       -1.3125f,  1.859375f,  1.46875f,   -1.140625f, 1.5625f,   0.8125f,    1.40625f,   0.46875f,
       0.21875f,  -0.296875f, -0.015625f, -1.09375f,  0.1875f,   0.25f,      0.046875f,  0.109375f,
       -1.65625f, 0.078125f,  -0.296875f, 0.125f,     0.546875f, -0.828125f, 1.265625f,  1.125f,
       1.78125f,  -0.484375f, 1.75f,      1.8125f,    0.578125f, 1.734375f,  0.234375f,  0.1875f,
       1.75f,     -0.109375f, 1.484375f,  1.484375f,  0.328125f, -0.59375f,  -1.15625f,  -0.921875f,
       -0.15625f, -1.875f,    -0.890625f, -1.296875f, -2.5f,     0.28125f,   -0.125f,    -1.0625f,
       -0.6875f,  -2.4375f,   -0.203125f, -0.1875f},
      1e-6);
}

TEST(NnConv, OneDBatchOfTwo) {
  auto out = NodeTest("Conv", 11)
                 .Attr("strides", std::vector<int64_t>{2})
                 .Attr("pads", std::vector<int64_t>{1, 1})
                 .Input<float>({2, 3, 7}, Pattern(42))
                 .Input<float>({2, 3, 3}, Pattern(18, 3))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2, 4}));
  ExpectNear(Values<float>(*out[0]),
             {0.53125f, -0.125f, 2.171875f, 0.46875f, 0.015625f, 0.984375f, -1.46875f, -0.96875f,
              0.890625f, 0.75f, -0.671875f, -0.9375f, -1.53125f, -0.46875f, -0.265625f, 0.5f},
             1e-6);
}

TEST(NnConv, ThreeD) {
  auto out = NodeTest("Conv", 11)
                 .Attr("strides", std::vector<int64_t>{1, 2, 1})
                 .Attr("pads", std::vector<int64_t>{1, 0, 1, 0, 1, 0})
                 .Input<float>({1, 2, 4, 4, 3}, Pattern(96))
                 .Input<float>({2, 2, 2, 3, 2}, Pattern(48, 5))
                 .Input<float>({2}, {0.25f, -0.5f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 4, 2, 3}));
  ExpectNear(Values<float>(*out[0]),
             {1.40625f,   -1.390625f, -0.671875f, 0.3125f,    -1.1875f,   2.0f,       -0.65625f,
              2.65625f,   -1.015625f, 0.484375f,  -1.9375f,   -0.03125f,  -1.640625f, -1.03125f,
              1.140625f,  0.453125f,  -1.90625f,  0.53125f,   -1.5625f,   -1.0f,      0.90625f,
              0.421875f,  -1.078125f, 1.625f,     0.359375f,  -2.34375f,  -3.234375f, -0.4375f,
              -1.765625f, 1.234375f,  -1.5625f,   2.109375f,  -3.453125f, -0.328125f, -2.46875f,
              -0.9375f,   -2.203125f, -1.15625f,  -0.875f,    -0.484375f, -2.6875f,   -0.359375f,
              -2.3125f,   -1.234375f, -0.6875f,   -0.640625f, -1.84375f,  1.015625f},
             1e-6);
}

// A convolution computed directly in double: y[n, m, o...] = b[m] + Σ over the group's channels
// and the taps inside the image of x · w. Any spatial rank.
struct DirectCase {
  const char* name;
  std::vector<int64_t> x, w;
  int64_t group = 1;
  std::vector<int64_t> strides = {}, dilations = {}, pads = {};
};

std::vector<double> DirectConv(const DirectCase& k, const std::vector<float>& x,
                               const std::vector<float>& w, const std::vector<float>& b,
                               std::vector<int64_t>* y_dims) {
  const size_t rank = k.x.size() - 2;
  auto at = [](const std::vector<int64_t>& v, size_t d, int64_t dflt) {
    return v.empty() ? dflt : v[d];
  };
  std::vector<int64_t> out(rank);
  *y_dims = {k.x[0], k.w[0]};
  size_t out_size = 1, in_size = 1, kernel_size = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t extent = (k.w[d + 2] - 1) * at(k.dilations, d, 1) + 1;
    out[d] =
        (k.x[d + 2] + at(k.pads, d, 0) + at(k.pads, d + rank, 0) - extent) / at(k.strides, d, 1) +
        1;
    y_dims->push_back(out[d]);
    out_size *= static_cast<size_t>(out[d]);
    in_size *= static_cast<size_t>(k.x[d + 2]);
    kernel_size *= static_cast<size_t>(k.w[d + 2]);
  }
  const int64_t cg = k.x[1] / k.group, mg = k.w[0] / k.group;
  std::vector<double> y(static_cast<size_t>(k.x[0] * k.w[0]) * out_size);
  std::vector<int64_t> o(rank), t(rank);
  for (int64_t n = 0; n < k.x[0]; ++n) {
    for (int64_t m = 0; m < k.w[0]; ++m) {
      const int64_t grp = m / mg;
      for (size_t q = 0; q < out_size; ++q) {
        size_t rest = q;
        for (size_t d = rank; d-- > 0;) {
          o[d] = static_cast<int64_t>(rest % static_cast<size_t>(out[d]));
          rest /= static_cast<size_t>(out[d]);
        }
        double sum = b.empty() ? 0.0 : b[static_cast<size_t>(m)];
        for (size_t tap = 0; tap < kernel_size; ++tap) {
          size_t tr = tap;
          for (size_t d = rank; d-- > 0;) {
            t[d] = static_cast<int64_t>(tr % static_cast<size_t>(k.w[d + 2]));
            tr /= static_cast<size_t>(k.w[d + 2]);
          }
          int64_t offset = 0;
          bool inside = true;
          for (size_t d = 0; d < rank && inside; ++d) {
            const int64_t i =
                o[d] * at(k.strides, d, 1) + t[d] * at(k.dilations, d, 1) - at(k.pads, d, 0);
            inside = i >= 0 && i < k.x[d + 2];
            offset = offset * k.x[d + 2] + i;
          }
          if (!inside) continue;
          for (int64_t c = 0; c < cg; ++c) {
            const size_t xi = static_cast<size_t>((n * k.x[1] + grp * cg + c)) * in_size +
                              static_cast<size_t>(offset);
            const size_t wi = static_cast<size_t>(m * cg + c) * kernel_size + tap;
            sum += static_cast<double>(x[xi]) * static_cast<double>(w[wi]);
          }
        }
        y[static_cast<size_t>(n * k.w[0] + m) * out_size + q] = sum;
      }
    }
  }
  return y;
}

// Conv (with a bias) on Pattern inputs against the direct sum in double, on 1 and 3 threads.
void ExpectMatchesDirect(const DirectCase& k) {
  size_t xn = 1, wn = 1;
  for (int64_t d : k.x) xn *= static_cast<size_t>(d);
  for (int64_t d : k.w) wn *= static_cast<size_t>(d);
  const std::vector<float> x = Pattern(xn, 5), w = Pattern(wn, 3),
                           b = Pattern(static_cast<size_t>(k.w[0]), 11);
  std::vector<int64_t> y_dims;
  const std::vector<double> want = DirectConv(k, x, w, b, &y_dims);
  for (int threads : {1, 3}) {
    SCOPED_TRACE(std::string(k.name) + ", threads " + std::to_string(threads));
    NodeTest t("Conv", 11);
    if (k.group != 1) t.Attr("group", k.group);
    if (!k.strides.empty()) t.Attr("strides", k.strides);
    if (!k.dilations.empty()) t.Attr("dilations", k.dilations);
    if (!k.pads.empty()) t.Attr("pads", k.pads);
    auto out = t.Input<float>(k.x, x).Input<float>(k.w, w).Input<float>({k.w[0]}, b).Run(threads);
    ASSERT_EQ(out[0]->shape(), Shape(y_dims));
    const std::vector<float> got = Values<float>(*out[0]);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!(std::fabs(got[i] - want[i]) <= 1e-4 + 1e-5 * std::fabs(want[i])) && bad++ == 0) {
        first = i;
      }
    }
    EXPECT_EQ(bad, 0u) << "first at element " << first << ": " << got[first] << " vs "
                       << want[first];
  }
}

// Float convolutions run strip by strip (2 MB of unfolded columns at a time, in a per-thread
// buffer): deep enough that strips are narrow and cut through output rows, with groups, strides,
// dilations and asymmetric pads in 1-D, 2-D and 3-D, on 1 and 3 threads (where a grid of fewer
// than 6 strips takes the whole-image path instead), against the direct sum in double.
TEST(NnConv, StripsMatchDirectConvolution) {
  const std::vector<DirectCase> cases = {
      {.name = "3-D, 200 channels, 3x3x3 on planes of 6x9 (too small for frames): strips of 96",
       .x = {2, 200, 4, 6, 9},
       .w = {5, 200, 3, 3, 3},
       .pads = {1, 1, 1, 1, 1, 1}},
      {.name = "3-D (1,3,3), strided: one strip an image",
       .x = {2, 24, 5, 12, 13},
       .w = {9, 24, 1, 3, 3},
       .strides = {1, 2, 1},
       .pads = {0, 1, 0, 0, 1, 2}},
      {.name = "2-D, 2 groups, strides, dilations: strips of 96",
       .x = {2, 1200, 20, 23},
       .w = {6, 600, 3, 3},
       .group = 2,
       .strides = {2, 1},
       .dilations = {1, 2},
       .pads = {1, 0, 2, 1}},
      {.name = "1-D, dilated, strided: strips of 64",
       .x = {2, 1200, 400},
       .w = {4, 1200, 5},
       .strides = {2},
       .dilations = {3},
       .pads = {2, 1}},
      {.name = "3-D pointwise: strips of 1024", .x = {1, 16, 3, 20, 20}, .w = {8, 16, 1, 1, 1}},
      {.name = "2-D, 4 groups, kernel wider than the map",
       .x = {1, 8, 3, 70},
       .w = {8, 2, 5, 3},
       .group = 4,
       .pads = {3, 1, 3, 1}},
  };
  for (const DirectCase& k : cases) ExpectMatchesDirect(k);
}

// Kernels of two frames or more (the first spatial axis) unfold each input frame once, over the
// other axes, and take one product per output frame over a slice of the unfolded frames: (kt, 1,
// 1) kernels, 3×3×3 and (3, 7, 7) ones with spatial strides, dilations and pads,
// temporal padding (asymmetric), strides, groups, batches, planes that end in a partial panel,
// and (1000 or 200 channels) blocks of 128 or 96 positions with a product deeper than one depth
// block; on 1 and 3 threads (3 threads over a single block split the output frames into runs),
// against the direct sum in double.
TEST(NnConv, FramesUnfoldedOnceMatchDirectConvolution) {
  const std::vector<DirectCase> cases = {
      {.name = "3-D (3,1,1), padded",
       .x = {2, 12, 5, 9, 11},
       .w = {10, 12, 3, 1, 1},
       .pads = {1, 0, 0, 1, 0, 0}},
      {.name = "3-D (7,1,1), stride 2, asymmetric pads, 2 groups",
       .x = {1, 8, 9, 10, 13},
       .w = {6, 4, 7, 1, 1},
       .group = 2,
       .strides = {2, 1, 1},
       .pads = {3, 0, 0, 2, 0, 0}},
      {.name = "3-D (5,1,1), stride 3",
       .x = {2, 6, 8, 4, 25},
       .w = {7, 6, 5, 1, 1},
       .strides = {3, 1, 1},
       .pads = {2, 0, 0, 1, 0, 0}},
      {.name = "3-D 3x3x3, padded",
       .x = {2, 24, 5, 9, 11},
       .w = {10, 24, 3, 3, 3},
       .pads = {1, 1, 1, 1, 1, 1}},
      {.name = "3-D 3x3x3, strides 2, asymmetric pads, 2 groups",
       .x = {1, 8, 7, 16, 17},
       .w = {6, 4, 3, 3, 3},
       .group = 2,
       .strides = {2, 2, 2},
       .pads = {1, 1, 0, 0, 1, 1}},
      {.name = "3-D (3,7,7) stem, stride (1,2,2)",
       .x = {1, 3, 6, 24, 30},
       .w = {8, 3, 3, 7, 7},
       .strides = {1, 2, 2},
       .pads = {1, 3, 3, 1, 3, 3}},
      {.name = "3-D (2,3,3), spatial dilation 2",
       .x = {1, 5, 4, 12, 14},
       .w = {4, 5, 2, 3, 3},
       .dilations = {1, 2, 2},
       .pads = {0, 2, 2, 1, 2, 2}},
      {.name = "3-D 3x3x3, 200 channels: blocks of 96",
       .x = {1, 200, 4, 10, 20},
       .w = {3, 200, 3, 3, 3},
       .pads = {1, 1, 1, 1, 1, 1}},
      {.name = "3-D (3,1,1), 1000 channels: blocks of 128",
       .x = {1, 1000, 6, 10, 20},
       .w = {3, 1000, 3, 1, 1},
       .pads = {1, 0, 0, 1, 0, 0}},
  };
  for (const DirectCase& k : cases) ExpectMatchesDirect(k);
}

constexpr float kDepthwise[] = {
    0.390625f,  -2.25f,     -2.34375f,  0.28125f,   -0.875f,    -2.15625f,  -0.390625f, -0.03125f,
    -1.703125f, -1.71875f,  1.109375f,  -0.109375f, -2.71875f,  0.984375f,  0.5625f,    -2.03125f,
    -2.078125f, 0.734375f,  0.359375f,  -0.78125f,  -0.296875f, 1.03125f,   -1.140625f, -1.078125f,
    1.140625f,  -0.46875f,  -1.015625f, 0.359375f,  1.890625f,  0.59375f,   0.0f,       2.609375f,
    2.8125f,    0.015625f,  2.109375f,  1.9375f,    0.796875f,  0.859375f,  -0.171875f, 1.953125f,
    -1.8125f,   0.4375f,    2.34375f,   2.1875f,    0.140625f,  -0.015625f, 3.109375f,  -0.359375f,
    -0.5625f,   3.296875f,  0.71875f,   0.140625f,  0.359375f,  2.015625f,  -2.359375f, -2.1875f,
    -2.34375f,  -0.046875f, -2.390625f, -1.8125f,   -0.203125f, -1.9375f,   -1.421875f, 1.0625f,
    1.234375f,  -0.421875f, -0.59375f,  1.953125f,  -0.09375f,  -2.15625f,  1.390625f,  0.171875f,
    0.171875f,  -0.59375f,  -0.390625f, 0.5625f,    -1.140625f, -0.078125f, 0.703125f,  -0.65625f,
    -0.828125f, 0.921875f,  2.140625f,  -1.40625f,  0.65625f,   2.703125f,  0.15625f,   0.328125f,
    1.984375f,  1.8125f,    0.78125f,   0.109375f,  -0.359375f, 0.28125f,   0.5f,       -0.5625f,
    2.34375f,   -1.0625f,   0.234375f,  1.515625f,  -0.234375f, 0.203125f,  0.75f,      3.046875f,
    -0.75f,     -0.171875f, 3.015625f,  -0.328125f};

NodeTest DepthwiseTest() {
  NodeTest t("Conv", 11);
  t.Attr("group", int64_t{3})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  return t;
}

TEST(NnConv, DepthwiseWithChannelMultiplier) {
  auto out = DepthwiseTest()
                 .Input<float>({2, 3, 5, 5}, Pattern(150))
                 .Input<float>({6, 1, 3, 3}, Pattern(54, 5))
                 .Input<float>({6}, Pattern(6, 3))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 6, 3, 3}));
  ExpectNear(Values<float>(*out[0]), Vec(kDepthwise), 1e-6);
}

TEST(NnConv, DepthwiseThreadedMatches) {
  auto out = DepthwiseTest()
                 .Input<float>({2, 3, 5, 5}, Pattern(150))
                 .Input<float>({6, 1, 3, 3}, Pattern(54, 5))
                 .Input<float>({6}, Pattern(6, 3))
                 .Run(3);
  ExpectNear(Values<float>(*out[0]), Vec(kDepthwise), 1e-6);
}

TEST(NnConv, DepthwiseDouble) {
  std::vector<float> xf = Pattern(150), wf = Pattern(54, 5), bf = Pattern(6, 3);
  auto out = DepthwiseTest()
                 .Input<double>({2, 3, 5, 5}, nn_test::Cast<double>(xf))
                 .Input<double>({6, 1, 3, 3}, nn_test::Cast<double>(wf))
                 .Input<double>({6}, nn_test::Cast<double>(bf))
                 .Run();
  ExpectNear(Values<double>(*out[0]), nn_test::Cast<double>(Vec(kDepthwise)), 1e-12);
}

TEST(NnConv, AutoPadSameUpperAndLower) {
  auto run = [](const char* mode, const std::vector<int64_t>& x_shape, size_t w_step,
                const std::vector<int64_t>& w_shape, const std::vector<int64_t>& strides) {
    const size_t xn = static_cast<size_t>(x_shape[2] * x_shape[3]);
    const size_t wn = static_cast<size_t>(w_shape[2] * w_shape[3]);
    return NodeTest("Conv", 11)
        .Attr("auto_pad", mode)
        .Attr("strides", strides)
        .Input<float>(x_shape, Pattern(xn))
        .Input<float>(w_shape, Pattern(wn, w_step))
        .Run();
  };
  // One padding element: at the end for SAME_UPPER, at the beginning for SAME_LOWER.
  auto upper = run("SAME_UPPER", {1, 1, 4, 4}, 5, {1, 1, 2, 2}, {1, 1});
  EXPECT_EQ(upper[0]->shape(), Shape({1, 1, 4, 4}));
  ExpectNear(Values<float>(*upper[0]),
             {0.375f, -0.375f, 0.203125f, 0.71875f, 0.296875f, 0.34375f, -0.40625f, -0.84375f,
              0.21875f, 0.265625f, 0.3125f, -0.28125f, -0.90625f, 0.015625f, -0.390625f, 0.625f},
             1e-6);
  auto lower = run("SAME_LOWER", {1, 1, 4, 4}, 5, {1, 1, 2, 2}, {1, 1});
  ExpectNear(Values<float>(*lower[0]),
             {-0.875f, -0.359375f, 0.625f, -0.25f, 0.703125f, 0.375f, -0.375f, 0.203125f, -0.46875f,
              0.296875f, 0.34375f, -0.40625f, 1.015625f, 0.21875f, 0.265625f, 0.3125f},
             1e-6);
  // Stride 2 on 5: output ceil(5 / 2) = 3, total padding 3 split 1 + 2 or 2 + 1.
  auto upper2 = run("SAME_UPPER", {1, 1, 5, 5}, 3, {1, 1, 4, 4}, {2, 2});
  EXPECT_EQ(upper2[0]->shape(), Shape({1, 1, 3, 3}));
  ExpectNear(
      Values<float>(*upper2[0]),
      {0.171875f, 1.09375f, 0.203125f, -1.75f, 1.21875f, 0.359375f, -0.125f, -0.515625f, 0.421875f},
      1e-6);
  auto lower2 = run("SAME_LOWER", {1, 1, 5, 5}, 3, {1, 1, 4, 4}, {2, 2});
  ExpectNear(Values<float>(*lower2[0]),
             {-0.75f, 0.578125f, -0.5f, 0.75f, 0.640625f, 0.140625f, 0.6875f, 0.84375f, -1.609375f},
             1e-6);
}

TEST(NnConv, AutoPadValid) {
  auto out = NodeTest("Conv", 1)
                 .Attr("auto_pad", "VALID")
                 .Attr("strides", std::vector<int64_t>{2, 2})
                 .Input<float>({1, 1, 5, 5}, Pattern(25))
                 .Input<float>({1, 1, 3, 3}, Pattern(9, 5))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 2, 2}));
  ExpectNear(Values<float>(*out[0]), {-0.359375f, 1.21875f, -0.171875f, -2.3125f}, 1e-6);
}

TEST(NnConv, PointwiseWithBias) {
  auto out = NodeTest("Conv", 11)
                 .Input<float>({1, 3, 2, 2}, Pattern(12))
                 .Input<float>({2, 3, 1, 1}, Pattern(6, 5))
                 .Input<float>({2}, {1.0f, -1.0f})
                 .Run(2);
  ExpectNear(
      Values<float>(*out[0]),
      {1.765625f, 1.578125f, 0.0625f, 1.203125f, -2.109375f, -0.5625f, -0.34375f, -1.984375f},
      1e-6);
}

TEST(NnConv, Float16AndBFloat16ThroughFloat) {
  const std::vector<Float16> x = nn_test::Cast<Float16>(Pattern(12));
  const std::vector<Float16> w = nn_test::Cast<Float16>(Pattern(6, 5));
  auto out = NodeTest("Conv", 11)
                 .Input<Float16>({1, 3, 2, 2}, x)
                 .Input<Float16>({2, 3, 1, 1}, w)
                 .Input<Float16>({2}, {Float16::FromFloat(1.0f), Float16::FromFloat(-1.0f)})
                 .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<Float16>(*out[0]));
  ExpectNear(
      got, {1.765625f, 1.578125f, 0.0625f, 1.203125f, -2.109375f, -0.5625f, -0.34375f, -1.984375f},
      1e-6);

  const std::vector<BFloat16> xb = nn_test::Cast<BFloat16>(Pattern(12));
  const std::vector<BFloat16> wb = nn_test::Cast<BFloat16>(Pattern(6, 5));
  auto bf = NodeTest("Conv", 22)
                .Input<BFloat16>({1, 3, 2, 2}, xb)
                .Input<BFloat16>({2, 3, 1, 1}, wb)
                .Run();
  EXPECT_EQ(bf[0]->type(), DataType::kBfloat16);
  EXPECT_FLOAT_EQ(Values<BFloat16>(*bf[0])[0].ToFloat(), 1.765625f - 1.0f);
  ExpectError(
      [&] {
        NodeTest("Conv", 11)
            .Input<BFloat16>({1, 3, 2, 2}, xb)
            .Input<BFloat16>({2, 3, 1, 1}, wb)
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "bfloat16", "opset 22"});
}

TEST(NnConv, EmptyBatchGivesEmptyOutput) {
  auto out = NodeTest("Conv", 11)
                 .Input<float>({0, 1, 3, 3}, {})
                 .Input<float>({2, 1, 2, 2}, Pattern(8))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 2, 2, 2}));
}

NodeTest BadConv(int64_t group, const std::vector<int64_t>& x_shape,
                 const std::vector<int64_t>& w_shape) {
  size_t xn = 1, wn = 1;
  for (int64_t d : x_shape) xn *= static_cast<size_t>(d);
  for (int64_t d : w_shape) wn *= static_cast<size_t>(d);
  NodeTest t("Conv", 11);
  t.Attr("group", group).Input<float>(x_shape, Pattern(xn)).Input<float>(w_shape, Pattern(wn));
  return t;
}

TEST(NnConv, RejectsChannelsNotDivisibleByGroup) {
  ExpectError(
      [] {
        BadConv(2, {1, 3, 4, 4}, {2, 1, 3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "3 channels", "'group' 2"});
}

TEST(NnConv, RejectsWeightChannelMismatch) {
  ExpectError(
      [] {
        BadConv(1, {1, 3, 4, 4}, {2, 2, 3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "[2,2,3,3]", "needs 3"});
  ExpectError(
      [] {
        BadConv(2, {1, 4, 4, 4}, {3, 2, 3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "3 output channels", "'group' 2"});
  ExpectError(
      [] {
        BadConv(1, {1, 3, 4, 4}, {2, 3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "same rank"});
  ExpectError(
      [] {
        BadConv(1, {1, 3}, {2, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "rank 3"});
}

TEST(NnConv, RejectsKernelLargerThanPaddedInput) {
  ExpectError(
      [] {
        BadConv(1, {1, 1, 2, 4}, {1, 1, 3, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"kernel extent 3", "spatial axis 0", "'X'"});
  ExpectError(
      [] {
        NodeTest("Conv", 11)
            .Attr("dilations", std::vector<int64_t>{1, 3})
            .Input<float>({1, 1, 5, 5}, Pattern(25))
            .Input<float>({1, 1, 3, 3}, Pattern(9))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"kernel extent 7", "spatial axis 1"});
}

TEST(NnConv, RejectsBadAttributes) {
  auto with = [](const char* name, std::vector<int64_t> v) {
    NodeTest t("Conv", 11);
    t.Attr(name, std::move(v))
        .Input<float>({1, 1, 4, 4}, Pattern(16))
        .Input<float>({1, 1, 3, 3}, Pattern(9));
    return t;
  };
  ExpectError(
      [&] {
        with("strides", {1, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "positive"});
  ExpectError(
      [&] {
        with("strides", {-1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "-1"});
  ExpectError(
      [&] {
        with("dilations", {0, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'dilations'", "positive"});
  ExpectError(
      [&] {
        with("pads", {1, 1, -1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "non-negative"});
  ExpectError(
      [&] {
        with("pads", {1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "2 values", "2 spatial axes"});
  ExpectError(
      [&] {
        with("pads", {1, 1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "begin and an end"});
  ExpectError(
      [&] {
        with("strides", {1, 1, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "3 values"});
  ExpectError(
      [&] {
        with("kernel_shape", {2, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'kernel_shape'", "'W'"});
  ExpectError(
      [&] {
        with("kernel_shape", {3, 3}).Attr("strides", std::vector<int64_t>{1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "kernel_shape"});
  ExpectError(
      [&] {
        with("strides", {1, 1}).Attr("group", int64_t{0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'group'", "positive"});
  ExpectError(
      [&] {
        with("strides", {1, 1}).Attr("auto_pad", "SAME").Run();
      },
      ErrorCode::kInvalidArgument, {"'auto_pad'", "SAME"});
  ExpectError(
      [&] {
        with("pads", {1, 1, 1, 1}).Attr("auto_pad", "SAME_UPPER").Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "auto_pad"});
}

TEST(NnConv, RejectsBadBiasAndTypes) {
  ExpectError(
      [] {
        NodeTest("Conv", 11)
            .Input<float>({1, 1, 3, 3}, Pattern(9))
            .Input<float>({2, 1, 2, 2}, Pattern(8))
            .Input<float>({3}, Pattern(3))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'B'", "[3]", "expected [2]"});
  ExpectError(
      [] {
        NodeTest("Conv", 11)
            .Input<float>({1, 1, 3, 3}, Pattern(9))
            .Input<double>({2, 1, 2, 2}, std::vector<double>(8, 1.0))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'W'", "double", "float"});
  ExpectError(
      [] {
        NodeTest("Conv", 11)
            .Input<int32_t>({1, 1, 3, 3}, std::vector<int32_t>(9, 1))
            .Input<int32_t>({2, 1, 2, 2}, std::vector<int32_t>(8, 1))
            .Run();
      },
      ErrorCode::kNotImplemented, {"int32"});
}

}  // namespace
}  // namespace kiln::testing
