#include "runtime/plan.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.h"
#include "runtime/inference.h"

namespace kiln::runtime {
namespace {

std::unique_ptr<Kernel> CreateKernel(const ir::Node& node, const KernelInfo& info,
                                     const KernelDef*& found, const KernelRegistry& registry) {
  const KernelDef* def = registry.Find(node.domain(), node.op_type(), node.opset());
  found = def;
  const std::string domain = node.domain().empty() ? "ai.onnx" : node.domain();
  if (def == nullptr) {
    if (registry.Knows(node.domain(), node.op_type())) {
      throw Error(ErrorCode::kNotImplemented, node.Describe() + ": opset " +
                                                  std::to_string(node.opset()) + " of " + domain +
                                                  " " + node.op_type() + " is not supported");
    }
    // An op of a domain Kiln has no kernels of is most likely a custom op whose library was not
    // registered.
    const bool foreign = !registry.KnowsDomain(node.domain());
    throw Error(ErrorCode::kNotImplemented,
                node.Describe() + ": op " + node.op_type() + " of domain " + domain + " (opset " +
                    std::to_string(node.opset()) + ") is not supported" +
                    (foreign ? " (a custom op? register its library: "
                               "SessionOptionsRegisterCustomOpsLibrary, or the CLI's "
                               "--custom-op-library)"
                             : ""));
  }
  try {
    return def->Create(info);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.rfind("node '", 0) == 0) throw;
    throw Error(e.code(), node.Describe() + ": " + what);
  }
}

}  // namespace

GraphPlan::GraphPlan(const ir::Graph& graph, const KernelRegistry& registry, PlanOptions options)
    : graph_(graph) {
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

  for (ir::Node* node_ptr : graph.TopologicalOrder()) {
    const ir::Node& node = *node_ptr;
    Step step;
    step.node = &node;
    step.info = std::make_unique<KernelInfo>(node);
    for (const ir::Value* v : node.inputs()) step.inputs.push_back(v == nullptr ? -1 : SlotOf(v));
    for (const ir::Value* v : node.outputs()) step.outputs.push_back(v == nullptr ? -1 : SlotOf(v));
    for (const ir::Attribute& a : node.attributes()) {
      if (a.g) subplans_.emplace(a.g.get(), std::make_unique<GraphPlan>(*a.g, registry));
      for (const auto& g : a.graphs)
        subplans_.emplace(g.get(), std::make_unique<GraphPlan>(*g, registry));
    }
    step.kernel = CreateKernel(node, *step.info, step.def, registry);
    steps_.push_back(std::move(step));
  }
  facts_.assign(slot_count_, infer::TensorFacts{});
  {
    auto none = std::make_shared<ArenaLayout>();
    none->offsets.assign(slot_count_, -1);
    arena_ = std::move(none);
  }
  if (options.infer) {
    Infer(options.fold_constants);
    Specialize();
  }
  PlanReleases();
  PlanDependencies();
  if (options.infer) PlanArena();
  // Values found at load are only needed while inferring (constants_ keeps what runs read).
  for (infer::TensorFacts& f : facts_) f.value.reset();
}

void GraphPlan::Infer(bool fold_constants) {
  std::vector<bool> is_input(slot_count_, false);
  for (int s : input_slots_) is_input[s] = true;
  // Only what a run checks or cannot change is a fact: the declared types of the graph inputs
  // (Run checks every input against them) and the initializers. A value_info is an exporter's
  // claim and is not used: a wrong one must not change results or refuse a model.
  DimSymbols symbols;
  for (size_t i = 0; i < input_slots_.size(); ++i) {
    facts_[input_slots_[i]] = FactsOf(graph_.inputs()[i]->type(), symbols);
  }
  for (const auto& [s, t] : constants_) {
    // A graph input is never a fact's value, even if it had a default (the loader turns an
    // initializer listed as an input into a plain constant, so this is only a guard).
    if (!is_input[s]) facts_[s] = {t->type(), t->shape(), t, std::nullopt};
  }
  std::vector<InferenceStep> view;
  view.reserve(steps_.size());
  for (const Step& st : steps_) {
    view.push_back({st.node, st.info.get(), st.kernel.get(), &st.inputs, &st.outputs});
  }
  const std::vector<bool> folded = InferFacts(view, facts_);
  if (!fold_constants) return;
  std::vector<Step> kept;
  std::vector<int> folded_outputs;
  for (size_t k = 0; k < steps_.size(); ++k) {
    if (!folded[k]) {
      kept.push_back(std::move(steps_[k]));
      continue;
    }
    ++folded_steps_;
    for (int s : steps_[k].outputs) {
      if (s >= 0) folded_outputs.push_back(s);
    }
  }
  steps_ = std::move(kept);
  // Only folded values a remaining step (or a subgraph of one) reads, or a graph output, stay as
  // constants; ones read only by other folded steps are dropped.
  std::vector<bool> needed(slot_count_, false);
  for (int s : output_slots_) needed[s] = true;
  for (const Step& st : steps_) {
    for (int s : st.inputs) {
      if (s >= 0) needed[s] = true;
    }
    for (const ir::Value* v : st.node->implicit_inputs()) needed[SlotOf(v)] = true;
  }
  for (int s : folded_outputs) {
    if (needed[s]) constants_.emplace_back(s, facts_[s].value);
  }
}

void GraphPlan::Specialize() {
  std::vector<const Shape*> shapes;
  for (Step& step : steps_) {
    shapes.clear();
    for (int s : step.inputs) {
      const Shape* shape = nullptr;
      if (s >= 0 && facts_[static_cast<size_t>(s)].shape.has_value()) {
        shape = &*facts_[static_cast<size_t>(s)].shape;
      }
      shapes.push_back(shape);
    }
    step.kernel->SpecializeForShapes(shapes);
  }
}

std::vector<bool> GraphPlan::PinnedSlots() const {
  std::vector<bool> pinned(slot_count_, false);
  for (int s : output_slots_) pinned[s] = true;
  for (int s : input_slots_) pinned[s] = true;
  for (const auto& c : constants_) pinned[c.first] = true;
  for (const auto& c : captures_) pinned[c.first] = true;
  return pinned;
}

void GraphPlan::PlanReleases() {
  std::vector<int> last_use(slot_count_, -1);
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& step = steps_[i];
    for (int s : step.inputs) {
      if (s >= 0) last_use[s] = static_cast<int>(i);
    }
    for (const ir::Value* v : step.node->implicit_inputs()) {
      last_use[SlotOf(v)] = static_cast<int>(i);
    }
    for (int s : step.outputs) {
      if (s >= 0 && last_use[s] < static_cast<int>(i)) {
        last_use[s] = static_cast<int>(i);  // unread outputs are freed at once
      }
    }
  }
  const std::vector<bool> pinned = PinnedSlots();
  for (size_t s = 0; s < slot_count_; ++s) {
    if (!pinned[s] && last_use[s] >= 0) steps_[last_use[s]].release.push_back(static_cast<int>(s));
  }
}

void GraphPlan::PlanDependencies() {
  const std::vector<bool> pinned = PinnedSlots();
  std::vector<size_t> producer(slot_count_, SIZE_MAX);
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (int s : steps_[i].outputs) {
      if (s >= 0) producer[s] = i;
    }
  }
  reading_counts_.assign(slot_count_, 0);
  std::vector<size_t> seen_step(steps_.size(), SIZE_MAX);  // last step i that noted it
  std::vector<size_t> seen_slot(slot_count_, SIZE_MAX);
  for (size_t i = 0; i < steps_.size(); ++i) {
    Step& step = steps_[i];
    const auto read = [&](int s) {
      if (s < 0 || seen_slot[s] == i) return;
      seen_slot[s] = i;
      if (!pinned[s]) {
        step.readings.push_back(s);
        ++reading_counts_[s];
      }
      const size_t p = producer[s];
      if (p != SIZE_MAX && p != i && seen_step[p] != i) {
        seen_step[p] = i;
        ++step.producers;
        steps_[p].next.push_back(i);
      }
    };
    for (int s : step.inputs) read(s);
    for (const ir::Value* v : step.node->implicit_inputs()) read(SlotOf(v));
    for (int s : step.outputs) read(s);  // an unread output is freed once its step is done
  }
}

void GraphPlan::PlanArena() {
  arena_ = Layout([&](int s) { return IsStatic(facts_[s]); }, [&](int s) { return facts_[s].type; },
                  [&](int s) -> const Shape& { return *facts_[s].shape; });
  for (const Step& step : steps_) {
    for (int s : step.outputs) {
      if (s >= 0 && arena_->offsets[s] < 0) has_unplanned_outputs_ = true;
    }
  }
}

std::shared_ptr<const ArenaLayout> GraphPlan::LayoutFor(
    std::span<const ProducedShape> produced) const {
  if (produced.size() != slot_count_) {
    throw Error(ErrorCode::kEngineError, "LayoutFor: " + std::to_string(produced.size()) +
                                             " shapes for " + std::to_string(slot_count_) +
                                             " slots");
  }
  return Layout([&](int s) { return produced[s].known; }, [&](int s) { return produced[s].type; },
                [&](int s) -> const Shape& { return produced[s].shape; });
}

template <typename Known, typename TypeOf, typename ShapeOf>
std::shared_ptr<const ArenaLayout> GraphPlan::Layout(Known known, TypeOf type,
                                                     ShapeOf shape) const {
  struct Block {
    size_t first, last;  // steps during which the buffer is live
    size_t bytes;
    size_t offset = 0;
  };
  auto layout = std::make_shared<ArenaLayout>();
  layout->offsets.assign(slot_count_, -1);
  layout->shares_input.assign(slot_count_, false);
  layout->types.assign(slot_count_, DataType::kUndefined);
  layout->shapes.assign(slot_count_, Shape());
  std::vector<bool> is_output(slot_count_, false);
  for (int s : output_slots_) is_output[s] = true;
  std::vector<Block> blocks;
  std::vector<size_t> block_of(slot_count_, SIZE_MAX);
  // The bytes of a slot's tensor, or nullopt when they overflow (then it is not planned).
  const auto bytes_of = [&](int s) -> std::optional<size_t> {
    const std::optional<size_t> n = shape(s).ElementCount();
    if (!n.has_value()) return std::nullopt;
    return StorageBytes(type(s), *n);
  };
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    // A view (output 0 is input 0's bytes) of a planned buffer shares it, which then lives as
    // long as either value; not for a graph output, which leaves the arena.
    if (step.kernel->OutputIsInputBytes() && !step.inputs.empty() && !step.outputs.empty()) {
      const int in = step.inputs[0];
      const int out = step.outputs[0];
      if (in >= 0 && out >= 0 && block_of[in] != SIZE_MAX && block_of[out] == SIZE_MAX &&
          !is_output[out] && known(out) && type(out) == type(in) && bytes_of(out).has_value() &&
          bytes_of(out) == bytes_of(in)) {
        block_of[out] = block_of[in];
        layout->shares_input[out] = true;
      }
    }
    for (int s : step.outputs) {
      // A string tensor owns its strings: it cannot live in the arena's raw bytes.
      if (s < 0 || !known(s) || block_of[s] != SIZE_MAX || type(s) == DataType::kString) continue;
      const std::optional<size_t> bytes = bytes_of(s);
      constexpr size_t kAlign = 64;
      if (!bytes.has_value() || *bytes > SIZE_MAX - kAlign) continue;
      block_of[s] = blocks.size();
      // Graph outputs outlive every step; the others end where they are released.
      blocks.push_back(
          {k, is_output[s] ? steps_.size() : k, (*bytes + kAlign - 1) / kAlign * kAlign});
    }
    for (int s : step.release) {
      if (block_of[s] != SIZE_MAX) blocks[block_of[s]].last = std::max(blocks[block_of[s]].last, k);
    }
  }
  // Largest first, each at the lowest offset free during its whole life.
  std::vector<size_t> order(blocks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });
  std::vector<size_t> placed;
  for (size_t i : order) {
    Block& b = blocks[i];
    std::vector<std::pair<size_t, size_t>> taken;  // [offset, end) of blocks live at the same time
    for (size_t j : placed) {
      const Block& o = blocks[j];
      if (o.first <= b.last && b.first <= o.last) taken.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(taken.begin(), taken.end());
    size_t offset = 0;
    for (const auto& [lo, hi] : taken) {
      if (lo >= offset + b.bytes) break;
      offset = std::max(offset, hi);
    }
    b.offset = offset;
    placed.push_back(i);
    layout->bytes = std::max(layout->bytes, offset + b.bytes);
  }
  for (size_t s = 0; s < slot_count_; ++s) {
    if (block_of[s] == SIZE_MAX) continue;
    layout->offsets[s] = static_cast<int64_t>(blocks[block_of[s]].offset);
    layout->types[s] = type(static_cast<int>(s));
    layout->shapes[s] = shape(static_cast<int>(s));
  }
  layout->any = !blocks.empty();
  return layout;
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
