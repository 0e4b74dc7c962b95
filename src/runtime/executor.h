// Runs a GraphPlan: one Frame per graph invocation holds the run's tensors by slot, feeds each
// step its inputs, frees every intermediate after its last reader, and runs subgraphs (If, Loop,
// Scan) in child frames that read captured names from their parents.
#ifndef KILN_RUNTIME_EXECUTOR_H_
#define KILN_RUNTIME_EXECUTOR_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/thread_pool.h"
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
  void Record(Event e);
  // Writes the trace-event JSON to `path`; throws kFail when the file cannot be written.
  void WriteJson(const std::string& path) const;

 private:
  std::chrono::steady_clock::time_point origin_;
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
};

class Frame final : public SubgraphRunner {
 public:
  Frame(const GraphPlan& plan, const Frame* parent, RunContext& run);

  // Sets graph input i before Execute.
  void SetInput(size_t i, std::shared_ptr<const Tensor> t);
  // Runs every step. Throws kTerminated when asked to stop, or what a kernel throws (with the
  // node named).
  void Execute();
  // Graph output i after Execute: a tensor this run produced (mutable, not shared with anything
  // else), or a copy when the output is a graph input, a constant or a captured value.
  std::shared_ptr<Tensor> TakeOutput(size_t i);

  std::vector<std::shared_ptr<Tensor>> RunSubgraph(
      const ir::Graph& graph, const std::vector<std::shared_ptr<const Tensor>>& inputs) override;

 private:
  std::shared_ptr<const Tensor> LookupCaptured(const std::string& name) const;
  void RunStep(const GraphPlan::Step& step);

  const GraphPlan& plan_;
  const Frame* parent_;
  RunContext& run_;
  const GraphPlan::Step* current_ = nullptr;
  std::vector<std::shared_ptr<const Tensor>> slots_;
  std::vector<std::shared_ptr<Tensor>> owned_;  // slots this run wrote
};

// Makes an independent copy of a tensor (strings included) from `allocator`.
std::shared_ptr<Tensor> CopyTensor(const Tensor& t, const std::shared_ptr<Allocator>& allocator);

// An allocator that keeps freed blocks and hands them out again (best fit, at most twice the
// request), so steady-state runs of a static-shape model do not go back to the system.
class CachingAllocator final : public Allocator {
 public:
  ~CachingAllocator() override;
  void* Alloc(size_t bytes) override;
  void Free(void* p) noexcept override;
  const MemoryInfo& Info() const noexcept override;

 private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::mutex mu_;
  std::vector<Block> free_;  // sorted by size
  std::vector<Block> live_;  // to know a block's size when it comes back
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_EXECUTOR_H_
