// Rules for the reductions:
//   ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
//     ReduceLogSumExp, ReduceSumSquare: `axes` an attribute before ReduceSum-13 and the others'
//     18, an optional input from there on (read when constant; noop_with_empty_axes), keepdims;
//   ArgMax, ArgMin (int64; axis, keepdims);
//   TopK (Values of X's type, Indices int64; k an attribute at opset 1, the constant input K from
//     opset 10).
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

template <int kAxesInputFrom>
void Reduce(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const bool keepdims = ctx.info().GetInt("keepdims", 1) != 0;
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  std::vector<int64_t> axes;
  bool noop_with_empty_axes = false;
  if (ctx.opset() >= kAxesInputFrom) {
    noop_with_empty_axes = ctx.info().GetInt("noop_with_empty_axes", 0) != 0;
    if (!IsMissing(ctx, 1)) {
      const std::optional<std::vector<int64_t>> given = ConstantInts(ctx, 1);
      if (!given) {
        // Unknown axes: with keepdims the rank stays, each dimension kept or made 1.
        std::optional<std::vector<int64_t>> out;
        if (x && keepdims) {
          out = *x;
          for (int64_t& d : *out) {
            if (d != 1) d = kUnknownDim;
          }
        }
        SetOutputDims(ctx, 0, type, out);
        return;
      }
      if (ctx.InputValue(1)->shape().rank() > 1) {
        ctx.Fail("input 'axes' must be 1-D, not of shape " + ctx.InputValue(1)->shape().ToString());
      }
      axes = *given;
    }
  } else {
    axes = ctx.info().GetInts("axes");
  }
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  std::vector<bool> reduced(x->size(), axes.empty() && !noop_with_empty_axes);
  for (int64_t a : axes) {
    const size_t axis = RequireAxis(ctx, a, x->size(), "axis", "data");
    if (reduced[axis]) ctx.Fail("axis " + std::to_string(a) + " appears more than once in 'axes'");
    reduced[axis] = true;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < x->size(); ++i) {
    if (!reduced[i]) {
      out.push_back((*x)[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  SetOutputDims(ctx, 0, type, out);
}

void ArgMax(InferenceContext& ctx) {
  const bool keepdims = ctx.info().GetInt("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (x) {
    const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", 0), x->size(), "axis", "data");
    if ((*x)[axis] == 0) {
      ctx.Fail("cannot take the arg max or min over axis " + std::to_string(axis) +
               " of size 0 (input 'data' has shape " + DimsText(*x) + ")");
    }
    if (keepdims) {
      (*x)[axis] = 1;
    } else {
      x->erase(x->begin() + static_cast<std::ptrdiff_t>(axis));
    }
  }
  SetOutputDims(ctx, 0, DataType::kInt64, x);
}

void TopK(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  if (x) {
    const size_t axis = RequireAxis(ctx, ctx.info().GetInt("axis", -1), x->size(), "axis", "X");
    std::optional<int64_t> k;
    if (ctx.opset() < 10) {
      if (!ctx.info().HasAttribute("k")) ctx.Fail("attribute 'k' is required");
      k = ctx.info().GetInt("k", 0);
    } else {
      k = ConstantScalarInt(ctx, 1);
    }
    if (k && (*k < 0 || (IsKnownDim((*x)[axis]) && *k > (*x)[axis]))) {
      ctx.Fail("k = " + std::to_string(*k) + " is out of range for axis " + std::to_string(axis) +
               " of input 'X' " + DimsText(*x));
    }
    (*x)[axis] = k ? *k : kUnknownDim;
  }
  if (ctx.WantsOutput(0)) SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  if (ctx.WantsOutput(1)) SetOutputDims(ctx, 1, DataType::kInt64, x);
}

constexpr RuleDef kRules[] = {
    {"ReduceSum", Reduce<13>},
    {"ReduceMean", Reduce<18>},
    {"ReduceMax", Reduce<18>},
    {"ReduceMin", Reduce<18>},
    {"ReduceProd", Reduce<18>},
    {"ReduceL1", Reduce<18>},
    {"ReduceL2", Reduce<18>},
    {"ReduceLogSum", Reduce<18>},
    {"ReduceLogSumExp", Reduce<18>},
    {"ReduceSumSquare", Reduce<18>},
    {"ArgMax", ArgMax},
    {"ArgMin", ArgMax},
    {"TopK", TopK},
};

}  // namespace

std::span<const RuleDef> ReduceRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
