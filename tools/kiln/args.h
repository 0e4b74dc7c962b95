// Command-line parsing and the errors the `kiln` tool reports.
//
//   const OptionSpec kOptions[] = {{"--threads", true, false}, {"--json", false, false}};
//   Args args = ParseArgs("bench", argv_after_command, kOptions);
//   int threads = static_cast<int>(ParseInt("--threads", args.Value("--threads", "0"), 0, 1024));
#ifndef KILN_TOOLS_KILN_ARGS_H_
#define KILN_TOOLS_KILN_ARGS_H_

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::cli {

// A mistake in how the tool was called (unknown option, missing value, bad number): main prints
// it with a pointer to --help and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Any other failure (unreadable file, bad data): main prints it and exits with status 1.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One option a command accepts.
struct OptionSpec {
  const char* name;  // with its dashes, e.g. "--threads"
  bool takes_value;  // "--threads 4" or "--threads=4"; otherwise a flag
  bool repeatable;   // may be given more than once (e.g. --input)
};

// What a command line says: positional arguments, and options in the order given.
struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options;  // name, value ("" for flags)
  bool help = false;                                         // -h or --help was given

  // Whether the option was given.
  bool Has(const std::string& name) const;
  // The option's value, or `fallback` when it was not given.
  std::string Value(const std::string& name, const std::string& fallback) const;
  // Every value of a repeatable option, in order.
  std::vector<std::string> Values(const std::string& name) const;
};

// Parses the arguments after the command name. Throws UsageError for an unknown option, a
// missing value, a value given to a flag, or a non-repeatable option given twice.
Args ParseArgs(const std::string& command, std::span<const std::string> argv,
               std::span<const OptionSpec> specs);

// Parses a whole decimal integer in [min, max]; throws UsageError naming the option otherwise.
int64_t ParseInt(const std::string& option, const std::string& text, int64_t min, int64_t max);

// Parses a whole decimal unsigned 64-bit integer; throws UsageError naming the option otherwise.
uint64_t ParseUint64(const std::string& option, const std::string& text);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_ARGS_H_
