// Entries: CreateSessionOptions … ReleaseSessionOptions (slots 39-49), SetInterOpNumThreads and
// SetSessionExecutionMode (102-103).
#include <memory>
#include <string>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {
namespace {

// A thread count of SetIntraOpNumThreads / SetInterOpNumThreads: 0 (one per hardware thread) to
// 1024; throws kInvalidArgument naming argument 'threads'.
int CheckedThreadCount(int threads) {
  if (threads < 0 || threads > 1024) {
    ThrowInvalidArgument("threads", std::to_string(threads) + " is not 0 to 1024");
  }
  return threads;
}

}  // namespace

KilnStatus* KILN_API_CALL CreateSessionOptions(KilnSessionOptions** out) {
  return Guard("CreateSessionOptions", [&] {
    CheckOut(out, "out");
    Publish(std::make_unique<KilnSessionOptions>(), out);
  });
}

KilnStatus* KILN_API_CALL CloneSessionOptions(const KilnSessionOptions* options,
                                              KilnSessionOptions** out) {
  return Guard("CloneSessionOptions", [&] {
    const auto& o = Unwrap(options, "options");
    CheckOut(out, "out");
    Publish(std::make_unique<KilnSessionOptions>(o), out);
  });
}

KilnStatus* KILN_API_CALL SetIntraOpNumThreads(KilnSessionOptions* options, int threads) {
  return Guard("SetIntraOpNumThreads", [&] {
    auto& o = Unwrap(options, "options");
    o.options.intra_op_threads = CheckedThreadCount(threads);
  });
}

KilnStatus* KILN_API_CALL SetInterOpNumThreads(KilnSessionOptions* options, int threads) {
  return Guard("SetInterOpNumThreads", [&] {
    auto& o = Unwrap(options, "options");
    o.options.inter_op_threads = CheckedThreadCount(threads);
  });
}

KilnStatus* KILN_API_CALL SetSessionExecutionMode(KilnSessionOptions* options,
                                                  KilnExecutionMode mode) {
  return Guard("SetSessionExecutionMode", [&] {
    auto& o = Unwrap(options, "options");
    const int v = EnumValue(mode);
    if (v != KILN_EXECUTION_MODE_SEQUENTIAL && v != KILN_EXECUTION_MODE_PARALLEL) {
      ThrowInvalidArgument(
          "mode", std::to_string(v) + " is not a KilnExecutionMode (0 sequential, 1 parallel)");
    }
    o.options.parallel = v == KILN_EXECUTION_MODE_PARALLEL;
  });
}

KilnStatus* KILN_API_CALL SetSessionGraphOptimizationLevel(KilnSessionOptions* options,
                                                           KilnGraphOptimizationLevel level) {
  return Guard("SetSessionGraphOptimizationLevel", [&] {
    auto& o = Unwrap(options, "options");
    const int v = EnumValue(level);
    if (v < 0 || v > 3) {
      ThrowInvalidArgument("level",
                           std::to_string(v) + " is not a KilnGraphOptimizationLevel (0 to 3)");
    }
    o.options.optimization_level = v;
  });
}

KilnStatus* KILN_API_CALL SetSessionLogSeverityLevel(KilnSessionOptions* options,
                                                     KilnLoggingLevel severity) {
  return Guard("SetSessionLogSeverityLevel", [&] {
    auto& o = Unwrap(options, "options");
    o.options.log_level = CheckedLevel(severity, "severity");
  });
}

KilnStatus* KILN_API_CALL SetSessionLogId(KilnSessionOptions* options, const char* log_id) {
  return Guard("SetSessionLogId", [&] {
    auto& o = Unwrap(options, "options");
    std::string id = CheckedUtf8(log_id, "log_id");
    o.options.log_id = std::move(id);
  });
}

KilnStatus* KILN_API_CALL EnableProfiling(KilnSessionOptions* options, const char* prefix) {
  return Guard("EnableProfiling", [&] {
    auto& o = Unwrap(options, "options");
    std::string p = CheckedUtf8(prefix, "prefix");
    if (p.empty()) ThrowInvalidArgument("prefix", "is empty");
    o.options.profile_prefix = std::move(p);
  });
}

KilnStatus* KILN_API_CALL DisableProfiling(KilnSessionOptions* options) {
  return Guard("DisableProfiling",
               [&] { Unwrap(options, "options").options.profile_prefix.clear(); });
}

KilnStatus* KILN_API_CALL AddFreeDimensionOverrideByName(KilnSessionOptions* options,
                                                         const char* name, int64_t value) {
  return Guard("AddFreeDimensionOverrideByName", [&] {
    auto& o = Unwrap(options, "options");
    std::string n = CheckedUtf8(name, "name");
    if (n.empty()) ThrowInvalidArgument("name", "is empty");
    if (value < 0) ThrowInvalidArgument("value", std::to_string(value) + " is negative");
    o.options.free_dimension_overrides[n] = value;
  });
}

KilnStatus* KILN_API_CALL AddSessionConfigEntry(KilnSessionOptions* options, const char* key,
                                                const char* value) {
  return Guard("AddSessionConfigEntry", [&] {
    auto& o = Unwrap(options, "options");
    const std::string k = CheckedUtf8(key, "key");
    const std::string v = CheckedUtf8(value, "value");
    o.options.AddConfig(k, v);
  });
}

void KILN_API_CALL ReleaseSessionOptions(KilnSessionOptions* options) {
  Release(options, "ReleaseSessionOptions");
}

}  // namespace kiln::api
