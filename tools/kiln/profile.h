// The profiled pass of `kiln profile` and `kiln bench --profile`: a session made with Kiln's
// profiler on, a few warm-up runs, K profiled runs, then the tables of profile_report.h and the
// Chrome trace the profiler wrote.
//
//   ProfilePlan plan{model, config, specs, seed, /*warmup=*/1, /*iters=*/10,
//                    ParseProfileOptions(args)};
//   RunProfiledPass(env, plan, progress, std::cout);
#ifndef KILN_TOOLS_KILN_PROFILE_H_
#define KILN_TOOLS_KILN_PROFILE_H_

#include <kiln/kiln_cxx_api.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "inputs.h"
#include "progress.h"

namespace kiln::cli {

// What the tables show and where the trace goes.
struct ProfileOptions {
  int64_t top = 20;   // --top N: the nodes listed
  std::string trace;  // --trace PATH; "" leaves the trace where Kiln wrote it
};

// The options both commands take for the tables, as OptionSpec entries and as help text.
inline constexpr OptionSpec kProfileOptionSpecs[] = {{"--top", true, false},
                                                     {"--trace", true, false}};
inline constexpr char kProfileOptionsHelp[] =
    R"(  --top N             list the N nodes that took longest (default 20)
  --trace PATH        write the Chrome trace (one event per node run, warm-up runs included)
                      to PATH; by default it stays where Kiln's profiler wrote it,
                      ./kiln_profile_<time>_<n>.json
)";

// Reads --top N (1 to 1000000) and --trace PATH; throws UsageError.
ProfileOptions ParseProfileOptions(const Args& args);

// Everything a profiled pass needs.
struct ProfilePlan {
  std::string model;
  SessionConfig config;
  std::vector<InputSpec> specs;
  uint64_t seed = 0;
  int64_t warmup = 1;
  int64_t iters = 10;
  ProfileOptions options;
};

// Makes a session with profiling on, runs it warmup + iters times (inputs as PrepareInputs
// makes them), ends profiling, and prints to `out`: a header (runs, threads, wall and summed node
// time per run), the tables of the profiled runs (the warm-up runs left out), and the trace's
// path. Throws Error (or kiln::Exception) on failure; a --trace that cannot be written fails
// before the model is loaded.
void RunProfiledPass(const kiln::Env& env, const ProfilePlan& plan, Progress& progress,
                     std::ostream& out);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_PROFILE_H_
