// What Run and RunAsync share: their checked arguments as the engine takes them, and the run that
// fills the caller's output slots.
//
//   RunArguments args;
//   CheckRunArguments(input_names, inputs, input_count, output_names, output_count, outputs, args);
//   RunAndFill(*s.session, s.logger, options, args, outputs);  // writes outputs only on success
#ifndef KILN_API_RUN_ARGUMENTS_H_
#define KILN_API_RUN_ARGUMENTS_H_

#include <memory>
#include <string>
#include <vector>

#include "api/handles.h"

namespace kiln::api {

// One run's checked arguments. Reused (by Run, per thread), so a steady-state run with caller-given
// outputs allocates nothing here once the names have been seen.
struct RunArguments {
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<Value> inputs;                     // shared with the caller's values
  std::vector<std::shared_ptr<Tensor>> results;  // the caller's output tensors; null: empty slot
  std::vector<Value> others;
  std::vector<std::unique_ptr<KilnValue>> made;

  // Drops the references, keeps the capacity.
  void Clear() noexcept;
};

// Checks Run's arguments other than the session and the run options into `args` (which must be
// clear), naming them: NULL arrays and entries, names that are not UTF-8, output_count 0, output
// slots that are not tensors. Names are checked against the model by the run.
void CheckRunArguments(const char* const* input_names, const KilnValue* const* inputs,
                       size_t input_count, const char* const* output_names, size_t output_count,
                       KilnValue* const* outputs, RunArguments& args);

// The run options a NULL KilnRunOptions stands for. Never destroyed.
const runtime::RunOptions& DefaultRunOptions();

// Logs a verbose "run" line when the more verbose of the session's and the run's levels allows it.
void LogRun(const Logger& session_logger, const runtime::RunOptions& run, size_t input_count,
            size_t output_count);

// Runs `session` with checked arguments. On success the caller's tensors are written and each
// empty slot of `outputs` receives a new, registered value; on failure nothing is written.
void RunAndFill(const runtime::Session& session, const Logger& session_logger,
                const runtime::RunOptions& run, RunArguments& args, KilnValue** outputs);

}  // namespace kiln::api

#endif  // KILN_API_RUN_ARGUMENTS_H_
