// Losses (opsets 12+; bfloat16 from 22 is accepted at every opset):
//   NegativeLogLikelihoodLoss(input [N, C, d1…], target [N, d1…], weight [C]?):
//     loss[n, d…] = -input[n, target[n, d…], d…] * weight[target[n, d…]];
//   SoftmaxCrossEntropyLoss(scores [N, C, d1…], labels [N, d1…], weights [C]?) -> (output,
//     log_prob?): the same loss over log_prob = log_softmax(scores) along C, log_prob also an
//     optional second output.
//   reduction "none" keeps the [N, d1…] losses; "sum" adds them; "mean" divides the sum by the
//   sum of the weights of the targets counted (their count without `weight`). A target equal to
//   `ignore_index` gives 0 and counts for nothing. Any other target outside [0, C) is an error.
// Types: float, double, Float16, BFloat16 (through float); targets int32 or int64. Sums run in
// double.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

enum class Reduction { kNone, kSum, kMean };

Reduction ParseReduction(const KernelInfo& info) {
  const std::string r = info.GetString("reduction", "mean");
  if (r == "none") return Reduction::kNone;
  if (r == "sum") return Reduction::kSum;
  if (r == "mean") return Reduction::kMean;
  info.Fail(ErrorCode::kInvalidGraph,
            "attribute 'reduction' is \"" + r + "\"; expected \"none\", \"sum\" or \"mean\"");
}

// The checked layout of (input [N, C, d…], target [N, d…], weight [C]?) for both losses.
struct LossShape {
  size_t n = 0;      // batch
  size_t c = 0;      // classes
  size_t inner = 0;  // product of d…
  SmallVector<int64_t> target_dims;
};

LossShape CheckShapes(const KernelInfo& info, const Tensor& input, const char* input_name,
                      const Tensor& target, const char* target_name, const Tensor* weight,
                      const char* weight_name) {
  const std::vector<int64_t>& in = input.shape().dims();
  const std::vector<int64_t>& t = target.shape().dims();
  if (in.size() < 2) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + input_name + "' has shape " +
                                               input.shape().ToString() +
                                               "; it needs rank 2 or more (N, C, d1, ...)");
  }
  bool match = t.size() + 1 == in.size() && t[0] == in[0];
  for (size_t i = 1; match && i < t.size(); ++i) match = t[i] == in[i + 1];
  if (!match) {
    info.Fail(ErrorCode::kInvalidArgument,
              std::string("input '") + target_name + "' has shape " + target.shape().ToString() +
                  "; expected '" + input_name + "''s shape " + input.shape().ToString() +
                  " without its class axis 1");
  }
  if (target.type() != DataType::kInt32 && target.type() != DataType::kInt64) {
    info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + target_name + "' is " +
                                               DataTypeName(target.type()) +
                                               "; it must be int32 or int64");
  }
  if (weight != nullptr) {
    if (weight->type() != input.type()) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + weight_name + "' is " +
                                                 DataTypeName(weight->type()) + " but '" +
                                                 input_name + "' is " + DataTypeName(input.type()));
    }
    if (weight->shape().rank() != 1 || weight->shape().dims()[0] != in[1]) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + weight_name + "' has shape " +
                                                 weight->shape().ToString() + "; expected [" +
                                                 std::to_string(in[1]) + "] (one per class)");
    }
  }
  LossShape s;
  s.n = static_cast<size_t>(in[0]);
  s.c = static_cast<size_t>(in[1]);
  // From the target, which has no class axis: C may be 0 while targets exist (and are then all
  // ignored or out of range).
  s.inner = s.n == 0 ? 0 : target.element_count() / s.n;
  s.target_dims = SmallVector<int64_t>(t);
  return s;
}

template <typename I>
int64_t TargetAt(const Tensor& target, size_t i) {
  return static_cast<int64_t>(static_cast<const I*>(target.data())[i]);
}

// Computes the loss of `logp` (the [N, C, d…] values whose negatives are losses, as double) into
// output 0. `logp_at(n, c, d)` reads one value.
template <typename T, typename LogpAt>
void WriteLoss(KernelContext& ctx, const LossShape& s, const Tensor& input, const Tensor& target,
               const char* target_name, const Tensor* weight, std::optional<int64_t> ignore_index,
               Reduction reduction, const LogpAt& logp_at) {
  const KernelInfo& info = ctx.info();
  const size_t count = s.n * s.inner;
  double* losses = ctx.Scratch<double>(count);
  double weight_sum = 0;
  const T* w = weight != nullptr ? static_cast<const T*>(weight->data()) : nullptr;
  const bool i64 = target.type() == DataType::kInt64;
  for (size_t n = 0; n < s.n; ++n) {
    for (size_t d = 0; d < s.inner; ++d) {
      const size_t i = n * s.inner + d;
      const int64_t label = i64 ? TargetAt<int64_t>(target, i) : TargetAt<int32_t>(target, i);
      if (ignore_index.has_value() && label == *ignore_index) {
        losses[i] = 0;
        continue;
      }
      if (label < 0 || static_cast<uint64_t>(label) >= s.c) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + target_name + "' holds " + std::to_string(label) +
                      " at flat index " + std::to_string(i) + ", outside [0, " +
                      std::to_string(s.c) + ") (and not ignore_index)");
      }
      const auto cls = static_cast<size_t>(label);
      const double wt = w != nullptr ? static_cast<double>(nn::Load(w[cls])) : 1.0;
      losses[i] = -logp_at(n, cls, d) * wt;
      weight_sum += wt;
    }
  }
  if (reduction == Reduction::kNone) {
    Tensor& y = ctx.OutputForOverwrite(0, input.type(), s.target_dims.span());
    T* out = static_cast<T*>(y.data());
    for (size_t i = 0; i < count; ++i) out[i] = nn::Store<T>(static_cast<nn::AccOf<T>>(losses[i]));
    return;
  }
  double sum = 0;
  for (size_t i = 0; i < count; ++i) sum += losses[i];
  // A mean over no counted target is 0/0: NaN, as numpy gives.
  const double value = reduction == Reduction::kSum ? sum : sum / weight_sum;
  Tensor& y = ctx.OutputForOverwrite(0, input.type(), std::span<const int64_t>());
  *static_cast<T*>(y.data()) = nn::Store<T>(static_cast<nn::AccOf<T>>(value));
}

class NegativeLogLikelihoodLoss final : public Kernel {
 public:
  explicit NegativeLogLikelihoodLoss(const KernelInfo& info) : reduction_(ParseReduction(info)) {
    if (info.HasAttribute("ignore_index")) ignore_index_ = info.GetInt("ignore_index", 0);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& input = ctx.Input(0);
    const Tensor& target = ctx.Input(1);
    const Tensor* weight = ctx.OptionalInput(2);
    const LossShape s = CheckShapes(info, input, "input", target, "target", weight, "weight");
    Dispatch<float, double, Float16, BFloat16>(input.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = static_cast<const T*>(input.data());
      WriteLoss<T>(ctx, s, input, target, "target", weight, ignore_index_, reduction_,
                   [&](size_t n, size_t c, size_t d) {
                     return static_cast<double>(nn::Load(x[(n * s.c + c) * s.inner + d]));
                   });
    });
  }

 private:
  Reduction reduction_;
  std::optional<int64_t> ignore_index_;
};

class SoftmaxCrossEntropyLoss final : public Kernel {
 public:
  explicit SoftmaxCrossEntropyLoss(const KernelInfo& info) : reduction_(ParseReduction(info)) {
    if (info.HasAttribute("ignore_index")) ignore_index_ = info.GetInt("ignore_index", 0);
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& scores = ctx.Input(0);
    const Tensor& labels = ctx.Input(1);
    const Tensor* weights = ctx.OptionalInput(2);
    const LossShape s = CheckShapes(info, scores, "scores", labels, "labels", weights, "weights");
    Dispatch<float, double, Float16, BFloat16>(scores.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = static_cast<const T*>(scores.data());
      const size_t total = s.n * s.c * s.inner;
      // log_softmax along C, kept in double for the loss and written out when wanted.
      double* logp = ctx.Scratch<double>(total);
      for (size_t n = 0; n < s.n; ++n) {
        for (size_t d = 0; d < s.inner; ++d) {
          const size_t base = n * s.c * s.inner + d;
          double max = -std::numeric_limits<double>::infinity();
          for (size_t c = 0; c < s.c; ++c) {
            max = std::fmax(max, static_cast<double>(nn::Load(x[base + c * s.inner])));
          }
          double sum = 0;
          for (size_t c = 0; c < s.c; ++c) {
            sum += std::exp(static_cast<double>(nn::Load(x[base + c * s.inner])) - max);
          }
          const double log_sum = std::log(sum) + max;
          for (size_t c = 0; c < s.c; ++c) {
            const size_t i = base + c * s.inner;
            logp[i] = static_cast<double>(nn::Load(x[i])) - log_sum;
          }
        }
      }
      WriteLoss<T>(ctx, s, scores, labels, "labels", weights, ignore_index_, reduction_,
                   [&](size_t n, size_t c, size_t d) { return logp[(n * s.c + c) * s.inner + d]; });
      if (ctx.WantsOutput(1)) {
        Tensor& lp = ctx.OutputForOverwrite(1, scores.type(), scores.shape());
        T* out = static_cast<T*>(lp.data());
        for (size_t i = 0; i < total; ++i) {
          out[i] = nn::Store<T>(static_cast<nn::AccOf<T>>(logp[i]));
        }
      }
    });
  }

 private:
  Reduction reduction_;
  std::optional<int64_t> ignore_index_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNegativeLogLikelihoodLoss(const KernelInfo& info) {
  return Make<NegativeLogLikelihoodLoss>(info);
}
std::unique_ptr<Kernel> MakeSoftmaxCrossEntropyLoss(const KernelInfo& info) {
  return Make<SoftmaxCrossEntropyLoss>(info);
}

}  // namespace kiln::cpu
