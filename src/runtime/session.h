// A loaded, planned model ready to run. Run is safe from many threads at once: every run has its
// own frame; the plan and kernels are shared and read-only.
//
//   auto s = std::make_shared<kiln::runtime::Session>(kiln::onnx::LoadModelFile(path), options);
//   std::vector<std::shared_ptr<kiln::Tensor>> outs(1);  // null: Kiln allocates
//   std::vector<kiln::Value> others(1);                  // sequence or optional outputs
//   s->Run(run_options, {"x"}, {kiln::Value(x)}, {"y"}, outs, others);
#ifndef KILN_RUNTIME_SESSION_H_
#define KILN_RUNTIME_SESSION_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "ir/graph.h"
#include "runtime/executor.h"
#include "runtime/options.h"
#include "runtime/plan.h"

namespace kiln::runtime {

class Session {
 public:
  struct IoDesc {
    std::string name;
    ir::TypeInfo type;
  };

  // Plans the model: creates every kernel (the options' custom ops' before the built-in ones).
  // Throws kNotImplemented for an unsupported op, kInvalidGraph for a graph the kernels reject,
  // kOutOfMemory when the activations planned from the declared shapes pass the memory limit
  // (config "kiln.memory.limit_bytes"; see memory_budget()).
  // `logger` (may be null) is what kernels that log (custom ops) log through.
  Session(ir::Model model, SessionOptions options, std::shared_ptr<const Logger> logger = nullptr);
  ~Session();

  // The inputs a run must feed (graph inputs without a default value).
  const std::vector<IoDesc>& inputs() const noexcept { return inputs_; }
  // The overridable initializers: graph inputs with a default value (ir::Value::default_value),
  // which a run may feed like an input and otherwise gets the model's value.
  const std::vector<IoDesc>& overridable_initializers() const noexcept { return overridable_; }
  const std::vector<IoDesc>& outputs() const noexcept { return outputs_; }
  const ir::Model& model() const noexcept { return model_; }
  // The model as loaded, before any rewrite (initializers shared with model()), when the options
  // asked for it (config "kiln.graph.keep_loaded" = "1"); null otherwise.
  const ir::Model* loaded_model() const noexcept { return loaded_.get(); }
  const SessionOptions& options() const noexcept { return options_; }

  // Runs with the named inputs (tensors, sequences or optionals). `results` and `others` have
  // one entry per output name. A tensor output goes to results[i]: written into the tensor the
  // caller put there (its type and shape are checked against what the model produced), or, when
  // results[i] is null, a new tensor. Any other output (a sequence or an optional) goes to
  // others[i]; results[i] must then be null. On failure nothing in `results` or `others`
  // changes, the caller's tensors included. Throws kInvalidArgument for bad names, types or
  // shapes, kTerminated when `run` asks to stop. Once a static-shape model has run, a run whose
  // results are all given makes no heap allocation in the engine.
  void Run(const RunOptions& run, std::span<const std::string> input_names,
           std::span<const Value> inputs, std::span<const std::string> output_names,
           std::span<std::shared_ptr<Tensor>> results, std::span<Value> others) const;

  const GraphPlan& plan() const noexcept { return *plan_; }
  // How many arena layouts made from a run's shapes the session holds (see ShapeLayout; at most
  // kMaxLayouts).
  size_t shape_layout_count() const;
  static constexpr size_t kMaxLayouts = 8;
  // Bytes of freed blocks the session's caching allocator keeps for reuse (0 without one).
  size_t cached_bytes() const noexcept { return caching_ != nullptr ? caching_->KeptBytes() : 0; }
  // The memory limit's count, or null when the session has no limit. It covers the activations
  // (arenas, values allocated at run time, in use or kept for reuse) and kernel scratch of all
  // runs together, and the idle frames' too: a reservation that does not fit first frees those
  // (ReleaseIdleMemory). Weights, and the tensor outputs handed to the caller, are not counted.
  const MemoryBudget* memory_budget() const noexcept { return budget_.get(); }
  // Frees what no run is using: the pooled frames (their arenas and scratch) and the blocks the
  // caching allocator keeps.
  void ReleaseIdleMemory() const noexcept;

  // When the profiler started, in nanoseconds since the epoch (system clock); 0 when profiling
  // is off.
  uint64_t profiling_start_ns() const noexcept;

  // Writes the profile collected since creation to "<prefix>_<n>.json" and returns the path.
  // Throws kInvalidArgument when profiling is off.
  std::string EndProfiling();

 private:
  void CheckInput(const IoDesc& desc, const Value& v) const;
  // A dimension named by a dim_param, as the first input that has it gives it in a run.
  struct NamedDim {
    const std::string* symbol;
    int64_t size;
    const std::string* input;
    size_t dim;
  };
  // Inputs whose declared dimensions share a dim_param name must give them one size: inference
  // gave them one symbol (runtime/inference.h), and the optimizer relied on it.
  void CheckNamedDims(const IoDesc& desc, const Value& v, std::vector<NamedDim>& seen) const;
  size_t OutputIndex(const std::string& name, size_t entry) const;
  // Replaces the main graph's initializers by the tensors of SessionOptions::initializers.
  void UseGivenInitializers(ir::Graph& g) const;
  // Fixes the dimensions of the graph inputs named or denoted by a free-dimension override.
  void ApplyFreeDimensionOverrides(ir::Graph& g) const;

  // Frames are kept between runs (one per concurrent run), so a run reuses a frame's arena.
  struct FrameReturn {
    const Session* session;
    void operator()(Frame* frame) const noexcept;
  };
  using FrameLease = std::unique_ptr<Frame, FrameReturn>;
  FrameLease AcquireFrame(RunContext& run) const;

  // A plan whose values are not all laid out at load (free dimensions) gets an arena layout per
  // set of input shapes, made from the first run that had them (as ONNX Runtime's memory
  // patterns): later runs with those shapes place every value as a static model does. The
  // kMaxLayouts most recently used are kept. `key`: per input, its element type, rank and dims.
  struct ShapeLayout {
    std::vector<int64_t> key;
    std::shared_ptr<const ArenaLayout> layout;
  };
  // Whether the frame's inputs are all tensors (only those have a layout key).
  bool HasLayoutKey(const Frame& frame) const;
  bool KeyMatches(const std::vector<int64_t>& key, const Frame& frame) const;
  std::vector<int64_t> LayoutKey(const Frame& frame) const;
  // The layout of the frame's input shapes (moved to the front of the list), or null.
  std::shared_ptr<const ArenaLayout> FindLayout(const Frame& frame) const;
  void AddLayout(const Frame& frame, std::shared_ptr<const ArenaLayout> layout) const;

  ir::Model model_;
  std::unique_ptr<const ir::Model> loaded_;
  SessionOptions options_;
  std::shared_ptr<const Logger> logger_;
  std::unique_ptr<CustomKernels> custom_;  // the options' custom ops over the CPU kernels
  std::unique_ptr<GraphPlan> plan_;
  std::vector<IoDesc> inputs_;
  std::vector<IoDesc> overridable_;
  std::vector<IoDesc> outputs_;
  // Per graph input (the frame's input index): its description (in inputs_ or overridable_) and,
  // for an overridable initializer, the value a run that does not feed it gets.
  struct GraphInput {
    const IoDesc* desc;
    Value default_value;
  };
  std::vector<GraphInput> graph_inputs_;
  std::unique_ptr<ThreadPool> threads_;
  std::unique_ptr<ThreadPool> inter_op_;  // the parallel execution mode's; null: steps in order
  std::shared_ptr<MemoryBudget> budget_;  // null: no limit
  std::shared_ptr<Allocator> allocator_;
  CachingAllocator* caching_ = nullptr;  // allocator_, when it is one
  std::unique_ptr<Profiler> profiler_;
  bool check_finite_ = false;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<Frame>> pool_;
  mutable size_t frames_made_ = 0;
  mutable std::mutex layouts_mu_;
  mutable std::vector<ShapeLayout> layouts_;  // most recently used first
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_SESSION_H_
