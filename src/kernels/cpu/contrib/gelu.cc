// Gelu, FastGelu and BiasGelu (com.microsoft, opset 1), float:
//   Gelu(X)               Y = 0.5·x·(1 + erf(x/√2))
//   FastGelu(X, bias?)    y = x (+ bias); Y = 0.5·y·(1 + tanh(√(2/π)·(y + 0.044715·y³)))
//   BiasGelu(A, B)        Gelu(A + B)
//   QuickGelu(X)          Y = x·sigmoid(alpha·x), alpha 1.702 by default
// The bias is 1-D of X's last dimension and is added row by row inside the same loop, so each
// op reads X once and writes Y once. erf and tanh come from vector_math.h (the erf form from
// vector_math_avx512.h on machines that run AVX-512).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

enum class Form { kErf, kTanh };

template <Form kForm>
KILN_VMATH_INLINE float GeluOf(float x) {
  if constexpr (kForm == Form::kTanh) {
    const float k = static_cast<float>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);  // √(2/π)
    return 0.5f * x * (1.0f + TanhF(k * (x + 0.044715f * x * x * x)));
  } else {
    return 0.5f * x * (1.0f + ErfF(x * static_cast<float>(std::numbers::sqrt2 / 2)));
  }
}

// y[i] = Gelu(x[i] (+ b[i])) over n elements; b may be null.
template <Form kForm>
KILN_VECTOR_CLONES void GeluRowLoop(const float* x, const float* b, float* y, size_t n) {
  if (b == nullptr) {
    for (size_t i = 0; i < n; ++i) y[i] = GeluOf<kForm>(x[i]);
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = GeluOf<kForm>(x[i] + b[i]);
  }
}

// GeluRowLoop, or its AVX-512 version for the erf form where the machine runs it.
template <Form kForm>
void GeluRow(const float* x, const float* b, float* y, size_t n) {
  if (kForm == Form::kErf && UseVectorMathAvx512()) {
    GeluErfRowAvx512(x, b, y, n);
  } else {
    GeluRowLoop<kForm>(x, b, y, n);
  }
}

// `bias_input`: the index of the bias input (0 for none); `bias_required` for BiasGelu's B.
template <Form kForm>
class GeluKernel final : public Kernel {
 public:
  GeluKernel(const KernelInfo&, size_t bias_input, bool bias_required, const char* x_name,
             const char* bias_name)
      : bias_input_(bias_input),
        bias_required_(bias_required),
        x_name_(x_name),
        bias_name_(bias_name) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* bias = bias_input_ == 0 ? nullptr
                         : bias_required_ ? &ctx.Input(bias_input_)
                                          : ctx.OptionalInput(bias_input_);
    if (x.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kNotImplemented, std::string("input '") + x_name_ + "' is " +
                                                DataTypeName(x.type()) +
                                                "; only float is supported");
    }
    size_t width = 0;
    if (bias != nullptr) {
      const std::vector<int64_t>& dims = x.shape().dims();
      if (bias->type() != x.type()) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + bias_name_ + "' is " +
                                                   DataTypeName(bias->type()) + " but input '" +
                                                   x_name_ + "' is " + DataTypeName(x.type()));
      }
      if (dims.empty() || bias->shape().rank() != 1 || bias->shape().dims()[0] != dims.back()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + bias_name_ + "' has shape " + bias->shape().ToString() +
                      "; it must be 1-D of the last dimension of input '" + x_name_ + "' " +
                      x.shape().ToString());
      }
      width = static_cast<size_t>(dims.back());
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const size_t count = x.element_count();
    if (count == 0) return;
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    constexpr size_t kGrain = 16384;  // elements per task: enough to pay for handing it out
    if (bias == nullptr) {
      ctx.threads().ParallelFor(count, kGrain, [&](size_t begin, size_t end) {
        GeluRow<kForm>(xp + begin, nullptr, yp + begin, end - begin);
      });
      return;
    }
    const auto* bp = static_cast<const float*>(bias->data());
    const size_t rows = count / width;
    ctx.threads().ParallelFor(rows, std::max<size_t>(1, kGrain / width),
                              [&](size_t begin, size_t end) {
                                for (size_t r = begin; r < end; ++r) {
                                  GeluRow<kForm>(xp + r * width, bp, yp + r * width, width);
                                }
                              });
  }

 private:
  size_t bias_input_;
  bool bias_required_;
  const char* x_name_;
  const char* bias_name_;
};

KILN_VECTOR_CLONES void QuickGeluRow(const float* x, float* y, size_t n, float alpha) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * SigmoidF(alpha * x[i]);
}

class QuickGelu final : public Kernel {
 public:
  explicit QuickGelu(const KernelInfo& info) : alpha_(info.GetFloat("alpha", 1.702f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    if (x.type() != DataType::kFloat) {
      ctx.info().Fail(
          ErrorCode::kNotImplemented,
          std::string("input 'X' is ") + DataTypeName(x.type()) + "; only float is supported");
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    ctx.threads().ParallelFor(x.element_count(), 16384, [&](size_t begin, size_t end) {
      QuickGeluRow(xp + begin, yp + begin, end - begin, alpha_);
    });
  }

 private:
  float alpha_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQuickGelu(const KernelInfo& info) {
  return Make<QuickGelu>(info);
}
std::unique_ptr<Kernel> MakeContribGelu(const KernelInfo& info) {
  return std::make_unique<GeluKernel<Form::kErf>>(info, 0, false, "X", "");
}
std::unique_ptr<Kernel> MakeFastGelu(const KernelInfo& info) {
  return std::make_unique<GeluKernel<Form::kTanh>>(info, 1, false, "X", "bias");
}
std::unique_ptr<Kernel> MakeBiasGelu(const KernelInfo& info) {
  return std::make_unique<GeluKernel<Form::kErf>>(info, 1, true, "A", "B");
}

}  // namespace kiln::cpu
