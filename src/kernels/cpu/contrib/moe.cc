// MoE (com.microsoft, opset 1), float: the mixture-of-experts feed-forward block that ONNX
// Runtime's generative-AI model builder writes for Mixtral, Phi-3.5-MoE and gpt-oss, computed as
// ONNX Runtime 1.30's CPU kernel computes it.
// Inputs: 0 input [rows, hidden] or [B, S, hidden] (rows = B·S); 1 router_probs [rows, E] (the
// router's logits); 2 fc1_experts_weights [E, F, hidden], F = inter (2·inter with swiglu);
// 3 fc1_experts_bias [E, F]; 4 fc2_experts_weights [E, hidden, inter]; 5 fc2_experts_bias
// [E, hidden]; 6 fc3_experts_weights [E, inter, hidden]; 7 fc3_experts_bias [E, inter]. Inputs 3
// and 5-7 are optional. inter is fc2's element count / (E·hidden).
// Attributes: k (1) experts per row; activation_type (relu): relu, gelu (the tanh form), silu,
// identity or swiglu; normalize_routing_weights (0); use_sparse_mixer (0; only checked: 1 needs
// k = 2, and routes as 0 does, like ONNX Runtime's CPU kernel); swiglu_fusion (must be 1 with
// swiglu: fc1's outputs interleaved, gate at even and linear at odd positions); activation_alpha
// (1), activation_beta (0), swiglu_limit (+inf).
// Output: 0 output, input's shape.
// Each row takes the softmax of its router logits (float, max subtracted), then the k largest
// probabilities (ties to the higher expert index); with normalize_routing_weights they are divided
// by their sum. Expert e maps a row x to fc2_e(act(fc1_e(x))), fc_e(x) = W_e·x + b_e; swiglu maps
// fc1's 2·inter outputs to inter: g = min(gate, limit), l = clamp(linear, -limit, limit),
// g·sigmoid(alpha·g)·(l + beta). The output row is the sum, in increasing expert index, of
// weight·expert(x) over the k experts whose weight is > 0 (a NaN logit makes every weight NaN and
// the row 0). As ONNX Runtime, fc1/fc2 shapes [E, hidden, F] and [E, inter, hidden] are accepted
// where its "legacy" rule takes them (inter != hidden and fc2 is [E, inter, hidden]; or inter ==
// hidden, swiglu and fc1 is [E, hidden, 2·hidden]), and their data are still read as
// [E, F, hidden] and [E, hidden, inter].
// Differences from ONNX Runtime: fc3 (which its CPU kernel refuses) is the gate of the Mixtral
// form, act(fc1_e(x)) ⊙ fc3_e(x) before fc2 (not with swiglu); float16 is not supported; k larger
// than E is refused when the kernel runs, as there.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vector_math.h"

namespace kiln::cpu {
namespace {

enum class Activation { kRelu, kGelu, kSilu, kIdentity, kSwiGlu };

Activation ParseActivation(const KernelInfo& info) {
  const std::string name = info.GetString("activation_type", "relu");
  if (name == "relu") return Activation::kRelu;
  if (name == "gelu") return Activation::kGelu;
  if (name == "silu") return Activation::kSilu;
  if (name == "identity") return Activation::kIdentity;
  if (name == "swiglu") return Activation::kSwiGlu;
  info.Fail(ErrorCode::kInvalidGraph, "attribute 'activation_type' is '" + name +
                                          "'; it must be relu, gelu, silu, identity or swiglu");
}

std::string Dims(const Tensor* t) {
  return t->shape().ToString();
}

// What MoE and QMoE share: the attributes, the routing and the experts on float weights.
class MoEBase : public Kernel {
 public:
  // qmoe: QMoE's routing (see the top of QMoE below) instead of MoE's.
  MoEBase(const KernelInfo& info, bool qmoe)
      : qmoe_(qmoe),
        k_(info.GetInt("k", 1)),
        activation_(ParseActivation(info)),
        normalize_(info.GetInt("normalize_routing_weights", 0) == 1),
        alpha_(info.GetFloat("activation_alpha", 1.0f)),
        beta_(info.GetFloat("activation_beta", 0.0f)),
        limit_(info.GetFloat("swiglu_limit", std::numeric_limits<float>::infinity())) {
    if (k_ < 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'k' is " + std::to_string(k_) + "; it must be >= 1");
    }
    if (info.GetInt("use_sparse_mixer", 0) == 1 && k_ != 2) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'use_sparse_mixer' is 1 with k = " + std::to_string(k_) +
                    "; the sparse mixer needs k = 2");
    }
    const int64_t fusion = info.GetInt("swiglu_fusion", 0);
    if (activation_ == Activation::kSwiGlu && fusion != 1) {
      info.Fail(ErrorCode::kNotImplemented,
                "attribute 'swiglu_fusion' is " + std::to_string(fusion) +
                    "; swiglu is supported interleaved only (swiglu_fusion = 1), as in ONNX "
                    "Runtime's CPU kernel");
    }
  }

  // The inputs of the shared computation: rows of hidden floats, router logits [rows, E], float
  // weights w1 [E, F, H], w2 [E, H, I], w3 [E, I, H] (or nullptr) and their biases (or nullptr).
  struct Experts {
    const float* x;
    const float* logits;
    const float *w1, *b1, *w2, *b2, *w3, *b3;
    int64_t rows, experts, hidden, inter;
  };

 protected:
  void Run(KernelContext& ctx, const Experts& in, float* yp) const;

  bool qmoe_;
  int64_t k_;
  Activation activation_;
  bool normalize_;
  float alpha_;
  float beta_;
  float limit_;

 private:
  void Route(const float* logits, size_t E, float* probs, uint32_t* expert, float* weight) const;
  void Activate(float* h, const float* bias1, float* z, size_t I, const float* g,
                const float* bias3) const;
};

class MoE final : public MoEBase {
 public:
  explicit MoE(const KernelInfo& info) : MoEBase(info, false) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& input = ctx.Input(0);
    const Tensor& router = ctx.Input(1);
    const Tensor& fc1 = ctx.Input(2);
    const Tensor* fc1_bias = ctx.OptionalInput(3);
    const Tensor& fc2 = ctx.Input(4);
    const Tensor* fc2_bias = ctx.OptionalInput(5);
    const Tensor* fc3 = ctx.OptionalInput(6);
    const Tensor* fc3_bias = ctx.OptionalInput(7);
    const char* names[] = {"input",
                           "router_probs",
                           "fc1_experts_weights",
                           "fc1_experts_bias",
                           "fc2_experts_weights",
                           "fc2_experts_bias",
                           "fc3_experts_weights",
                           "fc3_experts_bias"};
    const Tensor* all[] = {&input, &router, &fc1, fc1_bias, &fc2, fc2_bias, fc3, fc3_bias};
    for (size_t i = 0; i < 8; ++i) {
      if (all[i] != nullptr && all[i]->type() != DataType::kFloat) {
        info.Fail(ErrorCode::kNotImplemented, std::string("input '") + names[i] + "' is " +
                                                  DataTypeName(all[i]->type()) +
                                                  "; only float is supported");
      }
    }
    const auto& xd = input.shape().dims();
    if (xd.size() != 2 && xd.size() != 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input' has shape " + Dims(&input) +
                                                 "; it must be [rows, hidden] or [B, S, hidden]");
    }
    auto rank_check = [&](const Tensor* t, size_t rank, const char* name, const char* form) {
      if (t->shape().rank() != rank) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                                   Dims(t) + "; it must be " + form);
      }
    };
    rank_check(&router, 2, "router_probs", "[rows, experts]");
    rank_check(&fc1, 3, "fc1_experts_weights", "[experts, fc1 outputs, hidden]");
    rank_check(&fc2, 3, "fc2_experts_weights", "[experts, hidden, inter]");
    const int64_t rows = xd.size() == 2 ? xd[0] : xd[0] * xd[1];
    const int64_t hidden = xd.back();
    if (hidden <= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + Dims(&input) + "; its last dimension must be > 0");
    }
    const int64_t experts = router.shape().dims()[1];
    const auto& d1 = fc1.shape().dims();
    const auto& d2 = fc2.shape().dims();
    const int64_t inter = d2[1] * d2[2] / hidden;
    const bool swiglu = activation_ == Activation::kSwiGlu;
    const int64_t f1 = swiglu ? 2 * inter : inter;
    // ONNX Runtime's "legacy" layouts, accepted and read as the usual ones (see the top).
    const bool legacy =
        (hidden != inter && d2[1] == inter) || (hidden == inter && swiglu && d1[1] == hidden);
    auto expect = [&](const Tensor* t, const char* name, std::initializer_list<int64_t> want) {
      if (t == nullptr) return;
      const auto& d = t->shape().dims();
      if (d.size() != want.size() || !std::equal(want.begin(), want.end(), d.begin())) {
        std::string w = "[";
        for (int64_t v : want) w += (w.size() > 1 ? "," : "") + std::to_string(v);
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' has shape " + Dims(t) + "; it must be " + w +
                      "] (input " + Dims(&input) + ", " + std::to_string(experts) +
                      " experts in router_probs, inter size " + std::to_string(inter) + ")");
      }
    };
    if (legacy) {
      expect(&fc1, "fc1_experts_weights", {experts, hidden, f1});
      expect(&fc2, "fc2_experts_weights", {experts, inter, hidden});
      expect(fc3, "fc3_experts_weights", {experts, hidden, inter});
    } else {
      expect(&fc1, "fc1_experts_weights", {experts, f1, hidden});
      expect(&fc2, "fc2_experts_weights", {experts, hidden, inter});
      expect(fc3, "fc3_experts_weights", {experts, inter, hidden});
    }
    expect(&router, "router_probs", {rows, experts});
    expect(fc1_bias, "fc1_experts_bias", {experts, f1});
    expect(fc2_bias, "fc2_experts_bias", {experts, hidden});
    expect(fc3_bias, "fc3_experts_bias", {experts, inter});
    if (fc3 == nullptr && fc3_bias != nullptr) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'fc3_experts_bias' is given without fc3_experts_weights");
    }
    if (fc3 != nullptr && swiglu) {
      info.Fail(ErrorCode::kNotImplemented,
                "input 'fc3_experts_weights' is given with activation_type swiglu; the fc3 gate "
                "is supported with relu, gelu, silu and identity");
    }
    if (k_ > experts) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'k' is " + std::to_string(k_) +
                                                 " but router_probs has " +
                                                 std::to_string(experts) + " experts");
    }
    Tensor& out = ctx.OutputForOverwrite(0, DataType::kFloat, input.shape());
    auto data = [](const Tensor* t) {
      return t != nullptr ? static_cast<const float*>(t->data()) : nullptr;
    };
    Run(ctx,
        {data(&input), data(&router), data(&fc1), data(fc1_bias), data(&fc2), data(fc2_bias),
         data(fc3), data(fc3_bias), rows, experts, hidden, inter},
        static_cast<float*>(out.data()));
  }
};

void MoEBase::Run(KernelContext& ctx, const Experts& in, float* yp) const {
  if (in.rows == 0) return;
  const bool swiglu = activation_ == Activation::kSwiGlu;
  const auto R = static_cast<size_t>(in.rows);
  const auto E = static_cast<size_t>(in.experts);
  const auto K = static_cast<size_t>(k_);
  const auto H = static_cast<size_t>(in.hidden);
  const auto I = static_cast<size_t>(in.inter);
  const size_t F = swiglu ? 2 * I : I;
  const float* xp = in.x;
  const float* logits = in.logits;

  // Routing: route r = row·K + j goes to expert route_expert[r] (E: skipped, weight not > 0)
  // with weight route_weight[r].
  auto* route_expert = ctx.Scratch<uint32_t>(R * K);
  auto* route_weight = ctx.Scratch<float>(R * K);
  ctx.threads().ParallelFor(R, 16, [&](size_t begin, size_t end) {
    float* probs = ctx.Scratch<float>(E);
    for (size_t row = begin; row < end; ++row) {
      Route(logits + row * E, E, probs, route_expert + row * K, route_weight + row * K);
    }
  });

  // The routes of each expert, in increasing route order, packed: expert e's are
  // order[start[e] .. start[e + 1]); slot[r] is route r's position there.
  auto* start = ctx.Scratch<size_t>(E + 1);
  std::fill(start, start + E + 1, size_t{0});
  for (size_t r = 0; r < R * K; ++r) {
    if (route_expert[r] < E) ++start[route_expert[r] + 1];
  }
  for (size_t e = 0; e < E; ++e) start[e + 1] += start[e];
  const size_t routed = start[E];
  auto* order = ctx.Scratch<size_t>(std::max<size_t>(routed, 1));
  auto* slot = ctx.Scratch<size_t>(R * K);
  {
    auto* fill = ctx.Scratch<size_t>(E);
    std::copy(start, start + E, fill);
    for (size_t r = 0; r < R * K; ++r) {
      if (route_expert[r] < E) {
        slot[r] = fill[route_expert[r]];
        order[fill[route_expert[r]]++] = r;
      }
    }
  }

  // Every expert's rows: gathered, through fc1 (and fc3), the activation, fc2.
  const size_t n_rows = std::max<size_t>(routed, 1);
  auto* gathered = ctx.Scratch<float>(n_rows * H);
  auto* hid = ctx.Scratch<float>(n_rows * F);
  auto* gate = in.w3 != nullptr ? ctx.Scratch<float>(n_rows * I) : nullptr;
  auto* act = swiglu ? ctx.Scratch<float>(n_rows * I) : hid;
  auto* expert_out = ctx.Scratch<float>(n_rows * H);
  ctx.threads().ParallelFor(routed, 16, [&](size_t begin, size_t end) {
    for (size_t p = begin; p < end; ++p) {
      const float* src = xp + (order[p] / K) * H;
      std::copy(src, src + H, gathered + p * H);
    }
  });
  const float* w1 = in.w1;
  const float* w2 = in.w2;
  const float* w3 = in.w3;
  const float* b1 = in.b1;
  const float* b2 = in.b2;
  const float* b3 = in.b3;
  ThreadPool* pool = &ctx.threads();
  for (size_t e = 0; e < E; ++e) {
    const size_t n = start[e + 1] - start[e];
    if (n == 0) continue;
    const float* a = gathered + start[e] * H;
    float* h = hid + start[e] * F;
    Gemm<float>(false, true, n, F, H, 1.0f, a, H, w1 + e * F * H, H, 0.0f, h, F, pool);
    float* g = nullptr;
    if (w3 != nullptr) {
      g = gate + start[e] * I;
      Gemm<float>(false, true, n, I, H, 1.0f, a, H, w3 + e * I * H, H, 0.0f, g, I, pool);
    }
    float* z = act + start[e] * I;
    const float* bias1 = b1 != nullptr ? b1 + e * F : nullptr;
    const float* bias3 = b3 != nullptr ? b3 + e * I : nullptr;
    ctx.threads().ParallelFor(n, 8, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        Activate(h + i * F, bias1, z + i * I, I, g != nullptr ? g + i * I : nullptr, bias3);
      }
    });
    float* o = expert_out + start[e] * H;
    Gemm<float>(false, true, n, H, I, 1.0f, z, I, w2 + e * H * I, I, 0.0f, o, H, pool);
    if (b2 != nullptr) {
      const float* bias2 = b2 + e * H;
      for (size_t i = 0; i < n; ++i) {
        for (size_t c = 0; c < H; ++c) o[i * H + c] += bias2[c];
      }
    }
  }

  // Each row: its experts' outputs, weighted, added in increasing expert index.
  ctx.threads().ParallelFor(R, 8, [&](size_t begin, size_t end) {
    for (size_t row = begin; row < end; ++row) {
      float* y = yp + row * H;
      std::fill(y, y + H, 0.0f);
      uint32_t last = 0;
      bool any = false;
      for (size_t step = 0; step < K; ++step) {
        // The next expert above `last` among the row's routes.
        size_t pick = K;
        for (size_t j = 0; j < K; ++j) {
          const uint32_t ex = route_expert[row * K + j];
          if (ex >= E || (any && ex <= last)) continue;
          if (pick == K || ex < route_expert[row * K + pick]) pick = j;
        }
        if (pick == K) break;
        const size_t r = row * K + pick;
        last = route_expert[r];
        any = true;
        const float w = route_weight[r];
        const float* src = expert_out + slot[r] * H;
        for (size_t c = 0; c < H; ++c) y[c] += w * src[c];
      }
    }
  });
}

// expert[0..K) = the indices of v[0..E)'s K largest values, largest first (ties to the higher
// index).
void LargestK(const float* v, size_t E, size_t K, uint32_t* expert) {
  for (size_t j = 0; j < K; ++j) {
    size_t best = E;
    for (size_t c = 0; c < E; ++c) {
      bool taken = false;
      for (size_t t = 0; t < j; ++t) taken = taken || expert[t] == c;
      if (taken) continue;
      if (best == E || v[c] > v[best] || (v[c] == v[best] && c > best)) best = c;
    }
    expert[j] = static_cast<uint32_t>(best);
  }
}

// One row's routing: softmax of the logits, the k largest probabilities (ties to the higher
// index), normalized when asked; a weight that is not > 0 gets expert E (skipped).
void MoEBase::Route(const float* logits, size_t E, float* probs, uint32_t* expert,
                    float* weight) const {
  const auto K = static_cast<size_t>(k_);
  if (qmoe_) {
    // QMoE: the k largest logits (ties to the higher index), then the softmax of those k; a
    // weight that is not > 1e-8 gets expert E (skipped).
    LargestK(logits, E, K, expert);
    float sum = 0.0f;
    for (size_t j = 0; j < K; ++j) {
      weight[j] = std::exp(logits[expert[j]] - logits[expert[0]]);
      sum += weight[j];
    }
    const float inv = sum == 0.0f ? 0.0f : 1.0f / sum;
    for (size_t j = 0; j < K; ++j) {
      weight[j] *= inv;
      if (!(weight[j] > 1e-8f)) expert[j] = static_cast<uint32_t>(E);
    }
    return;
  }
  float max = logits[0];
  for (size_t j = 1; j < E; ++j) max = std::max(max, logits[j]);
  float sum = 0.0f;
  for (size_t j = 0; j < E; ++j) {
    probs[j] = std::exp(logits[j] - max);
    sum += probs[j];
  }
  for (size_t j = 0; j < E; ++j) probs[j] /= sum;
  LargestK(probs, E, K, expert);
  for (size_t j = 0; j < K; ++j) weight[j] = probs[expert[j]];
  if (normalize_) {
    float total = 0.0f;
    for (size_t j = 0; j < K; ++j) total += weight[j];
    for (size_t j = 0; j < K; ++j) weight[j] /= total;
  }
  for (size_t j = 0; j < K; ++j) {
    if (!(weight[j] > 0.0f)) expert[j] = static_cast<uint32_t>(E);
  }
}

// fc1's outputs h (F of them, plus bias1) to the I inputs of fc2 in z (z may be h when not
// swiglu); with fc3's outputs g (plus bias3), z = act(h) ⊙ g.
void MoEBase::Activate(float* h, const float* bias1, float* z, size_t I, const float* g,
                       const float* bias3) const {
  if (activation_ == Activation::kSwiGlu) {
    for (size_t i = 0; i < I; ++i) {
      float gt = h[2 * i];
      float lin = h[2 * i + 1];
      if (bias1 != nullptr) {
        gt += bias1[2 * i];
        lin += bias1[2 * i + 1];
      }
      gt = std::min(gt, limit_);
      lin = std::clamp(lin, -limit_, limit_);
      z[i] = gt * SigmoidF(alpha_ * gt) * (lin + beta_);
    }
    return;
  }
  for (size_t i = 0; i < I; ++i) {
    float v = bias1 != nullptr ? h[i] + bias1[i] : h[i];
    switch (activation_) {
      case Activation::kRelu:
        v = std::max(0.0f, v);
        break;
      case Activation::kGelu:
        v = 0.5f * v * (1.0f + TanhF(0.7978845608f * (v + 0.044715f * v * v * v)));
        break;
      case Activation::kSilu:
        v = v * SigmoidF(v);
        break;
      default:
        break;
    }
    if (g != nullptr) v *= bias3 != nullptr ? g[i] + bias3[i] : g[i];
    z[i] = v;
  }
}

// QMoE (com.microsoft, opset 1), float: MoE with quantized fc1 / fc2 weights, as ONNX Runtime
// 1.30's CPU kernel computes it.
// Inputs: 0 input, 1 router_probs (as MoE's); 2 fc1_experts_weights uint8 [E, F, hidden / pack];
// 3 fc1_scales float [E, F] (per row) or, with block_size, [E, F, ceil(hidden / block_size)];
// 4 fc1_experts_bias [E, F]; 5 fc2_experts_weights uint8 [E, hidden, inter / pack]; 6 fc2_scales
// [E, hidden] or [E, hidden, ceil(inter / block_size)]; 7 fc2_experts_bias [E, hidden];
// 11 fc1_zero_points, 12 fc2_zero_points uint8: [E, ceil(F / pack)] per row (one zero point per
// row, packed along the rows) or [E, F, ceil(blocks / pack)] with block_size (packed along the
// blocks; per row when there is one block a row). pack = 8 / expert_weight_bits; inter is fc2's
// element count · pack / (E·hidden). Inputs 4, 7, 11, 12 are optional; fc3 (8-10, 13),
// router_weights (14) and the global scales are refused (fc3 as ONNX Runtime's CPU kernel does).
// Attributes: MoE's, and expert_weight_bits (4): 2, 4 or 8; block_size (0: per row): a power of
// two >= 16; quant_type ('int' only).
// A weight is scale·(q - zero point), in float: q is the bits-wide field of byte c / pack at bit
// (c % pack)·bits (the low nibble first), the zero point 2^(bits-1) when none is given.
// The block is then MoE on the dequantized weights, except for the routing: the k largest logits
// (ties to the higher expert), weighted by the softmax of those k (normalize_routing_weights is
// ignored); a weight not > 1e-8 skips its expert. Constant weights are dequantized once.
class QMoE final : public MoEBase {
 public:
  explicit QMoE(const KernelInfo& info)
      : MoEBase(info, true),
        bits_(info.GetInt("expert_weight_bits", 4)),
        block_(info.GetInt("block_size", 0)) {
    if (bits_ != 2 && bits_ != 4 && bits_ != 8) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'expert_weight_bits' is " +
                                              std::to_string(bits_) + "; it must be 2, 4 or 8");
    }
    if (block_ != 0 && (block_ < 16 || (block_ & (block_ - 1)) != 0)) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'block_size' is " + std::to_string(block_) +
                                              "; it must be a power of two >= 16");
    }
    const std::string qt = info.GetString("quant_type", "int");
    if (qt != "int") {
      info.Fail(ErrorCode::kNotImplemented,
                "attribute 'quant_type' is '" + qt + "'; only 'int' is supported");
    }
    for (int fc = 0; fc < 2; ++fc) {
      const Tensor* w = info.ConstantInput(fc == 0 ? 2 : 5);
      const Tensor* s = info.ConstantInput(fc == 0 ? 3 : 6);
      const Tensor* z = info.ConstantInput(fc == 0 ? 11 : 12);
      if (w == nullptr || s == nullptr || (info.HasInput(fc == 0 ? 11 : 12) && z == nullptr)) {
        continue;
      }
      if (w->type() != DataType::kUint8 || w->shape().rank() != 3) continue;
      const auto& d = w->shape().dims();
      const int64_t rows = d[1];
      const int64_t cols = d[2] * (8 / bits_);
      if (!Consistent(d[0], rows, cols, s, z)) continue;
      cache_[fc].rows = rows;
      cache_[fc].cols = cols;
      cache_[fc].data.resize(static_cast<size_t>(d[0] * rows * cols));
      Dequantize(nullptr, w, s, z, d[0], rows, cols, cache_[fc].data.data());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    static const char* const kNames[] = {
        "input",           "router_probs",     "fc1_experts_weights",
        "fc1_scales",      "fc1_experts_bias", "fc2_experts_weights",
        "fc2_scales",      "fc2_experts_bias", "fc3_experts_weights",
        "fc3_scales",      "fc3_experts_bias", "fc1_zero_points",
        "fc2_zero_points", "fc3_zero_points",  "router_weights"};
    const size_t n_in = ctx.input_count();
    for (size_t i = 8; i < n_in; ++i) {
      if (i == 11 || i == 12 || ctx.OptionalInput(i) == nullptr) continue;
      const std::string name = i < 15 ? kNames[i] : "#" + std::to_string(i);
      info.Fail(ErrorCode::kNotImplemented,
                "input '" + name +
                    "' is given; QMoE is supported without fc3 (which ONNX "
                    "Runtime's CPU kernel refuses), router_weights and global scales");
    }
    const Tensor* in[13] = {};
    for (size_t i = 0; i < 13 && i < n_in; ++i) in[i] = ctx.OptionalInput(i);
    for (size_t i : {0, 1, 2, 3, 5, 6}) {
      if (in[i] == nullptr) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + kNames[i] + "' is required");
      }
    }
    for (size_t i = 0; i < 13; ++i) {
      if (in[i] == nullptr) continue;
      const bool byte = i == 2 || i == 5 || i == 11 || i == 12;
      const DataType want = byte ? DataType::kUint8 : DataType::kFloat;
      if (in[i]->type() != want) {
        info.Fail(byte ? ErrorCode::kInvalidArgument : ErrorCode::kNotImplemented,
                  std::string("input '") + kNames[i] + "' is " + DataTypeName(in[i]->type()) +
                      (byte ? "; it must be uint8" : "; only float is supported"));
      }
    }
    const Tensor& input = *in[0];
    const auto& xd = input.shape().dims();
    if (xd.size() != 2 && xd.size() != 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input' has shape " + Dims(&input) +
                                                 "; it must be [rows, hidden] or [B, S, hidden]");
    }
    auto rank_check = [&](size_t i, size_t rank, const char* form) {
      if (in[i]->shape().rank() != rank) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + kNames[i] + "' has shape " +
                                                   Dims(in[i]) + "; it must be " + form);
      }
    };
    rank_check(1, 2, "[rows, experts]");
    rank_check(2, 3, "[experts, fc1 outputs, hidden / pack]");
    rank_check(5, 3, "[experts, hidden, inter / pack]");
    const int64_t pack = 8 / bits_;
    const int64_t rows = xd.size() == 2 ? xd[0] : xd[0] * xd[1];
    const int64_t hidden = xd.back();
    if (hidden <= 0 || hidden % pack != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'input' has shape " + Dims(&input) +
                    "; its last dimension must be > 0 and a multiple of " + std::to_string(pack) +
                    " (8 / expert_weight_bits)");
    }
    const int64_t experts = in[1]->shape().dims()[1];
    const auto& d1 = in[2]->shape().dims();
    const auto& d2 = in[5]->shape().dims();
    const int64_t fc2_count = d2[1] * d2[2] * pack;
    const int64_t inter = fc2_count / hidden;
    if (fc2_count % hidden != 0 || inter % pack != 0 || inter == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'fc2_experts_weights' has shape " + Dims(in[5]) +
                    "; its last two dimensions times " + std::to_string(pack) +
                    " must be hidden (" + std::to_string(hidden) +
                    ") times an inter size that is > 0 and a multiple of " + std::to_string(pack));
    }
    const bool swiglu = activation_ == Activation::kSwiGlu;
    const int64_t f1 = swiglu ? 2 * inter : inter;
    const bool legacy =
        (hidden != inter && d2[1] == inter) || (hidden == inter && swiglu && d1[1] == hidden);
    auto expect = [&](size_t i, std::initializer_list<int64_t> want) {
      if (in[i] == nullptr) return;
      const auto& d = in[i]->shape().dims();
      if (d.size() != want.size() || !std::equal(want.begin(), want.end(), d.begin())) {
        std::string w = "[";
        for (int64_t v : want) w += (w.size() > 1 ? "," : "") + std::to_string(v);
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + kNames[i] + "' has shape " + Dims(in[i]) +
                      "; it must be " + w + "] (input " + Dims(&input) + ", " +
                      std::to_string(experts) + " experts in router_probs, inter size " +
                      std::to_string(inter) + ", expert_weight_bits " + std::to_string(bits_) +
                      ", block_size " + std::to_string(block_) + ")");
      }
    };
    if (legacy) {
      expect(2, {experts, hidden, f1 / pack});
      expect(5, {experts, inter, hidden / pack});
    } else {
      expect(2, {experts, f1, hidden / pack});
      expect(5, {experts, hidden, inter / pack});
    }
    expect(1, {rows, experts});
    auto blocks = [&](int64_t cols) { return (cols + block_ - 1) / block_; };
    if (block_ > 0) {
      expect(3, {experts, f1, blocks(hidden)});
      expect(6, {experts, hidden, blocks(inter)});
    } else {
      expect(3, {experts, f1});
      expect(6, {experts, hidden});
    }
    // Zero points per block only with more than one block a row (as ONNX Runtime).
    auto zero_points = [&](size_t i, int64_t r, int64_t cols) {
      if (block_ > 0 && blocks(cols) > 1) {
        expect(i, {experts, r, (blocks(cols) + pack - 1) / pack});
      } else {
        expect(i, {experts, (r + pack - 1) / pack});
      }
    };
    zero_points(11, f1, hidden);
    zero_points(12, hidden, inter);
    expect(4, {experts, f1});
    expect(7, {experts, hidden});
    if (k_ > experts) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'k' is " + std::to_string(k_) +
                                                 " but router_probs has " +
                                                 std::to_string(experts) + " experts");
    }
    Tensor& out = ctx.OutputForOverwrite(0, DataType::kFloat, input.shape());
    if (rows == 0) return;
    // fc1's data as [E, f1, hidden], fc2's as [E, hidden, inter], whatever their shapes.
    const float* w[2];
    const int64_t dims[2][2] = {{f1, hidden}, {hidden, inter}};
    for (int fc = 0; fc < 2; ++fc) {
      const int64_t r = dims[fc][0];
      const int64_t c = dims[fc][1];
      if (cache_[fc].rows == r && cache_[fc].cols == c && !cache_[fc].data.empty()) {
        w[fc] = cache_[fc].data.data();
        continue;
      }
      float* dst = ctx.Scratch<float>(static_cast<size_t>(experts * r * c));
      Dequantize(&ctx.threads(), in[fc == 0 ? 2 : 5], in[fc == 0 ? 3 : 6], in[fc == 0 ? 11 : 12],
                 experts, r, c, dst);
      w[fc] = dst;
    }
    auto data = [](const Tensor* t) {
      return t != nullptr ? static_cast<const float*>(t->data()) : nullptr;
    };
    Run(ctx,
        {data(in[0]), data(in[1]), w[0], data(in[4]), w[1], data(in[7]), nullptr, nullptr, rows,
         experts, hidden, inter},
        static_cast<float*>(out.data()));
  }

 private:
  // Whether constant scales (and zero points) fit weights of E·rows rows of cols (for the cache).
  bool Consistent(int64_t E, int64_t rows, int64_t cols, const Tensor* s, const Tensor* z) const {
    const int64_t pack = 8 / bits_;
    auto is = [](const Tensor* t, std::initializer_list<int64_t> want) {
      const auto& d = t->shape().dims();
      return d.size() == want.size() && std::equal(want.begin(), want.end(), d.begin());
    };
    if (s->type() != DataType::kFloat || (z != nullptr && z->type() != DataType::kUint8)) {
      return false;
    }
    const int64_t nb = block_ > 0 ? (cols + block_ - 1) / block_ : 0;
    const bool zp_ok = z == nullptr || (nb > 1 ? is(z, {E, rows, (nb + pack - 1) / pack})
                                               : is(z, {E, (rows + pack - 1) / pack}));
    return zp_ok && (block_ > 0 ? is(s, {E, rows, nb}) : is(s, {E, rows}));
  }

  // Writes E·rows·cols floats: expert e's row r, column c at (e·rows + r)·cols + c.
  void Dequantize(ThreadPool* pool, const Tensor* q, const Tensor* s, const Tensor* z, int64_t E,
                  int64_t rows, int64_t cols, float* dst) const {
    const auto bits = static_cast<unsigned>(bits_);
    const auto pack = static_cast<size_t>(8 / bits_);
    const auto mask = static_cast<unsigned>((1 << bits_) - 1);
    const auto R = static_cast<size_t>(rows);
    const auto C = static_cast<size_t>(cols);
    const auto* qp = static_cast<const uint8_t*>(q->data());
    const auto* sp = static_cast<const float*>(s->data());
    const auto* zp = z != nullptr ? static_cast<const uint8_t*>(z->data()) : nullptr;
    // As ONNX Runtime: block-wise only when the scales have more than one block per row.
    const auto& sd = s->shape().dims();
    const size_t nb = sd.size() == 3 && sd[2] > 1 ? static_cast<size_t>(sd[2]) : 0;
    const size_t nb_packed = (nb + pack - 1) / pack;
    const size_t zp_expert = (R + pack - 1) / pack;
    const auto fallback = static_cast<float>(1u << (bits - 1));
    const size_t packed_cols = C / pack;
    auto work = [&](size_t begin, size_t end) {
      for (size_t er = begin; er < end; ++er) {
        const size_t e = er / R;
        const size_t r = er % R;
        const uint8_t* row = qp + er * packed_cols;
        float* out = dst + er * C;
        for (size_t c = 0; c < C; ++c) {
          const unsigned v = (row[c / pack] >> ((c % pack) * bits)) & mask;
          float scale;
          float zero = fallback;
          if (nb > 0) {
            const size_t b = c / static_cast<size_t>(block_);
            scale = sp[er * nb + b];
            if (zp != nullptr) {
              zero =
                  static_cast<float>((zp[er * nb_packed + b / pack] >> ((b % pack) * bits)) & mask);
            }
          } else {
            scale = sp[er];
            if (zp != nullptr) {
              zero =
                  static_cast<float>((zp[e * zp_expert + r / pack] >> ((r % pack) * bits)) & mask);
            }
          }
          out[c] = scale * (static_cast<float>(v) - zero);
        }
      }
    };
    const size_t total = static_cast<size_t>(E) * R;
    if (pool != nullptr) {
      pool->ParallelFor(total, 4, work);
    } else {
      work(0, total);
    }
  }

  struct Cache {
    int64_t rows = -1;
    int64_t cols = -1;
    std::vector<float> data;
  };

  int64_t bits_;
  int64_t block_;
  Cache cache_[2];
};

}  // namespace

std::unique_ptr<Kernel> MakeMoE(const KernelInfo& info) {
  return std::make_unique<MoE>(info);
}

std::unique_ptr<Kernel> MakeQMoE(const KernelInfo& info) {
  return std::make_unique<QMoE>(info);
}

}  // namespace kiln::cpu
