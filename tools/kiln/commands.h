// The subcommands of `kiln` and what they share. Each command takes the arguments after its
// name, prints to stdout, throws UsageError or Error (or kiln::Exception) on failure, and
// returns the exit status.
#ifndef KILN_TOOLS_KILN_COMMANDS_H_
#define KILN_TOOLS_KILN_COMMANDS_H_

#include <kiln/kiln_cxx_api.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "args.h"

namespace kiln::cli {

int InfoCommand(std::span<const std::string> argv);
int RunCommand(std::span<const std::string> argv);
int BenchCommand(std::span<const std::string> argv);
int PrintCommand(std::span<const std::string> argv);
int ConvertCommand(std::span<const std::string> argv);
int ProfileCommand(std::span<const std::string> argv);

// How the commands that run a model create their session.
struct SessionConfig {
  int threads = 0;       // 0: Kiln's default, one per hardware thread
  int optimization = 3;  // KilnGraphOptimizationLevel
  std::vector<std::pair<std::string, std::string>> entries;  // --config KEY=VALUE
  std::vector<std::string> custom_op_libraries;              // --custom-op-library PATH
};

// Reads --threads N, --optimization L (0-3, or disable, basic, extended, all), each
// --config KEY=VALUE (a session configuration entry) and each --custom-op-library PATH.
SessionConfig ParseSessionConfig(const Args& args);

// The intra-op thread count a session with this config uses.
int EffectiveThreads(const SessionConfig& config);

// Session options with the config's threads, optimization level, entries and custom op
// libraries; a library that fails to load is reported as "--custom-op-library 'PATH': <why>".
kiln::SessionOptions MakeSessionOptions(const SessionConfig& config);

// Loads a model; Kiln's error is reported as "cannot load 'PATH': <Kiln's message>". A non-empty
// `profile_prefix` turns Kiln's profiler on (EnableProfiling).
kiln::Session OpenSession(const kiln::Env& env, const std::string& path,
                          const SessionConfig& config, const std::string& profile_prefix = "");

// The single positional argument MODEL; throws UsageError for none or more than one.
std::string ModelArgument(const Args& args, const std::string& command);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_COMMANDS_H_
