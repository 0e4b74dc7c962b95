// BatchNormalization, opsets 1–23 (versions 1, 6, 7, 9, 14, 15), per channel of X [N, C, D1, ...]:
//   inference: Y = (X - mean) / sqrt(var + epsilon) * scale + B with the given mean and var.
//   training: the same with the batch's mean and (population) variance over N, D1, ... of each
//     channel, and running_mean = mean * momentum + batch_mean * (1 - momentum) (likewise
//     running_var; momentum default 0.9), as the ONNX reference computes them.
// Training is training_mode = 1 at opsets 14 and 15 (outputs Y, running_mean, running_var, the
// last two optional and only allowed in training), and before opset 14 a node that asks for any of
// the outputs mean, var (the running statistics), saved_mean and saved_var (the batch mean and
// variance); is_test = 1 (opsets 1, 6) with them is an error. A node with is_test = 0 and only the
// Y output runs in inference mode (as ONNX Runtime does).
// Version 1 (consumed_inputs, ignored; is_test; spatial), 6 (is_test, spatial), 7 (spatial):
// spatial = 0 takes scale, B, mean and var (and gives the statistics) per element of X's
// [C, D1, ...].
// Types: X float, double, float16 or bfloat16 (bfloat16 from opset 14); scale, B, mean and var of
// X's type before opset 14, mean and var of one float type at opset 14, and scale/B of one type and
// mean/var of one type at opset 15; the statistics outputs have the type of mean. float16 and
// bfloat16 compute in float; batch statistics accumulate in double.
#include <algorithm>
#include <cmath>
#include <span>
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
      : epsilon_(static_cast<double>(info.GetFloat("epsilon", 1e-5f))),
        momentum_(static_cast<double>(info.GetFloat("momentum", 0.9f))) {
    const int64_t opset = info.opset();
    bool extra_outputs = false;
    for (size_t i = 1; i < info.output_count(); ++i) extra_outputs |= info.HasOutput(i);
    if (opset >= 14) {
      training_ = info.GetInt("training_mode", 0) != 0;
      if (extra_outputs && !training_) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "outputs 'running_mean' and 'running_var' exist only with training_mode=1");
      }
    } else if (extra_outputs && opset < 7 && info.GetInt("is_test", 0) != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "outputs mean, var, saved_mean and saved_var exist only in training mode, not "
                "with is_test=1");
    } else {
      training_ = extra_outputs;
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
    const std::span<const int64_t> x_dims(shape.dims());
    const std::span<const int64_t> param_dims = spatial_ ? x_dims.subspan(1, 1) : x_dims.subspan(1);
    for (size_t i = 0; i < 4; ++i) {
      const std::vector<int64_t>& dims = params[i]->shape().dims();
      if (!std::equal(dims.begin(), dims.end(), param_dims.begin(), param_dims.end())) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + kParamNames[i] + "' has shape " +
                      params[i]->shape().ToString() + "; expected " +
                      Shape(std::vector<int64_t>(param_dims.begin(), param_dims.end())).ToString() +
                      (spatial_ ? " (one per channel of X " : " (spatial=0: X's shape past N ") +
                      shape.ToString() + ")");
      }
    }
    // Y = X * mul + add, per parameter element.
    const size_t count = params[0]->element_count();
    double* mul = ctx.Scratch<double>(count);
    double* add = ctx.Scratch<double>(count);
    double* mean = ctx.Scratch<double>(count);
    double* var = ctx.Scratch<double>(count);
    nn::ReadAsDouble(info, *params[0], "scale", mul);
    nn::ReadAsDouble(info, *params[1], "B", add);
    nn::ReadAsDouble(info, *params[2], "mean", mean);
    nn::ReadAsDouble(info, *params[3], "var", var);
    if (training_) Train(ctx, x, params[2]->type(), count, mean, var);
    for (size_t i = 0; i < count; ++i) {
      mul[i] /= std::sqrt(var[i] + epsilon_);
      add[i] -= mean[i] * mul[i];
    }

    Tensor& y = ctx.OutputForOverwrite(0, x.type(), shape);
    if (y.element_count() == 0) return;
    const size_t batch = static_cast<size_t>(shape.dims()[0]);
    const size_t block = x.element_count() / batch;       // elements per batch entry
    const size_t run = spatial_ ? block / count : block;  // elements sharing one parameter
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
            const size_t c = r % count;
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
  // Training: replaces mean and var (the inputs, `channels` values each) by the batch's
  // statistics, writing the running statistics (and before opset 14 the saved ones) to the outputs
  // asked for, in `stats_type`.
  void Train(KernelContext& ctx, const Tensor& x, DataType stats_type, size_t channels,
             double*& mean, double*& var) const {
    const KernelInfo& info = ctx.info();
    const size_t batch = static_cast<size_t>(x.shape().dims()[0]);
    const size_t inner = batch == 0 ? 0 : x.element_count() / batch / channels;
    if (batch * inner == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() +
                    "; training mode needs at least one value per " +
                    (spatial_ ? "channel" : "element of [C, D1, ...]"));
    }
    double* values = ctx.Scratch<double>(x.element_count());
    nn::ReadAsDouble(info, x, "X", values);
    double* batch_mean = ctx.Scratch<double>(channels);
    double* batch_var = ctx.Scratch<double>(channels);
    ctx.threads().ParallelFor(channels, 1, [&](size_t begin, size_t end) {
      for (size_t c = begin; c < end; ++c) {
        double sum = 0;
        for (size_t n = 0; n < batch; ++n) {
          const double* row = values + (n * channels + c) * inner;
          for (size_t i = 0; i < inner; ++i) sum += row[i];
        }
        const double m = sum / static_cast<double>(batch * inner);
        double squares = 0;
        for (size_t n = 0; n < batch; ++n) {
          const double* row = values + (n * channels + c) * inner;
          for (size_t i = 0; i < inner; ++i) squares += (row[i] - m) * (row[i] - m);
        }
        batch_mean[c] = m;
        batch_var[c] = squares / static_cast<double>(batch * inner);
      }
    });
    const Shape& stats_shape = ctx.Input(3).shape();
    const auto write = [&](size_t output, const double* v) {
      if (!ctx.WantsOutput(output)) return;
      Tensor& t = ctx.Output(output, stats_type, stats_shape);
      Dispatch<float, double, Float16, BFloat16>(stats_type, info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        nn::ConvertValues(v, static_cast<T*>(t.data()), channels);
      });
    };
    double* running_mean = ctx.Scratch<double>(channels);
    double* running_var = ctx.Scratch<double>(channels);
    for (size_t c = 0; c < channels; ++c) {
      running_mean[c] = mean[c] * momentum_ + batch_mean[c] * (1 - momentum_);
      running_var[c] = var[c] * momentum_ + batch_var[c] * (1 - momentum_);
    }
    write(1, running_mean);
    write(2, running_var);
    if (info.opset() < 14) {
      write(3, batch_mean);
      write(4, batch_var);
    }
    mean = batch_mean;
    var = batch_var;
  }

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
  double momentum_;
  bool training_ = false;
  bool spatial_ = true;
};

}  // namespace

std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInfo& info) {
  return Make<BatchNormalization>(info);
}

}  // namespace kiln::cpu
