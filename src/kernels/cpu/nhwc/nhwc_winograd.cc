// Winograd F(2×2, 3×3) (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks"):
//   Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
// for a 4×4 input tile d and 3×3 kernel g, giving a 2×2 output tile, with
//   Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1],  G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1],
//   Aᵀ = [1 1 1 0; 0 1 −1 −1].
// Summed over the input channels, the elementwise product becomes 16 matrix products
// M[ξ] = V[ξ] · U[ξ] with V[ξ] [tiles, C] and U[ξ] [C, M], which run on PackedGemm.
//
// Work is cut into blocks of whole bands of 2·d_h output rows (two rows when undilated), so a
// block's outputs are one contiguous range of pixels and the epilogue runs on it while it is in
// cache. Per block: gather and transform the input tiles into V (vectorized along the channels),
// 16 products into M, and the output transform into Y.
//
// Dilated layers (d_h, d_w > 1) tile each phase of the output (oy mod d_h, ox mod d_w) on its own:
// a tile's outputs and input taps are d_h rows and d_w columns apart, so a band of 2·d_h rows
// holds d_h rows of tiles (one per row phase), each of d_w interleaved runs of tiles (one per
// column phase). The products are the undilated layer's on the phase's sub-image, taps lying in
// the padding included.
#include "kernels/cpu/nhwc/nhwc_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "kernels/cpu/common.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace {

constexpr size_t kTaps = 16;  // ξ = 4·i + j over the 4×4 tile
// V and M of a block stay within ~1 MB (half of L2)...
constexpr size_t kBlockFloats = size_t{256} * 1024;
// ...unless the transformed weights are over 1 MB (C·M > 16384: every block reads all of them,
// from L3 or memory): then up to 1.75 MB, so that fewer blocks read them. Measured on ResNet-50's
// 14×14 layers (256 channels, 4 MB of weights): one block per image instead of two, 1.1 → 0.92 ms
// each; layers with small weights ran 3–6% slower with the larger blocks.
constexpr size_t kLargeWeightBlockFloats = size_t{448} * 1024;
constexpr size_t kLargeWeights = size_t{16} * 1024;  // C·M

// The bands (and tiles) of a call: each image's bands of 2·d_h output rows cut into
// blocks_per_image near-equal blocks (a whole number per thread when there are few).
struct Tiling {
  size_t tile_rows;  // bands per image: ceil(out_h / (2·d_h))
  size_t col_tiles;  // tiles along one row of tiles: ceil(out_w / 2) when undilated
  size_t tile_cols;  // tiles per band (at most: the last band may lack row phases): d_h·col_tiles
  size_t blocks_per_image;
  size_t max_block_rows;  // bands
  // Rows of tiles transformed and multiplied at once: a block of a dilated layer (whole bands of
  // d_h rows of tiles) goes through them in chunks of this many, so that V and M stay as small
  // as an undilated layer's of the same width (the epilogue still runs on the whole block).
  size_t chunk_rows;
  // Where block b of an image starts (b ≤ blocks_per_image).
  size_t BlockStart(size_t b) const { return PartStart(tile_rows, blocks_per_image, b); }
};

// The first output column of each tile of a row of tiles: the column phases in order, each
// phase's tiles 2·d_w columns apart (0, 2, 4, ... when undilated).
void ColumnOrigins(const WinogradShape& s, int64_t* origins) {
  size_t k = 0;
  for (int64_t phase = 0; phase < s.dil_w; ++phase) {
    for (int64_t ox = phase; ox < s.out_w; ox += 2 * s.dil_w) origins[k++] = ox;
  }
}

// The rows of tiles of a block of bands [band0, band1): row r's first output row, through the
// bands' row phases in order, so the rows past out_h (in the last band only) are the last ones;
// `rows` counts only those inside.
struct BlockRows {
  int64_t dh;
  size_t band0;
  size_t rows = 0;
  BlockRows(const WinogradShape& s, size_t b0, size_t b1) : dh(s.dil_h), band0(b0) {
    while (rows < (b1 - b0) * static_cast<size_t>(dh) && Row(rows) < s.out_h) ++rows;
  }
  int64_t Row(size_t r) const {
    const auto d = static_cast<size_t>(dh);
    return static_cast<int64_t>(2 * d * (band0 + r / d) + r % d);
  }
};

// Zeros standing in for the input outside the image (WinogradPays: C ≤ kMaxChannels).
constexpr size_t kMaxChannels = 512;
alignas(64) constexpr float kZeros[kMaxChannels] = {};

// Channels [c0, c0 + kW) of V = Bᵀ d B, d(i, j) read at src[4·i + j][c].
template <size_t kW>
[[gnu::always_inline]] inline void InputChunk(const float* const* src, size_t c0, float* v,
                                              size_t ldv) {
  float t[4][4][kW];  // t = Bᵀ d
  for (size_t j = 0; j < 4; ++j) {
    const float* d0 = src[j] + c0;
    const float* d1 = src[4 + j] + c0;
    const float* d2 = src[8 + j] + c0;
    const float* d3 = src[12 + j] + c0;
    for (size_t c = 0; c < kW; ++c) {
      t[0][j][c] = d0[c] - d2[c];
      t[1][j][c] = d1[c] + d2[c];
      t[2][j][c] = d2[c] - d1[c];
      t[3][j][c] = d1[c] - d3[c];
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    float* out = v + 4 * i * ldv + c0;
    for (size_t c = 0; c < kW; ++c) {
      out[c] = t[i][0][c] - t[i][2][c];
      out[ldv + c] = t[i][1][c] + t[i][2][c];
      out[2 * ldv + c] = t[i][2][c] - t[i][1][c];
      out[3 * ldv + c] = t[i][1][c] - t[i][3][c];
    }
  }
}

// One tile: v[ξ·ldv + c] = (Bᵀ d B)[ξ] for each of `channels` channels c, where d is the 4×4
// window at input (iy0, ix0), zero outside the image, and pixels are `stride` floats apart.
KILN_VECTOR_CLONES void InputTile(const WinogradShape& s, size_t channels, size_t stride,
                                  const float* image, int64_t iy0, int64_t ix0, float* v,
                                  size_t ldv) {
  const float* src[kTaps];
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t iy = iy0 + i * s.dil_h;
      const int64_t ix = ix0 + j * s.dil_w;
      const bool inside = iy >= 0 && iy < s.in_h && ix >= 0 && ix < s.in_w;
      src[4 * i + j] = inside ? image + static_cast<size_t>(iy * s.in_w + ix) * stride : kZeros;
    }
  }
  constexpr size_t kChunk = 16;
  size_t c = 0;
  for (; c + kChunk <= channels; c += kChunk) InputChunk<kChunk>(src, c, v, ldv);
  for (; c < channels; ++c) InputChunk<1>(src, c, v, ldv);
}

// Features [f0, f0 + kW) of the output tile Y = Aᵀ a A, a(i, j) read at m[(4·i + j)·ldm + f].
template <size_t kW>
[[gnu::always_inline]] inline void OutputChunk(const float* m, size_t ldm, size_t f0,
                                               float* const* y, bool row1, bool col1) {
  float s0[4][kW];  // the two rows of Aᵀ a
  float s1[4][kW];
  for (size_t j = 0; j < 4; ++j) {
    const float* a0 = m + j * ldm + f0;
    const float* a1 = m + (4 + j) * ldm + f0;
    const float* a2 = m + (8 + j) * ldm + f0;
    const float* a3 = m + (12 + j) * ldm + f0;
    for (size_t f = 0; f < kW; ++f) {
      s0[j][f] = a0[f] + a1[f] + a2[f];
      s1[j][f] = a1[f] - a2[f] - a3[f];
    }
  }
  for (size_t f = 0; f < kW; ++f) y[0][f0 + f] = s0[0][f] + s0[1][f] + s0[2][f];
  if (col1) {
    for (size_t f = 0; f < kW; ++f) y[1][f0 + f] = s0[1][f] - s0[2][f] - s0[3][f];
  }
  if (row1) {
    for (size_t f = 0; f < kW; ++f) y[2][f0 + f] = s1[0][f] + s1[1][f] + s1[2][f];
    if (col1) {
      for (size_t f = 0; f < kW; ++f) y[3][f0 + f] = s1[1][f] - s1[2][f] - s1[3][f];
    }
  }
}

// The output tile from m[ξ·ldm + f] for `features` features, its pixels (oy0 + r·d_h,
// ox0 + q·d_w), `stride` floats apart, written where they are inside the output.
KILN_VECTOR_CLONES void OutputTile(const WinogradShape& s, size_t features, size_t stride,
                                   const float* m, size_t ldm, int64_t oy0, int64_t ox0,
                                   float* y_image) {
  const bool row1 = oy0 + s.dil_h < s.out_h;
  const bool col1 = ox0 + s.dil_w < s.out_w;
  // Pointers to the pixels that exist (the others are never formed, let alone written).
  float* y[4] = {};
  y[0] = y_image + static_cast<size_t>(oy0 * s.out_w + ox0) * stride;
  const size_t right = static_cast<size_t>(s.dil_w) * stride;
  if (col1) y[1] = y[0] + right;
  if (row1) y[2] = y[0] + static_cast<size_t>(s.dil_h * s.out_w) * stride;
  if (row1 && col1) y[3] = y[2] + right;
  constexpr size_t kChunk = 16;
  size_t f = 0;
  for (; f + kChunk <= features; f += kChunk) OutputChunk<kChunk>(m, ldm, f, y, row1, col1);
  for (; f < features; ++f) OutputChunk<1>(m, ldm, f, y, row1, col1);
}

Tiling Plan(const WinogradShape& s, size_t channels, size_t features, size_t threads) {
  Tiling t;
  const auto dh = static_cast<size_t>(s.dil_h);
  const auto dw = static_cast<size_t>(s.dil_w);
  const auto out_w = static_cast<size_t>(s.out_w);
  t.tile_rows = (static_cast<size_t>(s.out_h) + 2 * dh - 1) / (2 * dh);
  t.col_tiles = out_w / (2 * dw) * dw + std::min(out_w % (2 * dw), dw);
  t.tile_cols = dh * t.col_tiles;
  const size_t block_floats =
      channels * features > kLargeWeights ? kLargeWeightBlockFloats : kBlockFloats;
  const size_t tiles_fit = std::max<size_t>(1, block_floats / (kTaps * (channels + features)));
  const size_t rows_fit = std::max<size_t>(1, tiles_fit / t.col_tiles);  // rows of tiles
  const size_t bands_fit = std::clamp<size_t>(rows_fit / dh, 1, t.tile_rows);
  t.blocks_per_image = (t.tile_rows + bands_fit - 1) / bands_fit;
  if (s.batch < threads) {
    // Give every thread the same number of blocks, if the image has the tile rows for it.
    const size_t round = (t.blocks_per_image + threads - 1) / threads * threads;
    t.blocks_per_image = std::min(round, t.tile_rows);
  }
  t.max_block_rows = (t.tile_rows + t.blocks_per_image - 1) / t.blocks_per_image;
  t.chunk_rows = std::min(rows_fit, t.max_block_rows * dh);
  return t;
}

}  // namespace

bool WinogradPays(size_t channels, size_t features, size_t pixels) {
  return channels >= 16 && channels <= kMaxChannels && features >= 16 && features <= kMaxChannels &&
         (pixels == 0 || pixels >= kWinogradMinPixels);
}

WinogradWeights WinogradWeights::Pack(const float* w, size_t m, size_t c, size_t groups) {
  // U[ξ](c, f) = (G g Gᵀ)[ξ] for g = W[f, c], written straight into the panels, along f; one set
  // per group, of its C/groups channels and M/groups features.
  WinogradWeights out;
  out.channels = c;
  out.features = m;
  out.groups = groups;
  const size_t cg = c / groups;
  const size_t mg = m / groups;
  out.u.resize(groups);
  for (size_t grp = 0; grp < groups; ++grp) {
    for (PackedMatrix& u : out.u[grp]) u = PackedMatrix::Allocate(cg, mg);
  }
  for (size_t grp = 0; grp < groups; ++grp) {
    std::array<PackedMatrix, kTaps>& u = out.u[grp];
    for (size_t ch = 0; ch < cg; ++ch) {
      for (size_t f = 0; f < mg; ++f) {
        const float* g = w + ((grp * mg + f) * cg + ch) * 9;
        float t[4][3];  // G g
        for (size_t j = 0; j < 3; ++j) {
          const float g0 = g[j];
          const float g1 = g[3 + j];
          const float g2 = g[6 + j];
          t[0][j] = g0;
          t[1][j] = 0.5f * (g0 + g1 + g2);
          t[2][j] = 0.5f * (g0 - g1 + g2);
          t[3][j] = g2;
        }
        const size_t at = ch * kPackedPanel + f % kPackedPanel;
        for (size_t i = 0; i < 4; ++i) {
          const float r[4] = {t[i][0], 0.5f * (t[i][0] + t[i][1] + t[i][2]),
                              0.5f * (t[i][0] - t[i][1] + t[i][2]), t[i][2]};
          for (size_t j = 0; j < 4; ++j) u[4 * i + j].MutablePanel(f / kPackedPanel)[at] = r[j];
        }
      }
    }
  }
  return out;
}

void RunWinograd(const WinogradShape& s, const float* x, const WinogradWeights& w,
                 const float* bias, const float* z, const nn::Epilogue& e, float* y,
                 KernelContext& ctx) {
  const size_t c = w.channels;
  const size_t m = w.features;
  const size_t cg = c / w.groups;
  const size_t mg = m / w.groups;
  const size_t threads = static_cast<size_t>(ctx.threads().size());
  const Tiling t = Plan(s, cg, mg, threads);
  const size_t blocks = s.batch * t.blocks_per_image;
  const size_t in_image = static_cast<size_t>(s.in_h * s.in_w) * c;
  const size_t out_image = static_cast<size_t>(s.out_h * s.out_w) * m;
  const size_t max_tiles = t.chunk_rows * t.col_tiles;
  auto* col_origin = ctx.Scratch<int64_t>(t.col_tiles);
  ColumnOrigins(s, col_origin);
  // One pair of V and M buffers per thread, taken before the blocks are shared out: a chunk of
  // blocks claims a free pair (at most `threads` chunks run at once), so the buffers stay in
  // the threads' caches from block to block instead of being new memory for every chunk.
  const size_t buffer = kTaps * max_tiles * (cg + mg);
  float* buffers = ctx.Scratch<float>(threads * buffer);
  auto* busy = ctx.Scratch<uint8_t>(threads);
  std::fill(busy, busy + threads, uint8_t{0});
  // One contiguous share of blocks per thread, as the other layers share out their pixels.
  ctx.threads().ParallelForShares(blocks, [&](size_t first, size_t last) {
    size_t slot = 0;
    while (std::atomic_ref<uint8_t>(busy[slot]).exchange(1, std::memory_order_acquire) != 0) {
      slot = (slot + 1) % threads;
    }
    float* v = buffers + slot * buffer;
    float* mm = v + kTaps * max_tiles * cg;
    for (size_t b = first; b < last; ++b) {
      const size_t n = b / t.blocks_per_image;
      const size_t tr0 = t.BlockStart(b % t.blocks_per_image);
      const size_t tr1 = t.BlockStart(b % t.blocks_per_image + 1);
      const BlockRows br(s, tr0, tr1);
      const float* image = x + n * in_image;
      float* y_image = y + n * out_image;
      // Rows of tiles [r0, r1) at a time (the whole block when undilated), group by group (one
      // group but for grouped layers): V[ξ] is [tiles, C/groups] at v + ξ·tiles·C/groups, and the
      // group's features go to its columns of Y.
      for (size_t r0 = 0; r0 < br.rows; r0 += t.chunk_rows) {
        const size_t r1 = std::min(br.rows, r0 + t.chunk_rows);
        const size_t tiles = (r1 - r0) * t.col_tiles;
        for (size_t grp = 0; grp < w.groups; ++grp) {
          for (size_t r = r0, tile = 0; r < r1; ++r) {
            const int64_t iy = br.Row(r) - s.pad_top;
            for (size_t k = 0; k < t.col_tiles; ++k, ++tile) {
              InputTile(s, cg, c, image + grp * cg, iy, col_origin[k] - s.pad_left, v + tile * cg,
                        tiles * cg);
            }
          }
          for (size_t xi = 0; xi < kTaps; ++xi) {
            PackedGemm(tiles, v + xi * tiles * cg, cg, w.u[grp][xi], 0, mg, mm + xi * tiles * mg,
                       mg, false);
          }
          for (size_t r = r0, tile = 0; r < r1; ++r) {
            const int64_t oy = br.Row(r);
            for (size_t k = 0; k < t.col_tiles; ++k, ++tile) {
              OutputTile(s, mg, m, mm + tile * mg, tiles * mg, oy, col_origin[k],
                         y_image + grp * mg);
            }
          }
        }
      }
      // The block's output rows are one range of pixels.
      const size_t band = 2 * static_cast<size_t>(s.dil_h);
      const size_t row0 = band * tr0;
      const size_t row1 = std::min(static_cast<size_t>(s.out_h), band * tr1);
      const size_t pixel0 = row0 * static_cast<size_t>(s.out_w);
      const size_t pixels = (row1 - row0) * static_cast<size_t>(s.out_w);
      nn::ApplyEpilogueRows(e, y_image + pixel0 * m, pixels, m, m, bias,
                            z != nullptr ? z + n * out_image + pixel0 * m : nullptr, m);
    }
    std::atomic_ref<uint8_t>(busy[slot]).store(0, std::memory_order_release);
  });
}

}  // namespace kiln::cpu::nhwc
