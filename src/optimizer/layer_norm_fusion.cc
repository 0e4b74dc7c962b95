// Level 2: LayerNorm over the last axis as exporters write it before opset 17 becomes one
// LayerNormalization:
//   m = ReduceMean(x, [-1]); d = x − m; v = ReduceMean(d², [-1]); n = d / √(v + ε);
//   y = n · γ + β            (d² as Pow(d, 2) or d · d; the · γ and + β optional)
#include <algorithm>

#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// A ReduceMean over only the last axis of a tensor of known rank, keeping dims.
bool IsLastAxisMean(const PassContext& ctx, const ir::Node* n) {
  if (!IsOp(n, "ReduceMean") || IntAttrOf(n, "keepdims", 1) != 1) return false;
  std::optional<std::vector<int64_t>> axes;
  if (n->opset() >= 18) {
    if (n->inputs().size() < 2) return false;
    axes = IntsOf(n->inputs()[1]);
  } else if (const ir::Attribute* a = n->FindAttribute("axes"); a != nullptr) {
    axes = a->ints;
  }
  if (!axes || axes->size() != 1) return false;
  if ((*axes)[0] == -1) return true;
  const infer::TensorFacts& f = ctx.Facts(n->inputs()[0]);
  return f.shape && f.shape->rank() > 0 && (*axes)[0] == static_cast<int64_t>(f.shape->rank()) - 1;
}

bool FuseOne(PassContext& ctx, ir::Node* mean) {
  ir::Graph& g = ctx.graph;
  if (!IsLastAxisMean(ctx, mean) || ctx.Facts(mean->inputs()[0]).type != DataType::kFloat) {
    return false;
  }
  ir::Value* x = mean->inputs()[0];
  ir::Node* sub = OnlyConsumer(g, mean->outputs()[0]);
  if (!IsOp(sub, "Sub") || sub->inputs()[0] != x || sub->inputs()[1] != mean->outputs()[0]) {
    return false;
  }
  ir::Value* d = sub->outputs()[0];
  std::vector<ir::Node*> readers = d->consumers();  // d · d reads d twice
  std::sort(readers.begin(), readers.end());
  readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
  if (readers.size() != 2) return false;
  ir::Node* sq = readers[0];
  ir::Node* div = readers[1];
  if (IsOp(sq, "Div")) std::swap(sq, div);
  const bool is_square =
      (IsOp(sq, "Pow") && sq->inputs()[0] == d && ScalarOf(sq->inputs()[1]).value_or(0) == 2.0f) ||
      (IsOp(sq, "Mul") && sq->inputs()[0] == d && sq->inputs()[1] == d);
  if (!is_square || !IsOp(div, "Div") || div->inputs()[0] != d ||
      std::find(g.outputs().begin(), g.outputs().end(), d) != g.outputs().end()) {
    return false;
  }
  ir::Node* var = OnlyConsumer(g, sq->outputs()[0]);
  if (var == nullptr || !IsLastAxisMean(ctx, var)) return false;
  ir::Node* add_eps = OnlyConsumer(g, var->outputs()[0]);
  if (!IsOp(add_eps, "Add")) return false;
  std::optional<float> eps = ScalarOf(OtherInput(add_eps, var->outputs()[0]));
  ir::Node* sqrt = OnlyConsumer(g, add_eps->outputs()[0]);
  if (!eps || !IsOp(sqrt, "Sqrt") || OnlyConsumer(g, sqrt->outputs()[0]) != div ||
      div->inputs()[1] != sqrt->outputs()[0]) {
    return false;
  }
  std::vector<ir::Node*> nodes{mean, sub, sq, var, add_eps, sqrt, div};
  const int64_t width = ctx.Facts(x).shape->dims().back();
  auto is_vector = [&](const ir::Value* v) {
    const Tensor* t = ConstantOf(v);
    return t != nullptr && t->type() == DataType::kFloat && t->shape().rank() == 1 &&
           t->shape().dims()[0] == width && width > 0;
  };
  ir::Value* out = div->outputs()[0];
  ir::Value* gamma = nullptr;
  ir::Value* beta = nullptr;
  if (ir::Node* mul = OnlyConsumer(g, out); IsOp(mul, "Mul") && is_vector(OtherInput(mul, out))) {
    gamma = OtherInput(mul, out);
    nodes.push_back(mul);
    out = mul->outputs()[0];
    if (ir::Node* add = OnlyConsumer(g, out); IsOp(add, "Add") && is_vector(OtherInput(add, out))) {
      beta = OtherInput(add, out);
      nodes.push_back(add);
      out = add->outputs()[0];
    }
  }
  if (width <= 0) return false;
  if (gamma == nullptr) {
    gamma = AddConstant(g, x->name() + "_ln_scale",
                        FloatTensor({width}, std::vector<float>(static_cast<size_t>(width), 1.0f)));
  }
  std::vector<ir::Value*> inputs{x, gamma};
  if (beta != nullptr) inputs.push_back(beta);
  Replace(g, nodes, "LayerNormalization", "", 17, std::move(inputs), {out},
          {IntAttr("axis", -1), FloatAttr("epsilon", *eps)});
  return true;
}

}  // namespace

size_t FuseLayerNorm(PassContext& ctx) {
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
}

}  // namespace kiln::optimizer
