// Unary math, every opset up to 23 (`consumed_inputs` of opset 1 is ignored):
//   Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Tanh (1+), Sin, Cos, Tan, Asin, Acos, Atan (7+),
//   Sinh, Cosh, Asinh, Acosh, Atanh, Erf (9+), Round (11+):
//     float, double, Float16, BFloat16;
//   Abs (1+), Sign (9+): all numeric types; Neg (1+): floats and signed integers.
// Float16/BFloat16 compute in float. Round rounds halves to even. Integer Abs/Neg wrap like numpy
// (Abs(INT_MIN) = INT_MIN). In float, Exp, Tanh and Erf come from vector_math.h (a few ulps from
// libm, and vectorized); double keeps the std:: functions.
#include <cmath>
#include <type_traits>

#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/unary_kernel.h"
#include "kernels/cpu/vector_math.h"

namespace kiln::cpu {
namespace {

// The shape of every op below that has no attribute and takes only float types.
#define KILN_FLOAT_UNARY_OP(Name, expr) \
  struct Name {                         \
    using Types = FloatTypes;           \
    explicit Name(const KernelInfo&) {} \
    template <typename C>               \
    C operator()(C x) const {           \
      return expr;                      \
    }                                   \
  };

KILN_FLOAT_UNARY_OP(SqrtOp, std::sqrt(x))
KILN_FLOAT_UNARY_OP(ExpOp, vmath::Exp(x))
KILN_FLOAT_UNARY_OP(LogOp, std::log(x))
KILN_FLOAT_UNARY_OP(ReciprocalOp, C(1) / x)
KILN_FLOAT_UNARY_OP(FloorOp, std::floor(x))
KILN_FLOAT_UNARY_OP(CeilOp, std::ceil(x))
KILN_FLOAT_UNARY_OP(TanhOp, vmath::Tanh(x))
KILN_FLOAT_UNARY_OP(SinOp, std::sin(x))
KILN_FLOAT_UNARY_OP(CosOp, std::cos(x))
KILN_FLOAT_UNARY_OP(ErfOp, vmath::Erf(x))
KILN_FLOAT_UNARY_OP(TanOp, std::tan(x))
KILN_FLOAT_UNARY_OP(AsinOp, std::asin(x))
KILN_FLOAT_UNARY_OP(AcosOp, std::acos(x))
KILN_FLOAT_UNARY_OP(AtanOp, std::atan(x))
KILN_FLOAT_UNARY_OP(SinhOp, std::sinh(x))
KILN_FLOAT_UNARY_OP(CoshOp, std::cosh(x))
KILN_FLOAT_UNARY_OP(AsinhOp, std::asinh(x))
KILN_FLOAT_UNARY_OP(AcoshOp, std::acosh(x))
KILN_FLOAT_UNARY_OP(AtanhOp, std::atanh(x))

#undef KILN_FLOAT_UNARY_OP

struct RoundOp {
  using Types = FloatTypes;
  explicit RoundOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    const C r = std::round(x);  // halves away from zero
    if (std::fabs(x - std::trunc(x)) == C(0.5)) return C(2) * std::round(x / C(2));
    return r;
  }
};

struct AbsOp {
  using Types = NumericTypes;
  explicit AbsOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_integral_v<C>) {
      return x < 0 ? WrapNeg(x) : x;
    } else {
      return std::fabs(x);
    }
  }
};

struct NegOp {
  using Types = SignedTypes;
  explicit NegOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      return WrapNeg(x);
    } else {
      return -x;
    }
  }
};

struct SignOp {
  using Types = NumericTypes;
  explicit SignOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if (x > C(0)) return C(1);
    if constexpr (std::is_signed_v<C>) {
      if (x < C(0)) return C(-1);
    }
    return x == C(0) ? C(0) : x;  // NaN stays NaN
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSqrt(const KernelInfo& info) {
  return Make<UnaryKernel<SqrtOp>>(info);
}
std::unique_ptr<Kernel> MakeExp(const KernelInfo& info) {
  return Make<UnaryKernel<ExpOp>>(info);
}
std::unique_ptr<Kernel> MakeLog(const KernelInfo& info) {
  return Make<UnaryKernel<LogOp>>(info);
}
std::unique_ptr<Kernel> MakeReciprocal(const KernelInfo& info) {
  return Make<UnaryKernel<ReciprocalOp>>(info);
}
std::unique_ptr<Kernel> MakeFloor(const KernelInfo& info) {
  return Make<UnaryKernel<FloorOp>>(info);
}
std::unique_ptr<Kernel> MakeCeil(const KernelInfo& info) {
  return Make<UnaryKernel<CeilOp>>(info);
}
std::unique_ptr<Kernel> MakeTanh(const KernelInfo& info) {
  return Make<UnaryKernel<TanhOp>>(info);
}
std::unique_ptr<Kernel> MakeSin(const KernelInfo& info) {
  return Make<UnaryKernel<SinOp>>(info);
}
std::unique_ptr<Kernel> MakeCos(const KernelInfo& info) {
  return Make<UnaryKernel<CosOp>>(info);
}
std::unique_ptr<Kernel> MakeErf(const KernelInfo& info) {
  return Make<UnaryKernel<ErfOp>>(info);
}
std::unique_ptr<Kernel> MakeRound(const KernelInfo& info) {
  return Make<UnaryKernel<RoundOp>>(info);
}
std::unique_ptr<Kernel> MakeAbs(const KernelInfo& info) {
  return Make<UnaryKernel<AbsOp>>(info);
}
std::unique_ptr<Kernel> MakeNeg(const KernelInfo& info) {
  return Make<UnaryKernel<NegOp>>(info);
}
std::unique_ptr<Kernel> MakeSign(const KernelInfo& info) {
  return Make<UnaryKernel<SignOp>>(info);
}

std::unique_ptr<Kernel> MakeTan(const KernelInfo& info) {
  return Make<UnaryKernel<TanOp>>(info);
}
std::unique_ptr<Kernel> MakeAsin(const KernelInfo& info) {
  return Make<UnaryKernel<AsinOp>>(info);
}
std::unique_ptr<Kernel> MakeAcos(const KernelInfo& info) {
  return Make<UnaryKernel<AcosOp>>(info);
}
std::unique_ptr<Kernel> MakeAtan(const KernelInfo& info) {
  return Make<UnaryKernel<AtanOp>>(info);
}
std::unique_ptr<Kernel> MakeSinh(const KernelInfo& info) {
  return Make<UnaryKernel<SinhOp>>(info);
}
std::unique_ptr<Kernel> MakeCosh(const KernelInfo& info) {
  return Make<UnaryKernel<CoshOp>>(info);
}
std::unique_ptr<Kernel> MakeAsinh(const KernelInfo& info) {
  return Make<UnaryKernel<AsinhOp>>(info);
}
std::unique_ptr<Kernel> MakeAcosh(const KernelInfo& info) {
  return Make<UnaryKernel<AcoshOp>>(info);
}
std::unique_ptr<Kernel> MakeAtanh(const KernelInfo& info) {
  return Make<UnaryKernel<AtanhOp>>(info);
}

}  // namespace kiln::cpu
