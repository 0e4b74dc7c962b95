// Runs a GraphPlan: one Frame per graph invocation holds the run's tensors by slot, feeds each
// step its inputs, frees every intermediate after its last reader, and runs subgraphs (If, Loop,
// Scan) in child frames that read captured names from their parents. Steps run one after another
// in the plan's order, or, with an inter-op pool (the parallel execution mode), each as soon as
// the steps it reads from are done, independent branches at once.
#ifndef KILN_RUNTIME_EXECUTOR_H_
#define KILN_RUNTIME_EXECUTOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"
#include "core/thread_pool.h"
#include "core/value.h"
#include "runtime/memory_budget.h"
#include "runtime/plan.h"

namespace kiln::runtime {

// Per-node timings for the Chrome trace-event profile.
class Profiler {
 public:
  struct Event {
    std::string name;
    std::string op_type;
    int64_t start_us;
    int64_t duration_us;
    size_t thread;
  };
  Profiler();
  int64_t NowUs() const;
  // When the profiler was made: nanoseconds since the epoch, system clock.
  uint64_t start_ns() const noexcept { return start_ns_; }
  void Record(Event e);
  // Writes the trace-event JSON to `path`; throws kFail when the file cannot be written.
  void WriteJson(const std::string& path) const;

 private:
  std::chrono::steady_clock::time_point origin_;
  uint64_t start_ns_ = 0;
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

// What every frame of one run shares.
struct RunContext {
  ThreadPool& threads;
  std::shared_ptr<Allocator> allocator;
  const std::atomic<bool>* terminate = nullptr;
  Profiler* profiler = nullptr;
  bool check_finite = false;
  // The parallel execution mode: the main graph's steps run on these threads (the caller's
  // included), each as soon as its inputs are ready; its values are then allocated at run time,
  // not placed in the arena (lifetimes no longer follow the plan's order). Subgraphs still run
  // their steps in order.
  ThreadPool* inter_op = nullptr;
  // The session's logger, for kernels that log (custom ops); may be null.
  const Logger* logger = nullptr;
  // The session's memory limit, when it has one: frames count their arenas and scratch against
  // it (`allocator` counts the values it allocates itself).
  std::shared_ptr<MemoryBudget> budget = nullptr;
};

// Kernel scratch memory for one frame: a block reused step after step. A step that needs more
// gets extra heap blocks, and the block grows to that peak when the step ends, so a steady-state
// run takes all its scratch from the block. With a budget, the block and the extra blocks are
// counted against it (a block that cannot grow within it stays as it is).
class ScratchArena {
 public:
  ScratchArena() = default;
  ScratchArena(const ScratchArena&) = delete;
  ScratchArena& operator=(const ScratchArena&) = delete;
  ~ScratchArena();
  // Set before the first Get.
  void set_budget(std::shared_ptr<MemoryBudget> budget) noexcept { budget_ = std::move(budget); }
  // 64-byte aligned; thread-safe. Throws kOutOfMemory (also when the budget has no room).
  void* Get(size_t bytes);
  // Everything handed out since the last call becomes free.
  void EndStep() noexcept;

 private:
  std::mutex mu_;
  void* block_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t peak_ = 0;
  std::vector<void*> overflow_;
  size_t overflow_bytes_ = 0;  // of overflow_, counted against budget_
  std::shared_ptr<MemoryBudget> budget_;
};

class Frame final {
 public:
  // A frame for one invocation of `plan`. When the plan has an arena (and the run is not in the
  // parallel mode), its buffer and the tensors planned in it are made here, once: a frame kept and
  // reused (Session keeps a pool) then runs without allocating for them (UseLayout changes them).
  // Throws kOutOfMemory when the arena cannot be allocated.
  Frame(const GraphPlan& plan, const Frame* parent, RunContext& run);
  ~Frame();
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  // Binds a cleared frame to a new run and puts the constants back.
  void Reset(RunContext& run);
  // Places the next run's values by `layout` (one of the plan's: its own or one LayoutFor made),
  // growing the arena block when it needs more (a layout that places nothing keeps the block).
  // Called on a cleared frame, before Execute. Throws kOutOfMemory (the frame is then left with no
  // arena).
  void UseLayout(std::shared_ptr<const ArenaLayout> layout);
  // Makes the next Execute note the type and shape of every tensor a step produces, for
  // ProducedShapes. Clear ends it.
  void RecordShapes();
  // What the last Execute produced, slot by slot, when RecordShapes preceded it.
  std::span<const ProducedShape> ProducedShapes() const noexcept { return produced_; }
  // Whether `t`'s bytes lie in this frame's arena block.
  bool InArena(const Tensor& t) const noexcept;
  // Drops every value of the last run (the arena stays allocated).
  void Clear() noexcept;
  // Makes the step that produces graph output i put it outside the arena, so TakeTensorOutput
  // hands it over instead of copying it out. Called on a cleared frame, before Execute; Clear ends
  // it.
  void HandOver(size_t i);
  // Sets graph input i before Execute.
  void SetInput(size_t i, Value v);
  // Whether graph input i has been set since the last Reset.
  bool HasInput(size_t i) const;
  // Graph input i as set (empty when it was not).
  const Value& Input(size_t i) const { return slots_[plan_.input_slots().at(i)]; }
  // Runs every step. Throws kTerminated when asked to stop, or what a kernel throws (with the
  // node named); in the parallel mode the first failure is thrown once the steps already
  // running are done, and no further step starts.
  void Execute();
  // Graph output i after Execute, held by the frame (valid until the next Clear).
  const Value& Output(size_t i) const;
  // Tensor graph output i after Execute: a tensor this run produced (mutable, not shared with
  // anything else), or a copy when the output is a graph input, a constant, a captured value or
  // lives in the arena. Throws kEngineError when the output is not a tensor.
  std::shared_ptr<Tensor> TakeTensorOutput(size_t i);

  // Whether this frame runs its steps on RunContext::inter_op.
  bool parallel() const noexcept { return run_->inter_op != nullptr && parent_ == nullptr; }

 private:
  class StepOutputs;    // the OutputAllocator a step's kernel gets
  class StepSubgraphs;  // the SubgraphRunner a step's kernel gets
  // A subgraph of `step`'s node, run in a child frame: one kept from an earlier entry into the
  // same subgraph (TakeChild), so that a Loop's iterations and an If's later runs find their
  // slots, arena and scratch made, or a new one; given back cleared (PutChild).
  std::vector<Value> RunSubgraph(const GraphPlan::Step& step, const ir::Graph& graph,
                                 const std::vector<Value>& inputs);
  std::unique_ptr<Frame> TakeChild(const GraphPlan& sub);
  void PutChild(std::unique_ptr<Frame> child) noexcept;
  // The steps on run_->inter_op, by their dependencies (GraphPlan::Step::producers).
  void ExecuteParallel();
  // One inter-op thread's share of ExecuteParallel: takes ready steps until none is left.
  void ParallelWorker(size_t worker) noexcept;
  Value LookupCaptured(const std::string& name) const;
  // `v` with every tensor that lies in this frame's arena replaced by a heap copy: a sequence or
  // an optional may outlive the arena buffer it was made from.
  Value OutsideArena(Value v) const;
  void RunStep(const GraphPlan::Step& step, ScratchArena& scratch);
  // What `step` was given, for an error message: " (the node was given 'x' tensor(float) [1,3],
  // ...)".
  std::string InputsText(const GraphPlan::Step& step) const;
  // The arena tensor of `slot` when it was planned with exactly this type and shape, else null.
  Tensor* Planned(int slot, DataType type, std::span<const int64_t> dims) const;
  void FreeArena() noexcept;

  const GraphPlan& plan_;
  const Frame* parent_;
  RunContext* run_;
  std::vector<Value> slots_;
  std::vector<std::shared_ptr<Tensor>> owned_;  // slots this run wrote
  std::vector<bool> hand_over_;                 // per slot: produced outside the arena (HandOver)
  std::shared_ptr<const ArenaLayout> layout_;   // where planned_ lies; null: nothing planned
  std::shared_ptr<Allocator> arena_allocator_;  // null when there is no arena
  void* arena_ = nullptr;
  size_t arena_capacity_ = 0;                     // bytes of arena_
  std::vector<std::shared_ptr<Tensor>> planned_;  // per slot: its tensor in the arena, or null
  bool recording_ = false;
  std::vector<ProducedShape> produced_;  // per slot, while recording
  ScratchArena scratch_;
  std::shared_ptr<MemoryBudget> budget_;  // the session's, or null

  // The parallel mode's state, kept between runs so a steady-state run reuses it.
  struct Schedule {
    std::mutex mu;
    std::condition_variable ready_cv;
    std::vector<size_t> ready;                 // steps whose inputs are all made (under mu)
    std::vector<int> waiting;                  // per step: producers not done yet (under mu)
    std::unique_ptr<std::atomic<int>[]> left;  // per slot: readings not done yet
    size_t done = 0;                           // steps finished or skipped (under mu)
    bool failed = false;                       // (under mu)
    std::exception_ptr error;                  // the first failure (under mu)
    std::vector<std::unique_ptr<ScratchArena>> scratch;  // one per inter-op thread
  };
  std::unique_ptr<Schedule> schedule_;

  // Child frames not in use, cleared, for the next entry into their subgraph. (Under a mutex:
  // in the parallel mode several steps of this frame may enter subgraphs at once.)
  std::mutex children_mu_;
  std::unordered_map<const GraphPlan*, std::vector<std::unique_ptr<Frame>>> children_;
};

// An allocator that keeps freed blocks and hands them out again (best fit, at most twice the
// request), so steady-state runs of a static-shape model do not go back to the system.
// With a budget, every block it holds from the system (in use or kept) is counted against it:
// Alloc reserves before it allocates and throws the budget's kOutOfMemory when there is no room.
class CachingAllocator final : public Allocator {
 public:
  CachingAllocator() = default;
  // `keep` false: a freed block goes back to the system at once (nothing is kept).
  CachingAllocator(std::shared_ptr<MemoryBudget> budget, bool keep) noexcept
      : budget_(std::move(budget)), keep_(keep) {}
  ~CachingAllocator() override;
  void* Alloc(size_t bytes) override;
  void Free(void* p) noexcept override;
  const MemoryInfo& Info() const noexcept override;
  // Returns every kept block to the system (blocks in use stay theirs).
  void Trim() noexcept;
  // Bytes of the blocks kept for reuse.
  size_t KeptBytes() const noexcept;
  // Stops counting the block in use at `p` against the budget (an output handed to the caller,
  // who may keep it as long as it likes): it goes back to the system when freed. No-op for a
  // pointer that is not a block's, or without a budget.
  void Disown(const void* p) noexcept;

 private:
  struct Block {
    void* p;
    size_t bytes;
    bool counted = true;  // against budget_
  };
  std::shared_ptr<MemoryBudget> budget_;
  bool keep_ = true;
  mutable std::mutex mu_;
  std::vector<Block> free_;  // sorted by size
  std::vector<Block> live_;  // to know a block's size when it comes back
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_EXECUTOR_H_
