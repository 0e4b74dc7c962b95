// The ai.onnx.preview.training optimizers (opset 1), one update step over n tensors at once:
//   Adagrad  inputs R, T, X1..Xn, G1..Gn, H1..Hn        → X1_new..Xn_new, H1_new..Hn_new
//   Adam     inputs R, T, X1..Xn, G1..Gn, V1..Vn, H1..Hn → X_new.., V_new.., H_new..
//   Momentum inputs R, T, X1..Xn, G1..Gn, V1..Vn        → X_new.., V_new.. (standard, nesterov)
// R is the scalar learning rate (float or double), T the scalar int64 update count; X, G and the
// state tensors of one group share a shape and the element type (float or double). The updates
// follow the ONNX operator definitions; arithmetic runs in the element type, as the reference does.
#include <cmath>
#include <string>

#include "kernels/cpu/training/training_kernels.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// The learning rate R as double: a one-element float or double tensor.
double ReadRate(const KernelInfo& info, const Tensor& r) {
  if (r.element_count() != 1 || r.shape().rank() > 1) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'R' must be a scalar, not shape " + r.shape().ToString());
  }
  if (r.type() == DataType::kFloat) return *static_cast<const float*>(r.data());
  if (r.type() == DataType::kDouble) return *static_cast<const double*>(r.data());
  info.Fail(ErrorCode::kInvalidArgument,
            std::string("input 'R' must be float or double, not ") + DataTypeName(r.type()));
}

int64_t ReadCount(const KernelInfo& info, const Tensor& t) {
  if (t.element_count() != 1 || t.shape().rank() > 1 || t.type() != DataType::kInt64) {
    info.Fail(ErrorCode::kInvalidArgument, "input 'T' must be an int64 scalar, not " +
                                               std::string(DataTypeName(t.type())) + " of shape " +
                                               t.shape().ToString());
  }
  return *static_cast<const int64_t*>(t.data());
}

// The shared checks of one group: `groups` state kinds after X (G, then H or V, H), each input
// with X's type and shape. Returns how many tensors are optimized (n).
size_t CheckGroups(const KernelContext& ctx, size_t groups, const char* const* names) {
  const KernelInfo& info = ctx.info();
  const size_t inputs = ctx.input_count();
  const size_t kinds = groups + 1;  // X plus the state kinds
  if (inputs < 2 + kinds || (inputs - 2) % kinds != 0) {
    info.Fail(ErrorCode::kInvalidArgument, "expects R, T and " + std::to_string(kinds) +
                                               " groups of equally many inputs, got " +
                                               std::to_string(inputs) + " inputs");
  }
  const size_t n = (inputs - 2) / kinds;
  if (ctx.output_count() != groups * n) {
    info.Fail(ErrorCode::kInvalidArgument, std::to_string(n) + " tensors to optimize need " +
                                               std::to_string(groups * n) + " outputs, got " +
                                               std::to_string(ctx.output_count()));
  }
  for (size_t i = 0; i < n; ++i) {
    const Tensor& x = ctx.Input(2 + i);
    if (x.type() != DataType::kFloat && x.type() != DataType::kDouble) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X" + std::to_string(i + 1) +
                                                 "' must be float or double, not " +
                                                 DataTypeName(x.type()));
    }
    for (size_t k = 1; k < kinds; ++k) {
      const Tensor& s = ctx.Input(2 + k * n + i);
      if (s.type() != x.type() || s.shape() != x.shape()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input '" + std::string(names[k - 1]) + std::to_string(i + 1) + "' (" +
                      DataTypeName(s.type()) + " " + s.shape().ToString() +
                      ") must have the type and shape of 'X" + std::to_string(i + 1) + "' (" +
                      DataTypeName(x.type()) + " " + x.shape().ToString() + ")");
      }
    }
  }
  return n;
}

template <typename F>
void DispatchReal(DataType type, F&& f) {
  if (type == DataType::kFloat) {
    f(TypeTag<float>{});
  } else {
    f(TypeTag<double>{});
  }
}

class Adagrad final : public Kernel {
 public:
  explicit Adagrad(const KernelInfo& info)
      : decay_factor_(info.GetFloat("decay_factor", 0.0f)),
        epsilon_(info.GetFloat("epsilon", 0.0f)),
        norm_coefficient_(info.GetFloat("norm_coefficient", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    static const char* const kNames[] = {"G", "H"};
    const KernelInfo& info = ctx.info();
    const size_t n = CheckGroups(ctx, 2, kNames);
    const double rate = ReadRate(info, ctx.Input(0));
    const int64_t count = ReadCount(info, ctx.Input(1));
    for (size_t i = 0; i < n; ++i) {
      const Tensor& x = ctx.Input(2 + i);
      DispatchReal(x.type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T r = static_cast<T>(rate / (1.0 + static_cast<double>(count) * decay_factor_));
        const T* xp = static_cast<const T*>(x.data());
        const T* gp = static_cast<const T*>(ctx.Input(2 + n + i).data());
        const T* hp = static_cast<const T*>(ctx.Input(2 + 2 * n + i).data());
        T* xo = static_cast<T*>(ctx.OutputForOverwrite(i, x.type(), x.shape()).data());
        T* ho = static_cast<T*>(ctx.OutputForOverwrite(n + i, x.type(), x.shape()).data());
        const auto norm = static_cast<T>(norm_coefficient_);
        const auto eps = static_cast<T>(epsilon_);
        for (size_t j = 0, e = x.element_count(); j < e; ++j) {
          const T g = norm * xp[j] + gp[j];
          const T h = hp[j] + g * g;
          ho[j] = h;
          xo[j] = xp[j] - r * g / (std::sqrt(h) + eps);
        }
      });
    }
  }

 private:
  double decay_factor_;
  float epsilon_;
  float norm_coefficient_;
};

class Adam final : public Kernel {
 public:
  explicit Adam(const KernelInfo& info)
      : alpha_(info.GetFloat("alpha", 0.9f)),
        beta_(info.GetFloat("beta", 0.999f)),
        epsilon_(info.GetFloat("epsilon", 1e-6f)),
        norm_coefficient_(info.GetFloat("norm_coefficient", 0.0f)),
        norm_coefficient_post_(info.GetFloat("norm_coefficient_post", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    static const char* const kNames[] = {"G", "V", "H"};
    const KernelInfo& info = ctx.info();
    const size_t n = CheckGroups(ctx, 3, kNames);
    const double rate = ReadRate(info, ctx.Input(0));
    const int64_t count = ReadCount(info, ctx.Input(1));
    // Bias correction of both moments folded into the rate, from the first step on.
    const double adjusted =
        count > 0 ? rate * std::sqrt(1.0 - std::pow(static_cast<double>(beta_), count)) /
                        (1.0 - std::pow(static_cast<double>(alpha_), count))
                  : rate;
    for (size_t i = 0; i < n; ++i) {
      const Tensor& x = ctx.Input(2 + i);
      DispatchReal(x.type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto r = static_cast<T>(adjusted);
        const T* xp = static_cast<const T*>(x.data());
        const T* gp = static_cast<const T*>(ctx.Input(2 + n + i).data());
        const T* vp = static_cast<const T*>(ctx.Input(2 + 2 * n + i).data());
        const T* hp = static_cast<const T*>(ctx.Input(2 + 3 * n + i).data());
        T* xo = static_cast<T*>(ctx.OutputForOverwrite(i, x.type(), x.shape()).data());
        T* vo = static_cast<T*>(ctx.OutputForOverwrite(n + i, x.type(), x.shape()).data());
        T* ho = static_cast<T*>(ctx.OutputForOverwrite(2 * n + i, x.type(), x.shape()).data());
        const auto alpha = static_cast<T>(alpha_);
        const auto beta = static_cast<T>(beta_);
        const auto eps = static_cast<T>(epsilon_);
        const auto norm = static_cast<T>(norm_coefficient_);
        const auto post = static_cast<T>(norm_coefficient_post_);
        for (size_t j = 0, e = x.element_count(); j < e; ++j) {
          const T g = norm * xp[j] + gp[j];
          const T v = alpha * vp[j] + (T(1) - alpha) * g;
          const T h = beta * hp[j] + (T(1) - beta) * (g * g);
          vo[j] = v;
          ho[j] = h;
          xo[j] = (T(1) - post) * (xp[j] - r * (v / (std::sqrt(h) + eps)));
        }
      });
    }
  }

 private:
  float alpha_;
  float beta_;
  float epsilon_;
  float norm_coefficient_;
  float norm_coefficient_post_;
};

class Momentum final : public Kernel {
 public:
  explicit Momentum(const KernelInfo& info)
      : alpha_(RequireFloat(info, "alpha")),
        beta_(RequireFloat(info, "beta")),
        norm_coefficient_(RequireFloat(info, "norm_coefficient")) {
    const std::string mode = info.GetString("mode", "");
    if (mode != "standard" && mode != "nesterov") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'mode' must be \"standard\" or \"nesterov\", not \"" + mode + "\"");
    }
    nesterov_ = mode == "nesterov";
  }

  void Compute(KernelContext& ctx) const override {
    static const char* const kNames[] = {"G", "V"};
    const KernelInfo& info = ctx.info();
    const size_t n = CheckGroups(ctx, 2, kNames);
    const double rate = ReadRate(info, ctx.Input(0));
    const int64_t count = ReadCount(info, ctx.Input(1));
    for (size_t i = 0; i < n; ++i) {
      const Tensor& x = ctx.Input(2 + i);
      DispatchReal(x.type(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto r = static_cast<T>(rate);
        const T* xp = static_cast<const T*>(x.data());
        const T* gp = static_cast<const T*>(ctx.Input(2 + n + i).data());
        const T* vp = static_cast<const T*>(ctx.Input(2 + 2 * n + i).data());
        T* xo = static_cast<T*>(ctx.OutputForOverwrite(i, x.type(), x.shape()).data());
        T* vo = static_cast<T*>(ctx.OutputForOverwrite(n + i, x.type(), x.shape()).data());
        const auto alpha = static_cast<T>(alpha_);
        // The first step (T = 0) takes the whole gradient, later ones scale it by beta.
        const auto beta = count > 0 ? static_cast<T>(beta_) : T(1);
        const auto norm = static_cast<T>(norm_coefficient_);
        for (size_t j = 0, e = x.element_count(); j < e; ++j) {
          const T g = norm * xp[j] + gp[j];
          const T v = alpha * vp[j] + beta * g;
          vo[j] = v;
          xo[j] = nesterov_ ? xp[j] - r * (g + alpha * v) : xp[j] - r * v;
        }
      });
    }
  }

 private:
  static float RequireFloat(const KernelInfo& info, const char* name) {
    if (!info.HasAttribute(name)) {
      info.Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + name + "' is required");
    }
    return info.GetFloat(name, 0.0f);
  }

  float alpha_;
  float beta_;
  float norm_coefficient_;
  bool nesterov_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeAdagrad(const KernelInfo& info) {
  return Make<Adagrad>(info);
}
std::unique_ptr<Kernel> MakeAdam(const KernelInfo& info) {
  return Make<Adam>(info);
}
std::unique_ptr<Kernel> MakeMomentum(const KernelInfo& info) {
  return Make<Momentum>(info);
}

}  // namespace kiln::cpu
