#include "args.h"

#include <cerrno>
#include <cstdlib>

namespace kiln::cli {
namespace {

std::string UnknownOption(const std::string& command, const std::string& name) {
  return "'kiln " + command + "' has no option '" + name + "'";
}

}  // namespace

bool Args::Has(const std::string& name) const {
  for (const auto& [n, v] : options) {
    if (n == name) return true;
  }
  return false;
}

std::string Args::Value(const std::string& name, const std::string& fallback) const {
  for (const auto& [n, v] : options) {
    if (n == name) return v;
  }
  return fallback;
}

std::vector<std::string> Args::Values(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [n, v] : options) {
    if (n == name) values.push_back(v);
  }
  return values;
}

Args ParseArgs(const std::string& command, std::span<const std::string> argv,
               std::span<const OptionSpec> specs) {
  Args args;
  bool options_ended = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      args.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      args.help = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (name == s.name) spec = &s;
    }
    if (spec == nullptr) throw UsageError(UnknownOption(command, name));
    std::string value;
    if (spec->takes_value) {
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < argv.size()) {
        value = argv[++i];
      } else {
        throw UsageError("option '" + name + "' needs a value");
      }
    } else if (eq != std::string::npos) {
      throw UsageError("option '" + name + "' takes no value");
    }
    if (!spec->repeatable && args.Has(name)) {
      throw UsageError("option '" + name + "' is given more than once");
    }
    args.options.emplace_back(name, value);
  }
  return args;
}

int64_t ParseInt(const std::string& option, const std::string& text, int64_t min, int64_t max) {
  const std::string range = std::to_string(min) + " to " + std::to_string(max);
  if (text.empty()) throw UsageError("option '" + option + "' needs a number (" + range + ")");
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  const bool starts_well = text[0] == '-' || (text[0] >= '0' && text[0] <= '9');
  if (!starts_well || end != text.c_str() + text.size() || errno == ERANGE || v < min || v > max) {
    throw UsageError("option '" + option + "': '" + text + "' is not a whole number from " + range);
  }
  return v;
}

uint64_t ParseUint64(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || text[0] == '+' || end != text.c_str() + text.size() ||
      errno == ERANGE) {
    throw UsageError("option '" + option + "': '" + text +
                     "' is not a whole number from 0 to 18446744073709551615");
  }
  return v;
}

}  // namespace kiln::cli
