// Identity 1–23: the output is the input (every element type; strings copied as std::string).
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

}  // namespace

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info) {
  return Make<Identity>(info);
}

}  // namespace kiln::cpu
