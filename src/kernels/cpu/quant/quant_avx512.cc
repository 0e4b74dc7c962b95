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

namespace {

// RequantizeRowsAvx512's constants.
struct Requantizer {
  __m512 lo, hi;  // the bounds less the zero point
  __m512i z;
  __m512 near_half;
  double lo_d, hi_d;
};

constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// (a + bias)·k clamped to the bounds and rounded (the lanes of `m` only, when kPart).
template <bool kPart>
inline __m512 ClampRound(const Requantizer& q, const int32_t* a, __mmask16 m, __m512i bias,
                         __m512 k, __m512& distance) {
  const __m512i sum =
      _mm512_add_epi32(kPart ? _mm512_maskz_loadu_epi32(m, a) : _mm512_loadu_si512(a), bias);
  const __m512 v =
      _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(sum), k), q.lo), q.hi);
  const __m512 r = _mm512_roundscale_ps(v, kNearest);
  distance = _mm512_abs_ps(_mm512_sub_ps(v, r));
  return r;
}

// The rows of one vector of columns (the first `m` lanes of it when kPart).
Requantizer MakeRequantizer(int32_t zp, bool y_signed) {
  Requantizer q;
  q.lo_d = static_cast<double>((y_signed ? -128 : 0) - zp);
  q.hi_d = static_cast<double>((y_signed ? 127 : 255) - zp);
  q.lo = _mm512_set1_ps(static_cast<float>(q.lo_d));
  q.hi = _mm512_set1_ps(static_cast<float>(q.hi_d));
  q.z = _mm512_set1_epi32(zp);
  q.near_half = _mm512_set1_ps(0.5f - 0x1p-14f);
  return q;
}

// The rows with a lane float cannot round surely, redone in double (the sum made there too).
void RedoColumns(const Requantizer& q, const int32_t* acc, size_t lda, size_t rows, __mmask16 m,
                 __m512i bias, __m512 k, uint8_t* y, size_t ldy);

template <bool kPart>
void RequantizeColumns(const Requantizer& q, const int32_t* acc, size_t lda, size_t rows,
                       __mmask16 m, __m512i bias, __m512 k, uint8_t* y, size_t ldy) {
  // Every row in float, whether sure or not; the largest distance from an integer gathered in a
  // vector and checked once after the rows (a branch, or a mask gathered, per vector held the loop
  // to its latency).
  __m512 farthest = _mm512_setzero_ps();
  for (size_t r = 0; r < rows; ++r) {
    __m512 distance;
    const __m512 rounded = ClampRound<kPart>(q, acc + r * lda, m, bias, k, distance);
    farthest = _mm512_max_ps(farthest, distance);
    const __m128i bytes = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvttps_epi32(rounded), q.z));
    if (kPart) {
      _mm512_mask_cvtepi32_storeu_epi8(y + r * ldy, m,
                                       _mm512_add_epi32(_mm512_cvttps_epi32(rounded), q.z));
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + r * ldy), bytes);
    }
  }
  if (_mm512_mask_cmp_ps_mask(m, farthest, q.near_half, _CMP_GE_OQ) == 0) return;
  RedoColumns(q, acc, lda, rows, m, bias, k, y, ldy);
}

void RedoColumns(const Requantizer& q, const int32_t* acc, size_t lda, size_t rows, __mmask16 m,
                 __m512i bias, __m512 k, uint8_t* y, size_t ldy) {
  const __m512d lo2 = _mm512_set1_pd(q.lo_d), hi2 = _mm512_set1_pd(q.hi_d);
  const __m512d k0 = _mm512_cvtps_pd(_mm512_castps512_ps256(k));
  const __m512d k1 =
      _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(k), 1)));
  const __m512d b0 = _mm512_cvtepi32_pd(_mm512_castsi512_si256(bias));
  const __m512d b1 = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(bias, 1));
  for (size_t r = 0; r < rows; ++r) {
    __m512 distance;
    ClampRound<true>(q, acc + r * lda, m, bias, k, distance);
    if (_mm512_mask_cmp_ps_mask(m, distance, q.near_half, _CMP_GE_OQ) == 0) continue;
    const __m512i raw = _mm512_maskz_loadu_epi32(m, acc + r * lda);
    __m512d d0 = _mm512_add_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(raw)), b0);
    __m512d d1 = _mm512_add_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(raw, 1)), b1);
    d0 = _mm512_min_pd(_mm512_max_pd(_mm512_mul_pd(d0, k0), lo2), hi2);
    d1 = _mm512_min_pd(_mm512_max_pd(_mm512_mul_pd(d1, k1), lo2), hi2);
    const __m512i v =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvt_roundpd_epi32(d0, kNearest)),
                           _mm512_cvt_roundpd_epi32(d1, kNearest), 1);
    _mm512_mask_cvtepi32_storeu_epi8(y + r * ldy, m, _mm512_add_epi32(v, q.z));
  }
}

}  // namespace

void RequantizeRowsAvx512(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                          const float* mult, int32_t zp, bool y_signed, uint8_t* y, size_t ldy) {
  // Clamped to the bounds less the zero point, then rounded half to even as it is converted: the
  // same values as rounding, adding and clamping in turn, since zp is an integer. Within the
  // bounds |v| ≤ 255, so float's error in (acc + b)·mult — the sum's conversion (past 2^24) and
  // the product, each half a unit in the last place, relative — is below 2^-15: float decides
  // every lane whose distance from the nearest integer is under a half less 2^-14 (a clamped lane
  // lies on an integer, and a value within the error of a bound rounds to it either way).
  const Requantizer q = MakeRequantizer(zp, y_signed);
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = Lanes16(n - j);
    const __m512i bias = b != nullptr ? _mm512_maskz_loadu_epi32(m, b + j) : _mm512_setzero_si512();
    const __m512 k = _mm512_maskz_loadu_ps(m, mult + j);
    if (n - j >= 16) {
      RequantizeColumns<false>(q, acc + j, lda, rows, m, bias, k, y + j, ldy);
    } else {
      RequantizeColumns<true>(q, acc + j, lda, rows, m, bias, k, y + j, ldy);
    }
  }
}

void RedoUnsureRowsAvx512(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                          const float* mult, int32_t zp, bool y_signed, uint8_t* y, size_t ldy) {
  const Requantizer q = MakeRequantizer(zp, y_signed);
  for (size_t j = 0; j < n; j += 16) {
    const __mmask16 m = Lanes16(n - j);
    const __m512i bias = b != nullptr ? _mm512_maskz_loadu_epi32(m, b + j) : _mm512_setzero_si512();
    RedoColumns(q, acc + j, lda, rows, m, bias, _mm512_maskz_loadu_ps(m, mult + j), y + j, ldy);
  }
}

void QLinearAddRowAvx512(const uint8_t* a, const uint8_t* b, size_t n, bool is_signed, float za,
                         float ra, float zb, float rb, float zc, uint8_t* y) {
  const __m512 za_v = _mm512_set1_ps(za), zb_v = _mm512_set1_ps(zb);
  const __m512 ra_v = _mm512_set1_ps(ra), rb_v = _mm512_set1_ps(rb), zc_v = _mm512_set1_ps(zc);
  const __m512 lo = _mm512_set1_ps(is_signed ? -128.0f : 0.0f);
  const __m512 hi = _mm512_set1_ps(is_signed ? 127.0f : 255.0f);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  for (size_t i = 0; i < n; i += 16) {
    const size_t left = n - i;
    const __mmask16 m = Lanes16(left);
    const __m512 av = _mm512_sub_ps(_mm512_cvtepi32_ps(Widen(a + i, left, is_signed)), za_v);
    const __m512 bv = _mm512_sub_ps(_mm512_cvtepi32_ps(Widen(b + i, left, is_signed)), zb_v);
    // (a - za)·ra + (b - zb)·rb, rounded half to even, plus zc, clamped: Saturate's steps.
    const __m512 v = _mm512_add_ps(_mm512_mul_ps(av, ra_v), _mm512_mul_ps(bv, rb_v));
    const __m512 q = _mm512_min_ps(
        _mm512_max_ps(_mm512_add_ps(_mm512_roundscale_ps(v, kNearest), zc_v), lo), hi);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, _mm512_cvttps_epi32(q));
  }
}

void RequantizeRowAvx512(const int32_t* acc, size_t n, const int32_t* b, const float* mult,
                         int32_t zp, bool y_signed, uint8_t* y) {
  RequantizeRowsAvx512(acc, n, 1, n, b, mult, zp, y_signed, y, n);
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

namespace {

// 16 bytes widened to int32, signed or not.
template <bool kSigned>
inline __m512i Widen16(const uint8_t* p) {
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
}

// DepthwiseRunAvx512's sums of 16 whole channels at four positions from position p (four sums
// named, not an array: GCC kept an array of them on the stack).
template <bool kSigned>
inline void DepthwiseRunTile4(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                              const int32_t* w, size_t channels, __m512i init, size_t p,
                              int32_t* acc, size_t ld) {
  __m512i s0 = init, s1 = init, s2 = init, s3 = init;
  for (size_t t = 0; t < taps; ++t) {
    const __m512i wv = _mm512_loadu_si512(w + t * channels);
    const uint8_t* xt = x + tap_offset[t] + p * step;
    s0 = _mm512_add_epi32(s0, _mm512_mullo_epi32(Widen16<kSigned>(xt), wv));
    s1 = _mm512_add_epi32(s1, _mm512_mullo_epi32(Widen16<kSigned>(xt + step), wv));
    s2 = _mm512_add_epi32(s2, _mm512_mullo_epi32(Widen16<kSigned>(xt + 2 * step), wv));
    s3 = _mm512_add_epi32(s3, _mm512_mullo_epi32(Widen16<kSigned>(xt + 3 * step), wv));
  }
  _mm512_storeu_si512(acc + p * ld, s0);
  _mm512_storeu_si512(acc + (p + 1) * ld, s1);
  _mm512_storeu_si512(acc + (p + 2) * ld, s2);
  _mm512_storeu_si512(acc + (p + 3) * ld, s3);
}

// The same at one position, for `left` channels (fewer than 16: their bytes read through Widen's
// buffer, since a 16-byte load would pass the pixel's channels, and at the image's end its bytes).
template <bool kSigned>
inline void DepthwiseRunTile1(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                              const int32_t* w, size_t channels, __m512i init, size_t left,
                              size_t p, int32_t* acc, size_t ld) {
  const __mmask16 m = Lanes16(left);
  __m512i sum = init;
  for (size_t t = 0; t < taps; ++t) {
    const uint8_t* xt = x + tap_offset[t] + p * step;
    const __m512i v = left >= 16 ? Widen16<kSigned>(xt) : Widen(xt, left, kSigned);
    sum =
        _mm512_add_epi32(sum, _mm512_mullo_epi32(v, _mm512_maskz_loadu_epi32(m, w + t * channels)));
  }
  _mm512_mask_storeu_epi32(acc + p * ld, m, sum);
}

template <bool kSigned>
void DepthwiseRun(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                  size_t count, const int32_t* w, const int32_t* w_sums, size_t c_begin,
                  size_t channels, int32_t xz, int32_t* acc, size_t ld) {
  const __m512i zero_point = _mm512_set1_epi32(xz);
  for (size_t c = c_begin; c < channels; c += 16) {
    const size_t left = channels - c;
    // Σ (x - xz)·w = Σ x·w - xz·Σ w: the zero point's part is the sums' starting value.
    const __m512i init = _mm512_sub_epi32(
        _mm512_setzero_si512(),
        _mm512_mullo_epi32(zero_point, _mm512_maskz_loadu_epi32(Lanes16(left), w_sums + c)));
    size_t p = 0;
    if (left >= 16) {
      for (; p + 4 <= count; p += 4) {
        DepthwiseRunTile4<kSigned>(x + c, tap_offset, taps, step, w + c, channels, init, p, acc + c,
                                   ld);
      }
    }
    for (; p < count; ++p) {
      DepthwiseRunTile1<kSigned>(x + c, tap_offset, taps, step, w + c, channels, init, left, p,
                                 acc + c, ld);
    }
  }
}

}  // namespace

void DepthwiseRunAvx512(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                        size_t count, const int32_t* w, const int32_t* w_sums, size_t c_begin,
                        size_t channels, bool x_signed, int32_t xz, int32_t* acc, size_t ld) {
  if (x_signed) {
    DepthwiseRun<true>(x, tap_offset, taps, step, count, w, w_sums, c_begin, channels, xz, acc, ld);
  } else {
    DepthwiseRun<false>(x, tap_offset, taps, step, count, w, w_sums, c_begin, channels, xz, acc,
                        ld);
  }
}

namespace {

// A block's 16 possible values (q - zero) · scale, q = 0..15, computed as the definition does.
inline __m512 BlockTable(float zero, float scale) {
  const __m512 q = _mm512_set_ps(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_mul_ps(_mm512_sub_ps(q, _mm512_set1_ps(zero)), _mm512_set1_ps(scale));
}

// 32 four-bit values (16 bytes, low nibble first) looked up in the block's table: the even ones
// in lo, the odd ones in hi.
inline void Nibbles(const uint8_t* p, __m512 table, __m512& lo, __m512& hi) {
  const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  lo = _mm512_permutexvar_ps(_mm512_and_si512(v, _mm512_set1_epi32(15)), table);
  hi = _mm512_permutexvar_ps(_mm512_srli_epi32(v, 4), table);
}

}  // namespace

namespace {

// Nbits4DotsAvx512 for kR rows and kC columns (the next column `stride` bytes, blocks of
// scales and zero points further on), the loops unrolled so that the sums stay in registers: the
// even and the odd nibbles' products in separate sums, so that each column and row has two chains
// of multiply-adds, not one (a column's dot was bound by that chain's latency).
template <size_t kR, size_t kC>
void Nbits4Dots(const uint8_t* column, size_t stride, size_t blocks, size_t block,
                const float* scale, const float* zero, const float* ad, size_t lda, float* out) {
  __m512 even[kC][kR], odd[kC][kR];
  for (size_t c = 0; c < kC; ++c) {
    for (size_t r = 0; r < kR; ++r) even[c][r] = odd[c][r] = _mm512_setzero_ps();
  }
  const size_t chunks = block / 32;
  for (size_t b = 0; b < blocks; ++b) {
    __m512 table[kC];
    for (size_t c = 0; c < kC; ++c) {
      table[c] = BlockTable(zero[c * blocks + b], scale[c * blocks + b]);
    }
    for (size_t q = 0; q < chunks; ++q) {
      const size_t at = (b * chunks + q) * 32;  // the depth of the chunk
#pragma GCC unroll 2
      for (size_t c = 0; c < kC; ++c) {
        __m512 lo, hi;
        Nibbles(column + c * stride + at / 2, table[c], lo, hi);
#pragma GCC unroll 4
        for (size_t r = 0; r < kR; ++r) {
          const float* a = ad + r * lda + at;
          even[c][r] = _mm512_fmadd_ps(lo, _mm512_loadu_ps(a), even[c][r]);
          odd[c][r] = _mm512_fmadd_ps(hi, _mm512_loadu_ps(a + 16), odd[c][r]);
        }
      }
    }
  }
  for (size_t c = 0; c < kC; ++c) {
    for (size_t r = 0; r < kR; ++r) {
      out[c * kR + r] = _mm512_reduce_add_ps(_mm512_add_ps(even[c][r], odd[c][r]));
    }
  }
}

}  // namespace

void Nbits4DotsAvx512(const uint8_t* column, size_t blocks, size_t block, const float* scale,
                      const float* zero, const float* ad, size_t lda, size_t rows, float* out) {
  switch (rows) {
    case 1:
      return Nbits4Dots<1, 1>(column, 0, blocks, block, scale, zero, ad, lda, out);
    case 2:
      return Nbits4Dots<2, 1>(column, 0, blocks, block, scale, zero, ad, lda, out);
    case 3:
      return Nbits4Dots<3, 1>(column, 0, blocks, block, scale, zero, ad, lda, out);
    default:
      return Nbits4Dots<4, 1>(column, 0, blocks, block, scale, zero, ad, lda, out);
  }
}

void Nbits4Dots2Avx512(const uint8_t* column, size_t stride, size_t blocks, size_t block,
                       const float* scale, const float* zero, const float* ad, size_t lda,
                       size_t rows, float* out) {
  switch (rows) {
    case 1:
      return Nbits4Dots<1, 2>(column, stride, blocks, block, scale, zero, ad, lda, out);
    case 2:
      return Nbits4Dots<2, 2>(column, stride, blocks, block, scale, zero, ad, lda, out);
    case 3:
      return Nbits4Dots<3, 2>(column, stride, blocks, block, scale, zero, ad, lda, out);
    default:
      return Nbits4Dots<4, 2>(column, stride, blocks, block, scale, zero, ad, lda, out);
  }
}

void Nbits4ColumnAvx512(const uint8_t* column, size_t blocks, size_t block, const float* scale,
                        const float* zero, float* w) {
  // Even and odd values back in order: lanes 0..15 of the result from lo[0..7] and hi[0..7]
  // alternately, lanes 16..31 from lo[8..15] and hi[8..15].
  const __m512i first = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i second =
      _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  const size_t chunks = block / 32;
  for (size_t b = 0; b < blocks; ++b) {
    const __m512 table = BlockTable(zero[b], scale[b]);
    for (size_t c = 0; c < chunks; ++c) {
      const size_t at = (b * chunks + c) * 32;
      __m512 lo, hi;
      Nibbles(column + at / 2, table, lo, hi);
      _mm512_storeu_ps(w + at, _mm512_permutex2var_ps(lo, first, hi));
      _mm512_storeu_ps(w + at + 16, _mm512_permutex2var_ps(lo, second, hi));
    }
  }
}

}  // namespace kiln::cpu

#endif  // __x86_64__
