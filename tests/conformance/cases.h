// The conformance runner's cases: where they are, what a case is made of, and how one runs.
#ifndef KILN_TESTS_CONFORMANCE_CASES_H_
#define KILN_TESTS_CONFORMANCE_CASES_H_

#include <string>
#include <vector>

namespace conformance {

struct Case {
  std::string id;     // "<label>/<suite>/<name>", the manifest's key
  std::string suite;  // "<label>/<suite>"
  std::string model;  // model.onnx (or the light model)
  std::string dir;    // the case folder with test_data_set_*; for a light model, its output file
  bool light = false;
  std::vector<std::string> ops;  // top-level op types ("domain.Op" outside the default domain)
};

// The cases of every suite folder (node, simple, pytorch-converted, pytorch-operator, ...) under
// `root`, and of its light/ folder, sorted by id.
std::vector<Case> FindCases(const std::string& label, const std::string& root);

enum class Outcome { kPassed, kFailed, kRandomChecked };

struct Result {
  Outcome outcome = Outcome::kFailed;
  std::string message;  // why it failed; for a random-output case, what was checked
};

struct RunSettings {
  int threads = 1;
  // Above 0: sessions run in the parallel execution mode on this many inter-op threads.
  int inter_op_threads = 0;
  // 0-3: sessions use this graph optimization level; -1: the default (3, every pass).
  int optimization_level = -1;
  // Not empty: round-trip mode. The session writes its optimized model into this folder
  // (SetOptimizedModelFilePath), a second session loads that file (optimizing it again), and the
  // case passes when the second session's outputs match the reference and, for cases without
  // random outputs, the first session's exactly.
  std::string round_trip_dir;
};

// Runs one case in this process: loads the model through the C ABI, runs every data set and
// compares. Never throws.
Result RunCase(const Case& c, const RunSettings& settings);

}  // namespace conformance

#endif  // KILN_TESTS_CONFORMANCE_CASES_H_
