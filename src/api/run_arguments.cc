#include "api/run_arguments.h"

#include <algorithm>

#include "core/unload.h"
#include "core/utf8.h"

namespace kiln::api {
namespace {

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

void RunArguments::Clear() noexcept {
  inputs.clear();
  results.clear();
  others.clear();
  made.clear();
}

void CheckRunArguments(const char* const* input_names, const KilnValue* const* inputs,
                       size_t input_count, const char* const* output_names, size_t output_count,
                       KilnValue* const* outputs, RunArguments& args) {
  if (input_count == 0) {
    args.input_names.clear();
  } else {
    CheckNames(input_names, input_count, "input_names", args.input_names);
  }
  if (input_count != 0 && inputs == nullptr) ThrowInvalidArgument("inputs", "is NULL");
  for (size_t i = 0; i < input_count; ++i) {
    const KilnValue& v = UnwrapEntry(inputs[i], "inputs", i);
    args.inputs.push_back(v.tensor != nullptr ? Value(v.tensor) : v.other);
  }
  if (output_count == 0) ThrowInvalidArgument("output_count", "is 0");
  CheckNames(output_names, output_count, "output_names", args.output_names);
  if (outputs == nullptr) ThrowInvalidArgument("outputs", "is NULL");
  for (size_t i = 0; i < output_count; ++i) {
    std::shared_ptr<Tensor> given;
    if (outputs[i] != nullptr) {
      const KilnValue& v = UnwrapEntry(outputs[i], "outputs", i);
      RefuseReadOnly(v, "outputs");
      given = v.tensor;
      if (given == nullptr) {
        ThrowInvalidArgument("outputs", "entry " + std::to_string(i) +
                                            " is not a tensor; only tensors can be written into");
      }
    }
    args.results.push_back(std::move(given));
  }
}

const runtime::RunOptions& DefaultRunOptions() {
  // Freed when the library is unloaded (core/unload.h).
  static const runtime::RunOptions* const kDefaults = KeepUntilUnload(new runtime::RunOptions());
  return *kDefaults;
}

void LogRun(const Logger& session_logger, const runtime::RunOptions& run, size_t input_count,
            size_t output_count) {
  const LogLevel level = std::min(session_logger.min_level(), run.log_level);
  if (level > LogLevel::kVerbose) return;
  const std::string message = "run" + (run.tag.empty() ? std::string() : " '" + run.tag + "'") +
                              ": " + std::to_string(input_count) + " inputs, " +
                              std::to_string(output_count) + " outputs";
  Logger(level, session_logger.id(), session_logger.sink())
      .Log(LogLevel::kVerbose, "kiln.run", KILN_LOCATION, message.c_str());
}

void RunAndFill(const runtime::Session& session, const Logger& session_logger,
                const runtime::RunOptions& run, RunArguments& args, KilnValue** outputs) {
  const size_t output_count = args.output_names.size();
  args.others.resize(output_count);
  LogRun(session_logger, run, args.input_names.size(), output_count);
  // Handles for the empty slots are made and registered before the run, so nothing can fail
  // once the run has written the caller's tensors.
  args.made.resize(output_count);
  size_t registered = 0;
  try {
    for (size_t i = 0; i < output_count; ++i) {
      if (args.results[i] != nullptr) continue;  // a caller's tensor
      args.made[i] = std::make_unique<KilnValue>();
      registry::Add(args.made[i].get(), HandleKind::kValue);
      registered = i + 1;
    }
    session.Run(run, args.input_names, args.inputs, args.output_names, args.results, args.others);
  } catch (...) {
    for (size_t i = 0; i < registered; ++i) {
      if (args.made[i] != nullptr) registry::Remove(args.made[i].get(), HandleKind::kValue);
    }
    throw;
  }
  for (size_t i = 0; i < output_count; ++i) {
    if (args.made[i] == nullptr) continue;
    args.made[i]->tensor = std::move(args.results[i]);
    args.made[i]->other = std::move(args.others[i]);
    outputs[i] = args.made[i].release();
  }
}

}  // namespace kiln::api
