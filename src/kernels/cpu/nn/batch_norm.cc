// BatchNormalization in inference mode, opsets 1–23 (versions 1, 6, 7, 9, 14, 15):
//   Y = (X - mean) / sqrt(var + epsilon) * scale + B, per channel of X [N, C, D1, ...].
// Version 1 (consumed_inputs, ignored; is_test; spatial), 6 (is_test, spatial), 7 (spatial):
// spatial = 0 takes scale, B, mean and var per element of X's [C, D1, ...]. Training is not
// implemented: training_mode = 1 (opsets 14, 15), or the mean/var/saved outputs before opset 14
// (with is_test = 0 before opset 7), are kNotImplemented when the kernel is created. A node with
// is_test = 0 and only the Y output runs in inference mode.
// Types: X float, double, float16 or bfloat16 (bfloat16 from opset 14); scale, B, mean and var of
// X's type before opset 14, mean and var of one float type at opset 14, and scale/B of one type and
// mean/var of one type at opset 15. float16 and bfloat16 compute in float.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

constexpr const char* kParamNames[] = {"scale", "B", "mean", "var"};

class BatchNormalization final : public Kernel {
 public:
  explicit BatchNormalization(const KernelInfo& info)
      : epsilon_(static_cast<double>(info.GetFloat("epsilon", 1e-5f))) {
    const int64_t opset = info.opset();
    bool extra_outputs = false;
    for (size_t i = 1; i < info.output_count(); ++i) extra_outputs |= info.HasOutput(i);
    if (opset >= 14) {
      if (info.GetInt("training_mode", 0) != 0) {
        info.Fail(ErrorCode::kNotImplemented,
                  "training_mode=1 is not implemented (inference only)");
      }
      if (extra_outputs) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "outputs 'running_mean' and 'running_var' exist only with training_mode=1");
      }
    } else if (extra_outputs && opset < 7 && info.GetInt("is_test", 0) != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "outputs mean, var, saved_mean and saved_var exist only in training mode, not "
                "with is_test=1");
    } else if (extra_outputs) {
      info.Fail(ErrorCode::kNotImplemented,
                "training mode (outputs mean, var, saved_mean, saved_var) is not implemented "
                "(inference only)");
    }
    spatial_ = opset >= 9 || info.GetInt("spatial", 1) != 0;
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* params[4] = {&ctx.Input(1), &ctx.Input(2), &ctx.Input(3), &ctx.Input(4)};
    CheckTypes(info, x, params);
    const Shape& shape = x.shape();
    if (shape.rank() < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + shape.ToString() +
                                                 "; it needs rank 2 or more (N, C, ...)");
    }
    const std::vector<int64_t> param_dims =
        spatial_ ? std::vector<int64_t>{shape.dims()[1]}
                 : std::vector<int64_t>(shape.dims().begin() + 1, shape.dims().end());
    for (size_t i = 0; i < 4; ++i) {
      if (params[i]->shape().dims() != param_dims) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + kParamNames[i] + "' has shape " +
                      params[i]->shape().ToString() + "; expected " + Shape(param_dims).ToString() +
                      (spatial_ ? " (one per channel of X " : " (spatial=0: X's shape past N ") +
                      shape.ToString() + ")");
      }
    }
    // Y = X * mul + add, per parameter element.
    std::vector<double> mul = nn::ReadAsDouble(info, *params[0], "scale");
    std::vector<double> add = nn::ReadAsDouble(info, *params[1], "B");
    const std::vector<double> mean = nn::ReadAsDouble(info, *params[2], "mean");
    const std::vector<double> var = nn::ReadAsDouble(info, *params[3], "var");
    for (size_t i = 0; i < mul.size(); ++i) {
      mul[i] /= std::sqrt(var[i] + epsilon_);
      add[i] -= mean[i] * mul[i];
    }

    Tensor& y = ctx.Output(0, x.type(), shape);
    if (y.element_count() == 0) return;
    const size_t batch = static_cast<size_t>(shape.dims()[0]);
    const size_t block = x.element_count() / batch;            // elements per batch entry
    const size_t run = spatial_ ? block / mul.size() : block;  // elements sharing one parameter
    const size_t runs = batch * (block / run);
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = nn::AccOf<T>;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / run);
      ctx.threads().ParallelFor(runs, grain, [&](size_t begin, size_t end) {
        for (size_t r = begin; r < end; ++r) {
          const T* in = src + r * run;
          T* out = dst + r * run;
          if (spatial_) {
            const size_t c = r % mul.size();
            const auto m = static_cast<Acc>(mul[c]);
            const auto a = static_cast<Acc>(add[c]);
            for (size_t i = 0; i < run; ++i) out[i] = nn::Store<T>(nn::Load(in[i]) * m + a);
          } else {
            for (size_t i = 0; i < run; ++i) {
              out[i] = nn::Store<T>(nn::Load(in[i]) * static_cast<Acc>(mul[i]) +
                                    static_cast<Acc>(add[i]));
            }
          }
        }
      });
    });
  }

 private:
  static void CheckTypes(const KernelInfo& info, const Tensor& x, const Tensor* const* params) {
    const int64_t opset = info.opset();
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 14);
    const auto same = [&](size_t i, const Tensor& want, const char* want_name) {
      if (params[i]->type() != want.type()) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + kParamNames[i] +
                                                   "' has type " + DataTypeName(params[i]->type()) +
                                                   " but input '" + want_name + "' has " +
                                                   DataTypeName(want.type()));
      }
    };
    if (opset < 14) {
      for (size_t i = 0; i < 4; ++i) same(i, x, "X");
    } else if (opset == 14) {
      same(0, x, "X");
      same(1, x, "X");
      same(3, *params[2], "mean");
    } else {
      same(1, *params[0], "scale");
      same(3, *params[2], "mean");
    }
  }

  double epsilon_;
  bool spatial_ = true;
};

}  // namespace

std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInfo& info) {
  return Make<BatchNormalization>(info);
}

}  // namespace kiln::cpu
