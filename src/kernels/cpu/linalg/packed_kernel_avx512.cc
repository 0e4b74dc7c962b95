// PackedGemm's micro-kernel for AVX-512: 12 rows × 32 columns of sums (24 of the 32 vector
// registers). This file alone is compiled with -mavx512f; it is called only on machines that
// have it (packed_gemm.cc checks).
#define KILN_PACKED_KERNEL_BODY
#include <immintrin.h>

#include "kernels/cpu/linalg/packed_kernel.h"

namespace kiln::cpu::packed {
namespace {

struct Avx512 {
  using V = __m512;
  static constexpr size_t kWidth = 16;
  static constexpr size_t kRows = kAvx512Rows;
  static V Zero() { return _mm512_setzero_ps(); }
  static V Load(const float* p) { return _mm512_load_ps(p); }
  static V LoadU(const float* p) { return _mm512_loadu_ps(p); }
  static V Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V Fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm512_add_ps(a, b); }
  // The masked forms: GCC 12's plain ones pass an undefined vector that -Wmaybe-uninitialized
  // reports.
  static V Max(V a, V b) { return _mm512_mask_max_ps(a, 0xffff, a, b); }
  static V Min(V a, V b) { return _mm512_mask_min_ps(a, 0xffff, a, b); }
  static V Set(float x) { return _mm512_set1_ps(x); }
  static void StoreU(float* p, V v) { _mm512_storeu_ps(p, v); }
  static __mmask16 Mask(size_t n) { return static_cast<__mmask16>((1u << n) - 1); }
  static V LoadPartial(const float* p, size_t n) { return _mm512_maskz_loadu_ps(Mask(n), p); }
  static void StorePartial(float* p, V v, size_t n) { _mm512_mask_storeu_ps(p, Mask(n), v); }
};

using Table = TileTable<Avx512, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>;

}  // namespace

void PanelAvx512(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
                 size_t ldc, size_t cols, bool accumulate, ptrdiff_t next, const TileEpilogue* ep) {
  Panel<Avx512, Table>(m, kc, a, lda, b, c, ldc, cols, accumulate, next, ep);
}

}  // namespace kiln::cpu::packed
