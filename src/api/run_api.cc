// Entries: CreateRunOptions … ReleaseRunOptions, Run (slots 66-72).
#include <memory>
#include <string>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/run_arguments.h"
#include "api/status.h"
#include "core/thread_cache.h"

namespace kiln::api {

KilnStatus* KILN_API_CALL CreateRunOptions(KilnRunOptions** out) {
  return Guard("CreateRunOptions", [&] {
    CheckOut(out, "out");
    auto options = std::make_unique<KilnRunOptions>();
    options->options = std::make_shared<runtime::RunOptions>();
    Publish(std::move(options), out);
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetRunTag(KilnRunOptions* options, const char* tag) {
  return Guard("RunOptionsSetRunTag", [&] {
    auto& o = Unwrap(options, "options");
    std::string t = CheckedUtf8(tag, "tag");
    o.options->tag = std::move(t);
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetRunLogSeverityLevel(KilnRunOptions* options,
                                                           KilnLoggingLevel severity) {
  return Guard("RunOptionsSetRunLogSeverityLevel", [&] {
    auto& o = Unwrap(options, "options");
    o.options->log_level = CheckedLevel(severity, "severity");
  });
}

KilnStatus* KILN_API_CALL RunOptionsSetTerminate(KilnRunOptions* options) {
  return Guard("RunOptionsSetTerminate",
               [&] { Unwrap(options, "options").options->terminate.store(true); });
}

KilnStatus* KILN_API_CALL RunOptionsUnsetTerminate(KilnRunOptions* options) {
  return Guard("RunOptionsUnsetTerminate",
               [&] { Unwrap(options, "options").options->terminate.store(false); });
}

void KILN_API_CALL ReleaseRunOptions(KilnRunOptions* options) {
  Release(options, "ReleaseRunOptions");
}

KilnStatus* KILN_API_CALL Run(KilnSession* session, const KilnRunOptions* run_options,
                              const char* const* input_names, const KilnValue* const* inputs,
                              size_t input_count, const char* const* output_names,
                              size_t output_count, KilnValue** outputs) {
  // The thread's argument lists, kept for its next Run (ThreadCache, not thread_local: the library
  // must stay unloadable after a Run on the host's thread).
  thread_local bool thread_arguments_in_use = false;
  return Guard("Run", [&] {
    // A Run from inside a Run on this thread (a log callback calling Run) gets its own lists.
    RunArguments nested_arguments;
    RunArguments& args = thread_arguments_in_use ? nested_arguments : ThreadCacheOf<RunArguments>();
    struct ClearOnExit {
      RunArguments& a;
      bool& in_use;
      bool was_in_use;
      ~ClearOnExit() {
        a.Clear();
        in_use = was_in_use;
      }
    } clear_on_exit{args, thread_arguments_in_use, thread_arguments_in_use};
    thread_arguments_in_use = true;
    const auto& s = Unwrap(session, "session");
    const runtime::RunOptions& ro =
        run_options != nullptr ? *Unwrap(run_options, "run_options").options : DefaultRunOptions();
    CheckRunArguments(input_names, inputs, input_count, output_names, output_count, outputs, args);
    RunAndFill(*s.session, s.logger, ro, args, outputs);
  });
}

}  // namespace kiln::api
