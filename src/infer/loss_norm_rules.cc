// Rules for the ops of the losses, normalizations and bit-cast group:
//   same type and shape as input 0: Swish, CumProd, MeanVarianceNormalization, RMSNormalization;
//   SwiGLU: A's type and shape (B must have the same shape; no broadcasting);
//   BitCast: the type `to` names, input 0's shape;
//   NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: input 0's type; the loss has the target's
//     shape with reduction "none", else it is a scalar; SCE's log_prob has the scores' shape.
#include <optional>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

void SameAsInput(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputNamedDims(ctx, 0));
}

void SwiGlu(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> a = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b = InputDims(ctx, 1);
  std::optional<std::vector<int64_t>> out = a ? a : b;
  if (a && b) {
    if (a->size() != b->size()) {
      ctx.Fail("input 'B' has shape " + DimsText(*b) + " but 'A' has shape " + DimsText(*a) +
               "; SwiGLU does not broadcast");
    }
    for (size_t i = 0; i < a->size(); ++i) {
      const int64_t p = (*a)[i];
      const int64_t q = (*b)[i];
      if (IsKnownDim(p) && IsKnownDim(q) && p != q) {
        ctx.Fail("input 'B' has shape " + DimsText(*b) + " but 'A' has shape " + DimsText(*a) +
                 "; SwiGLU does not broadcast");
      }
      (*out)[i] = IsKnownDim(p) ? p : q;
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

void BitCast(InferenceContext& ctx) {
  const int64_t to = ctx.info().GetInt("to", 0);
  const DataType type =
      to > 0 && to <= kMaxDataType ? static_cast<DataType>(to) : DataType::kUndefined;
  SetOutputDims(ctx, 0, type, InputDims(ctx, 0));
}

void Loss(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  if (ctx.info().GetString("reduction", "mean") == "none") {
    SetOutputDims(ctx, 0, type, InputDims(ctx, 1));
  } else {
    SetOutputDims(ctx, 0, type, std::vector<int64_t>{});
  }
  if (ctx.output_count() > 1 && ctx.WantsOutput(1)) {
    SetOutputDims(ctx, 1, type, InputDims(ctx, 0));
  }
}

constexpr RuleDef kRules[] = {
    {"Swish", SameAsInput},
    {"CumProd", SameAsInput},
    {"MeanVarianceNormalization", SameAsInput},
    {"RMSNormalization", SameAsInput},
    {"SwiGLU", SwiGlu},
    {"BitCast", BitCast},
    {"NegativeLogLikelihoodLoss", Loss},
    {"SoftmaxCrossEntropyLoss", Loss},
};

}  // namespace

std::span<const RuleDef> LossNormRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
