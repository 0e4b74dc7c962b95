// Activations, every opset up to 23 (`consumed_inputs` of opset 1 is ignored):
//   Relu (1+): floats and signed integers;
//   LeakyRelu, Elu, Selu, Sigmoid, HardSigmoid, Softplus, Softsign (1+), HardSwish (14+),
//   Gelu (20+, approximate "none" or "tanh"), ThresholdedRelu (10+), Celu (12+), Mish (18+),
//   Swish (24+), SwiGLU (28+, two inputs of one shape): float, double, Float16, BFloat16;
//   Shrink (9+): all numeric types;
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

template <typename C>
[[gnu::always_inline]] inline C Sigmoid(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return SigmoidF(x);
  } else {
    if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
    const C e = std::exp(x);  // no overflow for large negative x
    return e / (C(1) + e);
  }
}

struct SigmoidOp {
  using Types = FloatTypes;
  explicit SigmoidOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return Sigmoid(x);
  }
};

// max(0, min(1, alpha * x + beta)), NaN propagating.
template <typename C>
[[gnu::always_inline]] inline C HardSigmoid(C x, C alpha, C beta) {
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

template <typename C>
[[gnu::always_inline]] inline C Softplus(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return SoftplusF(x);
  } else {
    // log(1 + e^x) without overflow: x + log(1 + e^-x) for positive x.
    return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
}

struct SoftplusOp {
  using Types = FloatTypes;
  explicit SoftplusOp(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    return Softplus(x);
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
  [[gnu::always_inline]] C operator()(C x) const {
    if constexpr (kTanh) {
      const C k = std::sqrt(C(2) / std::numbers::pi_v<C>);
      return C(0.5) * x * (C(1) + vmath::Tanh(k * (x + C(0.044715) * x * x * x)));
    } else {
      return C(0.5) * x * (C(1) + vmath::Erf(x / std::sqrt(C(2))));
    }
  }
};

class ThresholdedReluOp {
 public:
  using Types = FloatTypes;
  explicit ThresholdedReluOp(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    return x > static_cast<C>(alpha_) ? x : C(0);
  }

 private:
  float alpha_;
};

// Shrink takes every numeric type; integers compare against the float lambd and shift by the
// float bias in double, so an int64 near its limits keeps its exact value in the pass-through
// branch.
class ShrinkOp {
 public:
  using Types = NumericTypes;
  explicit ShrinkOp(const KernelInfo& info)
      : bias_(info.GetFloat("bias", 0.0f)), lambd_(info.GetFloat("lambd", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      const auto v = static_cast<double>(x);
      if (v < -static_cast<double>(lambd_)) return static_cast<C>(v + bias_);
      if (v > static_cast<double>(lambd_)) return static_cast<C>(v - bias_);
      return C(0);
    } else {
      if (x < -static_cast<C>(lambd_)) return x + static_cast<C>(bias_);
      if (x > static_cast<C>(lambd_)) return x - static_cast<C>(bias_);
      return C(0);
    }
  }

 private:
  float bias_;
  float lambd_;
};

// max(0, x) + min(0, alpha * (e^(x / alpha) - 1)).
class CeluOp {
 public:
  using Types = FloatTypes;
  explicit CeluOp(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.0f)) {
    if (alpha_ == 0.0f) info.Fail(ErrorCode::kInvalidGraph, "attribute 'alpha' must not be 0");
  }
  template <typename C>
  C operator()(C x) const {
    const auto alpha = static_cast<C>(alpha_);
    const C negative = alpha * vmath::Expm1(x / alpha);
    return x > C(0) ? x : negative;
  }

 private:
  float alpha_;
};

// x * sigmoid(alpha * x).
template <typename C>
[[gnu::always_inline]] inline C Swish(C x, C alpha) {
  return x * Sigmoid(alpha * x);
}

class SwishOp {
 public:
  using Types = FloatTypes;
  explicit SwishOp(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.0f)) {}
  template <typename C>
  C operator()(C x) const {
    return Swish(x, static_cast<C>(alpha_));
  }

 private:
  float alpha_;
};

// x * tanh(softplus(x)).
struct MishOp {
  using Types = FloatTypes;
  explicit MishOp(const KernelInfo&) {}
  template <typename C>
  [[gnu::always_inline]] C operator()(C x) const {
    return x * vmath::Tanh(Softplus(x));
  }
};

// SwiGLU (28+): Y = Swish_alpha(A) * B, A and B of one shape (no broadcasting).
class SwiGlu final : public Kernel {
 public:
  explicit SwiGlu(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    RequireSameType(info, a, "A", b, "B");
    if (a.shape() != b.shape()) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b.shape().ToString() +
                                                 " but 'A' has shape " + a.shape().ToString() +
                                                 "; SwiGLU does not broadcast");
    }
    DispatchList(FloatTypes{}, a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = ComputeType<T>;
      if (!ctx.WantsOutput(0)) return;
      Tensor& y = ctx.OutputForOverwrite(0, a.type(), a.shape());
      const BroadcastPlan plan(a.shape().dims(), {&a.shape().dims(), &b.shape().dims()});
      const auto alpha = static_cast<C>(alpha_);
      RunBinary(ctx.threads(), plan, static_cast<const T*>(a.data()),
                static_cast<const T*>(b.data()), static_cast<T*>(y.data()),
                [alpha](T p, T q) { return Store<T>(Swish(Load(p), alpha) * Load(q)); });
    });
  }

 private:
  float alpha_;
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
std::unique_ptr<Kernel> MakeThresholdedRelu(const KernelInfo& info) {
  return Make<UnaryKernel<ThresholdedReluOp>>(info);
}
std::unique_ptr<Kernel> MakeShrink(const KernelInfo& info) {
  return Make<UnaryKernel<ShrinkOp>>(info);
}
std::unique_ptr<Kernel> MakeCelu(const KernelInfo& info) {
  return Make<UnaryKernel<CeluOp>>(info);
}
std::unique_ptr<Kernel> MakeSwish(const KernelInfo& info) {
  return Make<UnaryKernel<SwishOp>>(info);
}
std::unique_ptr<Kernel> MakeMish(const KernelInfo& info) {
  return Make<UnaryKernel<MishOp>>(info);
}
std::unique_ptr<Kernel> MakeSwiGlu(const KernelInfo& info) {
  return Make<SwiGlu>(info);
}

}  // namespace kiln::cpu
