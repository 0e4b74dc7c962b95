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

// Each test runs both hand-overs: spinning workers take a posted job without the lock, blocking
// ones take queued jobs under it (and spinning ones too while another job is posted).
constexpr bool kSpin[] = {false, true};

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    for (const bool spin : kSpin) {
      ThreadPool pool(threads, nullptr, spin);
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> hits(1000);
        pool.ParallelFor(hits.size(), 7, [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        });
        for (auto& h : hits) EXPECT_EQ(h.load(), 1) << threads << " threads, spin " << spin;
      }
    }
  }
}

// ParallelForShares: one contiguous share per thread (n of them when n is smaller), sizes
// differing by at most one, together covering [0, n) once; nothing for n = 0.
TEST(ThreadPool, SharesAreContiguousAndCoverEveryIndexOnce) {
  for (int threads : {1, 2, 3}) {
    for (const bool spin : kSpin) {
      ThreadPool pool(threads, nullptr, spin);
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
}

TEST(ThreadPool, RethrowsTheFirstException) {
  for (const bool spin : kSpin) {
    ThreadPool pool(3, nullptr, spin);
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
}

TEST(ThreadPool, ManyCallersAndNestedCalls) {
  for (const bool spin : kSpin) {
    ThreadPool pool(3, nullptr, spin);
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
}

// Many short jobs in a row, as a model's layers make them: each one's shares all run, and a job
// handed over and then left by a worker that found nothing to do is never touched after its
// caller returns (ASan and TSan builds check that part).
TEST(ThreadPool, ManyShortJobsInARow) {
  for (const bool spin : kSpin) {
    ThreadPool pool(2, nullptr, spin);
    for (int job = 0; job < 5000; ++job) {
      std::atomic<size_t> covered{0};
      std::atomic<int> calls{0};
      pool.ParallelForShares(2, [&](size_t b, size_t e) {
        // A few microseconds of work, so that the worker usually joins before the caller has
        // taken both shares (4,635 of 5,000 jobs when measured on a 2-core machine).
        volatile double busy = 0;
        for (int k = 0; k < 2000; ++k) busy = busy + 1.0;
        covered += e - b;
        ++calls;
      });
      ASSERT_EQ(covered.load(), 2u) << job;
      ASSERT_EQ(calls.load(), 2) << job;
    }
  }
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
