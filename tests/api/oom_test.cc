// Failure injection over every entry of the table: for N = 1, 2, … the Nth allocation made
// during the call fails (only that one, then in a second pass every one from it on), until the
// call succeeds. Each failing attempt must give a clean KILN_OUT_OF_MEMORY, leave the
// out-parameters untouched and leak nothing; no attempt may crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "alloc_hook.h"
#include "api_test_util.h"
#include "fixtures.h"
#include "slots.h"

namespace kiln_test {
namespace {

// A caller's KilnAllocator whose memory comes through the hooked operator new, so its
// allocations fail along with Kiln's.
void* KILN_API_CALL HookedAlloc(KilnAllocator*, size_t size) {
  return ::operator new (size, std::align_val_t{64}, std::nothrow);
}
void KILN_API_CALL HookedFree(KilnAllocator*, void* p) {
  ::operator delete (p, std::align_val_t{64});
}
KilnAllocator g_hooked{KILN_API_VERSION, &HookedAlloc, &HookedFree, nullptr};

void KILN_API_CALL NoLog(void*, KilnLoggingLevel, const char*, const char*, const char*,
                         const char*) {}

// A call under test. It returns the entry's status; anything it creates on success goes into
// `made` to be released afterwards. Fixture objects it consumes are set to NULL in `b`.
struct Made {
  std::vector<std::function<void()>> releases;
};
struct OomCase {
  const char* entry;
  std::function<KilnStatus*(Objects& b, Outs& o, Made& made)> call;
};

std::vector<OomCase> Cases() {
  return {
      {"CreateStatus",
       [](Objects&, Outs&, Made& m) -> KilnStatus* {
         KilnStatus* s = api().CreateStatus(KILN_FAIL, "a message to copy");
         if (api().GetErrorCode(s) == KILN_FAIL) {
           m.releases.push_back([s] { api().ReleaseStatus(s); });
           return nullptr;
         }
         return s;  // the shared out-of-memory status
       }},
      {"GetErrorCode",
       [](Objects&, Outs& o, Made&) {
         o.i = api().GetErrorCode(nullptr);
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"GetErrorMessage",
       [](Objects&, Outs& o, Made&) {
         o.text = api().GetErrorMessage(nullptr);
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"ReleaseStatus",
       [](Objects&, Outs&, Made&) {
         api().ReleaseStatus(nullptr);
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"CreateEnv",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s = api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "a log id", &o.env);
         if (s == nullptr) m.releases.push_back([e = o.env] { api().ReleaseEnv(e); });
         return s;
       }},
      {"CreateEnvWithCustomLogger",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s = api().CreateEnvWithCustomLogger(&NoLog, nullptr, KILN_LOGGING_LEVEL_FATAL,
                                                         "a log id", &o.env);
         if (s == nullptr) m.releases.push_back([e = o.env] { api().ReleaseEnv(e); });
         return s;
       }},
      {"ReleaseEnv",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseEnv(b.env);
         b.env = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"CreateCpuMemoryInfo",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s =
             api().CreateCpuMemoryInfo(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_CPU_OUTPUT, &o.info);
         if (s == nullptr) m.releases.push_back([i = o.info] { api().ReleaseMemoryInfo(i); });
         return s;
       }},
      {"MemoryInfoGetName",
       [](Objects& b, Outs& o, Made&) { return api().MemoryInfoGetName(b.info, &o.text); }},
      {"MemoryInfoGetId",
       [](Objects& b, Outs& o, Made&) { return api().MemoryInfoGetId(b.info, &o.i); }},
      {"MemoryInfoGetMemType",
       [](Objects& b, Outs& o, Made&) { return api().MemoryInfoGetMemType(b.info, &o.mem_type); }},
      {"MemoryInfoGetType",
       [](Objects& b, Outs& o, Made&) {
         return api().MemoryInfoGetType(b.info, &o.allocator_type);
       }},
      {"MemoryInfoEquals",
       [](Objects& b, Outs& o, Made&) { return api().MemoryInfoEquals(b.info, b.info, &o.i); }},
      {"ReleaseMemoryInfo",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseMemoryInfo(b.info);
         b.info = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"GetAllocatorWithDefaultOptions",
       [](Objects&, Outs& o, Made&) { return api().GetAllocatorWithDefaultOptions(&o.allocator); }},
      {"AllocatorAlloc",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s = api().AllocatorAlloc(&g_hooked, 256, &o.pointer);
         if (s == nullptr) {
           m.releases.push_back([p = o.pointer] { ExpectOk(api().AllocatorFree(&g_hooked, p)); });
         }
         return s;
       }},
      {"AllocatorFree",
       [](Objects& b, Outs&, Made&) {
         KilnStatus* s = api().AllocatorFree(b.allocator, b.block);
         if (s == nullptr) b.block = nullptr;
         return s;
       }},
      {"AllocatorGetInfo",
       [](Objects& b, Outs& o, Made&) {
         return api().AllocatorGetInfo(b.allocator, &o.const_info);
       }},
      {"CreateTensorAsValue",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().CreateTensorAsValue(&g_hooked, b.dims, 2, KILN_ELEMENT_TYPE_STRING, &o.value);
         if (s == nullptr) m.releases.push_back([v = o.value] { api().ReleaseValue(v); });
         return s;
       }},
      {"CreateTensorWithDataAsValue",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateTensorWithDataAsValue(b.info, b.data, sizeof b.data, b.dims, 2,
                                                           KILN_ELEMENT_TYPE_FLOAT, &o.value);
         if (s == nullptr) m.releases.push_back([v = o.value] { api().ReleaseValue(v); });
         return s;
       }},
      {"GetValueType",
       [](Objects& b, Outs& o, Made&) { return api().GetValueType(b.value, &o.value_type); }},
      {"IsTensor", [](Objects& b, Outs& o, Made&) { return api().IsTensor(b.value, &o.i); }},
      {"GetTensorMutableData",
       [](Objects& b, Outs& o, Made&) { return api().GetTensorMutableData(b.value, &o.pointer); }},
      {"GetTensorSizeInBytes",
       [](Objects& b, Outs& o, Made&) { return api().GetTensorSizeInBytes(b.value, &o.size); }},
      {"GetTensorMemoryInfo",
       [](Objects& b, Outs& o, Made&) {
         return api().GetTensorMemoryInfo(b.value, &o.const_info);
       }},
      {"GetTensorTypeAndShape",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().GetTensorTypeAndShape(b.value, &o.shape);
         if (s == nullptr) {
           m.releases.push_back([i = o.shape] { api().ReleaseTensorTypeAndShapeInfo(i); });
         }
         return s;
       }},
      {"GetTensorElementType",
       [](Objects& b, Outs& o, Made&) {
         return api().GetTensorElementType(b.shape, &o.element_type);
       }},
      {"GetDimensionsCount",
       [](Objects& b, Outs& o, Made&) { return api().GetDimensionsCount(b.shape, &o.size); }},
      {"GetDimensions",
       [](Objects& b, Outs& o, Made&) { return api().GetDimensions(b.shape, o.dims, 2); }},
      {"GetSymbolicDimensions",
       [](Objects& b, Outs& o, Made&) { return api().GetSymbolicDimensions(b.shape, o.names, 2); }},
      {"GetTensorShapeElementCount",
       [](Objects& b, Outs& o, Made&) {
         return api().GetTensorShapeElementCount(b.shape, &o.size);
       }},
      {"ReleaseTensorTypeAndShapeInfo",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseTensorTypeAndShapeInfo(b.shape);
         b.shape = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"FillStringTensor",
       [](Objects& b, Outs&, Made&) {
         const char* s[] = {"one",  "two",  "a string long enough to need the heap",
                            "four", "five", "a second string long enough to need the heap"};
         return api().FillStringTensor(b.strings, s, 6);
       }},
      {"FillStringTensorElement",
       [](Objects& b, Outs&, Made&) {
         return api().FillStringTensorElement(b.strings, "a string long enough to need the heap",
                                              3);
       }},
      {"GetStringTensorDataLength",
       [](Objects& b, Outs& o, Made&) {
         return api().GetStringTensorDataLength(b.strings, &o.size);
       }},
      {"GetStringTensorContent",
       [](Objects& b, Outs& o, Made&) {
         return api().GetStringTensorContent(b.strings, o.bytes, 4, o.offsets, 6);
       }},
      {"GetStringTensorElementLength",
       [](Objects& b, Outs& o, Made&) {
         return api().GetStringTensorElementLength(b.strings, 0, &o.size);
       }},
      {"GetStringTensorElement",
       [](Objects& b, Outs& o, Made&) {
         return api().GetStringTensorElement(b.strings, 4, 0, o.bytes);
       }},
      {"ReleaseValue",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseValue(b.value);
         b.value = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
  };
}

struct Result {
  long attempts = 0;  // calls made, the last one succeeding
  long injected = 0;  // attempts in which a failure was injected
};

// Runs one case until it succeeds with no failure injected. Returns what it saw.
Result RunUntilSuccess(const OomCase& c, bool sticky) {
  Result result;
  for (long n = 1; n < 100000; ++n) {
    const long baseline = alloc_hook::Live();
    KilnStatus* status = nullptr;
    long injected = 0;
    {
      Objects b;
      Outs o;
      Made made;
      made.releases.reserve(4);  // the call runs armed: recording what it made must not allocate
      alloc_hook::Arm(n, sticky);
      status = c.call(b, o, made);
      alloc_hook::Disarm();
      injected = alloc_hook::Injected();
      if (status != nullptr) {
        EXPECT_GT(injected, 0) << c.entry << " failed without an injected failure: "
                               << api().GetErrorMessage(status);
        EXPECT_EQ(api().GetErrorCode(status), KILN_OUT_OF_MEMORY)
            << c.entry << " n=" << n << ": " << api().GetErrorMessage(status);
        EXPECT_TRUE(o.Untouched()) << c.entry << " wrote an out-parameter and failed, n=" << n;
        api().ReleaseStatus(status);
      }
      for (auto& release : made.releases) release();
    }
    ++result.attempts;
    if (injected > 0) ++result.injected;
    EXPECT_EQ(alloc_hook::Live(), baseline) << c.entry << " leaked at n=" << n;
    if (status == nullptr && injected == 0) return result;
    if (testing::Test::HasFailure()) return result;
  }
  ADD_FAILURE() << c.entry << " never succeeded";
  return result;
}

void RunAll(bool sticky) {
  const std::vector<OomCase> cases = Cases();
  std::set<std::string> covered;
  for (const OomCase& c : cases) covered.insert(c.entry);
  EXPECT_EQ(covered, SlotNames(/*status_returning_only=*/false));
  {
    // Warm-up: the library's lazily built tables reach their steady size.
    for (const OomCase& c : cases) {
      Objects b;
      Outs o;
      Made made;
      if (KilnStatus* s = c.call(b, o, made)) {
        ADD_FAILURE() << c.entry << ": " << api().GetErrorMessage(s);
        api().ReleaseStatus(s);
      }
      for (auto& release : made.releases) release();
    }
  }
  std::map<std::string, Result> results;
  long allocating = 0;
  for (const OomCase& c : cases) {
    results[c.entry] = RunUntilSuccess(c, sticky);
    if (results[c.entry].injected > 0) ++allocating;
  }
  std::printf("failure injection (%s) covered %zu of %zu entries; %ld of them allocate:\n",
              sticky ? "Nth and later" : "Nth only", covered.size(),
              sizeof(kSlots) / sizeof(kSlots[0]), allocating);
  for (const auto& [entry, r] : results) {
    if (r.injected > 0) std::printf("  %-32s %ld injected failures\n", entry.c_str(), r.injected);
  }
  // The hook must reach inside the library: these entries cannot work without allocating.
  for (const char* entry :
       {"CreateStatus", "CreateEnv", "CreateEnvWithCustomLogger", "CreateCpuMemoryInfo",
        "AllocatorAlloc", "CreateTensorAsValue", "CreateTensorWithDataAsValue",
        "GetTensorTypeAndShape", "FillStringTensor", "FillStringTensorElement"}) {
    EXPECT_GT(results[entry].injected, 0) << entry << " saw no injected failure";
  }
}

TEST(FailureInjection, NthAllocationFails) {
  RunAll(/*sticky=*/false);
}

TEST(FailureInjection, NthAndEveryLaterAllocationFail) {
  RunAll(/*sticky=*/true);
}

}  // namespace
}  // namespace kiln_test
