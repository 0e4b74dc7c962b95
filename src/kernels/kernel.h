// What a kernel sees. A kernel is created once per node from a KernelInfo (attributes parsed,
// constant weights pre-packed) and then computes many times, possibly from several threads at
// once, through a KernelContext. Kernels never see the graph.
//
//   class Relu final : public kiln::Kernel {
//    public:
//     void Compute(kiln::KernelContext& ctx) const override {
//       const kiln::Tensor& x = ctx.Input(0);
//       kiln::Tensor& y = ctx.Output(0, x.type(), x.shape());
//       ...
//     }
//   };
#ifndef KILN_KERNELS_KERNEL_H_
#define KILN_KERNELS_KERNEL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "core/thread_pool.h"
#include "core/value.h"

namespace kiln {

namespace ir {
class Node;
class Graph;
}  // namespace ir
namespace infer {
class InferenceContext;
}  // namespace infer
class Logger;

// A node as a kernel may know it: name, op, opset, attributes, constant inputs, static types.
class KernelInfo {
 public:
  explicit KernelInfo(const ir::Node& node) : node_(node) {}

  const std::string& name() const noexcept;
  const std::string& op_type() const noexcept;
  const std::string& domain() const noexcept;
  int64_t opset() const noexcept;
  size_t input_count() const noexcept;
  size_t output_count() const noexcept;
  // False for an optional input left out (empty name) or past the end.
  bool HasInput(size_t i) const noexcept;
  bool HasOutput(size_t i) const noexcept;
  // The input's data when it is an initializer (constant for the session's life), else nullptr.
  const Tensor* ConstantInput(size_t i) const noexcept;
  // The input's element type when known before running, else DataType::kUndefined.
  DataType InputType(size_t i) const noexcept;

  bool HasAttribute(const char* name) const noexcept;
  // Each getter returns `fallback` when the attribute is absent and throws kInvalidGraph, naming
  // the node and the attribute, when it is present with another type.
  int64_t GetInt(const char* name, int64_t fallback) const;
  float GetFloat(const char* name, float fallback) const;
  std::string GetString(const char* name, const std::string& fallback) const;
  std::vector<int64_t> GetInts(const char* name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> GetFloats(const char* name, std::vector<float> fallback = {}) const;
  std::vector<std::string> GetStrings(const char* name,
                                      std::vector<std::string> fallback = {}) const;
  // nullptr when absent.
  std::shared_ptr<const Tensor> GetTensor(const char* name) const;
  std::shared_ptr<const ir::Graph> GetGraph(const char* name) const;
  // Throws kInvalidGraph "node 'n' (Op): attribute 'name' is required" when absent.
  int64_t RequireInt(const char* name) const;

  // Throws Error(code, "node 'n' (Op): " + what).
  [[noreturn]] void Fail(ErrorCode code, const std::string& what) const;

  const ir::Node& node() const noexcept { return node_; }

 private:
  const ir::Node& node_;
};

// Gives a kernel its output tensors and scratch memory. The executor decides where the memory
// comes from (a planned arena, a caching allocator, the heap).
class OutputAllocator {
 public:
  virtual ~OutputAllocator() = default;
  // Returns a tensor of exactly this type and shape for output `index`, owned by the allocator:
  // zero-filled when `zero`, else with unspecified contents that the kernel overwrites (test and
  // debug allocators fill those with a poison pattern, so a kernel that leaves an element unwritten
  // fails its tests). Throws on failure (kInvalidArgument for a negative dimension or a size that
  // overflows, kOutOfMemory).
  virtual Tensor& Allocate(size_t index, DataType type, std::span<const int64_t> dims,
                           bool zero) = 0;
  // `bytes` of uninitialised memory, 64-byte aligned, valid until the kernel's Compute returns.
  // Safe to call from several threads at once. Throws kOutOfMemory.
  virtual void* Scratch(size_t bytes) = 0;
  // Sets output `index` to a value the kernel made: a sequence, an optional, or a tensor it
  // shares (e.g. taken out of a sequence). Throws if the output was already set.
  virtual void SetValue(size_t index, Value value) = 0;
};

// Scratch memory from the heap, freed when this object goes: for allocators that do not plan.
class HeapScratch {
 public:
  HeapScratch() = default;
  HeapScratch(const HeapScratch&) = delete;
  HeapScratch& operator=(const HeapScratch&) = delete;
  ~HeapScratch();
  void* Get(size_t bytes);

 private:
  std::mutex mu_;
  std::vector<void*> blocks_;
};

// Runs a subgraph attribute (If/Loop/Scan bodies) with the given inputs; implemented by the
// executor.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Value> RunSubgraph(const ir::Graph& graph,
                                         const std::vector<Value>& inputs) = 0;
};

class KernelContext {
 public:
  // `values` (optional) gives every input as a Value, for kernels that take sequences or
  // optionals; `inputs` has the tensors (nullptr where an input is not a plain tensor).
  KernelContext(const KernelInfo& info, std::span<const Tensor* const> inputs,
                std::span<Tensor*> outputs, OutputAllocator& allocator, ThreadPool& threads,
                SubgraphRunner* subgraphs = nullptr, std::span<const Value* const> values = {})
      : info_(info),
        inputs_(inputs),
        values_(values),
        outputs_(outputs),
        allocator_(allocator),
        threads_(threads),
        subgraphs_(subgraphs) {}

  const KernelInfo& info() const noexcept { return info_; }
  size_t input_count() const noexcept { return inputs_.size(); }
  size_t output_count() const noexcept { return outputs_.size(); }
  // nullptr for an optional input left out.
  const Tensor* OptionalInput(size_t i) const noexcept {
    return i < inputs_.size() ? inputs_[i] : nullptr;
  }
  // Throws kInvalidArgument naming the node when input i is missing or not a tensor.
  const Tensor& Input(size_t i) const;
  // Input i as a value of any kind; nullptr for an input left out.
  const Value* InputValue(size_t i) const noexcept {
    return i < values_.size() ? values_[i] : nullptr;
  }
  // Sets output i to a sequence, an optional or a shared tensor (see OutputAllocator::SetValue).
  void SetOutputValue(size_t i, Value value);
  // Allocates output i (once), zero-filled. Throws if the output was already allocated.
  Tensor& Output(size_t i, DataType type, const Shape& shape) {
    return Output(i, type, std::span<const int64_t>(shape.dims()));
  }
  // The same from dimensions a kernel keeps on its stack: with a planned output, no heap.
  Tensor& Output(size_t i, DataType type, std::span<const int64_t> dims);
  // Like Output, but the contents are unspecified: for a kernel that writes every element (never
  // for string tensors, which are always made empty). Saves the zero-filling pass.
  Tensor& OutputForOverwrite(size_t i, DataType type, const Shape& shape) {
    return OutputForOverwrite(i, type, std::span<const int64_t>(shape.dims()));
  }
  Tensor& OutputForOverwrite(size_t i, DataType type, std::span<const int64_t> dims);
  // `count` uninitialised elements of T, 64-byte aligned, valid until Compute returns; safe from
  // several threads at once. Throws kOutOfMemory (also when the size overflows).
  template <typename T>
  T* Scratch(size_t count) {
    constexpr size_t kSize = sizeof(T);  // NOLINT(bugprone-sizeof-expression): T may be a pointer
    if (count > SIZE_MAX / kSize) throw Error(ErrorCode::kOutOfMemory, "scratch size overflows");
    return static_cast<T*>(allocator_.Scratch(count * kSize));
  }
  // Whether the graph uses output i (optional outputs may be left out).
  bool WantsOutput(size_t i) const noexcept { return info_.HasOutput(i); }
  ThreadPool& threads() noexcept { return threads_; }
  // Throws kNotImplemented when the executor gave no runner.
  SubgraphRunner& subgraphs() const;
  // The run's state, when the executor gives it: its terminate flag and the session's logger.
  void set_run_state(const std::atomic<bool>* terminate, const Logger* logger) noexcept {
    terminate_ = terminate;
    logger_ = logger;
  }
  // Whether the run has been asked to stop (false when no flag was given).
  bool terminated() const noexcept {
    return terminate_ != nullptr && terminate_->load(std::memory_order_relaxed);
  }
  // nullptr when no logger was given.
  const Logger* logger() const noexcept { return logger_; }

 private:
  Tensor& MakeOutput(size_t i, DataType type, std::span<const int64_t> dims, bool zero);

  const KernelInfo& info_;
  std::span<const Tensor* const> inputs_;
  std::span<const Value* const> values_;
  std::span<Tensor*> outputs_;
  OutputAllocator& allocator_;
  ThreadPool& threads_;
  SubgraphRunner* subgraphs_;
  const std::atomic<bool>* terminate_ = nullptr;
  const Logger* logger_ = nullptr;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Must not modify the kernel: one kernel serves concurrent runs.
  virtual void Compute(KernelContext& ctx) const = 0;
  // Called at most once, at load, before any run, when inference has learnt the inputs' shapes:
  // shapes[i] is input i's shape as far as it is known (dimensions -1 where not), or nullptr when
  // not even its rank is (or the input is left out). A hint for choosing an algorithm (and
  // repacking constant weights for it); the kernel must still work, and check the shapes it gets,
  // when it is never called or the hint is wrong. The default ignores it.
  virtual void SpecializeForShapes(std::span<const Shape* const> shapes) { (void)shapes; }
  // Whether output 0 always holds exactly input 0's bytes, in order (a reshape, or a transpose
  // that moves only axes of size 1). The planner may then place the two in one buffer, and
  // Compute must write nothing when it finds its output at its input's address. Asked at load,
  // after SpecializeForShapes.
  virtual bool OutputIsInputBytes() const { return false; }
  // For an op with no inference rule of Kiln's (src/infer), a custom op's: derives what it can
  // of its outputs as a rule would, at load. Returns false when it has nothing to say (the
  // default). Throws, naming the node, when the op says the node cannot run.
  virtual bool InferOutputs(infer::InferenceContext& ctx) const {
    (void)ctx;
    return false;
  }
  // Whether inference may run it at load when all its inputs are constants (constant folding).
  // Custom ops say no: their compute is the library's, run only when the model runs.
  virtual bool EvaluableAtLoad() const { return true; }
};

}  // namespace kiln

#endif  // KILN_KERNELS_KERNEL_H_
