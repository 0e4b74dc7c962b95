// Level 1: dead-code elimination. A node none of whose outputs is read (by a node, a subgraph or
// the graph's outputs) goes, then what only it read, and so on; values nothing refers to any
// more go too. ONNX ops have no side effects, so nothing else keeps a node alive.
#include <vector>

#include "optimizer/pass.h"

namespace kiln::optimizer {

size_t EliminateDeadCode(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  size_t removed = 0;
  std::vector<ir::Node*> order = g.TopologicalOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    ir::Node* n = *it;
    bool used = false;
    for (const ir::Value* out : n->outputs()) {
      if (out != nullptr && g.IsUsed(out)) used = true;
    }
    if (used) continue;
    g.RemoveNode(n);
    ++removed;
  }
  // Facts are keyed by address: a value made later at a freed one's address must not inherit them.
  for (const ir::Value* gone : g.RemoveDeadValues()) ctx.facts.erase(gone);
  return removed;
}

}  // namespace kiln::optimizer
