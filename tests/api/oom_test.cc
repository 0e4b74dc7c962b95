// Failure injection over every entry of the table: for N = 1, 2, … the Nth allocation made
// during the call fails (only that one, then in a second pass every one from it on), until the
// call succeeds. Each failing attempt must give a clean KILN_OUT_OF_MEMORY, leave the
// out-parameters untouched and leak nothing; no attempt may crash.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "alloc_hook.h"
#include "api_test_util.h"
#include "fixtures.h"
#include "graph_slots.h"
#include "oom_cases.h"

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

// Frees memory an entry returned through g_hooked.
std::function<void()> FreeHooked(void* p) {
  return [p] { ExpectOk(api().AllocatorFree(&g_hooked, p)); };
}

// models::TwoOutputs(), made once (a call under the armed hook must not allocate it).
const std::string& TwoOutputsModel() {
  static const std::string model = models::TwoOutputs();
  return model;
}

float* Data(KilnValue* v) {
  void* p = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &p));
  return static_cast<float*>(p);
}

void KILN_API_CALL NoLog(void*, KilnLoggingLevel, const char*, const char*, const char*,
                         const char*) {}

// Whether the binding's outputs are as a BindOutput call that failed (none) or succeeded (y) left
// them; a static string saying what is wrong, or NULL.
const char* BoundOutputsWrong(Objects& b, bool failed) {
  char** names = nullptr;
  size_t count = 0;
  ExpectOk(api().GetBoundOutputNames(b.binding, b.allocator, &names, &count));
  const bool bound = count == 1 && std::string(names[0]) == "y";
  for (size_t i = 0; i < count; ++i) ExpectOk(api().AllocatorFree(b.allocator, names[i]));
  if (names != nullptr) ExpectOk(api().AllocatorFree(b.allocator, names));
  if (failed && count != 0) return "a failed call bound an output";
  if (!failed && !bound) return "the call did not bind the output";
  return nullptr;
}

// A RunAsync callback's outcome, and a wait for it that allocates nothing (the hook is armed).
struct AsyncDone {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  KilnStatus* status = nullptr;

  static void KILN_API_CALL Callback(void* user_data, KilnValue**, size_t, KilnStatus* status) {
    auto* d = static_cast<AsyncDone*>(user_data);
    std::lock_guard<std::mutex> lock(d->mutex);
    d->status = status;
    d->done = true;
    d->cv.notify_all();  // under the lock: the waiter may destroy `d` as soon as it wakes
  }
  KilnStatus* Wait() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return done; });
    return status;
  }
};

std::vector<OomCase> Cases() {
  std::vector<OomCase> cases = {
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
      // ---- Session options
      {"CreateSessionOptions",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s = api().CreateSessionOptions(&o.session_options);
         if (s == nullptr) {
           m.releases.push_back([p = o.session_options] { api().ReleaseSessionOptions(p); });
         }
         return s;
       }},
      {"CloneSessionOptions",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CloneSessionOptions(b.session_options, &o.session_options);
         if (s == nullptr) {
           m.releases.push_back([p = o.session_options] { api().ReleaseSessionOptions(p); });
         }
         return s;
       },
       [](Objects& b) {
         // Something in every field, so the copy has to allocate.
         ExpectOk(
             api().SetSessionLogId(b.session_options, "a log id long enough to need the heap"));
         ExpectOk(api().AddFreeDimensionOverrideByName(b.session_options, "batch", 3));
         ExpectOk(api().AddSessionConfigEntry(b.session_options, "kiln.run.check_finite", "1"));
         ExpectOk(
             api().SetOptimizedModelFilePath(b.session_options, b.optimized_model_path.c_str()));
       }},
      {"SetIntraOpNumThreads",
       [](Objects& b, Outs&, Made&) { return api().SetIntraOpNumThreads(b.session_options, 2); }},
      {"SetSessionGraphOptimizationLevel",
       [](Objects& b, Outs&, Made&) {
         return api().SetSessionGraphOptimizationLevel(b.session_options,
                                                       KILN_GRAPH_OPTIMIZATION_EXTENDED);
       }},
      {"SetSessionLogSeverityLevel",
       [](Objects& b, Outs&, Made&) {
         return api().SetSessionLogSeverityLevel(b.session_options, KILN_LOGGING_LEVEL_VERBOSE);
       }},
      {"SetSessionLogId",
       [](Objects& b, Outs&, Made&) {
         return api().SetSessionLogId(b.session_options, "a log id long enough to need the heap");
       }},
      {"EnableProfiling",
       [](Objects& b, Outs&, Made&) {
         return api().EnableProfiling(b.session_options, b.profile_prefix.c_str());
       }},
      {"DisableProfiling",
       [](Objects& b, Outs&, Made&) { return api().DisableProfiling(b.session_options); }},
      {"AddFreeDimensionOverrideByName",
       [](Objects& b, Outs&, Made&) {
         return api().AddFreeDimensionOverrideByName(
             b.session_options, "a dimension name long enough to need the heap", 4);
       }},
      {"AddSessionConfigEntry",
       [](Objects& b, Outs&, Made&) {
         return api().AddSessionConfigEntry(b.session_options, "kiln.run.check_finite", "1");
       }},
      {"ReleaseSessionOptions",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseSessionOptions(b.session_options);
         b.session_options = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      // ---- Sessions
      {"CreateSession",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().CreateSession(b.env, b.model_path.c_str(), b.session_options, &o.session);
         if (s == nullptr) m.releases.push_back([p = o.session] { api().ReleaseSession(p); });
         return s;
       }},
      {"CreateSessionFromArray",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateSessionFromArray(b.env, b.model.data(), b.model.size(),
                                                      b.session_options, &o.session);
         if (s == nullptr) m.releases.push_back([p = o.session] { api().ReleaseSession(p); });
         return s;
       }},
      {"SessionGetInputCount",
       [](Objects& b, Outs& o, Made&) { return api().SessionGetInputCount(b.session, &o.size); }},
      {"SessionGetOutputCount",
       [](Objects& b, Outs& o, Made&) { return api().SessionGetOutputCount(b.session, &o.size); }},
      {"SessionGetInputName",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().SessionGetInputName(b.session, 0, &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       }},
      {"SessionGetOutputName",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().SessionGetOutputName(b.session, 0, &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       }},
      {"SessionGetInputValueType",
       [](Objects& b, Outs& o, Made&) {
         return api().SessionGetInputValueType(b.session, 0, &o.value_type);
       }},
      {"SessionGetOutputValueType",
       [](Objects& b, Outs& o, Made&) {
         return api().SessionGetOutputValueType(b.session, 0, &o.value_type);
       }},
      {"CreateSessionInputTensorInfo",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateSessionInputTensorInfo(b.session, 0, &o.shape);
         if (s == nullptr) {
           m.releases.push_back([i = o.shape] { api().ReleaseTensorTypeAndShapeInfo(i); });
         }
         return s;
       }},
      {"CreateSessionOutputTensorInfo",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateSessionOutputTensorInfo(b.session, 0, &o.shape);
         if (s == nullptr) {
           m.releases.push_back([i = o.shape] { api().ReleaseTensorTypeAndShapeInfo(i); });
         }
         return s;
       }},
      {"SessionGetModelMetadataString",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().SessionGetModelMetadataString(b.session, KILN_METADATA_DESCRIPTION,
                                                             &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       }},
      {"SessionGetModelVersion",
       [](Objects& b, Outs& o, Made&) {
         return api().SessionGetModelVersion(b.session, &o.version);
       }},
      {"SessionGetCustomMetadataKeys",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().SessionGetCustomMetadataKeys(b.session, &g_hooked, &o.strings, &o.size);
         if (s == nullptr) {
           m.releases.push_back([keys = o.strings, n = o.size] {
             for (size_t i = 0; i < n; ++i) FreeHooked(keys[i])();
             FreeHooked(keys)();
           });
         }
         return s;
       }},
      {"SessionLookupCustomMetadata",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().SessionLookupCustomMetadata(b.session, &g_hooked, models::kKeys[1], &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       }},
      {"SessionEndProfiling",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().SessionEndProfiling(b.session, &g_hooked, &o.string);
         if (s == nullptr) {
           m.releases.push_back([p = o.string] {
             std::remove(p);
             FreeHooked(p)();
           });
         }
         return s;
       }},
      {"ReleaseSession",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseSession(b.session);
         b.session = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      // ---- Running
      {"CreateRunOptions",
       [](Objects&, Outs& o, Made& m) {
         KilnStatus* s = api().CreateRunOptions(&o.run_options);
         if (s == nullptr)
           m.releases.push_back([p = o.run_options] { api().ReleaseRunOptions(p); });
         return s;
       }},
      {"RunOptionsSetRunTag",
       [](Objects& b, Outs&, Made&) {
         return api().RunOptionsSetRunTag(b.run_options, "a run tag long enough to need the heap");
       }},
      {"RunOptionsSetRunLogSeverityLevel",
       [](Objects& b, Outs&, Made&) {
         return api().RunOptionsSetRunLogSeverityLevel(b.run_options, KILN_LOGGING_LEVEL_VERBOSE);
       }},
      {"RunOptionsSetTerminate",
       [](Objects& b, Outs&, Made&) { return api().RunOptionsSetTerminate(b.run_options); }},
      {"RunOptionsUnsetTerminate",
       [](Objects& b, Outs&, Made&) { return api().RunOptionsUnsetTerminate(b.run_options); }},
      {"ReleaseRunOptions",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseRunOptions(b.run_options);
         b.run_options = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"Run",  // into a new value
       [](Objects& b, Outs& o, Made& m) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         KilnStatus* s = api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, o.outputs);
         if (s == nullptr) m.releases.push_back([v = o.outputs[0]] { api().ReleaseValue(v); });
         return s;
       }},
      {"Run",  // into a caller's tensor and a new value at once
       [](Objects& b, Outs&, Made& m) {
         const char* in[] = {"a", "b"};
         const KilnValue* inputs[] = {b.x, b.b_in};
         const char* out[] = {"a_copy", "b_copy"};
         m.slots[0] = b.y;
         KilnStatus* s = api().Run(b.two_outputs, b.run_options, in, inputs, 2, out, 2, m.slots);
         if (s == nullptr) m.releases.push_back([v = m.slots[1]] { api().ReleaseValue(v); });
         return s;
       },
       [](Objects& b) {
         float* x = Data(b.x);
         float* y = Data(b.y);
         for (int i = 0; i < 6; ++i) {
           x[i] = static_cast<float>(i) + 0.5f;
           y[i] = -1.0f;
         }
       },
       [](Objects& b, Made& m, bool failed) -> const char* {
         if (m.slots[0] != b.y) return "Run replaced a caller's tensor in its slot";
         const float* y = Data(b.y);
         for (int i = 0; i < 6; ++i) {
           if (failed && y[i] != -1.0f) return "a failed Run wrote a caller's tensor";
           if (!failed && y[i] != static_cast<float>(i) + 0.5f) return "Run gave wrong values";
         }
         if (failed && m.slots[1] != nullptr) return "a failed Run filled an empty slot";
         if (!failed && m.slots[1] == nullptr) return "Run left an empty slot empty";
         return nullptr;
       }},
      // ---- Sequences and optionals
      {"CreateSequenceValue",
       [](Objects& b, Outs& o, Made& m) {
         const KilnValue* tensors[] = {b.value, b.x};
         KilnStatus* s = api().CreateSequenceValue(tensors, 2, KILN_ELEMENT_TYPE_FLOAT, &o.value);
         if (s == nullptr) m.releases.push_back([v = o.value] { api().ReleaseValue(v); });
         return s;
       }},
      {"CreateOptionalValue",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateOptionalValue(b.value, KILN_VALUE_TYPE_TENSOR,
                                                   KILN_ELEMENT_TYPE_FLOAT, &o.value);
         if (s == nullptr) m.releases.push_back([v = o.value] { api().ReleaseValue(v); });
         return s;
       }},
      {"GetValueCount",
       [](Objects& b, Outs& o, Made&) { return api().GetValueCount(b.seq, &o.size); }},
      {"GetValueElement",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().GetValueElement(b.seq, 1, &o.value);
         if (s == nullptr) m.releases.push_back([v = o.value] { api().ReleaseValue(v); });
         return s;
       }},
      {"HasValue", [](Objects& b, Outs& o, Made&) { return api().HasValue(b.opt, &o.i); }},
      {"GetValueElementType",
       [](Objects& b, Outs& o, Made&) {
         return api().GetValueElementType(b.opt, &o.element_type);
       }},
      // ---- Session inputs and config
      {"SessionGetOverridableInitializerCount",
       [](Objects& b, Outs& o, Made&) {
         return api().SessionGetOverridableInitializerCount(b.initializers, &o.size);
       }},
      {"SessionGetOverridableInitializerName",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().SessionGetOverridableInitializerName(b.initializers, 0, &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       }},
      {"CreateSessionOverridableInitializerTensorInfo",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s =
             api().CreateSessionOverridableInitializerTensorInfo(b.initializers, 0, &o.shape);
         if (s == nullptr) {
           m.releases.push_back([i = o.shape] { api().ReleaseTensorTypeAndShapeInfo(i); });
         }
         return s;
       }},
      {"SessionOptionsAddInitializer",
       [](Objects& b, Outs&, Made&) {
         return api().SessionOptionsAddInitializer(
             b.session_options, "an initializer name long enough for the heap", b.value);
       }},
      {"AddFreeDimensionOverride",
       [](Objects& b, Outs&, Made&) {
         return api().AddFreeDimensionOverride(b.session_options,
                                               "A_DENOTATION_LONG_ENOUGH_FOR_THE_HEAP", 4);
       }},
      {"SessionOptionsGetConfigEntry",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().SessionOptionsGetConfigEntry(b.session_options, "kiln.arena.enable",
                                                            &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       },
       [](Objects& b) {
         ExpectOk(api().AddSessionConfigEntry(b.session_options, "kiln.arena.enable", "1"));
       },
       [](Objects&, Made& m, bool failed) -> const char* {
         if (!failed && m.releases.empty()) return "the entry's value was not returned";
         return nullptr;
       }},
      {"RunOptionsAddConfigEntry",
       [](Objects& b, Outs&, Made&) {
         return api().RunOptionsAddConfigEntry(b.run_options,
                                               "memory.enable_memory_arena_shrinkage", "cpu:0");
       },
       nullptr,
       [](Objects& b, Made&, bool failed) -> const char* {
         char* v = nullptr;
         KilnStatus* s = api().RunOptionsGetConfigEntry(
             b.run_options, "memory.enable_memory_arena_shrinkage", &g_hooked, &v);
         const bool set = s == nullptr && v != nullptr;
         api().ReleaseStatus(s);
         if (v != nullptr) ExpectOk(api().AllocatorFree(&g_hooked, v));
         if (failed && set) return "a failed RunOptionsAddConfigEntry set the entry";
         if (!failed && !set) return "RunOptionsAddConfigEntry did not set the entry";
         return nullptr;
       }},
      {"RunOptionsGetConfigEntry",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().RunOptionsGetConfigEntry(b.run_options, "kiln.run.check_finite",
                                                        &g_hooked, &o.string);
         if (s == nullptr) m.releases.push_back(FreeHooked(o.string));
         return s;
       },
       [](Objects& b) {
         ExpectOk(api().RunOptionsAddConfigEntry(b.run_options, "kiln.run.check_finite", "1"));
       },
       [](Objects&, Made& m, bool failed) -> const char* {
         if (!failed && m.releases.empty()) return "the entry's value was not returned";
         return nullptr;
       }},
      {"SessionGetProfilingStartTimeNs",
       [](Objects& b, Outs& o, Made&) {
         return api().SessionGetProfilingStartTimeNs(b.session, &o.u64);
       }},
      // ---- IO binding
      {"CreateIoBinding",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().CreateIoBinding(b.session, &o.binding);
         if (s == nullptr) m.releases.push_back([p = o.binding] { api().ReleaseIoBinding(p); });
         return s;
       }},
      {"ReleaseIoBinding",
       [](Objects& b, Outs&, Made&) {
         api().ReleaseIoBinding(b.binding);
         b.binding = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"BindInput", [](Objects& b, Outs&, Made&) { return api().BindInput(b.binding, "x", b.x); },
       [](Objects& b) { ExpectOk(api().BindOutputToDevice(b.binding, "y", b.info)); },
       [](Objects& b, Made&, bool failed) -> const char* {
         KilnStatus* s = api().RunWithBinding(b.session, nullptr, b.binding);
         const bool ran = s == nullptr;
         api().ReleaseStatus(s);
         if (failed && ran) return "a failed BindInput bound the input";
         if (!failed && !ran) return "BindInput did not bind the input";
         return nullptr;
       }},
      {"BindOutput", [](Objects& b, Outs&, Made&) { return api().BindOutput(b.binding, "y", b.y); },
       nullptr, [](Objects& b, Made&, bool failed) { return BoundOutputsWrong(b, failed); }},
      {"BindOutputToDevice",
       [](Objects& b, Outs&, Made&) { return api().BindOutputToDevice(b.binding, "y", b.info); },
       nullptr, [](Objects& b, Made&, bool failed) { return BoundOutputsWrong(b, failed); }},
      {"GetBoundOutputNames",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().GetBoundOutputNames(b.binding, &g_hooked, &o.strings, &o.size);
         if (s == nullptr) {
           m.releases.push_back(FreeHooked(o.strings[0]));
           m.releases.push_back(FreeHooked(o.strings));
         }
         return s;
       },
       [](Objects& b) { ExpectOk(api().BindOutputToDevice(b.binding, "y", b.info)); }},
      {"GetBoundOutputValues",
       [](Objects& b, Outs& o, Made& m) {
         KilnStatus* s = api().GetBoundOutputValues(b.binding, &g_hooked, &o.values, &o.size);
         if (s == nullptr) {
           m.releases.push_back([v = o.values[0]] { api().ReleaseValue(v); });
           m.releases.push_back(FreeHooked(o.values));
         }
         return s;
       },
       [](Objects& b) {
         ExpectOk(api().BindInput(b.binding, "x", b.x));
         ExpectOk(api().BindOutputToDevice(b.binding, "y", b.info));
         ExpectOk(api().RunWithBinding(b.session, nullptr, b.binding));
       }},
      {"ClearBoundInputs",
       [](Objects& b, Outs&, Made&) { return api().ClearBoundInputs(b.binding); },
       [](Objects& b) { ExpectOk(api().BindInput(b.binding, "x", b.x)); }},
      {"ClearBoundOutputs",
       [](Objects& b, Outs&, Made&) { return api().ClearBoundOutputs(b.binding); },
       [](Objects& b) { ExpectOk(api().BindOutput(b.binding, "y", b.y)); }},
      {"SynchronizeBoundInputs",
       [](Objects& b, Outs&, Made&) { return api().SynchronizeBoundInputs(b.binding); }},
      {"SynchronizeBoundOutputs",
       [](Objects& b, Outs&, Made&) { return api().SynchronizeBoundOutputs(b.binding); }},
      {"RunWithBinding",  // into a value the run makes
       [](Objects& b, Outs&, Made&) {
         return api().RunWithBinding(b.session, b.run_options, b.binding);
       },
       [](Objects& b) {
         ExpectOk(api().BindInput(b.binding, "x", b.x));
         ExpectOk(api().BindOutputToDevice(b.binding, "y", b.info));
       },
       [](Objects& b, Made&, bool failed) -> const char* {
         KilnValue** values = nullptr;
         size_t count = 0;
         KilnStatus* s = api().GetBoundOutputValues(b.binding, b.allocator, &values, &count);
         const bool kept = s == nullptr;
         api().ReleaseStatus(s);
         for (size_t i = 0; i < count; ++i) api().ReleaseValue(values[i]);
         if (kept) ExpectOk(api().AllocatorFree(b.allocator, values));
         if (failed && kept) return "a failed RunWithBinding kept outputs";
         if (!failed && !kept) return "RunWithBinding kept no outputs";
         return nullptr;
       }},
      {"RunWithBinding",  // into a caller's tensor
       [](Objects& b, Outs&, Made&) {
         return api().RunWithBinding(b.session, b.run_options, b.binding);
       },
       [](Objects& b) {
         float* x = Data(b.x);
         float* y = Data(b.y);
         for (int i = 0; i < 6; ++i) {
           x[i] = static_cast<float>(i) + 0.5f;
           y[i] = -1.0f;
         }
         ExpectOk(api().BindInput(b.binding, "x", b.x));
         ExpectOk(api().BindOutput(b.binding, "y", b.y));
       },
       [](Objects& b, Made&, bool failed) -> const char* {
         const float* y = Data(b.y);
         for (int i = 0; i < 6; ++i) {
           if (failed && y[i] != -1.0f) return "a failed RunWithBinding wrote a caller's tensor";
           if (!failed && y[i] != static_cast<float>(i) + 0.5f) {
             return "RunWithBinding gave wrong values";
           }
         }
         return nullptr;
       }},
      {"RunAsync",  // the status RunAsync returns, else the callback's
       [](Objects& b, Outs& o, Made& m) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         AsyncDone done;
         KilnStatus* s = api().RunAsync(b.session, b.run_options, in, &b.x, 1, out, 1, o.outputs,
                                        &AsyncDone::Callback, &done);
         if (s == nullptr) s = done.Wait();
         if (s == nullptr) m.releases.push_back([v = o.outputs[0]] { api().ReleaseValue(v); });
         return s;
       }},
      // ---- Optimized model
      {"SetOptimizedModelFilePath",
       [](Objects& b, Outs&, Made&) {
         return api().SetOptimizedModelFilePath(b.session_options, b.optimized_model_path.c_str());
       }},
      // ---- Parallel execution
      {"SetInterOpNumThreads",
       [](Objects& b, Outs&, Made&) { return api().SetInterOpNumThreads(b.session_options, 2); }},
      {"SetSessionExecutionMode",  // then a session in that mode made and run
       [](Objects& b, Outs&, Made& m) {
         KilnStatus* s =
             api().SetSessionExecutionMode(b.session_options, KILN_EXECUTION_MODE_PARALLEL);
         if (s == nullptr) s = api().SetInterOpNumThreads(b.session_options, 2);
         KilnSession* session = nullptr;
         const std::string& two = TwoOutputsModel();
         if (s == nullptr) {
           s = api().CreateSessionFromArray(b.env, two.data(), two.size(), b.session_options,
                                            &session);
         }
         const char* in[] = {"a", "b"};
         const KilnValue* inputs[] = {b.x, b.b_in};
         const char* out[] = {"a_copy", "b_copy"};
         if (s == nullptr) s = api().Run(session, b.run_options, in, inputs, 2, out, 2, m.slots);
         api().ReleaseSession(session);
         if (s == nullptr) {
           m.releases.push_back([v = m.slots[0]] { api().ReleaseValue(v); });
           m.releases.push_back([v = m.slots[1]] { api().ReleaseValue(v); });
         }
         return s;
       },
       [](Objects&) { (void)TwoOutputsModel(); }},  // made before the hook is armed
  };
  for (OomCase& c : CustomOpOomCases()) cases.push_back(std::move(c));
  for (OomCase& c : GraphOomCases()) cases.push_back(std::move(c));
  return cases;
}

// Failures recorded so far in the running test.
int FailureCount() {
  const testing::TestResult* r = testing::UnitTest::GetInstance()->current_test_info()->result();
  int failures = 0;
  for (int i = 0; i < r->total_part_count(); ++i) failures += r->GetTestPartResult(i).failed();
  return failures;
}

}  // namespace

Result RunUntilSuccess(const OomCase& c, bool sticky) {
  Result result;
  const int failures_before = FailureCount();
  for (long n = 1; n < 100000; ++n) {
    const long baseline = alloc_hook::Live();
    KilnStatus* status = nullptr;
    long injected = 0;
    const char* wrong = nullptr;
    {
      Objects b;
      Outs o;
      Made made;
      made.releases.reserve(4);  // the call runs armed: recording what it made must not allocate
      if (c.setup) c.setup(b);
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
      if (c.verify) wrong = c.verify(b, made, status != nullptr);
      for (auto& release : made.releases) release();
    }
    ++result.attempts;
    if (injected > 0) ++result.injected;
    EXPECT_EQ(alloc_hook::Live(), baseline) << c.entry << " leaked at n=" << n;
    EXPECT_EQ(wrong, nullptr) << c.entry << " n=" << n << ": " << wrong;
    if (status == nullptr && injected == 0) return result;
    if (FailureCount() != failures_before) return result;
  }
  ADD_FAILURE() << c.entry << " never succeeded";
  return result;
}

namespace {

void RunAll(bool sticky) {
  const std::vector<OomCase> cases = Cases();
  std::set<std::string> covered;
  for (const OomCase& c : cases) covered.insert(c.entry);
  EXPECT_EQ(covered, AllSlotNames(/*status_returning_only=*/false));
  {
    // Warm-up: the library's lazily built tables reach their steady size.
    for (const OomCase& c : cases) {
      Objects b;
      Outs o;
      Made made;
      if (c.setup) c.setup(b);
      KilnStatus* s = c.call(b, o, made);
      if (s != nullptr) {
        ADD_FAILURE() << c.entry << ": " << api().GetErrorMessage(s);
        api().ReleaseStatus(s);
      }
      if (const char* wrong = c.verify ? c.verify(b, made, s != nullptr) : nullptr) {
        ADD_FAILURE() << c.entry << ": " << wrong;
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
              sizeof(kSlots) / sizeof(kSlots[0]) + sizeof(kGraphSlots) / sizeof(kGraphSlots[0]),
              allocating);
  for (const auto& [entry, r] : results) {
    if (r.injected > 0) std::printf("  %-32s %ld injected failures\n", entry.c_str(), r.injected);
  }
  // The hook must reach inside the library: these entries cannot work without allocating.
  for (const char* entry : {"CreateStatus",
                            "CreateEnv",
                            "CreateEnvWithCustomLogger",
                            "CreateCpuMemoryInfo",
                            "AllocatorAlloc",
                            "CreateTensorAsValue",
                            "CreateTensorWithDataAsValue",
                            "GetTensorTypeAndShape",
                            "FillStringTensor",
                            "FillStringTensorElement",
                            "CreateSessionOptions",
                            "CloneSessionOptions",
                            "SetSessionLogId",
                            "EnableProfiling",
                            "AddFreeDimensionOverrideByName",
                            "AddSessionConfigEntry",
                            "CreateSession",
                            "CreateSessionFromArray",
                            "SessionGetInputName",
                            "SessionGetOutputName",
                            "CreateSessionInputTensorInfo",
                            "CreateSessionOutputTensorInfo",
                            "SessionGetModelMetadataString",
                            "SessionGetCustomMetadataKeys",
                            "SessionLookupCustomMetadata",
                            "SessionEndProfiling",
                            "CreateRunOptions",
                            "RunOptionsSetRunTag",
                            "Run",
                            "CreateSequenceValue",
                            "CreateOptionalValue",
                            "GetValueElement",
                            "SessionGetOverridableInitializerName",
                            "CreateSessionOverridableInitializerTensorInfo",
                            "SessionOptionsAddInitializer",
                            "AddFreeDimensionOverride",
                            "SessionOptionsGetConfigEntry",
                            "RunOptionsAddConfigEntry",
                            "RunOptionsGetConfigEntry",
                            "CreateIoBinding",
                            "BindInput",
                            "BindOutput",
                            "BindOutputToDevice",
                            "GetBoundOutputNames",
                            "GetBoundOutputValues",
                            "RunWithBinding",
                            "RunAsync",
                            "SessionOptionsRegisterCustomOpsLibrary",
                            "SessionOptionsRegisterCustomOps",
                            "CustomOpRegistryAdd",
                            "KernelContextLog",
                            "ShapeInferContextGetInputTypeInfo",
                            "ShapeInferContextSetOutputTypeInfo"}) {
    EXPECT_GT(results[entry].injected, 0) << entry << " saw no injected failure";
  }
  for (const std::string& entry : GraphAllocatingEntries()) {
    EXPECT_GT(results[entry].injected, 0) << entry << " saw no injected failure";
  }
}

// CreateSession writing its optimized model: every allocation of the write failing in turn.
TEST(FailureInjection, CreateSessionWritingTheOptimizedModel) {
  for (bool sticky : {false, true}) {
    const OomCase c{
        "CreateSession (optimized model)",
        [](Objects& b, Outs& o, Made& m) {
          KilnStatus* s =
              api().CreateSession(b.env, b.model_path.c_str(), b.session_options, &o.session);
          if (s == nullptr) m.releases.push_back([p = o.session] { api().ReleaseSession(p); });
          return s;
        },
        [](Objects& b) {
          std::remove(b.optimized_model_path.c_str());
          ExpectOk(
              api().SetOptimizedModelFilePath(b.session_options, b.optimized_model_path.c_str()));
        },
        [](Objects& b, Made&, bool failed) -> const char* {
          std::FILE* f = std::fopen(b.optimized_model_path.c_str(), "rb");
          if (f != nullptr) std::fclose(f);
          return !failed && f == nullptr ? "succeeded without writing the file" : nullptr;
        }};
    {
      // Warm-up: protobuf's and the writer's lazily built state reaches its steady size.
      Objects b;
      Outs o;
      Made made;
      c.setup(b);
      ExpectOk(c.call(b, o, made));
      for (auto& release : made.releases) release();
    }
    const Result r = RunUntilSuccess(c, sticky);
    EXPECT_GT(r.injected, 0) << "no allocation failed";
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
