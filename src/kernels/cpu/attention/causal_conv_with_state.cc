// CausalConvWithState (opset 27): a depthwise causal 1-D convolution that carries its left
// context between calls. input [B, C, L], weight [C, 1, K], optional bias [C] and past_state
// [B, C, K-1] (zeros when absent). With padded = concat(past_state, input) along the last axis:
//   output[b, c, t] = act(bias[c] + Σ_k weight[c, 0, k] · padded[b, c, t + k])
//   present_state = the last K-1 positions of padded.
// activation is "none" (default), or "silu"/"swish" (x · sigmoid(x)). Float16 and BFloat16
// compute in float; the convolution is rounded to the input type before the activation, as the
// reference does.
#include <cmath>
#include <string>

#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class CausalConvWithState final : public Kernel {
 public:
  explicit CausalConvWithState(const KernelInfo& info) {
    const std::string activation = info.GetString("activation", "none");
    if (activation == "silu" || activation == "swish") {
      silu_ = true;
    } else if (activation != "none") {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'activation' is '" + activation +
                                              "'; it must be 'none', 'silu' or 'swish'");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    const Tensor* bias = ctx.OptionalInput(2);
    const Tensor* past = ctx.OptionalInput(3);
    RequireRank(info, x, "input", 3);
    RequireRank(info, w, "weight", 3);
    RequireSameType(info, w, "weight", x.type(), "input");
    const int64_t batch = x.shape().dims()[0];
    const int64_t channels = x.shape().dims()[1];
    const int64_t len = x.shape().dims()[2];
    const auto& wd = w.shape().dims();
    if (wd[0] != channels || wd[1] != 1 || wd[2] < 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'weight' has shape " + ShapeText(w) +
                                                 "; expected [" + std::to_string(channels) +
                                                 ", 1, K] with K >= 1");
    }
    const int64_t k = wd[2];
    if (bias != nullptr) {
      RequireSameType(info, *bias, "bias", x.type(), "input");
      if (!HasDims(*bias, {channels})) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'bias' has shape " + ShapeText(*bias) +
                                                   "; expected [" + std::to_string(channels) + "]");
      }
    }
    if (past != nullptr) {
      RequireSameType(info, *past, "past_state", x.type(), "input");
      if (!HasDims(*past, {batch, channels, k - 1})) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'past_state' has shape " + ShapeText(*past) +
                                                   "; expected [" + std::to_string(batch) + ", " +
                                                   std::to_string(channels) + ", " +
                                                   std::to_string(k - 1) + "]");
      }
    }
    const size_t padded_len = CheckedProduct(info, {len + k - 1}, "the padded input");
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    const int64_t state_dims[3] = {batch, channels, k - 1};
    Tensor* state = ctx.WantsOutput(1) ? &ctx.OutputForOverwrite(1, x.type(), state_dims) : nullptr;
    Dispatch<float, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xp = static_cast<const T*>(x.data());
      const T* wp = static_cast<const T*>(w.data());
      const T* bp = bias != nullptr ? static_cast<const T*>(bias->data()) : nullptr;
      const T* pp = past != nullptr ? static_cast<const T*>(past->data()) : nullptr;
      T* yp = static_cast<T*>(y.data());
      T* sp = state != nullptr ? static_cast<T*>(state->data()) : nullptr;
      float* padded = ctx.Scratch<float>(padded_len);
      const size_t hist = static_cast<size_t>(k - 1);
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t c = 0; c < channels; ++c) {
          const size_t row = static_cast<size_t>(b * channels + c);
          for (size_t i = 0; i < hist; ++i)
            padded[i] = pp != nullptr ? ToFloat(pp[row * hist + i]) : 0.0f;
          for (int64_t t = 0; t < len; ++t) padded[hist + t] = ToFloat(xp[row * len + t]);
          const T* wc = wp + c * k;
          const float b0 = bp != nullptr ? ToFloat(bp[c]) : 0.0f;
          for (int64_t t = 0; t < len; ++t) {
            float acc = b0;
            for (int64_t j = 0; j < k; ++j) acc += ToFloat(wc[j]) * padded[t + j];
            float v = ToFloat(FromFloat<T>(acc));
            if (silu_) v = v / (1.0f + std::exp(-v));
            yp[row * len + t] = FromFloat<T>(v);
          }
          if (sp != nullptr) {
            for (size_t i = 0; i < hist; ++i) sp[row * hist + i] = FromFloat<T>(padded[len + i]);
          }
        }
      }
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeCausalConvWithState(const KernelInfo& info) {
  return std::make_unique<CausalConvWithState>(info);
}

}  // namespace kiln::cpu
