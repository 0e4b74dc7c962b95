// The output is the input:
//   Identity 1–23 (every element type; strings copied as std::string)
//   Dropout 1–23 in inference mode: output = input and an optional mask of all ones (1–9: the
//     input's type, 10+: bool). 12+: the ratio and training_mode inputs are accepted; training
//     mode true is not implemented. 1–6: is_test is ignored (always inference, as ONNX Runtime
//     does).
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Identity final : public Kernel {
 public:
  explicit Identity(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    CopyTensor(x, y);
  }
};

class Dropout final : public Kernel {
 public:
  explicit Dropout(const KernelInfo& info) : opset_(info.opset()) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* training = opset_ >= 12 ? ctx.OptionalInput(2) : nullptr;
    if (training != nullptr) {
      if (training->type() != DataType::kBool || training->element_count() != 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input 'training_mode' must be one bool, not ") +
                      DataTypeName(training->type()) + " " + training->shape().ToString());
      }
      if (*DataAs<bool>(*training)) {
        info.Fail(ErrorCode::kNotImplemented, "training mode is not supported");
      }
    }
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    CopyTensor(x, y);
    if (!ctx.WantsOutput(1)) return;
    if (opset_ >= 10) {
      Tensor& mask = ctx.Output(1, DataType::kBool, x.shape());
      std::fill_n(DataAs<bool>(mask), mask.element_count(), true);
    } else {
      Dispatch<KILN_FLOAT_TYPES>(x.type(), info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        Tensor& mask = ctx.Output(1, x.type(), x.shape());
        const T one = [] {
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
            return T::FromFloat(1.0f);
          } else {
            return T(1);
          }
        }();
        std::fill_n(DataAs<T>(mask), mask.element_count(), one);
      });
    }
  }

 private:
  int64_t opset_;
};

}  // namespace

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info) {
  return Make<Identity>(info);
}
std::unique_ptr<Kernel> MakeDropout(const KernelInfo& info) {
  return Make<Dropout>(info);
}

}  // namespace kiln::cpu
