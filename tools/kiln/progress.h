// A progress line for long work: on stderr, redrawn in place with '\r' at most ten times a
// second, and erased when the work ends, so that it never mixes with what the tool prints. It is
// drawn only when stdout and stderr are both terminals (so output piped or redirected is exactly
// as without it), and only once the command has been working for half a second.
//
//   Progress progress;                       // the clock starts
//   progress.Phase("loading model.onnx");    // "loading model.onnx ... 1.3 s"
//   session = OpenSession(...);
//   progress.Phase("timed runs", iters);     // "timed runs 12/50 ... 2.1 s"
//   for (...) { Run(); progress.Step(); }
//   progress.Clear();                        // erased before the results are printed
#ifndef KILN_TOOLS_KILN_PROGRESS_H_
#define KILN_TOOLS_KILN_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace kiln::cli {

class Progress {
 public:
  // Starts the clock; draws nothing unless stdout and stderr are terminals.
  Progress();
  // Erases the line (as Clear), also when the command fails, before its error is printed.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // What is being done now; with `total` > 0, a count of steps done out of it follows the label.
  void Phase(const std::string& label, int64_t total = 0);
  // One more step of the phase done (cheap: an atomic increment).
  void Step() { done_.fetch_add(1, std::memory_order_relaxed); }
  // Erases the line and draws no more.
  void Clear();

 private:
  void Draw();  // the drawing thread

  const std::chrono::steady_clock::time_point start_;
  std::atomic<int64_t> done_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  std::string label_;  // guarded by mu_
  int64_t total_ = 0;  // guarded by mu_
  bool stop_ = false;  // guarded by mu_
  size_t drawn_ = 0;   // the length of the line on screen; the drawing thread's own
  std::thread thread_;
};

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_PROGRESS_H_
