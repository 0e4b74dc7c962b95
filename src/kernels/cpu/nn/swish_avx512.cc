// Compiled with -mavx512f (CMakeLists.txt); called only where SwishAvx512Supported().
#include "kernels/cpu/nn/swish_avx512.h"

#include <immintrin.h>

namespace kiln::cpu::nn {
namespace {

// v·sigmoid(v): e = e^-|v| by Cody-Waite reduction (k = round(-|v|·log2 e), r = -|v| - k·ln 2 in
// two parts), a degree-6 polynomial on r and scalef by 2^k; 1/(1 + e) from rcp14 and one Newton
// step; sigmoid is that for v >= 0 and e/(1 + e) below. -|v| is held at -104 (e is 0 there in
// float), which keeps r finite; max(-104, NaN) is the NaN, so NaN goes through.
inline __m512 Swish(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // -|v|: the sign bit set (as integers: a float OR needs AVX-512DQ).
  __m512 a = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0x80000000u))));
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
  const __m512 e = _mm512_scalef_ps(p, k);
  const __m512 d = _mm512_add_ps(one, e);
  __m512 q = _mm512_rcp14_ps(d);
  q = _mm512_fmadd_ps(q, _mm512_fnmadd_ps(d, q, one), q);
  const __mmask16 negative = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
  return _mm512_mul_ps(v, _mm512_mask_mul_ps(q, negative, e, q));
}

}  // namespace

bool SwishAvx512Supported() noexcept {
  static const bool supported = __builtin_cpu_supports("avx512f");
  return supported;
}

void SwishRowsAvx512(float* y, size_t rows, size_t cols, size_t ldy, const float* bias,
                     const float* z, size_t ldz) {
  for (size_t row = 0; row < rows; ++row) {
    float* yr = y + row * ldy;
    const float* zr = z != nullptr ? z + row * ldz : nullptr;
    for (size_t j = 0; j < cols; j += 16) {
      const __mmask16 m =
          cols - j >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (cols - j)) - 1);
      __m512 v = _mm512_maskz_loadu_ps(m, yr + j);
      if (bias != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias + j));
      if (zr != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, zr + j));
      _mm512_mask_storeu_ps(yr + j, m, Swish(v));
    }
  }
}

}  // namespace kiln::cpu::nn
