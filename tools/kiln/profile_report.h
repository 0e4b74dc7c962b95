// The tables of `kiln profile` and `kiln bench --profile`, from Kiln's profile: a Chrome
// trace-event JSON file (SessionEndProfiling) with one complete ("X") event per node run.
//
//   std::vector<TraceEvent> events = ReadTrace(path);
//   ProfileTables t = Tabulate(events, boundary_us, NodeCosts(session, dims));
//   PrintTables(std::cout, t, header, 20);
#ifndef KILN_TOOLS_KILN_PROFILE_REPORT_H_
#define KILN_TOOLS_KILN_PROFILE_REPORT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "op_cost.h"

namespace kiln::cli {

// One complete event of the trace: a node's run.
struct TraceEvent {
  std::string name;     // the node's name
  std::string op_type;  // args.op_type, without its domain
  double ts_us = 0;     // start, microseconds since the profiler started
  double dur_us = 0;
  int64_t tid = 0;  // the thread it ran on (0 when the trace does not say)
};

// The complete ("X") events of a trace file in the JSON array format, or the object format's
// "traceEvents". Throws Error naming the file when it cannot be read or is not such a trace (an
// "X" event without a string name or numeric ts and dur).
std::vector<TraceEvent> ReadTrace(const std::string& path);

// Each event's self time: its duration less the durations of the events nested directly inside
// it on the same thread (a Loop's, If's or Scan's event contains its body's nodes' events), so
// that the self times add up to the time the nodes took, nothing counted twice. An event is
// nested in another of the same tid when its interval lies within the other's; of two with the
// same interval, the one later in the trace is the outer (Kiln records an event when its node
// ends). Never negative.
std::vector<double> SelfTimes(const std::vector<TraceEvent>& events);

// One row of a table: a node, or an op type with all its nodes.
struct ProfileRow {
  std::string name;             // the node's name (by-node rows); the op type (by-op-type rows)
  std::string op_type;          // with its domain outside ai.onnx
  int64_t nodes = 0;            // nodes of the row
  int64_t calls = 0;            // events counted
  double total_us = 0;          // self time (SelfTimes) summed over them
  bool counted = false;         // FLOPs are counted for the op
  std::optional<double> flops;  // over every call; empty when a node's are not known
};

struct ProfileTables {
  std::vector<ProfileRow> by_op_type;  // by total time, longest first (then by name)
  std::vector<ProfileRow> by_node;     // the same order
  ProfileRow total;                    // every node; flops over the counted ops only
  int64_t events_before = 0;           // events left out, before `from_us` (warm-up runs)
};

// Adds up the self times (SelfTimes) of the events that start at `from_us` or later, by node (by
// name; an unnamed node is listed as "(unnamed <op type>)") and by op type. `nodes` (NodeCosts)
// gives each node's op type with its domain and its FLOPs per run; a node it does not know keeps
// the trace's op type and no FLOPs.
ProfileTables Tabulate(const std::vector<TraceEvent>& events, double from_us,
                       const std::map<std::string, NodeCost>& nodes);

// Prints both tables: the op types, then the `top` longest nodes, each with a totals line; self
// ms in all and per call, % of the summed self time, and GFLOP/s ("-" when not known or not
// counted).
void PrintTables(std::ostream& out, const ProfileTables& tables, int64_t top);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_PROFILE_REPORT_H_
