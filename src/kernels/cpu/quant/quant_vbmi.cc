// The byte table lookup on AVX-512 VBMI (quant_vbmi.h). Only this file is compiled with
// -mavx512bw -mavx512vbmi; its lookup runs only where ByteLookupVbmiSupported() says so.
#include "kernels/cpu/quant/quant_vbmi.h"

#include "kernels/cpu/vector_math_avx512.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::cpu {

bool ByteLookupVbmiSupported() {
#if defined(__x86_64__)
  static const bool supported =
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
  return supported && UseVectorMathAvx512();
#else
  return false;
#endif
}

void ByteLookupVbmi(const uint8_t* table, size_t n, const uint8_t* x, uint8_t* y) {
#if defined(__x86_64__)
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  for (size_t i = 0; i < n; i += 64) {
    const size_t left = n - i;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    const __m512i idx = _mm512_maskz_loadu_epi8(m, x + i);
    // Indices 0-127 from the first half of the table, 128-255 from the second (bit 6 picks the
    // 64-byte quarter within a half; bit 7, the top bit, the half).
    const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i hi = _mm512_permutex2var_epi8(t2, idx, t3);
    const __m512i v = _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
    _mm512_mask_storeu_epi8(y + i, m, v);
  }
#else
  for (size_t i = 0; i < n; ++i) y[i] = table[x[i]];
#endif
}

}  // namespace kiln::cpu
