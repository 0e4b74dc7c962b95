// Level 2: Conv (float, constant weights), optionally followed by an Add of a same-shape tensor
// (a residual connection; the same in every run, dynamic axes included), optionally followed by an
// activation, becomes one com.microsoft FusedConv: Y = activation(Conv(X, W) + B + Z). The kernel
// applies bias, residual and activation while the output block is still in cache, instead of three
// more passes over memory.
#include <algorithm>

#include "kernels/domains.h"
#include "optimizer/activation.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// Whether a and b have one shape in every run: the same dims, each a size or a symbol (a dynamic
// batch, say), as the kernel adds Z without broadcasting.
bool SameShape(const PassContext& ctx, const ir::Value* a, const ir::Value* b) {
  const infer::TensorFacts& fa = ctx.Facts(a);
  const infer::TensorFacts& fb = ctx.Facts(b);
  return fa.shape && fb.shape && fa.shape->dims() == fb.shape->dims() && fa.type == fb.type &&
         std::all_of(fa.shape->dims().begin(), fa.shape->dims().end(), infer::IsNamedDim);
}

bool FuseOne(PassContext& ctx, ir::Node* conv) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(conv, "Conv") || conv->inputs().size() < 2 || conv->outputs().size() != 1) {
    return false;
  }
  const Tensor* w = ConstantOf(conv->inputs()[1]);
  if (w == nullptr || w->type() != DataType::kFloat) return false;
  std::vector<ir::Node*> fused{conv};
  ir::Value* y = conv->outputs()[0];
  ir::Value* z = nullptr;
  if (ir::Node* add = OnlyConsumer(g, y); IsOp(add, "Add")) {
    ir::Value* other = OtherInput(add, y);
    if (other != nullptr && other != y && SameShape(ctx, y, other)) {
      z = other;
      fused.push_back(add);
      y = add->outputs()[0];
    }
  }
  Activation act;
  const bool has_act = MatchActivation(g, y, act);
  if (!has_act && z == nullptr) return false;
  if (has_act) {
    fused.insert(fused.end(), act.nodes.begin(), act.nodes.end());
    y = act.output;
  }
  std::vector<ir::Attribute> attrs = conv->attributes();
  if (has_act) {
    attrs.push_back(StringAttr("activation", act.name));
    if (!act.params.empty()) attrs.push_back(FloatsAttr("activation_params", act.params));
  }
  std::vector<ir::Value*> inputs{conv->inputs()[0], conv->inputs()[1],
                                 conv->inputs().size() > 2 ? conv->inputs()[2] : nullptr};
  if (z != nullptr) inputs.push_back(z);
  Replace(g, fused, "FusedConv", kMicrosoftDomain, 1, std::move(inputs), {y}, std::move(attrs));
  return true;
}

}  // namespace

size_t FuseConvActivation(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "FusedConv")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
}

}  // namespace kiln::optimizer
