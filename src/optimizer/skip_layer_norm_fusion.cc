// Level 2: a residual Add feeding a LayerNormalization over the last axis becomes one
// com.microsoft SkipLayerNormalization(input, skip, γ, β, bias): the sum, the optional bias of the
// MatMul before it, and the normalization in one pass. When other nodes read the sum too (the
// next residual connection of a pre-LN transformer), they read the fused op's fourth output
// (input_skip_bias_sum), which keeps the sum's name.
#include <algorithm>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool FuseOne(PassContext& ctx, ir::Node* ln) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(ln, "LayerNormalization") || ln->inputs().size() < 2) return false;
  for (size_t i = 1; i < ln->outputs().size(); ++i) {
    if (ln->outputs()[i] != nullptr && g.IsUsed(ln->outputs()[i])) return false;
  }
  ir::Node* add = ProducerIs(ln->inputs()[0], "Add");
  if (add == nullptr) return false;
  ir::Value* sum = add->outputs()[0];
  // The sum's dims sizes or symbols, the last a size: then operands with the same dims are the
  // same shape in every run, as the kernel needs (it adds no broadcast). The kernel, like ONNX
  // Runtime's, takes 2-D or 3-D inputs only (a Swin block's [1, 56, 56, 96] stays unfused).
  const infer::TensorFacts& fs = ctx.Facts(sum);
  if (fs.type != DataType::kFloat || !fs.shape || fs.shape->rank() < 2 || fs.shape->rank() > 3 ||
      !std::all_of(fs.shape->dims().begin(), fs.shape->dims().end(), infer::IsNamedDim) ||
      fs.shape->dims().back() < 0) {
    return false;
  }
  const auto rank = static_cast<int64_t>(fs.shape->rank());
  const int64_t axis = IntAttrOf(ln, "axis", -1);
  if (axis != -1 && axis != rank - 1) return false;
  const int64_t width = fs.shape->dims().back();
  auto is_vector = [&](const ir::Value* v) {
    const Tensor* t = ConstantOf(v);
    return t != nullptr && t->type() == DataType::kFloat && t->shape().rank() == 1 &&
           t->shape().dims()[0] == width;
  };
  ir::Value* gamma = ln->inputs()[1];
  ir::Value* beta = ln->inputs().size() > 2 ? ln->inputs()[2] : nullptr;
  if (!is_vector(gamma) || (beta != nullptr && !is_vector(beta))) return false;
  ir::Value* a = add->inputs()[0];
  ir::Value* b = add->inputs()[1];
  if (a == b || ctx.Facts(a).shape != fs.shape || ctx.Facts(b).shape != fs.shape) return false;

  std::vector<ir::Node*> nodes{add, ln};
  ir::Value* bias = nullptr;
  for (int side = 0; side < 2 && bias == nullptr; ++side) {
    ir::Value* v = side == 0 ? a : b;
    ir::Node* bias_add = ProducerIs(v, "Add");
    if (bias_add == nullptr || OnlyConsumer(g, v) != add) continue;
    for (int k = 0; k < 2; ++k) {
      ir::Value* mm = bias_add->inputs()[k];
      ir::Value* c = bias_add->inputs()[1 - k];
      if (!IsLastAxisBias(ctx, mm, c) || ctx.Facts(mm).shape != fs.shape) continue;
      bias = c;
      (side == 0 ? a : b) = mm;
      nodes.push_back(bias_add);
      break;
    }
  }
  float eps = 1e-5f;
  if (const ir::Attribute* e = ln->FindAttribute("epsilon"); e != nullptr) eps = e->f;
  ir::Value* out = ln->outputs()[0];
  std::vector<ir::Value*> outputs{out};
  if (sum->consumers().size() > 1 || !OnlyReadBy(g, sum, {ln})) {
    outputs = {out, nullptr, nullptr, sum};
  }
  Replace(g, nodes, "SkipLayerNormalization", kMicrosoftDomain, 1, {a, b, gamma, beta, bias},
          std::move(outputs), {FloatAttr("epsilon", eps)});
  return true;
}

}  // namespace

size_t FuseSkipLayerNorm(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "SkipLayerNormalization")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
}

}  // namespace kiln::optimizer
