// NhwcConv's depthwise paths (multiplier 1) against a plain loop: the register-tiled 3×3 / 5×5
// path with its border columns, column tails and channel tails (C not a multiple of 16), the
// general path it falls back to, the channel split of small images, the fused epilogue, and the
// fused 1×1 expansion (attribute expand) with its bands of expanded rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nhwc_test::Activate;
using nhwc_test::ExpectClose;
using nhwc_test::Random;
using V = std::vector<int64_t>;

struct DwCase {
  int64_t n = 1, h = 9, w = 11, c = 16, k = 3;
  int64_t kw = 0;  // 0: k
  V strides = {1, 1};
  V dilations = {1, 1};
  V pads = {1, 1, 1, 1};  // top, left, bottom, right
  bool bias = true;
  bool z = false;
  std::string activation = {};
  std::vector<float> params = {};
  // Attribute expand: X has this many channels and is first multiplied by WE [c, expand, 1, 1]
  // (then BE when expand_bias, and the expansion's activation). 0: no expansion.
  int64_t expand = 0;
  bool expand_bias = true;
  std::string expand_activation = {};
  std::vector<float> expand_params = {};
};

std::string Name(const DwCase& k) {
  return "N=" + std::to_string(k.n) + " " + std::to_string(k.h) + "x" + std::to_string(k.w) +
         " C=" + std::to_string(k.c) + " k=" + std::to_string(k.k) + "x" +
         std::to_string(k.kw != 0 ? k.kw : k.k) + " s=" + std::to_string(k.strides[0]) + "," +
         std::to_string(k.strides[1]) + " d=" + std::to_string(k.dilations[0]) + "," +
         std::to_string(k.dilations[1]) + " pads=" + std::to_string(k.pads[0]) +
         std::to_string(k.pads[1]) + std::to_string(k.pads[2]) + std::to_string(k.pads[3]) +
         (k.bias ? " B" : "") + (k.z ? " Z" : "") + " " + k.activation +
         (k.expand != 0 ? " expand from " + std::to_string(k.expand) +
                              (k.expand_bias ? " BE " : " ") + k.expand_activation
                        : "");
}

void Check(const DwCase& k, int threads) {
  const std::string name = Name(k);
  SCOPED_TRACE(name + " threads=" + std::to_string(threads));
  const int64_t kh = k.k;
  const int64_t kw = k.kw != 0 ? k.kw : k.k;
  const int64_t oh =
      (k.h + k.pads[0] + k.pads[2] - (kh - 1) * k.dilations[0] - 1) / k.strides[0] + 1;
  const int64_t ow =
      (k.w + k.pads[1] + k.pads[3] - (kw - 1) * k.dilations[1] - 1) / k.strides[1] + 1;
  const auto seed = static_cast<unsigned>(name.size() * 7919 + static_cast<size_t>(k.c));
  std::vector<float> x = Random(static_cast<size_t>(k.n * k.h * k.w * k.c), seed);
  // With an expansion, the node's X has k.expand channels and x is what the plain loop convolves.
  const std::vector<float> x0 = Random(static_cast<size_t>(k.n * k.h * k.w * k.expand), seed + 4);
  const std::vector<float> we = Random(static_cast<size_t>(k.c * k.expand), seed + 5);
  const std::vector<float> be = Random(static_cast<size_t>(k.c), seed + 6);
  // The reference loops index raw pointers and locals: std::vector's operator[] is a call in the
  // -O0 ASan build, where it made this test's reference take most of its 20 s.
  if (k.expand != 0) {
    const auto ce = static_cast<size_t>(k.expand);
    for (size_t p = 0; p < static_cast<size_t>(k.n * k.h * k.w); ++p) {
      for (size_t c = 0; c < static_cast<size_t>(k.c); ++c) {
        double sum = k.expand_bias ? be[c] : 0.0;
        const float* wr = we.data() + c * ce;
        const float* xr = x0.data() + p * ce;
        for (size_t i = 0; i < ce; ++i) sum += static_cast<double>(wr[i]) * xr[i];
        x[p * static_cast<size_t>(k.c) + c] =
            Activate(k.expand_activation, k.expand_params, static_cast<float>(sum));
      }
    }
  }
  const std::vector<float> w = Random(static_cast<size_t>(k.c * kh * kw), seed + 1);
  const std::vector<float> b = Random(static_cast<size_t>(k.c), seed + 2);
  const std::vector<float> z = Random(static_cast<size_t>(k.n * oh * ow * k.c), seed + 3);

  std::vector<float> want(z.size());
  const int64_t sy = k.strides[0], sx = k.strides[1], dy = k.dilations[0], dx = k.dilations[1];
  const int64_t py = k.pads[0], px = k.pads[1];
  const float* wp = w.data();
  const float* xp = x.data();
  for (int64_t n = 0; n < k.n; ++n) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        for (int64_t c = 0; c < k.c; ++c) {
          double sum = k.bias ? b[static_cast<size_t>(c)] : 0.0;
          for (int64_t ky = 0; ky < kh; ++ky) {
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = oy * sy + ky * dy - py;
              const int64_t ix = ox * sx + kx * dx - px;
              if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
              sum += static_cast<double>(wp[(c * kh + ky) * kw + kx]) *
                     xp[((n * k.h + iy) * k.w + ix) * k.c + c];
            }
          }
          const auto at = static_cast<size_t>(((n * oh + oy) * ow + ox) * k.c + c);
          if (k.z) sum += z[at];
          want[at] = Activate(k.activation, k.params, static_cast<float>(sum));
        }
      }
    }
  }

  NodeTest t("NhwcConv", 1, "ai.kiln");
  t.Attr("group", k.c)
      .Attr("strides", k.strides)
      .Attr("dilations", k.dilations)
      .Attr("pads", k.pads);
  if (!k.activation.empty()) t.Attr("activation", k.activation);
  if (!k.params.empty()) t.Attr("activation_params", k.params);
  if (k.expand != 0) {
    t.Attr("expand", int64_t{1}).Input<float>({k.n, k.h, k.w, k.expand}, x0);
    if (!k.expand_activation.empty()) t.Attr("expand_activation", k.expand_activation);
    if (!k.expand_params.empty()) t.Attr("expand_activation_params", k.expand_params);
  } else {
    t.Input<float>({k.n, k.h, k.w, k.c}, x);
  }
  t.Input<float>({k.c, 1, kh, kw}, w, /*constant=*/true);
  if (k.bias) {
    t.Input<float>({k.c}, b);
  } else if (k.z || k.expand != 0) {
    t.MissingInput();
  }
  if (k.z) {
    t.Input<float>({k.n, oh, ow, k.c}, z);
  } else if (k.expand != 0) {
    t.MissingInput();
  }
  if (k.expand != 0) {
    t.Input<float>({k.c, k.expand, 1, 1}, we, /*constant=*/true);
    if (k.expand_bias) t.Input<float>({k.c}, be);
  }
  const std::shared_ptr<Tensor> y = t.Run(threads)[0];
  ASSERT_EQ(y->shape(), Shape({k.n, oh, ow, k.c}));
  ExpectClose(Values<float>(*y), want, name);
}

void CheckBoth(const DwCase& k) {
  Check(k, 1);
  Check(k, 2);
}

// Every kernel size and stride of the fast path, on widths from narrower than one tile to several
// tiles plus a remainder, with channel counts that are whole chunks, whole chunks plus a last chunk
// of 8 (40: on AVX-512 machines two 16-float chunks, then the 8-float row function), and too few
// for one chunk.
TEST(NhwcDepthwise, FastPathShapes) {
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      for (int64_t w : {1, 2, 3, 6, 9, 14, 23}) {
        for (int64_t c : {16, 48, 40, 7}) {
          const int64_t pad = k / 2;
          CheckBoth({.h = 5 + w % 4,
                     .w = w,
                     .c = c,
                     .k = k,
                     .strides = {s, s},
                     .pads = {pad, pad, pad, pad},
                     .z = w % 2 == 1});
        }
      }
    }
  }
}

// Pads other than k/2 (none, asymmetric, wider than the kernel's reach on one side), mixed strides,
// a vertical dilation (kept on the fast path) and a horizontal one (not), batches.
// The fast path runs 16-float vectors where the machine has AVX-512 and 8-float ones elsewhere:
// the 8-float path, forced (on a machine without AVX-512 FastPathShapes runs it already), on the
// same shapes, with the Clip it applies in registers and the expansion that feeds it.
TEST(NhwcDepthwise, FastPathEightWide) {
  const bool before = cpu::AllowVectorMathAvx512ForTesting(false);
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      for (int64_t w : {1, 3, 9, 14, 23}) {
        for (int64_t c : {16, 40}) {
          const int64_t pad = k / 2;
          CheckBoth({.h = 5 + w % 4,
                     .w = w,
                     .c = c,
                     .k = k,
                     .strides = {s, s},
                     .pads = {pad, pad, pad, pad},
                     .z = w % 2 == 1,
                     .activation = w % 3 == 0 ? "Relu" : ""});
        }
      }
    }
  }
  CheckBoth({.h = 9, .w = 31, .c = 16, .k = 5, .dilations = {3, 3}, .pads = {6, 6, 6, 6}});
  CheckBoth({.h = 12, .w = 29, .c = 40, .k = 7, .pads = {3, 3, 3, 3}, .z = true});
  CheckBoth({.h = 10,
             .w = 13,
             .c = 32,
             .k = 5,
             .strides = {2, 2},
             .pads = {2, 2, 2, 2},
             .activation = "Relu",
             .expand = 8,
             .expand_activation = "Relu"});
  cpu::AllowVectorMathAvx512ForTesting(before);
}

TEST(NhwcDepthwise, PadsStridesDilations) {
  const std::vector<DwCase> cases = {
      {.h = 8, .w = 12, .c = 32, .pads = {0, 0, 0, 0}},
      {.h = 8, .w = 12, .c = 32, .k = 5, .pads = {0, 0, 0, 0}, .z = true},
      {.h = 7, .w = 13, .c = 32, .pads = {0, 1, 2, 0}},
      {.h = 7, .w = 13, .c = 48, .k = 5, .pads = {2, 3, 1, 4}, .z = true},
      {.h = 7, .w = 10, .c = 16, .pads = {2, 2, 2, 2}},
      {.h = 9, .w = 17, .c = 32, .strides = {1, 2}, .pads = {1, 0, 1, 1}},
      {.h = 9, .w = 17, .c = 32, .k = 5, .strides = {2, 1}, .pads = {2, 2, 2, 2}},
      {.h = 9, .w = 17, .c = 32, .strides = {3, 2}},
      {.h = 11, .w = 12, .c = 32, .dilations = {2, 1}, .pads = {2, 1, 2, 1}},
      {.h = 11, .w = 12, .c = 32, .dilations = {1, 2}, .pads = {1, 2, 1, 2}},
      // Horizontal dilation on the fast path: passes over every d-th column, tiles and borders
      // in each, a pass with fewer columns than a tile, and a map smaller than the dilated
      // kernel (every tap but the centre in the padding).
      {.h = 13, .w = 40, .c = 32, .dilations = {2, 2}, .pads = {2, 2, 2, 2}, .z = true},
      {.h = 9, .w = 31, .c = 16, .k = 5, .dilations = {3, 3}, .pads = {6, 6, 6, 6}},
      {.h = 10, .w = 29, .c = 48, .dilations = {1, 4}, .pads = {1, 3, 1, 5}},
      {.h = 6, .w = 7, .c = 32, .k = 5, .dilations = {6, 6}, .pads = {12, 12, 12, 12}},
      {.h = 8, .w = 30, .c = 32, .strides = {2, 1}, .dilations = {2, 3}, .pads = {2, 3, 2, 3}},
      {.h = 11, .w = 12, .c = 33, .k = 3, .kw = 5, .pads = {1, 2, 1, 2}},
      {.h = 11, .w = 12, .c = 32, .strides = {1, 3}},
      {.h = 9, .w = 9, .c = 32, .k = 7, .pads = {3, 3, 3, 3}},
      // 7×7 stride 1 on the fast path (ConvNeXt): tiles, borders, a map narrower than the kernel.
      {.h = 12, .w = 29, .c = 48, .k = 7, .pads = {3, 3, 3, 3}, .z = true, .activation = "Relu"},
      {.h = 5, .w = 4, .c = 16, .k = 7, .pads = {3, 3, 3, 3}},
      {.h = 10,
       .w = 17,
       .c = 32,
       .k = 7,
       .strides = {2, 1},
       .dilations = {1, 2},
       .pads = {3, 6, 3, 6}},
      {.n = 3, .h = 6, .w = 10, .c = 48, .z = true},
      {.n = 2,
       .h = 6,
       .w = 10,
       .c = 48,
       .k = 5,
       .strides = {2, 2},
       .pads = {2, 2, 2, 2},
       .bias = false,
       .z = true},
      {.h = 9, .w = 10, .c = 48, .bias = false},
  };
  for (const DwCase& k : cases) CheckBoth(k);
}

// Small images with many channels, split along the channels between the threads (also into
// parts that end in a channel tail).
TEST(NhwcDepthwise, ChannelSplitOfSmallImages) {
  for (int64_t c : {64, 160, 200, 968}) {
    for (int64_t h : {1, 2, 7}) {
      CheckBoth({.h = h, .w = h, .c = c, .z = true});
      CheckBoth({.h = h, .w = h, .c = c, .k = 5, .strides = {2, 2}, .pads = {2, 2, 2, 2}});
    }
  }
}

// The epilogue fused into the fast path's stores, for every activation, with and without Z and B.
TEST(NhwcDepthwise, EveryActivation) {
  const std::vector<std::pair<std::string, std::vector<float>>> acts = {
      {"", {}},
      {"Relu", {}},
      {"LeakyRelu", {}},
      {"LeakyRelu", {0.3f}},
      {"Clip", {0, 6}},
      {"Clip", {-0.2f, 0.4f}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"HardSigmoid", {}},
      {"HardSigmoid", {0.3f, 0.4f}},
      {"HardSwish", {}},
      {"Swish", {}}};
  for (const auto& [name, params] : acts) {
    for (int64_t k : {3, 5}) {
      CheckBoth({.h = 6,
                 .w = 13,
                 .c = 40,
                 .k = k,
                 .pads = {k / 2, k / 2, k / 2, k / 2},
                 .z = true,
                 .activation = name,
                 .params = params});
      CheckBoth({.h = 6,
                 .w = 13,
                 .c = 32,
                 .k = k,
                 .strides = {2, 2},
                 .pads = {k / 2, k / 2, k / 2, k / 2},
                 .bias = false,
                 .activation = name,
                 .params = params});
    }
  }
}

// The expansion fused into the fast path (attribute expand): each kernel size and stride, on
// images whose expanded rows (64 × 160 floats) fill several bands of the 384 KB each thread
// keeps, so bands share rows, start past the top padding and end at the bottom one, and the two
// threads' shares begin mid-image; and on small ones (one band), batches, pads, B, BE and Z
// present or not, and MobileNetV2's and EfficientNet-B0's activations.
TEST(NhwcDepthwise, ExpansionInBandsMatchesExpandingFirst) {
  for (int64_t k : {3, 5}) {
    for (int64_t s : {1, 2}) {
      const int64_t pad = k / 2;
      CheckBoth({.n = 2,
                 .h = 23,
                 .w = 64,
                 .c = 160,
                 .k = k,
                 .strides = {s, s},
                 .pads = {pad, pad, pad, pad},
                 .activation = "Clip",
                 .params = {0, 6},
                 .expand = 24,
                 .expand_activation = "Clip",
                 .expand_params = {0, 6}});
      CheckBoth({.h = 9,
                 .w = 11,
                 .c = 32,
                 .k = k,
                 .strides = {s, s},
                 .pads = {pad, pad, pad, pad},
                 .z = true,
                 .activation = "Swish",
                 .expand = 3,
                 .expand_activation = "Swish"});
    }
  }
  const std::vector<DwCase> cases = {
      {.n = 3, .h = 40, .w = 70, .c = 160, .pads = {0, 1, 2, 1}, .bias = false, .expand = 16},
      {.h = 31, .w = 64, .c = 160, .strides = {2, 1}, .z = true, .expand = 5, .expand_bias = false},
      {.h = 31,
       .w = 64,
       .c = 160,
       .k = 5,
       .strides = {1, 2},
       .pads = {2, 1, 2, 3},
       .activation = "Relu",
       .expand = 7,
       .expand_activation = "HardSwish"},
      {.h = 12, .w = 64, .c = 160, .strides = {3, 1}, .pads = {0, 0, 0, 0}, .expand = 8},
      {.h = 5, .w = 6, .c = 16, .pads = {2, 2, 2, 2}, .bias = false, .expand = 1},
      // One band an image: the next image's band starts at row 0 too and must not reuse rows.
      {.n = 4, .h = 5, .w = 8, .c = 32, .expand = 4},
  };
  for (const DwCase& k : cases) CheckBoth(k);
}

// What attribute expand needs: a fast-path depthwise layer, WE constant [M, c, 1, 1], X with c
// channels, BE [M].
TEST(NhwcDepthwise, ExpansionErrors) {
  const auto node = [](const V& x, const V& w, const V& we, int64_t group, int64_t expand = 1) {
    const auto count = [](const V& d) {
      size_t n = 1;
      for (int64_t v : d) n *= static_cast<size_t>(v);
      return n;
    };
    NodeTest t("NhwcConv", 1, "ai.kiln");
    t.Attr("expand", expand)
        .Attr("group", group)
        .Attr("pads", V{1, 1, 1, 1})
        .Input<float>(x, Random(count(x), 1))
        .Input<float>(w, Random(count(w), 2), true)
        .MissingInput()
        .MissingInput();
    if (!we.empty()) t.Input<float>(we, Random(count(we), 3), true);
    return t;
  };
  const V x = {1, 6, 6, 4};
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 1, 1}, 32).Input<float>({31}, Random(31, 4)),
                  ErrorCode::kInvalidArgument, "input 5 (BE) is float [31]; it must be float [32]");
  ExpectNodeError(node({1, 6, 6, 5}, {32, 1, 3, 3}, {32, 4, 1, 1}, 32), ErrorCode::kInvalidArgument,
                  "expands 4");
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 3, 3}, 32), ErrorCode::kInvalidArgument,
                  "input 4 (WE)");
  ExpectNodeError(node(x, {32, 1, 3, 3}, {16, 4, 1, 1}, 32), ErrorCode::kInvalidArgument,
                  "input 4 (WE)");
  ExpectNodeError(node(x, {32, 1, 3, 3}, {}, 32), ErrorCode::kInvalidArgument,
                  "needs input 4 (WE)");
  // Layers the fast path does not run whole: a product, 24 channels, a 7×7 kernel, stride 3 along
  // the rows, a dilation.
  const std::string needs = "attribute 'expand' needs a depthwise convolution";
  ExpectNodeError(node(x, {32, 32, 3, 3}, {32, 4, 1, 1}, 1), ErrorCode::kInvalidArgument, needs);
  ExpectNodeError(node(x, {24, 1, 3, 3}, {24, 4, 1, 1}, 24), ErrorCode::kInvalidArgument, needs);
  ExpectNodeError(node(x, {32, 1, 7, 7}, {32, 4, 1, 1}, 32), ErrorCode::kInvalidArgument, needs);
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 1, 1}, 32).Attr("strides", V{1, 3}),
                  ErrorCode::kInvalidArgument, needs);
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 1, 1}, 32).Attr("dilations", V{2, 1}),
                  ErrorCode::kInvalidArgument, needs);
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 1, 1}, 32, 2), ErrorCode::kInvalidArgument,
                  "attribute 'expand' is 2");
  ExpectNodeError(node(x, {32, 1, 3, 3}, {32, 4, 1, 1}, 32).Attr("expand_activation", "Gelu"),
                  ErrorCode::kInvalidGraph, "attribute 'expand_activation' is 'Gelu'");
}

}  // namespace
}  // namespace kiln::testing
