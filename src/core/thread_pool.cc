#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>

namespace kiln {

// Aligned so that the fields a joining worker reads and writes (fn to active) share one line.
struct alignas(64) ThreadPool::Job {
  void (*fn)(void*, size_t, size_t);
  void* ctx;
  size_t n;
  size_t chunk;
  size_t chunks;
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  std::atomic<bool> failed{false};
  // Workers inside Work(*this); lowered under done_mu; raised only while the job is queued (under
  // mu_) or posted (under a pin).
  std::atomic<int> active{0};
  std::exception_ptr error;  // written once, by the thread that set `failed`
  std::mutex done_mu;
  std::condition_variable done;
};

ThreadPool::ThreadPool(int threads, void (*worker_start)() noexcept)
    // More threads than cores: a spinning thread would take the core a working one needs.
    : ThreadPool(
          threads, worker_start,
          static_cast<unsigned>(std::max(threads, 1)) <= std::thread::hardware_concurrency()) {}

ThreadPool::ThreadPool(int threads, void (*worker_start)() noexcept, bool spin) : spin_(spin) {
  const int workers = std::max(threads, 1) - 1;
  workers_.reserve(static_cast<size_t>(workers));
  try {
    for (int i = 0; i < workers; ++i) {
      workers_.emplace_back([this, worker_start] {
        if (worker_start != nullptr) worker_start();
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++started_;
        }
        started_cv_.notify_all();
        WorkerLoop();
      });
    }
    // Every worker has run its start hook before the pool is used.
    std::unique_lock<std::mutex> lock(mu_);
    started_cv_.wait(lock, [&] { return started_ == workers_.size(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    hand_.generation.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

namespace {

inline void CpuRelax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long an idle worker spins before it blocks: a model's next parallel step usually starts
// within microseconds, far sooner than a blocked thread can be woken. The spin yields the core
// every 64 pauses, so on a busy machine a thread that has work gets it.
constexpr std::chrono::microseconds kSpin{200};

// One step of a spin: a pause, and every 64th time a yield; false once past `deadline`.
bool SpinStep(unsigned i, std::chrono::steady_clock::time_point deadline) noexcept {
  CpuRelax();
  if (i % 64 != 0) return true;
  std::this_thread::yield();
  return std::chrono::steady_clock::now() <= deadline;
}

}  // namespace

void ThreadPool::Work(Job& job) noexcept {
  for (;;) {
    const size_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) return;
    if (!job.failed.load(std::memory_order_relaxed)) {
      const size_t begin = c * job.chunk;
      const size_t end = std::min(job.n, begin + job.chunk);
      try {
        job.fn(job.ctx, begin, end);
      } catch (...) {
        if (!job.failed.exchange(true)) job.error = std::current_exception();
      }
    }
    if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == job.chunks) {
      std::lock_guard<std::mutex> lock(job.done_mu);
      job.done.notify_all();
    }
  }
}

void ThreadPool::WorkAndLeave(Job& job) noexcept {
  Work(job);
  // Under done_mu: the owner, which may be waiting on `done`, takes it before the job goes away.
  std::lock_guard<std::mutex> lock(job.done_mu);
  job.active.fetch_sub(1, std::memory_order_acq_rel);
  job.done.notify_all();
}

void ThreadPool::Run(size_t n, size_t grain, void (*fn)(void*, size_t, size_t), void* ctx) {
  Job job;
  job.fn = fn;
  job.ctx = ctx;
  job.n = n;
  // About four chunks per thread balances a slow thread without much counter traffic.
  const size_t target = static_cast<size_t>(size()) * 4;
  job.chunk = std::max(grain, (n + target - 1) / target);
  job.chunks = (n + job.chunk - 1) / job.chunk;
  // Where threads spin, the job is posted in hand_ when no other is (the common case: one caller,
  // no nesting): a spinning worker finds it there without taking mu_. Each cache line the
  // hand-over passes from core to core costs a few hundred nanoseconds on some machines (530 ns
  // a round trip measured on a 2-core VM), and the queue's path passes several.
  Job* none = nullptr;
  const bool posted = spin_ && hand_.posted.compare_exchange_strong(none, &job);
  if (posted) {
    hand_.generation.fetch_add(1, std::memory_order_seq_cst);
    // A worker counts itself in sleeping_ before it checks for posted work under mu_: it either
    // is counted here or sees the job. Taking mu_ orders the notify after its check.
    if (sleeping_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mu_); }
      wake_.notify_all();
    }
  } else {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(&job);
      hand_.generation.fetch_add(1, std::memory_order_release);
    }
    // Spinning workers see the generation change; only blocked ones need the (slow) wake-up. A
    // worker counts itself in sleeping_ under mu_ before it blocks, so it either is counted here
    // or finds the job when it checks under mu_.
    if (sleeping_.load() > 0) wake_.notify_all();
  }
  Work(job);
  // The last chunks are usually a worker's, finishing within microseconds, and a worker that
  // joined leaves Work right after: spin for both before blocking.
  if (spin_) {
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1; job.finished.load(std::memory_order_acquire) != job.chunks ||
                         job.active.load(std::memory_order_acquire) != 0;
         ++i) {
      if (!SpinStep(i, deadline)) break;
    }
  }
  {
    std::unique_lock<std::mutex> lock(job.done_mu);
    job.done.wait(lock, [&] { return job.finished.load() == job.chunks; });
  }
  if (posted) {
    // No worker joins after this: one that pinned before it reads the job and raises active
    // before it unpins; one that pins after it does not see the job.
    hand_.posted.store(nullptr, std::memory_order_seq_cst);
    for (unsigned i = 1; hand_.pins.load(std::memory_order_seq_cst) != 0; ++i) {
      CpuRelax();
      if (i % 64 == 0) std::this_thread::yield();
    }
  } else {
    // Workers only pick queued jobs up under mu_, so after this no new one can join `job`.
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(jobs_.begin(), jobs_.end(), &job);
    if (it != jobs_.end()) jobs_.erase(it);
  }
  {
    // A worker that joined may still be about to find no chunk left; wait until it has left (and
    // has let go of done_mu: the job lives on this stack).
    std::unique_lock<std::mutex> lock(job.done_mu);
    job.done.wait(lock, [&] { return job.active.load() == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

bool ThreadPool::TryJoinPosted() noexcept {
  hand_.pins.fetch_add(1, std::memory_order_seq_cst);
  Job* job = hand_.posted.load(std::memory_order_seq_cst);
  const bool join = job != nullptr && job->next.load(std::memory_order_relaxed) < job->chunks;
  if (join) job->active.fetch_add(1, std::memory_order_acq_rel);
  hand_.pins.fetch_sub(1, std::memory_order_release);
  if (!join) return false;
  WorkAndLeave(*job);
  return true;
}

bool ThreadPool::PostedHasWork() noexcept {
  hand_.pins.fetch_add(1, std::memory_order_seq_cst);
  const Job* job = hand_.posted.load(std::memory_order_seq_cst);
  const bool work = job != nullptr && job->next.load(std::memory_order_relaxed) < job->chunks;
  hand_.pins.fetch_sub(1, std::memory_order_release);
  return work;
}

bool ThreadPool::SpinUntilNewWork(uint64_t seen) const noexcept {
  if (!spin_) return false;
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (unsigned i = 1;; ++i) {
    if (hand_.generation.load(std::memory_order_acquire) != seen) return true;
    if (!SpinStep(i, deadline)) return false;
  }
}

void ThreadPool::WorkerLoop() noexcept {
  std::unique_lock<std::mutex> lock(mu_);
  auto has_work = [&] {
    for (Job* j : jobs_) {
      if (j->next.load(std::memory_order_relaxed) < j->chunks) return true;
    }
    return PostedHasWork();
  };
  for (;;) {
    if (stop_) return;
    Job* job = nullptr;
    for (Job* j : jobs_) {
      if (j->next.load(std::memory_order_relaxed) < j->chunks) {
        job = j;
        break;
      }
    }
    if (job == nullptr) {
      // The generation before looking at the posted job: a job posted after the look bumps it.
      const uint64_t seen = hand_.generation.load(std::memory_order_acquire);
      lock.unlock();
      bool news = TryJoinPosted();
      if (!news) news = SpinUntilNewWork(seen);
      // Most new work is a posted job: joined here without mu_.
      while (news && TryJoinPosted()) {
      }
      lock.lock();
      if (news || stop_ || has_work()) continue;
      sleeping_.fetch_add(1);
      wake_.wait(lock, [&] { return stop_ || has_work(); });
      sleeping_.fetch_sub(1);
      continue;
    }
    // Under mu_ with the job queued: its owner removes it under mu_ before it waits for active.
    job->active.fetch_add(1, std::memory_order_acq_rel);
    lock.unlock();
    WorkAndLeave(*job);
    lock.lock();
  }
}

}  // namespace kiln
