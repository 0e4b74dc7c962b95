// The intra-op thread pool: a fixed set of workers plus the calling thread, work handed out in
// chunks from a shared counter so a stalled thread does not hold the others back.
//
//   kiln::ThreadPool pool(2);  // the caller and one worker
//   pool.ParallelFor(rows, 16, [&](size_t begin, size_t end) { /* rows [begin, end) */ });
#ifndef KILN_CORE_THREAD_POOL_H_
#define KILN_CORE_THREAD_POOL_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace kiln {

class ThreadPool {
 public:
  // `threads` counts the caller: 1 runs everything inline. Values below 1 mean 1. Each worker
  // calls `worker_start` (when given) once, before the constructor returns, e.g. to make
  // per-thread workspaces ahead of the first run.
  explicit ThreadPool(int threads, void (*worker_start)() noexcept = nullptr);
  // The same, with idle threads spinning before they block (and jobs handed over without the
  // lock) or not; the constructor above spins when the threads fit the machine's cores. For
  // tests: both hand-overs on any machine.
  ThreadPool(int threads, void (*worker_start)() noexcept, bool spin);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const noexcept { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) over [0, n) in chunks of at least `grain` items, on the caller and the
  // workers, and returns when every chunk is done. Safe to call from several threads at once and
  // from inside fn. If fn throws, the remaining chunks are skipped and the first exception is
  // rethrown here. Makes no heap allocation.
  template <typename F>
  void ParallelFor(size_t n, size_t grain, F&& fn) {
    if (n == 0) return;
    if (grain == 0) grain = 1;
    if (workers_.empty() || n <= grain) {
      fn(size_t{0}, n);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    auto thunk = [](void* ctx, size_t b, size_t e) { (*static_cast<Fn*>(ctx))(b, e); };
    Run(n, grain, thunk, const_cast<void*>(static_cast<const void*>(&fn)));
  }

  // Calls fn(begin, end) once for each of size() contiguous, near-equal shares of [0, n) (n
  // shares when n is smaller), in parallel. The caller usually takes the first share and each
  // worker one of the others, so consecutive calls over the same rows (a convolution chain's
  // layers) mostly find their share in the cache of the thread that wrote it: measured on
  // MobileNetV2 at 2 threads, 4.26 ms with chunks handed out in turn, 3.68 with shares. No load
  // balancing beyond that: for work that splits evenly. Makes no heap allocation.
  template <typename F>
  void ParallelForShares(size_t n, F&& fn) {
    const size_t parts = std::min(n, static_cast<size_t>(size()));
    if (parts == 0) return;
    const size_t each = n / parts;
    const size_t extra = n % parts;  // the first `extra` shares take one more
    const auto start = [&](size_t i) { return i * each + std::min(i, extra); };
    ParallelFor(parts, 1, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) fn(start(i), start(i + 1));
    });
  }

 private:
  struct Job;
  void Run(size_t n, size_t grain, void (*fn)(void*, size_t, size_t), void* ctx);
  static void Work(Job& job) noexcept;
  // Work, then leave the job a worker joined (lowers its active count).
  static void WorkAndLeave(Job& job) noexcept;
  void WorkerLoop() noexcept;
  // Spins briefly; true as soon as generation_ is no longer `seen`, false when the time is up.
  bool SpinUntilNewWork(uint64_t seen) const noexcept;

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job*> jobs_;
  bool stop_ = false;
  // Joins the posted job if it has chunks left, runs them, and returns true; false otherwise.
  bool TryJoinPosted() noexcept;
  // Whether the posted job has chunks left (without joining it).
  bool PostedHasWork() noexcept;

  // The hand-over of one job at a time without the lock (Run's fast path, where threads spin):
  // one cache line that an idle worker watches. `posted` is the job, set and cleared by its owner;
  // a worker that reads it counts itself in `pins` first, and the owner, after clearing `posted`,
  // waits for `pins` to drop to zero before its job may go away (a worker holds a pin only while
  // it decides to join: a few instructions, never while it works). `generation` is bumped by
  // every job queued (under mu_), by every job posted, and by the destructor: what an idle worker
  // spins on.
  struct alignas(64) HandOver {
    std::atomic<Job*> posted{nullptr};
    std::atomic<int> pins{0};
    std::atomic<uint64_t> generation{0};
  };
  HandOver hand_;
  std::atomic<int> sleeping_{0};  // workers blocked on wake_ (changed under mu_)
  const bool spin_;               // idle threads spin briefly before blocking
  size_t started_ = 0;            // workers past their start hook
  std::condition_variable started_cv_;
  std::vector<std::thread> workers_;
};

}  // namespace kiln

#endif  // KILN_CORE_THREAD_POOL_H_
