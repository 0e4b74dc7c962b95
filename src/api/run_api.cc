// Entries: CreateRunOptions … ReleaseRunOptions, Run (slots 66-72).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "core/utf8.h"

namespace kiln::api {
namespace {

// What one Run call needs besides its arguments. Kept per thread and reused, so a steady-state
// run with caller-given outputs allocates nothing here once the names have been seen.
struct RunScratch {
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<Value> inputs;
  std::vector<std::shared_ptr<Tensor>> results;
  std::vector<Value> others;
  std::vector<std::unique_ptr<KilnValue>> made;

  void Clear() noexcept {
    inputs.clear();  // drops the references, keeps the capacity
    results.clear();
    others.clear();
    made.clear();
  }
};

// Copies the checked names into `out`, reusing its strings' storage.
void CheckNames(const char* const* names, size_t count, const char* argument,
                std::vector<std::string>& out) {
  if (names == nullptr) ThrowInvalidArgument(argument, "is NULL");
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (names[i] == nullptr) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " is NULL");
    }
    size_t bad = 0;
    if (!IsValidUtf8(names[i], &bad)) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) +
                                         " is not valid UTF-8 (at byte " + std::to_string(bad) +
                                         ")");
    }
    out[i].assign(names[i]);
  }
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
  thread_local RunScratch thread_scratch;
  thread_local bool thread_scratch_in_use = false;
  // A Run from inside a Run on this thread (a log callback calling Run) gets its own lists.
  RunScratch nested_scratch;
  RunScratch& scratch = thread_scratch_in_use ? nested_scratch : thread_scratch;
  return Guard("Run", [&] {
    struct ClearOnExit {
      RunScratch& s;
      bool& in_use;
      bool was_in_use;
      ~ClearOnExit() {
        s.Clear();
        in_use = was_in_use;
      }
    } clear_on_exit{scratch, thread_scratch_in_use, thread_scratch_in_use};
    thread_scratch_in_use = true;
    const auto& s = Unwrap(session, "session");
    static const runtime::RunOptions kDefaults;
    const runtime::RunOptions& ro =
        run_options != nullptr ? Unwrap(run_options, "run_options").options : kDefaults;
    if (input_count == 0) {
      scratch.input_names.clear();
    } else {
      CheckNames(input_names, input_count, "input_names", scratch.input_names);
    }
    if (input_count != 0 && inputs == nullptr) ThrowInvalidArgument("inputs", "is NULL");
    for (size_t i = 0; i < input_count; ++i) {
      const KilnValue& v = UnwrapEntry(inputs[i], "inputs", i);
      scratch.inputs.push_back(v.tensor != nullptr ? Value(v.tensor) : v.other);
    }
    if (output_count == 0) ThrowInvalidArgument("output_count", "is 0");
    CheckNames(output_names, output_count, "output_names", scratch.output_names);
    if (outputs == nullptr) ThrowInvalidArgument("outputs", "is NULL");
    for (size_t i = 0; i < output_count; ++i) {
      std::shared_ptr<Tensor> given;
      if (outputs[i] != nullptr) {
        given = UnwrapEntry(outputs[i], "outputs", i).tensor;
        if (given == nullptr) {
          ThrowInvalidArgument("outputs", "entry " + std::to_string(i) +
                                              " is not a tensor; only tensors can be written into");
        }
      }
      scratch.results.push_back(std::move(given));
    }
    scratch.others.resize(output_count);
    // A run logs at the more verbose of the session's and the run's levels.
    const LogLevel level = std::min(s.logger.min_level(), ro.log_level);
    if (level <= LogLevel::kVerbose) {
      const std::string message = "run" + (ro.tag.empty() ? std::string() : " '" + ro.tag + "'") +
                                  ": " + std::to_string(input_count) + " inputs, " +
                                  std::to_string(output_count) + " outputs";
      Logger(level, s.logger.id(), s.logger.sink())
          .Log(LogLevel::kVerbose, "kiln.run", KILN_LOCATION, message.c_str());
    }
    // Handles for the empty slots are made and registered before the run, so nothing can fail
    // once the run has written the caller's tensors.
    scratch.made.resize(output_count);
    size_t registered = 0;
    try {
      for (size_t i = 0; i < output_count; ++i) {
        if (outputs[i] != nullptr) continue;
        scratch.made[i] = std::make_unique<KilnValue>();
        registry::Add(scratch.made[i].get(), HandleKind::kValue);
        registered = i + 1;
      }
      s.session->Run(ro, scratch.input_names, scratch.inputs, scratch.output_names, scratch.results,
                     scratch.others);
    } catch (...) {
      for (size_t i = 0; i < registered; ++i) {
        if (scratch.made[i] != nullptr) registry::Remove(scratch.made[i].get(), HandleKind::kValue);
      }
      throw;
    }
    for (size_t i = 0; i < output_count; ++i) {
      if (scratch.made[i] == nullptr) continue;
      scratch.made[i]->tensor = std::move(scratch.results[i]);
      scratch.made[i]->other = std::move(scratch.others[i]);
      outputs[i] = scratch.made[i].release();
    }
  });
}

}  // namespace kiln::api
