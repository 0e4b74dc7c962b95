// Level 2: a bias added just before a GELU joins it: Gelu(A + b) → BiasGelu(A, b) and
// FastGelu(A + b) → FastGelu(A, b) (com.microsoft), for a constant 1-D b over A's last axis and A
// of the sum's own shape (so the bias is the only thing broadcast). Saves one pass over A.
#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {

bool IsLastAxisBias(const PassContext& ctx, const ir::Value* a, const ir::Value* b) {
  const Tensor* t = ConstantOf(b);
  const infer::TensorFacts& fa = ctx.Facts(a);
  if (t == nullptr || t->type() != DataType::kFloat || t->shape().rank() != 1 ||
      ConstantOf(a) != nullptr || fa.type != DataType::kFloat || !fa.shape ||
      fa.shape->rank() == 0) {
    return false;
  }
  return fa.shape->dims().back() == t->shape().dims()[0];
}

namespace {

bool FuseOne(PassContext& ctx, ir::Node* gelu) {
  ir::Graph& g = ctx.graph;
  const bool fast = gelu->op_type() == "FastGelu";
  if (gelu->domain() != kMicrosoftDomain || (gelu->op_type() != "Gelu" && !fast) ||
      gelu->inputs().size() != 1) {
    return false;
  }
  ir::Node* add = ProducerIs(gelu->inputs()[0], "Add");
  if (add == nullptr || OnlyConsumer(g, add->outputs()[0]) != gelu) return false;
  for (int side = 0; side < 2; ++side) {
    ir::Value* a = add->inputs()[side];
    ir::Value* b = add->inputs()[1 - side];
    if (!IsLastAxisBias(ctx, a, b)) continue;
    ir::Value* out = gelu->outputs()[0];
    Replace(g, {add, gelu}, fast ? "FastGelu" : "BiasGelu", kMicrosoftDomain, 1, {a, b}, {out}, {});
    return true;
  }
  return false;
}

}  // namespace

size_t FuseBiasGelu(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "BiasGelu") ||
      !ctx.registry.Knows(kMicrosoftDomain, "FastGelu"))
    return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
}

}  // namespace kiln::optimizer
