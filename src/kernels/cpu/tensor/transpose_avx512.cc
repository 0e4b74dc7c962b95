// Compiled with -mavx512f (CMakeLists.txt; x86-64 only); called only where UseVectorMathAvx512().
// Uses nothing from the standard library, whose inline functions would otherwise be emitted here
// with AVX-512 instructions and could be the copy the linker keeps for the whole library.
#include "kernels/cpu/tensor/transpose_avx512.h"

#include <immintrin.h>

namespace kiln::cpu {
namespace {

constexpr size_t kLanes = 16;
// The shuffles below are the masked forms with every lane set: GCC 12's unmasked ones pass an
// undefined vector that trips -Wuninitialized in its own header.
constexpr __mmask16 kAll = 0xFFFF;
constexpr __mmask8 kAllPairs = 0xFF;

__mmask16 FirstLanes(size_t n) {
  return n >= kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// y[c·ldy + r] = x[r·ldx + c] for r < rows, c < cols (both at most 16): rows of 16 lanes in, an
// in-register transpose (pairs of rows interleaved, then pairs of pairs, then 128-bit quarters
// twice), rows of 16 lanes out; only `cols` lanes of a row are read and `rows` lanes written.
void Block(const float* x, size_t ldx, float* y, size_t ldy, size_t rows, size_t cols) {
  const __mmask16 in = FirstLanes(cols);
  const __mmask16 out = FirstLanes(rows);
  __m512 r[kLanes];
  __m512 t[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(in, x + i * ldx) : _mm512_setzero_ps();
  }
  // t[i], t[i+1]: rows i and i+1 interleaved by element within each 128-bit quarter.
  for (size_t i = 0; i < kLanes; i += 2) {
    t[i] = _mm512_mask_unpacklo_ps(r[i], kAll, r[i], r[i + 1]);
    t[i + 1] = _mm512_mask_unpackhi_ps(r[i], kAll, r[i], r[i + 1]);
  }
  // Then by pairs: r[i + k] holds, per quarter q, column 4q + c of rows i..i+3, where c is
  // 0, 2, 1, 3 for k = 0, 1, 2, 3.
  for (size_t i = 0; i < kLanes; i += 4) {
    for (size_t k = 0; k < 2; ++k) {
      const __m512d a = _mm512_castps_pd(t[i + k]);
      const __m512d b = _mm512_castps_pd(t[i + 2 + k]);
      r[i + k] = _mm512_castpd_ps(_mm512_mask_unpacklo_pd(a, kAllPairs, a, b));
      r[i + 2 + k] = _mm512_castpd_ps(_mm512_mask_unpackhi_pd(a, kAllPairs, a, b));
    }
  }
  // Quarters: gather the four row groups' quarters of each column into one vector.
  for (size_t i = 0; i < kLanes; i += 8) {
    for (size_t k = 0; k < 4; ++k) {
      t[i + k] = _mm512_mask_shuffle_f32x4(r[i + k], kAll, r[i + k], r[i + 4 + k], 0x88);
      t[i + 4 + k] = _mm512_mask_shuffle_f32x4(r[i + k], kAll, r[i + k], r[i + 4 + k], 0xDD);
    }
  }
  for (size_t k = 0; k < 8; ++k) {
    r[k] = _mm512_mask_shuffle_f32x4(t[k], kAll, t[k], t[8 + k], 0x88);
    r[8 + k] = _mm512_mask_shuffle_f32x4(t[k], kAll, t[k], t[8 + k], 0xDD);
  }
  // r[q] is column q with bits 0 and 1 swapped when they differ (0, 2, 1, 3, 4, 6, 5, 7, ...).
  for (size_t q = 0; q < kLanes; ++q) {
    const size_t c = ((q >> 1) ^ q) & 1 ? q ^ 3 : q;
    if (c < cols) _mm512_mask_storeu_ps(y + c * ldy, out, r[q]);
  }
}

}  // namespace

void TransposeTile32Avx512(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                           size_t i1, size_t j0, size_t j1) {
  // Bit copies: no arithmetic touches the lanes, so any 4-byte element goes as float.
  const auto* xf = reinterpret_cast<const float*>(x);
  auto* yf = reinterpret_cast<float*>(y);
  for (size_t i = i0; i < i1; i += kLanes) {
    const size_t r = i1 - i < kLanes ? i1 - i : kLanes;
    for (size_t j = j0; j < j1; j += kLanes) {
      const size_t c = j1 - j < kLanes ? j1 - j : kLanes;
      Block(xf + i * cols + j, cols, yf + j * rows + i, rows, r, c);
    }
  }
}

}  // namespace kiln::cpu
