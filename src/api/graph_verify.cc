// ModelVerify's node rules: what onnx.checker checks of each node against its operator's schema
// (input and output counts, attribute names, types and the required ones), from the table of
// ONNX 1.12's schemas in onnx_schemas.inc (scripts/gen_onnx_schemas.py).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/graph_handles.h"
#include "core/error.h"

namespace kiln::api::graph {
namespace {

struct Schema {
  const char* domain;
  const char* op_type;
  int64_t since;
  int64_t min_inputs;
  int64_t max_inputs;
  int64_t min_outputs;
  int64_t max_outputs;
  const char* attributes;  // "name=type[!];…", '!' for a required one
  bool deprecated;
};
constexpr Schema kSchemas[] = {
#include "api/onnx_schemas.inc"
};

// The newest opset of `domain` the table knows (0: none).
int64_t NewestKnown(std::string_view domain) {
  int64_t newest = 0;
  for (const Schema& s : kSchemas) {
    if (domain == s.domain && s.since > newest) newest = s.since;
  }
  return newest;
}

const Schema* Find(std::string_view domain, std::string_view op_type, int64_t opset) {
  const Schema* best = nullptr;
  for (const Schema& s : kSchemas) {
    if (s.since <= opset && op_type == s.op_type && domain == s.domain &&
        (best == nullptr || s.since > best->since)) {
      best = &s;
    }
  }
  return best;
}

struct AttributeRule {
  int type;
  bool required;
};

std::unordered_map<std::string, AttributeRule> Rules(std::string_view text) {
  std::unordered_map<std::string, AttributeRule> rules;
  while (!text.empty()) {
    const size_t end = text.find(';');
    std::string_view item = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const size_t eq = item.find('=');
    AttributeRule r{0, false};
    std::string_view type = item.substr(eq + 1);
    if (!type.empty() && type.back() == '!') {
      r.required = true;
      type.remove_suffix(1);
    }
    for (const char c : type) r.type = r.type * 10 + (c - '0');
    rules.emplace(std::string(item.substr(0, eq)), r);
  }
  return rules;
}

std::string Count(int64_t min, int64_t max) {
  if (min == max) return std::to_string(min);
  if (max >= INT32_MAX) return std::to_string(min) + " or more";
  return std::to_string(min) + " to " + std::to_string(max);
}

void CheckNode(const ir::Node& n) {
  const int64_t opset = n.opset();
  if (opset <= 0 || opset > NewestKnown(n.domain())) return;  // newer than the table: not here
  const Schema* s = Find(n.domain(), n.op_type(), opset);
  if (s == nullptr || s->deprecated) return;  // (an op ONNX lacks there: the kernels decide)
  const std::string op = n.op_type() + " (opset " + std::to_string(opset) + ")";
  auto bad = [&](const std::string& what) {
    throw Error(ErrorCode::kInvalidGraph, n.Describe() + ": " + what);
  };
  const auto inputs = static_cast<int64_t>(n.inputs().size());
  const auto outputs = static_cast<int64_t>(n.outputs().size());
  if (inputs < s->min_inputs || inputs > s->max_inputs) {
    bad("has " + std::to_string(inputs) + " inputs; " + op + " takes " +
        Count(s->min_inputs, s->max_inputs));
  }
  if (outputs < s->min_outputs || outputs > s->max_outputs) {
    bad("has " + std::to_string(outputs) + " outputs; " + op + " gives " +
        Count(s->min_outputs, s->max_outputs));
  }
  const std::unordered_map<std::string, AttributeRule> rules = Rules(s->attributes);
  for (const ir::Attribute& a : n.attributes()) {
    auto it = rules.find(a.name);
    if (it == rules.end()) bad("attribute '" + a.name + "' is not one " + op + " has");
    if (it->second.type != static_cast<int>(a.type)) {
      bad("attribute '" + a.name + "' is of type " + ir::AttrTypeName(a.type) + ", but " + op +
          " takes " + ir::AttrTypeName(static_cast<ir::AttrType>(it->second.type)));
    }
  }
  for (const auto& [name, rule] : rules) {
    if (rule.required && n.FindAttribute(name) == nullptr) {
      std::string what = op;
      what += " requires attribute '";
      what += name;
      what += "'";
      bad(what);
    }
  }
}

void CheckGraph(const ir::Graph& g) {
  for (const ir::Node* n : g.TopologicalOrder()) {
    CheckNode(*n);
    for (const ir::Attribute& a : n->attributes()) {
      if (a.type == ir::AttrType::kGraph && a.g) CheckGraph(*a.g);
      for (const auto& sub : a.graphs) CheckGraph(*sub);
    }
  }
}

}  // namespace

void CheckSchemas(const ir::Model& model) {
  CheckGraph(*model.graph);
}

}  // namespace kiln::api::graph
