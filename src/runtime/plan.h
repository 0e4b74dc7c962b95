// A graph made runnable: nodes in topological order with their kernels created once, every value
// given a slot, and for each step the slots whose last reader it is (freed right after it). The
// main graph is also inferred at load (runtime/inference.h): nodes computable from constants are
// folded into constants, and every value whose type and shape are static gets a fixed place in
// one arena per run, laid out by lifetime, so steady-state runs allocate nothing for it.
#ifndef KILN_RUNTIME_PLAN_H_
#define KILN_RUNTIME_PLAN_H_

#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "infer/infer.h"
#include "ir/graph.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace kiln::runtime {

// Where each value of a run lies in one arena block: the plan's own layout (every value whose type
// and shape inference proves at load) or one made from the shapes a run produced (a model with
// free dimensions gets one per set of input shapes; see Session). Immutable once made.
struct ArenaLayout {
  std::vector<int64_t> offsets;    // per slot; -1: allocated at run time
  std::vector<bool> shares_input;  // per slot: its buffer is its producer's input 0's
  std::vector<DataType> types;     // per planned slot
  std::vector<Shape> shapes;       // per planned slot
  size_t bytes = 0;                // of the block (0 when only empty tensors are planned)
  bool any = false;                // whether any slot is planned
};

// A slot's type and shape as one run produced it; `known` false for a slot it did not produce as
// a tensor.
struct ProducedShape {
  bool known = false;
  DataType type = DataType::kUndefined;
  Shape shape;
};

struct PlanOptions {
  bool infer = false;           // infer types and shapes, plan the arena
  bool fold_constants = false;  // with infer: replace steps computable at load by constants
};

class GraphPlan {
 public:
  struct Step {
    const ir::Node* node;
    std::unique_ptr<KernelInfo> info;
    std::unique_ptr<Kernel> kernel;
    const KernelDef* def = nullptr;  // the registry entry the kernel was made from
    std::vector<int> inputs;         // -1: optional input left out
    std::vector<int> outputs;        // -1: optional output left out
    std::vector<int> release;        // slots to free once this step is done
    // For the parallel executor (Frame::Execute with RunContext::inter_op):
    int producers = 0;          // how many distinct steps make what this one reads
    std::vector<size_t> next;   // the steps that read what this one makes (each once)
    std::vector<int> readings;  // slots freed by count: each it reads or makes, once
  };

  // Creates a kernel for every node, here and in every subgraph (subgraphs are not inferred).
  // Throws kNotImplemented naming the node, its op type, domain and opset when no kernel is
  // registered, kInvalidGraph when inference proves a node cannot run.
  GraphPlan(const ir::Graph& graph, const KernelRegistry& registry, PlanOptions options = {});

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

  // What is known of a slot before running (all unknown without PlanOptions::infer).
  const infer::TensorFacts& Facts(int slot) const { return facts_.at(static_cast<size_t>(slot)); }
  // The arena layout made at load from the inferred facts.
  const std::shared_ptr<const ArenaLayout>& arena() const noexcept { return arena_; }
  // Where a slot's buffer lies in the run's arena, or -1 when it is allocated at run time.
  int64_t ArenaOffset(int slot) const { return arena_->offsets.at(static_cast<size_t>(slot)); }
  // Whether a slot's planned buffer is its producer's input 0's (Kernel::OutputIsInputBytes):
  // the step finds its input there and must not be handed a cleared or poisoned buffer.
  bool SharesInputBuffer(int slot) const noexcept {
    return static_cast<size_t>(slot) < arena_->shares_input.size() && arena_->shares_input[slot];
  }
  // Bytes of the arena each run uses (0 when nothing is planned, or only empty tensors).
  size_t arena_bytes() const noexcept { return arena_->bytes; }
  // Whether any slot is planned (has an arena offset), empty tensors included.
  bool has_arena() const noexcept { return arena_->any; }
  // Whether the plan was inferred and some step output has no place in arena() (its shape
  // depends on the inputs' free dimensions or values): a run's shapes can then be laid out with
  // LayoutFor.
  bool has_unplanned_outputs() const noexcept { return has_unplanned_outputs_; }
  // A layout of the slots a run produced with `produced` (indexed by slot, slot_count() long),
  // by the same rule as arena(): every produced tensor gets a place, buffers whose lives do not
  // overlap share memory.
  std::shared_ptr<const ArenaLayout> LayoutFor(std::span<const ProducedShape> produced) const;
  // Per slot: how many steps list it in Step::readings (0 for a slot that lives for the whole
  // run). The parallel executor frees a slot when the last of them is done.
  const std::vector<int>& reading_counts() const noexcept { return reading_counts_; }
  // Steps replaced by constants at load.
  size_t folded_steps() const noexcept { return folded_steps_; }

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
  std::vector<infer::TensorFacts> facts_;
  std::shared_ptr<const ArenaLayout> arena_ = std::make_shared<ArenaLayout>();
  bool has_unplanned_outputs_ = false;
  size_t folded_steps_ = 0;
  std::vector<int> reading_counts_;

  void Infer(bool fold_constants);
  // Hands each kernel what inference learnt of its inputs' shapes (Kernel::SpecializeForShapes).
  void Specialize();
  // Per slot: whether it lives for the whole run (graph outputs, inputs, constants, captures).
  std::vector<bool> PinnedSlots() const;
  void PlanReleases();
  // Step::producers, Step::next, Step::readings and reading_counts_: the dependency graph of
  // the steps, for running independent ones at once.
  void PlanDependencies();
  void PlanArena();
  // The layout of the slots `known` says have a (type, shape): `type(s)`, `shape(s)`.
  template <typename Known, typename TypeOf, typename ShapeOf>
  std::shared_ptr<const ArenaLayout> Layout(Known known, TypeOf type, ShapeOf shape) const;
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_PLAN_H_
