// Level 2: a dynamically quantized product, as ONNX Runtime's quantize_dynamic writes it,
//   (q, s, z) = DynamicQuantizeLinear(x)
//   y = Mul(Cast(MatMulInteger(q, W, z[, w_zero]), to float), Mul(s, w_scale)) [+ bias]
// becomes com.microsoft DynamicQuantizeMatMul(x, W, w_scale[, w_zero][, bias]): one node that
// quantizes x, multiplies on the int8 kernel and writes float, without the int32 tensor, its
// float copy and the passes over them. W is a constant 2-D int8/uint8 matrix, w_scale a constant
// float (one value or one per column), w_zero a constant (the kernel checks its type and size),
// bias a constant float vector over y's last axis. The kernel computes the chain's values in the
// chain's order (float(sum) · (s · w_scale) + bias), so the bits are the same. The
// DynamicQuantizeLinear stays while something else reads it (dead code removes it otherwise): a
// shared input, as Q, K and V projections have, is quantized again by each product, which costs
// far less than the product.
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool IsInt8Matrix(const Tensor* t) {
  return t != nullptr && t->shape().rank() == 2 &&
         (t->type() == DataType::kInt8 || t->type() == DataType::kUint8);
}

bool IsFloatScaleOrColumns(const Tensor* t) {
  return t != nullptr && t->type() == DataType::kFloat && t->shape().rank() <= 1;
}

bool FuseOne(PassContext& ctx, ir::Node* mm) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(mm, "MatMulInteger") || mm->inputs().size() < 3 || mm->inputs()[2] == nullptr) {
    return false;
  }
  ir::Value* q = mm->inputs()[0];
  ir::Value* w = mm->inputs()[1];
  ir::Node* dql = ProducerIs(q, "DynamicQuantizeLinear");
  if (dql == nullptr || dql->outputs().size() < 3 || dql->outputs()[0] != q ||
      dql->outputs()[2] != mm->inputs()[2] || !IsInt8Matrix(ConstantOf(w))) {
    return false;
  }
  ir::Value* w_zero = mm->inputs().size() > 3 ? mm->inputs()[3] : nullptr;
  if (w_zero != nullptr && ConstantOf(w_zero) == nullptr) return false;
  ir::Node* cast = OnlyConsumer(g, mm->outputs()[0]);
  if (cast == nullptr || !IsOp(cast, "Cast") ||
      IntAttrOf(cast, "to", 0) != static_cast<int64_t>(DataType::kFloat)) {
    return false;
  }
  ir::Node* mul = OnlyConsumer(g, cast->outputs()[0]);
  if (mul == nullptr || !IsOp(mul, "Mul") || mul->inputs().size() != 2) return false;
  // The other factor: Mul(s, w_scale) in either order, s DynamicQuantizeLinear's scale.
  ir::Node* scales = ProducerIs(OtherInput(mul, cast->outputs()[0]), "Mul");
  if (scales == nullptr || scales->inputs().size() != 2) return false;
  ir::Value* s = dql->outputs()[1];
  if (s == nullptr || (scales->inputs()[0] != s && scales->inputs()[1] != s)) return false;
  ir::Value* w_scale = OtherInput(scales, s);
  if (w_scale == s || !IsFloatScaleOrColumns(ConstantOf(w_scale))) return false;
  std::vector<ir::Node*> fused = {mm, cast, mul};
  ir::Value* out = mul->outputs()[0];
  ir::Value* bias = nullptr;
  // A bias added next joins it.
  if (ir::Node* add = OnlyConsumer(g, out);
      add != nullptr && IsOp(add, "Add") && add->inputs().size() == 2) {
    ir::Value* b = OtherInput(add, out);
    if (b != out && IsLastAxisBias(ctx, out, b) &&
        ctx.Facts(add->outputs()[0]).shape == ctx.Facts(out).shape) {
      bias = b;
      fused.push_back(add);
      out = add->outputs()[0];
    }
  }
  Replace(g, fused, "DynamicQuantizeMatMul", kMicrosoftDomain, 1,
          {dql->inputs()[0], w, w_scale, w_zero, bias}, {out}, {});
  return true;
}

}  // namespace

size_t FuseDynamicQuantization(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "DynamicQuantizeMatMul")) return 0;
  const size_t fused = RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
  // The quantizations and scale products no one reads now.
  if (fused > 0) EliminateDeadCode(ctx);
  return fused;
}

}  // namespace kiln::optimizer
