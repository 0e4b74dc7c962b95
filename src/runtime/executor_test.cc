// The executor's memory helpers: the scratch arena kernels draw from, the caching allocator.
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace kiln::runtime {
namespace {

bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

TEST(ScratchArena, GrowsToTheLargestStepAndThenServesItFromOneBlock) {
  ScratchArena arena;
  // First step: nothing reserved yet, so both requests go to the heap.
  char* a = static_cast<char*>(arena.Get(100));
  char* b = static_cast<char*>(arena.Get(1000));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(Aligned(a) && Aligned(b));
  a[99] = 1;
  b[999] = 1;
  arena.EndStep();
  // The same step again: both fit in the block, one after the other, 64-byte aligned.
  char* c = static_cast<char*>(arena.Get(100));
  char* d = static_cast<char*>(arena.Get(1000));
  EXPECT_EQ(d, c + 128);
  EXPECT_TRUE(Aligned(c) && Aligned(d));
  d[999] = 1;
  arena.EndStep();
  // A smaller step reuses the block from its start.
  EXPECT_EQ(arena.Get(10), c);
  arena.EndStep();
}

TEST(ScratchArena, RequestsFromSeveralThreadsGetDisjointMemory) {
  ScratchArena arena;
  constexpr int kThreads = 4;
  for (int round = 0; round < 2; ++round) {  // the second round is served from the block
    std::vector<char*> got(kThreads);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] { got[t] = static_cast<char*>(arena.Get(256)); });
    }
    for (auto& th : threads) th.join();
    for (int i = 0; i < kThreads; ++i) {
      for (int j = i + 1; j < kThreads; ++j) {
        EXPECT_TRUE(got[i] + 256 <= got[j] || got[j] + 256 <= got[i]) << i << " and " << j;
      }
    }
    arena.EndStep();
  }
}

TEST(CachingAllocator, KeepsFreedBlocksForReuseUntilTrimmed) {
  CachingAllocator a;
  void* p = a.Alloc(1 << 20);
  void* q = a.Alloc(1000);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(a.KeptBytes(), 0u);
  a.Free(p);
  EXPECT_EQ(a.KeptBytes(), size_t{1} << 20);
  EXPECT_EQ(a.Alloc(size_t{900} * 1024), p) << "best fit within twice the request";
  a.Free(p);
  a.Trim();
  EXPECT_EQ(a.KeptBytes(), 0u);
  a.Free(q);  // in use during Trim: still the allocator's, kept when freed
  EXPECT_EQ(a.KeptBytes(), 1000u);
}

}  // namespace
}  // namespace kiln::runtime
