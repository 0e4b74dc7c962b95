// Entry: RunAsync (slot 100). Arguments are checked on the caller's thread; the run is queued for a
// pool of worker threads, made on first use and not destroyed by a static destructor (DESIGN.md
// §3 rule 10) but when the library is unloaded (core/unload.h), which grows with the number of
// runs waiting, up to a limit. Workers are kept rather than started per
// run so that what a run leaves in thread-local storage (kernels' packing buffers) is reused.
#include <pthread.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/entries.h"
#include "api/handles.h"
#include "api/run_arguments.h"
#include "api/status.h"
#include "core/unload.h"

namespace kiln::api {
namespace {

// One started run: everything it needs, shared with the caller's objects, so the caller's
// handles may be released while it waits or runs.
struct AsyncRun {
  AsyncRun* next = nullptr;  // the pool's queue: a list through the runs, so queuing allocates
                             // nothing
  std::shared_ptr<const runtime::Session> session;
  Logger logger;
  std::shared_ptr<const runtime::RunOptions> options;
  RunArguments args;
  KilnValue** outputs = nullptr;
  KilnRunAsyncCallback callback = nullptr;
  void* user_data = nullptr;

  explicit AsyncRun(const KilnSession& s) : session(s.session), logger(s.logger) {}
};

// Runs `run`, then calls its callback with the outcome. Everything the run held (the session,
// options and values) is let go before the callback, which owns the status and the new outputs.
void Execute(std::unique_ptr<AsyncRun> run) noexcept {
  KilnStatus* status = Guard("RunAsync", [&] {
    RunAndFill(*run->session, run->logger, *run->options, run->args, run->outputs);
  });
  const KilnRunAsyncCallback callback = run->callback;
  void* const user_data = run->user_data;
  KilnValue** const outputs = run->outputs;
  const size_t output_count = run->args.output_names.size();
  run.reset();
  callback(user_data, outputs, output_count, status);
}

class AsyncPool {
 public:
  // The process's pool, made on first use (throws std::bad_alloc). It is destroyed when the
  // library is unloaded (dlclose, or at exit after the host's static destructors): the runs still
  // queued are run, then the workers end and are joined, so that no thread is left in unmapped
  // code.
  static AsyncPool& Get() {
    static AsyncPool* const pool = KeepUntilUnload(new AsyncPool());
    return *pool;
  }

  AsyncPool(const AsyncPool&) = delete;
  AsyncPool& operator=(const AsyncPool&) = delete;
  ~AsyncPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (size_t i = 0; i < workers_; ++i) pthread_join(threads_[i], nullptr);
  }

  // Queues `run`, starting a worker when every idle one already has a run to take. Throws, taking
  // nothing, only when there is no worker and none can be started.
  void Submit(std::unique_ptr<AsyncRun> run) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_ <= queued_ && workers_ < max_workers_) {
      // pthread_create rather than std::thread: a failure is a code, not an exception, and the
      // worker holds no block of the C++ heap for its whole life (threads_ is sized up front).
      const int error = pthread_create(&threads_[workers_], nullptr, &AsyncPool::WorkerMain, this);
      if (error == 0) {
        ++workers_;
      } else if (workers_ == 0) {
        char text[128] = "unknown error";
        const char* reason = strerror_r(error, text, sizeof text);
        throw Error(ErrorCode::kFail,
                    std::string("could not start a thread to run on (") + reason + ")");
      }
    }
    AsyncRun* r = run.release();
    if (tail_ == nullptr) {
      head_ = r;
    } else {
      tail_->next = r;
    }
    tail_ = r;
    ++queued_;
    ready_.notify_one();
  }

 private:
  AsyncPool() : threads_(std::make_unique<pthread_t[]>(max_workers_)) {}

  static size_t MaxWorkers() noexcept {
    return std::max<size_t>(8, 2 * size_t{std::thread::hardware_concurrency()});
  }

  static void* WorkerMain(void* pool) noexcept {
    static_cast<AsyncPool*>(pool)->Work();
    return nullptr;
  }

  void Work() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      ++idle_;
      ready_.wait(lock, [this] { return head_ != nullptr || stopping_; });
      --idle_;
      if (head_ == nullptr) return;  // stopping, and nothing left to run
      AsyncRun* run = head_;
      head_ = run->next;
      if (head_ == nullptr) tail_ = nullptr;
      --queued_;
      lock.unlock();
      Execute(std::unique_ptr<AsyncRun>(run));
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  AsyncRun* head_ = nullptr;  // the queue, oldest first
  AsyncRun* tail_ = nullptr;
  size_t queued_ = 0;
  size_t workers_ = 0;
  size_t idle_ = 0;  // workers waiting for a run
  bool stopping_ = false;
  const size_t max_workers_ = MaxWorkers();
  std::unique_ptr<pthread_t[]> threads_;  // max_workers_ of them; the first workers_ started
};

}  // namespace

KilnStatus* KILN_API_CALL RunAsync(KilnSession* session, const KilnRunOptions* run_options,
                                   const char* const* input_names, const KilnValue* const* inputs,
                                   size_t input_count, const char* const* output_names,
                                   size_t output_count, KilnValue** outputs,
                                   KilnRunAsyncCallback callback, void* user_data) {
  return Guard("RunAsync", [&] {
    const auto& s = Unwrap(session, "session");
    const KilnRunOptions* ro =
        run_options != nullptr ? &Unwrap(run_options, "run_options") : nullptr;
    auto run = std::make_unique<AsyncRun>(s);
    CheckRunArguments(input_names, inputs, input_count, output_names, output_count, outputs,
                      run->args);
    // The run outlives the call: no value lent to a custom op's Compute.
    for (size_t i = 0; i < input_count; ++i) RefuseLent(*inputs[i], "inputs");
    for (size_t i = 0; outputs != nullptr && i < output_count; ++i) {
      if (outputs[i] != nullptr) RefuseLent(*outputs[i], "outputs");
    }
    if (callback == nullptr) ThrowInvalidArgument("callback", "is NULL");
    // No options: the defaults, which are never destroyed and need no share.
    run->options = ro != nullptr
                       ? ro->options
                       : std::shared_ptr<const runtime::RunOptions>(
                             std::shared_ptr<const runtime::RunOptions>(), &DefaultRunOptions());
    run->outputs = outputs;
    run->callback = callback;
    run->user_data = user_data;
    AsyncPool::Get().Submit(std::move(run));
  });
}

}  // namespace kiln::api
