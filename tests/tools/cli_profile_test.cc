// kiln profile and kiln bench --profile: the tables count the profiled runs only (not the
// warm-up), their times are the trace's, GFLOP/s is the node's arithmetic over its time, and the
// trace is a Chrome trace that viewers read (JSON, "X" events with name, ph, ts, dur, pid, tid).
#include <gtest/gtest.h>

#include <cmath>
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

// A by-node row: node, op type, calls, total ms, mean ms, %, GFLOP/s.
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

  const auto ops = Table(r.out, "by op type (% of the summed node time)");
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
  const auto nodes = Table(r.out, "top 3 of 3 nodes by time");
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
  const auto nodes = Table(r.out, "nodes by time");
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
    const auto nodes = Table(r.out, "nodes by time");
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
  const std::string model = WriteModel(MatMulChainModel("4"), dir / "mm.onnx");
  const CliResult r = RunKiln({"profile", model, "--iters", "1", "--top", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto nodes = Table(r.out, "top 1 of 3 nodes by time");
  EXPECT_EQ(nodes.size(), 3u) << r.out;  // header, 1 node, total
  EXPECT_EQ(nodes.at("total")[1], "3");  // "3 nodes"
  const size_t at = r.out.find("trace: kiln_profile_");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string path = r.out.substr(at + 7, r.out.find(' ', at + 7) - at - 7);
  EXPECT_EQ(TraceEvents(path).size(), 3u * 2u);  // one warm-up run and one profiled
  std::filesystem::remove(path);
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
  EXPECT_EQ(Table(r.out, "top 2 of 3 nodes by time").size(), 4u) << r.out;
  // The profiled session saw 1 + 4 runs; the timed one's 1 + 1 + 4 are not in its trace.
  EXPECT_EQ(TraceEvents(trace).size(), 3u * 5u);
}

}  // namespace
}  // namespace kiln::test
