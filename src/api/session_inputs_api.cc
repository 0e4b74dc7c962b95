// Entries: SessionGetOverridableInitializerCount … SessionGetProfilingStartTimeNs (slots 79-87):
// overridable initializers, initializers from the caller's memory, free dimensions by
// denotation, config read-back and run config entries, the profiler's start time.
#include <cctype>
#include <map>
#include <memory>
#include <string>

#include "api/allocators.h"
#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {
namespace {

const runtime::Session::IoDesc& Overridable(const KilnSession& s, size_t index) {
  const auto& list = s.session->overridable_initializers();
  if (index >= list.size()) {
    ThrowInvalidArgument("index", std::to_string(index) + " is out of range: the model has " +
                                      std::to_string(list.size()) + " overridable initializers");
  }
  return list[index];
}

// A copy of `value` from `allocator` into *out, or NULL when there is none.
void PublishConfigValue(const std::map<std::string, std::string>& config, const std::string& key,
                        KilnAllocator* allocator, char** out) {
  auto it = config.find(key);
  *out = it == config.end() ? nullptr : CopyString(allocator, it->second);
}

}  // namespace

KilnStatus* KILN_API_CALL SessionGetOverridableInitializerCount(const KilnSession* session,
                                                                size_t* out) {
  return Guard("SessionGetOverridableInitializerCount", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    *out = s.session->overridable_initializers().size();
  });
}

KilnStatus* KILN_API_CALL SessionGetOverridableInitializerName(const KilnSession* session,
                                                               size_t index,
                                                               KilnAllocator* allocator,
                                                               char** out) {
  return Guard("SessionGetOverridableInitializerName", [&] {
    const auto& io = Overridable(Unwrap(session, "session"), index);
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    *out = CopyString(allocator, io.name);
  });
}

KilnStatus* KILN_API_CALL CreateSessionOverridableInitializerTensorInfo(
    const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out) {
  return Guard("CreateSessionOverridableInitializerTensorInfo", [&] {
    const auto& io = Overridable(Unwrap(session, "session"), index);
    CheckOut(out, "out");
    PublishTensorInfo(io.type, out);
  });
}

KilnStatus* KILN_API_CALL SessionOptionsAddInitializer(KilnSessionOptions* options,
                                                       const char* name, const KilnValue* value) {
  return Guard("SessionOptionsAddInitializer", [&] {
    auto& o = Unwrap(options, "options");
    std::string n = CheckedUtf8(name, "name");
    if (n.empty()) ThrowInvalidArgument("name", "is empty");
    const auto& v = Unwrap(value, "value");
    RefuseLent(v, "value");
    if (v.tensor == nullptr) {
      ThrowInvalidArgument("value", "is a " + v.other.TypeText() + ", not a tensor");
    }
    o.options.initializers[std::move(n)] = v.tensor;
  });
}

KilnStatus* KILN_API_CALL AddFreeDimensionOverride(KilnSessionOptions* options,
                                                   const char* dim_denotation, int64_t value) {
  return Guard("AddFreeDimensionOverride", [&] {
    auto& o = Unwrap(options, "options");
    std::string d = CheckedUtf8(dim_denotation, "dim_denotation");
    if (d.empty()) ThrowInvalidArgument("dim_denotation", "is empty");
    if (value < 0) ThrowInvalidArgument("value", std::to_string(value) + " is negative");
    for (char& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    o.options.free_dimension_overrides_by_denotation[d] = value;
  });
}

KilnStatus* KILN_API_CALL SessionOptionsGetConfigEntry(const KilnSessionOptions* options,
                                                       const char* key, KilnAllocator* allocator,
                                                       char** out) {
  return Guard("SessionOptionsGetConfigEntry", [&] {
    const auto& o = Unwrap(options, "options");
    const std::string k = CheckedUtf8(key, "key");
    runtime::CheckConfigKey(runtime::KnownConfigKeys(), k);
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    PublishConfigValue(o.options.config, k, allocator, out);
  });
}

KilnStatus* KILN_API_CALL RunOptionsAddConfigEntry(KilnRunOptions* options, const char* key,
                                                   const char* value) {
  return Guard("RunOptionsAddConfigEntry", [&] {
    auto& o = Unwrap(options, "options");
    const std::string k = CheckedUtf8(key, "key");
    const std::string v = CheckedUtf8(value, "value");
    o.options->AddConfig(k, v);
  });
}

KilnStatus* KILN_API_CALL RunOptionsGetConfigEntry(const KilnRunOptions* options, const char* key,
                                                   KilnAllocator* allocator, char** out) {
  return Guard("RunOptionsGetConfigEntry", [&] {
    const auto& o = Unwrap(options, "options");
    const std::string k = CheckedUtf8(key, "key");
    runtime::CheckConfigKey(runtime::KnownRunConfigKeys(), k);
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    PublishConfigValue(o.options->config, k, allocator, out);
  });
}

KilnStatus* KILN_API_CALL SessionGetProfilingStartTimeNs(const KilnSession* session,
                                                         uint64_t* out) {
  return Guard("SessionGetProfilingStartTimeNs", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    *out = s.session->profiling_start_ns();
  });
}

}  // namespace kiln::api
