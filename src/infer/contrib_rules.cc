// Rules for the com.microsoft fused ops (kernels/cpu/contrib/), each giving what the kernel makes:
//   Gelu, FastGelu, BiasGelu, QuickGelu: the first input's type and shape (a known bias must be
//     1-D of its last dimension).
//   SkipLayerNormalization, SkipSimplifiedLayerNormalization: output and input_skip_bias_sum like
//     input; mean and inv_std_var float, input's shape with the last dimension 1.
//   EmbedLayerNormalization, QEmbedLayerNormalization: output and embedding_sum float [B, S, H]
//     from input_ids [B, S] and word_embedding [V, H]; mask_index int32 [B].
//   ImageScaler, Affine, ScaledTanh, ParametricSoftplus, Scale (ONNX's early experimental ops):
//     like the input. Crop: [N, C, H - top - bottom, W - left - right], or [N, C, h, w] with
//     attribute scale = [h, w].
//   GroupQueryAttention: output float [B, S, N·H] from query [B, S, N·H] (or packed
//     [B, S, (N + 2·Nk)·H]); present_key and present_value [B, Nk, ?, H] (their length is
//     max(total_sequence_length, the past's), a value); output_qk [B, N, S, T], T the value of
//     total_sequence_length when known (a constant or a dimension).
//   FusedGemm: Gemm's [M, N].
//   FusedMatMul: MatMul's numpy.matmul shape after transA / transB swap the last two axes of an
//     operand of rank >= 2.
//   MoE, QMoE: like the input.
//   MultiHeadAttention: [B, S, Dv] from query [B, S, D] and value [B, L, Dv]; num_heads must
//     divide D and Dv.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

void RequireSameDim(const InferenceContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (IsKnownDim(a) && IsKnownDim(b) && a != b) ctx.Fail(what);
}

// Y like input 0 (named `x_name`); input 1 (named `bias_name`, null for Gelu), when present and
// known, must be [last dimension of input 0].
void GeluLike(InferenceContext& ctx, const char* x_name, const char* bias_name) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b =
      bias_name != nullptr ? InputNamedDims(ctx, 1) : std::nullopt;
  if (b && (b->size() != 1 || (x && !x->empty() && IsKnownDim((*b)[0]) && IsKnownDim(x->back()) &&
                               (*b)[0] != x->back()))) {
    ctx.Fail(std::string("input '") + bias_name + "' has shape " + DimsText(*b) +
             "; it must be 1-D of the last dimension of input '" + x_name + "'" +
             (x ? " " + DimsText(*x) : std::string()));
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

void Gelu(InferenceContext& ctx) {
  GeluLike(ctx, "X", nullptr);
}
void FastGelu(InferenceContext& ctx) {
  GeluLike(ctx, "X", "bias");
}
void BiasGelu(InferenceContext& ctx) {
  GeluLike(ctx, "A", "B");
}
void QuickGelu(InferenceContext& ctx) {
  GeluLike(ctx, "X", nullptr);
}

void SkipLayerNormalization(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (x && x->size() != 2 && x->size() != 3) {
    ctx.Fail("input 'input' has shape " + DimsText(*x) + "; it must be 2-D or 3-D");
  }
  if (ctx.info().op_type() == "SkipSimplifiedLayerNormalization" && ctx.WantsOutput(1)) {
    ctx.Fail("output 1 ('mean') is not defined: the simplified (RMS) form subtracts no mean");
  }
  SetOutputDims(ctx, 0, type, x);
  std::optional<std::vector<int64_t>> stats = x;
  if (stats) stats->back() = 1;
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, DataType::kFloat, stats);
  }
  if (ctx.WantsOutput(3)) SetOutputDims(ctx, 3, type, x);
}

void EmbedLayerNormalization(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> ids = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> words = InputNamedDims(ctx, 2);
  if (ids && ids->size() != 2) {
    ctx.Fail("input 'input_ids' has shape " + DimsText(*ids) + "; it must be [batch, sequence]");
  }
  if (words && words->size() != 2) {
    ctx.Fail("input 'word_embedding' has shape " + DimsText(*words) +
             "; it must be [rows, hidden]");
  }
  std::vector<int64_t> out{kUnknownDim, kUnknownDim, kUnknownDim};
  if (ids) std::copy(ids->begin(), ids->end(), out.begin());
  if (words) out[2] = (*words)[1];
  SetOutputDims(ctx, 0, DataType::kFloat, out);
  if (ctx.WantsOutput(1)) SetOutputDims(ctx, 1, DataType::kInt32, std::vector<int64_t>{out[0]});
  if (ctx.WantsOutput(2)) SetOutputDims(ctx, 2, DataType::kFloat, out);
}

void LikeInput(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputNamedDims(ctx, 0));
}

void Crop(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (x && x->size() != 4) {
    ctx.Fail("input 'input' has shape " + DimsText(*x) + "; it must be [N, C, H, W]");
  }
  const std::vector<int64_t> border = ctx.info().GetInts("border", {});
  const std::vector<int64_t> scale = ctx.info().GetInts("scale", {});
  if (x && border.size() == 4) {
    if (scale.size() == 2) {
      (*x)[2] = scale[0];
      (*x)[3] = scale[1];
    } else {
      (*x)[2] = IsKnownDim((*x)[2]) ? (*x)[2] - border[1] - border[3] : kUnknownDim;
      (*x)[3] = IsKnownDim((*x)[3]) ? (*x)[3] - border[0] - border[2] : kUnknownDim;
    }
    if (((*x)[2] < 0 && IsKnownDim((*x)[2])) || ((*x)[3] < 0 && IsKnownDim((*x)[3]))) {
      ctx.Fail("input 'input' has shape " + DimsText(*InputNamedDims(ctx, 0)) +
               "; the crop by attribute 'border' does not fit in it");
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

void GroupQueryAttention(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> q = InputNamedDims(ctx, 0);
  const int64_t heads = ctx.info().GetInt("num_heads", 0);
  const int64_t kv_heads = ctx.info().GetInt("kv_num_heads", 0);
  if (q && q->size() != 3) {
    ctx.Fail("input 'query' has shape " + DimsText(*q) + "; it must be [batch, sequence, hidden]");
  }
  std::vector<int64_t> out{kUnknownDim, kUnknownDim, kUnknownDim};
  int64_t head = kUnknownDim;
  if (q) {
    out[0] = (*q)[0];
    out[1] = (*q)[1];
    const int64_t in_query = IsMissing(ctx, 1) ? heads + 2 * kv_heads : heads;
    if (IsKnownDim((*q)[2]) && in_query > 0 && (*q)[2] % in_query == 0) {
      head = (*q)[2] / in_query;
      out[2] = head * heads;
    }
  }
  SetOutputDims(ctx, 0, DataType::kFloat, out);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (ctx.WantsOutput(i)) {
      SetOutputDims(
          ctx, i, DataType::kFloat,
          std::vector<int64_t>{out[0], kv_heads > 0 ? kv_heads : kUnknownDim, kUnknownDim, head});
    }
  }
  if (ctx.WantsOutput(3)) {
    const std::optional<std::vector<int64_t>> total = InputDimsValue(ctx, 6);
    SetOutputDims(
        ctx, 3, DataType::kFloat,
        std::vector<int64_t>{
            out[0], heads > 0 ? heads : kUnknownDim, out[1],
            total && total->size() == 1 && IsNamedDim((*total)[0]) ? (*total)[0] : kUnknownDim});
  }
}

// FusedGemm: Gemm's [M, N] from A and B (transA, transB).
void FusedGemm(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> a = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b = InputNamedDims(ctx, 1);
  for (const auto& [d, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    if (*d && (*d)->size() != 2) {
      ctx.Fail(std::string("input '") + name + "' has shape " + DimsText(**d) + "; it must be 2-D");
    }
  }
  const bool ta = ctx.info().GetInt("transA", 0) != 0;
  const bool tb = ctx.info().GetInt("transB", 0) != 0;
  SetOutputDims(
      ctx, 0, InputType(ctx, 0),
      std::vector<int64_t>{a ? (*a)[ta ? 1 : 0] : kUnknownDim, b ? (*b)[tb ? 0 : 1] : kUnknownDim});
}

void FusedMatMul(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> a_dims = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b_dims = InputNamedDims(ctx, 1);
  if (!a_dims || !b_dims) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const std::string shapes =
      "input 'A' has shape " + DimsText(*a_dims) + " and input 'B' has shape " + DimsText(*b_dims);
  if (a_dims->empty() || b_dims->empty()) ctx.Fail(shapes + ": operands must have rank 1 or more");
  std::vector<int64_t> a = *a_dims;
  std::vector<int64_t> b = *b_dims;
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  // transBatchA / transBatchB: axes [1, ..., r-2, 0, r-1] of an operand of rank r >= 3.
  const auto move_first_axis_to_rows = [](std::vector<int64_t>& d) {
    if (d.size() < 3) return;
    const int64_t first = d.front();
    d.erase(d.begin());
    d.insert(d.end() - 1, first);
  };
  if (ctx.info().GetInt("transBatchA", 0) != 0) move_first_axis_to_rows(a);
  if (ctx.info().GetInt("transBatchB", 0) != 0) move_first_axis_to_rows(b);
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  if (!a_vector && ctx.info().GetInt("transA", 0) != 0) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (!b_vector && ctx.info().GetInt("transB", 0) != 0) std::swap(b[b.size() - 1], b[b.size() - 2]);
  RequireSameDim(ctx, a.back(), b[b.size() - 2],
                 shapes + ": the inner dimensions (" + std::to_string(a.back()) + " and " +
                     std::to_string(b[b.size() - 2]) + ") differ");
  std::vector<int64_t> out(a.begin(), a.end() - 2);
  BroadcastInto(ctx, out, std::vector<int64_t>(b.begin(), b.end() - 2), "B");
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b.back());
  SetOutputDims(ctx, 0, type, out);
}

void MultiHeadAttention(InferenceContext& ctx) {
  const int64_t heads = ctx.info().RequireInt("num_heads");
  if (heads <= 0) {
    ctx.Fail("attribute 'num_heads' is " + std::to_string(heads) + "; it must be positive");
  }
  const std::optional<std::vector<int64_t>> q = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> v = InputNamedDims(ctx, 2);
  std::vector<int64_t> out = {kUnknownDim, kUnknownDim, kUnknownDim};
  if (q && q->size() == 3) {
    out[0] = (*q)[0];
    out[1] = (*q)[1];
    if (IsKnownDim((*q)[2]) && (*q)[2] % heads != 0) {
      ctx.Fail("attribute 'num_heads' (" + std::to_string(heads) +
               ") does not divide the hidden size of input 'query' " + DimsText(*q));
    }
  }
  if (v && v->size() == 3) {
    out[2] = (*v)[2];
    if (IsKnownDim((*v)[2]) && (*v)[2] % heads != 0) {
      ctx.Fail("attribute 'num_heads' (" + std::to_string(heads) +
               ") does not divide the hidden size of input 'value' " + DimsText(*v));
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

// com.microsoft Attention and QAttention: output [B, S, V hidden size]; present [2, B,
// num_heads, past + S, head size] when asked for.
void ContribAttention(InferenceContext& ctx) {
  const int64_t heads = ctx.info().RequireInt("num_heads");
  if (heads <= 0) {
    ctx.Fail("attribute 'num_heads' is " + std::to_string(heads) + "; it must be positive");
  }
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> w = InputNamedDims(ctx, 1);
  const std::vector<int64_t> sizes = ctx.info().GetInts("qkv_hidden_sizes");
  int64_t dq = kUnknownDim, dv = kUnknownDim;
  if (sizes.size() == 3) {
    dq = sizes[0];
    dv = sizes[2];
  } else if (w && w->size() == 2 && IsKnownDim((*w)[1])) {
    dq = dv = (*w)[1] / 3;
  }
  std::vector<int64_t> out = {kUnknownDim, kUnknownDim, dv};
  if (x && x->size() == 3) {
    out[0] = (*x)[0];
    out[1] = (*x)[1];
  }
  SetOutputDims(ctx, 0, DataType::kFloat, out);
  if (ctx.WantsOutput(1)) {
    const bool quantized = ctx.info().op_type() == "QAttention";
    const std::optional<std::vector<int64_t>> past = InputNamedDims(ctx, quantized ? 8 : 4);
    int64_t total = out[1];
    if (past && past->size() == 5) total = AddDims((*past)[3], out[1]);
    const int64_t head = IsKnownDim(dq) ? dq / heads : kUnknownDim;
    SetOutputDims(ctx, 1, DataType::kFloat,
                  std::vector<int64_t>{2, out[0], heads,
                                       IsMissing(ctx, quantized ? 8 : 4) ? out[1] : total, head});
  }
}

constexpr RuleDef kRules[] = {
    {"Gelu", Gelu, "com.microsoft"},
    {"FastGelu", FastGelu, "com.microsoft"},
    {"BiasGelu", BiasGelu, "com.microsoft"},
    {"QuickGelu", QuickGelu, "com.microsoft"},
    {"EmbedLayerNormalization", EmbedLayerNormalization, "com.microsoft"},
    {"QEmbedLayerNormalization", EmbedLayerNormalization, "com.microsoft"},
    {"GroupQueryAttention", GroupQueryAttention, "com.microsoft"},
    {"FusedGemm", FusedGemm, "com.microsoft"},
    {"ImageScaler", LikeInput, ""},
    {"Crop", Crop, ""},
    {"Affine", LikeInput, ""},
    {"ScaledTanh", LikeInput, ""},
    {"ParametricSoftplus", LikeInput, ""},
    {"Scale", LikeInput, ""},
    {"SkipLayerNormalization", SkipLayerNormalization, "com.microsoft"},
    {"SkipSimplifiedLayerNormalization", SkipLayerNormalization, "com.microsoft"},
    {"FusedMatMul", FusedMatMul, "com.microsoft"},
    {"MultiHeadAttention", MultiHeadAttention, "com.microsoft"},
    {"Attention", ContribAttention, "com.microsoft"},
    {"QAttention", ContribAttention, "com.microsoft"},
    {"MoE", LikeInput, "com.microsoft"},
    {"QMoE", LikeInput, "com.microsoft"},
};

}  // namespace

std::span<const RuleDef> ContribRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
