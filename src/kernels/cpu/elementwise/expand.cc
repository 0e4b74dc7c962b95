// Expand (opsets 8–23): broadcasts the input to the shape given by the 1-D int64 (or int32) input
// 'shape', numpy style in both directions (a 1 in 'shape' keeps the input's dimension). Any type
// of 1, 2, 4 or 8 bytes, and string.
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"

namespace kiln::cpu {
namespace {

class Expand final : public Kernel {
 public:
  explicit Expand(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& shape = ctx.Input(1);
    if (shape.shape().rank() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'shape' must be 1-D, but has shape " + shape.shape().ToString());
    }
    SmallVector<int64_t> out = ReadSmallInts(info, shape, "shape");
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] < 0) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'shape' holds " + std::to_string(out[i]) +
                                                   " at index " + std::to_string(i) +
                                                   "; dimensions must be >= 0");
      }
    }
    BroadcastInto(info, out, x.shape().dims(), "input");
    DispatchStorage(x.type(), info, [&](auto tag) {
      using U = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, x.type(), out.span());
      RunBroadcastCopy(ctx.threads(), BroadcastPlan(out.span(), {x.shape().dims()}),
                       static_cast<const U*>(x.data()), static_cast<U*>(y.data()));
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeExpand(const KernelInfo& info) {
  return Make<Expand>(info);
}

}  // namespace kiln::cpu
