#include "runtime/options.h"

#include "core/error.h"
#include "core/unload.h"
#include "runtime/memory_budget.h"

namespace kiln::runtime {
namespace {

[[noreturn]] void ThrowBadValue(const ConfigKey& k, const std::string& value) {
  std::string what = "'" + value;
  what += "' is not valid for config key '" + std::string(k.key);
  what += std::string("' (accepted: ") + k.values + ")";
  ThrowInvalidArgument("value", what);
}

const ConfigKey& FindKey(const std::vector<ConfigKey>& known, const std::string& key) {
  for (const ConfigKey& k : known) {
    if (key == k.key) return k;
  }
  std::string names;
  for (const ConfigKey& k : known) names += std::string(names.empty() ? "" : ", ") + k.key;
  ThrowInvalidArgument("key",
                       "'" + key + "' is not a config key Kiln knows (known: " + names + ")");
}

}  // namespace

const std::vector<ConfigKey>& KnownConfigKeys() {
  static const auto* const keys = KeepUntilUnload(new std::vector<ConfigKey>{
      {"kiln.arena.enable", "0 or 1",
       "1 (default): a session keeps freed intermediate buffers and reuses them in later runs; "
       "0: every buffer is returned to the allocator as soon as its last reader is done"},
      {"kiln.run.check_finite", "0 or 1",
       "1: after each node, check its floating-point outputs for NaN and infinity and fail the "
       "run naming the node; 0 (default): no check"},
      {"kiln.compute.bf16", "0 or 1",
       "1: the float products against constant weights (MatMul and Gemm weights, blocked at "
       "optimization level 2 and up, the convolutions made channels-last at level 3, and "
       "MultiHeadAttention's two products) round both operands to bf16 and add the products in "
       "float, on machines with AVX-512 BF16 (elsewhere they stay float); 0 (default): float"},
      {"kiln.graph.keep_loaded", "0 or 1",
       "1: the session keeps the graph as loaded, before optimization, for the graph API's "
       "SessionGetGraph(KILN_GRAPH_LOADED) (initializers are shared with the optimized graph, but "
       "ones the optimizer replaced stay in memory); 0 (default): only the optimized graph"},
      {kMemoryLimitKey, "a decimal number of bytes; 0: no limit",
       "caps the bytes the session holds for activations and kernel scratch, all its runs "
       "together (weights and the outputs handed to the caller excluded): a run that would pass "
       "it fails with OUT_OF_MEMORY naming the node and the size; a model whose planned "
       "activations pass it fails at creation; 0 or unset (default): no limit"},
  });
  return *keys;
}

const std::vector<ConfigKey>& KnownRunConfigKeys() {
  static const auto* const keys = KeepUntilUnload(new std::vector<ConfigKey>{
      {"kiln.run.check_finite", "0 or 1",
       "1: this run checks every node's floating-point outputs for NaN and infinity and fails "
       "naming the node; 0: it does not; unset: the session's kiln.run.check_finite"},
      {"memory.enable_memory_arena_shrinkage", "cpu:0, 0 or empty",
       "cpu:0: once the run is over, the session's caching allocator returns the blocks it keeps "
       "for reuse to the system; 0 or empty (default): it keeps them"},
  });
  return *keys;
}

void CheckConfigKey(const std::vector<ConfigKey>& known, const std::string& key) {
  FindKey(known, key);
}

void SessionOptions::AddConfig(const std::string& key, const std::string& value) {
  const ConfigKey& k = FindKey(KnownConfigKeys(), key);
  if (key == kMemoryLimitKey) {
    ParseMemoryLimit(value);
  } else if (value != "0" && value != "1") {
    ThrowBadValue(k, value);
  }
  config[key] = value;
}

bool SessionOptions::ConfigFlag(const std::string& key, bool fallback) const {
  auto it = config.find(key);
  return it == config.end() ? fallback : it->second == "1";
}

void RunOptions::AddConfig(const std::string& key, const std::string& value) {
  const ConfigKey& k = FindKey(KnownRunConfigKeys(), key);
  int new_check_finite = check_finite;
  bool new_shrink_arena = shrink_arena;
  if (key == "kiln.run.check_finite") {
    if (value != "0" && value != "1") ThrowBadValue(k, value);
    new_check_finite = value == "1" ? 1 : 0;
  } else {  // memory.enable_memory_arena_shrinkage
    if (value != "cpu:0" && value != "0" && !value.empty()) ThrowBadValue(k, value);
    new_shrink_arena = value == "cpu:0";
  }
  config[key] = value;  // may throw: nothing is changed before it
  check_finite = new_check_finite;
  shrink_arena = new_shrink_arena;
}

}  // namespace kiln::runtime
