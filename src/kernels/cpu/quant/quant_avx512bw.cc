// The depthwise pair sums on AVX-512 BW (quant_avx512bw.h). Only this file is compiled with
// -mavx512bw; it runs only where DepthwisePairsSupported() says so. It uses nothing from the
// standard library (see packed_kernel.h).
#include "kernels/cpu/quant/quant_avx512bw.h"

#if defined(__x86_64__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {

// 32 bytes widened to 16 bits, signed or not.
template <bool kSigned>
inline __m512i Widen32(const uint8_t* p) {
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return kSigned ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b);
}

// kP positions from p of one chunk of 32 channels (x, acc and the pairs at the chunk's start).
template <size_t kP, bool kSigned>
inline void PairTile(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                     const int32_t* pairs, size_t chunks, __m512i init0, __m512i init1,
                     __m512i order0, __m512i order1, size_t p, int32_t* acc, size_t ld) {
  __m512i s0[kP], s1[kP];
  for (size_t i = 0; i < kP; ++i) {
    s0[i] = init0;
    s1[i] = init1;
  }
  for (size_t t = 0; t < taps; t += 2) {
    const int32_t* wq = pairs + (t / 2) * chunks * 32;
    const __m512i w0 = _mm512_loadu_si512(wq);
    const __m512i w1 = _mm512_loadu_si512(wq + 16);
    const uint8_t* xa = x + tap_offset[t] + p * step;
    // A missing last tap reads the first again; its weights are 0.
    const uint8_t* xb = x + tap_offset[t + 1 < taps ? t + 1 : t] + p * step;
    for (size_t i = 0; i < kP; ++i) {
      const __m512i a = Widen32<kSigned>(xa + i * step);
      const __m512i b = Widen32<kSigned>(xb + i * step);
      s0[i] = _mm512_add_epi32(s0[i], _mm512_madd_epi16(_mm512_unpacklo_epi16(a, b), w0));
      s1[i] = _mm512_add_epi32(s1[i], _mm512_madd_epi16(_mm512_unpackhi_epi16(a, b), w1));
    }
  }
  // Back to the channels' order: each vector of 16 takes its lanes from both sums.
  for (size_t i = 0; i < kP; ++i) {
    int32_t* out = acc + (p + i) * ld;
    _mm512_storeu_si512(out, _mm512_permutex2var_epi32(s0[i], order0, s1[i]));
    _mm512_storeu_si512(out + 16, _mm512_permutex2var_epi32(s0[i], order1, s1[i]));
  }
}

template <bool kSigned>
void RunPairs(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step, size_t count,
              const int32_t* pairs, const int32_t* sums, size_t chunks, int32_t xz, int32_t* acc,
              size_t ld) {
  // Natural channel n (0-31) is lane 4L + n % 8 of the first sum (n % 8 < 4) or the second
  // (index + 16), L = n / 8 (DepthwisePairChannel's inverse).
  alignas(64) int32_t order[32];
  for (int n = 0; n < 32; ++n) order[n] = 4 * (n / 8) + n % 4 + (n % 8 < 4 ? 0 : 16);
  const __m512i order0 = _mm512_load_si512(order);
  const __m512i order1 = _mm512_load_si512(order + 16);
  const __m512i zero_point = _mm512_set1_epi32(xz);
  for (size_t k = 0; k < chunks; ++k) {
    // Σ (x - xz)·w = Σ x·w - xz·Σ w: the zero point's part is the sums' starting value.
    const __m512i init0 = _mm512_sub_epi32(
        _mm512_setzero_si512(), _mm512_mullo_epi32(zero_point, _mm512_loadu_si512(sums + k * 32)));
    const __m512i init1 =
        _mm512_sub_epi32(_mm512_setzero_si512(),
                         _mm512_mullo_epi32(zero_point, _mm512_loadu_si512(sums + k * 32 + 16)));
    const uint8_t* xk = x + k * 32;
    const int32_t* pk = pairs + k * 32;
    int32_t* ak = acc + k * 32;
    size_t p = 0;
    for (; p + 4 <= count; p += 4) {
      PairTile<4, kSigned>(xk, tap_offset, taps, step, pk, chunks, init0, init1, order0, order1, p,
                           ak, ld);
    }
    for (; p < count; ++p) {
      PairTile<1, kSigned>(xk, tap_offset, taps, step, pk, chunks, init0, init1, order0, order1, p,
                           ak, ld);
    }
  }
}

}  // namespace

void DepthwiseRunPairsAvx512Bw(const uint8_t* x, const int64_t* tap_offset, size_t taps,
                               size_t step, size_t count, const int32_t* pairs, const int32_t* sums,
                               size_t chunks, bool x_signed, int32_t xz, int32_t* acc, size_t ld) {
  if (x_signed) {
    RunPairs<true>(x, tap_offset, taps, step, count, pairs, sums, chunks, xz, acc, ld);
  } else {
    RunPairs<false>(x, tap_offset, taps, step, count, pairs, sums, chunks, xz, acc, ld);
  }
}

}  // namespace kiln::cpu

#endif  // defined(__x86_64__)
