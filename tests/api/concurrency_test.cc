// Many threads through the API at once (DESIGN.md §3 rule 11): handles made, checked, used and
// released concurrently must each behave as they would alone. In the sanitizer preset, a race
// on the handle registry shows up as a use-after-free or a corrupted container.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

TEST(Concurrency, ThreadsCreateUseAndReleaseHandlesIndependently) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  std::atomic<int> failures{0};
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const int64_t shape[] = {t + 1, r % 7 + 1};
        KilnValue* v = nullptr;
        KilnValue* s = nullptr;
        KilnTensorTypeAndShapeInfo* info = nullptr;
        bool ok =
            api().CreateTensorAsValue(allocator, shape, 2, KILN_ELEMENT_TYPE_INT32, &v) ==
                nullptr &&
            api().CreateTensorAsValue(allocator, shape, 1, KILN_ELEMENT_TYPE_STRING, &s) == nullptr;
        void* data = nullptr;
        ok = ok && api().GetTensorMutableData(v, &data) == nullptr;
        if (ok) static_cast<int32_t*>(data)[0] = t * 1000 + r;
        const std::string text = "thread " + std::to_string(t) + " round " + std::to_string(r);
        ok = ok && api().FillStringTensorElement(s, text.c_str(), 0) == nullptr;
        ok = ok && api().GetTensorTypeAndShape(v, &info) == nullptr;
        size_t count = 0;
        ok = ok && api().GetTensorShapeElementCount(info, &count) == nullptr &&
             count == static_cast<size_t>(t + 1) * static_cast<size_t>(r % 7 + 1);
        char back[64] = {};
        size_t len = 0;
        ok = ok && api().GetStringTensorElementLength(s, 0, &len) == nullptr &&
             api().GetStringTensorElement(s, sizeof back, 0, back) == nullptr &&
             std::string(back, len) == text;
        ok = ok && static_cast<int32_t*>(data)[0] == t * 1000 + r;
        // A handle released by this thread is reported, not followed, while others work.
        api().ReleaseTensorTypeAndShapeInfo(info);
        size_t rank = 0;
        KilnStatus* stale = api().GetDimensionsCount(info, &rank);
        ok = ok && api().GetErrorCode(stale) == KILN_INVALID_ARGUMENT && rank == 0;
        api().ReleaseStatus(stale);
        api().ReleaseValue(s);
        api().ReleaseValue(v);
        if (!ok) ++failures;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Run may be called from many threads at once on one session; each call gets the results it would
// get alone. Every thread feeds its own batch size and values, into new values and into its own
// caller's tensor, and checks what comes back.
TEST(Concurrency, ThreadsRunOneSessionAtOnce) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 100;
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "concurrency", &env));
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().SetIntraOpNumThreads(options, 2));
  const std::string model = models::Identity();
  KilnSession* session = nullptr;
  ExpectOk(api().CreateSessionFromArray(env, model.data(), model.size(), options, &session));
  ASSERT_NE(session, nullptr);
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  std::atomic<int> failures{0};
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      KilnRunOptions* run_options = nullptr;
      bool ok = api().CreateRunOptions(&run_options) == nullptr;
      for (int r = 0; ok && r < kRounds; ++r) {
        const int64_t batch = t + 1 + r % 3;
        const int64_t shape[] = {batch, 2};
        KilnValue* x = nullptr;
        KilnValue* mine = nullptr;
        ok = api().CreateTensorAsValue(allocator, shape, 2, KILN_ELEMENT_TYPE_FLOAT, &x) ==
                 nullptr &&
             api().CreateTensorAsValue(allocator, shape, 2, KILN_ELEMENT_TYPE_FLOAT, &mine) ==
                 nullptr;
        void* data = nullptr;
        ok = ok && api().GetTensorMutableData(x, &data) == nullptr;
        const size_t n = static_cast<size_t>(batch) * 2;
        for (size_t i = 0; ok && i < n; ++i) {
          static_cast<float*>(data)[i] = static_cast<float>(t * 100000 + r * 100 + i);
        }
        const char* in[] = {"x"};
        const KilnValue* inputs[] = {x};
        const char* out[] = {"y"};
        KilnValue* fresh = nullptr;
        ok = ok && api().Run(session, run_options, in, inputs, 1, out, 1, &fresh) == nullptr;
        KilnValue* given[] = {mine};
        ok = ok && api().Run(session, nullptr, in, inputs, 1, out, 1, given) == nullptr &&
             given[0] == mine;
        void* fresh_data = nullptr;
        void* mine_data = nullptr;
        ok = ok && api().GetTensorMutableData(fresh, &fresh_data) == nullptr &&
             api().GetTensorMutableData(mine, &mine_data) == nullptr;
        size_t bytes = 0;
        ok = ok && api().GetTensorSizeInBytes(fresh, &bytes) == nullptr &&
             bytes == n * sizeof(float);
        for (size_t i = 0; ok && i < n; ++i) {
          const float want = static_cast<float>(t * 100000 + r * 100 + i);
          ok = static_cast<float*>(fresh_data)[i] == want &&
               static_cast<float*>(mine_data)[i] == want;
        }
        api().ReleaseValue(fresh);
        api().ReleaseValue(mine);
        api().ReleaseValue(x);
        if (ok) ++runs;
      }
      api().ReleaseRunOptions(run_options);
      if (!ok) ++failures;
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(runs.load(), kThreads * kRounds);
  api().ReleaseSession(session);
  api().ReleaseSessionOptions(options);
  api().ReleaseEnv(env);
}

}  // namespace
}  // namespace kiln_test
