// NhwcConv (ai.kiln, opset 1): 2-D convolution on channels-last input X [N, H, W, C] with ONNX
// Conv's attributes (auto_pad, dilations, group, kernel_shape, pads, strides), W [M, C/group, kH,
// kW] (OIHW, a constant initializer, repacked once), optional B [M] and Z [N, OH, OW, M], and the
// fused activation of conv_epilogue.h: Y [N, OH, OW, M] = act(conv(X, W) + B + Z). float only.
//
// Paths: depthwise (C/group == 1, group > 1) is a direct loop vectorized along the channels, for
// multiplier 1 and square 3×3 / 5×5 kernels register-tiled with the epilogue on the sums (see
// DwRowFast), otherwise a general loop followed by the epilogue; 3×3, stride 1, undilated, one
// group with 16–512 channels on both sides runs as Winograd F(2×2, 3×3) (nhwc_winograd.h);
// everything else multiplies blocks of output pixels, [P, kH·kW·C/group] · [kH·kW·C/group, M/group]
// per group, the left side being X itself for a 1×1, stride 1, unpadded kernel and an im2col of
// the block (contiguous C-runs per tap) otherwise, the right side the weights packed once for
// PackedGemm. Blocks run in parallel and get the epilogue while they are still in cache.
//
// Attribute `input_channels` (ints, optional; set by the optimizer's nhwc_concat_split pass when
// it absorbs a Concat): X comes in parts along the channels, input 0 holding the first
// input_channels[0] of them and inputs 4, 5, ... the next ones in order. Only for a 1×1 kernel
// with one group, stride 1 and no padding: each part is multiplied by its rows of W and the
// products summed (Y = Σ X_i·W_i), so the concatenation is never written.
//
// Attribute `channel_scale` (int, 0 or 1; set by the optimizer's nhwc_scale_fusion pass): input 4
// is S [N or 1, 1, 1, C], and the product is of X·S (each image's channels scaled, as a
// squeeze-and-excitation block's Mul does) — scaled block by block into the scratch the product
// reads, so the scaled X is never written whole. The same restrictions as input_channels; not
// with it.
//
// Attribute `expand` (int, 0 or 1; set by the optimizer's nhwc_expand_fusion pass): X [N, H, W, c]
// is first expanded by a 1×1 convolution, input 4 WE [M, c, 1, 1] (a constant, packed once),
// input 5 BE [M] (optional) and attributes expand_activation / expand_activation_params (as
// activation's), and the depthwise convolution reads that expansion, made band by band
// (RunExpandDepthwise). Only for layers the depthwise fast path runs whole: one output channel per
// group, M a multiple of 16, a 3×3 or 5×5 kernel, horizontal stride 1 or 2, no dilation; not with
// input_channels or channel_scale.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_kernels.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nhwc/nhwc_winograd.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nhwc::TapRange;
using nhwc::Taps;
using nn::WindowGeometry;

// 256 KB of floats for the im2col block and its output block: measured on ResNet-50 layers,
// anything from 48 to 256 pixels per block runs at the same speed; 1 MB blocks are 40% slower.
constexpr size_t kBlockFloats = size_t{64} * 1024;
// The fewest pixels per block (four tiles of the AVX-512 kernel's 12 rows); below that many per
// thread a layer splits its output channels instead.
constexpr size_t kMinBlockPixels = 48;
// Pixels per block from which the weights' trips from L3 cost little (see RunGemmPath).
constexpr size_t kReuseBlockPixels = 256;
// The largest whole-image unfolding (floats, 16 MB) for layers with too few pixels to block.
constexpr size_t kWholeImageFloats = size_t{4} << 20;

// The sizes of one call.
struct Problem {
  size_t batch = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t channels = 0;        // C
  size_t features = 0;        // M
  size_t groups = 1;          // group
  size_t group_channels = 0;  // C / group
  size_t group_features = 0;  // M / group
  WindowGeometry g;
};

struct Operands {
  const float* x;
  const float* w;                       // depthwise: [kH·kW, M]
  const std::vector<PackedMatrix>* gw;  // otherwise: one [kH·kW·C/group, M/group] per group
  const float* bias;                    // nullptr when absent
  const float* z;                       // nullptr when absent
  float* y;
  // X in parts along the channels (input_channels): part i starts at parts[i] and has
  // part_channels[i] channels, and gw holds one PackedMatrix per part. Null otherwise.
  const float* const* parts = nullptr;
  const size_t* part_channels = nullptr;
  size_t part_count = 0;
  // channel_scale: S, one row of C per image (scale_images of them: 1 or N). Null otherwise.
  const float* scale = nullptr;
  size_t scale_images = 0;
};

// dst[c] = src[c]·s[c] for c < n.
KILN_VECTOR_CLONES void ScaleRow(const float* src, const float* s, float* dst, size_t n) {
  for (size_t c = 0; c < n; ++c) dst[c] = src[c] * s[c];
}

// Channels [c0, c0 + kWidth) of one depthwise output pixel (multiplier 1), summed in registers.
template <size_t kWidth>
[[gnu::always_inline]] inline void ChunkSum(const Problem& p, const float* x_image, const float* w,
                                            TapRange ry, TapRange rx, int64_t iy0, int64_t ix0,
                                            size_t c0, float* acc) {
  const WindowGeometry& g = p.g;
  float sum[kWidth] = {};
  for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
    const int64_t iy = iy0 + ky * g.dilation[0];
    for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
      const int64_t ix = ix0 + kx * g.dilation[1];
      const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * p.channels + c0;
      const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * p.features + c0;
      for (size_t j = 0; j < kWidth; ++j) sum[j] += wp[j] * xp[j];
    }
  }
  for (size_t j = 0; j < kWidth; ++j) acc[c0 + j] = sum[j];
}

// The taps along the row of output column ox; the columns [inner.lo, inner.hi) have all of them
// (no divisions there: they would cost as much as the arithmetic of a narrow layer).
[[gnu::always_inline]] inline TapRange ColumnTaps(const Problem& p, TapRange inner, int64_t ox) {
  const WindowGeometry& g = p.g;
  return ox >= inner.lo && ox < inner.hi
             ? TapRange{0, g.kernel[1]}
             : Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], p.in_w, g.kernel[1]);
}

// Channels [c0, c0 + kWidth) of a whole output row (multiplier 1): the chunk's weights stay in
// L1 across the row, its sums in registers across the taps.
template <size_t kWidth>
[[gnu::always_inline]] inline void RowChunk(const Problem& p, const float* x_image, const float* w,
                                            TapRange ry, TapRange inner, int64_t iy0, size_t c0,
                                            int64_t ox_begin, int64_t ox_end, float* y_row) {
  const WindowGeometry& g = p.g;
  const int64_t sx = g.stride[1];
  const auto column = [&](int64_t ox) {
    ChunkSum<kWidth>(p, x_image, w, ry, ColumnTaps(p, inner, ox), iy0, ox * sx - g.pad_begin[1], c0,
                     y_row + static_cast<size_t>(ox) * p.features);
  };
  int64_t ox = ox_begin;
  for (; ox < std::min(inner.lo, ox_end); ++ox) column(ox);
  // Two inner columns at once: twice the independent sums (FMA latency), one weight load for two.
  const auto x_step = static_cast<size_t>(sx) * p.channels;
  for (; ox + 2 <= std::min(inner.hi, ox_end); ox += 2) {
    float sum0[kWidth] = {};
    float sum1[kWidth] = {};
    const int64_t ix0 = ox * sx - g.pad_begin[1];
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
        const int64_t ix = ix0 + kx * g.dilation[1];
        const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * p.channels + c0;
        const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * p.features + c0;
        for (size_t j = 0; j < kWidth; ++j) {
          sum0[j] += wp[j] * xp[j];
          sum1[j] += wp[j] * xp[x_step + j];
        }
      }
    }
    float* y0 = y_row + static_cast<size_t>(ox) * p.features + c0;
    for (size_t j = 0; j < kWidth; ++j) {
      y0[j] = sum0[j];
      y0[p.features + j] = sum1[j];
    }
  }
  for (; ox < ox_end; ++ox) column(ox);
}

// The fast depthwise path (multiplier 1, square 3×3 or 5×5 kernel, horizontal stride 1 or 2,
// horizontal dilation 1; any vertical stride and dilation): channels in chunks of 16 (one
// AVX-512 register; GCC splits the vector for the AVX2 and baseline clones), each chunk's K·K
// weights loaded into registers once per row, tiles of kCols output columns whose inputs are all
// inside the image computed without bounds checks (each input vector loaded once and used by every
// column of the tile that reads it), and the epilogue applied to the sums before they are stored.
// Measured on MobileNetV2 / EfficientNet-B0 layers: 41–90 GFLOP/s, up from 7–65 for the general
// loop.
//
// GCC's -std=c++20 turns floating-point contraction off; here a fused multiply-add is what we
// want. (Clang contracts within an expression by default.) Every function that takes or returns
// an F16 by value is inlined, so no call passes one: GCC's warning that the AVX2 and baseline
// clones would pass it differently does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#define KILN_CONTRACT __attribute__((optimize("fp-contract=fast")))
#pragma GCC diagnostic ignored "-Wpsabi"
#else
#define KILN_CONTRACT
#endif

// Clang builds (the fuzz preset) have no target clones here, so these 16-float vectors are
// passed between internal functions without AVX-512 enabled: Clang warns that this would change
// the ABI, which does not matter for functions no other file calls.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif
using F16 = float __attribute__((vector_size(64)));

[[gnu::always_inline]] inline F16 Load16(const float* p) {
  F16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline void Store16(float* p, F16 v) {
  std::memcpy(p, &v, sizeof v);
}

// What the fast path applies to its sums in registers: nothing, or min(max(v, lo), hi) (Clip, and
// Relu as Clip(0, +inf), the activations of MobileNets). Other activations (Swish, …) go over the
// row afterwards, while it is in cache: instantiating the tiles for every one of them would
// multiply the compile time for little gain.
enum class DwAct { kNone, kClip };

template <DwAct A>
[[gnu::always_inline]] inline F16 Activate16(F16 v, float lo, float hi) {
  if constexpr (A == DwAct::kClip) {
    v = v < lo ? F16{} + lo : v;
    v = v > hi ? F16{} + hi : v;
  }
  return v;
}

// What one fast row reads besides the input.
struct DwRow {
  const float* x;    // the image
  int64_t row_step;  // floats between the input rows of two kernel rows
  TapRange ry;       // the kernel rows inside the image
  int64_t iy0;       // input row of kernel row 0
  const float* z;    // the row of Z, or nullptr
  float* y;          // the output row
  float lo, hi;      // the Clip of DwAct::kClip
};

// kCols output columns from ox on, channels [c0, c0 + 16): acc = bias + Σ w·x over the kernel rows
// in r.ry and, with kBorder (then kCols is 1), the kernel columns in rx only.
template <int K, int S, int kCols, bool kBorder, DwAct A>
[[gnu::always_inline]] KILN_CONTRACT inline void DwTile(const Problem& p, const DwRow& r,
                                                        const F16 (&w)[K * K], F16 bias,
                                                        TapRange rx, int64_t ox, size_t c0) {
  const auto c = static_cast<int64_t>(p.channels);
  const int64_t ix0 = ox * S - p.g.pad_begin[1];
  // Signed: ix0 is negative at the left border, where those taps are skipped.
  const int64_t base = (r.iy0 * p.in_w + ix0) * c + static_cast<int64_t>(c0);
  F16 acc[kCols];
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) acc[j] = bias;
#pragma GCC unroll 8
  for (int ky = 0; ky < K; ++ky) {
    if (ky < r.ry.lo || ky >= r.ry.hi) continue;
    const int64_t row = base + ky * r.row_step;
#pragma GCC unroll 32
    for (int i = 0; i < (kCols - 1) * S + K; ++i) {
      if (kBorder && (i < rx.lo || i >= rx.hi)) continue;
      const F16 xv = Load16(r.x + row + i * c);
#pragma GCC unroll 16
      for (int j = 0; j < kCols; ++j) {
        const int kx = i - j * S;
        if (kx >= 0 && kx < K) acc[j] += w[ky * K + kx] * xv;
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) {
    const size_t at = static_cast<size_t>(ox + j) * p.features + c0;
    F16 v = acc[j];
    if (r.z != nullptr) v += Load16(r.z + at);
    Store16(r.y + at, Activate16<A>(v, r.lo, r.hi));
  }
}

// Channels [c_begin, c_end) (16 | c_end - c_begin) of one output row of the fast path.
template <int K, int S, DwAct A>
KILN_VECTOR_CLONES KILN_CONTRACT void DwRowFast(const Problem& p, const DwRow& r, const float* w,
                                                const float* bias, TapRange inner, size_t c_begin,
                                                size_t c_end) {
  // 8 columns × 1 register of sums and 9 of weights for 3×3; 4 + 25 for 5×5 (of 32 registers).
  constexpr int kCols = K == 3 ? 8 : 4;
  for (size_t c0 = c_begin; c0 < c_end; c0 += 16) {
    F16 wv[K * K];
#pragma GCC unroll 32
    for (int t = 0; t < K * K; ++t) wv[t] = Load16(w + static_cast<size_t>(t) * p.features + c0);
    const F16 bv = bias != nullptr ? Load16(bias + c0) : F16{};
    int64_t ox = 0;
    for (; ox < inner.lo; ++ox) {
      const TapRange rx = Taps(ox, S, 1, p.g.pad_begin[1], p.in_w, K);
      DwTile<K, S, 1, true, A>(p, r, wv, bv, rx, ox, c0);
    }
    for (; ox + kCols <= inner.hi; ox += kCols) {
      DwTile<K, S, kCols, false, A>(p, r, wv, bv, {0, K}, ox, c0);
    }
    for (; ox < inner.hi; ++ox) DwTile<K, S, 1, false, A>(p, r, wv, bv, {0, K}, ox, c0);
    for (; ox < p.out_w; ++ox) {
      const TapRange rx = Taps(ox, S, 1, p.g.pad_begin[1], p.in_w, K);
      DwTile<K, S, 1, true, A>(p, r, wv, bv, rx, ox, c0);
    }
  }
}

using DwRowFn = void (*)(const Problem&, const DwRow&, const float*, const float*, TapRange, size_t,
                         size_t);

// The fast row function for p and the activation (nullptr where the fast path does not apply),
// the bounds of its Clip, and whether the activation still has to be applied after it.
struct FastRow {
  DwRowFn fn = nullptr;
  float lo = 0.0f, hi = 0.0f;
  bool activation_after = false;
};

template <DwAct A>
DwRowFn FastRowFn(const WindowGeometry& g) {
  const bool k3 = g.kernel[0] == 3;
  const bool k5 = g.kernel[0] == 5;
  if (k3 && g.stride[1] == 1) return &DwRowFast<3, 1, A>;
  if (k3 && g.stride[1] == 2) return &DwRowFast<3, 2, A>;
  if (k5 && g.stride[1] == 1) return &DwRowFast<5, 1, A>;
  if (k5 && g.stride[1] == 2) return &DwRowFast<5, 2, A>;
  return nullptr;
}

FastRow PickFastRow(const Problem& p, const nn::Epilogue& e) {
  const WindowGeometry& g = p.g;
  FastRow f;
  if (p.features != p.channels || g.kernel[0] != g.kernel[1] || g.dilation[1] != 1 ||
      p.channels < 16) {
    return f;
  }
  if (e.activation == nn::Activation::kClip || e.activation == nn::Activation::kRelu) {
    f.fn = FastRowFn<DwAct::kClip>(g);
    const bool relu = e.activation == nn::Activation::kRelu;
    f.lo = relu ? 0.0f : e.alpha;
    f.hi = relu ? std::numeric_limits<float>::infinity() : e.beta;
  } else {
    f.fn = FastRowFn<DwAct::kNone>(g);
    f.activation_after = e.activation != nn::Activation::kNone;
  }
  return f;
}

// The output columns [lo, hi) whose kernel columns are all inside the image.
TapRange InnerColumns(const Problem& p) {
  const WindowGeometry& g = p.g;
  const int64_t sx = g.stride[1];
  const int64_t room = p.in_w - (g.kernel[1] - 1) * g.dilation[1] + g.pad_begin[1];
  TapRange inner;
  inner.lo = std::min(p.out_w, nn::CeilDiv(g.pad_begin[1], sx));
  inner.hi = std::max(inner.lo, std::min(p.out_w, room <= 0 ? 0 : nn::CeilDiv(room, sx)));
  return inner;
}

// One output row (image n, row oy) of a depthwise convolution, before the epilogue: w is
// [kH·kW, M] and output channel m reads input channel m / (M / C). With multiplier 1, channels
// [c_begin, c_end) only; otherwise all of them. The path for what the fast one does not cover.
KILN_VECTOR_CLONES void DepthwiseRow(const Problem& p, const float* x_image, const float* w,
                                     int64_t oy, size_t c_begin, size_t c_end, float* y_row) {
  const WindowGeometry& g = p.g;
  const size_t c_in = p.channels;
  const size_t m_out = p.features;
  const size_t mult = m_out / c_in;
  const TapRange ry = Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]);
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  const int64_t sx = g.stride[1];
  const TapRange inner = InnerColumns(p);
  if (mult == 1) {
    // Blocks of 8 columns (their input stays in L1 for a few hundred channels), and in each
    // chunks of 64 channels, then 16, 8, 1 (a chunk's weights stay in L1 for any C).
    for (int64_t b = 0; b < p.out_w; b += 8) {
      const int64_t e = std::min(p.out_w, b + 8);
      size_t c0 = c_begin;
      for (; c0 + 64 <= c_end; c0 += 64)
        RowChunk<64>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 16 <= c_end; c0 += 16)
        RowChunk<16>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 8 <= c_end; c0 += 8) RowChunk<8>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 < c_end; ++c0) RowChunk<1>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
    }
    return;
  }
  for (int64_t ox = 0; ox < p.out_w; ++ox) {
    float* acc = y_row + static_cast<size_t>(ox) * m_out;
    const TapRange rx = ColumnTaps(p, inner, ox);
    const int64_t ix0 = ox * sx - g.pad_begin[1];
    std::fill(acc, acc + m_out, 0.0f);
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
        const int64_t ix = ix0 + kx * g.dilation[1];
        const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * c_in;
        const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * m_out;
        for (size_t c = 0; c < c_in; ++c) {
          for (size_t j = 0; j < mult; ++j) acc[c * mult + j] += wp[c * mult + j] * xp[c];
        }
      }
    }
  }
}

void RunDepthwise(const Problem& p, const Operands& o, const nn::Epilogue& e, ThreadPool& pool) {
  const WindowGeometry& g = p.g;
  const size_t rows = p.batch * static_cast<size_t>(p.out_h);
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const FastRow fast = PickFastRow(p, e);
  // The fast path takes whole chunks of 16 channels; the rest go the general way.
  const size_t fast_end = fast.fn != nullptr ? p.channels / 16 * 16 : 0;
  const TapRange inner = InnerColumns(p);
  // With fewer rows than about four per thread (a 7×7 or 14×14 image), the rows are also split
  // along the channels, in multiples of 16, so that the threads get even shares.
  const size_t units = (p.features + 15) / 16;
  size_t parts = 1;
  if (p.features == p.channels) {
    const size_t want = 4 * static_cast<size_t>(pool.size());
    parts = std::clamp<size_t>((want + rows - 1) / rows, 1, std::max<size_t>(1, units / 4));
  }
  // One contiguous share of rows per thread (ParallelForShares): the rows the previous layer's
  // thread wrote stay with it. A small layer runs on this thread alone.
  const size_t work = rows * row_size * g.kernel_size;
  const auto run = [&](size_t begin, size_t end) {
    for (size_t item = begin; item < end; ++item) {
      const size_t r = item / parts;
      const size_t part = item % parts;
      const size_t c_begin = std::min(p.features, part * units / parts * 16);
      const size_t c_end = std::min(p.features, (part + 1) * units / parts * 16);
      const size_t n = r / static_cast<size_t>(p.out_h);
      const auto oy = static_cast<int64_t>(r % static_cast<size_t>(p.out_h));
      const float* x_image = o.x + n * static_cast<size_t>(p.in_h * p.in_w) * p.channels;
      float* y_row = o.y + r * row_size;
      const float* z_row = o.z != nullptr ? o.z + r * row_size : nullptr;
      if (c_begin < std::min(c_end, fast_end)) {
        const DwRow dr = {x_image,
                          g.dilation[0] * p.in_w * static_cast<int64_t>(p.channels),
                          Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]),
                          oy * g.stride[0] - g.pad_begin[0],
                          z_row,
                          y_row,
                          fast.lo,
                          fast.hi};
        const size_t fast_stop = std::min(c_end, fast_end);
        fast.fn(p, dr, o.w, o.bias, inner, c_begin, fast_stop);
        if (fast.activation_after) {
          // B and Z are in the sums already.
          nn::ApplyEpilogueRows(e, y_row + c_begin, static_cast<size_t>(p.out_w),
                                fast_stop - c_begin, p.features, nullptr, nullptr, p.features);
        }
      }
      const size_t rest = std::max(c_begin, fast_end);
      if (rest < c_end) {
        DepthwiseRow(p, x_image, o.w, oy, rest, c_end, y_row);
        nn::ApplyEpilogueRows(e, y_row + rest, static_cast<size_t>(p.out_w), c_end - rest,
                              p.features, o.bias != nullptr ? o.bias + rest : nullptr,
                              z_row != nullptr ? z_row + rest : nullptr, p.features);
      }
    }
  };
  if (work < 32768) {
    run(0, rows * parts);
  } else {
    pool.ParallelForShares(rows * parts, run);
  }
}

// The expansion of a depthwise NhwcConv with attribute `expand`: X's rows are multiplied by a
// 1×1 convolution's weights (bias and activation after) into the depthwise convolution's input.
struct Expansion {
  const float* x = nullptr;         // [N, H, W, c]
  size_t channels = 0;              // c
  const PackedMatrix* w = nullptr;  // [c, M]
  const float* bias = nullptr;      // [M], or nullptr
  const nn::Epilogue* e = nullptr;  // the expansion's activation
};

// Floats of expanded rows a thread keeps: 384 KB, in L2 with the depthwise layer's weights and
// output rows.
constexpr size_t kExpandedFloats = size_t{96} << 10;

// The depthwise convolution of the expansion of X (the fast path's conditions hold: the
// constructor checked them), band by band: each thread expands the input rows the next few output
// rows read into its scratch, keeping those the band before already expanded, and convolves them
// there. The expanded tensor ([N, H, W, M], M several times c) is never written whole: for an
// inverted-residual block at 112×112 it is 4.8 MB an image, which the separate layers write to
// L3 (or, several images at once, to memory) and read back.
void RunExpandDepthwise(const Problem& p, const Operands& o, const Expansion& x,
                        const nn::Epilogue& e, KernelContext& ctx) {
  const WindowGeometry& g = p.g;
  const FastRow fast = PickFastRow(p, e);
  if (fast.fn == nullptr || p.channels % 16 != 0) {
    ctx.info().Fail(ErrorCode::kEngineError,
                    "the expanded depthwise path has no fast row function");
  }
  const TapRange inner = InnerColumns(p);
  const size_t row_floats = static_cast<size_t>(p.in_w) * p.features;  // one expanded row
  const int64_t sy = g.stride[0];
  const int64_t span = (g.kernel[0] - 1) * g.dilation[0] + 1;  // input rows an output row reads
  const int64_t cap = std::max<int64_t>(span, static_cast<int64_t>(kExpandedFloats / row_floats));
  const int64_t band = (cap - span) / sy + 1;  // output rows per band
  const auto cap_rows = static_cast<size_t>((band - 1) * sy + span);
  const auto out_h = static_cast<size_t>(p.out_h);
  const size_t rows = p.batch * out_h;
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const size_t in_plane = static_cast<size_t>(p.in_h * p.in_w);
  const auto run = [&](size_t begin, size_t end) {
    float* buf = ctx.Scratch<float>(cap_rows * row_floats);
    size_t image = p.batch;  // buf holds expanded rows [lo, hi) of this image (none yet)
    int64_t lo = 0;
    int64_t hi = 0;
    for (size_t r = begin; r < end;) {
      const size_t n = r / out_h;
      const auto o0 = static_cast<int64_t>(r % out_h);
      const int64_t o1 = std::min({o0 + band, p.out_h, o0 + static_cast<int64_t>(end - r)});
      const int64_t need_lo = std::clamp<int64_t>(o0 * sy - g.pad_begin[0], 0, p.in_h);
      const int64_t need_hi =
          std::clamp<int64_t>((o1 - 1) * sy - g.pad_begin[0] + span, need_lo, p.in_h);
      if (image == n && need_lo >= lo && need_lo <= hi) {
        // The rows this band shares with the last one move to the front.
        if (need_lo > lo) {
          std::memmove(buf, buf + static_cast<size_t>(need_lo - lo) * row_floats,
                       static_cast<size_t>(hi - need_lo) * row_floats * sizeof(float));
        }
        lo = need_lo;
      } else {
        image = n;
        lo = hi = need_lo;
      }
      if (need_hi > hi) {
        const size_t m = static_cast<size_t>(need_hi - hi) * static_cast<size_t>(p.in_w);
        float* dst = buf + static_cast<size_t>(hi - lo) * row_floats;
        const float* src = x.x + (n * in_plane + static_cast<size_t>(hi * p.in_w)) * x.channels;
        PackedGemm(m, src, x.channels, *x.w, 0, p.features, dst, p.features, false);
        nn::ApplyEpilogueRows(*x.e, dst, m, p.features, p.features, x.bias, nullptr, p.features);
        hi = need_hi;
      }
      for (int64_t oy = o0; oy < o1; ++oy, ++r) {
        float* y_row = o.y + r * row_size;
        const DwRow dr = {buf,
                          g.dilation[0] * p.in_w * static_cast<int64_t>(p.channels),
                          Taps(oy, sy, g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]),
                          oy * sy - g.pad_begin[0] - lo,  // rows of buf, not of the image
                          o.z != nullptr ? o.z + r * row_size : nullptr,
                          y_row,
                          fast.lo,
                          fast.hi};
        fast.fn(p, dr, o.w, o.bias, inner, 0, p.features);
        if (fast.activation_after) {
          nn::ApplyEpilogueRows(e, y_row, static_cast<size_t>(p.out_w), p.features, p.features,
                                nullptr, nullptr, p.features);
        }
      }
    }
  };
  const size_t work = rows * row_size * (g.kernel_size + x.channels);
  if (work < 32768) {
    run(0, rows);
  } else {
    ctx.threads().ParallelForShares(rows, run);
  }
}

// The row stride of an unfolded (or scaled) copy of X with rows of k floats: k, or one cache line
// more when k is a multiple of 4 KB, whose rows would all fall in one set of the L1 cache and
// make PackedGemm pack them first (once per part of the output channels when shared out).
constexpr size_t ColStride(size_t k) {
  return k % 1024 == 0 ? k + 16 : k;
}

// Copies n floats (n is often small: C = 3 for a first layer).
inline void CopyRun(const float* src, size_t n, float* dst) {
  std::memcpy(dst, src, n * sizeof(float));
}

// Im2ColBlock for one group with dense columns: each kernel row's taps inside the image are one
// run of X, of kRun floats when kRun is not 0 (a size known here, so that the copy is a few
// vector moves instead of a call: the short runs of first layers, 3×3 and 7×7 kernels over 3 or
// 4 channels). Walks the pixels row by row, so nothing is divided per pixel.
template <size_t kRun>
void Im2ColRuns(const Problem& p, const float* x, size_t begin, size_t end, float* col,
                size_t ldcol) {
  const WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const auto kh = g.kernel[0];
  const auto kw = g.kernel[1];
  const size_t run = kRun != 0 ? kRun : static_cast<size_t>(kw) * c;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  const auto out_w = static_cast<size_t>(p.out_w);
  size_t pix = begin;
  while (pix < end) {
    const size_t n = pix / plane;
    const auto oy = static_cast<int64_t>((pix % plane) / out_w);
    const size_t row_end = std::min(end, pix - pix % out_w + out_w);
    const float* image = x + n * static_cast<size_t>(p.in_h * p.in_w) * c;
    const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
    for (auto ox = static_cast<int64_t>(pix % out_w); pix < row_end; ++pix, ++ox) {
      float* dst = col + (pix - begin) * ldcol;
      const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
      const TapRange rx = Taps(ox, g.stride[1], 1, g.pad_begin[1], p.in_w, kw);
      const bool whole = rx.lo == 0 && rx.hi == kw;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const int64_t iy = iy0 + ky * g.dilation[0];
        float* d = dst + static_cast<size_t>(ky * kw) * c;
        if (iy < 0 || iy >= p.in_h) {
          std::fill(d, d + run, 0.0f);
          continue;
        }
        if (whole) {
          std::memcpy(d, image + static_cast<size_t>(iy * p.in_w + ix0) * c, run * sizeof(float));
          continue;
        }
        std::fill(d, d + static_cast<size_t>(rx.lo) * c, 0.0f);
        if (rx.hi > rx.lo) {
          CopyRun(image + static_cast<size_t>(iy * p.in_w + ix0 + rx.lo) * c,
                  static_cast<size_t>(rx.hi - rx.lo) * c, d + static_cast<size_t>(rx.lo) * c);
        }
        std::fill(d + static_cast<size_t>(rx.hi) * c, d + run, 0.0f);
      }
    }
  }
}

// Unfolds output pixels [begin, end) (flat over N·OH·OW) into col, one row of k = kH·kW·C
// elements per pixel (rows ldcol apart), ordered [group][tap][C/group], zeros in the padding.
void Im2ColBlock(const Problem& p, const float* x, size_t begin, size_t end, float* col,
                 size_t ldcol) {
  const WindowGeometry& g = p.g;
  // With one group and dense columns, a kernel row's taps inside the image are one contiguous run.
  if (p.groups == 1 && g.dilation[1] == 1) {
    switch (static_cast<size_t>(g.kernel[1]) * p.channels) {
      case 9:
        return Im2ColRuns<9>(p, x, begin, end, col, ldcol);
      case 12:
        return Im2ColRuns<12>(p, x, begin, end, col, ldcol);
      case 21:
        return Im2ColRuns<21>(p, x, begin, end, col, ldcol);
      case 28:
        return Im2ColRuns<28>(p, x, begin, end, col, ldcol);
      default:
        return Im2ColRuns<0>(p, x, begin, end, col, ldcol);
    }
  }
  const size_t c = p.channels;
  const size_t cg = p.group_channels;
  const auto kh = g.kernel[0];
  const auto kw = g.kernel[1];
  const size_t group_k = g.kernel_size * cg;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  for (size_t pix = begin; pix < end; ++pix) {
    float* dst = col + (pix - begin) * ldcol;
    const size_t n = pix / plane;
    const auto oy = static_cast<int64_t>(pix % plane) / p.out_w;
    const auto ox = static_cast<int64_t>(pix % plane) % p.out_w;
    const float* image = x + n * static_cast<size_t>(p.in_h * p.in_w) * c;
    const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
    const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
    const TapRange rx = Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], p.in_w, kw);
    for (int64_t ky = 0; ky < kh; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      const bool row_inside = iy >= 0 && iy < p.in_h;
      for (int64_t kx = 0; kx < kw; ++kx) {
        const auto tap = static_cast<size_t>(ky * kw + kx);
        const bool inside = row_inside && kx >= rx.lo && kx < rx.hi;
        const float* src =
            inside ? image + static_cast<size_t>(iy * p.in_w + ix0 + kx * g.dilation[1]) * c
                   : nullptr;
        for (size_t grp = 0; grp < p.groups; ++grp) {
          float* d = dst + grp * group_k + tap * cg;
          if (inside) {
            CopyRun(src + grp * cg, cg, d);
          } else {
            std::fill(d, d + cg, 0.0f);
          }
        }
      }
    }
  }
}

void RunGemmPath(const Problem& p, const Operands& o, const nn::Epilogue& e, KernelContext& ctx) {
  const size_t pixels = p.batch * static_cast<size_t>(p.out_h * p.out_w);
  const size_t k = p.g.kernel_size * p.channels;  // im2col row length, all groups
  const size_t group_k = p.g.kernel_size * p.group_channels;
  const bool pointwise = p.g.IsPointwise();
  const std::vector<PackedMatrix>& weights = *o.gw;
  const size_t threads = static_cast<size_t>(ctx.threads().size());
  if (threads > 1 && pixels < kMinBlockPixels * threads && pixels * k <= kWholeImageFloats) {
    // Too few pixels to give each thread a block (deep layers): unfold (or scale) the whole image
    // once and let one product per group (or per part of X) split its rows and output channels
    // over the pool.
    const float* a = o.x;
    size_t lda = p.channels;
    if (!pointwise || o.scale != nullptr) {
      const size_t ldcol = ColStride(k);
      float* col = ctx.Scratch<float>(pixels * ldcol);
      const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
      ctx.threads().ParallelFor(pixels, 8, [&](size_t begin, size_t end) {
        if (!pointwise) {
          Im2ColBlock(p, o.x, begin, end, col + begin * ldcol, ldcol);
          return;
        }
        for (size_t r = begin; r < end; ++r) {
          const size_t image = o.scale_images == 1 ? 0 : r / plane;
          ScaleRow(o.x + r * p.channels, o.scale + image * p.channels, col + r * ldcol, p.channels);
        }
      });
      a = col;
      lda = ldcol;
    }
    for (size_t i = 0; i < o.part_count; ++i) {
      PackedGemm(pixels, o.parts[i], o.part_channels[i], weights[i], o.y, p.features,
                 &ctx.threads(), i > 0);
    }
    for (size_t grp = 0; o.parts == nullptr && grp < p.groups; ++grp) {
      const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
      PackedGemm(pixels, ag, lda, weights[grp], o.y + grp * p.group_features, p.features,
                 &ctx.threads());
    }
    ctx.threads().ParallelFor(pixels, 8, [&](size_t begin, size_t end) {
      nn::ApplyEpilogueRows(e, o.y + begin * p.features, end - begin, p.features, p.features,
                            o.bias, o.z != nullptr ? o.z + begin * p.features : nullptr,
                            p.features);
    });
    return;
  }
  // Blocks that fit the cache, but at least kReuseBlockPixels (or one per thread): every block
  // reads all the weights, which for deep layers come from L3. Then equal sizes, so no block is
  // a sliver that the micro-kernel runs slowly.
  const size_t per_thread = (pixels + threads - 1) / threads;
  const size_t fit = std::clamp<size_t>(kBlockFloats / (k + p.features), kMinBlockPixels, 4096);
  const size_t target = std::max(fit, std::min(kReuseBlockPixels, per_thread));
  // A whole number of blocks per thread, so that no thread waits on another's extra block; the
  // pixels shared out so that block sizes differ by at most one (and every block starts inside
  // the image: rounding the size up instead can put the last blocks past the end). Each thread
  // takes one contiguous share of blocks (ParallelForShares), so the pixels it reads are mostly
  // the ones it wrote in the previous layer.
  const size_t blocks = (pixels + target * threads - 1) / (target * threads) * threads;
  const size_t block = (pixels + blocks - 1) / blocks;  // the largest
  ctx.threads().ParallelForShares(blocks, [&](size_t first, size_t last) {
    const size_t ldcol = ColStride(k);
    float* col = pointwise && o.scale == nullptr ? nullptr : ctx.Scratch<float>(block * ldcol);
    for (size_t b = first; b < last; ++b) {
      const size_t begin = PartStart(pixels, blocks, b);
      const size_t rows = PartStart(pixels, blocks, b + 1) - begin;
      if (rows == 0) continue;  // more threads than pixels
      // (With X in parts, o.x is only part 0: the parts' own rows are read below.)
      const float* a = o.parts == nullptr ? o.x + begin * p.channels : nullptr;
      size_t lda = p.channels;
      if (!pointwise) {
        Im2ColBlock(p, o.x, begin, begin + rows, col, ldcol);
        a = col;
        lda = ldcol;
      } else if (o.scale != nullptr) {
        const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
        for (size_t r = 0; r < rows; ++r) {
          const size_t image = o.scale_images == 1 ? 0 : (begin + r) / plane;
          ScaleRow(a + r * p.channels, o.scale + image * p.channels, col + r * ldcol, p.channels);
        }
        a = col;
        lda = ldcol;
      }
      float* y = o.y + begin * p.features;
      // X in parts (pointwise, one group): the parts' products summed into the block.
      for (size_t i = 0; i < o.part_count; ++i) {
        const size_t c = o.part_channels[i];
        PackedGemm(rows, o.parts[i] + begin * c, c, weights[i], 0, p.features, y, p.features,
                   i > 0);
      }
      for (size_t grp = 0; o.parts == nullptr && grp < p.groups; ++grp) {
        // A pointwise group's columns start at its first channel; an im2col group's at its block.
        const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
        PackedGemm(rows, ag, lda, weights[grp], 0, p.group_features, y + grp * p.group_features,
                   p.features, false);
      }
      nn::ApplyEpilogueRows(e, y, rows, p.features, p.features, o.bias,
                            o.z != nullptr ? o.z + begin * p.features : nullptr, p.features);
    }
  });
}

class NhwcConv final : public Kernel {
 public:
  explicit NhwcConv(const KernelInfo& info)
      : attrs_(nn::ReadWindowAttrs(info, {.kernel_required = false})),
        group_(info.GetInt("group", 1)),
        epilogue_(nn::ReadEpilogue(info)) {
    if (group_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'group' is " + std::to_string(group_) + "; it must be positive");
    }
    const Tensor* w = info.ConstantInput(1);
    if (w == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "input 'W' is not a constant initializer; NhwcConv repacks its weights once");
    }
    nhwc::RequireFloat(info, "W", *w);
    const Shape& ws = w->shape();
    if (ws.rank() != 4) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + ws.ToString() + "; it needs rank 4 (M, C/group, kH, kW)");
    }
    features_ = ws.dims()[0];
    group_channels_ = ws.dims()[1];
    kernel_ = {ws.dims()[2], ws.dims()[3]};
    if (features_ % group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'W' has " + std::to_string(features_) +
                                                 " output channels, which attribute 'group' " +
                                                 std::to_string(group_) + " does not divide");
    }
    if (kernel_[0] == 0 || kernel_[1] == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + ws.ToString() + "; kernel sizes must be positive");
    }
    if (!attrs_.kernel_shape.empty() &&
        (attrs_.kernel_shape.size() != 2 || attrs_.kernel_shape[0] != kernel_[0] ||
         attrs_.kernel_shape[1] != kernel_[1])) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'kernel_shape' does not match input 'W' " + ws.ToString());
    }
    depthwise_ = group_ > 1 && group_channels_ == 1;
    const auto all_one = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; });
    };
    winograd_ =
        group_ == 1 && kernel_[0] == 3 && kernel_[1] == 3 && all_one(attrs_.strides) &&
        all_one(attrs_.dilations) &&
        nhwc::WinogradPays(static_cast<size_t>(group_channels_), static_cast<size_t>(features_), 0);
    const std::vector<int64_t> parts = info.GetInts("input_channels");
    const int64_t channel_scale = info.GetInt("channel_scale", 0);
    if (channel_scale != 0 && channel_scale != 1) {
      info.Fail(
          ErrorCode::kInvalidArgument,
          "attribute 'channel_scale' is " + std::to_string(channel_scale) + "; it must be 0 or 1");
    }
    channel_scale_ = channel_scale == 1;
    if (channel_scale_ && (!parts.empty() || group_ != 1 || kernel_[0] != 1 || kernel_[1] != 1 ||
                           info.input_count() != 5)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'channel_scale' needs a 1×1 kernel in one group, no attribute "
                "'input_channels', and input 4 (S)");
    }
    const int64_t expand = info.GetInt("expand", 0);
    if (expand != 0 && expand != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' is " + std::to_string(expand) + "; it must be 0 or 1");
    }
    if (expand == 1) ReadExpansion(info, parts.empty() && !channel_scale_);
    if (!parts.empty()) {
      PackParts(info, parts, static_cast<const float*>(w->data()));
    } else if (winograd_) {
      winograd_weights_ = nhwc::WinogradWeights::Pack(static_cast<const float*>(w->data()),
                                                      static_cast<size_t>(features_),
                                                      static_cast<size_t>(group_channels_));
      w_ = w;  // the graph's initializer, for SpecializeForShapes (called while loading)
    } else {
      Pack(static_cast<const float*>(w->data()));
    }
  }

  // A Winograd layer whose input is known at load to be small (batch·H·W under
  // kWinogradMinPixels, the batch known too: a symbolic one may be large) runs as the im2col
  // product instead.
  void SpecializeForShapes(std::span<const Shape* const> shapes) override {
    const Tensor* w = std::exchange(w_, nullptr);  // needed only here
    if (!winograd_ || w == nullptr || shapes.empty() || shapes[0] == nullptr) return;
    const std::vector<int64_t>& x = shapes[0]->dims();
    if (x.size() != 4 || x[0] <= 0 || x[1] <= 0 || x[2] <= 0) return;
    int64_t pixels = 0;
    if (__builtin_mul_overflow(x[0], x[1], &pixels) ||
        __builtin_mul_overflow(pixels, x[2], &pixels) ||
        nhwc::WinogradPays(static_cast<size_t>(group_channels_), static_cast<size_t>(features_),
                           static_cast<size_t>(pixels))) {
      return;
    }
    Pack(static_cast<const float*>(w->data()));
    winograd_ = false;
    winograd_weights_ = {};
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* b = ctx.OptionalInput(2);
    const Tensor* z = ctx.OptionalInput(3);
    nhwc::RequireFloat(info, "X", x);
    nhwc::RequireRank4(info, x);
    // X in parts (input_channels): inputs 0, 4, 5, ...; the problem is that of their concatenation.
    const size_t part_count = part_sizes_.size();
    const float** parts = part_count > 0 ? ctx.Scratch<const float*>(part_count) : nullptr;
    std::array<int64_t, 4> x_dims = {};
    std::copy_n(x.shape().dims().begin(), 4, x_dims.begin());
    if (part_count > 0) {
      x_dims[3] = 0;
      for (size_t i = 0; i < part_count; ++i) {
        const Tensor& xi = i == 0 ? x : ctx.Input(3 + i);
        const std::vector<int64_t>& d = xi.shape().dims();
        if (xi.type() != DataType::kFloat || d.size() != 4 ||
            !std::equal(d.begin(), d.begin() + 3, x.shape().dims().begin()) ||
            d[3] != static_cast<int64_t>(part_sizes_[i])) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input " + std::to_string(i == 0 ? 0 : 3 + i) + " (X part " +
                        std::to_string(i) + ") is " + DataTypeName(xi.type()) + " " +
                        xi.shape().ToString() + "; it must be float [N, H, W, " +
                        std::to_string(part_sizes_[i]) + "] with the N, H, W of input 'X' " +
                        x.shape().ToString());
        }
        parts[i] = static_cast<const float*>(xi.data());
        x_dims[3] += d[3];
      }
    }
    const Tensor* expand_bias = nullptr;
    if (expand_) {
      // X has c channels; the depthwise convolution reads its expansion to M.
      if (x_dims[3] != expand_channels_) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                   " with " + std::to_string(x_dims[3]) +
                                                   " channels, but input 4 (WE) expands " +
                                                   std::to_string(expand_channels_));
      }
      x_dims[3] = features_;
      expand_bias = ctx.OptionalInput(5);
      if (expand_bias != nullptr &&
          (expand_bias->type() != DataType::kFloat || expand_bias->shape().rank() != 1 ||
           expand_bias->shape().dims()[0] != features_)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 5 (BE) is " + std::string(DataTypeName(expand_bias->type())) + " " +
                      expand_bias->shape().ToString() + "; it must be float [" +
                      std::to_string(features_) + "]");
      }
    }
    const Problem p = Check(info, std::span<const int64_t>(x_dims), b);
    if (part_count > 0 && !p.g.IsPointwise()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' needs stride 1 and no padding (a 1×1 product)");
    }
    const Tensor* scale = channel_scale_ ? &ctx.Input(4) : nullptr;
    if (scale != nullptr) {
      const std::vector<int64_t>& sd = scale->shape().dims();
      if (scale->type() != DataType::kFloat || sd.size() != 4 ||
          (sd[0] != 1 && sd[0] != x_dims[0]) || sd[1] != 1 || sd[2] != 1 || sd[3] != x_dims[3]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 4 (S) is " + std::string(DataTypeName(scale->type())) + " " +
                      scale->shape().ToString() + "; it must be float [" +
                      std::to_string(x_dims[0]) + " or 1, 1, 1, " + std::to_string(x_dims[3]) +
                      "]");
      }
      if (!p.g.IsPointwise()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'channel_scale' needs stride 1 and no padding (a 1×1 product)");
      }
    }
    const std::array<int64_t, 4> y_dims = {x.shape().dims()[0], p.out_h, p.out_w, features_};
    if (b != nullptr) nhwc::RequireFloat(info, "B", *b);
    if (z != nullptr) {
      nhwc::RequireFloat(info, "Z", *z);
      if (!std::equal(z->shape().dims().begin(), z->shape().dims().end(), y_dims.begin(),
                      y_dims.end())) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'Z' has shape " + z->shape().ToString() + "; it must have the output's " +
                      Shape(std::vector<int64_t>(y_dims.begin(), y_dims.end())).ToString());
      }
    }
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, std::span<const int64_t>(y_dims));
    if (y.element_count() == 0) return;
    const Operands o = {static_cast<const float*>(x.data()),
                        packed_.data(),
                        &group_weights_,
                        b != nullptr ? static_cast<const float*>(b->data()) : nullptr,
                        z != nullptr ? static_cast<const float*>(z->data()) : nullptr,
                        static_cast<float*>(y.data()),
                        parts,
                        part_sizes_.data(),
                        part_count,
                        scale != nullptr ? static_cast<const float*>(scale->data()) : nullptr,
                        scale != nullptr ? static_cast<size_t>(scale->shape().dims()[0]) : 0};
    if (expand_) {
      const Expansion ex = {
          o.x, static_cast<size_t>(expand_channels_), &expand_weights_,
          expand_bias != nullptr ? static_cast<const float*>(expand_bias->data()) : nullptr,
          &expand_epilogue_};
      RunExpandDepthwise(p, o, ex, epilogue_, ctx);
    } else if (depthwise_) {
      RunDepthwise(p, o, epilogue_, ctx.threads());
    } else if (winograd_) {
      const nhwc::WinogradShape s = {p.batch, p.in_h,           p.in_w,          p.out_h,
                                     p.out_w, p.g.pad_begin[0], p.g.pad_begin[1]};
      nhwc::RunWinograd(s, o.x, winograd_weights_, o.bias, o.z, epilogue_, o.y, ctx);
    } else {
      RunGemmPath(p, o, epilogue_, ctx);
    }
  }

 private:
  // W [M, C/group, kH, kW] → depthwise: [kH·kW, M]; otherwise, per group, a PackedMatrix of
  // [kH·kW·C/group, M/group] with row tap·(C/group) + c (the im2col row order).
  void Pack(const float* w) {
    const auto m = static_cast<size_t>(features_);
    const auto cg = static_cast<size_t>(group_channels_);
    const auto taps = static_cast<size_t>(kernel_[0] * kernel_[1]);
    const auto groups = static_cast<size_t>(group_);
    const size_t mg = m / groups;
    if (!depthwise_) {
      // Read panel by panel: a panel's 32 features of OIHW (at most 32·C/group·kH·kW floats)
      // stay in L2 while its rows are written.
      group_weights_.reserve(groups);
      for (size_t grp = 0; grp < groups; ++grp) {
        const float* wg = w + grp * mg * cg * taps;
        group_weights_.push_back(PackedMatrix::PackFrom(taps * cg, mg, [&](size_t row, size_t f) {
          return wg[(f * cg + row % cg) * taps + row / cg];
        }));
      }
      return;
    }
    // A transpose: written in destination order, sixteen features at a time, so each source
    // row's cache lines serve all its taps while they are loaded.
    packed_.resize(m * taps);
    constexpr size_t kBlock = 16;
    for (size_t f0 = 0; f0 < m; f0 += kBlock) {
      const size_t f1 = std::min(m, f0 + kBlock);
      for (size_t tap = 0; tap < taps; ++tap) {
        for (size_t f = f0; f < f1; ++f) packed_[tap * m + f] = w[f * taps + tap];
      }
    }
  }

  // Attribute `expand`: inputs 4 (WE [M, c, 1, 1], a constant) and 5 (BE [M], optional), the
  // expansion's activation in attributes expand_activation(_params); this layer must be one the
  // depthwise fast path runs whole.
  void ReadExpansion(const KernelInfo& info, bool plain) {
    const auto one = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; });
    };
    const std::vector<int64_t>& strides = attrs_.strides;
    const int64_t sx = strides.size() == 2 ? strides[1] : 1;
    if (!plain || !depthwise_ || features_ != group_ || kernel_[0] != kernel_[1] ||
        (kernel_[0] != 3 && kernel_[0] != 5) || features_ % 16 != 0 || !one(attrs_.dilations) ||
        (sx != 1 && sx != 2)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' needs a depthwise convolution with one output channel per "
                "group, a multiple of 16 channels, a 3×3 or 5×5 kernel, horizontal stride 1 or 2, "
                "no dilation, and no attribute 'input_channels' or 'channel_scale'");
    }
    if (info.input_count() < 5 || info.input_count() > 6) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' needs input 4 (WE) and at most input 5 (BE); the node has " +
                    std::to_string(info.input_count()) + " inputs");
    }
    const Tensor* we = info.ConstantInput(4);
    if (we == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "input 4 (WE) is not a constant initializer; NhwcConv repacks its weights once");
    }
    nhwc::RequireFloat(info, "WE", *we);
    const std::vector<int64_t>& d = we->shape().dims();
    if (d.size() != 4 || d[0] != features_ || d[1] <= 0 || d[2] != 1 || d[3] != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 4 (WE) has shape " + we->shape().ToString() +
                                                 "; it must be [" + std::to_string(features_) +
                                                 ", C, 1, 1] (a 1×1 convolution's weights)");
    }
    expand_channels_ = d[1];
    const auto c = static_cast<size_t>(d[1]);
    const auto* wp = static_cast<const float*>(we->data());
    expand_weights_ = PackedMatrix::PackFrom(c, static_cast<size_t>(features_),
                                             [&](size_t row, size_t f) { return wp[f * c + row]; });
    expand_epilogue_ = nn::ReadEpilogue(info, "expand_");
    expand_ = true;
  }

  // X parts' weights: rows [start, start + input_channels[i]) of W's input channels for part i.
  void PackParts(const KernelInfo& info, const std::vector<int64_t>& parts, const float* w) {
    const size_t count = parts.size();
    if (count < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'input_channels' has " +
                                                 std::to_string(count) +
                                                 " entry; it needs one per part, at least 2");
    }
    if (group_ != 1 || kernel_[0] != 1 || kernel_[1] != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' needs a 1×1 kernel in one group");
    }
    int64_t sum = 0;
    for (int64_t c : parts) {
      if (c <= 0) {
        info.Fail(ErrorCode::kInvalidArgument, "attribute 'input_channels' has an entry " +
                                                   std::to_string(c) + "; each must be positive");
      }
      sum += c;
    }
    if (sum != group_channels_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' adds up to " + std::to_string(sum) +
                    " channels, but input 'W' has " + std::to_string(group_channels_));
    }
    if (info.input_count() != 3 + count) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' has " + std::to_string(count) +
                    " parts, so the node needs " + std::to_string(3 + count) +
                    " inputs (X, W, B, Z, then the other parts), not " +
                    std::to_string(info.input_count()));
    }
    const auto m = static_cast<size_t>(features_);
    const auto c_all = static_cast<size_t>(group_channels_);
    size_t start = 0;
    for (int64_t c : parts) {
      group_weights_.push_back(
          PackedMatrix::PackFrom(static_cast<size_t>(c), m,
                                 [&](size_t row, size_t f) { return w[f * c_all + start + row]; }));
      start += static_cast<size_t>(c);
      part_sizes_.push_back(static_cast<size_t>(c));
    }
  }

  // d: X's dimensions (with parts, of their concatenation).
  Problem Check(const KernelInfo& info, std::span<const int64_t> d, const Tensor* b) const {
    const int64_t c = d[3];
    if (c != group_channels_ * group_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " +
                    Shape(std::vector<int64_t>(d.begin(), d.end())).ToString() + " with " +
                    std::to_string(c) + " channels, but input 'W' has " +
                    std::to_string(group_channels_) + " input channels per group in " +
                    std::to_string(group_) + " groups (needs " +
                    std::to_string(group_channels_ * group_) + ")");
    }
    if (b != nullptr && (b->shape().rank() != 1 || b->shape().dims()[0] != features_)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b->shape().ToString() +
                                                 "; expected [" + std::to_string(features_) +
                                                 "] (one bias per output channel of W)");
    }
    Problem p;
    p.g = nhwc::ResolveNhwc(info, attrs_, d, std::span<const int64_t>(kernel_), false);
    p.batch = static_cast<size_t>(d[0]);
    p.in_h = d[1];
    p.in_w = d[2];
    p.out_h = p.g.out[0];
    p.out_w = p.g.out[1];
    p.channels = static_cast<size_t>(c);
    p.features = static_cast<size_t>(features_);
    p.groups = static_cast<size_t>(group_);
    p.group_channels = static_cast<size_t>(group_channels_);
    p.group_features = p.features / p.groups;
    return p;
  }

  nn::WindowAttrs attrs_;
  int64_t group_;
  nn::Epilogue epilogue_;
  int64_t features_ = 0;
  int64_t group_channels_ = 0;
  std::array<int64_t, 2> kernel_ = {};
  bool depthwise_ = false;
  std::vector<float> packed_;                // depthwise weights
  std::vector<PackedMatrix> group_weights_;  // the others, one per group (or per X part)
  std::vector<size_t> part_sizes_;           // input_channels: X's parts, or empty
  bool channel_scale_ = false;               // input 4 scales X's channels per image
  // 3×3, stride 1, undilated, one group, channel counts where it pays: Winograd F(2×2, 3×3).
  bool winograd_ = false;
  nhwc::WinogradWeights winograd_weights_;
  const Tensor* w_ = nullptr;  // W, while a Winograd layer may still switch to the im2col product
  // Attribute expand: X is multiplied by WE (c → M channels), then BE and this activation added,
  // before the depthwise convolution reads it.
  bool expand_ = false;
  int64_t expand_channels_ = 0;  // c
  PackedMatrix expand_weights_;
  nn::Epilogue expand_epilogue_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNhwcConv(const KernelInfo& info) {
  return Make<NhwcConv>(info);
}

}  // namespace kiln::cpu
