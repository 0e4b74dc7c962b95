#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
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

// ParallelForShares: one contiguous share per thread (n of them when n is smaller), sizes
// differing by at most one, together covering [0, n) once; nothing for n = 0.
TEST(ThreadPool, SharesAreContiguousAndCoverEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (size_t n : {0, 1, 2, 5, 7, 100}) {
      std::mutex mu;
      std::vector<std::pair<size_t, size_t>> shares;
      pool.ParallelForShares(n, [&](size_t begin, size_t end) {
        std::lock_guard<std::mutex> lock(mu);
        shares.emplace_back(begin, end);
      });
      std::sort(shares.begin(), shares.end());
      ASSERT_EQ(shares.size(), std::min(n, static_cast<size_t>(threads))) << n;
      size_t next = 0;
      for (const auto& [begin, end] : shares) {
        EXPECT_EQ(begin, next);
        EXPECT_LE(end - begin, (n + shares.size() - 1) / shares.size());
        EXPECT_GE(end - begin, n / shares.size());
        next = end;
      }
      EXPECT_EQ(next, n);
    }
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
