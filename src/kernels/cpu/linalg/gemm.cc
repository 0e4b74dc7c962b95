// Gemm for float and double: rows of C split across the pool, i-k-j loop order so the inner loop
// runs along contiguous rows of B and C.
#include "kernels/cpu/linalg/gemm.h"

#include <vector>

namespace kiln::cpu {

template <typename T>
void Gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, T alpha, const T* a, size_t lda,
          const T* b, size_t ldb, T beta, T* c, size_t ldc, ThreadPool* pool) {
  auto rows = [&](size_t begin, size_t end) {
    std::vector<T> brow;
    if (trans_b) brow.resize(n);
    for (size_t i = begin; i < end; ++i) {
      T* crow = c + i * ldc;
      for (size_t j = 0; j < n; ++j) crow[j] = beta == T(0) ? T(0) : beta * crow[j];
      for (size_t p = 0; p < k; ++p) {
        const T av = alpha * (trans_a ? a[p * lda + i] : a[i * lda + p]);
        if (av == T(0)) continue;
        const T* bp;
        if (trans_b) {
          for (size_t j = 0; j < n; ++j) brow[j] = b[j * ldb + p];
          bp = brow.data();
        } else {
          bp = b + p * ldb;
        }
        for (size_t j = 0; j < n; ++j) crow[j] += av * bp[j];
      }
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(m, 4, rows);
  } else {
    rows(0, m);
  }
}

template void Gemm<float>(bool, bool, size_t, size_t, size_t, float, const float*, size_t,
                          const float*, size_t, float, float*, size_t, ThreadPool*);
template void Gemm<double>(bool, bool, size_t, size_t, size_t, double, const double*, size_t,
                           const double*, size_t, double, double*, size_t, ThreadPool*);

}  // namespace kiln::cpu
