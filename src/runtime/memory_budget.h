// The session's memory limit (config "kiln.memory.limit_bytes"): one count of the bytes a
// session holds for activations and scratch, across all its runs at once. Every allocation it
// covers asks Reserve first, so a run that would pass the limit fails before touching memory.
//
//   auto budget = std::make_shared<kiln::runtime::MemoryBudget>(64 << 20);
//   budget->Reserve(bytes, "activations");  // throws kOutOfMemory when over the limit
//   void* p = CpuAlignedAlloc(bytes);       // ... and Release(bytes) once it is freed
#ifndef KILN_RUNTIME_MEMORY_BUDGET_H_
#define KILN_RUNTIME_MEMORY_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace kiln::runtime {

// The config key of the limit.
inline constexpr const char* kMemoryLimitKey = "kiln.memory.limit_bytes";

// The limit a config value gives: decimal bytes, 0 for none. Throws kInvalidArgument naming the
// key for anything else (a sign, spaces, other characters, a value past SIZE_MAX).
size_t ParseMemoryLimit(const std::string& value);
// The limit `config` sets (0 when the key is absent).
size_t MemoryLimitOf(const std::map<std::string, std::string>& config);

class MemoryBudget {
 public:
  explicit MemoryBudget(size_t limit) noexcept : limit_(limit) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  size_t limit() const noexcept { return limit_; }
  // Bytes counted now.
  size_t held() const noexcept { return held_.load(std::memory_order_relaxed); }
  // Counts `bytes` more, held for `what` ("activations", "scratch"). When they do not fit, asks
  // the reclaimer (once) to give back idle memory and tries again; then throws kOutOfMemory
  // "needs N bytes for <what>; the session's memory limit kiln.memory.limit_bytes=L has R bytes
  // left", having counted nothing.
  void Reserve(size_t bytes, const char* what);
  // Counts `bytes` more when they fit, without reclaiming; false (nothing counted) otherwise.
  bool TryReserve(size_t bytes) noexcept;
  void Release(size_t bytes) noexcept;
  // What Reserve calls to free idle memory (pooled frames, kept blocks); empty: nothing. Must
  // not reserve. Cleared by the session before it goes (the budget may outlive it).
  void SetReclaim(std::function<void()> reclaim);

 private:
  const size_t limit_;
  std::atomic<size_t> held_{0};
  std::mutex reclaim_mu_;
  std::function<void()> reclaim_;  // under reclaim_mu_
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_MEMORY_BUDGET_H_
