// The profile's tables (tools/kiln/profile_report.h) from synthetic traces, called directly:
// the boundary between warm-up and profiled runs, grouping, GFLOP/s, and the trace reader's
// rejections.
#include "profile_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "args.h"
#include "test_models.h"

namespace kiln::cli {
namespace {

std::filesystem::path Write(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(KILN_TEST_TMP_DIR) / "profile_report";
  std::filesystem::create_directories(dir);
  kiln::test::WriteBytes(dir / name, text);
  return dir / name;
}

TEST(ProfileReport, TabulatesTheEventsFromTheBoundary) {
  const std::vector<TraceEvent> events = {
      {"mm", "MatMul", 10, 500},  // warm-up: left out
      {"mm", "MatMul", 1000, 100}, {"act", "Relu", 1100, 20}, {"mm", "MatMul", 2000, 300},
      {"act", "Relu", 2300, 40},   {"", "Identity", 2400, 5}, {"mm2", "MatMul", 2500, 50},
  };
  std::map<std::string, NodeCost> nodes;
  nodes["mm"] = {"MatMul", true, 4e6};  // 4 MFLOP a call
  nodes["act"] = {"Relu", false, std::nullopt};
  nodes["mm2"] = {"MatMul", true, std::nullopt};  // a dimension not known
  const ProfileTables t = Tabulate(events, 1000, nodes);
  EXPECT_EQ(t.events_before, 1);
  ASSERT_EQ(t.by_node.size(), 4u);
  EXPECT_EQ(t.by_node[0].name, "mm");  // longest first
  EXPECT_EQ(t.by_node[0].calls, 2);
  EXPECT_DOUBLE_EQ(t.by_node[0].total_us, 400);
  EXPECT_EQ(t.by_node[0].flops, 8e6);
  EXPECT_EQ(t.by_node[1].name, "act");
  EXPECT_EQ(t.by_node[3].name, "(unnamed Identity)");
  ASSERT_EQ(t.by_op_type.size(), 3u);
  EXPECT_EQ(t.by_op_type[0].name, "MatMul");
  EXPECT_EQ(t.by_op_type[0].nodes, 2);
  EXPECT_EQ(t.by_op_type[0].calls, 3);
  EXPECT_FALSE(t.by_op_type[0].flops);  // mm2's are not known
  EXPECT_EQ(t.total.nodes, 4);
  EXPECT_EQ(t.total.calls, 6);
  EXPECT_DOUBLE_EQ(t.total.total_us, 515);
  EXPECT_FALSE(t.total.flops);

  std::ostringstream out;
  PrintTables(out, t, 2);
  const std::string text = out.str();
  // mm: 8e6 FLOPs in 400 us = 20 GFLOP/s; 400 of 515 us = 77.7%.
  EXPECT_NE(text.find("mm     MatMul         2       0.400     0.200   77.7%     20.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("top 2 of 4 nodes"), std::string::npos) << text;
  EXPECT_EQ(text.find("mm2 "), std::string::npos) << "past --top: " << text;
  EXPECT_NE(text.find("total  4 nodes        6       0.515     0.086  100.0%        -\n"),
            std::string::npos)
      << text;
}

// A Loop's event contains its body's events (same thread, its interval around theirs): each node
// is given its self time, so the totals are the time the nodes took, nothing counted twice.
TEST(ProfileReport, NestedEventsCountTheirSelfTime) {
  // Kiln records an event when its node ends: a body's events come before their Loop's.
  const std::vector<TraceEvent> events = {
      {"body_mm", "MatMul", 20, 40, 1},  // warm-up: left out, its Loop too
      {"loop", "Loop", 10, 100, 1},
      {"body_mm", "MatMul", 1010, 150, 1},  // the profiled run: a Loop of three iterations
      {"body_add", "Add", 1160, 10, 1},
      {"body_mm", "MatMul", 1200, 150, 1},
      {"other", "Relu", 1100, 200, 2},  // another thread, inside the Loop's interval: not its own
      {"body_mm", "MatMul", 1400, 150, 1},
      {"then_id", "Identity", 1570, 5, 1},  // an If inside the Loop, an Identity inside that
      {"if", "If", 1560, 30, 1},
      {"mark", "Identity", 1590, 0, 1},  // no time, at the If's end: changes nothing
      {"loop", "Loop", 1000, 600, 1},
      {"inner", "Identity", 2000, 10, 1},  // the same interval as its parent's: the later is
      {"outer", "If", 2000, 10, 1},        // the parent, with no time of its own
      {"after", "Relu", 2010, 20, 1},      // starts where they end: beside them, not inside
  };
  const std::vector<double> self = SelfTimes(events);
  ASSERT_EQ(self.size(), events.size());
  const std::vector<double> expected = {40, 60, 150, 10, 150, 200, 150, 5, 25, 0, 110, 10, 0, 20};
  EXPECT_EQ(self, expected);

  std::map<std::string, NodeCost> nodes;
  nodes["body_mm"] = {"MatMul", true, 9e6};  // 9 MFLOP a call
  const ProfileTables t = Tabulate(events, 1000, nodes);
  EXPECT_EQ(t.events_before, 2);
  // The totals are what the threads spent in nodes: the Loop's 600 us, the Relu beside it on
  // thread 2, the outer If's 10 and the Relu after it; not 600 more for the Loop's body.
  EXPECT_DOUBLE_EQ(t.total.total_us, 600 + 200 + 10 + 20);
  EXPECT_EQ(t.total.calls, 12);
  std::map<std::string, ProfileRow> rows;
  for (const ProfileRow& r : t.by_node) rows[r.name] = r;
  EXPECT_DOUBLE_EQ(rows["loop"].total_us, 110);
  EXPECT_DOUBLE_EQ(rows["body_mm"].total_us, 450);
  EXPECT_EQ(rows["body_mm"].calls, 3);
  EXPECT_DOUBLE_EQ(rows["if"].total_us, 25);
  EXPECT_DOUBLE_EQ(rows["outer"].total_us, 0);
  EXPECT_DOUBLE_EQ(rows["inner"].total_us, 10);
  EXPECT_EQ(t.by_node[0].name, "body_mm");
  EXPECT_EQ(t.by_op_type[0].name, "MatMul");

  std::ostringstream out;
  PrintTables(out, t, 3);
  const std::string text = out.str();
  // body_mm: 27e6 FLOPs in 450 us = 60 GFLOP/s; 450 of 830 us = 54.2%.
  EXPECT_NE(text.find("body_mm  MatMul         3       0.450     0.150   54.2%     60.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("by op type (self time: a Loop, If or Scan counts its own time only; % of "
                      "the summed self time)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("top 3 of 10 nodes by self time (% of the summed self time)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" self ms "), std::string::npos) << text;
}

TEST(ProfileReport, ReadsBothTraceFormats) {
  const auto array = Write("a.json",
                           R"([{"name":"n\u00e9","ph":"X","ts":1,"dur":2,"pid":1,"tid":1,
                               "args":{"op_type":"Conv"}},
                              {"name":"meta","ph":"M","args":{}}])");
  std::vector<TraceEvent> events = ReadTrace(array.string());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].name, "n\xc3\xa9");
  EXPECT_EQ(events[0].op_type, "Conv");
  EXPECT_EQ(events[0].dur_us, 2);
  EXPECT_EQ(events[0].tid, 1);
  const auto object =
      Write("o.json", R"({"traceEvents":[{"name":"a","ph":"X","ts":5.5,"dur":1e1}]})");
  events = ReadTrace(object.string());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].ts_us, 5.5);
  EXPECT_EQ(events[0].dur_us, 10);
  EXPECT_EQ(events[0].tid, 0);  // not given
}

TEST(ProfileReport, RejectsWhatIsNotATrace) {
  const auto expect_error = [](const std::string& text, const std::string& needle) {
    const auto path = Write("bad.json", text);
    try {
      ReadTrace(path.string());
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,",
               "not valid JSON at byte 29: expected '\"'");
  expect_error("[1, 2] x", "text after the JSON value");
  expect_error("{\"events\": []}", "not a Chrome trace");
  expect_error("[{\"name\":\"a\",\"ph\":\"X\",\"ts\":\"1\",\"dur\":2}]", "trace event 0");
  expect_error("[\"\\q\"]", "a bad escape");
  expect_error(std::string(2000, '['), "nested too deeply");
}

}  // namespace
}  // namespace kiln::cli
