// The bf16 products' kernel for AVX-512 BF16 (bf16_gemm.h): tiles of up to 12 rows × 32 columns
// of float sums (24 of the 32 vector registers), each pair of depths one vdpbf16ps per row and
// vector (A's pair broadcast, B's 32 columns × 2 values in two vectors), written as asm so that
// the sums stay in registers (as the int8 kernel's vpdpbusd). This file alone is compiled with
// -mavx512f -mavx512bf16; it runs only where Bf16GemmSupported() says so.
#include <immintrin.h>

#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/row_tiles.h"

#if defined(__clang__)
#define KILN_BF16_UNROLL _Pragma("unroll")
#else
#define KILN_BF16_UNROLL _Pragma("GCC unroll 16")
#endif

namespace kiln::cpu::bf16 {
namespace {

constexpr size_t kRows = 12;
constexpr size_t kPanel = 32;  // kBf16Panel

template <size_t kR, size_t kV>
void Tile(size_t pairs, const uint32_t* a, size_t lda, const uint16_t* b, float* c, size_t ldc,
          size_t cols) {
  __m512 acc[kV][kR];
  KILN_BF16_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_BF16_UNROLL
    for (size_t v = 0; v < kV; ++v) acc[v][r] = _mm512_setzero_ps();
  }
  for (size_t g = 0; g < pairs; ++g) {
    const uint16_t* bg = b + g * 64;
    __m512 bv[kV];
    KILN_BF16_UNROLL
    for (size_t v = 0; v < kV; ++v) bv[v] = _mm512_castsi512_ps(_mm512_loadu_si512(bg + v * 32));
    KILN_BF16_UNROLL
    for (size_t r = 0; r < kR; ++r) {
      const __m512 av = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(a[r * lda + g])));
      KILN_BF16_UNROLL
      for (size_t v = 0; v < kV; ++v) {
        asm("vdpbf16ps %[b], %[a], %[acc]" : [acc] "+v"(acc[v][r]) : [a] "v"(av), [b] "v"(bv[v]));
      }
    }
  }
  KILN_BF16_UNROLL
  for (size_t r = 0; r < kR; ++r) {
    KILN_BF16_UNROLL
    for (size_t v = 0; v < kV; ++v) {
      const size_t done = v * 16;
      const size_t n = cols <= done ? 0 : (cols - done < 16 ? cols - done : 16);
      const auto mask = static_cast<__mmask16>((1u << n) - 1);
      _mm512_mask_storeu_ps(c + r * ldc + done, mask, acc[v][r]);
    }
  }
}

template <size_t kV, size_t... kR>
struct Table {
  static constexpr void (*kFns[])(size_t, const uint32_t*, size_t, const uint16_t*, float*, size_t,
                                  size_t) = {&Tile<kR + 1, kV>...};
};

using Rows1 = Table<1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;
using Rows2 = Table<2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

}  // namespace

void PanelAvx512Bf16(size_t m, size_t pairs, const uint32_t* a, size_t lda, const uint16_t* panel,
                     float* c, size_t ldc, size_t cols) {
  // The row tiles (row_tiles.h).
  for (size_t t = 0; t < tiles::TileCount(m, kRows); ++t) {
    const size_t i = tiles::TileStart(m, kRows, t);
    const size_t rows = tiles::TileRows(m, kRows, t);
    if (cols > 16) {
      Rows2::kFns[rows - 1](pairs, a + i * lda, lda, panel, c + i * ldc, ldc, cols);
    } else {
      Rows1::kFns[rows - 1](pairs, a + i * lda, lda, panel, c + i * ldc, ldc, cols);
    }
  }
}

void RowToPairsAvx512Bf16(const float* src, size_t k, uint32_t* dst) {
  size_t p = 0;
  for (; p + 32 <= k; p += 32) {
    const __m512 lo = _mm512_loadu_ps(src + p);
    const __m512 hi = _mm512_loadu_ps(src + p + 16);
    _mm512_storeu_si512(dst + p / 2, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
  }
  if (p < k) {
    const size_t left = k - p;
    const auto m0 = static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1);
    const auto m1 = static_cast<__mmask16>(left <= 16 ? 0 : (1u << (left - 16)) - 1);
    const __m512 lo = _mm512_maskz_loadu_ps(m0, src + p);
    const __m512 hi = _mm512_maskz_loadu_ps(m1, src + p + 16);
    const size_t words = (left + 1) / 2;
    const auto mw = static_cast<__mmask16>(words >= 16 ? 0xffff : (1u << words) - 1);
    _mm512_mask_storeu_epi32(dst + p / 2, mw,
                             reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
  }
}

void PackRowsAvx512Bf16(const float* b, size_t ldb, size_t k, size_t n, uint16_t* dst) {
  const size_t pairs = (k + 1) / 2;
  auto* words = reinterpret_cast<uint32_t*>(dst);
  for (size_t j0 = 0; j0 < n; j0 += kPanel) {
    uint32_t* panel = words + (j0 / kPanel) * pairs * kPanel;
    for (size_t h = 0; h < 2; ++h) {  // the panel's two vectors of 16 columns
      const size_t c0 = j0 + h * 16;
      const size_t left = c0 < n ? n - c0 : 0;
      const auto m = static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1);
      for (size_t g = 0; g < pairs; ++g) {
        const float* r0 = b + 2 * g * ldb + c0;
        const __m512 even = _mm512_maskz_loadu_ps(m, r0);
        const __m512 odd = 2 * g + 1 < k ? _mm512_maskz_loadu_ps(m, r0 + ldb) : _mm512_setzero_ps();
        // Each column's pair (even row, odd row) as one 32-bit word, the even row's value low.
        const __m512i lo =
            _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(even)));
        const __m512i hi =
            _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(odd)));
        _mm512_storeu_si512(panel + g * kPanel + h * 16,
                            _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
      }
    }
  }
}

void PackColumnsAvx512Bf16(const float* bt, size_t ldbt, size_t k, size_t n, uint32_t* column,
                           uint16_t* dst) {
  const size_t pairs = (k + 1) / 2;
  auto* words = reinterpret_cast<uint32_t*>(dst);
  for (size_t j = 0; j < n; ++j) {
    RowToPairsAvx512Bf16(bt + j * ldbt, k, column);
    uint32_t* panel = words + (j / kPanel) * pairs * kPanel + j % kPanel;
    for (size_t g = 0; g < pairs; ++g) panel[g * kPanel] = column[g];
  }
  // The last panel's columns past n stay zero.
  const size_t end = (n + kPanel - 1) / kPanel * kPanel;
  for (size_t j = n; j < end; ++j) {
    uint32_t* panel = words + (j / kPanel) * pairs * kPanel + j % kPanel;
    for (size_t g = 0; g < pairs; ++g) panel[g * kPanel] = 0;
  }
}

}  // namespace kiln::cpu::bf16

#undef KILN_BF16_UNROLL
