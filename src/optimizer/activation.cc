#include "optimizer/activation.h"

#include <cfloat>
#include <optional>

#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

float FloatAttrOr(const ir::Node* n, const char* name, float fallback) {
  const ir::Attribute* a = n->FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kFloat ? a->f : fallback;
}

// Clip's bounds: attributes before opset 11, optional constant inputs from it.
bool ClipBounds(const ir::Node* n, float& lo, float& hi) {
  lo = -FLT_MAX;
  hi = FLT_MAX;
  if (n->opset() < 11) {
    lo = FloatAttrOr(n, "min", lo);
    hi = FloatAttrOr(n, "max", hi);
    return true;
  }
  for (size_t i = 1; i < n->inputs().size() && i < 3; ++i) {
    if (n->inputs()[i] == nullptr) continue;
    std::optional<float> v = ScalarOf(n->inputs()[i]);
    if (!v) return false;
    (i == 1 ? lo : hi) = *v;
  }
  return true;
}

}  // namespace

bool MatchActivation(const ir::Graph& g, ir::Value* v, Activation& out) {
  // Swish: Mul(v, Sigmoid(v)), v read by exactly those two.
  if (v->consumers().size() == 2) {
    ir::Node* a = v->consumers()[0];
    ir::Node* b = v->consumers()[1];
    if (IsOp(b, "Sigmoid")) std::swap(a, b);
    if (IsOp(a, "Sigmoid") && IsOp(b, "Mul") && OnlyConsumer(g, a->outputs()[0]) == b &&
        OtherInput(b, a->outputs()[0]) == v && OnlyReadBy(g, v, {a, b})) {
      out = {"Swish", {}, {a, b}, b->outputs()[0]};
      return true;
    }
    return false;
  }
  ir::Node* n = OnlyConsumer(g, v);
  if (n == nullptr || n->inputs().empty() || n->inputs()[0] != v || n->outputs().size() != 1) {
    return false;
  }
  out = {"", {}, {n}, n->outputs()[0]};
  if (IsOp(n, "Relu") || IsOp(n, "Sigmoid") || IsOp(n, "Tanh") || IsOp(n, "HardSwish")) {
    out.name = n->op_type();
  } else if (IsOp(n, "LeakyRelu")) {
    out.name = "LeakyRelu";
    out.params = {FloatAttrOr(n, "alpha", 0.01f)};
  } else if (IsOp(n, "HardSigmoid")) {
    out.name = "HardSigmoid";
    out.params = {FloatAttrOr(n, "alpha", 0.2f), FloatAttrOr(n, "beta", 0.5f)};
  } else if (IsOp(n, "Clip")) {
    float lo = 0;
    float hi = 0;
    if (!ClipBounds(n, lo, hi)) return false;
    out.name = "Clip";
    out.params = {lo, hi};
  } else {
    return false;
  }
  return true;
}

}  // namespace kiln::optimizer
