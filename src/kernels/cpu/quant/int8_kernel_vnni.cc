// Int8Gemm's kernel for AVX-512 VNNI: tiles of up to 12 rows × 32 columns of int32 sums (24 of
// the 32 vector registers), each group of four depths one vpdpbusd per row and vector (A's four
// unsigned bytes broadcast, B's 32 columns × 4 signed bytes in two vectors). This file alone is
// compiled with -mavx512f -mavx512vnni; it is called only on machines that have both
// (int8_gemm.cc checks). It uses nothing from the standard library (see packed_kernel.h).
#define KILN_INT8_KERNEL_BODY
#include <immintrin.h>

#include "kernels/cpu/quant/int8_kernel.h"
#include "kernels/cpu/row_tiles.h"

namespace kiln::cpu::int8 {
namespace {

// Four bytes of A as one int32, broadcast to every lane.
inline __m512i BroadcastFour(const uint8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// The sums of kR rows (≤ kVnniRows) × kV vectors (1 or 2) of 16 columns, from `init`.
template <size_t kR, size_t kV>
[[gnu::always_inline]] inline void Accumulate(size_t groups, const uint8_t* a, size_t lda,
                                              const int8_t* b, const int32_t* init,
                                              __m512i (&acc)[kV][kR]) {
  __m512i start[kV];
  KILN_UNROLL
  for (size_t v = 0; v < kV; ++v) {
    start[v] = init != nullptr ? _mm512_loadu_si512(init + v * 16) : _mm512_setzero_si512();
  }
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) acc[v][r] = start[v];
  }
  for (size_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 128;
    __m512i bv[kV];
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) bv[v] = _mm512_loadu_si512(bg + v * 64);
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const __m512i av = BroadcastFour(a + r * lda + 4 * g);
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) {
        // vpdpbusd written out: with GCC 12's _mm512_dpbusd_epi32 every sum was copied to a
        // scratch register, accumulated, and copied back and to the stack at each step (84
        // stack accesses in the 12 × 32 tile's loop; none so).
        asm("vpdpbusd %[b], %[a], %[acc]" : [acc] "+v"(acc[v][r]) : [a] "v"(av), [b] "v"(bv[v]));
      }
    }
  }
}

// The mask of vector v's columns among the first `cols`.
inline __mmask16 VectorMask(size_t v, size_t cols) {
  const size_t done = v * 16;
  const size_t n = cols <= done ? 0 : (cols - done < 16 ? cols - done : 16);
  return static_cast<__mmask16>((1u << n) - 1);
}

// kR rows × kV vectors of 16 columns; the first `cols` stored.
template <size_t kR, size_t kV>
void Tile(size_t groups, const uint8_t* a, size_t lda, const int8_t* b, const int32_t* init,
          int32_t* c, size_t ldc, size_t cols) {
  __m512i acc[kV][kR];
  Accumulate<kR, kV>(groups, a, lda, b, init, acc);
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) {
      _mm512_mask_storeu_epi32(c + r * ldc + v * 16, VectorMask(v, cols), acc[v][r]);
    }
  }
}

// The same tile requantized in registers (RequantizeRowsAvx512's float arithmetic: the sum and
// bias added, times the multiplier, clamped to the bounds less the zero point, rounded half to
// even, the zero point added); when a lane lies within 2^-14 of a half, where float's error may
// decide the side, the tile's sums go through `spill` to RedoUnsureRowsAvx512 (which redoes
// those rows in double).
template <size_t kR, size_t kV>
void TileRequant(size_t groups, const uint8_t* a, size_t lda, const int8_t* b, const int32_t* init,
                 const Requant& rq, size_t cols, int32_t* spill) {
  __m512i acc[kV][kR];
  Accumulate<kR, kV>(groups, a, lda, b, init, acc);
  const __m512 lo = _mm512_set1_ps(static_cast<float>((rq.y_signed ? -128 : 0) - rq.zp));
  const __m512 hi = _mm512_set1_ps(static_cast<float>((rq.y_signed ? 127 : 255) - rq.zp));
  const __m512i z = _mm512_set1_epi32(rq.zp);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  __m512 farthest = _mm512_setzero_ps();
  KILN_UNROLL
  for (size_t v = 0; v < kV; ++v) {
    const __mmask16 m = VectorMask(v, cols);
    const __m512i bias =
        rq.bias != nullptr ? _mm512_maskz_loadu_epi32(m, rq.bias + v * 16) : _mm512_setzero_si512();
    const __m512 k = _mm512_maskz_loadu_ps(m, rq.mult + v * 16);
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const __m512 x = _mm512_min_ps(
          _mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(acc[v][r], bias)), k),
                        lo),
          hi);
      const __m512 rounded = _mm512_roundscale_ps(x, kNearest);
      farthest = _mm512_max_ps(farthest, _mm512_abs_ps(_mm512_sub_ps(x, rounded)));
      _mm512_mask_cvtepi32_storeu_epi8(rq.y + r * rq.ldy + v * 16, m,
                                       _mm512_add_epi32(_mm512_cvttps_epi32(rounded), z));
    }
  }
  if (_mm512_cmp_ps_mask(farthest, _mm512_set1_ps(0.5f - 0x1p-14f), _CMP_GE_OQ) == 0) return;
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) _mm512_storeu_si512(spill + r * 32 + v * 16, acc[v][r]);
  }
  RedoUnsureRowsAvx512(spill, 32, kR, cols, rq.bias, rq.mult, rq.zp, rq.y_signed, rq.y, rq.ldy);
}

// The same tile converted to float in registers: float(sum) · mult, then + bias (two roundings,
// as the unfused conversion makes them).
template <size_t kR, size_t kV>
void TileToFloat(size_t groups, const uint8_t* a, size_t lda, const int8_t* b, const int32_t* init,
                 const ToFloat& tf, size_t cols) {
  __m512i acc[kV][kR];
  Accumulate<kR, kV>(groups, a, lda, b, init, acc);
  KILN_UNROLL
  for (size_t v = 0; v < kV; ++v) {
    const __mmask16 m = VectorMask(v, cols);
    const __m512 k = _mm512_maskz_loadu_ps(m, tf.mult + v * 16);
    const __m512 bias =
        tf.bias != nullptr ? _mm512_maskz_loadu_ps(m, tf.bias + v * 16) : _mm512_setzero_ps();
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      __m512 y = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[v][r]), k);
      if (tf.bias != nullptr) y = _mm512_add_ps(y, bias);
      _mm512_mask_storeu_ps(tf.y + r * tf.ldy + v * 16, m, y);
    }
  }
}

template <size_t kV, size_t... kR>
struct Table {
  static constexpr void (*kFns[])(size_t, const uint8_t*, size_t, const int8_t*, const int32_t*,
                                  int32_t*, size_t, size_t) = {&Tile<kR + 1, kV>...};
};

using Rows1 = Table<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;
using Rows2 = Table<2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

template <size_t kV, size_t... kR>
struct RequantTable {
  static constexpr void (*kFns[])(size_t, const uint8_t*, size_t, const int8_t*, const int32_t*,
                                  const Requant&, size_t, int32_t*) = {&TileRequant<kR + 1, kV>...};
};

using RequantRows1 = RequantTable<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;
using RequantRows2 = RequantTable<2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

template <size_t kV, size_t... kR>
struct FloatTable {
  static constexpr void (*kFns[])(size_t, const uint8_t*, size_t, const int8_t*, const int32_t*,
                                  const ToFloat&, size_t) = {&TileToFloat<kR + 1, kV>...};
};

using FloatRows1 = FloatTable<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;
using FloatRows2 = FloatTable<2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

}  // namespace

namespace {

// tile(first_row, rows) over the row tiles (row_tiles.h) of at most kVnniRows rows.
template <typename F>
inline void ForEachTile(size_t m, F&& tile) {
  for (size_t t = 0; t < tiles::TileCount(m, kVnniRows); ++t) {
    tile(tiles::TileStart(m, kVnniRows, t), tiles::TileRows(m, kVnniRows, t));
  }
}

}  // namespace

void PanelVnni(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
               const int32_t* init, int32_t* c, size_t ldc, size_t cols) {
  ForEachTile(m, [&](size_t i, size_t rows) {
    const uint8_t* at = a + i * lda;
    int32_t* ct = c + i * ldc;
    if (rows == kVnniRows && cols > 16) {
      Tile<kVnniRows, 2>(groups, at, lda, panel, init, ct, ldc, cols);
    } else if (cols > 16) {
      Rows2::kFns[rows - 1](groups, at, lda, panel, init, ct, ldc, cols);
    } else {
      Rows1::kFns[rows - 1](groups, at, lda, panel, init, ct, ldc, cols);
    }
  });
}

void PanelVnniRequant(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
                      const int32_t* init, const Requant& rq, size_t cols, int32_t* spill) {
  ForEachTile(m, [&](size_t i, size_t rows) {
    Requant at = rq;
    at.y = rq.y + i * rq.ldy;
    if (rows == kVnniRows && cols > 16) {
      TileRequant<kVnniRows, 2>(groups, a + i * lda, lda, panel, init, at, cols, spill);
    } else if (cols > 16) {
      RequantRows2::kFns[rows - 1](groups, a + i * lda, lda, panel, init, at, cols, spill);
    } else {
      RequantRows1::kFns[rows - 1](groups, a + i * lda, lda, panel, init, at, cols, spill);
    }
  });
}

void PanelVnniToFloat(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
                      const int32_t* init, const ToFloat& tf, size_t cols) {
  ForEachTile(m, [&](size_t i, size_t rows) {
    ToFloat at = tf;
    at.y = tf.y + i * tf.ldy;
    if (cols > 16) {
      FloatRows2::kFns[rows - 1](groups, a + i * lda, lda, panel, init, at, cols);
    } else {
      FloatRows1::kFns[rows - 1](groups, a + i * lda, lda, panel, init, at, cols);
    }
  });
}

#undef KILN_UNROLL

}  // namespace kiln::cpu::int8
