// NhwcConv's depthwise paths (see nhwc_conv.cc's file comment): a direct loop vectorized along
// the channels, register-tiled with the epilogue on the sums for multiplier 1 and square 3×3 /
// 5×5 kernels (DwRowFast), and the same fed by the band-by-band 1×1 expansion of attribute expand
// (RunExpandDepthwise).
#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace {

using nn::WindowGeometry;

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

// The fast depthwise path (multiplier 1, square 3×3 or 5×5 kernel with horizontal stride 1 and
// any dilation or stride 2 undilated, 7×7 with stride 1; any vertical stride and dilation):
// channels in chunks of kW, 16 (one AVX-512 register) where the machine has AVX-512 and 8 (one AVX2
// register) elsewhere, each chunk's K·K weights loaded into registers once per row (those that do
// not fit are read from L1), tiles of kCols output columns whose inputs are all inside the image
// computed without bounds checks (each input vector loaded once and used by every column of the
// tile that reads it), and the epilogue applied to the sums before they are stored. Measured on
// MobileNetV2 / EfficientNet-B0 layers: 41–90 GFLOP/s, up from 7–65 for the general loop.
//
// GCC's -std=c++20 turns floating-point contraction off; here a fused multiply-add is what we
// want. (Clang contracts within an expression by default.) Every function that takes or returns
// a Vec by value is inlined, so no call passes one: GCC's warning that the AVX2 and baseline
// clones would pass it differently does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#define KILN_CONTRACT __attribute__((optimize("fp-contract=fast")))
#pragma GCC diagnostic ignored "-Wpsabi"
#else
#define KILN_CONTRACT
#endif

// Clang builds (the fuzz preset) have no target clones here, so these vectors are
// passed between internal functions without AVX-512 enabled: Clang warns that this would change
// the ABI, which does not matter for functions no other file calls.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif
// kW floats. (With 16 on a machine without AVX-512, GCC splits each vector in two and the 25
// weights of a 5×5 kernel take 50 of AVX2's 16 registers: 3× slower than 8-float vectors.)
// (Through a class: GCC drops a vector_size attribute that depends on an alias template's
// parameter, leaving a plain float.)
template <int kW>
struct VecOf;
template <>
struct VecOf<8> {
  using type = float __attribute__((vector_size(32)));
};
template <>
struct VecOf<16> {
  using type = float __attribute__((vector_size(64)));
};
template <int kW>
using Vec = typename VecOf<kW>::type;
static_assert(sizeof(Vec<8>) == 8 * sizeof(float) && sizeof(Vec<16>) == 16 * sizeof(float));

template <int kW>
[[gnu::always_inline]] inline Vec<kW> LoadVec(const float* p) {
  Vec<kW> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int kW>
[[gnu::always_inline]] inline void StoreVec(float* p, Vec<kW> v) {
  std::memcpy(p, &v, sizeof v);
}

// What the fast path applies to its sums in registers: nothing, or min(max(v, lo), hi) (Clip, and
// Relu as Clip(0, +inf), the activations of MobileNets). Other activations (Swish, …) go over the
// row afterwards, while it is in cache: instantiating the tiles for every one of them would
// multiply the compile time for little gain.
enum class DwAct { kNone, kClip };

template <DwAct A, int kW>
[[gnu::always_inline]] inline Vec<kW> ActivateVec(Vec<kW> v, float lo, float hi) {
  if constexpr (A == DwAct::kClip) {
    v = v < lo ? Vec<kW>{} + lo : v;
    v = v > hi ? Vec<kW>{} + hi : v;
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

// kCols output columns from ox on, channels [c0, c0 + kW): acc = bias + Σ w·x over the kernel rows
// in r.ry and, with kBorder (then kCols is 1), the kernel columns in rx only.
template <int K, int S, int kCols, bool kBorder, DwAct A, int kW>
[[gnu::always_inline]] KILN_CONTRACT inline void DwTile(const Problem& p, const DwRow& r,
                                                        const Vec<kW> (&w)[K * K], Vec<kW> bias,
                                                        TapRange rx, int64_t ox, size_t c0) {
  const auto c = static_cast<int64_t>(p.channels);
  // Horizontal dilation d (with stride 1 only): the tile's columns are d apart, and column j's
  // tap kx reads input column ix0 + d·(j + kx).
  const int64_t d = p.g.dilation[1];
  const int64_t ix0 = ox * S - p.g.pad_begin[1];
  // Signed: ix0 is negative at the left border, where those taps are skipped.
  const int64_t base = (r.iy0 * p.in_w + ix0) * c + static_cast<int64_t>(c0);
  // A lone column sums its taps in kParts partial sums, so that its multiply-adds do not wait on
  // each other (the latency of one is four of them in flight).
  constexpr int kParts = kCols == 1 ? 4 : 1;
  Vec<kW> acc[kCols * kParts] = {};
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) acc[j * kParts] = bias;
#pragma GCC unroll 8
  for (int ky = 0; ky < K; ++ky) {
    if (ky < r.ry.lo || ky >= r.ry.hi) continue;
    const int64_t row = base + ky * r.row_step;
#pragma GCC unroll 32
    for (int i = 0; i < (kCols - 1) * S + K; ++i) {
      if (kBorder && (i < rx.lo || i >= rx.hi)) continue;
      const Vec<kW> xv = LoadVec<kW>(r.x + row + i * c * d);
#pragma GCC unroll 16
      for (int j = 0; j < kCols; ++j) {
        const int kx = i - j * S;
        if (kx >= 0 && kx < K) acc[j * kParts + (ky * K + kx) % kParts] += w[ky * K + kx] * xv;
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kCols; ++j) {
    const size_t at = static_cast<size_t>(ox + j * d) * p.features + c0;
    Vec<kW> v = acc[j * kParts];
#pragma GCC unroll 4
    for (int part = 1; part < kParts; ++part) v += acc[j * kParts + part];
    if (r.z != nullptr) v += LoadVec<kW>(r.z + at);
    StoreVec<kW>(r.y + at, ActivateVec<A, kW>(v, r.lo, r.hi));
  }
}

// Channels [c_begin, c_end) (16 | c_end - c_begin) of one output row of the fast path.
template <int K, int S, DwAct A, int kW>
KILN_VECTOR_CLONES KILN_CONTRACT void DwRowFast(const Problem& p, const DwRow& r, const float* w,
                                                const float* bias, TapRange inner, size_t c_begin,
                                                size_t c_end) {
  // 8 columns × 1 register of sums and 9 of weights for 3×3; 4 + 25 for 5×5 (of AVX-512's 32
  // registers; with AVX2's 16 the weights that do not fit are read from L1 by the multiply-adds).
  constexpr int kCols = K == 3 || (K == 5 && kW == 8) ? 8 : 4;
  for (size_t c0 = c_begin; c0 < c_end; c0 += kW) {
    Vec<kW> wv[K * K];
#pragma GCC unroll 32
    for (int t = 0; t < K * K; ++t) {
      wv[t] = LoadVec<kW>(w + static_cast<size_t>(t) * p.features + c0);
    }
    const Vec<kW> bv = bias != nullptr ? LoadVec<kW>(bias + c0) : Vec<kW>{};
    // With horizontal dilation d, the columns in d passes, one per residue modulo d: a pass's
    // columns read only its own input columns, as an undilated layer over every d-th column.
    const int64_t d = p.g.dilation[1];
    for (int64_t first = 0; first < d; ++first) {
      int64_t ox = first;
      for (; ox < inner.lo; ox += d) {
        const TapRange rx = Taps(ox, S, d, p.g.pad_begin[1], p.in_w, K);
        DwTile<K, S, 1, true, A, kW>(p, r, wv, bv, rx, ox, c0);
      }
      for (; ox + (kCols - 1) * d < inner.hi; ox += kCols * d) {
        DwTile<K, S, kCols, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
      }
      if (kCols > 4 && ox + 3 * d < inner.hi) {
        DwTile<K, S, 4, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
        ox += 4 * d;
      }
      for (; ox < inner.hi; ox += d) DwTile<K, S, 1, false, A, kW>(p, r, wv, bv, {0, K}, ox, c0);
      for (; ox < p.out_w; ox += d) {
        const TapRange rx = Taps(ox, S, d, p.g.pad_begin[1], p.in_w, K);
        DwTile<K, S, 1, true, A, kW>(p, r, wv, bv, rx, ox, c0);
      }
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

template <DwAct A, int kW>
DwRowFn FastRowFn(const WindowGeometry& g) {
  const bool k3 = g.kernel[0] == 3;
  const bool k5 = g.kernel[0] == 5;
  if (k3 && g.stride[1] == 1) return &DwRowFast<3, 1, A, kW>;
  if (k3 && g.stride[1] == 2) return &DwRowFast<3, 2, A, kW>;
  if (k5 && g.stride[1] == 1) return &DwRowFast<5, 1, A, kW>;
  if (k5 && g.stride[1] == 2) return &DwRowFast<5, 2, A, kW>;
#if KILN_HAS_VECTOR_CLONES
  // ConvNeXt's 7×7 (stride 1 only: each instantiation adds a minute to this file's compile; not
  // in the builds without clones, the sanitizer and fuzz ones, where Clang with ASan took over
  // ten minutes on this file with it: there 7×7 takes the general loop).
  if (g.kernel[0] == 7 && g.stride[1] == 1) return &DwRowFast<7, 1, A, kW>;
#endif
  return nullptr;
}

// 16-float vectors where the machine has AVX-512 (and the tests have not turned it off), 8 else.
// Builds without clones compile for the baseline, where 16-float vectors are emulated: 8 only.
template <DwAct A>
DwRowFn FastRowFn(const WindowGeometry& g) {
#if KILN_HAS_VECTOR_CLONES
  if (UseVectorMathAvx512()) return FastRowFn<A, 16>(g);
#endif
  return FastRowFn<A, 8>(g);
}

FastRow PickFastRow(const Problem& p, const nn::Epilogue& e) {
  const WindowGeometry& g = p.g;
  FastRow f;
  // Horizontal dilation only with horizontal stride 1 (DwTile's columns d apart).
  if (p.features != p.channels || g.kernel[0] != g.kernel[1] ||
      (g.dilation[1] != 1 && g.stride[1] != 1) || p.channels < 16) {
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

}  // namespace

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

namespace {

// Floats of expanded rows a thread keeps: 384 KB, in L2 with the depthwise layer's weights and
// output rows.
constexpr size_t kExpandedFloats = size_t{96} << 10;

}  // namespace

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
      if (static_cast<size_t>(need_hi - lo) > cap_rows) {
        ctx.info().Fail(ErrorCode::kEngineError,
                        "an expanded band needs " + std::to_string(need_hi - lo) +
                            " rows; the scratch holds " + std::to_string(cap_rows));
      }
      if (need_hi > hi) {
        const size_t m = static_cast<size_t>(need_hi - hi) * static_cast<size_t>(p.in_w);
        float* dst = buf + static_cast<size_t>(hi - lo) * row_floats;
        const float* src = o.x + (n * in_plane + static_cast<size_t>(hi * p.in_w)) * x.channels;
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

}  // namespace kiln::cpu::nhwc
