// kiln bench MODEL [--threads N] [--warmup W] [--iters K] [--json] [--profile [--top N]
//                  [--trace PATH]]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "inputs.h"
#include "json.h"
#include "profile.h"
#include "progress.h"

namespace kiln::cli {
namespace {

constexpr char kUsageHead[] =
    R"(usage: kiln bench MODEL [--threads N] [--warmup W] [--iters K] [--json] [--profile]
                  [options]

Times a model: session creation, the first run, then W warm-up runs and K timed runs on the
same inputs (random unless given with --input). With --profile, a second session with Kiln's
profiler on then makes one warm-up run and K profiled runs, and the tables of 'kiln profile'
(by op type and by node: self ms, % of the summed self time, GFLOP/s) follow the timing; the
timing itself is of the first session, unprofiled, which is released before the second is
made. On a terminal, work that lasts over half a second shows a progress line on stderr (runs
done of K), erased before the results are printed.

Options:
  --threads N         intra-op threads (default 0: one per hardware thread)
  --warmup W          untimed runs after the first (default 5)
  --iters K           timed runs, at least 1 (default 50)
  --json              print one JSON object with the keys load_ms, first_run_ms, min_ms,
                      median_ms, p90_ms, mean_ms, iters, threads, peak_rss_mb
  --profile           also profile the model, as above (not with --json); then:
)";

constexpr char kUsageTail[] =
    R"(  --input NAME=FILE   an input's value, as for 'kiln run' (repeatable)
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
    {"--threads", true, false},  {"--warmup", true, false}, {"--iters", true, false},
    {"--json", false, false},    {"--input", true, true},   {"--optimization", true, false},
    {"--seed", true, false},     {"--config", true, true},  {"--custom-op-library", true, true},
    {"--profile", false, false}, {"--top", true, false},    {"--trace", true, false}};

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Result {
  double load_ms = 0, first_run_ms = 0, min_ms = 0, median_ms = 0, p90_ms = 0, mean_ms = 0;
  int64_t iters = 0;
  int threads = 0;
  double peak_rss_mb = 0;
};

// Order statistics of the timed runs: min, median (the mean of the middle two for an even
// count), p90 by nearest rank, mean.
void Summarise(std::vector<double> times, Result& r) {
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  r.min_ms = times.front();
  r.median_ms = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  const size_t rank = (9 * n + 9) / 10;  // ceil(0.9 n)
  r.p90_ms = times[rank - 1];
  r.mean_ms = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(n);
}

// This process's peak resident set: Linux's VmHWM, which starts afresh at exec (getrusage's
// ru_maxrss also counts the image the parent had before exec, e.g. a Python driver's), else
// ru_maxrss.
double PeakRssMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void PrintJson(const Result& r) {
  std::cout << "{\"load_ms\": " << JsonNumber(r.load_ms)
            << ", \"first_run_ms\": " << JsonNumber(r.first_run_ms)
            << ", \"min_ms\": " << JsonNumber(r.min_ms)
            << ", \"median_ms\": " << JsonNumber(r.median_ms)
            << ", \"p90_ms\": " << JsonNumber(r.p90_ms)
            << ", \"mean_ms\": " << JsonNumber(r.mean_ms) << ", \"iters\": " << r.iters
            << ", \"threads\": " << r.threads
            << ", \"peak_rss_mb\": " << JsonNumber(r.peak_rss_mb, 1) << "}\n";
}

void PrintText(const std::string& model, int64_t warmup, const Result& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "model        %s\n"
                "threads      %d\n"
                "load         %.3f ms\n"
                "first run    %.3f ms\n"
                "timed runs   %lld (after %lld warm-up)\n"
                "  min        %.3f ms\n"
                "  median     %.3f ms\n"
                "  p90        %.3f ms\n"
                "  mean       %.3f ms\n"
                "peak RSS     %.1f MiB\n",
                model.c_str(), r.threads, r.load_ms, r.first_run_ms,
                static_cast<long long>(r.iters), static_cast<long long>(warmup), r.min_ms,
                r.median_ms, r.p90_ms, r.mean_ms, r.peak_rss_mb);
  std::cout << buf;
}

// What one bench times.
struct BenchPlan {
  std::string model;
  SessionConfig config;
  std::vector<InputSpec> specs;
  uint64_t seed = 0;
  int64_t warmup = 0;
  int64_t iters = 0;
};

// Loads the model, runs it once, W times untimed and K times timed, and returns the timings.
// The session, its inputs and anything else read from the model are released on return, before
// a profiled pass makes a second session: two copies of the weights are never alive at once.
Result TimeRuns(const kiln::Env& env, const BenchPlan& plan, Progress& progress) {
  Result r;
  r.iters = plan.iters;
  r.threads = EffectiveThreads(plan.config);
  progress.Phase("loading " + plan.model);
  const Clock::time_point load_start = Clock::now();
  const kiln::Session session = OpenSession(env, plan.model, plan.config);
  r.load_ms = MsSince(load_start);
  const std::optional<onnx::ModelProto> proto = DeclarationsIfNeeded(session, plan.model);
  const Inputs in = PrepareInputs(session, plan.specs, plan.seed, proto ? &*proto : nullptr);
  const std::vector<std::string> output_names = session.output_names();
  // One run, timed from the call until its outputs are released.
  const auto run_once = [&] {
    const Clock::time_point start = Clock::now();
    try {
      session.Run(in.names, in.values, output_names);
    } catch (const kiln::Exception& e) {
      throw Error(std::string("the run failed: ") + e.what());
    }
    const double ms = MsSince(start);
    progress.Step();
    return ms;
  };
  progress.Phase("first run");
  r.first_run_ms = run_once();
  progress.Phase("warm-up runs", plan.warmup);
  for (int64_t i = 0; i < plan.warmup; ++i) run_once();
  std::vector<double> times;
  times.reserve(static_cast<size_t>(plan.iters));
  progress.Phase("timed runs", plan.iters);
  for (int64_t i = 0; i < plan.iters; ++i) times.push_back(run_once());
  Summarise(std::move(times), r);
  r.peak_rss_mb = PeakRssMb();
  return r;
}

}  // namespace

int BenchCommand(std::span<const std::string> argv) {
  const Args args = ParseArgs("bench", argv, kOptions);
  if (args.help) {
    std::cout << kUsageHead << kProfileOptionsHelp << kUsageTail;
    return 0;
  }
  BenchPlan plan;
  plan.model = ModelArgument(args, "bench");
  plan.config = ParseSessionConfig(args);
  plan.warmup = ParseInt("--warmup", args.Value("--warmup", "5"), 0, 1000000);
  plan.iters = ParseInt("--iters", args.Value("--iters", "50"), 1, 1000000);
  plan.specs = ParseInputSpecs(args.Values("--input"));
  plan.seed = ParseUint64("--seed", args.Value("--seed", "0"));
  const bool profile = args.Has("--profile");
  for (const char* option : {"--top", "--trace"}) {
    if (!profile && args.Has(option)) {
      throw UsageError(std::string("option '") + option + "' needs --profile");
    }
  }
  if (profile && args.Has("--json")) throw UsageError("options '--profile' and '--json' conflict");
  const ProfileOptions profile_options = ParseProfileOptions(args);

  const kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "kiln-bench");
  Progress progress;
  const Result r = TimeRuns(env, plan, progress);
  progress.Clear();
  if (args.Has("--json")) {
    PrintJson(r);
  } else {
    PrintText(plan.model, plan.warmup, r);
  }
  if (profile) {
    std::cout << "\nprofiled pass (a second session with the profiler on; the timing above is "
                 "unprofiled)\n"
              << std::flush;
    Progress profile_progress;
    const ProfilePlan profile_plan{plan.model, plan.config, plan.specs,     plan.seed,
                                   1,          plan.iters,  profile_options};
    RunProfiledPass(env, profile_plan, profile_progress, std::cout);
  }
  return 0;
}

}  // namespace kiln::cli
