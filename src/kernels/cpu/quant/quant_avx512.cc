// The quantized convolution's AVX-512 element loops (quant_avx512.h). This file alone is compiled
// with -mavx512f; its functions run only where UseVectorMathAvx512() is true.
#include "kernels/cpu/quant/quant_avx512.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {

// The first `left` lanes of 16 (all of them from 16 on).
inline __mmask16 Lanes16(size_t left) {
  return left >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << left) - 1u);
}

// The first min(left, 16) bytes at p widened to int32 (the rest 0), signed or not. (A masked byte
// load would need AVX512BW; the tail goes through a buffer instead.)
inline __m512i Widen(const uint8_t* p, size_t left, bool is_signed) {
  __m128i v;
  if (left >= 16) {
    v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  } else {
    alignas(16) uint8_t tail[16] = {};
    for (size_t i = 0; i < left; ++i) tail[i] = p[i];
    v = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
  }
  return is_signed ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v);
}

}  // namespace

void RequantizeRowAvx512(const int32_t* acc, size_t n, const double* b, const double* mult,
                         double zp, bool y_signed, uint8_t* y) {
  // Clamped before the zero point is added (to [least - zp, greatest - zp]), then rounded half to
  // even as it is converted: the same values as rounding, adding and clamping in turn, since zp
  // is an integer.
  const __m512d lo = _mm512_set1_pd((y_signed ? -128.0 : 0.0) - zp);
  const __m512d hi = _mm512_set1_pd((y_signed ? 127.0 : 255.0) - zp);
  const __m512i z = _mm512_set1_epi32(static_cast<int32_t>(zp));
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = Lanes16(n - j);
    const auto m0 = static_cast<__mmask8>(m & 0xff);
    const auto m1 = static_cast<__mmask8>(m >> 8);
    const __m512i a = _mm512_maskz_loadu_epi32(m, acc + j);
    __m512d v0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(a));
    __m512d v1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(a, 1));
    v0 = _mm512_mul_pd(_mm512_add_pd(v0, _mm512_maskz_loadu_pd(m0, b + j)),
                       _mm512_maskz_loadu_pd(m0, mult + j));
    v1 = _mm512_mul_pd(_mm512_add_pd(v1, _mm512_maskz_loadu_pd(m1, b + j + 8)),
                       _mm512_maskz_loadu_pd(m1, mult + j + 8));
    v0 = _mm512_min_pd(_mm512_max_pd(v0, lo), hi);
    v1 = _mm512_min_pd(_mm512_max_pd(v1, lo), hi);
    constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const __m512i q =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvt_roundpd_epi32(v0, kNearest)),
                           _mm512_cvt_roundpd_epi32(v1, kNearest), 1);
    _mm512_mask_cvtepi32_storeu_epi8(y + j, m, _mm512_add_epi32(q, z));
  }
}

void DepthwiseSumsAvx512(const uint8_t* const* x, const int32_t* const* w, size_t taps,
                         size_t channels, bool x_signed, int32_t xz, int32_t* acc) {
  const __m512i zero_point = _mm512_set1_epi32(xz);
  for (size_t c = 0; c < channels; c += 16) {
    const __mmask16 m = Lanes16(channels - c);
    __m512i sum = _mm512_setzero_si512();
    for (size_t t = 0; t < taps; ++t) {
      const __m512i v = _mm512_sub_epi32(Widen(x[t] + c, channels - c, x_signed), zero_point);
      sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(v, _mm512_maskz_loadu_epi32(m, w[t] + c)));
    }
    _mm512_mask_storeu_epi32(acc + c, m, sum);
  }
}

}  // namespace kiln::cpu

#endif  // __x86_64__
