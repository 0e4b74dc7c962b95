// Compiled with -mavx512f (CMakeLists.txt; x86-64 only); runs only where UseVectorMathAvx512().
// Uses nothing from the standard library, whose inline functions would otherwise be emitted here
// with AVX-512 instructions and could be the copy the linker keeps for the whole library.
//
// Per head: K+bk is transposed (in registers) into panels of 16 key rows (panel p: hd rows of 16
// floats, key row 16p+c in lane c, zero past l) and V+bv into rows of hdv rounded up to 16 floats.
// Then per block of kRows query rows: (Q+bq)·scale into a small packed block, the block's scores
// (kRows × up to 4 panels per register tile: 24 accumulators), each row's bias added in the pass
// that finds its maximum (up to its causal limit), its exponentials (ExpShiftedSumAvx512), and the
// weighted sum of V rows (kRows × up to 64 output columns per tile), divided by the row's sum as it
// is stored. The last block, when 4 or fewer rows remain, runs tiles of 4 or 2 rows instead.
#include "kernels/cpu/contrib/attention_avx512.h"

#include <immintrin.h>

#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vector_math_avx512_inl.h"

namespace kiln::cpu {
namespace {

using avx512::FirstLanes;

constexpr size_t kRows = 6;    // query rows per block
constexpr size_t kLanes = 16;  // floats per vector, key rows per panel
constexpr size_t kTile = 4;    // vectors per register tile row (4 × kRows accumulators)

size_t Min(size_t a, size_t b) {
  return a < b ? a : b;
}

void Zero(float* x, size_t n) {
  for (size_t i = 0; i < n; i += kLanes) {
    _mm512_mask_storeu_ps(x + i, FirstLanes(n - i), _mm512_setzero_ps());
  }
}

size_t RoundUp(size_t n) {
  return (n + kLanes - 1) / kLanes * kLanes;
}

struct Layout {
  size_t lp = 0;   // l rounded up to whole panels
  size_t hvp = 0;  // hdv rounded up to whole vectors: packed V's row stride
  size_t keys = 0, values = 0, scores = 0, queries = 0, inv = 0, total = 0;  // offsets, floats
};

Layout MakeLayout(size_t l, size_t hd, size_t hdv) {
  Layout x;
  x.lp = RoundUp(l);
  x.hvp = RoundUp(hdv);
  x.keys = 0;
  x.values = x.keys + x.lp * hd;
  x.scores = x.values + l * x.hvp;
  x.queries = x.scores + kRows * x.lp;
  x.inv = x.queries + RoundUp(kRows * hd);
  x.total = x.inv + kLanes;
  return x;
}

// Q, K and V rows are slices of wider rows (one head's columns), which the hardware prefetchers
// do not follow: the loops that read them ask for rows ahead, one cache line at a time (V: kAhead
// rows on; K: the next panel's 16 keys; Q: the next block's rows).
constexpr size_t kAhead = 4;

void PrefetchRow(const float* row, size_t n) {
  for (size_t i = 0; i < n; i += kLanes) {
    _mm_prefetch(reinterpret_cast<const char*>(row + i), _MM_HINT_T0);
  }
}

// Each panel is its 16 keys' rows (K+bk, zero rows past l) transposed in registers, 16 columns
// at a time: stored as rows of 16 keys, one per depth.
void PackKeys(const AttentionHead& h, const Layout& x, float* kp) {
  const size_t panels = x.lp / kLanes;
  for (size_t p = 0; p < panels; ++p) {
    float* panel = kp + p * h.hd * kLanes;
    const size_t keys = Min(kLanes, h.l - p * kLanes);
    const float* rows = h.k + p * kLanes * h.ldk;
    for (size_t c = 0; p + 1 < panels && c < kLanes && (p + 1) * kLanes + c < h.l; ++c) {
      PrefetchRow(rows + (kLanes + c) * h.ldk, h.hd);  // the next panel's keys
    }
    for (size_t d0 = 0; d0 < h.hd; d0 += kLanes) {
      const size_t depths = Min(kLanes, h.hd - d0);
      const __mmask16 m = FirstLanes(depths);
      const __m512 bias =
          h.k_bias != nullptr ? _mm512_maskz_loadu_ps(m, h.k_bias + d0) : _mm512_setzero_ps();
      __m512 r[kLanes];
      for (size_t c = 0; c < kLanes; ++c) {
        r[c] = c < keys ? _mm512_add_ps(_mm512_maskz_loadu_ps(m, rows + c * h.ldk + d0), bias)
                        : _mm512_setzero_ps();
      }
      avx512::Transpose16(r);
      for (size_t q = 0; q < kLanes; ++q) {
        const size_t d = avx512::TransposedColumn(q);
        if (d < depths) _mm512_store_ps(panel + (d0 + d) * kLanes, r[q]);
      }
    }
  }
}

void PackValues(const AttentionHead& h, const Layout& x, float* vp) {
  for (size_t j = 0; j < h.l; ++j) {
    if (j + kAhead < h.l) PrefetchRow(h.v + (j + kAhead) * h.ldv, h.hdv);
    const float* row = h.v + j * h.ldv;
    float* dst = vp + j * x.hvp;
    for (size_t c = 0; c < x.hvp; c += kLanes) {
      const __mmask16 m = FirstLanes(h.hdv - Min(h.hdv, c));
      __m512 v = _mm512_maskz_loadu_ps(m, row + c);
      if (h.v_bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, h.v_bias + c));
      _mm512_store_ps(dst + c, v);  // zero past hdv
    }
  }
}

// acc[r][v] = Σ_{k < depth} a[r·a_row + k] · b[k·b_row + v·b_vec + 0..15] for the first R rows:
// R rows of A broadcast against NV vectors of B per step, the sums in registers.
template <size_t R, size_t NV>
[[gnu::always_inline]] inline void MultiplyTile(__m512 (&acc)[kRows][NV], const float* a,
                                                size_t a_row, const float* b, size_t b_row,
                                                size_t b_vec, size_t depth) {
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (size_t k = 0; k < depth; ++k) {
    __m512 bk[NV];
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) bk[v] = _mm512_load_ps(b + k * b_row + v * b_vec);
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r) {
      const __m512 ar = _mm512_set1_ps(a[r * a_row + k]);
#pragma GCC unroll 4
      for (size_t v = 0; v < NV; ++v) acc[r][v] = _mm512_fmadd_ps(ar, bk[v], acc[r][v]);
    }
  }
}

// Scores of the block's first R rows against key panels [p0, p0 + NV): qb is [kRows, hd].
template <size_t R, size_t NV>
void ScoreTile(const float* qb, size_t hd, const float* panels, float* sb, size_t lp) {
  __m512 acc[kRows][NV];
  MultiplyTile<R, NV>(acc, qb, hd, panels, kLanes, hd * kLanes, hd);
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (size_t v = 0; v < NV; ++v) _mm512_store_ps(sb + r * lp + v * kLanes, acc[r][v]);
  }
}

template <size_t R>
void ScoreTiles(const float* qb, size_t hd, const float* kp, size_t panels, float* sb, size_t lp) {
  for (size_t p = 0; p < panels; p += kTile) {
    const float* kpanels = kp + p * hd * kLanes;
    float* out = sb + p * kLanes;
    switch (Min(kTile, panels - p)) {
      case 1:
        ScoreTile<R, 1>(qb, hd, kpanels, out, lp);
        break;
      case 2:
        ScoreTile<R, 2>(qb, hd, kpanels, out, lp);
        break;
      case 3:
        ScoreTile<R, 3>(qb, hd, kpanels, out, lp);
        break;
      default:
        ScoreTile<R, 4>(qb, hd, kpanels, out, lp);
        break;
    }
  }
}

// out rows [0, rows) (rows <= R) columns [0, 16·NV) (the last vector's lanes under `last`) =
// inv[r] · Σ_{j < l} P[r][j] · V[j]: P is the block's weights (rows lp apart; 0 past each row's
// causal limit, and every key is still multiplied, so that a non-finite value of V reaches every
// row as it does through a whole product), vp points at packed V's column 0 of this tile (rows
// hvp apart).
template <size_t R, size_t NV>
void ValueTile(const float* sb, size_t lp, size_t l, const float* vp, size_t hvp, const float* inv,
               size_t rows, __mmask16 last, float* out, size_t ldo) {
  __m512 acc[kRows][NV];
  MultiplyTile<R, NV>(acc, sb, lp, vp, hvp, kLanes, l);
  // R iterations, fully unrolled (acc stays in registers), storing the first `rows`.
#pragma GCC unroll 8
  for (size_t r = 0; r < R; ++r) {
    if (r >= rows) break;
    const __m512 s = _mm512_set1_ps(inv[r]);
    float* dst = out + r * ldo;
#pragma GCC unroll 4
    for (size_t v = 0; v + 1 < NV; ++v) {
      _mm512_storeu_ps(dst + v * kLanes, _mm512_mul_ps(acc[r][v], s));
    }
    _mm512_mask_storeu_ps(dst + (NV - 1) * kLanes, last, _mm512_mul_ps(acc[r][NV - 1], s));
  }
}

template <size_t R>
void ValueTiles(const float* sb, size_t lp, size_t l, const float* vp, size_t hvp, size_t hdv,
                const float* inv, size_t rows, float* out, size_t ldo) {
  for (size_t c = 0; c < hdv; c += kTile * kLanes) {
    const size_t vectors = Min(kTile, (hdv - c + kLanes - 1) / kLanes);
    const __mmask16 last = FirstLanes(hdv - c - (vectors - 1) * kLanes);
    const float* vcol = vp + c;
    switch (vectors) {
      case 1:
        ValueTile<R, 1>(sb, lp, l, vcol, hvp, inv, rows, last, out + c, ldo);
        break;
      case 2:
        ValueTile<R, 2>(sb, lp, l, vcol, hvp, inv, rows, last, out + c, ldo);
        break;
      case 3:
        ValueTile<R, 3>(sb, lp, l, vcol, hvp, inv, rows, last, out + c, ldo);
        break;
      default:
        ValueTile<R, 4>(sb, lp, l, vcol, hvp, inv, rows, last, out + c, ldo);
        break;
    }
  }
}

// Adds b (when not null) to x[0, n) and returns their maximum.
float AddRowMax(float* x, const float* b, size_t n) {
  __m512 m0 = _mm512_set1_ps(-__builtin_inff());
  __m512 m1 = m0;
  size_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    __m512 x0 = _mm512_loadu_ps(x + i);
    __m512 x1 = _mm512_loadu_ps(x + i + kLanes);
    if (b != nullptr) {
      x0 = _mm512_add_ps(x0, _mm512_loadu_ps(b + i));
      x1 = _mm512_add_ps(x1, _mm512_loadu_ps(b + i + kLanes));
      _mm512_storeu_ps(x + i, x0);
      _mm512_storeu_ps(x + i + kLanes, x1);
    }
    m0 = _mm512_max_ps(m0, x0);
    m1 = _mm512_max_ps(m1, x1);
  }
  for (; i < n; i += kLanes) {
    const __mmask16 m = FirstLanes(n - i);
    __m512 xi = _mm512_maskz_loadu_ps(m, x + i);
    if (b != nullptr) {
      xi = _mm512_add_ps(xi, _mm512_maskz_loadu_ps(m, b + i));
      _mm512_mask_storeu_ps(x + i, m, xi);
    }
    m0 = _mm512_mask_max_ps(m0, m, m0, xi);
  }
  return avx512::ReduceMax(_mm512_max_ps(m0, m1));
}

// The number of key rows query row i attends to.
size_t Allowed(const AttentionHead& h, size_t i) {
  if (!h.causal) return h.l;
  // j <= i + l - s; a row with no such j keeps all (ONNX Runtime adds the same
  // mask_filter_value to each of its scores, which the softmax cancels).
  const size_t limit = i + h.l;  // (i + l - s) + s, kept unsigned
  return limit >= h.s ? Min(h.l, limit - h.s + 1) : h.l;
}

}  // namespace

size_t AttentionHeadScratchFloats(size_t l, size_t hd, size_t hdv) {
  return MakeLayout(l, hd, hdv).total;
}

void AttentionHeadAvx512(const AttentionHead& h, float* scratch) {
  const Layout x = MakeLayout(h.l, h.hd, h.hdv);
  float* kp = scratch + x.keys;
  float* vp = scratch + x.values;
  float* sb = scratch + x.scores;
  float* qb = scratch + x.queries;
  float* inv = scratch + x.inv;
  PackKeys(h, x, kp);
  PackValues(h, x, vp);
  const size_t panels = x.lp / kLanes;
  for (size_t i0 = 0; i0 < h.s; i0 += kRows) {
    const size_t rows = Min(kRows, h.s - i0);
    for (size_t r = 0; r < kRows; ++r) {
      float* dst = qb + r * h.hd;
      if (r >= rows) {
        Zero(dst, h.hd);
        continue;
      }
      const float* src = h.q + (i0 + r) * h.ldq;
      if (i0 + r + kRows < h.s) PrefetchRow(src + kRows * h.ldq, h.hd);  // the next block's row
      const __m512 scale = _mm512_set1_ps(h.scale);
      for (size_t d = 0; d < h.hd; d += kLanes) {
        const __mmask16 m = FirstLanes(h.hd - d);
        __m512 v = _mm512_maskz_loadu_ps(m, src + d);
        if (h.q_bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, h.q_bias + d));
        _mm512_mask_storeu_ps(dst + d, m, _mm512_mul_ps(v, scale));
      }
    }
    // The last block takes a tile of 2 or 4 rows when that is enough.
    const size_t tile_rows = rows > 4 ? kRows : rows > 2 ? 4 : 2;
    switch (tile_rows) {
      case 2:
        ScoreTiles<2>(qb, h.hd, kp, panels, sb, x.lp);
        break;
      case 4:
        ScoreTiles<4>(qb, h.hd, kp, panels, sb, x.lp);
        break;
      default:
        ScoreTiles<kRows>(qb, h.hd, kp, panels, sb, x.lp);
        break;
    }
    for (size_t r = 0; r < tile_rows; ++r) {
      float* row = sb + r * x.lp;
      if (r >= rows) {
        Zero(row, h.l);
        inv[r] = 0.0f;
        continue;
      }
      const size_t i = i0 + r;
      const size_t valid = Allowed(h, i);
      const float* b = h.scores_bias != nullptr ? h.scores_bias + i * h.l : nullptr;
      inv[r] = 1.0f / ExpShiftedSumAvx512(row, row, valid, AddRowMax(row, b, valid));
      Zero(row + valid, h.l - valid);
    }
    float* out = h.out + i0 * h.ldo;
    switch (tile_rows) {
      case 2:
        ValueTiles<2>(sb, x.lp, h.l, vp, x.hvp, h.hdv, inv, rows, out, h.ldo);
        break;
      case 4:
        ValueTiles<4>(sb, x.lp, h.l, vp, x.hvp, h.hdv, inv, rows, out, h.ldo);
        break;
      default:
        ValueTiles<kRows>(sb, x.lp, h.l, vp, x.hvp, h.hdv, inv, rows, out, h.ldo);
        break;
    }
  }
}

}  // namespace kiln::cpu
