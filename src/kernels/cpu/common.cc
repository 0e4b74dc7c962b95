#include "kernels/cpu/common.h"

#include <string>

namespace kiln::cpu {

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

}  // namespace kiln::cpu
