// Small helpers every kernel family needs: axis normalisation and reading shape-like inputs.
//
//   size_t axis = kiln::cpu::NormalizeAxis(info, info.GetInt("axis", 0), x.shape().rank());
//   std::vector<int64_t> dims = kiln::cpu::ReadInts(info, ctx.Input(1), "shape");
#ifndef KILN_KERNELS_CPU_COMMON_H_
#define KILN_KERNELS_CPU_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// Maps axis in [-rank, rank) to [0, rank); throws kInvalidArgument naming the node and `what`.
size_t NormalizeAxis(const KernelInfo& info, int64_t axis, size_t rank, const char* what = "axis");

// The values of an int32 or int64 tensor (any shape) as int64; throws kInvalidArgument naming
// the node and `what` for another element type.
std::vector<int64_t> ReadInts(const KernelInfo& info, const Tensor& t, const char* what);

// Row-major strides of `dims` in elements.
std::vector<size_t> Strides(const std::vector<int64_t>& dims);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_COMMON_H_
