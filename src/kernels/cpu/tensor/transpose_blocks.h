// A 2-D transpose of 4-byte elements by blocks transposed in registers, for Transpose's tiled path:
// 16 × 16 in AVX-512 intrinsics (transpose_avx512.cc, compiled with -mavx512f; call it only where
// UseVectorMathAvx512()) and 8 × 8 in AVX2 (transpose_avx2.cc, compiled with -mavx2; call it only
// where the machine runs AVX2). A block's rows are loaded whole, transposed in registers and
// stored whole, so each cache line is read and written whole once, where the element-wise loop
// reads and writes one element per line and keeps the tile's lines in L1 (which a row stride of
// 4 KB defeats).
#ifndef KILN_KERNELS_CPU_TENSOR_TRANSPOSE_BLOCKS_H_
#define KILN_KERNELS_CPU_TENSOR_TRANSPOSE_BLOCKS_H_

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

#if defined(__x86_64__)
// y[j·rows + i] = x[i·cols + j] for i in [i0, i1), j in [j0, j1): one tile of the transpose of
// x (rows × cols, row-major) into y (cols × rows).
void TransposeTile32Avx512(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                           size_t i1, size_t j0, size_t j1);
// The same by 8 × 8 blocks; a ragged edge (fewer than 8 rows or columns left) element by element.
void TransposeTile32Avx2(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                         size_t i1, size_t j0, size_t j1);
#endif

// Tests: turns the register blocks off (false: every tile element by element, as on machines
// without AVX2) or back on; returns the previous setting. Which width runs when they are on
// follows UseVectorMathAvx512() (see ScopedVectorMathAvx512), then the machine.
bool AllowTransposeBlocksForTesting(bool allow) noexcept;

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TENSOR_TRANSPOSE_BLOCKS_H_
