#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>

namespace kiln {

struct ThreadPool::Job {
  void (*fn)(void*, size_t, size_t);
  void* ctx;
  size_t n;
  size_t chunk;
  size_t chunks;
  std::atomic<size_t> next{0};
  std::atomic<size_t> finished{0};
  std::atomic<bool> failed{false};
  int active = 0;  // workers inside Work(*this); changed under done_mu, raised only while queued
  std::exception_ptr error;  // written once, by the thread that set `failed`
  std::mutex done_mu;
  std::condition_variable done;
};

ThreadPool::ThreadPool(int threads, void (*worker_start)() noexcept) {
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
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

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

void ThreadPool::Run(size_t n, size_t grain, void (*fn)(void*, size_t, size_t), void* ctx) {
  Job job;
  job.fn = fn;
  job.ctx = ctx;
  job.n = n;
  // About four chunks per thread balances a slow thread without much counter traffic.
  const size_t target = static_cast<size_t>(size()) * 4;
  job.chunk = std::max(grain, (n + target - 1) / target);
  job.chunks = (n + job.chunk - 1) / job.chunk;
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(&job);
  }
  wake_.notify_all();
  Work(job);
  {
    std::unique_lock<std::mutex> lock(job.done_mu);
    job.done.wait(lock, [&] { return job.finished.load() == job.chunks; });
  }
  {
    // Workers only pick jobs up under mu_, so after this no new one can join `job`.
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(jobs_.begin(), jobs_.end(), &job);
    if (it != jobs_.end()) jobs_.erase(it);
  }
  {
    // A worker that joined may still be about to find no chunk left; wait until it has left.
    std::unique_lock<std::mutex> lock(job.done_mu);
    job.done.wait(lock, [&] { return job.active == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

void ThreadPool::WorkerLoop() noexcept {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] {
      if (stop_) return true;
      for (Job* j : jobs_) {
        if (j->next.load(std::memory_order_relaxed) < j->chunks) return true;
      }
      return false;
    });
    if (stop_) return;
    Job* job = nullptr;
    for (Job* j : jobs_) {
      if (j->next.load(std::memory_order_relaxed) < j->chunks) {
        job = j;
        break;
      }
    }
    if (job == nullptr) continue;
    {
      std::lock_guard<std::mutex> active_lock(job->done_mu);
      ++job->active;  // the owner waits for this to drop back before the job goes away
    }
    lock.unlock();
    Work(*job);
    {
      std::lock_guard<std::mutex> active_lock(job->done_mu);
      --job->active;
      job->done.notify_all();
    }
    lock.lock();
  }
}

}  // namespace kiln
