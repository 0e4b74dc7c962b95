// Helpers shared by the tensor family: checked shape arithmetic and a strided copy (dispatch on
// storage size is cpu::DispatchStorage in kernels/cpu/types.h).
//
//   DispatchStorage(x.type(), info, [&](auto tag) {
//     using E = typename decltype(tag)::type;  // uint8_t … Bytes16, or std::string
//     StridedCopy(ctx.threads(), x_data, y_data, out_dims, src_strides, 0);
//   });
#ifndef KILN_KERNELS_CPU_TENSOR_TENSOR_UTIL_H_
#define KILN_KERNELS_CPU_TENSOR_TENSOR_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

template <typename E>
const E* DataAs(const Tensor& t) {
  return static_cast<const E*>(t.data());
}
template <typename E>
E* DataAs(Tensor& t) {
  return static_cast<E*>(t.data());
}

// Returns `dims` when they suit an output of `type`: every dimension >= 0 and the storage size
// fits in size_t; otherwise throws kInvalidArgument naming the node and `what`.
std::span<const int64_t> CheckedDims(const KernelInfo& info, DataType type,
                                     std::span<const int64_t> dims, const char* what);
// The same as a Shape.
Shape CheckedShape(const KernelInfo& info, DataType type, std::vector<int64_t> dims,
                   const char* what);

// a * b for non-negative a, b; throws kInvalidArgument naming `what` on overflow of int64.
int64_t CheckedMul(const KernelInfo& info, int64_t a, int64_t b, const char* what);

// Product of dims[begin, end) as size_t (the dims belong to a tensor that exists, so it fits).
size_t Product(std::span<const int64_t> dims, size_t begin, size_t end);

// "[1,2,3]" for messages.
std::string DimsText(std::span<const int64_t> dims);

// Copies all elements of src into dst (same type and element count).
void CopyTensor(const Tensor& src, Tensor& dst);

// dst[i] = src[offset + sum_d index_d(i) * src_strides[d]] for every output position i in
// row-major order over out_dims. Strides may be negative or zero.
template <typename E>
void StridedCopy(ThreadPool& threads, const E* src, E* dst, std::span<const int64_t> out_dims,
                 std::span<const int64_t> src_strides, int64_t offset) {
  const size_t rank = out_dims.size();
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  const size_t inner = static_cast<size_t>(out_dims[rank - 1]);
  const int64_t inner_stride = src_strides[rank - 1];
  const size_t rows = Product(out_dims, 0, rank - 1);
  if (inner == 0 || rows == 0) return;
  const size_t grain = std::max<size_t>(1, 16384 / inner);
  threads.ParallelFor(rows, grain, [&](size_t begin, size_t end) {
    SmallVector<int64_t> index(rank - 1, 0);
    int64_t base = offset;
    size_t rest = begin;
    for (size_t d = rank - 1; d-- > 0;) {
      const auto dim = static_cast<size_t>(out_dims[d]);
      index[d] = static_cast<int64_t>(rest % dim);
      rest /= dim;
      base += index[d] * src_strides[d];
    }
    for (size_t row = begin; row < end; ++row) {
      E* out = dst + row * inner;
      const E* in = src + base;
      if (inner_stride == 1) {
        std::copy_n(in, inner, out);
      } else {
        for (size_t j = 0; j < inner; ++j) out[j] = in[static_cast<int64_t>(j) * inner_stride];
      }
      for (size_t d = rank - 1; d-- > 0;) {
        base += src_strides[d];
        if (++index[d] < out_dims[d]) break;
        base -= index[d] * src_strides[d];
        index[d] = 0;
      }
    }
  });
}

// StridedCopy over tensors of any storage type.
void StridedCopyTensor(const KernelInfo& info, ThreadPool& threads, const Tensor& src, Tensor& dst,
                       std::span<const int64_t> out_dims, std::span<const int64_t> src_strides,
                       int64_t offset);

// Row-major strides of dims as int64.
SmallVector<int64_t> SignedStrides(std::span<const int64_t> dims);

// The values of the int32 or int64 tensor `ind` (input 'indices') as int64, in scratch memory.
std::span<int64_t> ReadIndices(KernelContext& ctx, const Tensor& ind);

// The single integer of a scalar or one-element int32/int64 tensor; throws kInvalidArgument
// naming `what` otherwise.
int64_t ReadScalarInt(const KernelInfo& info, const Tensor& t, const char* what);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TENSOR_TENSOR_UTIL_H_
