// Clip (opsets 1–23) over all numeric types (Float16/BFloat16 computed in float). Opsets 1–10
// take the bounds from the float attributes `min` and `max` (absent: unbounded; opset 1's
// `consumed_inputs` is ignored); opsets 11+ from the optional one-element inputs `min` and `max`
// of the input's type. y = min(max(x, min), max): NaN stays NaN, and min > max gives max.
#include <limits>
#include <optional>
#include <string>

#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

template <typename C>
C Lowest() {
  if constexpr (std::numeric_limits<C>::has_infinity) {
    return -std::numeric_limits<C>::infinity();
  } else {
    return std::numeric_limits<C>::lowest();
  }
}

template <typename C>
C Highest() {
  if constexpr (std::numeric_limits<C>::has_infinity) {
    return std::numeric_limits<C>::infinity();
  } else {
    return std::numeric_limits<C>::max();
  }
}

class Clip final : public Kernel {
 public:
  explicit Clip(const KernelInfo& info) : bounds_from_inputs_(info.opset() >= 11) {
    if (!bounds_from_inputs_) {
      if (info.HasAttribute("min")) min_attr_ = info.GetFloat("min", 0.0f);
      if (info.HasAttribute("max")) max_attr_ = info.GetFloat("max", 0.0f);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    DispatchList(NumericTypes{}, x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      C lo = Lowest<C>();
      C hi = Highest<C>();
      if (bounds_from_inputs_) {
        if (const Tensor* t = ctx.OptionalInput(1)) lo = Bound<T>(info, x, *t, "min");
        if (const Tensor* t = ctx.OptionalInput(2)) hi = Bound<T>(info, x, *t, "max");
      } else {
        if (min_attr_) lo = AttributeBound<T>(*min_attr_);
        if (max_attr_) hi = AttributeBound<T>(*max_attr_);
      }
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
      RunUnary(ctx.threads(), x.element_count(), static_cast<const T*>(x.data()),
               static_cast<T*>(y.data()), [lo, hi](T v) {
                 C c = Load(v);
                 if (c < lo) c = lo;
                 if (c > hi) c = hi;
                 return Store<T>(c);
               });
    });
  }

 private:
  template <typename T>
  static ComputeType<T> Bound(const KernelInfo& info, const Tensor& x, const Tensor& bound,
                              const char* name) {
    RequireSameType(info, x, "input", bound, name);
    if (bound.element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name +
                                                 "' must hold one value, but has shape " +
                                                 bound.shape().ToString());
    }
    return Load(*static_cast<const T*>(bound.data()));
  }

  // A float attribute as a bound in T's compute type (saturating for integers).
  template <typename T>
  static ComputeType<T> AttributeBound(float v) {
    if constexpr (std::is_integral_v<T>) {
      return SaturateCast<T>(v);
    } else {
      return static_cast<ComputeType<T>>(v);
    }
  }

  bool bounds_from_inputs_;
  std::optional<float> min_attr_;
  std::optional<float> max_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeClip(const KernelInfo& info) {
  return Make<Clip>(info);
}

}  // namespace kiln::cpu
