#include "kernels/cpu/attention/attention_util.h"

#include "kernels/cpu/types.h"

namespace kiln::cpu {

void LoadFloats(const KernelInfo& info, const Tensor& t, float* out) {
  Dispatch<float, Float16, BFloat16>(t.type(), info, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(t.data());
    for (size_t i = 0; i < t.element_count(); ++i) out[i] = ToFloat(p[i]);
  });
}

void StoreFloats(const KernelInfo& info, const float* in, Tensor& t) {
  Dispatch<float, Float16, BFloat16>(t.type(), info, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.data());
    for (size_t i = 0; i < t.element_count(); ++i) p[i] = FromFloat<T>(in[i]);
  });
}

std::string ShapeText(const Tensor& t) {
  std::string s = "[";
  const std::vector<int64_t>& dims = t.shape().dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

void RequireRank(const KernelInfo& info, const Tensor& t, const char* name, size_t rank) {
  if (t.shape().rank() != rank) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                               ShapeText(t) + "; expected rank " +
                                               std::to_string(rank));
  }
}

void RequireSameType(const KernelInfo& info, const Tensor& t, const char* name, DataType type,
                     const char* other) {
  if (t.type() != type) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                               DataTypeName(t.type()) + " but input '" + other +
                                               "' is " + DataTypeName(type));
  }
}

}  // namespace kiln::cpu
