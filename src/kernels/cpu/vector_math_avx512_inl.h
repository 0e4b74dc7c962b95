// Transcendental functions on AVX-512 vectors of 16 floats, for files compiled with -mavx512f
// (and called only where the machine runs AVX-512): e^x by a Cody-Waite reduction, a degree-6
// polynomial and scalef (in place of vector_math.h's exponent bit tricks), and erf from a
// small-argument polynomial of its own and vector_math.h's ErfF large-argument form. Also lane
// reductions and a 16 × 16 transpose in registers.
#ifndef KILN_KERNELS_CPU_VECTOR_MATH_AVX512_INL_H_
#define KILN_KERNELS_CPU_VECTOR_MATH_AVX512_INL_H_

#include <immintrin.h>

#include <cstddef>

namespace kiln::cpu::avx512 {

// e^a for a <= 0 (or NaN, which stays NaN): Cody-Waite reduction (k = round(a·log2 e),
// r = a - k·ln 2 in two parts), a degree-6 polynomial on r and scalef by 2^k. a is held at -104,
// where e^a is 0 in float, which keeps r finite; max(-104, NaN) is the NaN.
inline __m512 ExpNonPositive(__m512 a) {
  const __m512 one = _mm512_set1_ps(1.0f);
  a = _mm512_max_ps(_mm512_set1_ps(-104.0f), a);
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), a);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.428606765330187045e-06f), r);
  __m512 p = _mm512_set1_ps(0.0013814611593261361f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.008368710055947304f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.04166634753346443f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.16666552424430847f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5000000596046448f));
  p = _mm512_fmadd_ps(p, r, one);
  p = _mm512_fmadd_ps(p, r, one);
  return _mm512_scalef_ps(p, k);
}

// -|v|: the sign bit set (as integers: a float OR needs AVX-512DQ).
inline __m512 NegativeAbs(__m512 v) {
  return _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0x80000000u))));
}

// erf(x): |x|·P(x²) for |x| < 1.5 (P of degree 7 in x², its coefficients fitted here to erf on
// [0, 1.5] one at a time, each refitted after the previous ones were rounded to float: within
// 1.5e-7 of erf there, as vector_math.h's degree-6 one is on [0, 1)); 1 - e^-x²·R(|x| - 2.5)
// (vector_math.h's ErfF) for 1.5 <= |x| <= 3.95 (|x| clamped there, where erf is 1 in float);
// x's sign. NaN stays NaN.
inline __m512 Erf(__m512 x) {
  const __m512i sign_bit = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), sign_bit);
  __m512 a = _mm512_castsi512_ps(_mm512_andnot_si512(sign_bit, _mm512_castps_si512(x)));
  // (A NaN lane is not below the bound.)
  const __mmask16 small_lanes = _mm512_cmp_ps_mask(a, _mm512_set1_ps(1.5f), _CMP_LT_OQ);
  const __m512 a2 = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(-5.464914011099609e-06f);
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(9.034809772856534e-05f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(-0.0007988344877958298f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(0.005162843968719244f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(-0.026827964931726456f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(0.11282537877559662f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(-0.37612462043762207f));
  p = _mm512_fmadd_ps(p, a2, _mm512_set1_ps(1.1283791065216064f));
  const __m512 small = _mm512_mul_ps(a, p);
  // Every lane below the bound (nearly all of a GELU's input vectors: the bench models' GELU
  // inputs have |x| < 1.5 in all but ~1% of their vectors): the other branch's exponential and
  // polynomial are not needed, and the branch is predictable.
  if (small_lanes == 0xFFFF) {
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(small), sign));
  }
  a = _mm512_min_ps(a, _mm512_set1_ps(3.95f));  // min(NaN, 3.95) is 3.95: NaN restored below
  const __m512 u = _mm512_sub_ps(a, _mm512_set1_ps(2.5f));
  __m512 q = _mm512_set1_ps(-0.000393788272049278f);
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(-0.0008255168795585632f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(-0.0020103221759200096f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(0.0019271763740107417f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(-0.007811638060957193f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(0.02516462467610836f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(-0.0742964968085289f));
  q = _mm512_fmadd_ps(q, u, _mm512_set1_ps(0.21080681681632996f));
  const __m512 e = ExpNonPositive(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(a, a)));
  const __m512 large = _mm512_fnmadd_ps(e, q, _mm512_set1_ps(1.0f));
  __m512 r = _mm512_mask_blend_ps(small_lanes, large, small);
  r = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
  // NaN in, NaN out (the clamp above replaced it).
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(r, nan, x);
}

// The largest lane and the sum of the lanes, by swapping halves (no round trip through memory,
// whose store-to-scalar-load forwarding stalls). The masked forms, with every lane set, because
// GCC 12's unmasked shuffles (and _mm512_reduce_*) pass an undefined vector that trips
// -Wuninitialized in its own header.
inline __m512 SwapLanes(__m512 v, int step) {
  constexpr __mmask16 kAll = 0xFFFF;
  switch (step) {
    case 8:
      return _mm512_mask_shuffle_f32x4(v, kAll, v, v, 0x4E);  // 256-bit halves
    case 4:
      return _mm512_mask_shuffle_f32x4(v, kAll, v, v, 0xB1);  // 128-bit quarters
    case 2:
      return _mm512_mask_permute_ps(v, kAll, v, 0x4E);  // pairs within a quarter
    default:
      return _mm512_mask_permute_ps(v, kAll, v, 0xB1);  // neighbours
  }
}
inline float ReduceMax(__m512 v) {
  for (int step = 8; step > 0; step /= 2) v = _mm512_max_ps(v, SwapLanes(v, step));
  return _mm512_cvtss_f32(v);
}
inline float ReduceAdd(__m512 v) {
  for (int step = 8; step > 0; step /= 2) v = _mm512_add_ps(v, SwapLanes(v, step));
  return _mm512_cvtss_f32(v);
}

// The mask of the first n (< 16 or more) lanes.
inline __mmask16 FirstLanes(size_t n) {
  return n >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << n) - 1);
}

// Transposes the 16 × 16 block r[row] lane by lane in registers: pairs of rows interleaved by
// element, then pairs of pairs, then 128-bit quarters twice (the masked forms, as above). After
// it, r[q] is column TransposedColumn(q) of the block: bits 0 and 1 of q swapped when they
// differ (0, 2, 1, 3, 4, 6, 5, 7, ...), which saves a shuffle per vector. Moves bits only.
inline void Transpose16(__m512 (&r)[16]) {
  constexpr __mmask16 kAll = 0xFFFF;
  constexpr __mmask8 kAllPairs = 0xFF;
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_mask_unpacklo_ps(r[i], kAll, r[i], r[i + 1]);
    t[i + 1] = _mm512_mask_unpackhi_ps(r[i], kAll, r[i], r[i + 1]);
  }
  // r[i + k], per 128-bit quarter q: column 4q + (0, 2, 1, 3 for k = 0..3) of rows i..i+3.
  for (int i = 0; i < 16; i += 4) {
    for (int k = 0; k < 2; ++k) {
      const __m512d a = _mm512_castps_pd(t[i + k]);
      const __m512d b = _mm512_castps_pd(t[i + 2 + k]);
      r[i + k] = _mm512_castpd_ps(_mm512_mask_unpacklo_pd(a, kAllPairs, a, b));
      r[i + 2 + k] = _mm512_castpd_ps(_mm512_mask_unpackhi_pd(a, kAllPairs, a, b));
    }
  }
  // Then each column's four quarters, one from each group of four rows, into one vector.
  for (int i = 0; i < 16; i += 8) {
    for (int k = 0; k < 4; ++k) {
      t[i + k] = _mm512_mask_shuffle_f32x4(r[i + k], kAll, r[i + k], r[i + 4 + k], 0x88);
      t[i + 4 + k] = _mm512_mask_shuffle_f32x4(r[i + k], kAll, r[i + k], r[i + 4 + k], 0xDD);
    }
  }
  for (int k = 0; k < 8; ++k) {
    r[k] = _mm512_mask_shuffle_f32x4(t[k], kAll, t[k], t[8 + k], 0x88);
    r[8 + k] = _mm512_mask_shuffle_f32x4(t[k], kAll, t[k], t[8 + k], 0xDD);
  }
}
inline size_t TransposedColumn(size_t q) {
  return ((q >> 1) ^ q) & 1 ? q ^ 3 : q;
}

}  // namespace kiln::cpu::avx512

#endif  // KILN_KERNELS_CPU_VECTOR_MATH_AVX512_INL_H_
