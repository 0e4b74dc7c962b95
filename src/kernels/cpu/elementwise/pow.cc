// Pow (opsets 1–23): Z = X ^ Y. Base types float, double, Float16, BFloat16, int32, int64;
// exponent any numeric type from opset 12 (the same type as the base before). Opsets 7+
// broadcast like numpy, opsets 1–6 use the legacy `broadcast`/`axis` attributes.
//   - float base, exponent of the same type: std::pow in that type (float for the halves);
//   - integer base and exponent: exact, wrapping like numpy; a negative exponent truncates the
//     quotient toward zero (so 2^-1 = 0, (-1)^-3 = -1) and 0 to a negative power is an error;
//   - any other mix: computed in double, then converted to the base type (saturating for
//     integers).
#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/kernel_util.h"
#include "kernels/cpu/elementwise/loops.h"
#include "kernels/cpu/elementwise/numeric.h"

namespace kiln::cpu {
namespace {

using BaseTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t>;

template <typename T, typename E>
T IntegerPow(const KernelInfo& info, T base, E exponent) {
  if constexpr (std::is_signed_v<E>) {
    if (exponent < 0) {
      if (base == 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'X' holds 0 raised to the negative integer power " +
                      std::to_string(exponent) + " (integer division by zero)");
      }
      if (base == 1) return 1;
      if constexpr (std::is_signed_v<T>) {
        if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
      }
      return 0;
    }
  }
  auto e = static_cast<uint64_t>(static_cast<std::make_unsigned_t<E>>(exponent));  // >= 0 here
  T result = 1;
  T square = base;
  while (e != 0) {
    if ((e & 1u) != 0) result = WrapMul(result, square);
    e >>= 1;
    if (e != 0) square = WrapMul(square, square);
  }
  return result;
}

template <typename T, typename E>
T PowElement(const KernelInfo& info, T base, E exponent) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) {
    return IntegerPow(info, base, exponent);
  } else if constexpr (std::is_same_v<T, E>) {
    return Store<T>(std::pow(Load(base), Load(exponent)));
  } else {
    const double r = std::pow(static_cast<double>(Load(base)), static_cast<double>(Load(exponent)));
    if constexpr (std::is_integral_v<T>) {
      return SaturateCast<T>(r);
    } else {
      return Store<T>(static_cast<ComputeType<T>>(r));
    }
  }
}

class Pow final : public Kernel {
 public:
  explicit Pow(const KernelInfo& info) : mixed_types_(info.opset() >= 12) {
    if (info.opset() < 7) legacy_ = LegacyBroadcast::FromInfo(info);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& y = ctx.Input(1);
    if (!mixed_types_) RequireSameType(info, x, "X", y, "Y");
    const BinaryShapes shapes =
        ResolveBinaryShapes(info, x.shape().dims(), y.shape().dims(), legacy_, "X", "Y");
    DispatchList(BaseTypes{}, x.type(), info, [&](auto base_tag) {
      using T = typename decltype(base_tag)::type;
      DispatchList(NumericTypes{}, y.type(), info, [&](auto exponent_tag) {
        using E = typename decltype(exponent_tag)::type;
        if (!ctx.WantsOutput(0)) return;
        Tensor& z = ctx.Output(0, x.type(), shapes.out.span());
        const BroadcastPlan plan(shapes.out.span(), {shapes.a.span(), shapes.b.span()});
        RunBinary(ctx.threads(), plan, static_cast<const T*>(x.data()),
                  static_cast<const E*>(y.data()), static_cast<T*>(z.data()),
                  [&info](T b, E e) { return PowElement(info, b, e); });
      });
    });
  }

 private:
  bool mixed_types_;
  std::optional<LegacyBroadcast> legacy_;
};

}  // namespace

std::unique_ptr<Kernel> MakePow(const KernelInfo& info) {
  return Make<Pow>(info);
}

}  // namespace kiln::cpu
