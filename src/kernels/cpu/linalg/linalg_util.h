// Helpers the linalg kernels share: batched matrix products in every element type the family
// computes in, float copies of 16-bit float data, numpy broadcasting of batch dimensions and
// unidirectional broadcasting of a tensor to a shape.
//
//   kiln::cpu::BatchedMatMul<float>(false, false, m, n, k, a, a_offsets, b, b_offsets, c, pool);
#ifndef KILN_KERNELS_CPU_LINALG_LINALG_UTIL_H_
#define KILN_KERNELS_CPU_LINALG_LINALG_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "core/tensor.h"
#include "core/thread_pool.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// The unsigned type integer products and sums of T are computed in: they wrap modulo 2^bits like
// the hardware, without signed overflow, and converting back to T keeps the low bits.
template <typename T>
using WrapType = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// The largest of x[0, n), n ≥ 1, in 16 interleaved maxima, vector-cloned (softmax.cc); shared
// with the attention kernels.
float RowMax(const float* x, size_t n);

// For each batch i: C_i = op(A_i) · op(B_i), where A_i starts at a + a_offsets[i] and is m×k
// row-major (k×m when trans_a), B_i starts at b + b_offsets[i] and is k×n (n×k when trans_b), and
// C_i = c + i·m·n is m×n. float and double go through cpu::Gemm; integer types (int32, int64,
// uint32, uint64) multiply and add with wrapping. The offset spans have the same length.
template <typename T>
void BatchedMatMul(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, const T* a,
                   std::span<const size_t> a_offsets, const T* b, std::span<const size_t> b_offsets,
                   T* c, ThreadPool& pool);

// Float16 / BFloat16 data as floats, and back (round to nearest even).
template <typename T>
void ToFloats(const T* p, size_t count, float* out) {
  for (size_t i = 0; i < count; ++i) out[i] = p[i].ToFloat();
}
template <typename T>
std::vector<float> ToFloats(const T* p, size_t count) {
  std::vector<float> out(count);
  ToFloats(p, count, out.data());
  return out;
}
template <typename T>
void FromFloats(const float* src, size_t count, T* dst) {
  for (size_t i = 0; i < count; ++i) dst[i] = T::FromFloat(src[i]);
}

// Numpy broadcasting of two dimension lists (right-aligned, equal or 1). Returns false when some
// pair differs and neither is 1.
bool BroadcastDims(std::span<const int64_t> x, std::span<const int64_t> y,
                   SmallVector<int64_t>* out);

// Element offsets into a row-major tensor of dimensions `dims` for every index of `out_dims`, in
// row-major order, where `dims` (right-aligned, no longer than out_dims) broadcasts to out_dims:
// dimensions of size 1 repeat. `offsets` holds one entry per element of out_dims.
void BroadcastOffsetsInto(std::span<const int64_t> dims, std::span<const int64_t> out_dims,
                          size_t* offsets);
// The same as a new vector.
std::vector<size_t> BroadcastOffsets(std::span<const int64_t> dims,
                                     std::span<const int64_t> out_dims);

// Throws kInvalidArgument naming input `name` and both shapes unless `t` broadcasts
// unidirectionally (numpy rules, t's dimensions right-aligned) to `target`.
void CheckBroadcastable(const KernelInfo& info, const Tensor& t, const char* name,
                        std::span<const int64_t> target);

// The values of T data of dimensions `dims`, converted to Acc and broadcast to `target` (which
// `dims` broadcasts to, right-aligned), in row-major order, written to `out` (one entry per
// element of target).
template <typename T, typename Acc>
void BroadcastValuesInto(const T* data, std::span<const int64_t> dims,
                         std::span<const int64_t> target, Acc* out) {
  // The source stride of each target dimension (0 where it repeats) and an odometer over target.
  const size_t rank = target.size();
  SmallVector<size_t> stride(rank, 0);
  size_t step = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(dims[dims.size() - 1 - i]);
    stride[rank - 1 - i] = d == 1 ? 0 : step;
    step *= d;
  }
  size_t count = 1;
  for (int64_t d : target) count *= static_cast<size_t>(d);
  SmallVector<int64_t> index(rank, 0);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    if constexpr (kIsHalf<T>) {
      out[i] = static_cast<Acc>(data[offset].ToFloat());
    } else {
      out[i] = static_cast<Acc>(data[offset]);
    }
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < target[d]) {
        offset += stride[d];
        break;
      }
      offset -= stride[d] * static_cast<size_t>(target[d] - 1);
      index[d] = 0;
    }
  }
}

// The same as a new vector.
template <typename T, typename Acc>
std::vector<Acc> BroadcastValues(const T* data, const std::vector<int64_t>& dims,
                                 const std::vector<int64_t>& target) {
  size_t count = 1;
  for (int64_t d : target) count *= static_cast<size_t>(d);
  std::vector<Acc> out(count);
  BroadcastValuesInto<T, Acc>(data, dims, target, out.data());
  return out;
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_LINALG_UTIL_H_
