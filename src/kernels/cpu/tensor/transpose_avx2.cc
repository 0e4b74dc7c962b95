// Compiled with -mavx2 (CMakeLists.txt; x86-64 only); called only where the machine runs AVX2.
// Uses nothing from the standard library, whose inline functions would otherwise be emitted here
// with AVX2 instructions and could be the copy the linker keeps for the whole library.
#include <immintrin.h>

#include "kernels/cpu/tensor/transpose_blocks.h"

namespace kiln::cpu {
namespace {

constexpr size_t kLanes = 8;

// y[c·ldy + r] = x[r·ldx + c] for r, c < 8. Each register gets four columns of row k in its low
// half and of row k + 4 in its high half (the second half loaded straight into place), so that
// the two halves' 4 × 4 blocks are transposed together by two rounds of in-lane shuffles and
// every result is a whole output row: 16 shuffles for 64 elements.
void Block(const float* x, size_t ldx, float* y, size_t ldy) {
  __m256 r[kLanes];
  for (size_t k = 0; k < 4; ++k) {
    for (size_t h = 0; h < 2; ++h) {  // columns 4h .. 4h + 3
      const __m128 lo = _mm_loadu_ps(x + k * ldx + 4 * h);
      const __m128 hi = _mm_loadu_ps(x + (k + 4) * ldx + 4 * h);
      r[4 * h + k] = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    }
  }
  for (size_t h = 0; h < 2; ++h) {
    const __m256* q = r + 4 * h;
    const __m256 t0 = _mm256_unpacklo_ps(q[0], q[1]);  // rows 0,1 (4,5) interleaved: columns 0, 1
    const __m256 t1 = _mm256_unpackhi_ps(q[0], q[1]);  // columns 2, 3
    const __m256 t2 = _mm256_unpacklo_ps(q[2], q[3]);  // rows 2,3 (6,7)
    const __m256 t3 = _mm256_unpackhi_ps(q[2], q[3]);
    float* dst = y + 4 * h * ldy;
    _mm256_storeu_ps(dst, _mm256_shuffle_ps(t0, t2, 0x44));
    _mm256_storeu_ps(dst + ldy, _mm256_shuffle_ps(t0, t2, 0xEE));
    _mm256_storeu_ps(dst + 2 * ldy, _mm256_shuffle_ps(t1, t3, 0x44));
    _mm256_storeu_ps(dst + 3 * ldy, _mm256_shuffle_ps(t1, t3, 0xEE));
  }
}

}  // namespace

void TransposeTile32Avx2(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                         size_t i1, size_t j0, size_t j1) {
  // Bit copies: no arithmetic touches the lanes, so any 4-byte element goes as float.
  const auto* xf = reinterpret_cast<const float*>(x);
  auto* yf = reinterpret_cast<float*>(y);
  const size_t i_blocks = i0 + (i1 - i0) / kLanes * kLanes;  // end of the whole blocks
  const size_t j_blocks = j0 + (j1 - j0) / kLanes * kLanes;
  for (size_t i = i0; i < i_blocks; i += kLanes) {
    for (size_t j = j0; j < j_blocks; j += kLanes) {
      Block(xf + i * cols + j, cols, yf + j * rows + i, rows);
    }
  }
  // The ragged edges: the last columns of the whole row blocks, then the last rows.
  for (size_t j = j_blocks; j < j1; ++j) {
    for (size_t i = i0; i < i_blocks; ++i) y[j * rows + i] = x[i * cols + j];
  }
  for (size_t j = j0; j < j1; ++j) {
    for (size_t i = i_blocks; i < i1; ++i) y[j * rows + i] = x[i * cols + j];
  }
}

}  // namespace kiln::cpu
