// QLinearConv and its channels-last form NhwcQLinearConv against a direct loop over random bytes,
// requantized as the definition does (the multiplier x_scale·w_scale/y_scale in float, applied
// in double, round half to even): dense, grouped, depthwise (stride, dilation, uneven padding),
// depthwise taps in pairs (32 channels at a time) and one at a time, 1×1 read in place and
// strided, a 7×7 stride-2 stem whose kernel rows are copied as runs;
// int8 and uint8, weights constant (packed at creation) and not, symmetric int8 weights (the
// product requantizing its own tiles), 1 and 2 threads, the AVX-512 loops and the portable ones.
// The channels-last output is the channels-first one transposed, byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/quant/int_conv.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;

struct ConvCase {
  int64_t c, m, group, h, w, kh, kw, stride, dilation;
  V pads;
};

// [N, C, H, W] → [N, H, W, C] (and back with `inverse`).
template <typename T>
std::vector<T> Permute(const std::vector<T>& x, int64_t n, int64_t c, int64_t h, int64_t w,
                       bool inverse) {
  std::vector<T> y(x.size());
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t i = 0; i < h * w; ++i) {
        const auto first = static_cast<size_t>((b * c + ch) * h * w + i);
        const auto last = static_cast<size_t>((b * h * w + i) * c + ch);
        if (inverse) {
          y[first] = x[last];
        } else {
          y[last] = x[first];
        }
      }
    }
  }
  return y;
}

// `microsoft`: both layouts as com.microsoft QLinearConv (ONNX Runtime's NHWC transformer's op,
// attribute channels_last), else as ONNX QLinearConv and ai.kiln NhwcQLinearConv.
template <typename TX, typename TW>
void Check(const ConvCase& k, bool constant, int threads, bool symmetric = false,
           bool microsoft = false) {
  const int64_t n = 2;
  const int64_t gc = k.c / k.group, gf = k.m / k.group;
  const auto x = RandomInts<TX>(static_cast<size_t>(n * k.c * k.h * k.w), 3);
  const auto w = RandomInts<TW>(static_cast<size_t>(k.m * gc * k.kh * k.kw), 7);
  std::vector<int32_t> bias(static_cast<size_t>(k.m));
  std::vector<float> ws(static_cast<size_t>(k.m));
  std::vector<TW> wz(static_cast<size_t>(k.m));
  for (int64_t i = 0; i < k.m; ++i) {
    bias[static_cast<size_t>(i)] = static_cast<int32_t>((i * 997) % 4001) - 2000;
    ws[static_cast<size_t>(i)] = 0.002f + 0.0005f * static_cast<float>(i % 7);
    wz[static_cast<size_t>(i)] = static_cast<TW>(symmetric              ? 0
                                                 : std::is_signed_v<TW> ? i % 3 - 1
                                                                        : 120 + i % 9);
  }
  const float xs = 0.03f, ys = 0.11f;
  const auto xz = static_cast<TX>(std::is_signed_v<TX> ? -7 : 131);
  const auto yz = static_cast<TX>(std::is_signed_v<TX> ? 5 : 118);
  const int64_t eh = (k.kh - 1) * k.dilation + 1, ew = (k.kw - 1) * k.dilation + 1;
  const int64_t oh = (k.h + k.pads[0] + k.pads[2] - eh) / k.stride + 1;
  const int64_t ow = (k.w + k.pads[1] + k.pads[3] - ew) / k.stride + 1;
  // The definition.
  std::vector<TX> want(static_cast<size_t>(n * k.m * oh * ow));
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t f = 0; f < k.m; ++f) {
      const int64_t grp = f / gf;
      const auto fi = static_cast<size_t>(f);
      const double mult = static_cast<float>(static_cast<float>(xs * ws[fi]) / ys);
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          int64_t acc = 0;
          for (int64_t cc = 0; cc < gc; ++cc) {
            const int64_t ch = grp * gc + cc;
            for (int64_t r = 0; r < k.kh; ++r) {
              for (int64_t t = 0; t < k.kw; ++t) {
                const int64_t y = i * k.stride - k.pads[0] + r * k.dilation;
                const int64_t xx = j * k.stride - k.pads[1] + t * k.dilation;
                if (y < 0 || y >= k.h || xx < 0 || xx >= k.w) continue;
                const int64_t xv = x[static_cast<size_t>(((b * k.c + ch) * k.h + y) * k.w + xx)];
                const int64_t wv = w[static_cast<size_t>(((f * gc + cc) * k.kh + r) * k.kw + t)];
                acc += (xv - xz) * (wv - wz[fi]);
              }
            }
          }
          const double q = std::nearbyint(static_cast<double>(acc + bias[fi]) * mult) + yz;
          want[static_cast<size_t>(((b * k.m + f) * oh + i) * ow + j)] =
              static_cast<TX>(std::clamp(q, static_cast<double>(std::numeric_limits<TX>::lowest()),
                                         static_cast<double>(std::numeric_limits<TX>::max())));
        }
      }
    }
  }
  auto run = [&](bool channels_last) {
    NodeTest t(channels_last && !microsoft ? "NhwcQLinearConv" : "QLinearConv",
               channels_last || microsoft ? 1 : 10,
               microsoft       ? "com.microsoft"
               : channels_last ? "ai.kiln"
                               : "");
    if (microsoft) t.Attr("channels_last", int64_t{channels_last ? 1 : 0});
    t.Attr("group", k.group)
        .Attr("strides", V{k.stride, k.stride})
        .Attr("dilations", V{k.dilation, k.dilation})
        .Attr("pads", k.pads);
    t.Input<TX>(channels_last ? V{n, k.h, k.w, k.c} : V{n, k.c, k.h, k.w},
                channels_last ? Permute(x, n, k.c, k.h, k.w, false) : x);
    t.Input<float>({}, {xs}).Input<TX>({}, {xz});
    t.Input<TW>({k.m, gc, k.kh, k.kw}, w, constant);
    t.Input<float>({k.m}, ws, true).Input<TW>({k.m}, wz, true);
    t.Input<float>({}, {ys}).Input<TX>({}, {yz});
    t.Input<int32_t>({k.m}, bias, true);
    return t.Run(threads);
  };
  const std::string what = "c " + std::to_string(k.c) + " m " + std::to_string(k.m) + " group " +
                           std::to_string(k.group) + " kernel " + std::to_string(k.kh) + "x" +
                           std::to_string(k.kw) + " stride " + std::to_string(k.stride) +
                           " constant " + std::to_string(constant) + " threads " +
                           std::to_string(threads) + (symmetric ? " symmetric" : "") +
                           (microsoft ? " com.microsoft" : "");
  auto first = run(false);
  ASSERT_EQ(first[0]->shape(), Shape({n, k.m, oh, ow})) << what;
  const auto got = Values<TX>(*first[0]);
  size_t wrong = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i] && wrong++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " " << +got[i] << " vs " << +want[i];
    }
  }
  EXPECT_EQ(wrong, 0u) << what;
  auto last = run(true);
  ASSERT_EQ(last[0]->shape(), Shape({n, oh, ow, k.m})) << what;
  EXPECT_EQ(Permute(Values<TX>(*last[0]), n, k.m, oh, ow, true), got) << what << " channels last";
}

TEST(QuantQLinearConv, EveryPathMatchesTheDefinitionInBothLayouts) {
  const ConvCase cases[] = {
      {6, 8, 1, 9, 8, 3, 3, 1, 1, {1, 1, 1, 1}},       // dense 3×3
      {3, 16, 1, 20, 18, 7, 7, 2, 1, {3, 3, 3, 3}},    // a stem: kernel rows copied as runs
      {32, 32, 32, 12, 11, 3, 3, 1, 1, {1, 1, 1, 1}},  // depthwise
      {24, 24, 24, 9, 9, 3, 3, 2, 1, {0, 1, 1, 0}},    // depthwise, stride 2, uneven padding
      {20, 20, 20, 9, 9, 3, 3, 1, 2, {2, 2, 2, 2}},    // depthwise, dilated
      {40, 40, 40, 11, 19, 5, 5, 1, 1, {2, 2, 2, 2}},  // depthwise 5×5: runs of 15 inside
      {48, 48, 48, 13, 13, 3, 3, 2, 1, {1, 1, 1, 1}},  // depthwise, stride 2, whole vectors
      {64, 64, 64, 10, 9, 3, 3, 2, 1, {1, 1, 1, 1}},   // depthwise: two chunks of 32 in pairs
      {32, 32, 32, 12, 13, 7, 7, 1, 1, {3, 3, 3, 3}},  // depthwise 7×7: 24 pairs and a last tap
      {16, 48, 1, 7, 7, 1, 1, 1, 1, {0, 0, 0, 0}},     // 1×1 read in place
      {16, 32, 1, 8, 8, 1, 1, 2, 1, {0, 0, 0, 0}},     // 1×1 stride 2
      {8, 12, 2, 9, 9, 3, 3, 1, 2, {2, 2, 2, 2}},      // grouped, dilated
      {8, 12, 2, 9, 9, 3, 3, 1, 1, {1, 1, 1, 1}},      // grouped: a pixel holds each group
  };
  // The AVX-512 loops (requantization, depthwise sums) where the machine has them, and the
  // portable ones.
  for (bool avx512 : {true, false}) {
    const bool before = cpu::AllowVectorMathAvx512ForTesting(avx512);
    for (const ConvCase& k : cases) {
      for (bool constant : {true, false}) {
        for (int threads : {1, 2}) {
          Check<uint8_t, int8_t>(k, constant, threads);
          Check<int8_t, int8_t>(k, constant, threads);
          // Weights' zero points 0 (symmetric int8, as quantize_static writes them): the product
          // then requantizes its own tiles (on VNNI with AVX-512 on).
          Check<uint8_t, int8_t>(k, constant, threads, true);
          Check<int8_t, int8_t>(k, constant, threads, true);
        }
      }
      Check<uint8_t, uint8_t>(k, true, 2);
    }
    cpu::AllowVectorMathAvx512ForTesting(before);
  }
}

// com.microsoft QLinearConv, which ONNX Runtime saves at level all: channels_last 0 and 1.
TEST(QuantQLinearConv, MicrosoftFormInBothLayouts) {
  const ConvCase cases[] = {
      {6, 8, 1, 9, 8, 3, 3, 1, 1, {1, 1, 1, 1}},     // dense 3×3
      {24, 24, 24, 9, 9, 3, 3, 2, 1, {0, 1, 1, 0}},  // depthwise, stride 2, uneven padding
      {16, 32, 1, 8, 8, 1, 1, 2, 1, {0, 0, 0, 0}},   // 1×1 stride 2
      {8, 12, 2, 9, 9, 3, 3, 1, 1, {1, 1, 1, 1}},    // grouped
  };
  for (const ConvCase& k : cases) {
    Check<uint8_t, int8_t>(k, true, 1, false, true);
    Check<int8_t, int8_t>(k, false, 2, true, true);
  }
}

// The AVX-512 requantization (float, a vector redone in double near a half) gives the portable
// double loop's bytes: exact halves, values a float unit either side of them, sums past 2^24,
// saturation both ways, with and without a bias, tails of every length.
TEST(QuantRequantize, AvxRowEqualsTheDoubleLoop) {
  if (!cpu::UseVectorMathAvx512()) GTEST_SKIP() << "no AVX-512 on this machine";
  std::vector<int32_t> acc, bias;
  std::vector<float> mult;
  uint32_t seed = 9;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  // Found by search: float's product lies a little past a half, on the other side from double's.
  for (auto [a, m] :
       {std::pair{1499599170, 0x1.1b8b2ap-25f}, std::pair{629956773, -0x1.458db8p-23f},
        std::pair{272325555, -0x1.a1f17ap-24f}, std::pair{841638242, -0x1.2fa27ap-24f}}) {
    acc.push_back(a);
    mult.push_back(m);
    bias.push_back(0);
  }
  for (int i = 0; i < 4000; ++i) {
    const int kind = i % 6;
    int32_t a = static_cast<int32_t>(next() >> 8) - (1 << 23);
    float m = static_cast<float>(next() >> 8) / 16777216.0f * 0.01f;
    if (kind == 0) {  // an exact half: odd · 0.5
      a = static_cast<int32_t>(next() % 501) * 2 + 1 - 501;
      m = 0.5f;
    } else if (kind == 1) {  // a float unit off a half
      a = 3;
      m = std::nextafter(0.5f, i % 2 == 0 ? 1.0f : 0.0f);
    } else if (kind == 2) {  // past 2^24
      a = static_cast<int32_t>(next() % 2) == 0 ? (1 << 26) + 3 : -(1 << 27) - 5;
      m = 1.0f / 524288.0f;
    } else if (kind == 3) {  // float(2^25 + 1) = 2^25: a half in float, just past it in double
      a = (i % 2 == 0 ? 1 : -1) * ((1 << 25) + 1);
      m = 0x1p-26f;
    }
    acc.push_back(a);
    mult.push_back(m);
    bias.push_back(static_cast<int32_t>(next() % 2001) - 1000);
  }
  for (size_t n : {size_t{1}, size_t{7}, size_t{16}, size_t{33}, acc.size()}) {
    for (bool with_bias : {false, true}) {
      for (int32_t zp : {0, 5, -128, 127}) {
        std::vector<uint8_t> fast(n), slow(n);
        std::vector<int8_t> fast8(n), slow8(n);
        const int32_t* b = with_bias ? bias.data() : nullptr;
        const int32_t uzp = std::clamp(zp, 0, 255);
        cpu::RequantizeRowAvx512(acc.data(), n, b, mult.data(), uzp, false, fast.data());
        cpu::RequantizeChannels(acc.data(), n, b, mult.data(), uzp, slow.data());
        EXPECT_EQ(fast, slow) << "uint8 n " << n << " zp " << uzp;
        cpu::RequantizeRowAvx512(acc.data(), n, b, mult.data(), zp, true,
                                 reinterpret_cast<uint8_t*>(fast8.data()));
        cpu::RequantizeChannels(acc.data(), n, b, mult.data(), zp, slow8.data());
        EXPECT_EQ(fast8, slow8) << "int8 n " << n << " zp " << zp;
      }
    }
  }
  // Many rows at once (a block of positions): rows with lanes at or a float unit off a half
  // among sure ones, each such row redone alone. Columns 0-3 multiply by a half, a unit either side
  // of it and 2^-26, columns 4-7 by the searched multipliers above (no bias there); every eighth
  // row holds 3, 3, 3, 2^25 + 1 there, four rows on the searched sums, the rest the values above.
  constexpr size_t kRows = 256, kCols = 21;  // whole groups of eight rows
  std::vector<float> col_mult(mult.begin(), mult.begin() + kCols);
  std::vector<int32_t> col_bias(bias.begin(), bias.begin() + kCols);
  col_mult[0] = 0.5f;
  col_mult[1] = std::nextafter(0.5f, 1.0f);
  col_mult[2] = std::nextafter(0.5f, 0.0f);
  col_mult[3] = 0x1p-26f;
  for (size_t c = 4; c < 8; ++c) {
    col_mult[c] = mult[c - 4];  // the searched pairs lead acc and mult
    col_bias[c] = 0;
  }
  std::vector<int32_t> rows_acc(kRows * kCols);
  for (size_t i = 0; i < rows_acc.size(); ++i) rows_acc[i] = acc[i % acc.size()];
  for (size_t r = 0; r < kRows; r += 8) {
    for (size_t c = 0; c < 4; ++c) rows_acc[r * kCols + c] = c < 3 ? 3 : (1 << 25) + 1;
    // (in other rows than the ties: a row with a lane to redo is redone whole)
    for (size_t c = 4; c < 8; ++c) rows_acc[(r + 4) * kCols + c] = acc[c - 4];
  }
  for (bool with_bias : {false, true}) {
    const int32_t* b = with_bias ? col_bias.data() : nullptr;
    for (int32_t zp : {0, 3, 250}) {
      std::vector<uint8_t> fast(kRows * kCols), slow(kRows * kCols);
      cpu::RequantizeRowsAvx512(rows_acc.data(), kCols, kRows, kCols, b, col_mult.data(), zp, false,
                                fast.data(), kCols);
      for (size_t r = 0; r < kRows; ++r) {
        cpu::RequantizeChannels(rows_acc.data() + r * kCols, kCols, b, col_mult.data(), zp,
                                slow.data() + r * kCols);
      }
      EXPECT_EQ(fast, slow) << "rows, bias " << with_bias << " zp " << zp;
    }
  }
}

}  // namespace
}  // namespace kiln::testing
