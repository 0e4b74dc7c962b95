// Many threads through the API at once (DESIGN.md §3 rule 11): handles made, checked, used and
// released concurrently must each behave as they would alone. In the sanitizer preset, a race
// on the handle registry shows up as a use-after-free or a corrupted container.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.h"

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

}  // namespace
}  // namespace kiln_test
