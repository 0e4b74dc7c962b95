// Rules for the linear algebra ops: MatMul and MatMulInteger (numpy.matmul: 1-D operands promoted
// and the added dimension dropped, batch dimensions broadcast; MatMulInteger gives int32, and
// com.microsoft's MatMulIntegerToFloat and DynamicQuantizeMatMul float), Gemm
// (transA/transB; C must broadcast to [M, N], or equal it before opset 7 with broadcast = 0),
// LayerNormalization (Y like X; Mean and InvStdDev float, X's shape with 1 from `axis` on; ONNX
// Runtime's SimplifiedLayerNormalization the same with InvStdDev as output 1),
// Einsum (the inputs' one type; the output shape from the kernel's own equation parser and
// binder, kernels/cpu/linalg/einsum_equation.h, so that the rule and the kernel cannot disagree),
// ai.kiln BlockedMatMul (A [..., K], B [K, N] → [..., N]).
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "infer/rule_util.h"
#include "infer/rules.h"
#include "kernels/cpu/linalg/einsum_equation.h"

namespace kiln::infer {
namespace {

// Fails when two known dimensions that must be equal differ.
void RequireSameDim(const InferenceContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (IsKnownDim(a) && IsKnownDim(b) && a != b) ctx.Fail(what);
}

template <DataType kFixedType>
void MatMul(InferenceContext& ctx) {
  const DataType type = kFixedType != DataType::kUndefined ? kFixedType : InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> a_dims = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b_dims = InputNamedDims(ctx, 1);
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
  const std::optional<std::vector<int64_t>> a = InputNamedDims(ctx, 0);
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

// LayerNormalization's statistics are outputs 1 (Mean) and 2 (InvStdDev); ONNX Runtime's
// SimplifiedLayerNormalization has only InvStdDev, as output 1.
void NormWithStatistics(InferenceContext& ctx, std::initializer_list<size_t> stat_outputs) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  if (std::none_of(stat_outputs.begin(), stat_outputs.end(),
                   [&](size_t i) { return ctx.WantsOutput(i); })) {
    return;
  }
  // The statistics have the stash type, which the kernel only supports as float, and X's shape
  // with 1 from `axis` on.
  const DataType stash =
      ctx.info().GetInt("stash_type", 1) == 1 ? DataType::kFloat : DataType::kUndefined;
  if (!x) {
    for (size_t i : stat_outputs) SetOutputDims(ctx, i, stash, std::nullopt);
    return;
  }
  std::vector<int64_t> stats = *x;
  const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", -1), stats.size(), "axis", "X");
  std::fill(stats.begin() + static_cast<std::ptrdiff_t>(axis), stats.end(), 1);
  for (size_t i : stat_outputs) {
    if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, stash, stats);
  }
}

void LayerNormalization(InferenceContext& ctx) {
  NormWithStatistics(ctx, {1, 2});
}

void SimplifiedLayerNormalization(InferenceContext& ctx) {
  NormWithStatistics(ctx, {1});
}

// Runs f, a call of the Einsum parser or binder, turning what it throws for a bad equation
// (kInvalidArgument, its message already naming the node and the equation) into the rule's
// kInvalidGraph with the same message.
template <typename F>
auto EinsumOrFail(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kInvalidArgument) throw;
    throw Error(ErrorCode::kInvalidGraph, e.what());
  }
}

cpu::EinsumLabels BindEinsumOrFail(const InferenceContext& ctx, const cpu::EinsumEquation& eq,
                                   const std::vector<std::vector<int64_t>>& dims) {
  std::vector<std::span<const int64_t>> spans(dims.begin(), dims.end());
  return EinsumOrFail([&] { return cpu::BindEinsum(ctx.info(), eq, spans); });
}

void Einsum(InferenceContext& ctx) {
  // One type for all inputs, as the kernel requires.
  DataType type = DataType::kUndefined;
  size_t typed = 0;  // the first input of known type
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    const DataType t = InputType(ctx, i);
    if (t == DataType::kUndefined) continue;
    if (type == DataType::kUndefined) {
      type = t;
      typed = i;
    } else if (t != type) {
      ctx.Fail("input " + std::to_string(i) + " is " + DataTypeName(t) + " but input " +
               std::to_string(typed) + " is " + DataTypeName(type));
    }
  }
  if (!ctx.info().HasAttribute("equation")) ctx.Fail("attribute 'equation' is required");
  const cpu::EinsumEquation eq = EinsumOrFail([&] {
    return cpu::ParseEinsum(ctx.info(), ctx.info().GetString("equation", ""), ctx.input_count());
  });
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    std::optional<std::vector<int64_t>> d = InputDims(ctx, i);
    if (!d) {
      SetOutputDims(ctx, 0, type, std::nullopt);
      return;
    }
    dims.push_back(std::move(*d));
  }

  // Which label each dimension has depends on the ranks only: binding dimensions of 1 (which
  // agree whatever the labels) finds them, and fails only where a rank does not fit its term.
  std::vector<std::vector<int64_t>> ones = dims;
  for (std::vector<int64_t>& d : ones) std::fill(d.begin(), d.end(), 1);
  const cpu::EinsumLabels structure = BindEinsumOrFail(ctx, eq, ones);

  // Per label: its first known size other than 1 (after broadcasting it is that or the kernel
  // fails), and whether all its sizes are known (then it is known even when all are 1).
  std::vector<int64_t> decided(structure.sizes.size(), kUnknownDim);
  std::vector<bool> all_known(structure.sizes.size(), true);
  for (size_t i = 0; i < dims.size(); ++i) {
    const std::span<const int> labels = structure.input(i);
    for (size_t d = 0; d < labels.size(); ++d) {
      const auto label = static_cast<size_t>(labels[d]);
      if (!IsKnownDim(dims[i][d])) {
        all_known[label] = false;
      } else if (dims[i][d] != 1 && decided[label] == kUnknownDim) {
        decided[label] = dims[i][d];
      }
    }
  }
  // Each unknown dimension takes the size that fits the known ones if any does: the size of the
  // same label elsewhere in its operand (a diagonal needs equal sizes), else the label's size,
  // else 1. The kernel then rejects these sizes only when it would reject every choice of the
  // unknown ones, and reports the contradiction as it would at run time.
  std::vector<std::vector<int64_t>> filled = dims;
  for (size_t i = 0; i < dims.size(); ++i) {
    const std::span<const int> labels = structure.input(i);
    for (size_t d = 0; d < labels.size(); ++d) {
      if (IsKnownDim(dims[i][d])) continue;
      const auto label = static_cast<size_t>(labels[d]);
      int64_t size = decided[label] != kUnknownDim ? decided[label] : 1;
      for (size_t other = 0; other < labels.size(); ++other) {
        if (labels[other] == labels[d] && IsKnownDim(dims[i][other])) size = dims[i][other];
      }
      filled[i][d] = size;
    }
  }
  const cpu::EinsumLabels bound = BindEinsumOrFail(ctx, eq, filled);
  std::vector<int64_t> out;
  for (int label : bound.output) {
    const auto l = static_cast<size_t>(label);
    out.push_back(decided[l] != kUnknownDim || all_known[l] ? bound.sizes[l] : kUnknownDim);
  }
  SetOutputDims(ctx, 0, type, out);
}

void BlockedMatMul(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> a = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b = InputNamedDims(ctx, 1);
  if (b && b->size() != 2) ctx.Fail("input 'B' has shape " + DimsText(*b) + ": it must be 2-D");
  if (a && a->empty()) ctx.Fail("input 'A' is a scalar: it must have rank 1 or more");
  if (a && b) {
    RequireSameDim(ctx, a->back(), (*b)[0],
                   "input 'A' has shape " + DimsText(*a) + " and input 'B' has shape " +
                       DimsText(*b) + ": the inner dimensions differ");
  }
  if (!a) {
    SetOutputDims(ctx, 0, InputType(ctx, 0), std::nullopt);
    return;
  }
  std::vector<int64_t> y = *a;
  y.back() = b ? (*b)[1] : kUnknownDim;
  SetOutputDims(ctx, 0, InputType(ctx, 0), y);
}

constexpr RuleDef kRules[] = {
    {"MatMul", MatMul<DataType::kUndefined>},
    {"MatMulInteger", MatMul<DataType::kInt32>},
    {"MatMulIntegerToFloat", MatMul<DataType::kFloat>, "com.microsoft"},
    {"DynamicQuantizeMatMul", MatMul<DataType::kFloat>, "com.microsoft"},
    {"Gemm", Gemm},
    {"LayerNormalization", LayerNormalization},
    {"SimplifiedLayerNormalization", SimplifiedLayerNormalization},
    {"Einsum", Einsum},
    {"BlockedMatMul", BlockedMatMul, "ai.kiln"},
};

}  // namespace

std::span<const RuleDef> LinalgRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
