// Rules for the quantization ops:
//   QuantizeLinear (x's shape; the zero point's type, else output_dtype (21+), else uint8),
//   DequantizeLinear (x's shape; output_dtype (23+), else the scale's type),
//   DynamicQuantizeLinear (y uint8 of x's shape, scalar float scale, scalar uint8 zero point),
//   QLinearMatMul (MatMul's shape of a and b; y_zero_point's type),
//   ConvInteger (Conv's shape; int32) and QLinearConv (Conv's shape of x and w; y_zero_point's
//   type). MatMulInteger's rule is with MatMul's in linalg_rules.cc.
#include <array>
#include <optional>
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

constexpr RuleDef kRules[] = {
    {"QuantizeLinear", QuantizeLinear},
    {"DequantizeLinear", DequantizeLinear},
    {"DynamicQuantizeLinear", DynamicQuantizeLinear},
    {"QLinearMatMul", QLinearMatMul},
    {"ConvInteger", ConvInteger},
    {"QLinearConv", QLinearConv},
};

}  // namespace

std::span<const RuleDef> QuantRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
