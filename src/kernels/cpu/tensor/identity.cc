// Identity 1–25: the output is the input. A tensor (every element type; strings copied as
// std::string) is copied; from opset 14 a sequence, and from 16 an optional, is passed on as it
// is (both are immutable).
#include <string>

#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Identity final : public Kernel {
 public:
  explicit Identity(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Value* v = ctx.InputValue(0);
    if (ctx.OptionalInput(0) == nullptr && v != nullptr && !v->empty()) {
      const int64_t opset = ctx.info().opset();
      const bool sequence = v->kind() == Value::Kind::kSequence;
      const bool optional = v->kind() == Value::Kind::kOptional;
      if ((sequence && opset >= 14) || (optional && opset >= 16)) {
        ctx.SetOutputValue(0, *v);
        return;
      }
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      "input 0 must be a tensor" +
                          std::string(opset >= 14 ? " or a sequence" : "") + " at opset " +
                          std::to_string(opset) + ", not " + v->TypeText());
    }
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    CopyTensor(x, y);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info) {
  return Make<Identity>(info);
}

}  // namespace kiln::cpu
