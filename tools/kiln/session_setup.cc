#include <algorithm>
#include <thread>

#include "commands.h"

namespace kiln::cli {

SessionConfig ParseSessionConfig(const Args& args) {
  SessionConfig config;
  config.threads = static_cast<int>(ParseInt("--threads", args.Value("--threads", "0"), 0, 1024));
  for (const std::string& entry : args.Values("--config")) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--config '" + entry + "': expected KEY=VALUE");
    }
    config.entries.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
  }
  config.custom_op_libraries = args.Values("--custom-op-library");
  const std::string level = args.Value("--optimization", "3");
  constexpr const char* kNames[] = {"disable", "basic", "extended", "all"};
  for (int i = 0; i < 4; ++i) {
    if (level == kNames[i]) {
      config.optimization = i;
      return config;
    }
  }
  config.optimization = static_cast<int>(ParseInt("--optimization", level, 0, 3));
  return config;
}

int EffectiveThreads(const SessionConfig& config) {
  if (config.threads > 0) return config.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

kiln::SessionOptions MakeSessionOptions(const SessionConfig& config) {
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(config.threads);
  options.SetGraphOptimizationLevel(static_cast<KilnGraphOptimizationLevel>(config.optimization));
  for (const auto& [key, value] : config.entries) options.AddConfigEntry(key, value);
  for (const std::string& library : config.custom_op_libraries) {
    try {
      options.RegisterCustomOpsLibrary(library);
    } catch (const kiln::Exception& e) {
      throw Error("--custom-op-library '" + library + "': " + e.what());
    }
  }
  return options;
}

kiln::Session OpenSession(const kiln::Env& env, const std::string& path,
                          const SessionConfig& config, const std::string& profile_prefix) {
  try {
    kiln::SessionOptions options = MakeSessionOptions(config);
    if (!profile_prefix.empty()) options.EnableProfiling(profile_prefix);
    return kiln::Session::Create(env, path, options);
  } catch (const kiln::Exception& e) {
    throw Error("cannot load '" + path + "': " + e.what());
  }
}

std::string ModelArgument(const Args& args, const std::string& command) {
  if (args.positional.empty()) throw UsageError("'kiln " + command + "' needs a MODEL");
  if (args.positional.size() > 1) {
    throw UsageError("'kiln " + command + "' takes one MODEL; unexpected '" + args.positional[1] +
                     "'");
  }
  return args.positional[0];
}

}  // namespace kiln::cli
