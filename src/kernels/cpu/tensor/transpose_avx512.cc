// Compiled with -mavx512f (CMakeLists.txt; x86-64 only); called only where UseVectorMathAvx512().
// Uses nothing from the standard library, whose inline functions would otherwise be emitted here
// with AVX-512 instructions and could be the copy the linker keeps for the whole library.
#include "kernels/cpu/tensor/transpose_blocks.h"

#include <immintrin.h>

#include "kernels/cpu/vector_math_avx512_inl.h"

namespace kiln::cpu {
namespace {

using avx512::FirstLanes;
constexpr size_t kLanes = 16;

// y[c·ldy + r] = x[r·ldx + c] for r < rows, c < cols (both at most 16): rows of 16 lanes in,
// transposed in registers, rows of 16 lanes out; only `cols` lanes of a row are read and `rows`
// lanes written.
void Block(const float* x, size_t ldx, float* y, size_t ldy, size_t rows, size_t cols) {
  const __mmask16 in = FirstLanes(cols);
  const __mmask16 out = FirstLanes(rows);
  __m512 r[kLanes];
  for (size_t i = 0; i < kLanes; ++i) {
    r[i] = i < rows ? _mm512_maskz_loadu_ps(in, x + i * ldx) : _mm512_setzero_ps();
  }
  avx512::Transpose16(r);
  for (size_t q = 0; q < kLanes; ++q) {
    const size_t c = avx512::TransposedColumn(q);
    if (c < cols) _mm512_mask_storeu_ps(y + c * ldy, out, r[q]);
  }
}

}  // namespace

void TransposeTile32Avx512(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                           size_t i1, size_t j0, size_t j1) {
  // Bit copies: no arithmetic touches the lanes, so any 4-byte element goes as float.
  const auto* xf = reinterpret_cast<const float*>(x);
  auto* yf = reinterpret_cast<float*>(y);
  for (size_t i = i0; i < i1; i += kLanes) {
    const size_t r = i1 - i < kLanes ? i1 - i : kLanes;
    for (size_t j = j0; j < j1; j += kLanes) {
      const size_t c = j1 - j < kLanes ? j1 - j : kLanes;
      Block(xf + i * cols + j, cols, yf + j * rows + i, rows, r, c);
    }
  }
}

}  // namespace kiln::cpu
