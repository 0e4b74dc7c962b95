// NhwcConv's path for layers over a few input channels (see nhwc_conv.cc's file comment): a
// network's first layer, 3×3 / 7×7 over RGB. The im2col product multiplies [P, kH·kW·C] by
// [kH·kW·C, M] with a depth of 27 or 147 and, for M = 16 or 24, half or three quarters of a
// 32-column panel: 32 GFLOP/s for ShuffleNet's 3→24, 3×3/2 stem. Here each output row is computed
// directly from the kH input rows it reads, copied first into zero-padded rows so that no tap
// needs a bounds check: up to 64 output channels × 6-12 columns of sums at a time, each input
// value broadcast once against every vector of 16 weights. Each tile's sums go through a small
// buffer in L1 to the output with masked stores (M = 24 is a vector and a half), the bias and a
// ReLU applied on the way; other activations and a residual after the row. AVX-512 machines only
// (16-float vectors,
// compiled for AVX-512 alone); elsewhere these layers stay on the im2col product, which measured no
// slower with 8-float vectors.
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/linalg/packed_kernel.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_simd.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace {

constexpr size_t kLanes = 16;  // output channels per vector

size_t PaddedFeatures(size_t m) {
  return (m + kLanes - 1) / kLanes * kLanes;
}

#if KILN_HAS_VECTOR_CLONES
constexpr size_t kMaxStemChannels = 4;
using V16 = Vec<16>;

// Columns per tile for kChunks vectors of 16 output channels: 24 sums at most (of the 32 vector
// registers), at least 6 per chunk.
template <size_t kChunks>
constexpr size_t kTileCols = kChunks == 1   ? 12
                             : kChunks == 2 ? 12
                             : kChunks == 3 ? 8
                                            : 6;

// Where a row's sums go: pixel x, channel f at y[x·ldy + f] for f < m; and, with `finish`, the
// bias (when not null) and ReLU (when `relu`) applied to each tile once its sums are stored, in
// the order nn::ApplyEpilogueRows applies them, so that the bits are the same.
struct RowOut {
  float* y;
  size_t ldy;
  size_t m;
  bool finish;
  const float* bias;
  bool relu;
};

// The lanes of chunk [f0, f0 + 16) that hold channels (f0 < m).
KILN_TARGET_AVX512 inline __mmask16 LaneMask(size_t f0, size_t m) {
  const size_t lanes = std::min(kLanes, m - f0);
  return static_cast<__mmask16>(lanes == kLanes ? 0xFFFFu : (1u << lanes) - 1u);
}

// tile[j][k·16 …] = acc[j][k] (+ what tile holds when `add`) for j < kN; acc zeroed.
template <size_t kN, size_t kChunks>
[[gnu::always_inline]] inline void AddRun(V16 (&acc)[kN][kChunks], bool add, float* tile) {
  for (size_t j = 0; j < kN; ++j) {
    for (size_t k = 0; k < kChunks; ++k) {
      float* t = tile + (j * kChunks + k) * kLanes;
      StoreVec<16>(t, add ? acc[j][k] + LoadVec<16>(t) : acc[j][k]);
      acc[j][k] = V16{};
    }
  }
}

// Columns [ox, ox + n) of the row from the tile's sums (channels m0 …, past m left alone), with
// RowOut::finish's bias and ReLU. Kept out of StemChunks: its masked moves would cost the sums
// their registers there.
template <size_t kChunks>
[[gnu::noinline]] KILN_TARGET_AVX512 void StoreTile(const float* tile, size_t n, const RowOut& out,
                                                    size_t ox, size_t m0) {
  for (size_t k = 0; k < kChunks; ++k) {
    const __mmask16 mask = LaneMask(m0 + k * kLanes, out.m);
    const bool bias = out.finish && out.bias != nullptr;
    const __m512 b =
        bias ? _mm512_maskz_loadu_ps(mask, out.bias + m0 + k * kLanes) : _mm512_setzero_ps();
    for (size_t j = 0; j < n; ++j) {
      __m512 v = _mm512_loadu_ps(tile + (j * kChunks + k) * kLanes);
      if (bias) v = _mm512_add_ps(v, b);
      // std::max(v, 0) as ApplyEpilogueRows computes it: v when v is NaN or ±0. (All lanes on:
      // _mm512_max_ps trips GCC 12's maybe-uninitialized warning.)
      if (out.finish && out.relu) v = _mm512_maskz_max_ps(0xFFFF, _mm512_setzero_ps(), v);
      _mm512_mask_storeu_ps(out.y + (ox + j) * out.ldy + m0 + k * kLanes, mask, v);
    }
  }
}

// Output channels [m0, m0 + 16·kChunks) of row `out` from the kh zero-padded input rows at
// `rows` (row ky at rows + ky·row_floats, pixel x of it at x·C): y[ox][m] =
// Σ_{ky,kx,c} rows[ky][ox·sx + kx·dx][c] · w[((ky·kw + kx)·C + c)·mp + m]. Each input value is
// broadcast once for all the chunks, each weight vector loaded once for all the tile's columns.
// Reads whole tiles of columns (the rows are wide enough); stores only the ow columns. kSx: the
// stride sx when it is 1 or 2 (then each column's input is at a constant offset, which leaves
// the general registers free: with sx at run time, 12 column offsets did not fit in them), 0 for
// sx given at run time.
template <size_t C, size_t kChunks, size_t kSx>
KILN_TARGET_AVX512 KILN_CONTRACT void StemChunks(const float* rows, size_t row_floats,
                                                 const float* w, size_t mp, size_t m0, size_t kh,
                                                 size_t kw, size_t sx, size_t dx, size_t ow,
                                                 const RowOut& out) {
  constexpr size_t kN = kTileCols<kChunks>;
  const size_t x_step = (kSx != 0 ? kSx : sx) * C;
  for (size_t ox = 0; ox < ow; ox += kN) {
    const size_t n = std::min(kN, ow - ox);
    V16 acc[kN][kChunks] = {};
    alignas(64) float tile[kN * kChunks * kLanes];
    // Terms summed in registers since the last run was added to the output, and whether one was.
    size_t run = 0;
    bool stored = false;
    for (size_t ky = 0; ky < kh; ++ky) {
      const float* row = rows + ky * row_floats + ox * x_step;
      const float* wr = w + ky * kw * C * mp + m0;
      for (size_t kx = 0; kx < kw; ++kx) {
        const float* xt = row + kx * dx * C;
        const float* wt = wr + kx * C * mp;
        for (size_t c = 0; c < C; ++c) {
          V16 wv[kChunks];
          for (size_t k = 0; k < kChunks; ++k) wv[k] = LoadVec<16>(wt + c * mp + k * kLanes);
          for (size_t j = 0; j < kN; ++j) {
            const float xv = xt[j * x_step + c];
            for (size_t k = 0; k < kChunks; ++k) acc[j][k] += xv * wv[k];
          }
          if (++run == packed::kSumDepth) {
            // The product's runs of kSumDepth terms, each added to the output (packed_kernel.h):
            // the same sums in the same order, so the same bits as the im2col product.
            AddRun<kN, kChunks>(acc, stored, tile);
            run = 0;
            stored = true;
          }
        }
      }
    }
    if (run != 0) AddRun<kN, kChunks>(acc, stored, tile);
    StoreTile<kChunks>(tile, n, out, ox, m0);
  }
}

// The whole row: channels in groups of up to 4 chunks.
template <size_t C, size_t kSx>
void StemRow(const float* rows, size_t row_floats, const float* w, size_t mp, size_t kh, size_t kw,
             size_t sx, size_t dx, size_t ow, const RowOut& out) {
  for (size_t m0 = 0; m0 < mp;) {
    switch (std::min<size_t>(4, (mp - m0) / kLanes)) {
      case 1:
        StemChunks<C, 1, kSx>(rows, row_floats, w, mp, m0, kh, kw, sx, dx, ow, out);
        m0 += kLanes;
        break;
      case 2:
        StemChunks<C, 2, kSx>(rows, row_floats, w, mp, m0, kh, kw, sx, dx, ow, out);
        m0 += 2 * kLanes;
        break;
      case 3:
        StemChunks<C, 3, kSx>(rows, row_floats, w, mp, m0, kh, kw, sx, dx, ow, out);
        m0 += 3 * kLanes;
        break;
      default:
        StemChunks<C, 4, kSx>(rows, row_floats, w, mp, m0, kh, kw, sx, dx, ow, out);
        m0 += 4 * kLanes;
        break;
    }
  }
}

// The most columns a tile reads: the rows are padded for it.
constexpr size_t kMaxTileCols = 12;

using RowFn = void (*)(const float*, size_t, const float*, size_t, size_t, size_t, size_t, size_t,
                       size_t, const RowOut&);

template <size_t kSx>
RowFn PickRowFor(size_t c) {
  switch (c) {
    case 1:
      return StemRow<1, kSx>;
    case 2:
      return StemRow<2, kSx>;
    case 3:
      return StemRow<3, kSx>;
    case 4:
      return StemRow<4, kSx>;
    default:
      return nullptr;
  }
}

RowFn PickRow(size_t c, size_t sx) {
  return sx == 1 ? PickRowFor<1>(c) : sx == 2 ? PickRowFor<2>(c) : PickRowFor<0>(c);
}
#endif

}  // namespace

bool StemFits(size_t groups, size_t channels, bool one_by_one) {
#if KILN_HAS_VECTOR_CLONES
  return groups == 1 && channels >= 1 && channels <= kMaxStemChannels && !one_by_one &&
         PackedKernelSupported(PackedKernel::kAvx512);
#else
  (void)groups;
  (void)channels;
  (void)one_by_one;
  return false;
#endif
}

std::vector<float> PackStemWeights(const float* w, size_t m, size_t c, size_t kh, size_t kw) {
  const size_t mp = PaddedFeatures(m);
  std::vector<float> out(kh * kw * c * mp, 0.0f);
  for (size_t f = 0; f < m; ++f) {
    for (size_t s = 0; s < c; ++s) {
      for (size_t tap = 0; tap < kh * kw; ++tap) {
        out[(tap * c + s) * mp + f] = w[(f * c + s) * kh * kw + tap];
      }
    }
  }
  return out;
}

void RunStem(const Problem& p, const float* w, const Operands& o, const nn::Epilogue& e,
             KernelContext& ctx) {
#if KILN_HAS_VECTOR_CLONES
  const nn::WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const size_t m = p.features;
  const size_t mp = PaddedFeatures(m);
  const auto kh = static_cast<size_t>(g.kernel[0]);
  const auto kw = static_cast<size_t>(g.kernel[1]);
  const auto sy = static_cast<int64_t>(g.stride[0]);
  const auto sx = static_cast<size_t>(g.stride[1]);
  const auto dy = static_cast<int64_t>(g.dilation[0]);
  const auto dx = static_cast<size_t>(g.dilation[1]);
  const auto ow = static_cast<size_t>(p.out_w);
  const auto in_w = static_cast<size_t>(p.in_w);
  const auto pad_left = static_cast<size_t>(g.pad_begin[1]);
  // Pixels a padded row holds: what whole tiles of columns read, and at least the image.
  const size_t tiles = (ow + kMaxTileCols - 1) / kMaxTileCols;
  const size_t row_pixels =
      std::max((tiles * kMaxTileCols - 1) * sx + (kw - 1) * dx + 1, pad_left + in_w);
  const size_t row_floats = row_pixels * c;
  const RowFn row_fn = PickRow(c, sx);
  // Bias and ReLU (or no activation) go in as the sums are stored; anything else after.
  const bool relu = e.activation == nn::Activation::kRelu;
  const bool fused = o.z == nullptr && (relu || e.activation == nn::Activation::kNone);
  const size_t rows = p.batch * static_cast<size_t>(p.out_h);
  ctx.threads().ParallelFor(rows, 1, [&](size_t begin, size_t end) {
    float* padded = ctx.Scratch<float>(kh * row_floats);
    for (size_t r = begin; r < end; ++r) {
      const size_t n = r / static_cast<size_t>(p.out_h);
      const auto oy = static_cast<int64_t>(r % static_cast<size_t>(p.out_h));
      for (size_t ky = 0; ky < kh; ++ky) {
        float* dst = padded + ky * row_floats;
        const int64_t iy = oy * sy - g.pad_begin[0] + static_cast<int64_t>(ky) * dy;
        if (iy < 0 || iy >= p.in_h) {
          std::fill(dst, dst + row_floats, 0.0f);
          continue;
        }
        std::fill(dst, dst + pad_left * c, 0.0f);
        std::memcpy(dst + pad_left * c,
                    o.x + ((n * static_cast<size_t>(p.in_h) + static_cast<size_t>(iy)) * in_w) * c,
                    in_w * c * sizeof(float));
        std::fill(dst + (pad_left + in_w) * c, dst + row_floats, 0.0f);
      }
      float* y = o.y + r * ow * m;
      row_fn(padded, row_floats, w, mp, kh, kw, sx, dx, ow, {y, m, m, fused, o.bias, relu});
      if (!fused) {
        nn::ApplyEpilogueRows(e, y, ow, m, m, o.bias, o.z != nullptr ? o.z + r * ow * m : nullptr,
                              m);
      }
    }
  });
#else
  (void)p;
  (void)w;
  (void)o;
  (void)e;
  (void)ctx;
#endif
}

}  // namespace kiln::cpu::nhwc
