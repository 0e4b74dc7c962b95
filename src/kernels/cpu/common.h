// Small helpers every kernel family needs: axis normalisation and reading shape-like inputs.
//
//   size_t axis = kiln::cpu::NormalizeAxis(info, info.GetInt("axis", 0), x.shape().rank());
//   kiln::cpu::SmallVector<int64_t> dims = kiln::cpu::ReadSmallInts(info, ctx.Input(1), "shape");
#ifndef KILN_KERNELS_CPU_COMMON_H_
#define KILN_KERNELS_CPU_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// Maps axis in [-rank, rank) to [0, rank); throws kInvalidArgument naming the node and `what`.
size_t NormalizeAxis(const KernelInfo& info, int64_t axis, size_t rank, const char* what = "axis");

// Throws kInvalidArgument naming the node and `what` unless `t` is int32 or int64.
void RequireIntType(const KernelInfo& info, const Tensor& t, const char* what);

// Element i of an int32 or int64 tensor (checked with RequireIntType) as int64.
inline int64_t IntAt(const Tensor& t, size_t i) {
  return t.type() == DataType::kInt64 ? static_cast<const int64_t*>(t.data())[i]
                                      : static_cast<const int32_t*>(t.data())[i];
}

// The values of an int32 or int64 tensor (any shape) as int64; throws kInvalidArgument naming
// the node and `what` for another element type.
std::vector<int64_t> ReadInts(const KernelInfo& info, const Tensor& t, const char* what);

// The same for shape-like inputs (axes, sizes, pads): no heap up to 8 values.
SmallVector<int64_t> ReadSmallInts(const KernelInfo& info, const Tensor& t, const char* what);

// Row-major strides of `dims` in elements.
SmallVector<size_t> Strides(std::span<const int64_t> dims);

// One axis of a Slice: `start` and `end` as given (negative counts from the end), a nonzero
// `step`, the axis length `dim` >= 0. Returns the clamped first index and how many elements the
// slice takes, as numpy and ONNX define it. The kernel and the shape rule both use this.
struct SliceAxis {
  int64_t start;
  int64_t count;
};
SliceAxis ClampSliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim) noexcept;

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_COMMON_H_
