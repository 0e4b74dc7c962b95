// Small helpers every kernel family needs: axis normalisation and reading shape-like inputs.
//
//   size_t axis = kiln::cpu::NormalizeAxis(info, info.GetInt("axis", 0), x.shape().rank());
//   kiln::cpu::SmallVector<int64_t> dims = kiln::cpu::ReadSmallInts(info, ctx.Input(1), "shape");
#ifndef KILN_KERNELS_CPU_COMMON_H_
#define KILN_KERNELS_CPU_COMMON_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// Where part i of `total` items cut into `parts` near-equal parts starts (i ≤ parts; part i is
// [PartStart(i), PartStart(i + 1))): sizes differ by at most one and every part starts inside.
constexpr size_t PartStart(size_t total, size_t parts, size_t i) {
  return i * (total / parts) + (i < total % parts ? i : total % parts);
}

// The products' per-thread workspaces: ThreadWorkspace(which, bytes) is the calling thread's
// buffer `which`, 64-byte aligned and at least `bytes` long, grown as asked and kept for the
// thread's later calls (a product allocates nothing once its buffers are large enough). Each use
// has a buffer of its own, so one held while another is asked for never shares its storage.
// Throws Error(kOutOfMemory).
enum class Workspace {
  kPackedRowsOfA,      // PackedGemm: a block of A's rows copied
  kPackedB,            // cpu::Gemm: B packed per call
  kPackedTransposedA,  // cpu::Gemm: A transposed
  kInt8Rows,           // Int8Gemm: A's rows as unsigned bytes, and their sums
  kInt8Terms,          // Int8Gemm: the zero points' terms per column
  kInt8Block,          // Int8Gemm: a block of int32 sums for the epilogue
  kBf16Rows,           // Bf16Gemm: A's rows as bf16 pairs
  kCount,
};
void* ThreadWorkspace(Workspace which, size_t bytes);

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

// Number of elements of Range: start, start+delta, ... before limit (delta != 0), or -1 when it
// does not fit in int64. The kernel and the shape rule both use this.
template <typename T>
int64_t RangeCount(T start, T limit, T delta) {
  if constexpr (std::is_integral_v<T>) {
    if ((delta > 0 && limit <= start) || (delta < 0 && limit >= start)) return 0;
    const auto s = static_cast<int64_t>(start);
    const auto l = static_cast<int64_t>(limit);
    const auto d = static_cast<int64_t>(delta);
    const uint64_t span = d > 0 ? static_cast<uint64_t>(l) - static_cast<uint64_t>(s)
                                : static_cast<uint64_t>(s) - static_cast<uint64_t>(l);
    const uint64_t step = d > 0 ? static_cast<uint64_t>(d) : uint64_t{0} - static_cast<uint64_t>(d);
    return static_cast<int64_t>((span - 1) / step + 1);
  } else {
    const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                               static_cast<double>(delta));
    if (std::isnan(n) || n >= 9.2e18) return -1;
    return n <= 0 ? 0 : static_cast<int64_t>(n);
  }
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_COMMON_H_
