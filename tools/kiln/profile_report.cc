#include "profile_report.h"

#include <algorithm>
#include <cstdio>

#include "args.h"
#include "json.h"
#include "tensor_file.h"

namespace kiln::cli {

std::vector<TraceEvent> ReadTrace(const std::string& path) {
  const JsonValue doc = ParseJson(ReadFile(path), path);
  const JsonValue* list = &doc;
  if (doc.kind == JsonValue::kObject) list = doc.Find("traceEvents");
  if (list == nullptr || list->kind != JsonValue::kArray) {
    throw Error(path +
                ": not a Chrome trace (a JSON array of events, or an object with "
                "\"traceEvents\")");
  }
  std::vector<TraceEvent> events;
  for (size_t i = 0; i < list->items.size(); ++i) {
    const JsonValue& e = list->items[i];
    const JsonValue* ph = e.Find("ph");
    if (e.kind != JsonValue::kObject || ph == nullptr || ph->text != "X") continue;
    const JsonValue* name = e.Find("name");
    const JsonValue* ts = e.Find("ts");
    const JsonValue* dur = e.Find("dur");
    if (name == nullptr || name->kind != JsonValue::kString || ts == nullptr ||
        ts->kind != JsonValue::kNumber || dur == nullptr || dur->kind != JsonValue::kNumber) {
      throw Error(path + ": trace event " + std::to_string(i) +
                  " is a complete event (\"ph\": \"X\") without a string name and numbers ts "
                  "and dur");
    }
    TraceEvent event{name->text, "", ts->number, dur->number};
    const JsonValue* tid = e.Find("tid");
    if (tid != nullptr && tid->kind == JsonValue::kNumber) {
      event.tid = static_cast<int64_t>(tid->number);
    }
    const JsonValue* args = e.Find("args");
    const JsonValue* op_type = args != nullptr ? args->Find("op_type") : nullptr;
    if (op_type != nullptr && op_type->kind == JsonValue::kString) event.op_type = op_type->text;
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<double> SelfTimes(const std::vector<TraceEvent>& events) {
  std::vector<double> self(events.size());
  std::vector<size_t> order(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    self[i] = events[i].dur_us;
    order[i] = i;
  }
  const auto end = [&](size_t i) { return events[i].ts_us + events[i].dur_us; };
  // By thread, then by start; of events starting together the longer first, and of equal ones
  // the later in the trace: each event comes after every event it is nested in.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const TraceEvent& x = events[a];
    const TraceEvent& y = events[b];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.ts_us != y.ts_us) return x.ts_us < y.ts_us;
    if (end(a) != end(b)) return end(a) > end(b);
    return a > b;
  });
  std::vector<size_t> open;  // the events enclosing the current one, innermost last
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (k > 0 && events[order[k - 1]].tid != events[i].tid) open.clear();
    // Starting no earlier than every open event, it is inside the innermost that it does not
    // outlast (every one enclosing that one too).
    while (!open.empty() && end(i) > end(open.back())) open.pop_back();
    if (!open.empty()) self[open.back()] -= events[i].dur_us;
    open.push_back(i);
  }
  for (double& t : self) t = std::max(t, 0.0);
  return self;
}

namespace {

void Add(ProfileRow& row, double dur_us, const std::optional<double>& flops_per_call) {
  ++row.calls;
  row.total_us += dur_us;
  if (row.counted && row.flops) {
    row.flops = flops_per_call ? *row.flops + *flops_per_call : std::optional<double>();
  }
}

std::vector<ProfileRow> Sorted(const std::map<std::string, ProfileRow>& rows) {
  std::vector<ProfileRow> sorted;
  sorted.reserve(rows.size());
  for (const auto& [key, row] : rows) sorted.push_back(row);
  std::stable_sort(sorted.begin(), sorted.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return a.total_us > b.total_us;
  });
  return sorted;
}

}  // namespace

ProfileTables Tabulate(const std::vector<TraceEvent>& events, double from_us,
                       const std::map<std::string, NodeCost>& nodes) {
  ProfileTables t;
  std::map<std::string, ProfileRow> by_node;
  std::map<std::string, ProfileRow> by_op;
  t.total.name = "total";
  t.total.counted = true;
  t.total.flops = 0.0;
  const std::vector<double> self = SelfTimes(events);
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.ts_us < from_us) {
      ++t.events_before;
      continue;
    }
    const auto known = e.name.empty() ? nodes.end() : nodes.find(e.name);
    const NodeCost cost = known != nodes.end() ? known->second : NodeCost{e.op_type, false, {}};
    const std::string key = e.name.empty() ? "(unnamed " + cost.op_type + ")" : e.name;
    const auto make = [&](const std::string& name) {
      ProfileRow row;
      row.name = name;
      row.op_type = cost.op_type;
      row.counted = cost.counted;
      if (cost.counted) row.flops = 0.0;
      return row;
    };
    auto [node, new_node] = by_node.try_emplace(key, make(key));
    if (new_node) node->second.nodes = 1;
    Add(node->second, self[i], cost.flops);
    auto [op, new_op] = by_op.try_emplace(cost.op_type, make(cost.op_type));
    if (new_node) ++op->second.nodes;
    Add(op->second, self[i], cost.flops);
    if (new_node) ++t.total.nodes;
    ++t.total.calls;
    t.total.total_us += self[i];
    if (cost.counted && t.total.flops) {
      t.total.flops = cost.flops ? *t.total.flops + *cost.flops : std::optional<double>();
    }
  }
  t.by_node = Sorted(by_node);
  t.by_op_type = Sorted(by_op);
  return t;
}

namespace {

// `s` cut to `width` columns, its end kept ("...name" for a long node name).
std::string Fit(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return "..." + s.substr(s.size() - (width - 3));
}

std::string Gflops(const ProfileRow& row) {
  if (!row.counted || !row.flops || row.total_us <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", *row.flops / row.total_us / 1e3);
  return buf;
}

std::string Padded(const std::string& s, size_t width) {
  const std::string fit = Fit(s, width);
  return fit + std::string(width - fit.size(), ' ');
}

// A row: its name, then for a node its op type, else its node count; calls, self ms in all and
// per call, its share of `total_us`, GFLOP/s.
void PrintRow(std::ostream& out, const ProfileRow& row, double total_us, bool node_row,
              size_t name_width, size_t op_width) {
  char nodes[32];
  std::snprintf(nodes, sizeof nodes, " %7lld", static_cast<long long>(row.nodes));
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, " %7lld %11.3f %9.3f %6.1f%% %8s\n",
                static_cast<long long>(row.calls), row.total_us / 1e3,
                row.total_us / 1e3 / static_cast<double>(std::max<int64_t>(row.calls, 1)),
                total_us > 0 ? 100.0 * row.total_us / total_us : 0.0, Gflops(row).c_str());
  out << Padded(row.name, name_width) << (node_row ? "  " + Padded(row.op_type, op_width) : nodes)
      << numbers;
}

}  // namespace

void PrintTables(std::ostream& out, const ProfileTables& t, int64_t top) {
  constexpr size_t kMaxWidth = 40;
  const double total_us = t.total.total_us;
  size_t op_width = 7;  // "op type"
  for (const ProfileRow& r : t.by_op_type) op_width = std::max(op_width, r.name.size());
  op_width = std::min(op_width, kMaxWidth);
  const size_t shown = std::min(t.by_node.size(), static_cast<size_t>(std::max<int64_t>(top, 0)));
  size_t node_width = 5;  // "total"
  for (size_t i = 0; i < shown; ++i) node_width = std::max(node_width, t.by_node[i].name.size());
  node_width = std::min(node_width, kMaxWidth);
  char head[256];

  out << "by op type (self time: a Loop, If or Scan counts its own time only; % of the summed "
         "self time)\n";
  std::snprintf(head, sizeof head, "%-*s %7s %7s %11s %9s %7s %8s\n", static_cast<int>(op_width),
                "op type", "nodes", "calls", "self ms", "mean ms", "%", "GFLOP/s");
  out << head;
  for (const ProfileRow& r : t.by_op_type) PrintRow(out, r, total_us, false, op_width, 0);
  PrintRow(out, t.total, total_us, false, op_width, 0);

  out << "\ntop " << shown << " of " << t.by_node.size()
      << " nodes by self time (% of the summed self time)\n";
  std::snprintf(head, sizeof head, "%-*s  %-*s %7s %11s %9s %7s %8s\n",
                static_cast<int>(node_width), "node", static_cast<int>(op_width), "op type",
                "calls", "self ms", "mean ms", "%", "GFLOP/s");
  out << head;
  for (size_t i = 0; i < shown; ++i) {
    PrintRow(out, t.by_node[i], total_us, true, node_width, op_width);
  }
  ProfileRow total = t.total;
  total.op_type = std::to_string(t.total.nodes) + (t.total.nodes == 1 ? " node" : " nodes");
  PrintRow(out, total, total_us, true, node_width, op_width);
}

}  // namespace kiln::cli
