// Entries: CreateRunOptions … ReleaseRunOptions, Run (slots 66-72).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {
namespace {

std::vector<std::string> CheckedNames(const char* const* names, size_t count,
                                      const char* argument) {
  if (names == nullptr) ThrowInvalidArgument(argument, "is NULL");
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " is NULL");
    }
    out.push_back(CheckedUtf8(names[i], argument));
  }
  return out;
}

}  // namespace

KilnStatus* KILN_API_CALL CreateRunOptions(KilnRunOptions** out) {
  return Guard("CreateRunOptions", [&] {
    CheckOut(out, "out");
    Publish(std::make_unique<KilnRunOptions>(), out);
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetRunTag(KilnRunOptions* options, const char* tag) {
  return Guard("RunOptionsSetRunTag", [&] {
    auto& o = Unwrap(options, "options");
    std::string t = CheckedUtf8(tag, "tag");
    o.options.tag = std::move(t);
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetRunLogSeverityLevel(KilnRunOptions* options,
                                                           KilnLoggingLevel severity) {
  return Guard("RunOptionsSetRunLogSeverityLevel", [&] {
    auto& o = Unwrap(options, "options");
    o.options.log_level = CheckedLevel(severity, "severity");
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetTerminate(KilnRunOptions* options) {
  return Guard("RunOptionsSetTerminate",
               [&] { Unwrap(options, "options").options.terminate.store(true); });
}

KilnStatus* KILN_API_CALL RunOptionsUnsetTerminate(KilnRunOptions* options) {
  return Guard("RunOptionsUnsetTerminate",
               [&] { Unwrap(options, "options").options.terminate.store(false); });
}

void KILN_API_CALL ReleaseRunOptions(KilnRunOptions* options) {
  Release(options, "ReleaseRunOptions");
}

KilnStatus* KILN_API_CALL Run(KilnSession* session, const KilnRunOptions* run_options,
                              const char* const* input_names, const KilnValue* const* inputs,
                              size_t input_count, const char* const* output_names,
                              size_t output_count, KilnValue** outputs) {
  return Guard("Run", [&] {
    const auto& s = Unwrap(session, "session");
    static const runtime::RunOptions kDefaults;
    const runtime::RunOptions& ro =
        run_options != nullptr ? Unwrap(run_options, "run_options").options : kDefaults;
    const std::vector<std::string> in_names =
        input_count == 0 ? std::vector<std::string>()
                         : CheckedNames(input_names, input_count, "input_names");
    std::vector<std::shared_ptr<Tensor>> in_values;
    if (input_count != 0 && inputs == nullptr) ThrowInvalidArgument("inputs", "is NULL");
    for (size_t i = 0; i < input_count; ++i) {
      if (inputs[i] == nullptr)
        ThrowInvalidArgument("inputs", "entry " + std::to_string(i) + " is NULL");
      const std::string arg = "inputs[" + std::to_string(i) + "]";
      in_values.push_back(Unwrap(inputs[i], arg.c_str()).tensor);
    }
    if (output_count == 0) ThrowInvalidArgument("output_count", "is 0");
    const std::vector<std::string> out_names =
        CheckedNames(output_names, output_count, "output_names");
    if (outputs == nullptr) ThrowInvalidArgument("outputs", "is NULL");
    std::vector<std::shared_ptr<Tensor>> results(output_count);
    for (size_t i = 0; i < output_count; ++i) {
      if (outputs[i] != nullptr) {
        const std::string arg = "outputs[" + std::to_string(i) + "]";
        results[i] = Unwrap(outputs[i], arg.c_str()).tensor;
      }
    }
    // A run logs at the more verbose of the session's and the run's levels.
    const LogLevel level = std::min(s.logger.min_level(), ro.log_level);
    if (level <= LogLevel::kVerbose) {
      const std::string message = "run" + (ro.tag.empty() ? std::string() : " '" + ro.tag + "'") +
                                  ": " + std::to_string(input_count) + " inputs, " +
                                  std::to_string(output_count) + " outputs";
      Logger(level, s.logger.id(), s.logger.sink())
          .Log(LogLevel::kVerbose, "kiln.run", KILN_LOCATION, message.c_str());
    }
    std::vector<std::shared_ptr<Tensor>> produced =
        s.session->Compute(ro, in_names, in_values, out_names, results);
    // New values for the empty slots, registered before anything is written anywhere, so an
    // allocation failing here leaves the caller's slots and tensors untouched.
    std::vector<std::unique_ptr<KilnValue>> made(output_count);
    for (size_t i = 0; i < output_count; ++i) {
      if (outputs[i] == nullptr) made[i] = std::unique_ptr<KilnValue>(new KilnValue{produced[i]});
    }
    std::vector<KilnValue*> registered;
    registered.reserve(output_count);  // so push_back below cannot throw
    try {
      for (size_t i = 0; i < output_count; ++i) {
        if (made[i] != nullptr) {
          registry::Add(made[i].get(), HandleKind::kValue);
          registered.push_back(made[i].get());
        }
      }
    } catch (...) {
      for (KilnValue* v : registered) registry::Remove(v, HandleKind::kValue);
      throw;
    }
    // Nothing below can fail.
    runtime::Session::WriteInPlace(results, produced);
    for (size_t i = 0; i < output_count; ++i) {
      if (made[i] != nullptr) outputs[i] = made[i].release();
    }
  });
}

}  // namespace kiln::api
