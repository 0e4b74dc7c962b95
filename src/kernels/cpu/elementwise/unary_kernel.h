// A kernel that applies one elementwise function to its single input: y = op(x), same shape and
// type. Op is constructed from the KernelInfo (to read attributes), lists the element types it
// accepts as `Types`, and maps the compute type (float for Float16/BFloat16) to itself.
//
//   struct SqrtOp {
//     using Types = kiln::cpu::FloatTypes;
//     explicit SqrtOp(const kiln::KernelInfo&) {}
//     template <typename C> C operator()(C x) const { return std::sqrt(x); }
//   };
//   kiln::Make<kiln::cpu::UnaryKernel<SqrtOp>>(info);
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_UNARY_KERNEL_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_UNARY_KERNEL_H_

#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

template <typename Op>
class UnaryKernel final : public Kernel {
 public:
  explicit UnaryKernel(const KernelInfo& info) : op_(info) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    DispatchList(typename Op::Types{}, x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
      RunUnary(ctx.threads(), x.element_count(), static_cast<const T*>(x.data()),
               static_cast<T*>(y.data()), [this](T v) { return Store<T>(op_(Load(v))); });
    });
  }

 private:
  Op op_;
};

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_UNARY_KERNEL_H_
