// Activations, every opset up to 23 (`consumed_inputs` of opset 1 is ignored):
//   Relu (1+): floats and signed integers;
//   LeakyRelu, Elu, Selu, Sigmoid, HardSigmoid, Softplus, Softsign (1+), HardSwish (14+),
//   Gelu (20+, approximate "none" or "tanh"): float, double, Float16, BFloat16;
//   PRelu (1+): floats, int32, int64, uint32, uint64. Opsets 7+ broadcast the slope to X
//   unidirectionally; opsets 1–6 take a one-element slope, one per channel (axis 1) or one of X's
//   shape.
// Selu's defaults are 1.6732/1.0507 before opset 6 and the float32 values of the exact
// constants from opset 6 on. Float16/BFloat16 compute in float. In float, Elu, Selu, Sigmoid,
// Softplus and Gelu take e^x, expm1, tanh and erf from vector_math.h (a few ulps from libm, and
// vectorized); double keeps the std:: functions.
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/elementwise/broadcast.h"
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/elementwise/unary_kernel.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vector_math.h"

namespace kiln::cpu {
namespace {

struct ReluOp {
  using Types = SignedTypes;
  explicit ReluOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return x < C(0) ? C(0) : x;  // NaN stays NaN
  }
};

class LeakyReluOp {
 public:
  using Types = FloatTypes;
  explicit LeakyReluOp(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 0.01f)) {}
  template <typename C>
  C operator()(C x) const {
    const C negative = static_cast<C>(alpha_) * x;  // both sides: vectorizes
    return x < C(0) ? negative : x;
  }

 private:
  float alpha_;
};

class EluOp {
 public:
  using Types = FloatTypes;
  explicit EluOp(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    const C negative = static_cast<C>(alpha_) * vmath::Expm1(x);  // both sides: vectorizes
    return x < C(0) ? negative : x;
  }

 private:
  float alpha_;
};

class SeluOp {
 public:
  using Types = FloatTypes;
  explicit SeluOp(const KernelInfo& info)
      : alpha_(info.GetFloat("alpha", info.opset() < 6 ? 1.6732f : 1.67326319217681884765625f)),
        gamma_(info.GetFloat("gamma", info.opset() < 6 ? 1.0507f : 1.05070102214813232421875f)) {}
  template <typename C>
  C operator()(C x) const {
    const auto gamma = static_cast<C>(gamma_);
    return x > C(0) ? gamma * x : gamma * static_cast<C>(alpha_) * vmath::Expm1(x);
  }

 private:
  float alpha_;
  float gamma_;
};

struct SigmoidOp {
  using Types = FloatTypes;
  explicit SigmoidOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) {
      return SigmoidF(x);
    } else {
      if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
      const C e = std::exp(x);  // no overflow for large negative x
      return e / (C(1) + e);
    }
  }
};

// max(0, min(1, alpha * x + beta)), NaN propagating.
template <typename C>
C HardSigmoid(C x, C alpha, C beta) {
  const C v = alpha * x + beta;
  if (v < C(0)) return C(0);
  return v > C(1) ? C(1) : v;
}

class HardSigmoidOp {
 public:
  using Types = FloatTypes;
  explicit HardSigmoidOp(const KernelInfo& info)
      : alpha_(info.GetFloat("alpha", 0.2f)), beta_(info.GetFloat("beta", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    return HardSigmoid(x, static_cast<C>(alpha_), static_cast<C>(beta_));
  }

 private:
  float alpha_;
  float beta_;
};

struct HardSwishOp {
  using Types = FloatTypes;
  explicit HardSwishOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return x * HardSigmoid(x, C(1) / C(6), C(0.5));
  }
};

struct SoftplusOp {
  using Types = FloatTypes;
  explicit SoftplusOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_same_v<C, float>) {
      return SoftplusF(x);
    } else {
      // log(1 + e^x) without overflow: x + log(1 + e^-x) for positive x.
      return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
  }
};

struct SoftsignOp {
  using Types = FloatTypes;
  explicit SoftsignOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return x / (C(1) + std::fabs(x));
  }
};

// Gelu with approximate "none" (kTanh false) or "tanh": one op each, so that the loop has no
// choice inside.
template <bool kTanh>
struct GeluOp {
  using Types = FloatTypes;
  explicit GeluOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (kTanh) {
      const C k = std::sqrt(C(2) / std::numbers::pi_v<C>);
      return C(0.5) * x * (C(1) + vmath::Tanh(k * (x + C(0.044715) * x * x * x)));
    } else {
      return C(0.5) * x * (C(1) + vmath::Erf(x / std::sqrt(C(2))));
    }
  }
};

using PReluTypes = TypeList<float, double, Float16, BFloat16, int32_t, int64_t, uint32_t, uint64_t>;

class PRelu final : public Kernel {
 public:
  explicit PRelu(const KernelInfo& info) : legacy_(info.opset() < 7) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& slope = ctx.Input(1);
    RequireSameType(info, x, "X", slope, "slope");
    const std::vector<int64_t>& x_dims = x.shape().dims();
    const SmallVector<int64_t> slope_dims = SlopeDims(info, x_dims, slope.shape().dims());
    DispatchList(PReluTypes{}, x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.Output(0, x.type(), x.shape());
      const BroadcastPlan plan(x_dims, {std::span<const int64_t>(x_dims), slope_dims.span()});
      RunBinary(ctx.threads(), plan, static_cast<const T*>(x.data()),
                static_cast<const T*>(slope.data()), static_cast<T*>(y.data()), [](T v, T s) -> T {
                  if constexpr (std::is_unsigned_v<T>) {
                    return v;
                  } else if constexpr (std::is_integral_v<T>) {
                    return v < 0 ? WrapMul(s, v) : v;
                  } else {
                    const ComputeType<T> cv = Load(v);
                    return cv < ComputeType<T>(0) ? Store<T>(Load(s) * cv) : v;
                  }
                });
    });
  }

 private:
  // The slope's dims as numpy dims that broadcast to X.
  SmallVector<int64_t> SlopeDims(const KernelInfo& info, const std::vector<int64_t>& x,
                                 const std::vector<int64_t>& slope) const {
    if (!legacy_) {
      if (!BroadcastsTo(slope, x)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'slope' has shape " + Shape(slope).ToString() +
                      ", which does not broadcast to X's shape " + Shape(x).ToString());
      }
      return SmallVector<int64_t>(slope);
    }
    const std::optional<size_t> count = Shape(slope).ElementCount();
    if (count == std::optional<size_t>(1) || slope == x) return SmallVector<int64_t>(slope);
    if (x.size() >= 2 && count == std::optional<size_t>(static_cast<size_t>(x[1]))) {
      SmallVector<int64_t> per_channel(x.size() - 1, 1);  // [C, 1, …, 1] against X's axes 1…
      per_channel[0] = x[1];
      return per_channel;
    }
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'slope' has shape " + Shape(slope).ToString() + " but X has shape " +
                  Shape(x).ToString() +
                  "; before opset 7 the slope has one element, one per channel or X's shape");
  }

  bool legacy_;
};

}  // namespace

std::unique_ptr<Kernel> MakeRelu(const KernelInfo& info) {
  return Make<UnaryKernel<ReluOp>>(info);
}
std::unique_ptr<Kernel> MakeLeakyRelu(const KernelInfo& info) {
  return Make<UnaryKernel<LeakyReluOp>>(info);
}
std::unique_ptr<Kernel> MakeElu(const KernelInfo& info) {
  return Make<UnaryKernel<EluOp>>(info);
}
std::unique_ptr<Kernel> MakeSelu(const KernelInfo& info) {
  return Make<UnaryKernel<SeluOp>>(info);
}
std::unique_ptr<Kernel> MakeSigmoid(const KernelInfo& info) {
  return Make<UnaryKernel<SigmoidOp>>(info);
}
std::unique_ptr<Kernel> MakeHardSigmoid(const KernelInfo& info) {
  return Make<UnaryKernel<HardSigmoidOp>>(info);
}
std::unique_ptr<Kernel> MakeHardSwish(const KernelInfo& info) {
  return Make<UnaryKernel<HardSwishOp>>(info);
}
std::unique_ptr<Kernel> MakeSoftplus(const KernelInfo& info) {
  return Make<UnaryKernel<SoftplusOp>>(info);
}
std::unique_ptr<Kernel> MakeSoftsign(const KernelInfo& info) {
  return Make<UnaryKernel<SoftsignOp>>(info);
}
std::unique_ptr<Kernel> MakeGelu(const KernelInfo& info) {
  const std::string approximate = info.GetString("approximate", "none");
  if (approximate == "tanh") return Make<UnaryKernel<GeluOp<true>>>(info);
  if (approximate != "none") {
    info.Fail(ErrorCode::kInvalidGraph,
              "attribute 'approximate' must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  }
  return Make<UnaryKernel<GeluOp<false>>>(info);
}
std::unique_ptr<Kernel> MakePRelu(const KernelInfo& info) {
  return Make<PRelu>(info);
}

}  // namespace kiln::cpu
