// Session and run options as plain values (DESIGN §3.11): copied into a session at creation.
#ifndef KILN_RUNTIME_OPTIONS_H_
#define KILN_RUNTIME_OPTIONS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/logging.h"
#include "core/tensor.h"
#include "runtime/custom_op.h"

namespace kiln::runtime {

// A config key Kiln understands, with what it does: the one list AddConfig checks against.
struct ConfigKey {
  const char* key;
  const char* values;  // accepted values, for messages
  const char* meaning;
};

// Every key SessionOptions::AddConfig accepts.
const std::vector<ConfigKey>& KnownConfigKeys();
// Every key RunOptions::AddConfig accepts.
const std::vector<ConfigKey>& KnownRunConfigKeys();
// Throws kInvalidArgument naming argument 'key' unless `key` is in `known`.
void CheckConfigKey(const std::vector<ConfigKey>& known, const std::string& key);

struct SessionOptions {
  int intra_op_threads = 0;  // 0: one per hardware thread
  // Whether independent steps of the main graph run at once (ONNX Runtime's ORT_PARALLEL), on
  // inter_op_threads threads, the caller's included (0: one per hardware thread). With one
  // thread the steps run in order.
  bool parallel = false;
  int inter_op_threads = 0;
  int optimization_level = 3;
  LogLevel log_level = LogLevel::kWarning;
  std::string log_id;
  std::string profile_prefix;  // empty: profiling off
  // Where the session writes its graph as optimized, at creation (onnx/writer.h); empty: not.
  std::string optimized_model_path;
  std::map<std::string, int64_t> free_dimension_overrides;
  // By ONNX dimension denotation ("DATA_BATCH"), keyed in lower case: denotations match
  // whatever their case, as in ONNX Runtime.
  std::map<std::string, int64_t> free_dimension_overrides_by_denotation;
  std::map<std::string, std::string> config;
  // Tensors (the caller's memory, shared) that replace the main graph's initializers of these
  // names; checked against them when the session is made.
  std::map<std::string, std::shared_ptr<const Tensor>> initializers;
  // Custom ops (runtime/custom_op.h), shared with every copy: each keeps its library loaded.
  CustomOps custom_ops;

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
  // The config entries as given (for read-back), and what they mean to a run.
  std::map<std::string, std::string> config;
  int check_finite = -1;      // "kiln.run.check_finite": -1 the session's setting, else 0 or 1
  bool shrink_arena = false;  // "memory.enable_memory_arena_shrinkage" is "cpu:0"

  RunOptions() = default;
  RunOptions(const RunOptions& other)
      : tag(other.tag),
        log_level(other.log_level),
        terminate(other.terminate.load()),
        config(other.config),
        check_finite(other.check_finite),
        shrink_arena(other.shrink_arena) {}

  // Validates `key` against KnownRunConfigKeys() and `value` against its accepted values, then
  // records both; throws kInvalidArgument naming the key or the value.
  void AddConfig(const std::string& key, const std::string& value);
};

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_OPTIONS_H_
