// Level 1: constant and shape-subgraph folding. Inference at load (runtime/inference.h) already
// evaluates every node whose inputs are known constants (and Shape/Size of static shapes); this
// pass writes its findings back into the graph: folded nodes go, the values later nodes read
// become initializers, and the facts (types, shapes) are kept for the passes that follow.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "optimizer/pass.h"
#include "runtime/plan.h"

namespace kiln::optimizer {

size_t FoldConstants(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  std::unordered_map<const ir::Value*, std::shared_ptr<const Tensor>> folded_values;
  std::vector<ir::Node*> folded_nodes;
  ctx.facts.clear();
  {
    const runtime::GraphPlan plan(g, ctx.registry, {.infer = true, .fold_constants = true});
    std::unordered_map<int, std::shared_ptr<const Tensor>> constant_of_slot;
    for (const auto& [slot, t] : plan.constants()) constant_of_slot.emplace(slot, t);
    for (const auto& v : g.values()) {
      const int slot = plan.SlotOf(v.get());
      ctx.facts[v.get()] = plan.Facts(slot);
      auto it = constant_of_slot.find(slot);
      if (it != constant_of_slot.end() && v->initializer() == nullptr) {
        folded_values.emplace(v.get(), it->second);
      }
    }
    std::unordered_set<const ir::Node*> kept;
    for (const auto& step : plan.steps()) kept.insert(step.node);
    for (const auto& n : g.nodes()) {
      if (kept.count(n.get()) == 0) folded_nodes.push_back(n.get());
    }
  }  // the plan (and its kernels, which refer to the nodes) goes before the graph changes
  for (ir::Node* n : folded_nodes) g.RemoveNode(n);
  for (const auto& [v, t] : folded_values) {
    auto* value = const_cast<ir::Value*>(v);  // the graph owns it; the map only keys by it
    if (value->producer() == nullptr) value->set_initializer(t);
  }
  return folded_nodes.size();
}

}  // namespace kiln::optimizer
