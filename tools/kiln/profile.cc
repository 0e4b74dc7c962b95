// kiln profile MODEL [--input NAME=FILE]... [--threads N] [--warmup W] [--iters K] [--top N]
//                    [--trace PATH] [options]
#include "profile.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "op_cost.h"
#include "profile_report.h"
#include "tensor_file.h"

namespace kiln::cli {
namespace {

constexpr char kUsageHead[] =
    R"(usage: kiln profile MODEL [--iters K] [--trace PATH] [--top N] [options]

Profiles a model with Kiln's profiler: one session with profiling on, W warm-up runs, then K
profiled runs on the same inputs (random unless given with --input). Prints where the time went,
over the K runs (warm-up left out):
  by op type  nodes, calls, self ms in all and per call, % of the summed self time, GFLOP/s
  by node     the N longest nodes (name, op type), the same columns
each with a totals line. A node's self time is its own: a Loop, If or Scan counts its time less
that of the nodes of its body, which are listed themselves, so nothing is counted twice.
Percentages are of the self time summed over all node runs (on every thread), not of the wall
time of the runs. GFLOP/s counts two operations per multiply-add of the convolutions, matrix
products and attention (Conv, ConvTranspose, MatMul, Gemm, Kiln's fused and quantized forms:
FusedConv, NhwcConv, FusedMatMul, BlockedMatMul, QLinearConv, QGemm, ..., and the two products
of MultiHeadAttention), from the shapes of the graph the session runs (where Kiln's shape
inference does not carry a symbolic dimension through, from a second, unprofiled session with
the fed sizes fixed); "-" where a dimension is not known or the op is not counted. The totals
line's GFLOP/s is the counted operations over all node time. Ends with the path of the Chrome
trace (open it in https://ui.perfetto.dev or chrome://tracing). On a terminal, work that lasts
over half a second shows a progress line on stderr, erased before the tables are printed.

Options:
  --iters K           profiled runs, at least 1 (default 10)
  --warmup W          runs before them, left out of the tables (default 1)
)";

constexpr char kUsageTail[] =
    R"(  --input NAME=FILE   an input's value, as for 'kiln run' (repeatable)
  --threads N         intra-op threads (default 0: one per hardware thread)
  --config KEY=VALUE  a session configuration entry (repeatable; the keys are listed at
                      AddSessionConfigEntry in include/kiln/c/session.h)
  --custom-op-library PATH
                      load custom ops from a shared library (repeatable; a PATH without a
                      slash is searched for as dlopen searches)
  --optimization L    graph optimization level: 0-3 or disable, basic, extended, all
                      (default 3)
  --seed S            seed of the random inputs (default 0)
  -h, --help          print this help
)";

constexpr OptionSpec kOptions[] = {
    {"--iters", true, false},        {"--warmup", true, false},
    {"--top", true, false},          {"--trace", true, false},
    {"--input", true, true},         {"--threads", true, false},
    {"--config", true, true},        {"--custom-op-library", true, true},
    {"--optimization", true, false}, {"--seed", true, false}};

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Fails early, before a long pass, when the trace cannot be written: into --trace's folder
// (Kiln writes it there, then it is renamed to PATH), or without --trace into the current folder.
void CheckWritable(const std::string& trace) {
  if (trace.empty()) {
    if (::access(".", W_OK) != 0) {
      throw Error(std::string("cannot write the trace into the current folder: ") +
                  std::strerror(errno) + " (choose a file with --trace PATH)");
    }
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(trace, ec)) {
    throw Error("--trace '" + trace + "': a folder, not a file");
  }
  const std::string folder = FolderOf(trace);
  if (::access(folder.c_str(), W_OK) != 0) {
    throw Error("--trace '" + trace + "': cannot write into '" + folder +
                "': " + std::strerror(errno));
  }
}

// Moves the trace Kiln wrote to where --trace asked (beside it, so a rename).
void MoveTrace(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) throw Error("--trace '" + to + "': cannot move the trace there: " + ec.message());
}

// Fills the FLOPs that the profiled session's shapes leave unknown from a second session with the
// fed sizes of the symbolic dimensions fixed (made after the first is released, so that two
// copies of the weights are never alive), and says so in a line for the header ("" when it
// filled none).
std::string ShapesFromFixedSession(const kiln::Env& env, const ProfilePlan& plan,
                                   const std::map<std::string, int64_t>& dims,
                                   std::map<std::string, NodeCost>& costs) {
  kiln::SessionOptions options = MakeSessionOptions(plan.config);
  std::string fixed;
  for (const auto& [name, value] : dims) {
    options.AddFreeDimensionOverrideByName(name, value);
    fixed += (fixed.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  }
  int filled = 0;
  try {
    filled = FillFlopsFrom(kiln::Session::Create(env, plan.model, options), costs);
  } catch (const std::exception&) {
    return "";  // the counts stay unknown ("-"): the tables do not depend on them
  }
  if (filled == 0) return "";
  return "shapes for GFLOP/s: " + std::to_string(filled) + " node" + (filled == 1 ? "" : "s") +
         " from a second session with " + fixed + " fixed as fed\n";
}

}  // namespace

ProfileOptions ParseProfileOptions(const Args& args) {
  ProfileOptions options;
  options.top = ParseInt("--top", args.Value("--top", "20"), 1, 1000000);
  options.trace = args.Value("--trace", "");
  if (args.Has("--trace") && options.trace.empty()) {
    throw UsageError("option '--trace' needs a file name");
  }
  return options;
}

void RunProfiledPass(const kiln::Env& env, const ProfilePlan& plan, Progress& progress,
                     std::ostream& out) {
  const ProfileOptions& options = plan.options;
  // Kiln names the file "<prefix>_<time>_<n>.json"; for --trace it is written beside PATH and
  // renamed.
  const std::string prefix = options.trace.empty() ? "kiln_profile" : options.trace + ".kiln";
  CheckWritable(options.trace);
  progress.Phase("loading " + plan.model);
  kiln::Session session = OpenSession(env, plan.model, plan.config, prefix);
  // Where the profiler's clock (event times are microseconds since it started) stands on ours.
  const uint64_t start_ns = session.profiling_start_time_ns();
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const Clock::time_point origin =
      Clock::now() - std::chrono::nanoseconds(now_ns - static_cast<int64_t>(start_ns));

  const std::optional<onnx::ModelProto> proto = DeclarationsIfNeeded(session, plan.model);
  const Inputs in = PrepareInputs(session, plan.specs, plan.seed, proto ? &*proto : nullptr);
  const std::vector<std::string> output_names = session.output_names();
  const auto run_once = [&] {
    try {
      session.Run(in.names, in.values, output_names);
    } catch (const kiln::Exception& e) {
      throw Error(std::string("the run failed: ") + e.what());
    }
    progress.Step();
  };
  progress.Phase("warm-up runs", plan.warmup);
  for (int64_t i = 0; i < plan.warmup; ++i) run_once();
  // A quiet millisecond either side of the boundary, so that no event is near it.
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double from_us = std::chrono::duration<double, std::micro>(Clock::now() - origin).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  progress.Phase("profiled runs", plan.iters);
  double wall_ms = 0;
  double min_ms = 0;
  for (int64_t i = 0; i < plan.iters; ++i) {
    const Clock::time_point start = Clock::now();
    run_once();
    const double ms = MsSince(start);
    wall_ms += ms;
    min_ms = i == 0 ? ms : std::min(min_ms, ms);
  }
  progress.Phase("writing the profile");
  std::string path;
  try {
    path = session.EndProfiling();
  } catch (const kiln::Exception& e) {
    throw Error(std::string("cannot write the profile: ") + e.what());
  }
  if (!options.trace.empty()) {
    MoveTrace(path, options.trace);
    path = options.trace;
  }
  const std::map<std::string, int64_t> dims = FedDimensions(session, in);
  std::map<std::string, NodeCost> costs = NodeCosts(session, dims);
  session = kiln::Session();  // released before a second session is made
  std::string shapes_note;
  if (SomeFlopsUnknown(costs) && !dims.empty()) {
    progress.Phase("shapes for GFLOP/s");
    shapes_note = ShapesFromFixedSession(env, plan, dims, costs);
  }
  const ProfileTables tables = Tabulate(ReadTrace(path), from_us, costs);
  progress.Clear();

  const double runs = static_cast<double>(plan.iters);
  const int threads = EffectiveThreads(plan.config);
  // A stream, not a fixed buffer: the model's path may be of any length.
  std::ostringstream head;
  head << std::fixed << std::setprecision(3) << "profile of " << plan.model << ": " << plan.iters
       << " run" << (plan.iters == 1 ? "" : "s") << " after " << plan.warmup << " warm-up, "
       << threads << " thread" << (threads == 1 ? "" : "s") << "\n"
       << "wall time per run: mean " << wall_ms / runs << " ms, min " << min_ms
       << " ms; node time per run: " << tables.total.total_us / 1e3 / runs
       << " ms (self time summed over nodes and threads)\n";
  out << head.str() << shapes_note << "\n";
  PrintTables(out, tables, options.top);
  out << "\ntrace: " << path
      << " (Chrome trace events; open in https://ui.perfetto.dev or chrome://tracing)\n";
}

int ProfileCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("profile", argv, kOptions);
  if (args.help) {
    std::cout << kUsageHead << kProfileOptionsHelp << kUsageTail;
    return 0;
  }
  ProfilePlan plan;
  plan.model = ModelArgument(args, "profile");
  plan.config = ParseSessionConfig(args);
  plan.iters = ParseInt("--iters", args.Value("--iters", "10"), 1, 1000000);
  plan.warmup = ParseInt("--warmup", args.Value("--warmup", "1"), 0, 1000000);
  plan.specs = ParseInputSpecs(args.Values("--input"));
  plan.seed = ParseUint64("--seed", args.Value("--seed", "0"));
  plan.options = ParseProfileOptions(args);
  const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln-profile");
  Progress progress;
  RunProfiledPass(env, plan, progress, std::cout);
  return 0;
}

}  // namespace kiln::cli
