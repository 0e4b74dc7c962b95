// The register-tiled micro-kernel of PackedGemm, written once over an instruction-set traits type
// and instantiated in packed_kernel_avx512.cc and packed_kernel_avx2.cc, each compiled for its
// target. Internal to packed_gemm.cc: only the PanelFn entry points are called from outside, and
// only after the CPU has been checked. These files use nothing from the standard library, whose
// inline functions would otherwise be emitted here with the wider instructions and could be the
// copy the linker keeps for the whole library.
//
// Traits I provide: V (a vector of I::kWidth floats), kRows (rows per tile), Zero(), Set(x),
// Load(p) (aligned), LoadU(p), Broadcast(p), Fma(a, b, c) = a·b + c, Add(a, b), Max(a, b) and
// Min(a, b) (x86's: a > b ? a : b and a < b ? a : b, so b when either is NaN), StoreU(p, v), and
// LoadPartial(p, n) / StorePartial(p, v, n), which touch only the first n ≤ kWidth floats.
#ifndef KILN_KERNELS_CPU_LINALG_PACKED_KERNEL_H_
#define KILN_KERNELS_CPU_LINALG_PACKED_KERNEL_H_

#include <cstddef>

#include "kernels/cpu/row_tiles.h"

namespace kiln::cpu::packed {

inline constexpr size_t kPanel = 32;  // kPackedPanel

// Row tiles (row_tiles.h).
using tiles::TileCount;
using tiles::TileRows;
using tiles::TileStart;

// What a tile does to its sums before it stores them, after the last step of the product's
// depth: v = (v + bias[j]) + z[r·ldz + j], each term only when its pointer is set, then
// v = min(hi, max(lo, v)) when `clamp` (x86's max and min: a NaN sum stays NaN, as
// std::min(std::max(v, lo), hi) leaves it). bias and z are at C's row 0, column 0 of the call.
struct TileEpilogue {
  const float* bias;
  const float* z;
  size_t ldz;
  bool clamp;
  float lo;
  float hi;
};

// C[0:m, 0:cols] (+)= A · panel[0:kc, 0:cols], A row-major with row stride lda.
// `b` is the panel at the block's first depth (row stride kPanel); cols ≤ kPanel. `next` is the
// offset (floats, from b) of the kc × kPanel slice the product reads after this one, 0 if none:
// the tiles ask for it to be brought to L2 while they work (see Panel). `ep`, when set, is
// applied to the sums of the block's last depth run (the caller passes it with the product's
// last depth block only).
using PanelFn = void (*)(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
                         size_t ldc, size_t cols, bool accumulate, ptrdiff_t next,
                         const TileEpilogue* ep);

// Steps of the depth that a tile sums in registers before adding them to C. One sum over the whole
// depth block (up to 1024 products per value) grows its rounding error with the depth; runs of 128
// added into C keep each sum short, at the cost of one load and add of the tile's C per run.
// Measured on deeplabv3_resnet50 (float64 reference, each convolution fed the same input): the
// RMS relative error of a convolution 3.8e-7 → 2.0e-7 (ONNX Runtime 1.8e-7), and values of the
// model's output beyond rtol 1e-3 / atol 1e-4 of the exact result, at level 0, 8,236 → 3,562
// of 4.1 M (with GlobalAveragePool's sums made exact as well; ONNX Runtime 729).
inline constexpr size_t kSumDepth = 128;

// Rows per tile of each kernel.
inline constexpr size_t kAvx512Rows = 12;
inline constexpr size_t kAvx2Rows = 6;

void PanelAvx512(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
                 size_t ldc, size_t cols, bool accumulate, ptrdiff_t next, const TileEpilogue* ep);
void PanelAvx2(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
               size_t ldc, size_t cols, bool accumulate, ptrdiff_t next, const TileEpilogue* ep);

#if defined(KILN_PACKED_KERNEL_BODY)

#if defined(__clang__)
#define KILN_UNROLL _Pragma("unroll")
#else
#define KILN_UNROLL _Pragma("GCC unroll 16")
#endif

// Rows of B ahead that a tile asks for (8 KB): the first tile over a panel reads its rows from
// L3 or memory, where the hardware prefetcher alone leaves it waiting.
inline constexpr size_t kBDistance = 64;
// A tile's sums (+ C when `accumulate`) with the epilogue applied, in the order the separate
// pass over C (nn::ApplyEpilogueRows) takes: ((sum + C) + bias) + z, then the clamp, so that the
// bits are the same. Without a bias it adds -0 (x + -0 is x for every x, -0 and NaN included),
// without a clamp it clamps to ±∞ (which leaves every value as it is): one loop for all cases
// but the residual. load(p, done) reads the vector at p, `done` columns into the tile (masked
// to the tile's columns when it is narrower than kV vectors).
template <typename I, size_t kR, size_t kV, typename Load>
[[gnu::always_inline]] inline void EpilogueOnSums(typename I::V (&acc)[kV][kR], const float* c,
                                                  size_t ldc, bool accumulate,
                                                  const TileEpilogue& ep, Load load) {
  constexpr size_t kW = I::kWidth;
  typename I::V bias[kV];
  KILN_UNROLL
  for (size_t v = 0; v < kV; ++v) {
    bias[v] = ep.bias != nullptr ? load(ep.bias + v * kW, v * kW) : I::Set(-0.0f);
  }
  const typename I::V lo = I::Set(ep.clamp ? ep.lo : -__builtin_inff());
  const typename I::V hi = I::Set(ep.clamp ? ep.hi : __builtin_inff());
  const auto finish = [&](typename I::V x, size_t r, size_t v, bool residual) {
    if (accumulate) x = I::Add(x, load(c + r * ldc + v * kW, v * kW));
    x = I::Add(x, bias[v]);
    if (residual) x = I::Add(x, load(ep.z + r * ep.ldz + v * kW, v * kW));
    return I::Min(hi, I::Max(lo, x));
  };
  if (ep.z == nullptr) {
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) acc[v][r] = finish(acc[v][r], r, v, false);
    }
  } else {
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) acc[v][r] = finish(acc[v][r], r, v, true);
    }
  }
}

// One tile: kR rows (≤ I::kRows) by kV (1 or 2) vectors of columns. The sums stay in registers
// over the whole depth; each step loads kV vectors of B and broadcasts one value of A per row,
// A(r, p) being a[r·lda + p]. The first `cols` columns are stored (or added to C); kV is 1 when
// they fit in one vector. Each step also asks for the line
// at pf to be brought to L2, pf then moving on by pf_step floats. `ep` (null: none) is applied
// to the sums before they are stored, its bias and z at this tile's row 0, column 0.
template <typename I, size_t kR, size_t kV, bool kEp>
inline void Tile(size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
                 size_t cols, bool accumulate, const float* pf, size_t pf_step,
                 const TileEpilogue* ep) {
  constexpr size_t kW = I::kWidth;
  typename I::V acc[kV][kR];
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) acc[v][r] = I::Zero();
  }
  // Strided rows are read from two bases, rows 0 .. kHalf - 1 and kHalf .. kR - 1, at the same
  // offsets r·lda: fewer live registers than one pointer per row, so that nothing is spilled.
  constexpr size_t kHalf = (kR + 1) / 2;
  const float* a_hi = a + kHalf * lda;
  const float* const b_end = b + kc * kPanel;
  for (; b != b_end; ++a, ++a_hi, b += kPanel) {
    __builtin_prefetch(b + kBDistance * kPanel, 0, 3);
    __builtin_prefetch(b + kBDistance * kPanel + kPanel / 2, 0, 3);
    __builtin_prefetch(pf, 0, 2);
    pf += pf_step;
    typename I::V bv[kV];
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) bv[v] = I::Load(b + v * kW);
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const typename I::V av = I::Broadcast(r < kHalf ? a + r * lda : a_hi + (r - kHalf) * lda);
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) acc[v][r] = I::Fma(av, bv[v], acc[v][r]);
    }
  }
  if (cols == kV * kW) {
    if constexpr (kEp) {
      EpilogueOnSums<I, kR, kV>(acc, c, ldc, accumulate, *ep,
                                [](const float* p, size_t) { return I::LoadU(p); });
      accumulate = false;  // C is in the sums now
    }
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      float* row = c + r * ldc;
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) {
        if (accumulate) acc[v][r] = I::Add(acc[v][r], I::LoadU(row + v * kW));
        I::StoreU(row + v * kW, acc[v][r]);
      }
    }
    return;
  }
  // Fewer columns: masked loads and stores.
  if constexpr (kEp) {
    EpilogueOnSums<I, kR, kV>(acc, c, ldc, accumulate, *ep, [cols](const float* p, size_t done) {
      return I::LoadPartial(p, cols <= done ? 0 : (cols - done < kW ? cols - done : kW));
    });
    accumulate = false;
  }
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    float* row = c + r * ldc;
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) {
      const size_t done = v * kW;
      const size_t n = cols <= done ? 0 : (cols - done < kW ? cols - done : kW);
      if (accumulate) acc[v][r] = I::Add(acc[v][r], I::LoadPartial(row + done, n));
      I::StorePartial(row + done, acc[v][r], n);
    }
  }
}

template <typename I, size_t kR, size_t kV, bool kEp>
void TileFn(size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
            size_t cols, bool accumulate, const float* pf, size_t pf_step, const TileEpilogue* ep) {
  Tile<I, kR, kV, kEp>(kc, a, lda, b, c, ldc, cols, accumulate, pf, pf_step, ep);
}

using TileFnPtr = void (*)(size_t, const float*, size_t, const float*, float*, size_t, size_t, bool,
                           const float*, size_t, const TileEpilogue*);

// The tile functions for 1 .. kRows rows: kFns[with the epilogue][vectors − 1][rows − 1] (the
// epilogue's its own instantiation, so that the others' registers and code are as before it).
template <typename I, size_t... kR>
struct TileTable {
  static constexpr TileFnPtr kFns[2][2][sizeof...(kR)] = {
      {{&TileFn<I, kR + 1, 1, false>...}, {&TileFn<I, kR + 1, 2, false>...}},
      {{&TileFn<I, kR + 1, 1, true>...}, {&TileFn<I, kR + 1, 2, true>...}}};
};

template <typename I, typename Table>
void Panel(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c, size_t ldc,
           size_t cols, bool accumulate, ptrdiff_t next, const TileEpilogue* ep) {
  constexpr size_t kW = I::kWidth;
  constexpr size_t kMax = I::kRows;
  const size_t tiles = TileCount(m, kMax);
  // The next slice of B comes from memory (a layer's weights, read once per run): asked for
  // while this panel's tiles run, spread evenly over all their steps (each step one line,
  // pf_step floats after the previous), it is in L2 when the next panel starts instead of
  // stalling its first tile. Measured on ResNet-50 at 1 thread: 55.3 → 50.3 ms (layer 4, whose
  // 49-row products read 4–9 MB of weights each, 14.2 → 11.7). Asked for all at once before
  // each tile, or every step of every tile for the same line, it gained nothing: the first tile
  // then fetched both panels at once.
  const size_t passes = (cols + 2 * kW - 1) / (2 * kW);
  const size_t pf_step = next == 0 ? 0 : (kPanel + tiles * passes - 1) / (tiles * passes);
  const float* pf = b + next;
  // A panel is kPanel / (2·kW) tiles wide.
  for (size_t off = 0; off < cols; off += 2 * kW) {
    const size_t w = cols - off < 2 * kW ? cols - off : 2 * kW;
    const size_t vectors = w <= kW ? 1 : 2;
    for (size_t t = 0; t < tiles; ++t) {
      const size_t i = TileStart(m, kMax, t);
      const size_t rows = TileRows(m, kMax, t);
      float* ct = c + i * ldc + off;
      // The epilogue at this tile's row 0, column 0, for its last run.
      TileEpilogue tile_ep{};
      if (ep != nullptr) {
        tile_ep = *ep;
        if (tile_ep.bias != nullptr) tile_ep.bias += off;
        if (tile_ep.z != nullptr) tile_ep.z += i * tile_ep.ldz + off;
      }
      // The depth in runs of at most kSumDepth, each summed in registers and then added to C.
      for (size_t p0 = 0; p0 < kc; p0 += kSumDepth) {
        const size_t steps = kc - p0 < kSumDepth ? kc - p0 : kSumDepth;
        const float* at = a + i * lda + p0;
        const float* bt = b + p0 * kPanel + off;
        const bool add = accumulate || p0 > 0;
        const TileEpilogue* run_ep = ep != nullptr && p0 + steps == kc ? &tile_ep : nullptr;
        if (rows == kMax && vectors == 2 && run_ep == nullptr) {
          // The common case, inlined.
          Tile<I, kMax, 2, false>(steps, at, lda, bt, ct, ldc, w, add, pf, pf_step, nullptr);
        } else {
          Table::kFns[run_ep != nullptr][vectors - 1][rows - 1](steps, at, lda, bt, ct, ldc, w, add,
                                                                pf, pf_step, run_ep);
        }
        pf += steps * pf_step;
      }
    }
  }
}

#undef KILN_UNROLL

#endif  // KILN_PACKED_KERNEL_BODY

}  // namespace kiln::cpu::packed

#endif  // KILN_KERNELS_CPU_LINALG_PACKED_KERNEL_H_
