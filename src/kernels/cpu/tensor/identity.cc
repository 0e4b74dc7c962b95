// Identity (opsets 1–23) and inference-mode Dropout (opsets 1–22): the output is the input.
#include "kernels/cpu/tensor/tensor_kernels.h"

#include <cstring>

namespace kiln::cpu {
namespace {

class Identity final : public Kernel {
 public:
  explicit Identity(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    if (x.type() == DataType::kString) {
      for (size_t i = 0; i < x.element_count(); ++i) y.strings()[i] = x.strings()[i];
    } else if (x.byte_size() != 0) {
      std::memcpy(y.data(), x.data(), x.byte_size());
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info) {
  return Make<Identity>(info);
}

}  // namespace kiln::cpu
