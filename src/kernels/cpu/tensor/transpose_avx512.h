// A 2-D transpose of 4-byte elements in AVX-512 intrinsics (transpose_avx512.cc, compiled with
// -mavx512f), for Transpose's tiled path on machines that run it (UseVectorMathAvx512()).
// Blocks of 16 × 16 are loaded row by row, transposed in registers and stored row by row, so
// each cache line is read and written whole once, where the element-wise loop reads and writes
// one element per line and keeps the tile's lines in L1 (which a row stride of 4 KB defeats).
#ifndef KILN_KERNELS_CPU_TENSOR_TRANSPOSE_AVX512_H_
#define KILN_KERNELS_CPU_TENSOR_TRANSPOSE_AVX512_H_

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

#if defined(__x86_64__)
// y[j·rows + i] = x[i·cols + j] for i in [i0, i1), j in [j0, j1): one tile of the transpose of
// x (rows × cols, row-major) into y (cols × rows).
void TransposeTile32Avx512(const uint32_t* x, uint32_t* y, size_t rows, size_t cols, size_t i0,
                           size_t i1, size_t j0, size_t j1);
#endif

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TENSOR_TRANSPOSE_AVX512_H_
