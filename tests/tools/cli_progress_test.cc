// The progress line of `kiln run`, `bench` and `profile`: drawn on stderr for work that lasts,
// only when stdout (and stderr) are terminals, redrawn with '\r' and erased at the end; piped
// output is exactly as without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "compute_models.h"
#include "test_models.h"

namespace kiln::test {
namespace {

// A bench whose timed runs last about two seconds with this build of the tool, well past the half
// second after which the line is drawn: one timed run is measured first, and the count follows
// from it (200 runs of 2 GFLOP on one thread in a release build; a handful under ASan, whose
// product is a hundred times slower).
int64_t ItersForTwoSeconds(const std::string& model) {
  const CliResult r =
      RunKiln({"bench", model, "--threads", "1", "--warmup", "0", "--iters", "1", "--json"});
  if (r.status != 0) throw std::runtime_error("kiln bench --json failed: " + r.err);
  const double run_ms = ParseJson(r.out).At("min_ms").number;
  const double iters = std::ceil(2000.0 / std::max(run_ms, 1e-3));
  return static_cast<int64_t>(std::clamp(iters, 4.0, 200.0));
}

std::vector<std::string> LongBench(const std::string& model, int64_t iters) {
  return {"bench", model, "--threads", "1", "--warmup", "0", "--iters", std::to_string(iters)};
}

class CliProgress : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder per test: ctest runs the tests at once, and each remakes its folder.
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    model_ = WriteModel(SquareMatMulModel(1024), TestDir("progress_" + test) / "big.onnx");
    iters_ = ItersForTwoSeconds(model_);
  }
  std::string model_;
  int64_t iters_ = 0;
};

TEST_F(CliProgress, DrawnAndErasedOnATerminal) {
  const CliResult r = RunKilnOnTerminal(LongBench(model_, iters_), true, true);
  ASSERT_EQ(r.status, 0) << r.out;
  const size_t drawn = r.out.find("\rtimed runs ");
  ASSERT_NE(drawn, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/" + std::to_string(iters_) + " ... ", drawn), std::string::npos) << r.out;
  // Erased (blanks between two '\r') before the results, which follow on a clean line.
  const size_t results = r.out.find("model        " + model_);
  ASSERT_NE(results, std::string::npos) << r.out;
  EXPECT_LT(drawn, results);
  const size_t erased = r.out.rfind('\r', results - 1);
  ASSERT_NE(erased, std::string::npos);
  const size_t erase_start = r.out.rfind('\r', erased - 1);
  ASSERT_NE(erase_start, std::string::npos);
  EXPECT_EQ(r.out.substr(erase_start + 1, erased - erase_start - 1).find_first_not_of(' '),
            std::string::npos)
      << "not erased: " << r.out;
  EXPECT_NE(r.out.find("timed runs   " + std::to_string(iters_) + " (after 0 warm-up)"),
            std::string::npos)
      << r.out;
}

TEST_F(CliProgress, NotDrawnWhenStdoutIsNotATerminal) {
  // stdout piped, stderr still a terminal: nothing but the results, on stdout.
  const CliResult piped = RunKilnOnTerminal(LongBench(model_, iters_), false, true);
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err, "");
  EXPECT_EQ(piped.out.find('\r'), std::string::npos);
  EXPECT_EQ(piped.out.rfind("model        " + model_ + "\n", 0), 0u) << piped.out;
  // Both redirected.
  const CliResult files = RunKiln(LongBench(model_, iters_));
  ASSERT_EQ(files.status, 0) << files.err;
  EXPECT_EQ(files.err, "");
  EXPECT_EQ(files.out.find('\r'), std::string::npos);
}

}  // namespace
}  // namespace kiln::test
