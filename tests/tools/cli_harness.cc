#include "cli_harness.h"

#include <fcntl.h>
#include <pty.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "test_models.h"

namespace kiln::test {
namespace {

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}

  JsonValue Document() {
    JsonValue v = Value();
    Space();
    if (pos_ != s_.size()) Fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw std::runtime_error("bad JSON at offset " + std::to_string(pos_) + ": " + why);
  }
  void Space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Take(char c) {
    Space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Take(c)) Fail(std::string("expected '") + c + "'");
  }
  bool Word(const char* w) {
    const std::string word(w);
    if (s_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }
  std::string String() {
    Expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) Fail("a raw control character in a string");
      if (c == '\\') {
        if (pos_ >= s_.size()) Fail("a string ends in '\\'");
        c = s_[pos_++];
        switch (c) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'u': {
            if (pos_ + 4 > s_.size()) Fail("a short \\u escape");
            const long code = std::strtol(s_.substr(pos_, 4).c_str(), nullptr, 16);
            if (code >= 0x80) Fail("\\u escapes above 0x7f are not needed by these tests");
            out += static_cast<char>(code);
            pos_ += 4;
            break;
          }
          default:
            out += c;
        }
      } else {
        out += c;
      }
    }
    if (pos_ >= s_.size()) Fail("a string is not closed");
    ++pos_;
    return out;
  }
  JsonValue Value() {
    Space();
    JsonValue v;
    if (pos_ >= s_.size()) Fail("it ends early");
    const char c = s_[pos_];
    if (c == '{') {
      v.kind = JsonValue::kObject;
      ++pos_;
      if (Take('}')) return v;
      do {
        v.keys.push_back(String());
        Expect(':');
        v.values.push_back(Value());
      } while (Take(','));
      Expect('}');
    } else if (c == '[') {
      v.kind = JsonValue::kArray;
      ++pos_;
      if (Take(']')) return v;
      do {
        v.items.push_back(Value());
      } while (Take(','));
      Expect(']');
    } else if (c == '"') {
      v.kind = JsonValue::kString;
      v.text = String();
    } else if (Word("true") || Word("false")) {
      v.kind = JsonValue::kBool;
      v.flag = c == 't';
    } else if (Word("null")) {
      v.kind = JsonValue::kNull;
    } else {
      char* end = nullptr;
      v.kind = JsonValue::kNumber;
      v.number = std::strtod(s_.c_str() + pos_, &end);
      if (end == s_.c_str() + pos_) Fail("expected a value");
      pos_ = static_cast<size_t>(end - s_.c_str());
    }
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

bool JsonValue::Has(const std::string& key) const {
  for (const std::string& k : keys) {
    if (k == key) return true;
  }
  return false;
}

const JsonValue& JsonValue::At(const std::string& key) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return values[i];
  }
  throw std::runtime_error("no JSON member '" + key + "'");
}

JsonValue ParseJson(const std::string& text) {
  return JsonParser(text).Document();
}

std::filesystem::path TestDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

namespace {

CliResult Spawn(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                bool stdout_on_terminal, bool stderr_on_terminal);

// Runs the command in a fresh working folder and fails the test if it leaves anything there.
CliResult SpawnInScratch(const std::vector<std::string>& args, bool stdout_on_terminal,
                         bool stderr_on_terminal) {
  const std::filesystem::path cwd =
      std::filesystem::path(KILN_TEST_TMP_DIR) / "process" / ("cwd_" + std::to_string(getpid()));
  std::filesystem::remove_all(cwd);
  std::filesystem::create_directories(cwd);
  CliResult r = Spawn(cwd, args, stdout_on_terminal, stderr_on_terminal);
  std::string left;
  for (const auto& entry : std::filesystem::directory_iterator(cwd)) {
    left += " '" + entry.path().filename().string() + "'";
  }
  std::filesystem::remove_all(cwd);
  if (!left.empty()) ADD_FAILURE() << "the command left files in its working folder:" << left;
  return r;
}

}  // namespace

CliResult RunKiln(const std::vector<std::string>& args) {
  return SpawnInScratch(args, false, false);
}

CliResult RunKilnIn(const std::filesystem::path& cwd, const std::vector<std::string>& args) {
  return Spawn(cwd, args, false, false);
}

CliResult RunKilnOnTerminal(const std::vector<std::string>& args, bool stdout_on_terminal,
                            bool stderr_on_terminal) {
  return SpawnInScratch(args, stdout_on_terminal, stderr_on_terminal);
}

namespace {

CliResult Spawn(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                bool stdout_on_terminal, bool stderr_on_terminal) {
  const std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / "process";
  std::filesystem::create_directories(dir);
  const std::string tag = std::to_string(getpid());
  const std::filesystem::path out_path = dir / ("stdout_" + tag);
  const std::filesystem::path err_path = dir / ("stderr_" + tag);
  std::vector<std::string> argv_storage = {KILN_CLI_PATH};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argv_storage.size() + 1);
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  const bool terminal = stdout_on_terminal || stderr_on_terminal;
  int master = -1;
  int slave = -1;
  if (terminal && openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
    throw std::runtime_error("openpty failed");
  }

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int out =
        stdout_on_terminal ? slave : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err =
        stderr_on_terminal ? slave : open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
    if (terminal) {
      close(master);
      close(slave);
    }
    if (chdir(cwd.c_str()) != 0) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::string seen;  // what the terminal received
  if (terminal) {
    close(slave);
    char buf[4096];
    while (true) {
      const ssize_t n = read(master, buf, sizeof buf);
      if (n > 0) {
        seen.append(buf, static_cast<size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        break;  // EIO once the child has exited and closed the terminal
      }
    }
    close(master);
  }
  int wstatus = 0;
  rusage usage{};
  if (wait4(pid, &wstatus, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  CliResult r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  r.peak_rss_kb = usage.ru_maxrss;
  r.out = stdout_on_terminal ? seen : ReadBytes(out_path);
  r.err = stderr_on_terminal ? (stdout_on_terminal ? std::string() : seen) : ReadBytes(err_path);
  std::error_code ec;  // read: not left behind
  std::filesystem::remove(out_path, ec);
  std::filesystem::remove(err_path, ec);
  return r;
}

}  // namespace

}  // namespace kiln::test
