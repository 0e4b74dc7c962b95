// A graph made runnable: nodes in topological order with their kernels created once, every value
// given a slot, and for each step the slots whose last reader it is (freed right after it).
#ifndef KILN_RUNTIME_PLAN_H_
#define KILN_RUNTIME_PLAN_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace kiln::runtime {

class GraphPlan {
 public:
  struct Step {
    const ir::Node* node;
    std::unique_ptr<KernelInfo> info;
    std::unique_ptr<Kernel> kernel;
    std::vector<int> inputs;   // -1: optional input left out
    std::vector<int> outputs;  // -1: optional output left out
    std::vector<int> release;  // slots to free once this step is done
  };

  // Creates a kernel for every node, here and in every subgraph. Throws kNotImplemented naming
  // the node, its op type, domain and opset when no kernel is registered.
  GraphPlan(const ir::Graph& graph, const KernelRegistry& registry);

  const ir::Graph& graph() const noexcept { return graph_; }
  const std::vector<Step>& steps() const noexcept { return steps_; }
  size_t slot_count() const noexcept { return slot_count_; }
  int SlotOf(const ir::Value* v) const;
  // The slot of a value by name; -1 when this graph has none.
  int SlotNamed(const std::string& name) const noexcept;
  // Initializers: (slot, tensor).
  const std::vector<std::pair<int, std::shared_ptr<const Tensor>>>& constants() const noexcept {
    return constants_;
  }
  const std::vector<int>& input_slots() const noexcept { return input_slots_; }
  const std::vector<int>& output_slots() const noexcept { return output_slots_; }
  // Captured names: (slot here, name in an enclosing graph).
  const std::vector<std::pair<int, std::string>>& captures() const noexcept { return captures_; }
  // The plan of a subgraph attribute of one of this graph's nodes.
  const GraphPlan& Subplan(const ir::Graph& g) const;

 private:
  const ir::Graph& graph_;
  std::vector<Step> steps_;
  size_t slot_count_ = 0;
  std::unordered_map<const ir::Value*, int> slot_of_;
  std::unordered_map<std::string, int> slot_by_name_;
  std::vector<std::pair<int, std::shared_ptr<const Tensor>>> constants_;
  std::vector<int> input_slots_;
  std::vector<int> output_slots_;
  std::vector<std::pair<int, std::string>> captures_;
  std::unordered_map<const ir::Graph*, std::unique_ptr<GraphPlan>> subplans_;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_PLAN_H_
