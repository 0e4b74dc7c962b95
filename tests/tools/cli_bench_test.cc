// kiln bench: --json has exactly the promised keys with consistent values; text mode reads.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli_harness.h"
#include "test_models.h"

namespace kiln::test {
namespace {

TEST(CliBench, JsonHasExactlyThePromisedKeys) {
  const auto dir = TestDir("bench_json");
  const std::string model = WriteModel(RichModel(), dir / "rich.onnx");
  const CliResult r =
      RunKiln({"bench", model, "--threads", "1", "--warmup", "2", "--iters", "7", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const JsonValue j = ParseJson(r.out);
  ASSERT_EQ(j.kind, JsonValue::kObject);
  const std::set<std::string> keys(j.keys.begin(), j.keys.end());
  for (size_t i = 0; i < j.keys.size(); ++i) {
    EXPECT_EQ(j.values[i].kind, JsonValue::kNumber) << j.keys[i];
    EXPECT_GE(j.values[i].number, 0) << j.keys[i];
  }
  EXPECT_EQ(keys, (std::set<std::string>{"load_ms", "first_run_ms", "min_ms", "median_ms", "p90_ms",
                                         "mean_ms", "iters", "threads", "peak_rss_mb"}));
  EXPECT_EQ(j.keys.size(), keys.size()) << "a key is repeated";
  EXPECT_EQ(j.At("iters").number, 7);
  EXPECT_EQ(j.At("threads").number, 1);
  EXPECT_LE(j.At("min_ms").number, j.At("median_ms").number);
  EXPECT_LE(j.At("median_ms").number, j.At("p90_ms").number);
  EXPECT_LE(j.At("min_ms").number, j.At("mean_ms").number);
  EXPECT_GT(j.At("peak_rss_mb").number, 1);
}

TEST(CliBench, TextSummaryNamesEachFigure) {
  const auto dir = TestDir("bench_text");
  const std::string model = WriteModel(IdentityModel({{"x", 1, {"8"}}}), dir / "m.onnx");
  const CliResult r = RunKiln({"bench", model, "--threads=2", "--warmup=0", "--iters=3"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* label :
       {"threads      2\n", "load ", "first run ", "timed runs   3 (after 0 warm-up)\n", "  min ",
        "  median ", "  p90 ", "  mean ", "peak RSS "}) {
    EXPECT_NE(r.out.find(label), std::string::npos) << "'" << label << "' not in:\n" << r.out;
  }
}

}  // namespace
}  // namespace kiln::test
