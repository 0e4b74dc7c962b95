// General matrix multiply used by MatMul, Gemm, Conv (im2col) and the RNNs.
//
//   // C[m×n] = alpha · A[m×k] · B[k×n] + beta · C, row-major with leading dimensions.
//   kiln::cpu::Gemm<float>(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, &pool);
#ifndef KILN_KERNELS_CPU_LINALG_GEMM_H_
#define KILN_KERNELS_CPU_LINALG_GEMM_H_

#include <cstddef>

#include "core/thread_pool.h"

namespace kiln::cpu {

// C = alpha · op(A) · op(B) + beta · C where op(X) is X or Xᵀ. Row-major: A is m×k (k×m when
// trans_a) with row stride lda, B is k×n (n×k when trans_b) with row stride ldb, C is m×n with
// row stride ldc. When beta is 0, C is not read (it may hold NaN); when alpha is 0 or k is 0,
// C = beta · C and A and B are not read. `pool` may be null (one thread); small products run on
// the calling thread alone. Defined for float and double.
// Makes the calling thread's packing panels now (for float and double), so its first product
// allocates nothing; on failure they are made on first use instead.
void PrepareGemmWorkspaces() noexcept;

template <typename T>
void Gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, T alpha, const T* a, size_t lda,
          const T* b, size_t ldb, T beta, T* c, size_t ldc, ThreadPool* pool);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_GEMM_H_
