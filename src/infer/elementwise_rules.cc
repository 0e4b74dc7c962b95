// Rules for the elementwise ops:
//   same type and shape as input 0: the unary math and activation ops (Abs … Tanh, Sign, Round,
//     Not, BitwiseNot, Selu, Celu, Mish, Shrink, ThresholdedRelu, Softsign, …), Clip (every
//     opset), PRelu (the slope broadcasts to X), LRN, LpNormalization, InstanceNormalization,
//     GroupNormalization, Softmax, LogSoftmax, Hardmax, CumSum, Trilu, Scatter, ScatterElements,
//     ScatterND, Identity; com.microsoft Trilu and Inverse;
//   IsNaN, IsInf (bool, same shape); Cast (`to`; a type name before opset 6), CastLike (input 1's
//     type); Dropout (Y, and the mask: bool from opset 10, X's type before);
//   numpy broadcasting: Add, Sub, Mul, Div, Pow, Mod, BitShift, BitwiseAnd/Or/Xor, And, Or, Xor
//     (input 0's type) and Equal, Less, Greater, LessOrEqual, GreaterOrEqual (bool); before
//     opset 7 the legacy `broadcast`/`axis` form, whose output has A's shape;
//   Sum, Min, Max, Mean (numpy broadcasting from opset 8, equal shapes before), Where (three-way),
//     Expand (with a constant shape).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "ir/graph.h"

namespace kiln::infer {
namespace {

void SameAsInput(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputNamedDims(ctx, 0));
}

void BoolSameShape(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kBool, InputNamedDims(ctx, 0));
}

// The output type of a binary op: input 0's, or bool for comparisons.
enum class Result { kInputType, kBool };

// Two inputs named a_name and b_name; numpy broadcasting, or from `legacy_before` down the legacy
// form whose output has A's shape (B fits inside A or, with broadcast = 0, equals it).
template <Result kResult, int kLegacyBefore>
void Binary(InferenceContext& ctx) {
  const DataType type = kResult == Result::kBool ? DataType::kBool : InputType(ctx, 0);
  if (ctx.opset() < kLegacyBefore) {
    const std::optional<std::vector<int64_t>> a = InputDims(ctx, 0);
    const std::optional<std::vector<int64_t>> b = InputDims(ctx, 1);
    if (a && b && ctx.info().GetInt("broadcast", 0) == 0) {
      bool differ = a->size() != b->size();
      for (size_t i = 0; !differ && i < a->size(); ++i) {
        differ = IsKnownDim((*a)[i]) && IsKnownDim((*b)[i]) && (*a)[i] != (*b)[i];
      }
      if (differ) {
        ctx.Fail("input 'B' has shape " + DimsText(*b) + " and 'A' has shape " + DimsText(*a) +
                 "; they must be equal unless attribute 'broadcast' is 1");
      }
    }
    SetOutputDims(ctx, 0, type, a);
    return;
  }
  const NamedInput inputs[] = {{0, "A"}, {1, "B"}};
  SetOutputDims(ctx, 0, type, BroadcastInputs(ctx, inputs));
}

// Sum, Min, Max, Mean: broadcasting from opset 8, equal shapes before.
void Variadic(InferenceContext& ctx) {
  std::vector<NamedInput> inputs;
  for (size_t i = 0; i < ctx.input_count(); ++i) inputs.push_back({i, "data_" + std::to_string(i)});
  if (ctx.opset() >= 8) {
    SetOutputDims(ctx, 0, InputType(ctx, 0), BroadcastInputs(ctx, inputs));
    return;
  }
  // Equal shapes: each dimension is known as soon as one input knows it.
  std::optional<std::vector<int64_t>> out;
  for (const NamedInput& in : inputs) {
    const std::optional<std::vector<int64_t>> dims = InputDims(ctx, in.index);
    if (!dims) continue;
    if (!out) {
      out = dims;
      continue;
    }
    bool differ = dims->size() != out->size();
    for (size_t k = 0; !differ && k < dims->size(); ++k) {
      const int64_t d = (*dims)[k];
      int64_t& o = (*out)[k];
      differ = IsKnownDim(d) && IsKnownDim(o) && d != o;
      if (!IsKnownDim(o)) o = d;
    }
    if (differ) {
      ctx.Fail("input '" + in.name + "' has shape " + DimsText(*dims) + " but the others have " +
               DimsText(*out) + "; inputs must have the same shape before opset 8");
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

void Where(InferenceContext& ctx) {
  const NamedInput inputs[] = {{0, "condition"}, {1, "X"}, {2, "Y"}};
  SetOutputDims(ctx, 0, InputType(ctx, 1), BroadcastInputs(ctx, inputs));
}

void Expand(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> shape = InputDimsValue(ctx, 1);
  const std::optional<std::vector<int64_t>> shape_dims = InputDims(ctx, 1);
  if (!shape || !shape_dims || shape_dims->size() != 1) {
    if (ctx.InputValue(1) != nullptr && ctx.InputValue(1)->shape().rank() != 1) {
      ctx.Fail("input 'shape' must be 1-D, but has shape " + ctx.InputValue(1)->shape().ToString());
    }
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  for (size_t i = 0; i < shape->size(); ++i) {
    if ((*shape)[i] < 0 && !IsSymbolicDim((*shape)[i])) {
      ctx.Fail("input 'shape' holds " + std::to_string((*shape)[i]) + " at index " +
               std::to_string(i) + "; dimensions must be >= 0");
    }
  }
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (!x) {
    // The output rank is the larger of the two ranks; known only when the input cannot be
    // larger, which its unknown rank does not tell.
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  std::vector<int64_t> out = *shape;
  BroadcastInto(ctx, out, *x, "input");
  SetOutputDims(ctx, 0, type, out);
}

// Cast's `to`: a TensorProto type number, or before opset 6 also a type name.
DataType CastTarget(const InferenceContext& ctx) {
  const ir::Attribute* a = ctx.info().node().FindAttribute("to");
  if (a == nullptr) return DataType::kUndefined;
  if (a->type == ir::AttrType::kString && ctx.opset() < 6) {
    std::string name = a->s;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (int32_t v = 1; v <= kMaxDataType; ++v) {
      if (name == DataTypeName(static_cast<DataType>(v))) return static_cast<DataType>(v);
    }
    ctx.Fail("attribute 'to' is \"" + a->s + "\", not a type name");
  }
  const int64_t v = ctx.info().GetInt("to", 0);
  if (v <= 0 || v > kMaxDataType) {
    ctx.Fail("attribute 'to' is " + std::to_string(v) + ", not a known element type");
  }
  return static_cast<DataType>(v);
}

void Cast(InferenceContext& ctx) {
  const DataType to = CastTarget(ctx);
  SetOutputDims(ctx, 0, to, InputNamedDims(ctx, 0));
  // Dimensions stay dimensions between the integer types that shapes are computed in.
  const TensorFacts* f = ctx.Input(0);
  if (f != nullptr && f->dims_value && (to == DataType::kInt64 || to == DataType::kInt32)) {
    ctx.SetOutputDimsValue(0, *f->dims_value);
  }
}

void Identity(InferenceContext& ctx) {
  SameAsInput(ctx);
  const TensorFacts* f = ctx.Input(0);
  if (f != nullptr && f->dims_value) ctx.SetOutputDimsValue(0, *f->dims_value);
}

void CastLike(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 1), InputNamedDims(ctx, 0));
}

void Dropout(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  if (ctx.WantsOutput(1)) {
    SetOutputDims(ctx, 1, ctx.opset() >= 10 ? DataType::kBool : InputType(ctx, 0), x);
  }
}

constexpr RuleDef kRules[] = {
    // Unary, same type and shape.
    {"Abs", SameAsInput},
    {"Acos", SameAsInput},
    {"Acosh", SameAsInput},
    {"Asin", SameAsInput},
    {"Asinh", SameAsInput},
    {"Atan", SameAsInput},
    {"Atanh", SameAsInput},
    {"BitwiseNot", SameAsInput},
    {"Ceil", SameAsInput},
    {"Celu", SameAsInput},
    {"Clip", SameAsInput},
    {"Cos", SameAsInput},
    {"Cosh", SameAsInput},
    {"CumSum", SameAsInput},
    {"Elu", SameAsInput},
    {"Erf", SameAsInput},
    {"Exp", SameAsInput},
    {"Floor", SameAsInput},
    {"Gelu", SameAsInput},
    {"GroupNormalization", SameAsInput},
    {"Hardmax", SameAsInput},
    {"HardSigmoid", SameAsInput},
    {"HardSwish", SameAsInput},
    {"Identity", Identity},
    {"InstanceNormalization", SameAsInput},
    {"LeakyRelu", SameAsInput},
    {"Log", SameAsInput},
    {"LogSoftmax", SameAsInput},
    {"LpNormalization", SameAsInput},
    {"LRN", SameAsInput},
    {"Mish", SameAsInput},
    {"Neg", SameAsInput},
    {"Not", SameAsInput},
    {"PRelu", SameAsInput},
    {"Reciprocal", SameAsInput},
    {"Relu", SameAsInput},
    {"Round", SameAsInput},
    {"Scatter", SameAsInput},
    {"ScatterElements", SameAsInput},
    {"ScatterND", SameAsInput},
    {"Selu", SameAsInput},
    {"Shrink", SameAsInput},
    {"Sigmoid", SameAsInput},
    {"Sign", SameAsInput},
    {"Sin", SameAsInput},
    {"Sinh", SameAsInput},
    {"Softmax", SameAsInput},
    {"Softplus", SameAsInput},
    {"Softsign", SameAsInput},
    {"Sqrt", SameAsInput},
    {"Tan", SameAsInput},
    {"Tanh", SameAsInput},
    {"ThresholdedRelu", SameAsInput},
    {"Trilu", SameAsInput},
    {"Trilu", SameAsInput, "com.microsoft"},
    {"Inverse", SameAsInput, "com.microsoft"},
    // Unary with another output type.
    {"IsInf", BoolSameShape},
    {"IsNaN", BoolSameShape},
    {"Cast", Cast},
    {"CastLike", CastLike},
    {"Dropout", Dropout},
    // Broadcasting.
    {"Add", Binary<Result::kInputType, 7>},
    {"Sub", Binary<Result::kInputType, 7>},
    {"Mul", Binary<Result::kInputType, 7>},
    {"Div", Binary<Result::kInputType, 7>},
    {"Pow", Binary<Result::kInputType, 7>},
    {"Mod", Binary<Result::kInputType, 0>},
    {"BitShift", Binary<Result::kInputType, 0>},
    {"BitwiseAnd", Binary<Result::kInputType, 0>},
    {"BitwiseOr", Binary<Result::kInputType, 0>},
    {"BitwiseXor", Binary<Result::kInputType, 0>},
    {"And", Binary<Result::kBool, 7>},
    {"Or", Binary<Result::kBool, 7>},
    {"Xor", Binary<Result::kBool, 7>},
    {"Equal", Binary<Result::kBool, 7>},
    {"Less", Binary<Result::kBool, 7>},
    {"Greater", Binary<Result::kBool, 7>},
    {"LessOrEqual", Binary<Result::kBool, 0>},
    {"GreaterOrEqual", Binary<Result::kBool, 0>},
    {"Sum", Variadic},
    {"Min", Variadic},
    {"Max", Variadic},
    {"Mean", Variadic},
    {"Where", Where},
    {"Expand", Expand},
};

}  // namespace

std::span<const RuleDef> ElementwiseRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
