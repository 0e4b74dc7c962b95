#include "kernels/cpu/common.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "core/thread_cache.h"
#include "kernels/cpu/vector_math_avx512.h"

namespace kiln::cpu {

void* ThreadWorkspace(Workspace which, size_t bytes) {
  struct Buffer {
    std::unique_ptr<void, void (*)(void*)> data{nullptr, std::free};
    size_t capacity = 0;
  };
  struct Buffers {
    Buffer of[static_cast<size_t>(Workspace::kCount)];
  };
  // The thread's buffers (ThreadCache rather than thread_local: see core/thread_cache.h). Its
  // first use on a thread allocates, and fails like the buffers themselves.
  Buffers* mine = nullptr;
  try {
    mine = &ThreadCacheOf<Buffers>();
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kOutOfMemory, "out of memory for a product's workspace");
  }
  Buffer& b = mine->of[static_cast<size_t>(which)];
  if (b.capacity < bytes) {
    constexpr size_t kAlign = 64;
    b.data.reset(std::aligned_alloc(kAlign, (bytes + kAlign - 1) / kAlign * kAlign));
    b.capacity = b.data != nullptr ? bytes : 0;
    if (b.data == nullptr)
      throw Error(ErrorCode::kOutOfMemory, "out of memory for a product's workspace");
  }
  return b.data.get();
}

size_t NormalizeAxis(const KernelInfo& info, int64_t axis, size_t rank, const char* what) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    info.Fail(ErrorCode::kInvalidArgument, std::string(what) + " " + std::to_string(axis) +
                                               " is out of range for rank " + std::to_string(rank));
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

void RequireIntType(const KernelInfo& info, const Tensor& t, const char* what) {
  if (t.type() != DataType::kInt64 && t.type() != DataType::kInt32) {
    info.Fail(
        ErrorCode::kInvalidArgument,
        std::string("input '") + what + "' must be int64 or int32, not " + DataTypeName(t.type()));
  }
}

std::vector<int64_t> ReadInts(const KernelInfo& info, const Tensor& t, const char* what) {
  RequireIntType(info, t, what);
  std::vector<int64_t> out(t.element_count());
  for (size_t i = 0; i < out.size(); ++i) out[i] = IntAt(t, i);
  return out;
}

SmallVector<int64_t> ReadSmallInts(const KernelInfo& info, const Tensor& t, const char* what) {
  RequireIntType(info, t, what);
  SmallVector<int64_t> out(t.element_count());
  for (size_t i = 0; i < out.size(); ++i) out[i] = IntAt(t, i);
  return out;
}

SmallVector<size_t> Strides(std::span<const int64_t> dims) {
  SmallVector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * static_cast<size_t>(dims[i]);
  return s;
}

SliceAxis ClampSliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim) noexcept {
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  if (dim == 0) return {0, 0};
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    if (end <= start) return {start, 0};
    return {start, static_cast<int64_t>(
                       (static_cast<uint64_t>(end - start) - 1) / static_cast<uint64_t>(step) + 1)};
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (start <= end) return {start, 0};
  const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
  return {start, static_cast<int64_t>((static_cast<uint64_t>(start - end) - 1) / magnitude + 1)};
}

#if defined(__x86_64__)
// vector_math_avx512.h's switch (here, not in the file compiled with -mavx512f).
namespace {

std::atomic<bool>& VectorMathAvx512Allowed() {
  static std::atomic<bool> allowed{true};
  return allowed;
}

}  // namespace

bool UseVectorMathAvx512() noexcept {
  static const bool supported = __builtin_cpu_supports("avx512f");
  return supported && VectorMathAvx512Allowed().load(std::memory_order_relaxed);
}

bool AllowVectorMathAvx512ForTesting(bool allow) noexcept {
  return VectorMathAvx512Allowed().exchange(allow);
}
#endif

}  // namespace kiln::cpu
