// Rules for the attention family (kernels/cpu/attention/), each giving what the kernel makes:
//   Attention: Y [B, Hq, Sq, Dv] (4D) or [B, Sq, Hq·Dv] (3D); present_key/present_value
//     [B, Hkv, P + Skv, D]; qk_matmul_output [B, Hq, Sq, P + Skv]; all of Q's type. Q, K and V
//     must share a rank of 3 or 4.
//   RotaryEmbedding (and com.microsoft's), TensorScatter: the first input's type and shape.
//   CausalConvWithState: output like input [B, C, L]; present_state [B, C, K - 1] from weight
//     [C, 1, K].
//   LinearAttention: output [B, T, Hq·Dv], present_state [B, Hkv, Dk, Dv] (past_state's type,
//     else query's).
//   FlexAttention (ai.onnx.preview): Y [B, Hq, L, Ev] of Q's type.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

// Dimension i of `dims` (unknown when the shape is).
int64_t Dim(const std::optional<std::vector<int64_t>>& dims, size_t i) {
  return dims && i < dims->size() ? (*dims)[i] : kUnknownDim;
}

// a / b for a known head count b > 0; unknown otherwise.
int64_t DivDims(int64_t a, int64_t b) {
  return IsKnownDim(a) && b > 0 ? a / b : kUnknownDim;
}

void Attention(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const auto q = InputDims(ctx, 0);
  const auto k = InputDims(ctx, 1);
  const auto v = InputDims(ctx, 2);
  const auto past = InputDims(ctx, 4);
  size_t rank = 0;
  for (const auto& [dims, name] : {std::pair{&q, "Q"}, std::pair{&k, "K"}, std::pair{&v, "V"}}) {
    if (!*dims) continue;
    if ((*dims)->size() != 3 && (*dims)->size() != 4) {
      ctx.Fail(std::string("input '") + name + "' has shape " + DimsText(**dims) +
               "; it must be 3-D or 4-D");
    }
    if (rank != 0 && (*dims)->size() != rank) ctx.Fail("inputs 'Q', 'K' and 'V' differ in rank");
    rank = (*dims)->size();
  }
  if (rank == 0) {
    for (size_t i = 0; i < 4; ++i) {
      if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, type, std::nullopt);
    }
    return;
  }
  const int64_t q_heads_attr = ctx.info().GetInt("q_num_heads", 0);
  const int64_t kv_heads_attr = ctx.info().GetInt("kv_num_heads", 0);
  const bool three_d = rank == 3;
  const int64_t batch = Dim(q, 0);
  const int64_t q_heads = three_d ? (q_heads_attr > 0 ? q_heads_attr : kUnknownDim) : Dim(q, 1);
  const int64_t kv_heads = three_d ? (kv_heads_attr > 0 ? kv_heads_attr : kUnknownDim) : Dim(k, 1);
  const int64_t q_len = three_d ? Dim(q, 1) : Dim(q, 2);
  const int64_t kv_len = three_d ? Dim(k, 1) : Dim(k, 2);
  const int64_t head_size = three_d ? DivDims(Dim(q, 2), q_heads_attr) : Dim(q, 3);
  const int64_t v_head_size = three_d ? DivDims(Dim(v, 2), kv_heads_attr) : Dim(v, 3);
  const int64_t past_len = IsMissing(ctx, 4) ? 0 : Dim(past, 2);
  const int64_t total = AddDims(past_len, kv_len);
  if (three_d) {
    SetOutputDims(ctx, 0, type, std::vector<int64_t>{batch, q_len, MulDims(q_heads, v_head_size)});
  } else {
    SetOutputDims(ctx, 0, type, std::vector<int64_t>{batch, q_heads, q_len, v_head_size});
  }
  if (ctx.WantsOutput(1)) {
    SetOutputDims(ctx, 1, type, std::vector<int64_t>{batch, kv_heads, total, head_size});
  }
  if (ctx.WantsOutput(2)) {
    SetOutputDims(ctx, 2, type, std::vector<int64_t>{batch, kv_heads, total, v_head_size});
  }
  if (ctx.WantsOutput(3)) {
    SetOutputDims(ctx, 3, type, std::vector<int64_t>{batch, q_heads, q_len, total});
  }
}

void LikeFirstInput(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputDims(ctx, 0));
}

void CausalConvWithState(InferenceContext& ctx) {
  const auto x = InputDims(ctx, 0);
  const auto w = InputDims(ctx, 1);
  if (x && x->size() != 3) ctx.Fail("input 'input' has shape " + DimsText(*x) + "; it must be 3-D");
  if (w && w->size() != 3) {
    ctx.Fail("input 'weight' has shape " + DimsText(*w) + "; it must be 3-D");
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  if (ctx.WantsOutput(1)) {
    const int64_t k = Dim(w, 2);
    SetOutputDims(ctx, 1, InputType(ctx, 0),
                  std::vector<int64_t>{Dim(x, 0), Dim(x, 1), IsKnownDim(k) ? k - 1 : kUnknownDim});
  }
}

void LinearAttention(InferenceContext& ctx) {
  const auto q = InputDims(ctx, 0);
  const auto v = InputDims(ctx, 2);
  const int64_t q_heads = ctx.info().GetInt("q_num_heads", 0);
  const int64_t kv_heads = ctx.info().GetInt("kv_num_heads", 0);
  if (q && q->size() != 3) ctx.Fail("input 'query' has shape " + DimsText(*q) + "; it must be 3-D");
  const int64_t dk = DivDims(Dim(q, 2), q_heads);
  const int64_t dv = DivDims(Dim(v, 2), kv_heads);
  SetOutputDims(
      ctx, 0, InputType(ctx, 0),
      std::vector<int64_t>{Dim(q, 0), Dim(q, 1), q_heads > 0 ? MulDims(q_heads, dv) : kUnknownDim});
  if (ctx.WantsOutput(1)) {
    const DataType state_type = IsMissing(ctx, 3) ? InputType(ctx, 0) : InputType(ctx, 3);
    SetOutputDims(ctx, 1, state_type,
                  std::vector<int64_t>{Dim(q, 0), kv_heads > 0 ? kv_heads : kUnknownDim, dk, dv});
  }
}

void FlexAttention(InferenceContext& ctx) {
  const auto q = InputDims(ctx, 0);
  const auto v = InputDims(ctx, 2);
  if (q && q->size() != 4) ctx.Fail("input 'Q' has shape " + DimsText(*q) + "; it must be 4-D");
  SetOutputDims(ctx, 0, InputType(ctx, 0),
                std::vector<int64_t>{Dim(q, 0), Dim(q, 1), Dim(q, 2), Dim(v, 3)});
}

constexpr RuleDef kRules[] = {
    {"Attention", &Attention},
    {"RotaryEmbedding", &LikeFirstInput},
    {"RotaryEmbedding", &LikeFirstInput, "com.microsoft"},
    {"TensorScatter", &LikeFirstInput},
    {"CausalConvWithState", &CausalConvWithState},
    {"LinearAttention", &LinearAttention},
    {"FlexAttention", &FlexAttention, "ai.onnx.preview"},
};

}  // namespace

std::span<const RuleDef> AttentionRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
