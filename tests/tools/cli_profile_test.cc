// kiln profile and kiln bench --profile: the tables count the profiled runs only (not the
// warm-up), their times are the trace's, GFLOP/s is the node's arithmetic over its time, and the
// trace is a Chrome trace that viewers read (JSON, "X" events with name, ph, ts, dur, pid, tid).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_harness.h"
#include "compute_models.h"
#include "test_models.h"

namespace kiln::test {
namespace {

// The rows of one table of the output: its lines after `title` up to a blank line, split into
// words and keyed by the first (the header line too, under its first word).
std::map<std::string, std::vector<std::string>> Table(const std::string& out,
                                                      const std::string& title) {
  std::map<std::string, std::vector<std::string>> rows;
  const size_t start = out.find(title);
  if (start == std::string::npos) return rows;
  std::istringstream lines(out.substr(start));
  std::string line;
  std::getline(lines, line);  // the title
  while (std::getline(lines, line) && !line.empty()) {
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    if (!row.empty()) rows[row[0]] = row;
  }
  return rows;
}

// A by-node row: node, op type, calls, self ms, mean ms, %, GFLOP/s.
struct NodeRow {
  std::string op_type;
  int calls = 0;
  double total_ms = 0;
  std::string gflops;
};

NodeRow ParseNodeRow(const std::vector<std::string>& row) {
  EXPECT_EQ(row.size(), 7u);
  if (row.size() != 7) return {};
  return {row[1], std::stoi(row[2]), std::stod(row[3]), row[6]};
}

// The trace's events, checked to be what viewers need.
std::vector<JsonValue> TraceEvents(const std::string& path) {
  const JsonValue trace = ParseJson(ReadBytes(path));
  EXPECT_EQ(trace.kind, JsonValue::kArray);
  for (const JsonValue& e : trace.items) {
    EXPECT_EQ(e.kind, JsonValue::kObject);
    EXPECT_EQ(e.At("name").kind, JsonValue::kString);
    EXPECT_EQ(e.At("ph").text, "X");
    for (const char* key : {"ts", "dur", "pid", "tid"}) {
      EXPECT_EQ(e.At(key).kind, JsonValue::kNumber) << key;
      EXPECT_GE(e.At(key).number, 0) << key;
    }
    // Perfetto reads pid and tid as 32-bit numbers, and merges the threads of larger ones.
    EXPECT_LT(e.At("tid").number, 4294967296.0);
    EXPECT_LT(e.At("pid").number, 4294967296.0);
  }
  return trace.items;
}

// The summed durations (µs) of the last `calls` events of a node: its profiled runs.
double LastDurations(const std::vector<JsonValue>& events, const std::string& node, int calls) {
  std::vector<double> durations;
  for (const JsonValue& e : events) {
    if (e.At("name").text == node) durations.push_back(e.At("dur").number);
  }
  EXPECT_GE(durations.size(), static_cast<size_t>(calls)) << node;
  double sum = 0;
  for (size_t i = durations.size() - static_cast<size_t>(calls); i < durations.size(); ++i) {
    sum += durations[i];
  }
  return sum;
}

// GFLOP/s as the tool rounds it: `flops` a call over `us` microseconds of `calls` calls ("-"
// when the calls took under a microsecond each, which the trace's whole microseconds make 0).
void ExpectGflops(const std::string& shown, double flops, int calls, double us) {
  if (us == 0) {
    EXPECT_EQ(shown, "-");
    return;
  }
  ASSERT_NE(shown, "-");
  EXPECT_NEAR(std::stod(shown), flops * calls / us / 1e3, 0.051) << "shown " << shown;
}

TEST(CliProfile, TablesCountTheProfiledRunsAndTheirArithmetic) {
  const auto dir = TestDir("profile_tables");
  const std::string model = WriteModel(MatMulChainModel("batch"), dir / "mm.onnx");
  WriteBytes(dir / "x.npy", NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (256, 64)}",
                                     Bytes(std::vector<float>(size_t{256} * 64, 0.5f))));
  const std::string trace = (dir / "t.json").string();
  const CliResult r =
      RunKiln({"profile", model, "--input", "x=" + (dir / "x.npy").string(), "--iters", "3",
               "--warmup", "2", "--threads", "1", "--optimization", "0", "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("3 runs after 2 warm-up, 1 thread\n"), std::string::npos) << r.out;

  const auto ops = Table(r.out, "by op type (self time");
  ASSERT_EQ(ops.count("MatMul"), 1u) << r.out;
  EXPECT_EQ(ops.at("MatMul")[1], "2");  // nodes
  EXPECT_EQ(ops.at("MatMul")[2], "6");  // calls: 2 nodes x 3 runs, the warm-up left out
  EXPECT_EQ(ops.at("Relu")[2], "3");
  EXPECT_EQ(ops.at("Relu")[6], "-");  // not counted
  EXPECT_EQ(ops.at("total")[1], "3");
  EXPECT_EQ(ops.at("total")[2], "9");
  EXPECT_EQ(ops.at("total")[5], "100.0%");

  const std::vector<JsonValue> events = TraceEvents(trace);
  EXPECT_EQ(events.size(), 3u * 5u);  // the trace has every run, warm-up included
  const auto nodes = Table(r.out, "top 3 of 3 nodes by self time");
  ASSERT_EQ(nodes.size(), 5u) << r.out;  // header, 3 nodes, total
  const std::map<std::string, double> flops = {{"mm1", 2.0 * 256 * 64 * 32},
                                               {"mm2", 2.0 * 256 * 32 * 8}};
  double node_ms = 0;
  for (const char* name : {"mm1", "mm2", "act"}) {
    SCOPED_TRACE(name);
    const NodeRow row = ParseNodeRow(nodes.at(name));
    EXPECT_EQ(row.calls, 3);
    const double us = LastDurations(events, name, 3);
    EXPECT_NEAR(row.total_ms, us / 1e3, 0.0005);
    node_ms += row.total_ms;
    if (flops.count(name) != 0) {
      EXPECT_EQ(row.op_type, "MatMul");
      ExpectGflops(row.gflops, flops.at(name), 3, us);
    } else {
      EXPECT_EQ(row.gflops, "-");
    }
  }
  EXPECT_NEAR(std::stod(ops.at("total")[3]), node_ms, 0.002);
  EXPECT_NE(
      r.out.find("trace: " + trace + " (Chrome trace events; open in https://ui.perfetto.dev"),
      std::string::npos)
      << r.out;
}

TEST(CliProfile, FusedOpsOfTheOptimizedGraphAreCounted) {
  const auto dir = TestDir("profile_fused");
  const std::string model = WriteModel(GroupedConvModel(), dir / "conv.onnx");
  const std::string trace = (dir / "t.json").string();
  // The default optimization level: the Conv runs as one of Kiln's fused convolutions.
  const CliResult r =
      RunKiln({"profile", model, "--iters", "4", "--threads", "1", "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto nodes = Table(r.out, "nodes by self time");
  const std::vector<JsonValue> events = TraceEvents(trace);
  int counted = 0;
  for (const auto& [name, words] : nodes) {
    if (name == "node" || name == "total") continue;
    const NodeRow row = ParseNodeRow(words);
    EXPECT_EQ(row.calls, 4) << name;
    if (row.gflops == "-") continue;
    ++counted;
    EXPECT_NE(row.op_type.find("Conv"), std::string::npos) << row.op_type;
    ExpectGflops(row.gflops, 2.0 * 32768 * 72, 4, LastDurations(events, name, 4));
  }
  EXPECT_EQ(counted, 1) << r.out;
}

TEST(CliProfile, SymbolicDimensionsTakeTheFedSizes) {
  const auto dir = TestDir("profile_dims");
  // 256 rows: a product long enough that its time is not 0 in the trace's whole microseconds.
  WriteBytes(dir / "x.npy", NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (256, 64)}",
                                     Bytes(std::vector<float>(size_t{256} * 64, 0.5f))));
  for (const std::string& batch : {std::string("batch"), std::string("")}) {
    SCOPED_TRACE("batch '" + batch + "'");
    const std::string model = WriteModel(MatMulChainModel(batch), dir / "mm.onnx");
    const CliResult r =
        RunKiln({"profile", model, "--input", "x=" + (dir / "x.npy").string(), "--iters", "2",
                 "--optimization", "0", "--trace", (dir / "t.json").string()});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto nodes = Table(r.out, "nodes by self time");
    ASSERT_EQ(nodes.count("mm1"), 1u) << r.out;
    // A named dimension has the size fed (from a second session, since Kiln's inference does not
    // carry the name through a product); an unnamed one is not known, nor is the arithmetic.
    EXPECT_EQ(r.out.find("shapes for GFLOP/s: 2 nodes from a second session with batch = 256 "
                         "fixed as fed\n") == std::string::npos,
              batch.empty())
        << r.out;
    EXPECT_EQ(ParseNodeRow(nodes.at("mm1")).gflops == "-", batch.empty()) << r.out;
    EXPECT_EQ(Table(r.out, "by op type").at("total")[6] == "-", batch.empty()) << r.out;
  }
}

TEST(CliProfile, TopLimitsTheNodesAndTheTraceGoesBesideByDefault) {
  const auto dir = TestDir("profile_top");
  const std::filesystem::path cwd = dir / "cwd";
  std::filesystem::create_directories(cwd);
  const std::string model = WriteModel(MatMulChainModel("4"), dir / "mm.onnx");
  // Run in a folder of the test's own: the trace goes into the current folder, never the test's
  // (and that folder is made afresh on the next run, whatever this one leaves).
  const CliResult r = RunKilnIn(cwd, {"profile", model, "--iters", "1", "--top", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto nodes = Table(r.out, "top 1 of 3 nodes by self time");
  EXPECT_EQ(nodes.size(), 3u) << r.out;  // header, 1 node, total
  EXPECT_EQ(nodes.at("total")[1], "3");  // "3 nodes"
  const size_t at = r.out.find("trace: kiln_profile_");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string path = r.out.substr(at + 7, r.out.find(' ', at + 7) - at - 7);
  EXPECT_EQ(TraceEvents((cwd / path).string()).size(), 3u * 2u);  // one warm-up, one profiled
  // The trace is all the command left there.
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(cwd)) {
    files.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(files, std::vector<std::string>{path});
}

// The time of a Loop's body is its nodes', not the Loop's as well: the node time is at most the
// wall time, and the totals are the Loop's events (the only node of the main graph).
TEST(CliProfile, ALoopCountsItsOwnTimeNotItsBodys) {
  const auto dir = TestDir("profile_loop");
  const std::string model = WriteModel(LoopMatMulModel(256, 20), dir / "loop.onnx");
  const std::string trace = (dir / "t.json").string();
  const CliResult r = RunKiln(
      {"profile", model, "--iters", "3", "--warmup", "1", "--threads", "1", "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(" ms (self time summed over nodes and threads)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("by op type (self time: a Loop, If or Scan counts its own time only"),
            std::string::npos)
      << r.out;
  // "wall time per run: mean W ms, min M ms; node time per run: N ms (...)"
  const size_t wall_at = r.out.find("wall time per run: mean ");
  const size_t node_at = r.out.find("node time per run: ");
  ASSERT_NE(wall_at, std::string::npos) << r.out;
  ASSERT_NE(node_at, std::string::npos) << r.out;
  const double wall_ms = std::stod(r.out.substr(wall_at + 24));
  const double node_ms = std::stod(r.out.substr(node_at + 19));
  EXPECT_GT(node_ms, 0.5 * wall_ms) << r.out;
  // Was twice the wall time. (The trace's whole microseconds may add one to the Loop's event,
  // and each number is rounded to the microsecond.)
  EXPECT_LE(node_ms, wall_ms + 0.003) << r.out;

  const std::vector<JsonValue> events = TraceEvents(trace);
  const auto ops = Table(r.out, "by op type (self time");
  const double loop_us = LastDurations(events, "loop", 3);
  EXPECT_NEAR(std::stod(ops.at("total")[3]), loop_us / 1e3, 0.002) << r.out;
  EXPECT_EQ(ops.at("total")[5], "100.0%");
  // The body's product: 20 calls a run, its GFLOP/s over its own time; the Loop keeps the rest.
  const auto nodes = Table(r.out, "nodes by self time");
  std::string product;
  for (const auto& [name, words] : nodes) {
    if (words.size() == 7 && words[1].find("MatMul") != std::string::npos) product = name;
  }
  ASSERT_FALSE(product.empty()) << r.out;
  const NodeRow mm = ParseNodeRow(nodes.at(product));
  EXPECT_EQ(mm.calls, 3 * 20);
  const double mm_us = LastDurations(events, product, 3 * 20);
  EXPECT_NEAR(mm.total_ms, mm_us / 1e3, 0.002);
  ExpectGflops(mm.gflops, 2.0 * 256 * 256 * 256, 3 * 20, mm_us);
  ASSERT_EQ(nodes.count("loop"), 1u) << r.out;
  const NodeRow loop = ParseNodeRow(nodes.at("loop"));
  EXPECT_EQ(loop.op_type, "Loop");
  EXPECT_EQ(loop.calls, 3);
  EXPECT_LT(loop.total_ms, loop_us / 1e3 - mm_us / 1e3 + 0.002) << r.out;
  EXPECT_GE(loop.total_ms, 0);
}

// The header names the model whatever the length of its path.
TEST(CliProfile, ALongModelPathIsPrintedWhole) {
  const auto dir = TestDir("profile_long_path");
  // Two folders of 220 characters: a path of over 450, past any fixed line buffer.
  const std::filesystem::path deep = dir / std::string(220, 'd') / std::string(220, 'e');
  std::filesystem::create_directories(deep);
  const std::string model = WriteModel(MatMulChainModel("4"), deep / "mm.onnx");
  ASSERT_GT(model.size(), 450u);
  const CliResult r = RunKiln({"profile", model, "--iters", "2", "--warmup", "0", "--threads", "1",
                               "--trace", (dir / "t.json").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("profile of " + model +
                            ": 2 runs after 0 warm-up, 1 thread\nwall time "
                            "per run: mean ",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("(self time summed over nodes and threads"), std::string::npos) << r.out;
}

TEST(CliBenchProfile, TimingThenTheTablesOfASecondSession) {
  const auto dir = TestDir("bench_profile");
  const std::string model = WriteModel(MatMulChainModel("8"), dir / "mm.onnx");
  const std::string trace = (dir / "t.json").string();
  const CliResult r = RunKiln({"bench", model, "--iters", "4", "--warmup", "1", "--profile",
                               "--top", "2", "--optimization", "0", "--trace", trace});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const size_t timing = r.out.find("timed runs   4 (after 1 warm-up)\n");
  const size_t pass = r.out.find("profiled pass");
  ASSERT_NE(timing, std::string::npos) << r.out;
  ASSERT_NE(pass, std::string::npos) << r.out;
  EXPECT_LT(timing, pass);
  EXPECT_NE(r.out.find("4 runs after 1 warm-up"), std::string::npos) << r.out;
  EXPECT_EQ(Table(r.out, "by op type").at("total")[2], "12");  // 3 nodes x 4 profiled runs
  EXPECT_EQ(Table(r.out, "top 2 of 3 nodes by self time").size(), 4u) << r.out;
  // The profiled session saw 1 + 4 runs; the timed one's 1 + 1 + 4 are not in its trace.
  EXPECT_EQ(TraceEvents(trace).size(), 3u * 5u);
}

// bench --profile releases the timed session before it makes the profiled one: one copy of the
// weights at a time, so its peak is bench's alone, not that and a second copy.
TEST(CliBenchProfile, TheTimedSessionIsReleasedFirst) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer keeps freed memory in quarantine";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer keeps freed memory in quarantine";
#endif
#endif
  const auto dir = TestDir("bench_profile_memory");
  constexpr long kWeightsKb = long{64} * 1024;  // 16384 x 1024 floats
  const std::string model = WriteModel(GatherTableModel(16384, 1024), dir / "table.onnx");
  const CliResult bench = RunKiln({"bench", model, "--iters", "2", "--warmup", "0"});
  ASSERT_EQ(bench.status, 0) << bench.err;
  const CliResult both = RunKiln({"bench", model, "--iters", "2", "--warmup", "0", "--profile",
                                  "--trace", (dir / "t.json").string()});
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("profiled pass"), std::string::npos) << both.out;
  // The weights are in either peak once (two copies would add 64 MiB to the second).
  EXPECT_GT(bench.peak_rss_kb, kWeightsKb);
  EXPECT_LT(both.peak_rss_kb, bench.peak_rss_kb + kWeightsKb / 2)
      << "bench: " << bench.peak_rss_kb << " KiB, bench --profile: " << both.peak_rss_kb << " KiB";
}

}  // namespace
}  // namespace kiln::test
