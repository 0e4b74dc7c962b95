// SkipLayerNormalization (com.microsoft, opset 1), float: LayerNorm over the last axis of
// s = input + skip (+ bias), then ·gamma (+ beta). Inputs: input [.., H] (rank 2 or 3, as ONNX
// Runtime), skip of input's shape or of its trailing dimensions with leading 1s ([1, S, H],
// [S, H]), gamma [H], beta [H] (optional), bias [H] (optional). Attribute epsilon (ONNX Runtime's
// default 1e-12). Outputs: 0 the normalised value; 1 mean and 2 inv_std_var (optional, float,
// input's shape with the last dimension 1); 3 input_skip_bias_sum (optional, input's shape).
// Only the outputs the graph uses are written.
// SkipSimplifiedLayerNormalization (com.microsoft, opset 1) shares it: RMS normalisation of s
// (no mean subtracted), ·gamma; inputs input, skip, gamma, bias (optional, input 3); outputs 0,
// 2 inv_std_var and 3 input_skip_bias_sum (output 1, a mean, is refused: RMS has none). Each row is
// summed once into output 3 (or a per-task scratch row), its mean and variance come from two
// vectorized passes over that row (in cache), and the third pass writes the output.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr size_t kLanes = 16;  // interleaved partial sums

// s = x + skip (+ bias); returns the sum of s.
KILN_VECTOR_CLONES float AddRow(const float* x, const float* skip, const float* bias, float* s,
                                size_t n) {
  float acc[kLanes] = {};
  size_t i = 0;
  if (bias == nullptr) {
    for (; i + kLanes <= n; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) {
        s[i + j] = x[i + j] + skip[i + j];
        acc[j] += s[i + j];
      }
    }
    for (; i < n; ++i) {
      s[i] = x[i] + skip[i];
      acc[0] += s[i];
    }
  } else {
    for (; i + kLanes <= n; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) {
        s[i + j] = x[i + j] + skip[i + j] + bias[i + j];
        acc[j] += s[i + j];
      }
    }
    for (; i < n; ++i) {
      s[i] = x[i] + skip[i] + bias[i];
      acc[0] += s[i];
    }
  }
  for (size_t w = kLanes / 2; w > 0; w /= 2) {
    for (size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

// The sum of (s[i] - mean)².
KILN_VECTOR_CLONES float SquaredDeviations(const float* s, size_t n, float mean) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += (s[i + j] - mean) * (s[i + j] - mean);
  }
  for (; i < n; ++i) acc[0] += (s[i] - mean) * (s[i] - mean);
  for (size_t w = kLanes / 2; w > 0; w /= 2) {
    for (size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

// y = (s - mean)·inv_std·gamma (+ beta).
KILN_VECTOR_CLONES void NormalizeRow(const float* s, const float* gamma, const float* beta,
                                     float* y, size_t n, float mean, float inv_std) {
  if (beta == nullptr) {
    for (size_t i = 0; i < n; ++i) y[i] = (s[i] - mean) * inv_std * gamma[i];
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = (s[i] - mean) * inv_std * gamma[i] + beta[i];
  }
}

class SkipLayerNormalization final : public Kernel {
 public:
  SkipLayerNormalization(const KernelInfo& info, bool simplified)
      : epsilon_(info.GetFloat("epsilon", 1e-12f)), simplified_(simplified) {
    if (!(epsilon_ >= 0.0f)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'epsilon' is " + std::to_string(epsilon_) + "; it must be >= 0");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& skip = ctx.Input(1);
    const Tensor& gamma = ctx.Input(2);
    const Tensor* beta = simplified_ ? nullptr : ctx.OptionalInput(3);
    const Tensor* bias = ctx.OptionalInput(simplified_ ? 3 : 4);
    if (simplified_ && ctx.WantsOutput(1)) {
      info.Fail(ErrorCode::kInvalidGraph,
                "output 1 ('mean') is not defined: the simplified (RMS) form subtracts no mean");
    }
    if (x.type() != DataType::kFloat) {
      info.Fail(
          ErrorCode::kNotImplemented,
          std::string("input 'input' is ") + DataTypeName(x.type()) + "; only float is supported");
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    if (dims.size() != 2 && dims.size() != 3) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + x.shape().ToString() + "; it must be 2-D or 3-D");
    }
    const int64_t hidden = dims.back();
    for (const auto& [t, name] : {std::pair{&skip, "skip"}, std::pair{&gamma, "gamma"},
                                  std::pair{beta, "beta"}, std::pair{bias, "bias"}}) {
      if (t != nullptr && t->type() != x.type()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' is " + DataTypeName(t->type()) +
                      " but input 'input' is " + DataTypeName(x.type()));
      }
    }
    for (const auto& [t, name] :
         {std::pair{&gamma, "gamma"}, std::pair{beta, "beta"}, std::pair{bias, "bias"}}) {
      if (t != nullptr && (t->shape().rank() != 1 || t->shape().dims()[0] != hidden)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' has shape " + t->shape().ToString() +
                      "; it must be [" + std::to_string(hidden) +
                      "], the hidden size of input 'input' " + x.shape().ToString());
      }
    }
    CheckSkip(info, skip, x);

    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    SmallVector<int64_t> stats_dims(dims);
    stats_dims.back() = 1;
    float* mean_out = nullptr;
    float* inv_std_out = nullptr;
    float* sum_out = nullptr;
    if (ctx.WantsOutput(1)) {
      mean_out = static_cast<float*>(
          ctx.OutputForOverwrite(1, DataType::kFloat, stats_dims.span()).data());
    }
    if (ctx.WantsOutput(2)) {
      inv_std_out = static_cast<float*>(
          ctx.OutputForOverwrite(2, DataType::kFloat, stats_dims.span()).data());
    }
    if (ctx.WantsOutput(3)) {
      sum_out = static_cast<float*>(ctx.OutputForOverwrite(3, x.type(), x.shape()).data());
    }
    const auto width = static_cast<size_t>(hidden);
    if (x.element_count() == 0) {
      // Rows of width 0 still have statistics: the mean of no values is 0/0, NaN, and so is the
      // variance, as in LayerNormalization.
      const size_t rows =
          width == 0 ? static_cast<size_t>(dims[0] * (dims.size() == 3 ? dims[1] : 1)) : 0;
      const float nan = std::numeric_limits<float>::quiet_NaN();
      for (size_t r = 0; r < rows; ++r) {
        if (mean_out != nullptr) mean_out[r] = nan;
        if (inv_std_out != nullptr) inv_std_out[r] = nan;
      }
      return;
    }
    const size_t rows = x.element_count() / width;
    const size_t skip_rows = skip.element_count() / width;
    const auto* xp = static_cast<const float*>(x.data());
    const auto* sp = static_cast<const float*>(skip.data());
    const auto* gp = static_cast<const float*>(gamma.data());
    const float* bp = beta != nullptr ? static_cast<const float*>(beta->data()) : nullptr;
    const float* biasp = bias != nullptr ? static_cast<const float*>(bias->data()) : nullptr;
    auto* yp = static_cast<float*>(y.data());
    const float inv_width = 1.0f / static_cast<float>(width);
    ctx.threads().ParallelFor(
        rows, std::max<size_t>(1, 16384 / width), [&](size_t begin, size_t end) {
          float* row_sum = sum_out == nullptr ? ctx.Scratch<float>(width) : nullptr;
          for (size_t r = begin; r < end; ++r) {
            float* s = sum_out != nullptr ? sum_out + r * width : row_sum;
            const float sum = AddRow(xp + r * width, sp + (r % skip_rows) * width, biasp, s, width);
            const float mean = simplified_ ? 0.0f : sum * inv_width;
            const float var = SquaredDeviations(s, width, mean) * inv_width;
            const float inv_std = 1.0f / std::sqrt(var + epsilon_);
            NormalizeRow(s, gp, bp, yp + r * width, width, mean, inv_std);
            if (mean_out != nullptr) mean_out[r] = mean;
            if (inv_std_out != nullptr) inv_std_out[r] = inv_std;
          }
        });
  }

 private:
  // skip is input's shape, or its trailing dimensions after leading 1s: then row r of input adds
  // row r % (skip's rows) of skip.
  static void CheckSkip(const KernelInfo& info, const Tensor& skip, const Tensor& x) {
    const std::vector<int64_t>& s = skip.shape().dims();
    const std::vector<int64_t>& d = x.shape().dims();
    size_t lead = 0;
    while (lead < s.size() && s[lead] == 1 && s.size() - lead > 1) ++lead;
    bool ok = !s.empty() && s.size() <= d.size() && s.size() - lead <= d.size();
    for (size_t i = lead; ok && i < s.size(); ++i) {
      ok = s[i] == d[d.size() - (s.size() - i)];
    }
    if (!ok) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'skip' has shape " + skip.shape().ToString() +
                    "; it must be the shape of input 'input' " + x.shape().ToString() +
                    " or its trailing dimensions (e.g. [1, S, H] or [S, H])");
    }
  }

  float epsilon_;
  bool simplified_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSkipLayerNormalization(const KernelInfo& info) {
  return std::make_unique<SkipLayerNormalization>(info, false);
}
std::unique_ptr<Kernel> MakeSkipSimplifiedLayerNormalization(const KernelInfo& info) {
  return std::make_unique<SkipLayerNormalization>(info, true);
}

}  // namespace kiln::cpu
