// Session and run options as plain values (DESIGN §3.11): copied into a session at creation.
#ifndef KILN_RUNTIME_OPTIONS_H_
#define KILN_RUNTIME_OPTIONS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/logging.h"

namespace kiln::runtime {

// A config key Kiln understands, with what it does: the one list AddConfigEntry checks against.
struct ConfigKey {
  const char* key;
  const char* values;  // accepted values, for messages
  const char* meaning;
};

// Every key AddConfigEntry accepts.
const std::vector<ConfigKey>& KnownConfigKeys();

struct SessionOptions {
  int intra_op_threads = 0;  // 0: one per hardware thread
  int optimization_level = 3;
  LogLevel log_level = LogLevel::kWarning;
  std::string log_id;
  std::string profile_prefix;  // empty: profiling off
  // Where the session writes its graph as optimized, at creation (onnx/writer.h); empty: not.
  std::string optimized_model_path;
  std::map<std::string, int64_t> free_dimension_overrides;
  std::map<std::string, std::string> config;

  // Validates `key` against KnownConfigKeys() and `value` against its accepted values; throws
  // kInvalidArgument naming the key.
  void AddConfig(const std::string& key, const std::string& value);
  // The value of a boolean config key ("0"/"1"), `fallback` when unset.
  bool ConfigFlag(const std::string& key, bool fallback) const;
};

struct RunOptions {
  std::string tag;
  LogLevel log_level = LogLevel::kWarning;
  std::atomic<bool> terminate{false};

  RunOptions() = default;
  RunOptions(const RunOptions& other)
      : tag(other.tag), log_level(other.log_level), terminate(other.terminate.load()) {}
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_OPTIONS_H_
