// Level 1: nodes that pass their input through unchanged go, and their readers read the input:
// Identity; Dropout at inference (no training_mode, or a constant false one) whose mask is not
// read; Cast to the type the input already has. A node whose output is a graph output stays
// (the output's name must not change).
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool IsPassThrough(const PassContext& ctx, const ir::Node* n) {
  if (n->inputs().empty() || n->inputs()[0] == nullptr || n->outputs().empty()) return false;
  if (IsOp(n, "Identity")) return n->outputs().size() == 1;
  if (IsOp(n, "Dropout")) {
    if (n->outputs().size() > 1 && n->outputs()[1] != nullptr &&
        ctx.graph.IsUsed(n->outputs()[1])) {
      return false;
    }
    if (n->opset() < 12) return n->opset() >= 7 || IntAttrOf(n, "is_test", 0) != 0;
    if (n->inputs().size() < 3 || n->inputs()[2] == nullptr) return true;
    const Tensor* mode = ConstantOf(n->inputs()[2]);
    return mode != nullptr && mode->type() == DataType::kBool && mode->element_count() == 1 &&
           *static_cast<const uint8_t*>(mode->data()) == 0;
  }
  if (IsOp(n, "Cast")) {
    const DataType from = ctx.Facts(n->inputs()[0]).type;
    const int64_t to = IntAttrOf(n, "to", -1);
    return from != DataType::kUndefined && to == static_cast<int64_t>(from) &&
           from != DataType::kString;
  }
  return false;
}

}  // namespace

size_t EliminateIdentities(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  size_t removed = 0;
  for (ir::Node* n : g.TopologicalOrder()) {
    if (!IsPassThrough(ctx, n)) continue;
    ir::Value* in = n->inputs()[0];
    ir::Value* out = n->outputs()[0];
    if (!g.ReplaceUses(out, in)) continue;
    g.RemoveNode(n);
    ++removed;
  }
  return removed;
}

}  // namespace kiln::optimizer
