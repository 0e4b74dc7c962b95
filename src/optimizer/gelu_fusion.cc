// Level 2: the GELU forms exporters write out op by op become one com.microsoft op.
//   erf form:  0.5 · x · (1 + Erf(x / √2))                       → Gelu(x)
//   tanh form: 0.5 · x · (1 + Tanh(√(2/π) · (x + 0.044715 · x³))) → FastGelu(x)
// x / √2 may be written x · (1/√2); x³ as x · (x · x) or Pow(x, 3); and the final products in any
// of the orders torch and others use: (x · (1 + f)) · 0.5, x · ((1 + f) · 0.5), (x · 0.5) · (1 +
// f).
#include <cmath>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool Near(std::optional<float> v, double want) {
  return v && std::fabs(*v - want) <= 1e-4 * std::fabs(want);
}

// The scalar-constant operand of a two-input node, and the other one.
bool SplitScalar(const ir::Node* n, ir::Value*& other, std::optional<float>& scalar) {
  if (n->inputs().size() != 2) return false;
  for (int k = 0; k < 2; ++k) {
    scalar = ScalarOf(n->inputs()[k]);
    if (scalar) {
      other = n->inputs()[1 - k];
      return true;
    }
  }
  return false;
}

// Given f (the Erf/Tanh output), matches `1 + f` and the products with x and 0.5. Fills the nodes
// and returns the final value.
ir::Value* MatchTail(const ir::Graph& g, ir::Value* x, ir::Value* f,
                     std::vector<ir::Node*>& nodes) {
  ir::Node* plus = OnlyConsumer(g, f);
  ir::Value* ignored = nullptr;
  std::optional<float> one;
  if (!IsOp(plus, "Add") || !SplitScalar(plus, ignored, one) || !Near(one, 1.0)) return nullptr;
  ir::Value* a = plus->outputs()[0];
  nodes.push_back(plus);
  ir::Node* m1 = OnlyConsumer(g, a);
  if (!IsOp(m1, "Mul")) return nullptr;
  ir::Value* m1_other = OtherInput(m1, a);
  nodes.push_back(m1);
  if (m1_other == x) {  // (x · (1 + f)) · 0.5
    ir::Node* m2 = OnlyConsumer(g, m1->outputs()[0]);
    ir::Value* rest = nullptr;
    std::optional<float> half;
    if (!IsOp(m2, "Mul") || !SplitScalar(m2, rest, half) || !Near(half, 0.5)) return nullptr;
    nodes.push_back(m2);
    return m2->outputs()[0];
  }
  if (Near(ScalarOf(m1_other), 0.5)) {  // x · ((1 + f) · 0.5)
    ir::Node* m2 = OnlyConsumer(g, m1->outputs()[0]);
    if (!IsOp(m2, "Mul") || OtherInput(m2, m1->outputs()[0]) != x) return nullptr;
    nodes.push_back(m2);
    return m2->outputs()[0];
  }
  // (x · 0.5) · (1 + f)
  ir::Node* h = ProducerIs(m1_other, "Mul");
  ir::Value* hx = nullptr;
  std::optional<float> half;
  if (h == nullptr || !SplitScalar(h, hx, half) || hx != x || !Near(half, 0.5) ||
      OnlyConsumer(g, h->outputs()[0]) != m1) {
    return nullptr;
  }
  nodes.push_back(h);
  return m1->outputs()[0];
}

bool FuseErf(PassContext& ctx, ir::Node* erf) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(erf, "Erf")) return false;
  ir::Node* scale = erf->inputs()[0]->producer();
  ir::Value* x = nullptr;
  std::optional<float> c;
  if (scale == nullptr || OnlyConsumer(g, scale->outputs()[0]) != erf) return false;
  if (IsOp(scale, "Div")) {
    c = ScalarOf(scale->inputs()[1]);
    x = scale->inputs()[0];
    if (!Near(c, std::sqrt(2.0))) return false;
  } else if (IsOp(scale, "Mul")) {
    if (!SplitScalar(scale, x, c) || !Near(c, std::sqrt(0.5))) return false;
  } else {
    return false;
  }
  std::vector<ir::Node*> nodes{scale, erf};
  ir::Value* out = MatchTail(g, x, erf->outputs()[0], nodes);
  if (out == nullptr) return false;
  Replace(g, nodes, "Gelu", kMicrosoftDomain, 1, {x}, {out}, {});
  return true;
}

// x³ written as x · (x · x) or Pow(x, 3); fills the nodes.
bool MatchCube(const ir::Graph& g, ir::Value* cube, ir::Value* x, std::vector<ir::Node*>& nodes) {
  ir::Node* n = cube->producer();
  if (IsOp(n, "Pow")) {
    if (n->inputs()[0] != x || !Near(ScalarOf(n->inputs()[1]), 3.0)) return false;
    nodes.push_back(n);
    return OnlyConsumer(g, cube) != nullptr;
  }
  if (!IsOp(n, "Mul") || OnlyConsumer(g, cube) == nullptr) return false;
  ir::Value* sq = OtherInput(n, x);
  ir::Node* s = sq != nullptr ? sq->producer() : nullptr;
  if (!IsOp(s, "Mul") || s->inputs()[0] != x || s->inputs()[1] != x || OnlyConsumer(g, sq) != n) {
    return false;
  }
  nodes.push_back(n);
  nodes.push_back(s);
  return true;
}

bool FuseTanh(PassContext& ctx, ir::Node* tanh) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(tanh, "Tanh")) return false;
  // √(2/π) · (x + 0.044715 · x³)
  ir::Node* outer = ProducerIs(tanh->inputs()[0], "Mul");
  ir::Value* inner = nullptr;
  std::optional<float> k;
  if (outer == nullptr || OnlyConsumer(g, outer->outputs()[0]) != tanh ||
      !SplitScalar(outer, inner, k) || !Near(k, std::sqrt(2.0 / M_PI))) {
    return false;
  }
  ir::Node* sum = ProducerIs(inner, "Add");
  if (sum == nullptr || OnlyConsumer(g, inner) != outer) return false;
  std::vector<ir::Node*> nodes{tanh, outer, sum};
  for (int side = 0; side < 2; ++side) {
    ir::Value* x = sum->inputs()[side];
    ir::Value* t = sum->inputs()[1 - side];
    ir::Node* tm = ProducerIs(t, "Mul");
    ir::Value* cube = nullptr;
    std::optional<float> c;
    if (tm == nullptr || OnlyConsumer(g, t) != sum || !SplitScalar(tm, cube, c) ||
        !Near(c, 0.044715)) {
      continue;
    }
    std::vector<ir::Node*> all = nodes;
    all.push_back(tm);
    if (!MatchCube(g, cube, x, all)) continue;
    ir::Value* out = MatchTail(g, x, tanh->outputs()[0], all);
    if (out == nullptr) continue;
    Replace(g, all, "FastGelu", kMicrosoftDomain, 1, {x}, {out}, {});
    return true;
  }
  return false;
}

}  // namespace

size_t FuseGelu(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "Gelu") ||
      !ctx.registry.Knows(kMicrosoftDomain, "FastGelu"))
    return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseErf(ctx, n) || FuseTanh(ctx, n); });
}

}  // namespace kiln::optimizer
