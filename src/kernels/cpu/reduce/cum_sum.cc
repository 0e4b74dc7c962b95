// CumSum: opsets 11–23 (exclusive, reverse; the axis is input 1, an int32 or int64 scalar or
// one-element 1-D tensor). Types: float, double, int32, int64, uint32, uint64, and from opset 14
// Float16 and BFloat16 (summed in float, rounded at each output). Integer sums wrap.
// CumProd (opset 26) is the same walk with products: the same types (halves at every opset), an
// exclusive product starting from 1, integer products wrapping.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/reduce/numeric.h"
#include "kernels/cpu/reduce/reduce_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

using reduce::ComputeType;
using reduce::Load;
using reduce::Store;
using reduce::WrapAdd;
using reduce::WrapMul;

// y along the middle dimension of x viewed as [outer, n, inner].
template <bool kProduct, typename T>
void RunCumulative(KernelContext& ctx, const T* x, size_t outer, size_t n, size_t inner,
                   bool exclusive, bool reverse, T* y) {
  using A = ComputeType<T>;
  ctx.threads().ParallelFor(outer, std::max<size_t>(1, (size_t{1} << 15) / (n * inner + 1)),
                            [&](size_t begin, size_t end) {
                              A* sum = ctx.Scratch<A>(inner);
                              for (size_t o = begin; o < end; ++o) {
                                std::fill_n(sum, inner, A(kProduct ? 1 : 0));
                                for (size_t step = 0; step < n; ++step) {
                                  const size_t k = reverse ? n - 1 - step : step;
                                  const T* xs = x + (o * n + k) * inner;
                                  T* ys = y + (o * n + k) * inner;
                                  for (size_t i = 0; i < inner; ++i) {
                                    const A next = kProduct ? WrapMul(sum[i], Load(xs[i]))
                                                            : WrapAdd(sum[i], Load(xs[i]));
                                    ys[i] = Store<T>(exclusive ? sum[i] : next);
                                    sum[i] = next;
                                  }
                                }
                              }
                            });
}

template <bool kProduct>
class Cumulative final : public Kernel {
 public:
  explicit Cumulative(const KernelInfo& info)
      : exclusive_(info.GetInt("exclusive", 0) != 0),
        reverse_(info.GetInt("reverse", 0) != 0),
        halves_(kProduct || info.opset() >= 14) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& axis_tensor = ctx.Input(1);
    RequireIntType(info, axis_tensor, "axis");
    if (axis_tensor.element_count() != 1 || axis_tensor.shape().rank() > 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'axis' must hold one value, not shape " + axis_tensor.shape().ToString());
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, IntAt(axis_tensor, 0), dims.size());
    size_t outer = 1;
    size_t inner = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i < axis) outer *= static_cast<size_t>(dims[i]);
      if (i > axis) inner *= static_cast<size_t>(dims[i]);
    }
    const auto n = static_cast<size_t>(dims[axis]);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      RunCumulative<kProduct, T>(ctx, static_cast<const T*>(x.data()), outer, n, inner, exclusive_,
                                 reverse_, static_cast<T*>(y.data()));
    };
    if (halves_) {
      Dispatch<float, double, int32_t, int64_t, uint32_t, uint64_t, Float16, BFloat16>(x.type(),
                                                                                       info, run);
    } else {
      Dispatch<float, double, int32_t, int64_t, uint32_t, uint64_t>(x.type(), info, run);
    }
  }

 private:
  bool exclusive_;
  bool reverse_;
  bool halves_;  // Float16 and BFloat16 came with opset 14
};

}  // namespace

std::unique_ptr<Kernel> MakeCumSum(const KernelInfo& info) {
  return Make<Cumulative<false>>(info);
}
std::unique_ptr<Kernel> MakeCumProd(const KernelInfo& info) {
  return Make<Cumulative<true>>(info);
}

}  // namespace kiln::cpu
