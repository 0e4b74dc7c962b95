#include "runtime/options.h"

#include "core/error.h"

namespace kiln::runtime {

const std::vector<ConfigKey>& KnownConfigKeys() {
  static const auto* const keys = new std::vector<ConfigKey>{
      {"kiln.arena.enable", "0 or 1",
       "1 (default): a session keeps freed intermediate buffers and reuses them in later runs; "
       "0: every buffer is returned to the allocator as soon as its last reader is done"},
      {"kiln.run.check_finite", "0 or 1",
       "1: after each node, check its floating-point outputs for NaN and infinity and fail the "
       "run naming the node; 0 (default): no check"},
  };
  return *keys;
}

void SessionOptions::AddConfig(const std::string& key, const std::string& value) {
  for (const ConfigKey& k : KnownConfigKeys()) {
    if (key == k.key) {
      if (value != "0" && value != "1") {
        std::string what = "'" + value;
        what += "' is not valid for config key '" + key;
        what += std::string("' (accepted: ") + k.values + ")";
        ThrowInvalidArgument("value", what);
      }
      config[key] = value;
      return;
    }
  }
  std::string known;
  for (const ConfigKey& k : KnownConfigKeys())
    known += std::string(known.empty() ? "" : ", ") + k.key;
  ThrowInvalidArgument("key",
                       "'" + key + "' is not a config key Kiln knows (known: " + known + ")");
}

bool SessionOptions::ConfigFlag(const std::string& key, bool fallback) const {
  auto it = config.find(key);
  return it == config.end() ? fallback : it->second == "1";
}

}  // namespace kiln::runtime
