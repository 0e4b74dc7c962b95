// The quantized depthwise convolution's sums two taps per instruction, on AVX-512 BW
// (quant_avx512bw.cc, compiled with -mavx512f -mavx512bw; call it only where
// DepthwisePairsSupported() in int_conv.h says so): 32 channels' bytes of two taps widened to
// 16 bits and interleaved per channel, then vpmaddwd against the two taps' weights as 16-bit
// pairs adds both products into each channel's 32-bit sum (where the 16-lane loop widened each
// tap to 32 bits and multiplied with vpmulld). The interleave works within 128-bit lanes, so the
// sums come in a permuted channel order and the weights are laid out in it (DepthwisePairLayout).
//
//   DepthwiseRunPairsAvx512Bw(x, tap_offset, taps, step, count, pairs, sums, chunks, false, xz,
//                             acc, ld);
#ifndef KILN_KERNELS_CPU_QUANT_QUANT_AVX512BW_H_
#define KILN_KERNELS_CPU_QUANT_QUANT_AVX512BW_H_

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

// The channel (of 32) whose sum lane `lane` (of 32: the first vector's 16, then the second's)
// holds: lanes 4L..4L+3 of the first vector are channels 8L..8L+3, of the second 8L+4..8L+7.
inline size_t DepthwisePairChannel(size_t lane) {
  const size_t v = lane / 16, m = lane % 16;
  return 8 * (m / 4) + 4 * v + m % 4;
}

#if defined(__x86_64__)
// The depthwise sums of `count` positions in a row whose windows lie inside the image, for the
// first 32 · chunks channels: acc[p·ld + c] = Σ_t (x[tap_offset[t] + p·step + c] - xz) · w[t][c]
// (as DepthwiseRunAvx512), from the weights as pairs: pairs[((q · chunks + k) · 32 + lane] holds
// taps 2q and 2q + 1 of channel 32k + DepthwisePairChannel(lane) as two 16-bit values (the first
// low; 0 for a missing last tap), and sums[32k + lane] that channel's Σ_t w[t][c].
void DepthwiseRunPairsAvx512Bw(const uint8_t* x, const int64_t* tap_offset, size_t taps,
                               size_t step, size_t count, const int32_t* pairs, const int32_t* sums,
                               size_t chunks, bool x_signed, int32_t xz, int32_t* acc, size_t ld);
#else
inline void DepthwiseRunPairsAvx512Bw(const uint8_t*, const int64_t*, size_t, size_t, size_t,
                                      const int32_t*, const int32_t*, size_t, bool, int32_t,
                                      int32_t*, size_t) {
  __builtin_unreachable();
}
#endif

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_QUANT_AVX512BW_H_
