// LinearAttention (opset 27): recurrent linear attention with a matrix state per key/value head.
// query [B, T, Hq·Dk], key [B, T, Hkv·Dk], value [B, T, Hkv·Dv] (heads from q_num_heads and
// kv_num_heads, Hq a multiple of Hkv; query head h reads state h / (Hq / Hkv)); past_state
// [B, Hkv, Dk, Dv] (zeros when absent). For each step t, with k, v, q that step's vectors:
//   gated rules:  S ← S · exp(decay_t)           (decay [B, T, Hkv] per head or [B, T, Hkv·Dk]
//                                                 per key dimension, scaling S's rows)
//   delta rules:  v ← beta_t · (v − Sᵀ·k)         (beta [B, T, Hkv] or [B, T, 1])
//   always:       S ← S + k ⊗ v;  out_t = scale · Sᵀ·q   (scale 0/absent: 1/√Dk)
// update_rule is "linear", "gated", "delta" or "gated_delta" (default); decay is required by the
// gated rules and refused by the others, beta likewise for the delta rules. Everything computes
// in float; present_state [B, Hkv, Dk, Dv] has past_state's type (query's without one).
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/attention/attention_util.h"

namespace kiln::cpu {
namespace {

class LinearAttention final : public Kernel {
 public:
  explicit LinearAttention(const KernelInfo& info)
      : q_heads_(info.RequireInt("q_num_heads")),
        kv_heads_(info.RequireInt("kv_num_heads")),
        scale_(info.GetFloat("scale", 0.0f)) {
    const std::string rule = info.GetString("update_rule", "gated_delta");
    if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'update_rule' is '" + rule +
                    "'; it must be 'linear', 'gated', 'delta' or 'gated_delta'");
    }
    gated_ = rule == "gated" || rule == "gated_delta";
    delta_ = rule == "delta" || rule == "gated_delta";
    if (q_heads_ <= 0 || kv_heads_ <= 0 || q_heads_ % kv_heads_ != 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'q_num_heads' (" + std::to_string(q_heads_) +
                                              ") must be a positive multiple of 'kv_num_heads' (" +
                                              std::to_string(kv_heads_) + ")");
    }
    if (gated_ != info.HasInput(4)) {
      info.Fail(
          ErrorCode::kInvalidGraph,
          "update_rule '" + rule + "' " + (gated_ ? "needs" : "does not take") + " input 'decay'");
    }
    if (delta_ != info.HasInput(5)) {
      info.Fail(
          ErrorCode::kInvalidGraph,
          "update_rule '" + rule + "' " + (delta_ ? "needs" : "does not take") + " input 'beta'");
    }
    if (info.HasInput(6)) {
      info.Fail(ErrorCode::kNotImplemented, "input 7 (erase_gate) is not supported");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& q = ctx.Input(0);
    const Tensor& k = ctx.Input(1);
    const Tensor& v = ctx.Input(2);
    const Tensor* past = ctx.OptionalInput(3);
    const Tensor* decay = ctx.OptionalInput(4);
    const Tensor* beta = ctx.OptionalInput(5);
    RequireRank(info, q, "query", 3);
    RequireRank(info, k, "key", 3);
    RequireRank(info, v, "value", 3);
    RequireSameType(info, k, "key", q.type(), "query");
    RequireSameType(info, v, "value", q.type(), "query");
    const auto& qd = q.shape().dims();
    const auto& kd = k.shape().dims();
    const auto& vd = v.shape().dims();
    const int64_t batch = qd[0];
    const int64_t steps = qd[1];
    if (qd[2] % q_heads_ != 0 || vd[2] % kv_heads_ != 0 || kd[0] != batch || vd[0] != batch ||
        kd[1] != steps || vd[1] != steps || kd[2] != qd[2] / q_heads_ * kv_heads_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "inputs 'query' " + ShapeText(q) + ", 'key' " + ShapeText(k) + " and 'value' " +
                    ShapeText(v) + " do not agree with " + std::to_string(q_heads_) +
                    " query and " + std::to_string(kv_heads_) + " key/value heads");
    }
    const int64_t dk = qd[2] / q_heads_;
    const int64_t dv = vd[2] / kv_heads_;
    const int64_t state_dims[4] = {batch, kv_heads_, dk, dv};
    if (past != nullptr && !HasDims(*past, {batch, kv_heads_, dk, dv})) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'past_state' has shape " + ShapeText(*past) + "; expected [" +
                    std::to_string(batch) + "," + std::to_string(kv_heads_) + "," +
                    std::to_string(dk) + "," + std::to_string(dv) + "]");
    }
    bool per_key_decay = false;
    if (decay != nullptr) {
      RequireSameType(info, *decay, "decay", q.type(), "query");
      const auto& dd = decay->shape().dims();
      per_key_decay = dd.size() == 3 && dd[2] == kv_heads_ * dk && kv_heads_ * dk != kv_heads_;
      if (dd.size() != 3 || dd[0] != batch || dd[1] != steps ||
          (dd[2] != kv_heads_ && dd[2] != kv_heads_ * dk)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'decay' has shape " + ShapeText(*decay) + "; expected [" +
                      std::to_string(batch) + "," + std::to_string(steps) + "," +
                      std::to_string(kv_heads_) + " or " + std::to_string(kv_heads_ * dk) + "]");
      }
    }
    bool shared_beta = false;
    if (beta != nullptr) {
      RequireSameType(info, *beta, "beta", q.type(), "query");
      const auto& bd = beta->shape().dims();
      if (bd.size() != 3 || bd[0] != batch || bd[1] != steps ||
          (bd[2] != kv_heads_ && bd[2] != 1)) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'beta' has shape " + ShapeText(*beta) +
                                                   "; expected [" + std::to_string(batch) + "," +
                                                   std::to_string(steps) + "," +
                                                   std::to_string(kv_heads_) + " or 1]");
      }
      shared_beta = bd[2] == 1;
    }
    CheckedProduct(info, {batch, kv_heads_, dk, dv}, "present_state");

    const int64_t out_dims[3] = {batch, steps, q_heads_ * dv};
    Tensor& out = ctx.OutputForOverwrite(0, q.type(), out_dims);
    float* state = ctx.Scratch<float>(static_cast<size_t>(batch * kv_heads_ * dk * dv));
    float* qf = ctx.Scratch<float>(q.element_count());
    float* kf = ctx.Scratch<float>(k.element_count());
    float* vf = ctx.Scratch<float>(v.element_count());
    float* of = ctx.Scratch<float>(out.element_count());
    float* df = decay != nullptr ? ctx.Scratch<float>(decay->element_count()) : nullptr;
    float* bf = beta != nullptr ? ctx.Scratch<float>(beta->element_count()) : nullptr;
    float* corrected = ctx.Scratch<float>(static_cast<size_t>(dv));
    LoadFloats(info, q, qf);
    LoadFloats(info, k, kf);
    LoadFloats(info, v, vf);
    if (df != nullptr) LoadFloats(info, *decay, df);
    if (bf != nullptr) LoadFloats(info, *beta, bf);
    if (past != nullptr) {
      LoadFloats(info, *past, state);
    } else {
      std::fill(state, state + batch * kv_heads_ * dk * dv, 0.0f);
    }
    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(dk));
    const int64_t group = q_heads_ / kv_heads_;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < kv_heads_; ++h) {
        float* s = state + (b * kv_heads_ + h) * dk * dv;
        for (int64_t t = 0; t < steps; ++t) {
          const int64_t bt = b * steps + t;
          const float* kt = kf + (bt * kv_heads_ + h) * dk;
          const float* vt = vf + (bt * kv_heads_ + h) * dv;
          if (gated_) {
            for (int64_t d = 0; d < dk; ++d) {
              const float g = std::exp(per_key_decay ? df[(bt * kv_heads_ + h) * dk + d]
                                                     : df[bt * kv_heads_ + h]);
              for (int64_t m = 0; m < dv; ++m) s[d * dv + m] *= g;
            }
          }
          const float* write = vt;
          if (delta_) {
            const float bv = bf[shared_beta ? bt : bt * kv_heads_ + h];
            for (int64_t m = 0; m < dv; ++m) {
              float r = 0.0f;
              for (int64_t d = 0; d < dk; ++d) r += s[d * dv + m] * kt[d];
              corrected[m] = bv * (vt[m] - r);
            }
            write = corrected;
          }
          for (int64_t d = 0; d < dk; ++d) {
            for (int64_t m = 0; m < dv; ++m) s[d * dv + m] += kt[d] * write[m];
          }
          for (int64_t g = 0; g < group; ++g) {
            const int64_t qh = h * group + g;
            const float* qt = qf + (bt * q_heads_ + qh) * dk;
            float* o = of + (bt * q_heads_ + qh) * dv;
            for (int64_t m = 0; m < dv; ++m) {
              float acc = 0.0f;
              for (int64_t d = 0; d < dk; ++d) acc += qt[d] * s[d * dv + m];
              o[m] = scale * acc;
            }
          }
        }
      }
    }
    StoreFloats(info, of, out);
    if (ctx.WantsOutput(1)) {
      const DataType state_type = past != nullptr ? past->type() : q.type();
      StoreFloats(info, state, ctx.OutputForOverwrite(1, state_type, state_dims));
    }
  }

 private:
  int64_t q_heads_;
  int64_t kv_heads_;
  float scale_;
  bool gated_ = false;
  bool delta_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeLinearAttention(const KernelInfo& info) {
  return std::make_unique<LinearAttention>(info);
}

}  // namespace kiln::cpu
