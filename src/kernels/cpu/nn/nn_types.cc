// Element-type helpers for the nn kernels.
#include "kernels/cpu/nn/nn_types.h"

namespace kiln::cpu::nn {

void ReadAsDouble(const KernelInfo& info, const Tensor& t, const char* name, double* out) {
  const size_t n = t.element_count();
  switch (t.type()) {
    case DataType::kFloat:
      ConvertValues(static_cast<const float*>(t.data()), out, n);
      break;
    case DataType::kDouble:
      ConvertValues(static_cast<const double*>(t.data()), out, n);
      break;
    case DataType::kFloat16:
      ConvertValues(static_cast<const Float16*>(t.data()), out, n);
      break;
    case DataType::kBfloat16:
      ConvertValues(static_cast<const BFloat16*>(t.data()), out, n);
      break;
    default:
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has type " +
                                                 DataTypeName(t.type()) +
                                                 "; expected float, double, float16 or bfloat16");
  }
}

void RequireOpsetForType(const KernelInfo& info, const char* name, DataType type,
                         DataType restricted, int64_t since) {
  if (type == restricted && info.opset() < since) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + name + "' has type " + DataTypeName(type) + ", which " +
                  info.op_type() + " accepts from opset " + std::to_string(since) +
                  " (this node is opset " + std::to_string(info.opset()) + ")");
  }
}

void RequireSameType(const KernelInfo& info, const char* name, const Tensor& t, DataType want,
                     const char* reference) {
  if (t.type() != want) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has type " +
                                               DataTypeName(t.type()) + " but input '" + reference +
                                               "' has " + DataTypeName(want));
  }
}

}  // namespace kiln::cpu::nn
