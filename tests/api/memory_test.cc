// Memory infos and allocators: CreateCpuMemoryInfo … AllocatorGetInfo.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "api_test_util.h"
#include "counting_allocator.h"

namespace kiln_test {
namespace {

TEST(MemoryInfo, CpuInfoGetters) {
  for (KilnAllocatorType at : {KILN_DEVICE_ALLOCATOR, KILN_ARENA_ALLOCATOR}) {
    for (KilnMemType mt :
         {KILN_MEM_TYPE_CPU_INPUT, KILN_MEM_TYPE_CPU_OUTPUT, KILN_MEM_TYPE_DEFAULT}) {
      KilnMemoryInfo* info = nullptr;
      ExpectOk(api().CreateCpuMemoryInfo(at, mt, &info));
      const char* name = nullptr;
      int id = -1;
      KilnMemType got_mt = KILN_MEM_TYPE_DEFAULT;
      KilnAllocatorType got_at = KILN_INVALID_ALLOCATOR;
      ExpectOk(api().MemoryInfoGetName(info, &name));
      ExpectOk(api().MemoryInfoGetId(info, &id));
      ExpectOk(api().MemoryInfoGetMemType(info, &got_mt));
      ExpectOk(api().MemoryInfoGetType(info, &got_at));
      EXPECT_STREQ(name, "Cpu");
      EXPECT_EQ(id, 0);
      EXPECT_EQ(got_mt, mt);
      EXPECT_EQ(got_at, at);
      api().ReleaseMemoryInfo(info);
    }
  }
}

TEST(MemoryInfo, EqualsComparesMemoryNotAllocatorType) {
  KilnMemoryInfo *a = nullptr, *b = nullptr, *c = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &a));
  ExpectOk(api().CreateCpuMemoryInfo(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &b));
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_CPU_OUTPUT, &c));
  int eq = -1;
  ExpectOk(api().MemoryInfoEquals(a, b, &eq));
  EXPECT_EQ(eq, 1);
  ExpectOk(api().MemoryInfoEquals(a, c, &eq));
  EXPECT_EQ(eq, 0);
  api().ReleaseMemoryInfo(a);
  api().ReleaseMemoryInfo(b);
  api().ReleaseMemoryInfo(c);
}

TEST(MemoryInfo, BadArgumentsLeaveOutUntouched) {
  KilnMemoryInfo* info = Sentinel<KilnMemoryInfo>();
  ExpectError(api().CreateCpuMemoryInfo(KILN_INVALID_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info),
              KILN_INVALID_ARGUMENT, "CreateCpuMemoryInfo", "allocator_type");
  ExpectError(
      api().CreateCpuMemoryInfo(static_cast<KilnAllocatorType>(2), KILN_MEM_TYPE_DEFAULT, &info),
      KILN_INVALID_ARGUMENT, "CreateCpuMemoryInfo", "allocator_type");
  ExpectError(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, static_cast<KilnMemType>(1), &info),
              KILN_INVALID_ARGUMENT, "CreateCpuMemoryInfo", "mem_type");
  ExpectError(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, static_cast<KilnMemType>(-3), &info),
              KILN_INVALID_ARGUMENT, "CreateCpuMemoryInfo", "mem_type");
  EXPECT_EQ(info, Sentinel<KilnMemoryInfo>());
}

TEST(Allocator, DefaultAllocatorIsAlignedAndUsable) {
  KilnAllocator* a = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&a));
  ASSERT_NE(a, nullptr);
  KilnAllocator* again = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&again));
  EXPECT_EQ(a, again);
  for (size_t size : {size_t{0}, size_t{1}, size_t{100}, size_t{1} << 20}) {
    void* p = nullptr;
    ExpectOk(api().AllocatorAlloc(a, size, &p));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size;
    std::memset(p, 0xAB, size);
    ExpectOk(api().AllocatorFree(a, p));
  }
  ExpectOk(api().AllocatorFree(a, nullptr));
  const KilnMemoryInfo* info = nullptr;
  ExpectOk(api().AllocatorGetInfo(a, &info));
  const char* name = nullptr;
  ExpectOk(api().MemoryInfoGetName(info, &name));
  EXPECT_STREQ(name, "Cpu");
  testing::internal::CaptureStderr();
  api().ReleaseMemoryInfo(const_cast<KilnMemoryInfo*>(info));  // borrowed: ignored
  EXPECT_NE(testing::internal::GetCapturedStderr().find("borrowed"), std::string::npos);
  ExpectOk(api().MemoryInfoGetName(info, &name));
}

TEST(Allocator, ImpossibleSizeIsOutOfMemory) {
  KilnAllocator* a = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&a));
  const size_t max = std::numeric_limits<size_t>::max();
  // The last few sizes are where rounding up to the alignment would wrap around.
  for (size_t size : {max - 4096, max - 63, max - 10, max}) {
    void* p = Sentinel<void>();
    KilnStatus* s = api().AllocatorAlloc(a, size, &p);
    ASSERT_NE(s, nullptr) << size;
    EXPECT_EQ(api().GetErrorCode(s), KILN_OUT_OF_MEMORY);
    EXPECT_EQ(std::string(api().GetErrorMessage(s)).rfind("AllocatorAlloc: ", 0), 0u);
    api().ReleaseStatus(s);
    EXPECT_EQ(p, Sentinel<void>());
  }
}

TEST(Allocator, UserAllocatorIsCalled) {
  CountingAllocator counting;
  void* p = nullptr;
  ExpectOk(api().AllocatorAlloc(counting.get(), 128, &p));
  EXPECT_EQ(counting.live(), 1);
  ExpectOk(api().AllocatorFree(counting.get(), p));
  EXPECT_EQ(counting.live(), 0);
  const KilnMemoryInfo* info = nullptr;
  ExpectOk(api().AllocatorGetInfo(counting.get(), &info));  // Info callback is NULL: CPU
  KilnMemType mt = KILN_MEM_TYPE_CPU_INPUT;
  ExpectOk(api().MemoryInfoGetMemType(info, &mt));
  EXPECT_EQ(mt, KILN_MEM_TYPE_DEFAULT);
}

const KilnMemoryInfo* g_user_info = nullptr;
const KilnMemoryInfo* KILN_API_CALL UserInfo(const KilnAllocator*) {
  return g_user_info;
}

TEST(Allocator, UserAllocatorInfoCallback) {
  CountingAllocator counting;
  counting.get()->Info = &UserInfo;
  KilnMemoryInfo* mine = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &mine));
  g_user_info = mine;
  const KilnMemoryInfo* info = nullptr;
  ExpectOk(api().AllocatorGetInfo(counting.get(), &info));
  EXPECT_EQ(info, mine);
  api().ReleaseMemoryInfo(mine);  // now stale: the allocator breaks its contract
  info = Sentinel<const KilnMemoryInfo>();
  ExpectError(api().AllocatorGetInfo(counting.get(), &info), KILN_INVALID_ARGUMENT,
              "AllocatorGetInfo", "allocator");
  g_user_info = nullptr;
  ExpectError(api().AllocatorGetInfo(counting.get(), &info), KILN_INVALID_ARGUMENT,
              "AllocatorGetInfo", "allocator");
  EXPECT_EQ(info, Sentinel<const KilnMemoryInfo>());
}

TEST(Allocator, MalformedAllocatorsAreRejected) {
  void* p = Sentinel<void>();
  CountingAllocator counting;
  counting.get()->version = 0;
  ExpectError(api().AllocatorAlloc(counting.get(), 8, &p), KILN_INVALID_ARGUMENT, "AllocatorAlloc",
              "allocator");
  counting.get()->version = KILN_API_VERSION;
  counting.get()->Alloc = nullptr;
  ExpectError(api().AllocatorAlloc(counting.get(), 8, &p), KILN_INVALID_ARGUMENT, "AllocatorAlloc",
              "allocator");
  ExpectError(api().AllocatorFree(counting.get(), p), KILN_INVALID_ARGUMENT, "AllocatorFree",
              "allocator");
  ExpectError(api().AllocatorAlloc(nullptr, 8, &p), KILN_INVALID_ARGUMENT, "AllocatorAlloc",
              "allocator");
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_WARNING, "x", &env));
  KilnStatus* s = api().AllocatorAlloc(reinterpret_cast<KilnAllocator*>(env), 8, &p);
  EXPECT_NE(std::string(api().GetErrorMessage(s)).find("is a KilnEnv, not a KilnAllocator"),
            std::string::npos);
  ExpectError(s, KILN_INVALID_ARGUMENT, "AllocatorAlloc", "allocator");
  api().ReleaseEnv(env);
  EXPECT_EQ(p, Sentinel<void>());
  EXPECT_EQ(counting.live(), 0);
}

void* KILN_API_CALL ThrowingAlloc(KilnAllocator*, size_t) {
  throw std::runtime_error("allocator exploded");
}

TEST(Allocator, ExceptionFromAUserCallbackBecomesAStatus) {
  CountingAllocator counting;
  counting.get()->Alloc = &ThrowingAlloc;
  void* p = Sentinel<void>();
  KilnStatus* s = api().AllocatorAlloc(counting.get(), 8, &p);
  EXPECT_EQ(api().GetErrorCode(s), KILN_RUNTIME_EXCEPTION);
  EXPECT_STREQ(api().GetErrorMessage(s), "AllocatorAlloc: allocator exploded");
  api().ReleaseStatus(s);
  EXPECT_EQ(p, Sentinel<void>());
}

void KILN_API_CALL ThrowingFree(KilnAllocator*, void* p) {
  std::free(p);
  throw std::runtime_error("free exploded");
}

TEST(Allocator, ThrowingFreeCallbackIsLoggedNotFatal) {
  KilnAllocator throwing{KILN_API_VERSION,
                         [](KilnAllocator*, size_t size) -> void* {
                           return std::aligned_alloc(64, (size + 63) / 64 * 64);
                         },
                         &ThrowingFree, nullptr};
  const int64_t shape[] = {8};
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(&throwing, shape, 1, KILN_ELEMENT_TYPE_FLOAT, &v));
  testing::internal::CaptureStderr();
  api().ReleaseValue(v);  // the process goes on
  EXPECT_NE(testing::internal::GetCapturedStderr().find("Free callback threw"), std::string::npos);
}

TEST(Allocator, UserAllocatorOutOfMemory) {
  CountingAllocator counting;
  counting.FailFrom(1);
  void* p = Sentinel<void>();
  KilnStatus* s = api().AllocatorAlloc(counting.get(), 8, &p);
  EXPECT_EQ(api().GetErrorCode(s), KILN_OUT_OF_MEMORY);
  api().ReleaseStatus(s);
  EXPECT_EQ(p, Sentinel<void>());
}

}  // namespace
}  // namespace kiln_test
