#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kiln {
namespace {

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(hits.size(), 7, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPool, RethrowsTheFirstException) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.ParallelFor(100, 1,
                                [](size_t b, size_t) {
                                  if (b >= 50) throw std::runtime_error("boom");
                                }),
               std::runtime_error);
  // The pool still works afterwards.
  std::atomic<size_t> sum{0};
  pool.ParallelFor(100, 1, [&](size_t b, size_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100u);
}

TEST(ThreadPool, ManyCallersAndNestedCalls) {
  ThreadPool pool(3);
  std::atomic<size_t> total{0};
  std::vector<std::thread> callers;
  callers.reserve(4);
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        pool.ParallelFor(8, 1, [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) {
            pool.ParallelFor(10, 1, [&](size_t b2, size_t e2) { total += e2 - b2; });
          }
        });
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4u * 50u * 8u * 10u);
}

std::atomic<int> g_started{0};  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
void CountStart() noexcept {
  ++g_started;
}

TEST(ThreadPool, EveryWorkerRunsItsStartHookBeforeTheConstructorReturns) {
  g_started = 0;
  {
    ThreadPool pool(4, &CountStart);  // the caller and three workers
    EXPECT_EQ(g_started.load(), 3);
  }
  EXPECT_EQ(g_started.load(), 3);
}

}  // namespace
}  // namespace kiln
