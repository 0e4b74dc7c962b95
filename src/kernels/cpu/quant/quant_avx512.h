// The quantized convolution's element loops in AVX-512 intrinsics (quant_avx512.cc, compiled
// with -mavx512f): whole vectors with masked tails, where the vector-cloned loops of int_conv
// ran the last channels of every row one at a time (a layer of 16 to 96 channels mostly). Used
// where UseVectorMathAvx512() says so (tests turn it off to run the portable loops).
//
//   if (UseVectorMathAvx512()) kiln::cpu::RequantizeRowAvx512(acc, n, b, mult, zp, false, y);
#ifndef KILN_KERNELS_CPU_QUANT_QUANT_AVX512_H_
#define KILN_KERNELS_CPU_QUANT_QUANT_AVX512_H_

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/vector_math_avx512.h"

namespace kiln::cpu {

#if defined(__x86_64__)

// y[j] = saturate(round_half_even((acc[j] + b[j]) · mult[j]) + zp) for j < n (b may be null),
// to int8 (y_signed) or uint8 bytes: the values RequantizeChannels computes in double, here in
// float 16 lanes at a time, a vector redone in double when one of its values lies too near a
// half for float's rounding to be sure of the side.
void RequantizeRowAvx512(const int32_t* acc, size_t n, const int32_t* b, const float* mult,
                         int32_t zp, bool y_signed, uint8_t* y);

// RequantizeRowsAvx512's second part alone: only the rows with a lane float cannot round surely
// (within 2^-14 of a half) are requantized, in double; the others' bytes are left as they are
// (already RequantizeRowsAvx512's).
void RedoUnsureRowsAvx512(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                          const float* mult, int32_t zp, bool y_signed, uint8_t* y, size_t ldy);

// QLinearAdd over n elements of a and b of one shape (int8 when is_signed, else uint8):
// y = saturate(round_half_even((a - za)·ra + (b - zb)·rb) + zc), each step in float as
// QLinearAdd's scalar loop takes them (two products, then their sum: no fused multiply-add).
void QLinearAddRowAvx512(const uint8_t* a, const uint8_t* b, size_t n, bool is_signed, float za,
                         float ra, float zb, float rb, float zc, uint8_t* y);

// acc[c] = Σ_t (x_t[c] - xz) · w_t[c] for c < channels over the `taps` pairs (x_t, w_t): a
// depthwise output position's channels (x_t bytes, int8 when x_signed; w_t int32).
void DepthwiseSumsAvx512(const uint8_t* const* x, const int32_t* const* w, size_t taps,
                         size_t channels, bool x_signed, int32_t xz, int32_t* acc);

// The depthwise sums of `count` output positions whose windows lie wholly inside the image, in a
// row: acc[p·ld + c] = Σ_t (x[tap_offset[t] + p·step + c] - xz) · w[t·channels + c] for c_begin
// ≤ c < channels, x the first window's origin in a channels-last image (bytes, int8 when
// x_signed), w int32 [taps][channels] and w_sums[c] = Σ_t w[t·channels + c]. Each vector of
// channels at four positions at a time, the zero point's part taken from w_sums.
void DepthwiseRunAvx512(const uint8_t* x, const int64_t* tap_offset, size_t taps, size_t step,
                        size_t count, const int32_t* w, const int32_t* w_sums, size_t c_begin,
                        size_t channels, bool x_signed, int32_t xz, int32_t* acc, size_t ld);

// RequantizeRowAvx512 over `rows` rows at once (acc's row i at acc + i·lda, y's at y + i·ldy),
// each vector's multipliers and bias read once for all the rows.
void RequantizeRowsAvx512(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                          const float* mult, int32_t zp, bool y_signed, uint8_t* y, size_t ldy);

// MatMulNBits' 4-bit columns (blocks of a multiple of 32 values, low nibble first):
// out[r] = Σ_b Σ_i (q_bi - zero[b]) · scale[b] · a_r[b·block + i] for r < rows (≤ 4), where each
// row of A is given de-interleaved by 32 (`ad`, row stride lda: per 32 depths the 16 even ones,
// then the 16 odd ones), zero past K.
void Nbits4DotsAvx512(const uint8_t* column, size_t blocks, size_t block, const float* scale,
                      const float* zero, const float* ad, size_t lda, size_t rows, float* out);
// The same for two columns at once, the second `stride` bytes after the first (its scales and
// zero points `blocks` after the first's): out[c · rows + r] for column c.
void Nbits4Dots2Avx512(const uint8_t* column, size_t stride, size_t blocks, size_t block,
                       const float* scale, const float* zero, const float* ad, size_t lda,
                       size_t rows, float* out);
// The same column dequantized: w[k] = (q_k - zero[b]) · scale[b] for k < blocks · block.
void Nbits4ColumnAvx512(const uint8_t* column, size_t blocks, size_t block, const float* scale,
                        const float* zero, float* w);

#else

inline void RequantizeRowsAvx512(const int32_t*, size_t, size_t, size_t, const int32_t*,
                                 const float*, int32_t, bool, uint8_t*, size_t) {
  __builtin_unreachable();
}
inline void Nbits4DotsAvx512(const uint8_t*, size_t, size_t, const float*, const float*,
                             const float*, size_t, size_t, float*) {
  __builtin_unreachable();
}
inline void Nbits4Dots2Avx512(const uint8_t*, size_t, size_t, size_t, const float*, const float*,
                              const float*, size_t, size_t, float*) {
  __builtin_unreachable();
}
inline void Nbits4ColumnAvx512(const uint8_t*, size_t, size_t, const float*, const float*, float*) {
  __builtin_unreachable();
}
inline void QLinearAddRowAvx512(const uint8_t*, const uint8_t*, size_t, bool, float, float, float,
                                float, float, uint8_t*) {
  __builtin_unreachable();
}
inline void RequantizeRowAvx512(const int32_t*, size_t, const double*, const double*, double, bool,
                                uint8_t*) {
  __builtin_unreachable();
}
inline void DepthwiseRunAvx512(const uint8_t*, const int64_t*, size_t, size_t, size_t,
                               const int32_t*, const int32_t*, size_t, size_t, bool, int32_t,
                               int32_t*, size_t) {
  __builtin_unreachable();
}
inline void DepthwiseSumsAvx512(const uint8_t* const*, const int32_t* const*, size_t, size_t, bool,
                                int32_t, int32_t*) {
  __builtin_unreachable();
}

#endif

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_QUANT_AVX512_H_
