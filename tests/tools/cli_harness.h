// Running the `kiln` binary from tests, and reading the JSON it prints.
//
//   CliResult r = RunKiln({"info", model, "--json"});
//   EXPECT_EQ(r.status, 0) << r.err;
//   JsonValue j = ParseJson(r.out);
//   j.At("inputs").items[0].At("name").text;
#ifndef KILN_TESTS_TOOLS_CLI_HARNESS_H_
#define KILN_TESTS_TOOLS_CLI_HARNESS_H_

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test {

// What a finished `kiln` process left: its exit status (-1 when it did not exit normally, e.g.
// killed by a signal) and everything it wrote to stdout and stderr.
struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
  long peak_rss_kb = 0;  // the process's peak resident set (wait4's ru_maxrss), KiB
};

// Runs the `kiln` binary (KILN_CLI_PATH, set by the build) with `args`, no shell involved, in a
// fresh empty working folder of its own (under the build tree's temporary folder), so that
// nothing it writes by default lands in the test's working folder or the source tree. The test
// fails if the command leaves anything in that folder; the folder is removed either way.
CliResult RunKiln(const std::vector<std::string>& args);

// As RunKiln, but in the working folder `cwd` (which must exist), left as the command leaves it:
// for a command whose files go to the current folder by default.
CliResult RunKilnIn(const std::filesystem::path& cwd, const std::vector<std::string>& args);

// As RunKiln, but with stdout and/or stderr on a pseudo-terminal (a terminal's line discipline:
// "\n" arrives as "\r\n"). When both are, everything arrives in `out` in the order written and
// `err` is empty; otherwise the one not on the terminal goes to a file as with RunKiln.
CliResult RunKilnOnTerminal(const std::vector<std::string>& args, bool stdout_on_terminal,
                            bool stderr_on_terminal);

// A fresh, empty folder for one test, under the build tree's temporary folder; removed and
// recreated on each call with the same name.
std::filesystem::path TestDir(const std::string& name);

// A parsed JSON value: enough of JSON for checking the tool's output.
struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool flag = false;
  double number = 0;
  std::string text;
  std::vector<JsonValue> items;
  std::vector<std::string> keys;  // an object's keys, in document order
  std::vector<JsonValue> values;  // the value of each key

  bool Has(const std::string& key) const;
  // The member `key` of an object; throws std::runtime_error when there is none.
  const JsonValue& At(const std::string& key) const;
};

// Parses one JSON document (surrounding whitespace allowed); throws std::runtime_error.
JsonValue ParseJson(const std::string& text);

}  // namespace kiln::test

#endif  // KILN_TESTS_TOOLS_CLI_HARNESS_H_
