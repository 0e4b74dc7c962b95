#include "runtime/plan.h"

#include <algorithm>

#include "core/error.h"

namespace kiln::runtime {
namespace {

std::unique_ptr<Kernel> CreateKernel(const ir::Node& node, const KernelInfo& info,
                                     const KernelRegistry& registry) {
  const KernelDef* def = registry.Find(node.domain(), node.op_type(), node.opset());
  const std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  if (def == nullptr) {
    if (registry.Knows(node.domain(), node.op_type())) {
      throw Error(ErrorCode::kNotImplemented, node.Describe() + ": opset " +
                                                  std::to_string(node.opset()) + " of " + domain +
                                                  " " + node.op_type() + " is not supported");
    }
    throw Error(ErrorCode::kNotImplemented,
                node.Describe() + ": op " + node.op_type() + " of domain " + domain + " (opset " +
                    std::to_string(node.opset()) + ") is not supported");
  }
  try {
    return def->create(info);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind("node '", 0) == 0) throw;
    throw Error(e.code(), node.Describe() + ": " + what);
  }
}

}  // namespace

GraphPlan::GraphPlan(const ir::Graph& graph, const KernelRegistry& registry) : graph_(graph) {
  auto slot = [&](const ir::Value* v) {
    auto [it, added] = slot_of_.emplace(v, static_cast<int>(slot_count_));
    if (added) {
      ++slot_count_;
      slot_by_name_.emplace(v->name(), it->second);
    }
    return it->second;
  };
  for (const auto& v : graph.values()) {
    const int s = slot(v.get());
    if (v->initializer() != nullptr) constants_.emplace_back(s, v->initializer());
    if (v->is_outer()) captures_.emplace_back(s, v->name());
  }
  for (const ir::Value* v : graph.inputs()) input_slots_.push_back(slot(v));
  for (const ir::Value* v : graph.outputs()) output_slots_.push_back(slot(v));

  std::vector<ir::Node*> order = graph.TopologicalOrder();
  std::vector<int> last_use(slot_count_, -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::Node& node = *order[i];
    Step step;
    step.node = &node;
    step.info = std::make_unique<KernelInfo>(node);
    for (const ir::Value* v : node.inputs()) {
      step.inputs.push_back(v == nullptr ? -1 : SlotOf(v));
      if (v != nullptr) last_use[SlotOf(v)] = static_cast<int>(i);
    }
    for (const ir::Value* v : node.implicit_inputs()) last_use[SlotOf(v)] = static_cast<int>(i);
    for (const ir::Value* v : node.outputs()) {
      step.outputs.push_back(v == nullptr ? -1 : SlotOf(v));
      if (v != nullptr && last_use[SlotOf(v)] < static_cast<int>(i)) {
        last_use[SlotOf(v)] = static_cast<int>(i);  // unread outputs are freed at once
      }
    }
    for (const ir::Attribute& a : node.attributes()) {
      if (a.g) subplans_.emplace(a.g.get(), std::make_unique<GraphPlan>(*a.g, registry));
      for (const auto& g : a.graphs)
        subplans_.emplace(g.get(), std::make_unique<GraphPlan>(*g, registry));
    }
    step.kernel = CreateKernel(node, *step.info, registry);
    steps_.push_back(std::move(step));
  }
  // Graph outputs, inputs, constants and captures live for the whole run.
  std::vector<bool> pinned(slot_count_, false);
  for (int s : output_slots_) pinned[s] = true;
  for (int s : input_slots_) pinned[s] = true;
  for (const auto& c : constants_) pinned[c.first] = true;
  for (const auto& c : captures_) pinned[c.first] = true;
  for (size_t s = 0; s < slot_count_; ++s) {
    if (!pinned[s] && last_use[s] >= 0) steps_[last_use[s]].release.push_back(static_cast<int>(s));
  }
}

int GraphPlan::SlotOf(const ir::Value* v) const {
  auto it = slot_of_.find(v);
  if (it == slot_of_.end()) {
    throw Error(ErrorCode::kEngineError, "value '" + v->name() + "' has no slot in the plan");
  }
  return it->second;
}

int GraphPlan::SlotNamed(const std::string& name) const noexcept {
  auto it = slot_by_name_.find(name);
  return it == slot_by_name_.end() ? -1 : it->second;
}

const GraphPlan& GraphPlan::Subplan(const ir::Graph& g) const {
  auto it = subplans_.find(&g);
  if (it == subplans_.end()) throw Error(ErrorCode::kEngineError, "a subgraph has no plan");
  return *it->second;
}

}  // namespace kiln::runtime
