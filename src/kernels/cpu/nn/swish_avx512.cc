// Compiled with -mavx512f (CMakeLists.txt); called only where SwishAvx512Supported() (defined in
// conv_epilogue.cc, compiled for the baseline).
#include "kernels/cpu/nn/swish_avx512.h"

#include <immintrin.h>

#include "kernels/cpu/vector_math_avx512_inl.h"

namespace kiln::cpu::nn {
namespace {

// v·sigmoid(v): e = e^-|v| (vector_math_avx512_inl.h); 1/(1 + e) from rcp14 and one Newton
// step; sigmoid is that for v >= 0 and e/(1 + e) below. NaN goes through.
inline __m512 Swish(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 e = avx512::ExpNonPositive(avx512::NegativeAbs(v));
  const __m512 d = _mm512_add_ps(one, e);
  __m512 q = _mm512_rcp14_ps(d);
  q = _mm512_fmadd_ps(q, _mm512_fnmadd_ps(d, q, one), q);
  const __mmask16 negative = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_mul_ps(v, _mm512_mask_mul_ps(q, negative, e, q));
}

}  // namespace

void SwishRowsAvx512(float* y, size_t rows, size_t cols, size_t ldy, const float* bias,
                     const float* z, size_t ldz) {
  for (size_t row = 0; row < rows; ++row) {
    float* yr = y + row * ldy;
    const float* zr = z != nullptr ? z + row * ldz : nullptr;
    for (size_t j = 0; j < cols; j += 16) {
      const __mmask16 m = avx512::FirstLanes(cols - j);
      __m512 v = _mm512_maskz_loadu_ps(m, yr + j);
      if (bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + j));
      if (zr != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, zr + j));
      _mm512_mask_storeu_ps(yr + j, m, Swish(v));
    }
  }
}

}  // namespace kiln::cpu::nn
