#include "core/thread_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

namespace kiln {
namespace {

std::atomic<int> live{0};

struct Counted {
  Counted() { live.fetch_add(1); }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;
  ~Counted() { live.fetch_sub(1); }
  int value = 0;
};

TEST(ThreadCache, OneObjectPerThreadKeptBetweenCalls) {
  ThreadCache<Counted> cache;
  Counted& mine = cache.Get();
  mine.value = 7;
  EXPECT_EQ(&cache.Get(), &mine);
  EXPECT_EQ(cache.Get().value, 7);
  Counted* other = nullptr;
  std::thread([&] {
    other = &cache.Get();
    EXPECT_EQ(other->value, 0);
    EXPECT_EQ(&cache.Get(), other);
  }).join();
  EXPECT_NE(other, &mine);
}

TEST(ThreadCache, AThreadsObjectIsFreedWhenTheThreadExits) {
  const int before = live.load();
  ThreadCache<Counted> cache;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) threads.emplace_back([&] { cache.Get().value = 1; });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(live.load(), before);
  cache.Get();
  EXPECT_EQ(live.load(), before + 1);
}

TEST(ThreadCache, DestroyingTheCacheFreesWhatLiveThreadsHold) {
  const int before = live.load();
  std::atomic<bool> got{false};
  std::atomic<bool> done{false};
  std::optional<ThreadCache<Counted>> cache(std::in_place);
  cache->Get();
  std::thread holder([&] {
    cache->Get();
    got.store(true);
    while (!done.load()) std::this_thread::yield();
  });
  while (!got.load()) std::this_thread::yield();
  EXPECT_EQ(live.load(), before + 2);
  // The cache goes first (as at dlclose) while the holder still runs: both objects are freed now,
  // and the holder's exit calls no destructor later (the key is deleted).
  cache.reset();
  EXPECT_EQ(live.load(), before);
  done.store(true);
  holder.join();
  EXPECT_EQ(live.load(), before);
}

}  // namespace
}  // namespace kiln
