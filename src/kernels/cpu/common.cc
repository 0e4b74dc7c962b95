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

std::vector<int64_t> ReadInts(const KernelInfo& info, const Tensor& t, const char* what) {
  std::vector<int64_t> out(t.element_count());
  if (t.type() == DataType::kInt64) {
    const auto* p = static_cast<const int64_t*>(t.data());
    out.assign(p, p + t.element_count());
  } else if (t.type() == DataType::kInt32) {
    const auto* p = static_cast<const int32_t*>(t.data());
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    info.Fail(
        ErrorCode::kInvalidArgument,
        std::string("input '") + what + "' must be int64 or int32, not " + DataTypeName(t.type()));
  }
  return out;
}

std::vector<size_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * static_cast<size_t>(dims[i]);
  return s;
}

}  // namespace kiln::cpu
