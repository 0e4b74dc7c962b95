#include "kernels/cpu/linalg/linalg_util.h"

#include <algorithm>
#include <string>

#include "kernels/cpu/linalg/gemm.h"

namespace kiln::cpu {
namespace {

// Multiply-adds below which a chunk of work is not worth handing to another thread.
constexpr double kMinParallelWork = 65536;

}  // namespace

template <typename T>
void BatchedMatMul(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const T* a,
                   std::span<const size_t> a_offsets, const T* b, std::span<const size_t> b_offsets,
                   T* c, ThreadPool& pool) {
  const size_t batches = a_offsets.size();
  const double work =
      static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(std::max<size_t>(k, 1));
  if constexpr (std::is_floating_point_v<T>) {
    const size_t lda = trans_a ? m : k;
    const size_t ldb = trans_b ? k : n;
    if (batches < static_cast<size_t>(pool.size())) {
      // Few matrices: each product uses the whole pool.
      for (size_t i = 0; i < batches; ++i) {
        Gemm<T>(trans_a, trans_b, m, n, k, T(1), a + a_offsets[i], lda, b + b_offsets[i], ldb, T(0),
                c + i * m * n, n, &pool);
      }
      return;
    }
    const auto grain = static_cast<size_t>(std::max(1.0, kMinParallelWork / work));
    pool.ParallelFor(batches, grain, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        Gemm<T>(trans_a, trans_b, m, n, k, T(1), a + a_offsets[i], lda, b + b_offsets[i], ldb, T(0),
                c + i * m * n, n, nullptr);
      }
    });
  } else {
    using W = WrapType<T>;
    const double row_work = work / static_cast<double>(std::max<size_t>(m, 1));
    const auto grain = static_cast<size_t>(std::max(1.0, kMinParallelWork / row_work));
    pool.ParallelFor(batches * m, grain, [&](size_t begin, size_t end) {
      // Each row of C in blocks of columns, summed on the stack (the order over p is unchanged).
      constexpr size_t kColumns = 256;
      W acc[kColumns];
      for (size_t r = begin; r < end; ++r) {
        const size_t batch = r / m;
        const size_t i = r % m;
        const T* ab = a + a_offsets[batch];
        const T* bb = b + b_offsets[batch];
        T* crow = c + r * n;
        for (size_t j0 = 0; j0 < n; j0 += kColumns) {
          const size_t width = std::min(kColumns, n - j0);
          std::fill(acc, acc + width, W(0));
          for (size_t p = 0; p < k; ++p) {
            const auto av = static_cast<W>(trans_a ? ab[p * m + i] : ab[i * k + p]);
            if (trans_b) {
              for (size_t j = 0; j < width; ++j) {
                acc[j] += av * static_cast<W>(bb[(j0 + j) * k + p]);
              }
            } else {
              const T* brow = bb + p * n + j0;
              for (size_t j = 0; j < width; ++j) acc[j] += av * static_cast<W>(brow[j]);
            }
          }
          for (size_t j = 0; j < width; ++j) crow[j0 + j] = static_cast<T>(acc[j]);
        }
      }
    });
  }
}

// NOLINTBEGIN(bugprone-macro-parentheses): T is a type; `(T)*` would not parse.
#define KILN_INSTANTIATE_BATCHED_MATMUL(T)                                                       \
  template void BatchedMatMul<T>(bool, bool, size_t, size_t, size_t, const T*,                   \
                                 std::span<const size_t>, const T*, std::span<const size_t>, T*, \
                                 ThreadPool&);
// NOLINTEND(bugprone-macro-parentheses)
KILN_INSTANTIATE_BATCHED_MATMUL(float)
KILN_INSTANTIATE_BATCHED_MATMUL(double)
KILN_INSTANTIATE_BATCHED_MATMUL(int32_t)
KILN_INSTANTIATE_BATCHED_MATMUL(int64_t)
KILN_INSTANTIATE_BATCHED_MATMUL(uint32_t)
KILN_INSTANTIATE_BATCHED_MATMUL(uint64_t)
#undef KILN_INSTANTIATE_BATCHED_MATMUL

bool BroadcastDims(std::span<const int64_t> x, std::span<const int64_t> y,
                   SmallVector<int64_t>* out) {
  const size_t rank = std::max(x.size(), y.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t dx = i < x.size() ? x[x.size() - 1 - i] : 1;
    const int64_t dy = i < y.size() ? y[y.size() - 1 - i] : 1;
    if (dx != dy && dx != 1 && dy != 1) return false;
    (*out)[rank - 1 - i] = dx == 1 ? dy : dx;
  }
  return true;
}

void BroadcastOffsetsInto(std::span<const int64_t> dims, std::span<const int64_t> out_dims,
                          size_t* offsets) {
  const size_t rank = out_dims.size();
  SmallVector<size_t> stride(rank, 0);  // source stride per output dimension; 0 repeats
  size_t step = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(dims[dims.size() - 1 - i]);
    stride[rank - 1 - i] = d == 1 ? 0 : step;
    step *= d;
  }
  size_t count = 1;
  for (int64_t d : out_dims) count *= static_cast<size_t>(d);
  SmallVector<int64_t> index(rank, 0);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    offsets[i] = offset;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < out_dims[d]) {
        offset += stride[d];
        break;
      }
      offset -= stride[d] * static_cast<size_t>(out_dims[d] - 1);
      index[d] = 0;
    }
  }
}

std::vector<size_t> BroadcastOffsets(std::span<const int64_t> dims,
                                     std::span<const int64_t> out_dims) {
  size_t count = 1;
  for (int64_t d : out_dims) count *= static_cast<size_t>(d);
  std::vector<size_t> offsets(count);
  BroadcastOffsetsInto(dims, out_dims, offsets.data());
  return offsets;
}

void CheckBroadcastable(const KernelInfo& info, const Tensor& t, const char* name,
                        std::span<const int64_t> target) {
  const std::vector<int64_t>& dims = t.shape().dims();
  bool ok = dims.size() <= target.size();
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    const int64_t d = dims[dims.size() - 1 - i];
    ok = d == 1 || d == target[target.size() - 1 - i];
  }
  if (!ok) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + name + "' has shape " + t.shape().ToString() +
                  ", which does not broadcast to " +
                  Shape(std::vector<int64_t>(target.begin(), target.end())).ToString());
  }
}

}  // namespace kiln::cpu
