// NhwcConv's narrow-group path (see nhwc_conv.cc's file comment): a grouped convolution whose
// groups have Q = 2, 4, 8 or 16 channels on both sides (ResNeXt's and RegNet's
// 3×3 layers) as a direct loop vectorized along the output channels.
//
// The im2col product multiplies each group apart, [P, kH·kW·Q] · [kH·kW·Q, Q]: a product Q
// columns wide, which the 32-column micro-kernel runs at Q/32 of its speed (3.6 GFLOP/s for
// ResNeXt's groups of 4). Here each vector of 8 output channels is summed over the taps and the
// group's Q input channels, times the weights W[m][s][tap] of each lane's output channel m, for
// 8 output columns at once (each weight vector loaded once for them). With Q ≤ 4 the vector holds
// 8/Q whole groups, whose inputs are the same 8 channels of X: input channel s of each lane's
// group is a shuffle of that one load. With Q ≥ 8 the vector is inside one group, and input
// channel s is broadcast from memory. Every multiply-add is useful. On AVX-512 machines the inner
// columns of groups of 16 (RegNet's stride-2 layers: Winograd takes the stride-1 ones) take one
// 16-float vector per group instead of two of 8: half the broadcasts, and twice the independent
// work per register (a 112×112 → 56×56 layer of 4 groups 0.84 → 0.48 ms, ONNX Runtime 0.45).
#include <algorithm>
#include <array>
#include <utility>

#include "kernels/cpu/common.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_simd.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace {

// Wider groups than this go to the im2col product, whose micro-kernel they fill.
constexpr size_t kMaxBroadcastGroup = 16;

using nn::WindowGeometry;
using V8 = Vec<8>;

// Lane j takes lane (j / Q) · Q + S: input channel S of the group lane j belongs to.
template <size_t Q, size_t S, size_t... J>
[[gnu::always_inline]] inline V8 Spread(V8 x, std::index_sequence<J...> /*lanes*/) {
  return __builtin_shufflevector(x, x, (J / Q * Q + S)...);
}

// acc += Σ_s Spread<s>(x) · w[s], the odd s into `odd` instead. (No lambdas in this file: a lambda
// is a function of its own, compiled for the baseline target, not for the clone that calls it.)
template <size_t Q, size_t... S>
[[gnu::always_inline]] inline void SpreadTaps(V8 x, const V8* w, V8& acc, V8& odd,
                                              std::index_sequence<S...> /*s*/) {
  (((S % 2 == 0 ? acc : odd) += Spread<Q, S>(x, std::make_index_sequence<8>{}) * w[S]), ...);
}

// Output columns [ox, ox + kCols) of channels [c0, c0 + 8·kChunks), summed over the taps
// [ry) × [rx) (all the columns share rx; a column with taps in the padding comes alone). xp: the
// input of the first column at tap (0, 0), which may lie outside the image; x_step: from one
// column's input to the next. Groups of Q ≤ 4 (8 lanes hold 8/Q whole groups): one load of the 8
// channels and Q shuffles per input pixel. Groups of Q ≥ 8 (the 8 lanes are in one group): each
// input channel broadcast from memory. kCols · kChunks independent sums hide the multiply-add
// latency. wb: the weights of the block of bw channels (see GroupedRows) that c0 is cb into.
template <size_t Q, size_t kCols, size_t kChunks>
[[gnu::always_inline]] inline void Tile(const Problem& p, const float* xp, size_t x_step,
                                        const float* wb, size_t bw, TapRange ry, TapRange rx,
                                        float* y, size_t c0, size_t cb) {
  const WindowGeometry& g = p.g;
  const size_t m = p.features;
  const size_t q = p.group_channels;
  const auto row_step = static_cast<size_t>(g.dilation[0] * p.in_w) * m;
  const auto tap_step = static_cast<size_t>(g.dilation[1]) * m;
  // With fewer than 8 sums, the odd s go to sums of their own (q is even): twice the
  // independent multiply-adds.
  constexpr bool kSplit = kCols * kChunks < 8;
  V8 acc[kCols][kChunks] = {};
  V8 odd[kCols][kChunks] = {};
  for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
    for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
      const float* xt =
          xp + static_cast<size_t>(ky) * row_step + static_cast<size_t>(kx) * tap_step;
      const float* wt = wb + static_cast<size_t>(ky * g.kernel[1] + kx) * q * bw + cb;
      if constexpr (Q <= 4) {
        for (size_t k = 0; k < kChunks; ++k) {
          V8 ws[Q];
          for (size_t s = 0; s < Q; ++s) ws[s] = LoadVec<8>(wt + s * bw + 8 * k);
          for (size_t c = 0; c < kCols; ++c) {
            SpreadTaps<Q>(LoadVec<8>(xt + c * x_step + c0 + 8 * k), ws, acc[c][k],
                          kSplit ? odd[c][k] : acc[c][k], std::make_index_sequence<Q>{});
          }
        }
      } else {
        // s outermost: the kCols · kChunks sums of one s are independent of each other.
        const float* xg[kChunks];
        for (size_t k = 0; k < kChunks; ++k) xg[k] = xt + (c0 + 8 * k) / q * q;
        for (size_t s = 0; s < q; s += 2) {
          for (size_t k = 0; k < kChunks; ++k) {
            const V8 w0 = LoadVec<8>(wt + s * bw + 8 * k);
            const V8 w1 = LoadVec<8>(wt + (s + 1) * bw + 8 * k);
            for (size_t c = 0; c < kCols; ++c) {
              const float* xc = xg[k] + c * x_step + s;
              acc[c][k] += xc[0] * w0;
              (kSplit ? odd[c][k] : acc[c][k]) += xc[1] * w1;
            }
          }
        }
      }
    }
  }
  for (size_t c = 0; c < kCols; ++c) {
    for (size_t k = 0; k < kChunks; ++k) StoreVec<8>(y + c * m + c0 + 8 * k, acc[c][k] + odd[c][k]);
  }
}

// Groups of 16 on AVX-512 machines: output columns [ox, ox + kCols) of the group's 16 channels
// [c0, c0 + 16) in one 16-float vector each, summed over the taps [ry) × all of the kernel's
// columns; each input channel s broadcast from memory. One broadcast per 16 multiply-adds (half
// the 8-lane tile's), and kCols sums of 16 lanes are twice the independent work per register.
// Arguments as Tile's.
template <size_t kCols>
[[gnu::always_inline]] inline void Tile16(const Problem& p, const float* xp, size_t x_step,
                                          const float* wb, size_t bw, TapRange ry, float* y,
                                          size_t c0, size_t cb) {
  using V16 = Vec<16>;
  const WindowGeometry& g = p.g;
  const size_t m = p.features;
  const auto row_step = static_cast<size_t>(g.dilation[0] * p.in_w) * m;
  const auto tap_step = static_cast<size_t>(g.dilation[1]) * m;
  constexpr bool kSplit = kCols < 8;
  V16 acc[kCols] = {};
  V16 odd[kCols] = {};
  for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
    for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
      const float* xt =
          xp + static_cast<size_t>(ky) * row_step + static_cast<size_t>(kx) * tap_step + c0;
      const float* wt = wb + static_cast<size_t>(ky * g.kernel[1] + kx) * 16 * bw + cb;
      for (size_t s = 0; s < 16; s += 2) {
        const V16 w0 = LoadVec<16>(wt + s * bw);
        const V16 w1 = LoadVec<16>(wt + (s + 1) * bw);
        for (size_t c = 0; c < kCols; ++c) {
          const float* xc = xt + c * x_step + s;
          acc[c] += xc[0] * w0;
          (kSplit ? odd[c] : acc[c]) += xc[1] * w1;
        }
      }
    }
  }
  for (size_t c = 0; c < kCols; ++c) StoreVec<16>(y + c * m + c0, acc[c] + odd[c]);
}

// kCols inner columns (all of the kernel's columns live) from channel c0: Tile16 for a whole group
// of 16 when kWide, Tile's 8 channels otherwise.
template <size_t Q, bool kWide, size_t kCols>
[[gnu::always_inline]] inline void InnerTile(const Problem& p, const float* xp, size_t x_step,
                                             const float* wb, size_t bw, TapRange ry, float* y,
                                             size_t c0, size_t cb) {
  if constexpr (kWide) {
    Tile16<kCols>(p, xp, x_step, wb, bw, ry, y, c0, cb);
  } else {
    Tile<Q, kCols, 1>(p, xp, x_step, wb, bw, ry, TapRange{0, p.g.kernel[1]}, y, c0, cb);
  }
}

// Output rows [r_begin, r_end) of all the images (row r is row r % OH of image r / OH), before
// the epilogue. Q is the group width for the shuffle path, 8 for the broadcast one (8 or 16:
// p.group_channels). w is packed by blocks of 32 output channels (the last one may have fewer, a
// multiple of 8): block b0 at w + b0·kH·kW·Q, [kH·kW][Q][bw], its row tap·Q + s holding
// W[m][s][tap] for the block's bw output channels m. (Rows of bw floats, not M: with M a large
// power of two, rows M apart would all fall in the same few sets of the L1 cache.) The blocks are
// outermost, so that a block's weights stay in L1 across the rows; in each row the inner columns in
// tiles of 8 and 4 columns (each weight vector loaded once for the tile), the other columns one by
// one with the block's four chunks at once.
// kWide (Q == 16, AVX-512 only): the inner columns by Tile16, a group at a time.
template <size_t Q, bool kWide>
[[gnu::always_inline]] inline void GroupedRowsBody(const Problem& p, const float* x, const float* w,
                                                   size_t r_begin, size_t r_end, TapRange inner,
                                                   float* y) {
  const WindowGeometry& g = p.g;
  const size_t m = p.features;  // == p.channels
  const int64_t sx = g.stride[1];
  const auto x_step = static_cast<size_t>(sx) * m;
  const auto step = static_cast<int64_t>(x_step);
  const int64_t tiled_end = inner.lo + (inner.hi - inner.lo) / 4 * 4;
  const size_t row_size = static_cast<size_t>(p.out_w) * m;
  // The edge columns. (Loops, not lambdas, here: a lambda would be compiled for the baseline
  // target.)
  const std::array<std::pair<int64_t, int64_t>, 2> edges = {
      std::pair{int64_t{0}, std::min(inner.lo, p.out_w)},
      std::pair{std::max(inner.lo, tiled_end), p.out_w}};
  for (size_t b0 = 0; b0 < m; b0 += 32) {
    const size_t b1 = std::min(m, b0 + 32);
    const size_t bw = b1 - b0;
    const float* wb = w + b0 * g.kernel_size * p.group_channels;
    for (size_t r = r_begin; r < r_end; ++r) {
      const size_t n = r / static_cast<size_t>(p.out_h);
      const auto oy = static_cast<int64_t>(r % static_cast<size_t>(p.out_h));
      const float* x_image = x + n * static_cast<size_t>(p.in_h * p.in_w) * m;
      float* y_row = y + r * row_size;
      const TapRange ry = Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]);
      // origin + ox · step: the input of column ox at tap (0, 0) (it may be outside the row:
      // never read there).
      const float* origin =
          x_image +
          ((oy * g.stride[0] - g.pad_begin[0]) * p.in_w - g.pad_begin[1]) * static_cast<int64_t>(m);
      if (b0 == 0 && oy + 1 < p.out_h) {
        // The input rows the next output row reads and this one does not, towards L2 while this
        // row runs: the first block meets them cold otherwise (no prefetcher follows the
        // tiles' reads).
        const int64_t last = oy * g.stride[0] - g.pad_begin[0] + (g.kernel[0] - 1) * g.dilation[0];
        const int64_t next = (oy + 1) * g.stride[0] - g.pad_begin[0];
        for (int64_t ky = 0; ky < g.kernel[0]; ++ky) {
          const int64_t iy = next + ky * g.dilation[0];
          if (iy <= last || iy < 0 || iy >= p.in_h) continue;
          const auto* row =
              reinterpret_cast<const char*>(x_image + iy * p.in_w * static_cast<int64_t>(m));
          const size_t bytes = static_cast<size_t>(p.in_w) * m * sizeof(float);
          for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(row + at, 0, 2);
        }
      }
      // A group at a time when wide, 8 channels at a time otherwise.
      for (size_t c0 = b0; c0 < b1; c0 += kWide ? 16 : 8) {
        int64_t ox = inner.lo;
        for (; ox + 8 <= tiled_end; ox += 8) {
          InnerTile<Q, kWide, 8>(p, origin + ox * step, x_step, wb, bw, ry,
                                 y_row + static_cast<size_t>(ox) * m, c0, c0 - b0);
        }
        if (ox < tiled_end) {
          InnerTile<Q, kWide, 4>(p, origin + ox * step, x_step, wb, bw, ry,
                                 y_row + static_cast<size_t>(ox) * m, c0, c0 - b0);
        }
      }
      for (const auto& [begin, end] : edges) {
        for (int64_t ox = begin; ox < end; ++ox) {
          const TapRange rx = Taps(ox, sx, g.dilation[1], g.pad_begin[1], p.in_w, g.kernel[1]);
          const float* xp = origin + ox * step;
          float* yp = y_row + static_cast<size_t>(ox) * m;
          if (b1 - b0 == 32) {
            Tile<Q, 1, 4>(p, xp, x_step, wb, bw, ry, rx, yp, b0, 0);
          } else {
            for (size_t c0 = b0; c0 < b1; c0 += 8)
              Tile<Q, 1, 1>(p, xp, x_step, wb, bw, ry, rx, yp, c0, c0 - b0);
          }
        }
      }
    }
  }
}

template <size_t Q>
KILN_VECTOR_CLONES KILN_CONTRACT void GroupedRows(const Problem& p, const float* x, const float* w,
                                                  size_t r_begin, size_t r_end, TapRange inner,
                                                  float* y) {
  GroupedRowsBody<Q, false>(p, x, w, r_begin, r_end, inner, y);
}

// Groups of 16; call only where UseVectorMathAvx512() (16-float vectors on AVX2 would take 16
// registers for the sums alone).
KILN_TARGET_AVX512 KILN_CONTRACT void GroupedRows16(const Problem& p, const float* x,
                                                    const float* w, size_t r_begin, size_t r_end,
                                                    TapRange inner, float* y) {
  GroupedRowsBody<8, true>(p, x, w, r_begin, r_end, inner, y);
}

using RowFn = void (*)(const Problem&, const float*, const float*, size_t, size_t, TapRange,
                       float*);

RowFn PickRow(size_t q) {
  if (q == 16 && UseVectorMathAvx512()) return GroupedRows16;
  switch (q) {
    case 2:
      return GroupedRows<2>;
    case 4:
      return GroupedRows<4>;
    default:
      return q % 8 == 0 && q <= kMaxBroadcastGroup ? GroupedRows<8> : nullptr;
  }
}

}  // namespace

bool GroupedFits(size_t groups, size_t group_channels, size_t group_features) {
  return groups > 1 && group_channels == group_features && PickRow(group_channels) != nullptr &&
         groups * group_channels % 8 == 0;
}

void RunGrouped(const Problem& p, const float* w, const Operands& o, const nn::Epilogue& e,
                ThreadPool& pool) {
  const RowFn row_fn = PickRow(p.group_channels);
  const size_t rows = p.batch * static_cast<size_t>(p.out_h);
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const TapRange inner = InnerColumns(p);
  // Bands of a few rows: each reads the weights once, and gets the epilogue while in cache.
  constexpr size_t kBand = 4;
  const auto run = [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; r += kBand) {
      const size_t band_end = std::min(end, r + kBand);
      row_fn(p, o.x, w, r, band_end, inner, o.y);
      nn::ApplyEpilogueRows(e, o.y + r * row_size, (band_end - r) * static_cast<size_t>(p.out_w),
                            p.features, p.features, o.bias,
                            o.z != nullptr ? o.z + r * row_size : nullptr, p.features);
    }
  };
  // One contiguous share of rows per thread: the rows the previous layer's thread wrote stay
  // with it. A small layer runs on this thread alone.
  if (rows * row_size * p.g.kernel_size * p.group_channels < 65536) {
    run(0, rows);
  } else {
    pool.ParallelForShares(rows, run);
  }
}

}  // namespace kiln::cpu::nhwc
