// Compiled with -mavx512f (CMakeLists.txt); the row functions run only where
// UseVectorMathAvx512() (defined in common.cc, which is compiled for the baseline: code that
// runs before the check must not be built with AVX-512 instructions).
#include "kernels/cpu/vector_math_avx512.h"

#include "kernels/cpu/vector_math_avx512_inl.h"

namespace kiln::cpu {

namespace {

// e^(x - shift), 0 where that is below the smallest normal float: a subnormal result costs
// scalef a microcode assist (measured: ten times slower on BERT's masked attention scores).
inline __m512 ExpShiftedFlushed(__m512 x, __m512 shift) {
  const __m512 a = _mm512_sub_ps(x, shift);
  const __m512 lowest = _mm512_set1_ps(-87.33654f);  // ln(FLT_MIN)
  // Not below (NaN included, which goes through): kept.
  const __mmask16 keep = _mm512_cmp_ps_mask(a, lowest, _CMP_NLT_UQ);
  return _mm512_maskz_mov_ps(keep, avx512::ExpNonPositive(_mm512_max_ps(lowest, a)));
}

}  // namespace

float ExpShiftedSumAvx512(const float* x, float* y, size_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 acc0 = _mm512_setzero_ps();
  __m512 acc1 = _mm512_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 e0 = ExpShiftedFlushed(_mm512_loadu_ps(x + i), s);
    const __m512 e1 = ExpShiftedFlushed(_mm512_loadu_ps(x + i + 16), s);
    _mm512_storeu_ps(y + i, e0);
    _mm512_storeu_ps(y + i + 16, e1);
    acc0 = _mm512_add_ps(acc0, e0);
    acc1 = _mm512_add_ps(acc1, e1);
  }
  for (; i < n; i += 16) {
    const __mmask16 m = avx512::FirstLanes(n - i);
    const __m512 e = ExpShiftedFlushed(_mm512_maskz_loadu_ps(m, x + i), s);
    _mm512_mask_storeu_ps(y + i, m, e);
    acc0 = _mm512_add_ps(acc0, _mm512_maskz_mov_ps(m, e));
  }
  return avx512::ReduceAdd(_mm512_add_ps(acc0, acc1));
}

void GeluErfRowAvx512(const float* x, const float* b, float* y, size_t n) {
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 inv_sqrt2 = _mm512_set1_ps(0.70710678118654752f);
  for (size_t i = 0; i < n; i += 16) {
    const __mmask16 m = avx512::FirstLanes(n - i);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    if (b != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, b + i));
    const __m512 e = avx512::Erf(_mm512_mul_ps(v, inv_sqrt2));
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(_mm512_mul_ps(half, v), _mm512_add_ps(one, e)));
  }
}

}  // namespace kiln::cpu
