// Rules for the quantization ops:
//   QuantizeLinear (x's shape; the zero point's type, else output_dtype (21+), else uint8),
//   DequantizeLinear (x's shape; output_dtype (23+), else the scale's type),
//   DynamicQuantizeLinear (y uint8 of x's shape, scalar float scale, scalar uint8 zero point),
//   QLinearMatMul (MatMul's shape of a and b; y_zero_point's type),
//   ConvInteger (Conv's shape; int32) and QLinearConv (Conv's shape of x and w; y_zero_point's
//   type). MatMulInteger's rule is with MatMul's in linalg_rules.cc.
// com.microsoft's quantized ops: QuantizeLinear and DequantizeLinear (as ONNX's), QGemm ((M, N);
// y_zero_point's type, float without it), QLinearAdd and QLinearMul (A and B broadcast),
// QLinearSigmoid, QLinearLeakyRelu and ai.kiln QLinearSwish (X's shape), QLinearGlobalAveragePool
// (the image axes 1; channels_last), QLinearAveragePool (AveragePool's windows; channels_last) and
// QLinearConcat (Concat of inputs 2, 5, 8, ...), QLinearSoftmax (X's shape), QLinearWhere
// (condition, X and Y broadcast), QLinearConv (ONNX's, or with channels_last NhwcQLinearConv's);
// each keeps its data's type. GatherBlockQuantized (Gather's shape
// of the unpacked data; scales' type).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "infer/window_rules.h"

namespace kiln::infer {
namespace {

// Output 0's shape as `rule` derives it from inputs a and b of `ctx` taken as its inputs 0 and 1
// (QLinearMatMul and QLinearConv have the operands of MatMulInteger and ConvInteger at other
// positions).
std::optional<Shape> ShapeFrom(InferenceContext& ctx, Rule rule, size_t a, size_t b) {
  const std::array<const TensorFacts*, 2> inputs{ctx.Input(a), ctx.Input(b)};
  std::array<TensorFacts, 1> outputs;
  InferenceContext sub(ctx.info(), inputs, outputs);
  rule(sub);
  return outputs[0].shape;
}

std::optional<std::vector<int64_t>> SameDims(const InferenceContext& ctx) {
  return InputDims(ctx, 0);
}

void QuantizeLinear(InferenceContext& ctx) {
  DataType type = DataType::kUint8;
  if (!IsMissing(ctx, 2)) {
    type = InputType(ctx, 2);
  } else if (ctx.opset() >= 21) {
    const int64_t v = ctx.info().GetInt("output_dtype", 0);
    if (v > 0 && v <= kMaxDataType) type = static_cast<DataType>(v);
  }
  SetOutputDims(ctx, 0, type, SameDims(ctx));
}

void DequantizeLinear(InferenceContext& ctx) {
  DataType type = InputType(ctx, 1);
  if (ctx.opset() >= 23) {
    const int64_t v = ctx.info().GetInt("output_dtype", 0);
    if (v > 0 && v <= kMaxDataType) type = static_cast<DataType>(v);
  }
  SetOutputDims(ctx, 0, type, SameDims(ctx));
}

void DynamicQuantizeLinear(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kUint8, SameDims(ctx));
  SetOutputDims(ctx, 1, DataType::kFloat, std::vector<int64_t>{});
  SetOutputDims(ctx, 2, DataType::kUint8, std::vector<int64_t>{});
}

void QLinearMatMul(InferenceContext& ctx) {
  const Rule matmul = FindRule("", "MatMulInteger");
  ctx.SetOutput(0, InputType(ctx, 7), ShapeFrom(ctx, matmul, 0, 3));
}

void ConvInteger(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kInt32, ConvOutputDims(ctx));
}

void QLinearConv(InferenceContext& ctx) {
  ctx.SetOutput(0, InputType(ctx, 7), ShapeFrom(ctx, ConvInteger, 0, 3));
}

// ai.kiln NhwcQLinearConv: QLinearConv's rule on X [N, H, W, C] taken as [N, C, H, W], its
// output [N, M, OH, OW] given back as [N, OH, OW, M].
void NhwcQLinearConv(InferenceContext& ctx) {
  std::vector<const TensorFacts*> inputs;
  for (size_t i = 0; i < ctx.input_count(); ++i) inputs.push_back(ctx.Input(i));
  TensorFacts x;
  if (ctx.Input(0) != nullptr) {
    x = *ctx.Input(0);
    if (x.shape && x.shape->rank() >= 3) {
      std::vector<int64_t> d = x.shape->dims();
      std::rotate(d.begin() + 1, d.end() - 1, d.end());
      x.shape = Shape(d);
    }
    inputs[0] = &x;
  }
  std::array<TensorFacts, 1> outputs;
  InferenceContext sub(ctx.info(), inputs, outputs);
  QLinearConv(sub);
  std::optional<Shape> y = outputs[0].shape;
  if (y && y->rank() >= 3) {
    std::vector<int64_t> d = y->dims();
    std::rotate(d.begin() + 1, d.begin() + 2, d.end());
    y = Shape(d);
  }
  ctx.SetOutput(0, outputs[0].type, std::move(y));
}

// com.microsoft QLinearConv: ONNX's rule, or with channels_last NhwcQLinearConv's.
void MsQLinearConv(InferenceContext& ctx) {
  if (ctx.info().GetInt("channels_last", 0) != 0) {
    NhwcQLinearConv(ctx);
  } else {
    QLinearConv(ctx);
  }
}

// com.microsoft MatMulNBits and MatMulBnb4: A [..., K] → [..., N] (attribute N), A's type.
void MatMulNBits(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> a = InputNamedDims(ctx, 0);
  const int64_t n = ctx.info().GetInt("N", kUnknownDim);
  if (a) {
    if (a->empty()) ctx.Fail("input 'A' is a scalar; it needs rank 1 or more");
    const int64_t k = ctx.info().GetInt("K", kUnknownDim);
    if (IsKnownDim(a->back()) && IsKnownDim(k) && a->back() != k) {
      ctx.Fail("input 'A' has shape " + DimsText(*a) +
               "; its last dimension must be K = " + std::to_string(k));
    }
    a->back() = n;
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), a);
}

// com.microsoft GatherBlockQuantized: data's shape (uint8 data of `bits` < 8: its last dimension
// times 8 / bits) with gather_axis replaced by indices' shape; scales' type.
void GatherBlockQuantized(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> data = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> indices = InputNamedDims(ctx, 1);
  const DataType out_type = InputType(ctx, 2);
  if (!data || !indices) {
    SetOutputDims(ctx, 0, out_type, std::nullopt);
    return;
  }
  const auto rank = static_cast<int64_t>(data->size());
  if (rank == 0) ctx.Fail("input 'data' is a scalar");
  int64_t axis = ctx.info().GetInt("gather_axis", 0);
  if (axis < -rank || axis >= rank) {
    ctx.Fail("attribute 'gather_axis' is " + std::to_string(axis) + "; input 'data' has rank " +
             std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  const int64_t bits = ctx.info().GetInt("bits", 4);
  const DataType type = InputType(ctx, 0);
  const bool packed = (type == DataType::kUint8 || type == DataType::kUndefined) && bits != 8;
  if (packed && type == DataType::kUint8 && (bits == 2 || bits == 4) && IsKnownDim(data->back())) {
    data->back() *= 8 / bits;
  } else if (packed) {
    data->back() = kUnknownDim;  // the data's type or the packing not known
  }
  std::vector<int64_t> out(data->begin(), data->begin() + axis);
  out.insert(out.end(), indices->begin(), indices->end());
  out.insert(out.end(), data->begin() + axis + 1, data->end());
  SetOutputDims(ctx, 0, out_type, out);
}

// com.microsoft QLinearWhere: condition, X and Y broadcast; X's type.
void QLinearWhere(InferenceContext& ctx) {
  const std::array<NamedInput, 3> inputs{NamedInput{0, "condition"}, NamedInput{1, "X"},
                                         NamedInput{4, "Y"}};
  SetOutputDims(ctx, 0, InputType(ctx, 1), BroadcastInputs(ctx, inputs));
}

// Output 0 of `rule` run on the inputs `indices` of ctx (in that order).
std::optional<Shape> ShapeFromInputs(InferenceContext& ctx, Rule rule,
                                     const std::vector<size_t>& indices) {
  std::vector<const TensorFacts*> inputs;
  inputs.reserve(indices.size());
  for (size_t i : indices) inputs.push_back(ctx.Input(i));
  std::array<TensorFacts, 1> outputs;
  InferenceContext sub(ctx.info(), inputs, outputs);
  rule(sub);
  return outputs[0].shape;
}

void QGemm(InferenceContext& ctx) {
  const DataType type = IsMissing(ctx, 8) ? DataType::kFloat : InputType(ctx, 8);
  const std::optional<std::vector<int64_t>> a = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> b = InputNamedDims(ctx, 3);
  if ((a && a->size() != 2) || (b && b->size() != 2)) {
    ctx.Fail("inputs 'A' and 'B' must be 2-D");
  }
  const bool ta = ctx.info().GetInt("transA", 0) != 0;
  const bool tb = ctx.info().GetInt("transB", 0) != 0;
  const int64_t m = a ? (*a)[ta ? 1 : 0] : kUnknownDim;
  const int64_t n = b ? (*b)[tb ? 0 : 1] : kUnknownDim;
  if (a && b) {
    const int64_t ka = (*a)[ta ? 0 : 1], kb = (*b)[tb ? 1 : 0];
    if (IsKnownDim(ka) && IsKnownDim(kb) && ka != kb) {
      ctx.Fail("inputs 'A' " + DimsText(*a) + " and 'B' " + DimsText(*b) +
               " have different inner dimensions");
    }
  }
  SetOutputDims(ctx, 0, type, std::vector<int64_t>{m, n});
}

void QLinearBinary(InferenceContext& ctx) {
  const std::array<NamedInput, 2> inputs{NamedInput{0, "A"}, NamedInput{3, "B"}};
  SetOutputDims(ctx, 0, InputType(ctx, 0), BroadcastInputs(ctx, inputs));
}

void QLinearUnary(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), InputNamedDims(ctx, 0));
}

void QLinearGlobalAveragePool(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (x) {
    if (x->size() < 3)
      ctx.Fail("input 'X' has shape " + DimsText(*x) + "; it needs rank 3 or more");
    const size_t first = ctx.info().GetInt("channels_last", 0) != 0 ? 1 : 2;
    for (size_t d = first; d < first + x->size() - 2; ++d) (*x)[d] = 1;
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

void QLinearAveragePool(InferenceContext& ctx) {
  const WindowAttrs a = ReadWindow(ctx, /*dilations=*/false, /*ceil_mode=*/true);
  if (a.kernel_shape.empty()) ctx.Fail("attribute 'kernel_shape' is required");
  const bool last = ctx.info().GetInt("channels_last", 0) != 0;
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  std::optional<std::vector<int64_t>> out;
  if (x) {
    if (x->size() < 3)
      ctx.Fail("input 'X' has shape " + DimsText(*x) + "; it needs rank 3 or more");
    const size_t rank = x->size() - 2;
    const size_t first = last ? 1 : 2;
    CheckSpatialRank(ctx, a, rank);
    out = *x;
    for (size_t d = 0; d < rank; ++d) {
      (*out)[first + d] = WindowOutput(ctx, a, d, rank, (*x)[first + d], a.kernel_shape[d], true);
    }
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), out);
}

void QLinearConcat(InferenceContext& ctx) {
  std::vector<size_t> xs;
  for (size_t i = 2; i < ctx.input_count(); i += 3) xs.push_back(i);
  if (xs.empty() || (ctx.input_count() - 2) % 3 != 0) {
    ctx.Fail("expected Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) per input");
  }
  ctx.SetOutput(0, InputType(ctx, 2), ShapeFromInputs(ctx, FindRule("", "Concat"), xs));
}

constexpr RuleDef kRules[] = {
    {"QuantizeLinear", QuantizeLinear},
    {"DequantizeLinear", DequantizeLinear},
    {"DynamicQuantizeLinear", DynamicQuantizeLinear},
    {"QLinearMatMul", QLinearMatMul},
    {"ConvInteger", ConvInteger},
    {"QLinearConv", QLinearConv},
    {"NhwcQLinearConv", NhwcQLinearConv, "ai.kiln"},
    {"QLinearConv", MsQLinearConv, "com.microsoft"},
    {"QuantizeLinear", QuantizeLinear, "com.microsoft"},
    {"DequantizeLinear", DequantizeLinear, "com.microsoft"},
    {"QGemm", QGemm, "com.microsoft"},
    {"MatMulNBits", MatMulNBits, "com.microsoft"},
    {"MatMulBnb4", MatMulNBits, "com.microsoft"},
    {"GatherBlockQuantized", GatherBlockQuantized, "com.microsoft"},
    {"QLinearAdd", QLinearBinary, "com.microsoft"},
    {"QLinearMul", QLinearBinary, "com.microsoft"},
    {"QLinearSigmoid", QLinearUnary, "com.microsoft"},
    {"QLinearLeakyRelu", QLinearUnary, "com.microsoft"},
    {"QLinearSwish", QLinearUnary, "ai.kiln"},
    {"QLinearGlobalAveragePool", QLinearGlobalAveragePool, "com.microsoft"},
    {"QLinearAveragePool", QLinearAveragePool, "com.microsoft"},
    {"QLinearConcat", QLinearConcat, "com.microsoft"},
    {"QLinearSoftmax", QLinearUnary, "com.microsoft"},
    {"QLinearWhere", QLinearWhere, "com.microsoft"},
};

}  // namespace

std::span<const RuleDef> QuantRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
