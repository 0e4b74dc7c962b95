// Int8Gemm's kernel for AVX-512 VNNI: tiles of up to 12 rows × 32 columns of int32 sums (24 of
// the 32 vector registers), each group of four depths one vpdpbusd per row and vector (A's four
// unsigned bytes broadcast, B's 32 columns × 4 signed bytes in two vectors). This file alone is
// compiled with -mavx512f -mavx512vnni; it is called only on machines that have both
// (int8_gemm.cc checks). It uses nothing from the standard library (see packed_kernel.h).
#define KILN_INT8_KERNEL_BODY
#include <immintrin.h>

#include "kernels/cpu/quant/int8_kernel.h"

namespace kiln::cpu::int8 {
namespace {

// Four bytes of A as one int32, broadcast to every lane.
inline __m512i BroadcastFour(const uint8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// kR rows (≤ kVnniRows) × kV vectors (1 or 2) of 16 columns; the first `cols` stored.
template <size_t kR, size_t kV>
void Tile(size_t groups, const uint8_t* a, size_t lda, const int8_t* b, const int32_t* init,
          int32_t* c, size_t ldc, size_t cols) {
  __m512i start[kV];
  KILN_UNROLL
  for (size_t v = 0; v < kV; ++v) {
    start[v] = init != nullptr ? _mm512_loadu_si512(init + v * 16) : _mm512_setzero_si512();
  }
  __m512i acc[kV][kR];
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) acc[v][r] = start[v];
  }
  for (size_t g = 0; g < groups; ++g) {
    const int8_t* bg = b + g * 128;
    __m512i bv[kV];
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) bv[v] = _mm512_loadu_si512(bg + v * 64);
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const __m512i av = BroadcastFour(a + r * lda + 4 * g);
      KILN_UNROLL
      for (size_t v = 0; v < kV; ++v) {
        // vpdpbusd written out: with GCC 12's _mm512_dpbusd_epi32 every sum was copied to a
        // scratch register, accumulated, and copied back and to the stack at each step (84
        // stack accesses in the 12 × 32 tile's loop; none so).
        asm("vpdpbusd %[b], %[a], %[acc]" : [acc] "+v"(acc[v][r]) : [a] "v"(av), [b] "v"(bv[v]));
      }
    }
  }
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < kV; ++v) {
      const size_t done = v * 16;
      const size_t n = cols <= done ? 0 : (cols - done < 16 ? cols - done : 16);
      const auto mask = static_cast<__mmask16>((1u << n) - 1);
      _mm512_mask_storeu_epi32(c + r * ldc + done, mask, acc[v][r]);
    }
  }
}

template <size_t kV, size_t... kR>
struct Table {
  static constexpr void (*kFns[])(size_t, const uint8_t*, size_t, const int8_t*, const int32_t*,
                                  int32_t*, size_t, size_t) = {&Tile<kR + 1, kV>...};
};

using Rows1 = Table<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;
using Rows2 = Table<2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

}  // namespace

void PanelVnni(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
               const int32_t* init, int32_t* c, size_t ldc, size_t cols) {
  // Tiles of rows whose sizes differ by at most one (as PackedGemm cuts them).
  const size_t tiles = (m + kVnniRows - 1) / kVnniRows;
  const size_t base = tiles == 0 ? 0 : m / tiles;
  const size_t extra = tiles == 0 ? 0 : m % tiles;
  size_t i = 0;
  for (size_t t = 0; t < tiles; ++t) {
    const size_t rows = base + (t < extra ? 1 : 0);
    const uint8_t* at = a + i * lda;
    int32_t* ct = c + i * ldc;
    if (rows == kVnniRows && cols > 16) {
      Tile<kVnniRows, 2>(groups, at, lda, panel, init, ct, ldc, cols);
    } else if (cols > 16) {
      Rows2::kFns[rows - 1](groups, at, lda, panel, init, ct, ldc, cols);
    } else {
      Rows1::kFns[rows - 1](groups, at, lda, panel, init, ct, ldc, cols);
    }
    i += rows;
  }
}

#undef KILN_UNROLL

}  // namespace kiln::cpu::int8
