// Helpers of the IO binding and RunAsync tests: owning pointers to handles, tensors from vectors,
// and a latch that a RunAsync callback opens.
#ifndef KILN_TESTS_API_BINDING_TEST_UTIL_H_
#define KILN_TESTS_API_BINDING_TEST_UTIL_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api_test_util.h"

namespace kiln_test {

struct KilnReleaser {
  void operator()(KilnEnv* p) const { api().ReleaseEnv(p); }
  void operator()(KilnSessionOptions* p) const { api().ReleaseSessionOptions(p); }
  void operator()(KilnSession* p) const { api().ReleaseSession(p); }
  void operator()(KilnRunOptions* p) const { api().ReleaseRunOptions(p); }
  void operator()(KilnValue* p) const { api().ReleaseValue(p); }
  void operator()(KilnIoBinding* p) const { api().ReleaseIoBinding(p); }
  void operator()(KilnStatus* p) const { api().ReleaseStatus(p); }
  void operator()(KilnMemoryInfo* p) const { api().ReleaseMemoryInfo(p); }
};
template <class T>
using Owned = std::unique_ptr<T, KilnReleaser>;

inline KilnAllocator* DefaultAllocator() {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  return allocator;
}

inline Owned<KilnEnv> NewEnv(const char* id) {
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, id, &env));
  return Owned<KilnEnv>(env);
}

inline Owned<KilnSession> Load(const KilnEnv* env, const std::string& model,
                               const KilnSessionOptions* options = nullptr) {
  KilnSession* session = nullptr;
  ExpectOk(api().CreateSessionFromArray(env, model.data(), model.size(), options, &session));
  return Owned<KilnSession>(session);
}

inline Owned<KilnRunOptions> NewRunOptions() {
  KilnRunOptions* options = nullptr;
  ExpectOk(api().CreateRunOptions(&options));
  return Owned<KilnRunOptions>(options);
}

inline Owned<KilnIoBinding> NewBinding(KilnSession* session) {
  KilnIoBinding* binding = nullptr;
  ExpectOk(api().CreateIoBinding(session, &binding));
  return Owned<KilnIoBinding>(binding);
}

template <class T = float>
T* MutableData(KilnValue* v) {
  void* p = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &p));
  return static_cast<T*>(p);
}

// A tensor of `type` and `shape` from Kiln's allocator, holding `values` (zeros when empty).
template <class T = float>
Owned<KilnValue> Tensor(std::vector<int64_t> shape, std::vector<T> values = {},
                        KilnElementType type = KILN_ELEMENT_TYPE_FLOAT) {
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(DefaultAllocator(), shape.data(), shape.size(), type, &v));
  if (v != nullptr && !values.empty()) {
    T* data = MutableData<T>(v);
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  }
  return Owned<KilnValue>(v);
}

template <class T = float>
std::vector<T> Values(KilnValue* v) {
  size_t bytes = 0;
  ExpectOk(api().GetTensorSizeInBytes(v, &bytes));
  const T* data = MutableData<T>(v);
  return std::vector<T>(data, data + bytes / sizeof(T));
}

// The code and message of a status, which is released; {KILN_OK, ""} for NULL.
struct Outcome {
  KilnErrorCode code = KILN_OK;
  std::string message;
};
inline Outcome Take(KilnStatus* status) {
  if (status == nullptr) return {};
  Outcome o{api().GetErrorCode(status), api().GetErrorMessage(status)};
  api().ReleaseStatus(status);
  return o;
}

// What a RunAsync callback got, and a wait for it. The callback notifies while holding the lock,
// so a waiter that wakes may destroy the object at once.
struct AsyncResult {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  int calls = 0;
  KilnValue** outputs = nullptr;
  size_t output_count = 0;
  Outcome outcome;

  static void KILN_API_CALL Callback(void* user_data, KilnValue** outputs, size_t output_count,
                                     KilnStatus* status) {
    auto* r = static_cast<AsyncResult*>(user_data);
    Outcome outcome = Take(status);
    std::lock_guard<std::mutex> lock(r->mutex);
    ++r->calls;
    r->outputs = outputs;
    r->output_count = output_count;
    r->outcome = std::move(outcome);
    r->done = true;
    r->cv.notify_all();
  }

  // Waits (at most a minute) for the callback; false if it never came.
  bool Wait() {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::minutes(1), [this] { return done; });
  }
};

}  // namespace kiln_test

#endif  // KILN_TESTS_API_BINDING_TEST_UTIL_H_
