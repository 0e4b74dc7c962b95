// kiln_conformance: runs the ONNX backend test suites through Kiln's C ABI and checks the
// outcome against the expected-failures manifest.
//
//   kiln_conformance --manifest expected.txt --suite onnx-1.12=DIR [--suite LABEL=DIR]...
//                    [--filter REGEX] [--jobs N] [--batch N] [--threads N] [--timeout SECONDS]
//                    [--write-manifest FILE] [--verbose] [--parallel N] [--level N]
//                    [--round-trip DIR [--round-trip-manifest FILE] [--every N]]
//
// --parallel N: every session runs in the parallel execution mode on N inter-op threads
// (KilnApi::SetSessionExecutionMode); the manifest's expectations are the same.
// --level N: sessions use graph optimization level N (0-3; default 3). The same manifest holds at
// every level: a case that passes unoptimized passes with every pass applied, and the reverse.
// --round-trip DIR: each case's session writes its optimized model into DIR and a second session
// loads it (cases.h, RunSettings::round_trip_dir). The cases the manifest lists are not run; the
// others must pass, except those the round-trip manifest lists (same format), which must fail.
// --every N runs every Nth of the cases left (a sample).
//
// Cases run in child processes, --batch of them (default 32) one after another in each, --jobs
// (default 2) children at a time, so a crash or a hang is reported as that case's failure and the
// run goes on (the batch's later cases run in a new child). --inject-crash, --inject-hang,
// --inject-leak, --inject-crash-after-others and --inject-leak-after-others ID are test hooks: the
// case with that id crashes, hangs or leaks memory (the last two only after other cases in its
// process).
//
// The run fails when a case fails that the manifest does not list, when a listed case passes, or
// when the manifest names a case that does not exist. Its last line is "N passed, N failed".
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cases.h"

#if defined(__SANITIZE_ADDRESS__)
#define KILN_RUNNER_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_RUNNER_LSAN 1
#endif
#endif
#ifndef KILN_RUNNER_LSAN
#define KILN_RUNNER_LSAN 0
#endif
#if KILN_RUNNER_LSAN
#include <sanitizer/lsan_interface.h>
#endif

namespace conformance {
namespace {

struct Options {
  std::string manifest;
  std::vector<std::pair<std::string, std::string>> suites;
  std::string filter;
  std::string write_manifest;
  int jobs = 2;
  int batch = 32;  // cases per child process
  int timeout_s = 120;
  RunSettings settings;
  bool verbose = false;
  int every = 1;
  std::string round_trip_manifest;
  // Test hooks (the runner's own ctest checks): the case with this id crashes, hangs or leaks.
  std::string inject_crash;
  std::string inject_hang;
  std::string inject_leak;
  std::string inject_crash_after_others;  // only when other cases ran before it in its process
  std::string inject_leak_after_others;
};

[[noreturn]] void Usage(const std::string& why) {
  std::cerr << "kiln_conformance: " << why << "\n"
            << "usage: kiln_conformance --manifest FILE --suite LABEL=DIR [--suite LABEL=DIR]...\n"
               "       [--filter REGEX] [--jobs N] [--batch N] [--threads N] [--timeout SECONDS]\n"
               "       [--write-manifest FILE] [--verbose]\n"
               "       [--parallel N] [--level N]\n"
               "       [--round-trip DIR [--round-trip-manifest FILE] [--every N]]\n";
  std::exit(2);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(a + " needs a value");
      return argv[++i];
    };
    auto number = [&]() {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 100000) {
        Usage(std::string(a).append(" takes a positive number, not ").append(v));
      }
      return static_cast<int>(n);
    };
    if (a == "--manifest") {
      o.manifest = value();
    } else if (a == "--suite") {
      const std::string v = value();
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) Usage("--suite takes LABEL=DIR, not " + v);
      o.suites.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--filter") {
      o.filter = value();
    } else if (a == "--write-manifest") {
      o.write_manifest = value();
    } else if (a == "--jobs") {
      o.jobs = number();
    } else if (a == "--batch") {
      o.batch = number();
    } else if (a == "--inject-crash") {
      o.inject_crash = value();
    } else if (a == "--inject-hang") {
      o.inject_hang = value();
    } else if (a == "--inject-leak") {
      o.inject_leak = value();
    } else if (a == "--inject-crash-after-others") {
      o.inject_crash_after_others = value();
    } else if (a == "--inject-leak-after-others") {
      o.inject_leak_after_others = value();
    } else if (a == "--threads") {
      o.settings.threads = number();
    } else if (a == "--level") {
      const std::string v = value();
      if (v.size() != 1 || v[0] < '0' || v[0] > '3') Usage("--level takes 0 to 3, not " + v);
      o.settings.optimization_level = v[0] - '0';
    } else if (a == "--parallel") {
      o.settings.inter_op_threads = number();
    } else if (a == "--timeout") {
      o.timeout_s = number();
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--round-trip") {
      o.settings.round_trip_dir = value();
    } else if (a == "--every") {
      o.every = number();
    } else if (a == "--round-trip-manifest") {
      o.round_trip_manifest = value();
    } else {
      Usage("unknown argument '" + a + "'");
    }
  }
  if (o.suites.empty()) Usage("no --suite given");
  if ((o.every != 1 || !o.round_trip_manifest.empty()) && o.settings.round_trip_dir.empty()) {
    Usage("--every and --round-trip-manifest need --round-trip");
  }
  if (o.manifest.empty() && o.write_manifest.empty()) Usage("no --manifest given");
  return o;
}

// The manifest: "<case id> <reason>" per line; '#' starts a comment line.
std::map<std::string, std::string> ReadManifest(const std::string& path, std::string& error) {
  std::map<std::string, std::string> listed;
  if (path.empty()) return listed;
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the manifest " + path;
    return listed;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_first_of(" \t");
    const size_t reason = space == std::string::npos ? space : line.find_first_not_of(" \t", space);
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (reason == std::string::npos) {
      error.append(where).append("'").append(line).append("' has no reason\n");
      continue;
    }
    const std::string id = line.substr(0, space);
    if (!listed.emplace(id, line.substr(reason)).second) error += where + id + " is listed twice\n";
  }
  return listed;
}

// Cases run in child processes, several in each (a batch: starting a process per case cost the
// sanitizer builds most of their run in page faults). The child writes one record per finished
// case to a pipe, "<outcome> <message length>\n<message>", so the parent always knows which case
// is running. When the child crashes, hangs or exits with an error, that case failed, and the
// batch's cases after it run again in a new child. If cases ran before it in the same process,
// the failure could be their doing (a heap they corrupted): the case runs again alone, and when it
// passes there it fails with the first failure and the cases that ran before it named. A failure
// the child reports only at its exit (LeakSanitizer's check) names no case: the batch's cases run
// again one per child, and when none fails alone the batch's first case fails with the batch
// named. No failure of a batch is lost.
struct Child {
  pid_t pid;
  int fd;
  std::vector<size_t> batch;                    // case indices, in the order the child runs them
  size_t reported = 0;                          // how many of them have a record
  std::chrono::steady_clock::time_point since;  // when the case in progress started
  std::string output;                           // bytes not yet parsed into records
  bool eof = false;                             // the child closed its end of the pipe
};

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Allocates memory and loses the pointer (noinline, the slot cleared: no copy is left on the
// stack for LeakSanitizer to find).
[[gnu::noinline]] void Leak() {
  char* volatile lost = static_cast<char*>(std::malloc(64));
  lost = nullptr;
  static_cast<void>(lost);
}

// `position`: how many cases this process ran before this one.
Result RunInChild(const Case& c, size_t position, const Options& o) {
  const bool after_others = position > 0;
  if (c.id == o.inject_crash || (after_others && c.id == o.inject_crash_after_others)) {
    std::raise(SIGSEGV);
  }
  if (c.id == o.inject_hang) {
    for (;;) pause();
  }
  if (c.id == o.inject_leak || (after_others && c.id == o.inject_leak_after_others)) Leak();
  return RunCase(c, o.settings);
}

Child Start(const std::vector<Case>& cases, std::vector<size_t> batch, const Options& o) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("kiln_conformance: pipe");
    std::exit(2);
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("kiln_conformance: fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    for (size_t k = 0; k < batch.size(); ++k) {
      const Result r = RunInChild(cases[batch[k]], k, o);
      WriteAll(fds[1], std::to_string(static_cast<int>(r.outcome)) + " " +
                           std::to_string(r.message.size()) + "\n" + r.message);
    }
    close(fds[1]);
#if KILN_RUNNER_LSAN
    // The leak check LeakSanitizer would make at exit, without the rest of exit(): unregistering
    // the sanitizer's globals in every child cost more than the cases themselves.
    _exit(__lsan_do_recoverable_leak_check() != 0 ? 23 : 0);
#else
    std::exit(0);
#endif
  }
  close(fds[1]);
  return {pid, fds[0], std::move(batch), 0, std::chrono::steady_clock::now(), ""};
}

// Moves the complete records in child.output into results; false on a malformed one.
bool ParseRecords(Child& child, std::vector<Result>& results) {
  for (;;) {
    const size_t nl = child.output.find('\n');
    if (nl == std::string::npos) return true;
    int outcome = -1;
    size_t length = 0;
    if (std::sscanf(child.output.c_str(), "%d %zu", &outcome, &length) != 2 || outcome < 0 ||
        outcome > static_cast<int>(Outcome::kRandomChecked) ||
        child.reported >= child.batch.size()) {
      return false;
    }
    if (child.output.size() < nl + 1 + length) return true;
    results[child.batch[child.reported]] = {static_cast<Outcome>(outcome),
                                            child.output.substr(nl + 1, length)};
    child.output.erase(0, nl + 1 + length);
    ++child.reported;
    child.since = std::chrono::steady_clock::now();
  }
}

bool ReadSome(Child& child) {
  char buf[4096];
  const ssize_t n = read(child.fd, buf, sizeof buf);
  if (n == 0) child.eof = true;
  if (n <= 0) return false;
  child.output.append(buf, static_cast<size_t>(n));
  return true;
}

std::string ExitMessage(int status) {
  if (WIFSIGNALED(status)) return std::string("crashed: ") + strsignal(WTERMSIG(status));
  return "the case process exited with status " + std::to_string(WEXITSTATUS(status)) +
         " (a sanitizer report is above)";
}

std::vector<Result> RunAll(const std::vector<Case>& cases, const Options& o) {
  std::vector<Result> results(cases.size());
  std::deque<std::vector<size_t>> pending;
  for (size_t first = 0; first < cases.size(); first += static_cast<size_t>(o.batch)) {
    std::vector<size_t> batch;
    for (size_t i = first; i < std::min(cases.size(), first + static_cast<size_t>(o.batch)); ++i) {
      batch.push_back(i);
    }
    pending.push_back(std::move(batch));
  }
  auto report = [&](size_t index) {
    if (!o.verbose) return;
    std::cout << (results[index].outcome == Outcome::kFailed ? "FAIL " : "ok   ") << cases[index].id
              << " " << results[index].message << std::endl;
  };
  std::vector<std::string> suspect(cases.size());  // failed after other cases; rerun alone
  std::vector<bool> blamed(cases.size(), false);   // a process failure was put on the case
  std::vector<std::pair<std::vector<size_t>, std::string>> failed_at_exit;
  std::vector<Child> running;
  while (!pending.empty() || !running.empty()) {
    while (!pending.empty() && running.size() < static_cast<size_t>(o.jobs)) {
      running.push_back(Start(cases, std::move(pending.front()), o));
      pending.pop_front();
    }
    // Keep the pipes drained so a child never blocks on a full one. A pipe at its end is left out
    // (poll would report it at once, every time, while the child makes its leak check).
    std::vector<pollfd> fds;
    fds.reserve(running.size());
    for (const Child& c : running) fds.push_back({c.eof ? -1 : c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), 5);
    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      const size_t before = c.reported;
      if (fds.size() > i && (fds[i].revents & (POLLIN | POLLHUP))) ReadSome(c);
      bool malformed = !ParseRecords(c, results);
      int status = 0;
      const pid_t w = waitpid(c.pid, &status, WNOHANG);
      const auto elapsed = std::chrono::steady_clock::now() - c.since;
      const bool hung = w == 0 && !malformed && elapsed > std::chrono::seconds(o.timeout_s);
      const bool ended = w == c.pid || malformed || hung;
      std::string failure;  // why the case in progress failed, if it did
      if (ended) {
        if (w != c.pid) {
          kill(c.pid, SIGKILL);
          waitpid(c.pid, &status, 0);
        }
        // The records still in the pipe: the case in progress is the first without one.
        while (!malformed && ReadSome(c)) malformed = !ParseRecords(c, results);
        const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (malformed) {
          failure = "the case process wrote a malformed record";
        } else if (hung) {
          failure = "hung: killed after " + std::to_string(o.timeout_s) + " s";
        } else if (!clean) {
          failure = ExitMessage(status);
        } else if (c.reported < c.batch.size()) {
          failure = "the case process reported nothing";
        }
      }
      for (size_t k = before; k < c.reported; ++k) report(c.batch[k]);
      if (!ended) {
        ++i;
        continue;
      }
      close(c.fd);
      if (!failure.empty()) {
        if (c.reported < c.batch.size()) {
          // The case in progress failed; the ones after it have not run.
          const size_t index = c.batch[c.reported];
          std::vector<size_t> rest(c.batch.begin() + static_cast<std::ptrdiff_t>(c.reported) + 1,
                                   c.batch.end());
          if (!rest.empty()) pending.push_front(std::move(rest));
          if (c.reported == 0) {
            results[index] = {Outcome::kFailed, failure};
            blamed[index] = true;
            report(index);
          } else {
            suspect[index] = failure + ", after " + cases[c.batch[0]].id +
                             (c.reported > 1 ? " to " + cases[c.batch[c.reported - 1]].id : "") +
                             " in the same process";
            pending.push_front({index});
#if KILN_RUNNER_LSAN
            // The cases before it never reached the leak check at the child's exit.
            pending.push_back(std::vector<size_t>(
                c.batch.begin(), c.batch.begin() + static_cast<std::ptrdiff_t>(c.reported)));
#endif
          }
        } else if (c.batch.size() == 1) {
          results[c.batch[0]] = {Outcome::kFailed, failure};
          blamed[c.batch[0]] = true;
          report(c.batch[0]);
        } else {
          // Every case reported, then the process failed (a leak found at exit): one per child.
          failed_at_exit.emplace_back(c.batch, failure);
          for (size_t index : c.batch) pending.push_front({index});
        }
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(std::min(i, fds.size())));
    }
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!suspect[i].empty() && !blamed[i]) {
      const std::string alone = results[i].outcome == Outcome::kFailed
                                    ? "alone it fails otherwise: " + results[i].message
                                    : std::string("passes alone");
      results[i] = {Outcome::kFailed, alone + "; but " + suspect[i]};
      blamed[i] = true;
    }
  }
  for (const auto& [batch, failure] : failed_at_exit) {
    if (std::none_of(batch.begin(), batch.end(), [&](size_t i) { return blamed[i]; })) {
      results[batch[0]] = {Outcome::kFailed, "the process of the cases from here to " +
                                                 cases[batch.back()].id + " failed at its exit (" +
                                                 failure + "); none of them fails alone"};
    }
  }
  return results;
}

struct Tally {
  int cases = 0;
  int passed = 0;
  int failed = 0;
  int listed = 0;
  int random = 0;
};

void PrintTable(const std::string& title, const std::map<std::string, Tally>& rows) {
  size_t width = title.size();
  for (const auto& [name, t] : rows) width = std::max(width, name.size());
  std::printf("\n%-*s %6s %6s %6s %6s %6s\n", static_cast<int>(width), title.c_str(), "cases",
              "passed", "failed", "listed", "random");
  for (const auto& [name, t] : rows) {
    std::printf("%-*s %6d %6d %6d %6d %6d\n", static_cast<int>(width), name.c_str(), t.cases,
                t.passed, t.failed, t.listed, t.random);
  }
}

void Count(Tally& t, Outcome outcome, bool listed) {
  ++t.cases;
  if (outcome == Outcome::kPassed) ++t.passed;
  if (outcome == Outcome::kFailed) ++t.failed;
  if (outcome == Outcome::kRandomChecked) ++t.random;
  if (listed) ++t.listed;
}

int Main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  std::string manifest_error;
  // In round-trip mode the manifest's cases are not run, and the round-trip manifest lists the
  // cases expected to fail there.
  const bool round_trip = !o.settings.round_trip_dir.empty();
  const std::map<std::string, std::string> skipped =
      round_trip ? ReadManifest(o.manifest, manifest_error) : std::map<std::string, std::string>();
  const std::map<std::string, std::string> listed =
      ReadManifest(round_trip ? o.round_trip_manifest : o.manifest, manifest_error);

  std::regex filter;
  try {
    filter = std::regex(o.filter, std::regex::extended);
  } catch (const std::regex_error& e) {
    Usage("--filter '" + o.filter + "' is not an extended regular expression: " + e.what());
  }
  std::vector<Case> cases;
  for (const auto& [label, dir] : o.suites) {
    try {
      for (Case& c : FindCases(label, dir)) {
        if (o.filter.empty() || std::regex_search(c.id, filter)) {
          cases.push_back(std::move(c));
        }
      }
    } catch (const std::exception& e) {
      std::cerr << "kiln_conformance: suite " << label << ": " << e.what() << "\n";
      return 2;
    }
  }
  if (round_trip) {
    std::error_code ec;
    std::filesystem::create_directories(o.settings.round_trip_dir, ec);
    if (ec) {
      std::cerr << "kiln_conformance: cannot make " << o.settings.round_trip_dir << ": "
                << ec.message() << "\n";
      return 2;
    }
    // Only the cases that pass today, every Nth of them.
    std::vector<Case> kept;
    size_t seen = 0;
    for (Case& c : cases) {
      if (skipped.count(c.id) == 0 && seen++ % static_cast<size_t>(o.every) == 0) {
        kept.push_back(std::move(c));
      }
    }
    cases = std::move(kept);
  }
  if (cases.empty()) {
    std::cerr << "kiln_conformance: no cases found\n";
    return 2;
  }
  std::printf("kiln_conformance: %zu cases, %d at a time\n", cases.size(), o.jobs);
  std::fflush(stdout);
  const std::vector<Result> results = RunAll(cases, o);

  std::map<std::string, Tally> by_suite;
  std::map<std::string, Tally> by_op;
  std::vector<std::string> unexpected;
  std::vector<std::string> now_passing;
  std::vector<std::string> random_lines;
  std::set<std::string> ids;
  int passed = 0;
  int failed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const Result& r = results[i];
    ids.insert(c.id);
    const bool is_listed = listed.count(c.id) > 0;
    Count(by_suite[c.suite], r.outcome, is_listed);
    for (const std::string& op : c.ops) Count(by_op[op], r.outcome, is_listed);
    if (r.outcome == Outcome::kFailed) {
      ++failed;
      if (!is_listed) unexpected.push_back(c.id + ": " + r.message);
    } else {
      if (r.outcome == Outcome::kPassed) ++passed;
      if (r.outcome == Outcome::kRandomChecked) random_lines.push_back(c.id + ": " + r.message);
      if (is_listed) now_passing.push_back(c.id);
    }
  }
  std::vector<std::string> stale;
  if (o.filter.empty() && o.every == 1) {
    for (const auto& [id, reason] : listed) {
      if (ids.count(id) == 0) stale.push_back(id);
    }
  }

  PrintTable("op", by_op);
  PrintTable("suite", by_suite);
  std::printf(
      "\nrandom-output cases, checked on kind, type, shape and values the op can produce "
      "(not counted as passed): %zu\n",
      random_lines.size());
  for (const std::string& l : random_lines) std::printf("  %s\n", l.c_str());
  if (!unexpected.empty()) {
    std::printf("\nfailed, not in the manifest (%zu):\n", unexpected.size());
    for (const std::string& l : unexpected) std::printf("  %s\n", l.c_str());
  }
  if (!now_passing.empty()) {
    std::printf("\nlisted in the manifest but passing, remove them (%zu):\n", now_passing.size());
    for (const std::string& l : now_passing) std::printf("  %s\n", l.c_str());
  }
  if (!stale.empty()) {
    std::printf("\nlisted in the manifest but not a case (%zu):\n", stale.size());
    for (const std::string& l : stale) std::printf("  %s\n", l.c_str());
  }
  if (!manifest_error.empty()) std::printf("\nmanifest errors:\n%s", manifest_error.c_str());

  if (!o.write_manifest.empty()) {
    // Keep the manifest's comment lines (its header) on top.
    std::string comments;
    if (!o.manifest.empty()) {
      std::ifstream in(o.manifest);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] == '#') comments += line + "\n";
      }
    }
    std::ofstream out(o.write_manifest);
    out << comments;
    for (size_t i = 0; i < cases.size(); ++i) {
      if (results[i].outcome != Outcome::kFailed) continue;
      auto it = listed.find(cases[i].id);
      out << cases[i].id << " " << (it != listed.end() ? it->second : results[i].message) << "\n";
    }
    std::printf("\nwrote the failing cases to %s\n", o.write_manifest.c_str());
  }
  const bool ok =
      unexpected.empty() && now_passing.empty() && stale.empty() && manifest_error.empty();
  std::printf("\nmanifest: %s\n", ok ? "matches" : "does NOT match (see above)");
  std::printf("%d passed, %d failed\n", passed, failed);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace conformance

int main(int argc, char** argv) {
  return conformance::Main(argc, argv);
}
