// Int8Gemm's kernel for AVX2 machines without VNNI: vpmaddwd on 16-bit operands, exact (each lane
// adds two products of a byte and a signed byte into 32 bits; vpmaddubsw would saturate at 16
// bits). Per group of four depths, a row's four bytes become the pairs (a0, a1), (a2, a3)
// repeated across the vector, and four columns' four signed bytes the pairs (b0, b1), (b2, b3)
// of each column, so that lanes 2j and 2j + 1 hold column j's two half sums; they are added
// pairwise at the end. Tiles of up to 2 rows × 16 columns (8 of the 16 vector registers for the
// sums). This file alone is compiled with -mavx2; it is called only on machines that have it
// (int8_gemm.cc checks). It uses nothing from the standard library (see packed_kernel.h).
#define KILN_INT8_KERNEL_BODY
#include <immintrin.h>

#include "kernels/cpu/quant/int8_kernel.h"

namespace kiln::cpu::int8 {
namespace {

// A row's four bytes at p as 16-bit pairs (a0, a1), (a2, a3), repeated four times.
inline __m256i RowPairs(const uint8_t* p) {
  const auto v = static_cast<long long>(
      static_cast<unsigned long long>(p[0]) | static_cast<unsigned long long>(p[1]) << 16 |
      static_cast<unsigned long long>(p[2]) << 32 | static_cast<unsigned long long>(p[3]) << 48);
  return _mm256_set1_epi64x(v);
}

// kR rows × 16 columns from column c0 of the panel; the first `cols` (≤ 16) stored.
template <size_t kR>
void Tile(size_t groups, const uint8_t* a, size_t lda, const int8_t* panel, size_t c0,
          const int32_t* init, int32_t* c, size_t ldc, size_t cols) {
  __m256i acc[kR][4];
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_UNROLL
    for (size_t v = 0; v < 4; ++v) acc[r][v] = _mm256_setzero_si256();
  }
  for (size_t g = 0; g < groups; ++g) {
    const int8_t* bg = panel + g * 128 + c0 * 4;
    __m256i b[4];
    KILN_UNROLL
    for (size_t v = 0; v < 4; ++v) {
      b[v] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bg + 16 * v)));
    }
    KILN_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const __m256i av = RowPairs(a + r * lda + 4 * g);
      KILN_UNROLL
      for (size_t v = 0; v < 4; ++v) {
        acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(av, b[v]));
      }
    }
  }
  KILN_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    // Lanes (2j, 2j + 1) of vector v are column 4v + j's half sums: added pairwise, the
    // results (0, 1, 4, 5 | 2, 3, 6, 7) put in order.
    int32_t out[16];
    KILN_UNROLL
    for (size_t h = 0; h < 2; ++h) {
      const __m256i sums =
          _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[r][2 * h], acc[r][2 * h + 1]), 0xd8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * h), sums);
    }
    int32_t* row = c + r * ldc;
    if (init != nullptr) {
      for (size_t j = 0; j < cols; ++j) {
        row[j] = static_cast<int32_t>(static_cast<uint32_t>(out[j]) +
                                      static_cast<uint32_t>(init[c0 + j]));
      }
    } else {
      for (size_t j = 0; j < cols; ++j) row[j] = out[j];
    }
  }
}

}  // namespace

void PanelAvx2(size_t m, size_t groups, const uint8_t* a, size_t lda, const int8_t* panel,
               const int32_t* init, int32_t* c, size_t ldc, size_t cols) {
  for (size_t c0 = 0; c0 < cols; c0 += 16) {
    const size_t w = cols - c0 < 16 ? cols - c0 : 16;
    size_t i = 0;
    for (; i + 2 <= m; i += 2)
      Tile<2>(groups, a + i * lda, lda, panel, c0, init, c + i * ldc + c0, ldc, w);
    if (i < m) Tile<1>(groups, a + i * lda, lda, panel, c0, init, c + i * ldc + c0, ldc, w);
  }
}

#undef KILN_UNROLL

}  // namespace kiln::cpu::int8
