// PackedGemm's micro-kernel for AVX2 with FMA: 6 rows × 16 columns of sums (12 of the 16 vector
// registers), run twice across a 32-column panel. This file alone is compiled with -mavx2 -mfma;
// it is called only on machines that have both (packed_gemm.cc checks).
#define KILN_PACKED_KERNEL_BODY
#include <immintrin.h>

#include "kernels/cpu/linalg/packed_kernel.h"

namespace kiln::cpu::packed {
namespace {

struct Avx2 {
  using V = __m256;
  static constexpr size_t kWidth = 8;
  static constexpr size_t kRows = kAvx2Rows;
  static V Zero() { return _mm256_setzero_ps(); }
  static V Load(const float* p) { return _mm256_load_ps(p); }
  static V LoadU(const float* p) { return _mm256_loadu_ps(p); }
  static V Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V Fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V Add(V a, V b) { return _mm256_add_ps(a, b); }
  static V Max(V a, V b) { return _mm256_max_ps(a, b); }
  static V Min(V a, V b) { return _mm256_min_ps(a, b); }
  static V Set(float x) { return _mm256_set1_ps(x); }
  static void StoreU(float* p, V v) { _mm256_storeu_ps(p, v); }
  // Lane i is on when i < n.
  static __m256i Mask(size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V LoadPartial(const float* p, size_t n) { return _mm256_maskload_ps(p, Mask(n)); }
  static void StorePartial(float* p, V v, size_t n) { _mm256_maskstore_ps(p, Mask(n), v); }
};

using Table = TileTable<Avx2, 0, 1, 2, 3, 4, 5>;

}  // namespace

void PanelAvx2(size_t m, size_t kc, const float* a, size_t lda, const float* b, float* c,
               size_t ldc, size_t cols, bool accumulate, ptrdiff_t next, const TileEpilogue* ep) {
  Panel<Avx2, Table>(m, kc, a, lda, b, c, ldc, cols, accumulate, next, ep);
}

}  // namespace kiln::cpu::packed
