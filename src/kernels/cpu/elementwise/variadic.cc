// Variadic Min, Max (all numeric types), Sum and Mean (float, double, Float16, BFloat16), opsets
// 1–23. Opsets 8+ broadcast all inputs like numpy; opsets 1–7 require equal shapes (opset 1's
// `consumed_inputs` is ignored). Min and Max propagate NaN like numpy. Float16/BFloat16 compute
// in float and are stored after each input.
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

struct MaxOp {
  using Types = NumericTypes;
  static constexpr bool kMean = false;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};

struct MinOp {
  using Types = NumericTypes;
  static constexpr bool kMean = false;
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

struct SumOp {
  using Types = FloatTypes;
  static constexpr bool kMean = false;
  template <typename C>
  C operator()(C a, C b) const {
    return a + b;
  }
};

struct MeanOp {
  using Types = FloatTypes;
  static constexpr bool kMean = true;  // a sum, divided by the input count at the end
  template <typename C>
  C operator()(C a, C b) const {
    return a + b;
  }
};

// "data_<i>", the name of input i, in a stack buffer.
struct DataName {
  char text[32];
  explicit DataName(size_t i) { std::snprintf(text, sizeof(text), "data_%zu", i); }
};

template <typename Op>
class Variadic final : public Kernel {
 public:
  explicit Variadic(const KernelInfo& info) : broadcasts_(info.opset() >= 8) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const size_t n = ctx.input_count();
    if (n == 0) info.Fail(ErrorCode::kInvalidArgument, "needs at least one input");
    auto input = [&](size_t i) -> const Tensor& { return ctx.Input(i); };
    const Tensor& first = input(0);
    SmallVector<int64_t> out(first.shape().dims());
    for (size_t i = 1; i < n; ++i) {
      const DataName name(i);
      RequireSameType(info, first, "data_0", input(i), name.text);
      if (broadcasts_) {
        BroadcastInto(info, out, input(i).shape().dims(), name.text);
      } else if (input(i).shape() != first.shape()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name.text + "' has shape " +
                      input(i).shape().ToString() + " but 'data_0' has shape " +
                      first.shape().ToString() +
                      "; inputs must have the same shape before opset 8");
      }
    }
    DispatchList(typename Op::Types{}, first.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, first.type(), out.span());
      T* py = static_cast<T*>(y.data());
      auto data = [&](size_t i) { return static_cast<const T*>(input(i).data()); };
      const Op op;
      auto combine = [&op](T a, T b) { return Store<T>(op(Load(a), Load(b))); };
      if (n == 1) {
        RunBroadcastCopy(ctx.threads(), BroadcastPlan(out.span(), {first.shape().dims()}), data(0),
                         py);
      } else {
        RunBinary(ctx.threads(),
                  BroadcastPlan(out.span(), {first.shape().dims(), input(1).shape().dims()}),
                  data(0), data(1), py, combine);
      }
      for (size_t i = 2; i < n; ++i) {
        RunBinary(ctx.threads(), BroadcastPlan(out.span(), {out.span(), input(i).shape().dims()}),
                  py, data(i), py, combine);
      }
      if constexpr (Op::kMean) {
        const auto count = static_cast<ComputeType<T>>(n);
        RunUnary(ctx.threads(), y.element_count(), py, py,
                 [count](T v) { return Store<T>(Load(v) / count); });
      }
    });
  }

 private:
  bool broadcasts_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMax(const KernelInfo& info) {
  return Make<Variadic<MaxOp>>(info);
}
std::unique_ptr<Kernel> MakeMin(const KernelInfo& info) {
  return Make<Variadic<MinOp>>(info);
}
std::unique_ptr<Kernel> MakeSum(const KernelInfo& info) {
  return Make<Variadic<SumOp>>(info);
}
std::unique_ptr<Kernel> MakeMean(const KernelInfo& info) {
  return Make<Variadic<MeanOp>>(info);
}

}  // namespace kiln::cpu
