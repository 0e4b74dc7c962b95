// FusedGemm (com.microsoft, opset 1), float and double: Gemm followed by an activation, what ONNX
// Runtime's Gemm+activation fusion writes into the models it saves (level "extended" and up).
//   Y = act(alpha · op(A) · op(B) + beta · C), op(X) = X or Xᵀ (transA, transB); A and B 2-D; C
//   (optional) broadcasts to [M, N] as Gemm's does.
//   activation: Relu, LeakyRelu (activation_alpha, 0.01), Tanh, Sigmoid, HardSigmoid
//   (activation_alpha 0.2, activation_beta 0.5), Elu (alpha 1), Selu (alpha 1.67326, gamma
//   1.0507), Softsign, Softplus, ThresholdedRelu (alpha 1), ScaledTanh (alpha, beta: 1),
//   ParametricSoftplus (alpha, beta: 1), or none. leaky_relu_alpha is the older name of
//   LeakyRelu's alpha.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

enum class Act {
  kNone,
  kRelu,
  kLeakyRelu,
  kTanh,
  kSigmoid,
  kHardSigmoid,
  kElu,
  kSelu,
  kSoftsign,
  kSoftplus,
  kThresholdedRelu,
  kScaledTanh,
  kParametricSoftplus
};

class FusedGemm final : public Kernel {
 public:
  explicit FusedGemm(const KernelInfo& info)
      : alpha_(info.GetFloat("alpha", 1.0f)),
        beta_(info.GetFloat("beta", 1.0f)),
        trans_a_(info.GetInt("transA", 0) != 0),
        trans_b_(info.GetInt("transB", 0) != 0) {
    const std::string name = info.GetString("activation", "");
    const auto param = [&](const char* attr, float fallback) {
      return info.GetFloat(attr, fallback);
    };
    if (name.empty()) {
      act_ = Act::kNone;
    } else if (name == "Relu") {
      act_ = Act::kRelu;
    } else if (name == "LeakyRelu") {
      act_ = Act::kLeakyRelu;
      a_ = param("activation_alpha", param("leaky_relu_alpha", 0.01f));
    } else if (name == "Tanh") {
      act_ = Act::kTanh;
    } else if (name == "Sigmoid") {
      act_ = Act::kSigmoid;
    } else if (name == "HardSigmoid") {
      act_ = Act::kHardSigmoid;
      a_ = param("activation_alpha", 0.2f);
      b_ = param("activation_beta", 0.5f);
    } else if (name == "Elu") {
      act_ = Act::kElu;
      a_ = param("activation_alpha", 1.0f);
    } else if (name == "Selu") {
      act_ = Act::kSelu;
      a_ = param("activation_alpha", 1.67326319217681884765625f);
      b_ = param("activation_gamma", 1.05070102214813232421875f);
    } else if (name == "Softsign") {
      act_ = Act::kSoftsign;
    } else if (name == "Softplus") {
      act_ = Act::kSoftplus;
    } else if (name == "ThresholdedRelu") {
      act_ = Act::kThresholdedRelu;
      a_ = param("activation_alpha", 1.0f);
    } else if (name == "ScaledTanh") {
      act_ = Act::kScaledTanh;
      a_ = param("activation_alpha", 1.0f);
      b_ = param("activation_beta", 1.0f);
    } else if (name == "ParametricSoftplus") {
      act_ = Act::kParametricSoftplus;
      a_ = param("activation_alpha", 1.0f);
      b_ = param("activation_beta", 1.0f);
    } else {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'activation' is '" + name +
                    "'; expected Relu, LeakyRelu, Tanh, Sigmoid, HardSigmoid, Elu, Selu, Softsign, "
                    "Softplus, ThresholdedRelu, ScaledTanh or ParametricSoftplus (or none)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& a = ctx.Input(0);
    const Tensor& b = ctx.Input(1);
    const Tensor* c = ctx.OptionalInput(2);
    if (a.type() != DataType::kFloat && a.type() != DataType::kDouble) {
      info.Fail(ErrorCode::kNotImplemented, std::string("input 'A' is ") + DataTypeName(a.type()) +
                                                "; only float and double are supported");
    }
    for (const auto& [t, name] : {std::pair{&b, "B"}, std::pair{c, "C"}}) {
      if (t != nullptr && t->type() != a.type()) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                   DataTypeName(t->type()) + " but input 'A' is " +
                                                   DataTypeName(a.type()));
      }
    }
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      info.Fail(ErrorCode::kInvalidArgument, "inputs 'A' " + a.shape().ToString() + " and 'B' " +
                                                 b.shape().ToString() + " must be 2-D");
    }
    const int64_t m = a.shape().dims()[trans_a_ ? 1 : 0];
    const int64_t k = a.shape().dims()[trans_a_ ? 0 : 1];
    const int64_t kb = b.shape().dims()[trans_b_ ? 1 : 0];
    const int64_t n = b.shape().dims()[trans_b_ ? 0 : 1];
    if (k != kb) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'A' " + a.shape().ToString() + " (transA " + std::to_string(trans_a_) +
                    ") and 'B' " + b.shape().ToString() + " (transB " + std::to_string(trans_b_) +
                    ") have inner dimensions " + std::to_string(k) + " and " + std::to_string(kb));
    }
    int64_t c_rows = 1;
    int64_t c_cols = 1;
    if (c != nullptr) {
      const std::vector<int64_t>& cd = c->shape().dims();
      if (cd.size() > 2) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'C' has shape " + c->shape().ToString() +
                                                   "; it must broadcast to [" + std::to_string(m) +
                                                   ", " + std::to_string(n) + "]");
      }
      c_cols = cd.empty() ? 1 : cd.back();
      c_rows = cd.size() == 2 ? cd[0] : 1;
      if ((c_rows != 1 && c_rows != m) || (c_cols != 1 && c_cols != n)) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'C' has shape " + c->shape().ToString() +
                                                   "; it must broadcast to [" + std::to_string(m) +
                                                   ", " + std::to_string(n) + "]");
      }
    }
    const int64_t out_dims[] = {m, n};
    Tensor& y = ctx.OutputForOverwrite(0, a.type(), out_dims);
    if (m == 0 || n == 0) return;
    Dispatch<float, double>(a.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* yp = static_cast<T*>(y.data());
      const auto M = static_cast<size_t>(m);
      const auto N = static_cast<size_t>(n);
      T beta = 0;
      if (c != nullptr && beta_ != 0.0f) {
        const T* cp = static_cast<const T*>(c->data());
        for (size_t i = 0; i < M; ++i) {
          for (size_t j = 0; j < N; ++j) {
            yp[i * N + j] =
                cp[(c_rows == 1 ? 0 : i) * static_cast<size_t>(c_cols) + (c_cols == 1 ? 0 : j)];
          }
        }
        beta = static_cast<T>(beta_);
      }
      Gemm<T>(trans_a_, trans_b_, M, N, static_cast<size_t>(k), static_cast<T>(alpha_),
              static_cast<const T*>(a.data()), trans_a_ ? M : static_cast<size_t>(k),
              static_cast<const T*>(b.data()), trans_b_ ? static_cast<size_t>(k) : N, beta, yp, N,
              &ctx.threads());
      if (act_ != Act::kNone) {
        ctx.threads().ParallelFor(M * N, 16384, [&](size_t begin, size_t end) {
          for (size_t i = begin; i < end; ++i) yp[i] = Activate(yp[i]);
        });
      }
    });
  }

 private:
  template <typename T>
  T Activate(T x) const {
    const T a = static_cast<T>(a_);
    const T b = static_cast<T>(b_);
    switch (act_) {
      case Act::kNone:
        return x;
      case Act::kRelu:
        return std::max(x, T(0));
      case Act::kLeakyRelu:
        return x >= 0 ? x : a * x;
      case Act::kTanh:
        return std::tanh(x);
      case Act::kSigmoid:
        return T(1) / (T(1) + std::exp(-x));
      case Act::kHardSigmoid:
        return std::clamp(a * x + b, T(0), T(1));
      case Act::kElu:
        return x >= 0 ? x : a * std::expm1(x);
      case Act::kSelu:
        return x > 0 ? b * x : b * (a * std::exp(x) - a);
      case Act::kSoftsign:
        return x / (T(1) + std::fabs(x));
      case Act::kSoftplus:
        return std::max(x, T(0)) + std::log1p(std::exp(-std::fabs(x)));
      case Act::kThresholdedRelu:
        return x > a ? x : T(0);
      case Act::kScaledTanh:
        return a * std::tanh(b * x);
      case Act::kParametricSoftplus: {
        const T v = b * x;
        return a * (std::max(v, T(0)) + std::log1p(std::exp(-std::fabs(v))));
      }
    }
    return x;
  }

  float alpha_;
  float beta_;
  bool trans_a_;
  bool trans_b_;
  Act act_ = Act::kNone;
  float a_ = 0.0f;
  float b_ = 0.0f;
};

}  // namespace

std::unique_ptr<Kernel> MakeFusedGemm(const KernelInfo& info) {
  return Make<FusedGemm>(info);
}

}  // namespace kiln::cpu
