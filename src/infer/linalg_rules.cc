// Rules for the linear algebra ops: MatMul and MatMulInteger (numpy.matmul: 1-D operands promoted
// and the added dimension dropped, batch dimensions broadcast; MatMulInteger gives int32), Gemm
// (transA/transB; C must broadcast to [M, N], or equal it before opset 7 with broadcast = 0),
// LayerNormalization (Y like X; Mean and InvStdDev float, X's shape with 1 from `axis` on).
#include <algorithm>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

// Fails when two known dimensions that must be equal differ.
void RequireSameDim(const InferenceContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (IsKnownDim(a) && IsKnownDim(b) && a != b) ctx.Fail(what);
}

template <DataType kFixedType>
void MatMul(InferenceContext& ctx) {
  const DataType type = kFixedType != DataType::kUndefined ? kFixedType : InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> a_dims = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b_dims = InputDims(ctx, 1);
  if (!a_dims || !b_dims) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const std::string shapes =
      "input 'A' has shape " + DimsText(*a_dims) + " and input 'B' has shape " + DimsText(*b_dims);
  if (a_dims->empty() || b_dims->empty()) {
    ctx.Fail(shapes + ": MatMul needs operands of rank 1 or more");
  }
  std::vector<int64_t> a = *a_dims;
  std::vector<int64_t> b = *b_dims;
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  RequireSameDim(ctx, a.back(), b[b.size() - 2],
                 shapes + ": the last dimension of A (" + std::to_string(a.back()) +
                     ") must equal the " + (b_vector ? "only" : "second-to-last") +
                     " dimension of B (" + std::to_string(b[b.size() - 2]) + ")");
  std::vector<int64_t> out(a.begin(), a.end() - 2);
  const std::vector<int64_t> b_batch(b.begin(), b.end() - 2);
  BroadcastInto(ctx, out, b_batch, "B");
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b.back());
  SetOutputDims(ctx, 0, type, out);
}

void Gemm(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> a = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b = InputDims(ctx, 1);
  const bool trans_a = ctx.info().GetInt("transA", 0) != 0;
  const bool trans_b = ctx.info().GetInt("transB", 0) != 0;
  for (const auto& [dims, name] : {std::pair{&a, "A"}, std::pair{&b, "B"}}) {
    if (*dims && (*dims)->size() != 2) {
      ctx.Fail(std::string("input '") + name + "' has shape " + DimsText(**dims) +
               ": it must be 2-D");
    }
  }
  const int64_t m = a ? (*a)[trans_a ? 1 : 0] : kUnknownDim;
  const int64_t k = a ? (*a)[trans_a ? 0 : 1] : kUnknownDim;
  const int64_t kb = b ? (*b)[trans_b ? 1 : 0] : kUnknownDim;
  const int64_t n = b ? (*b)[trans_b ? 0 : 1] : kUnknownDim;
  if (a && b) {
    RequireSameDim(ctx, k, kb,
                   "input 'A' has shape " + DimsText(*a) + " (transA=" + std::to_string(trans_a) +
                       ") and input 'B' has shape " + DimsText(*b) +
                       " (transB=" + std::to_string(trans_b) + "): the inner dimensions " +
                       std::to_string(k) + " and " + std::to_string(kb) + " differ");
  }
  const std::vector<int64_t> y = {m, n};
  if (const std::optional<std::vector<int64_t>> c = InputDims(ctx, 2)) {
    const bool exact = ctx.opset() < 7 && ctx.info().GetInt("broadcast", 0) == 0;
    if (exact) {
      bool differ = c->size() != 2;
      for (size_t i = 0; !differ && i < 2; ++i) {
        differ = IsKnownDim((*c)[i]) && IsKnownDim(y[i]) && (*c)[i] != y[i];
      }
      if (differ) {
        ctx.Fail("input 'C' has shape " + DimsText(*c) + " but must be " + DimsText(y) +
                 " when broadcast is 0");
      }
    } else {
      // C broadcasts to Y unidirectionally: each of its dimensions is 1 or Y's.
      bool fits = c->size() <= 2;
      for (size_t i = 0; fits && i < c->size(); ++i) {
        const int64_t d = (*c)[i];
        const int64_t o = y[2 - c->size() + i];
        fits = !IsKnownDim(d) || !IsKnownDim(o) || d == 1 || d == o;
      }
      if (!fits) {
        ctx.Fail("input 'C' has shape " + DimsText(*c) + ", which does not broadcast to " +
                 DimsText(y));
      }
    }
  }
  SetOutputDims(ctx, 0, type, y);
}

void LayerNormalization(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  if (!ctx.WantsOutput(1) && !ctx.WantsOutput(2)) return;
  // The statistics have the stash type, which the kernel only supports as float, and X's shape
  // with 1 from `axis` on.
  const DataType stash =
      ctx.info().GetInt("stash_type", 1) == 1 ? DataType::kFloat : DataType::kUndefined;
  if (!x) {
    for (size_t i : {size_t{1}, size_t{2}}) SetOutputDims(ctx, i, stash, std::nullopt);
    return;
  }
  std::vector<int64_t> stats = *x;
  const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", -1), stats.size(), "axis", "X");
  std::fill(stats.begin() + static_cast<std::ptrdiff_t>(axis), stats.end(), 1);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, stash, stats);
  }
}

constexpr RuleDef kRules[] = {
    {"MatMul", MatMul<DataType::kUndefined>},
    {"MatMulInteger", MatMul<DataType::kInt32>},
    {"Gemm", Gemm},
    {"LayerNormalization", LayerNormalization},
};

}  // namespace

std::span<const RuleDef> LinalgRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
