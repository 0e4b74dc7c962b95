// The cases of the failure-injection tests (oom_test.cc), and the families whose cases live in
// files of their own.
#ifndef KILN_TESTS_API_OOM_CASES_H_
#define KILN_TESTS_API_OOM_CASES_H_

#include <functional>
#include <string>
#include <vector>

#include "fixtures.h"

namespace kiln_test {

// A call under test. It returns the entry's status; anything it creates on success goes into
// `made` to be released afterwards. Fixture objects it consumes are set to NULL in `b`.
struct Made {
  std::vector<std::function<void()>> releases;
  KilnValue* slots[2] = {nullptr, nullptr};  // Run's output slots, for `verify`
};
struct OomCase {
  const char* entry;
  std::function<KilnStatus*(Objects& b, Outs& o, Made& made)> call;
  std::function<void(Objects& b)> setup = nullptr;  // run before arming, when set
  // Run after disarming, before `made` is released: what is wrong (a static string), or NULL.
  // Kept apart from the call so that a failed check never allocates while the hook is armed.
  std::function<const char*(Objects& b, Made& made, bool failed)> verify = nullptr;
};

struct Result {
  long attempts = 0;  // calls made, the last one succeeding
  long injected = 0;  // attempts in which a failure was injected
};

// Runs one case until it succeeds with no failure injected, or until it fails a check (then the
// next case still runs). Returns what it saw. (oom_test.cc)
Result RunUntilSuccess(const OomCase& c, bool sticky);

// Custom operators (oom_custom_op_cases.cc): one case per entry of slots 104-125.
std::vector<OomCase> CustomOpOomCases();

// The graph API (oom_graph_cases.cc): one case or more per entry of graph_slots.h, and KilnApi's
// GetGraphApi and GetTensorData; and the entries among them that cannot work without allocating.
std::vector<OomCase> GraphOomCases();
std::vector<std::string> GraphAllocatingEntries();

}  // namespace kiln_test

#endif  // KILN_TESTS_API_OOM_CASES_H_
