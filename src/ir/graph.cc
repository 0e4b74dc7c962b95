#include "ir/graph.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <utility>

#include "core/error.h"

namespace kiln::ir {

const char* AttrTypeName(AttrType type) noexcept {
  switch (type) {
    case AttrType::kFloat:
      return "float";
    case AttrType::kInt:
      return "int";
    case AttrType::kString:
      return "string";
    case AttrType::kTensor:
      return "tensor";
    case AttrType::kGraph:
      return "graph";
    case AttrType::kFloats:
      return "floats";
    case AttrType::kInts:
      return "ints";
    case AttrType::kStrings:
      return "strings";
    case AttrType::kTensors:
      return "tensors";
    case AttrType::kGraphs:
      return "graphs";
    case AttrType::kSparseTensor:
      return "sparse_tensor";
    case AttrType::kSparseTensors:
      return "sparse_tensors";
    case AttrType::kTypeProto:
      return "type_proto";
    case AttrType::kTypeProtos:
      return "type_protos";
    case AttrType::kUndefined:
      break;
  }
  return "undefined";
}

std::string SparseTensorProblem(const SparseTensor& s) {
  if (s.values == nullptr || s.indices == nullptr) return "has no values or no indices";
  if (s.dims.empty()) return "has no dense shape";
  int64_t dense = 1;
  for (int64_t d : s.dims) {
    if (d < 0) return "has a negative dimension";
    dense = d == 0 ? 0 : (dense > INT64_MAX / d ? INT64_MAX : dense * d);
  }
  if (s.values->shape().rank() != 1) return "values are not 1-D";
  const int64_t nnz = s.values->shape().dims()[0];
  if (s.indices->type() != DataType::kInt64) return "indices are not int64";
  const std::vector<int64_t>& id = s.indices->shape().dims();
  const int64_t rank = static_cast<int64_t>(s.dims.size());
  const bool linear = id.size() == 1 && id[0] == nnz;
  const bool coordinates = id.size() == 2 && id[0] == nnz && id[1] == rank;
  if (!linear && !coordinates) {
    return "indices have shape " + s.indices->shape().ToString() + ", not [" + std::to_string(nnz) +
           ", " + std::to_string(rank) + "] or [" + std::to_string(nnz) + "]";
  }
  const auto* p = static_cast<const int64_t*>(s.indices->data());
  for (int64_t k = 0; k < nnz; ++k) {
    if (linear) {
      if (p[k] < 0 || p[k] >= dense) return "index " + std::to_string(k) + " is outside the shape";
      continue;
    }
    for (int64_t r = 0; r < rank; ++r) {
      const int64_t v = p[k * rank + r];
      if (v < 0 || v >= s.dims[static_cast<size_t>(r)]) {
        return "index " + std::to_string(k) + " is outside the shape";
      }
    }
  }
  return "";
}

const Attribute* Node::FindAttribute(const std::string& name) const noexcept {
  for (const Attribute& a : attributes_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string Node::Describe() const {
  return "node '" + name_ + "' (" + op_type_ + ")";
}

Value* Graph::AddValue(const std::string& name) {
  auto value = std::make_unique<Value>(name);
  Value* v = value.get();
  if (!by_name_.emplace(name, v).second) {
    throw Error(ErrorCode::kInvalidGraph, "the name '" + name + "' is defined twice");
  }
  try {
    values_.push_back(std::move(value));
  } catch (...) {
    by_name_.erase(name);
    throw;
  }
  return v;
}

Value* Graph::FindValue(const std::string& name) const noexcept {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Node* Graph::AddNode(std::string name, std::string op_type, std::string domain) {
  nodes_.push_back(std::make_unique<Node>(std::move(name), std::move(op_type), std::move(domain)));
  return nodes_.back().get();
}

void Graph::Connect(Node* node, std::vector<Value*> inputs, std::vector<Value*> outputs,
                    std::vector<Value*> implicit_inputs) {
  for (Value* out : outputs) {
    if (out == nullptr) continue;
    if (out->producer_ != nullptr) {
      throw Error(ErrorCode::kInvalidGraph, node->Describe() + " writes '" + out->name() +
                                                "', which " + out->producer_->Describe() +
                                                " already produces");
    }
    if (out->initializer_ != nullptr) {
      throw Error(ErrorCode::kInvalidGraph,
                  node->Describe() + " writes '" + out->name() + "', which is an initializer");
    }
  }
  // Room first, so that no push below can fail halfway (a value read twice gets room twice).
  const size_t reads = inputs.size() + implicit_inputs.size();
  for (Value* in : inputs) {
    if (in != nullptr) in->consumers_.reserve(in->consumers_.size() + reads);
  }
  for (Value* in : implicit_inputs) in->consumers_.reserve(in->consumers_.size() + reads);
  for (Value* in : inputs) {
    if (in != nullptr) in->consumers_.push_back(node);
  }
  for (Value* in : implicit_inputs) in->consumers_.push_back(node);
  for (Value* out : outputs) {
    if (out != nullptr) out->producer_ = node;
  }
  node->inputs_ = std::move(inputs);
  node->outputs_ = std::move(outputs);
  node->implicit_inputs_ = std::move(implicit_inputs);
}

void Graph::SetImplicitInputs(Node* node, std::vector<Value*> implicit_inputs) {
  for (Value* in : implicit_inputs) in->consumers_.reserve(in->consumers_.size() + 1);
  for (Value* in : node->implicit_inputs_) DropConsumer(in, node);
  for (Value* in : implicit_inputs) in->consumers_.push_back(node);
  node->implicit_inputs_ = std::move(implicit_inputs);
}

std::string Graph::UniqueName(const std::string& base) const {
  if (by_name_.find(base) == by_name_.end()) return base;
  for (size_t k = 1;; ++k) {
    std::string name = base + "_" + std::to_string(k);
    if (by_name_.find(name) == by_name_.end()) return name;
  }
}

void Graph::DropConsumer(Value* v, const Node* node) {
  if (v == nullptr) return;
  std::vector<Node*>& c = v->consumers_;
  auto it = std::find(c.begin(), c.end(), node);
  if (it != c.end()) c.erase(it);
}

void Graph::RemoveNode(Node* node) {
  for (Value* in : node->inputs_) DropConsumer(in, node);
  for (Value* in : node->implicit_inputs_) DropConsumer(in, node);
  for (Value* out : node->outputs_) {
    if (out != nullptr && out->producer_ == node) out->producer_ = nullptr;
  }
  auto it = std::find_if(nodes_.begin(), nodes_.end(),
                         [&](const std::unique_ptr<Node>& n) { return n.get() == node; });
  if (it != nodes_.end()) nodes_.erase(it);
}

void Graph::SetInput(Node* node, size_t index, Value* value) {
  if (index >= node->inputs_.size()) node->inputs_.resize(index + 1, nullptr);
  DropConsumer(node->inputs_[index], node);
  node->inputs_[index] = value;
  if (value != nullptr) value->consumers_.push_back(node);
}

bool Graph::ReplaceUses(Value* from, Value* to) {
  if (from == to) return true;
  if (std::find(outputs_.begin(), outputs_.end(), from) != outputs_.end()) return false;
  for (const Node* c : from->consumers_) {
    if (std::find(c->implicit_inputs_.begin(), c->implicit_inputs_.end(), from) !=
        c->implicit_inputs_.end()) {
      return false;
    }
  }
  const std::vector<Node*> consumers = from->consumers_;
  for (Node* c : consumers) {
    for (size_t i = 0; i < c->inputs_.size(); ++i) {
      if (c->inputs_[i] == from) SetInput(c, i, to);
    }
  }
  return true;
}

bool Graph::IsUsed(const Value* v) const noexcept {
  return !v->consumers_.empty() || std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end();
}

void Graph::RemoveValue(const Value* value) noexcept {
  auto it = std::find_if(values_.begin(), values_.end(),
                         [&](const std::unique_ptr<Value>& v) { return v.get() == value; });
  if (it == values_.end()) return;
  by_name_.erase((*it)->name_);
  values_.erase(it);
}

std::vector<const Value*> Graph::RemoveDeadValues() {
  std::vector<const Value*> removed;
  std::unordered_set<const Value*> named(inputs_.begin(), inputs_.end());
  named.insert(outputs_.begin(), outputs_.end());
  named.insert(captures_.begin(), captures_.end());
  std::vector<std::unique_ptr<Value>> kept;
  kept.reserve(values_.size());
  for (std::unique_ptr<Value>& v : values_) {
    if (v->producer_ == nullptr && v->consumers_.empty() && !v->outer_ &&
        named.count(v.get()) == 0) {
      by_name_.erase(v->name_);
      removed.push_back(v.get());
      continue;
    }
    kept.push_back(std::move(v));
  }
  values_ = std::move(kept);  // destroys the removed values
  return removed;
}

std::vector<Node*> Graph::TopologicalOrder() const {
  std::unordered_map<const Node*, size_t> pending;  // producers not yet placed
  pending.reserve(nodes_.size());
  std::vector<Node*> ready;
  for (const auto& n : nodes_) {
    size_t count = 0;
    for (const Value* in : n->inputs_) {
      if (in != nullptr && in->producer_ != nullptr) ++count;
    }
    for (const Value* in : n->implicit_inputs_) {
      if (in->producer_ != nullptr) ++count;
    }
    pending[n.get()] = count;
    if (count == 0) ready.push_back(n.get());
  }
  std::vector<Node*> order;
  order.reserve(nodes_.size());
  // Take ready nodes in their model order so the result is stable.
  size_t next = 0;
  while (next < ready.size()) {
    Node* n = ready[next++];
    order.push_back(n);
    for (const Value* out : n->outputs_) {
      if (out == nullptr) continue;
      for (Node* c : out->consumers_) {
        // A node that reads the same value twice counted it twice.
        if (--pending[c] == 0) ready.push_back(c);
      }
    }
  }
  if (order.size() != nodes_.size()) {
    for (const auto& n : nodes_) {
      if (pending[n.get()] != 0) {
        throw Error(ErrorCode::kInvalidGraph,
                    "the graph has a cycle: " + n->Describe() + " waits on its own output");
      }
    }
  }
  return order;
}

namespace {

std::vector<Value*> Mapped(const std::vector<Value*>& values,
                           const std::unordered_map<const Value*, Value*>& to) {
  std::vector<Value*> out;
  out.reserve(values.size());
  for (const Value* v : values) out.push_back(v == nullptr ? nullptr : to.at(v));
  return out;
}

}  // namespace

std::shared_ptr<Graph> CloneGraph(const Graph& graph) {
  auto g = std::make_shared<Graph>();
  g->name() = graph.name();
  std::unordered_map<const Value*, Value*> to;
  to.reserve(graph.values().size());
  for (const auto& v : graph.values()) {
    Value* c = g->AddValue(v->name());
    c->type() = v->type();
    c->set_initializer(v->initializer());
    c->set_default_value(v->default_value());
    c->set_outer(v->is_outer());
    to.emplace(v.get(), c);
  }
  g->inputs() = Mapped(graph.inputs(), to);
  g->outputs() = Mapped(graph.outputs(), to);
  g->captures() = Mapped(graph.captures(), to);
  for (const auto& n : graph.nodes()) {
    Node* c = g->AddNode(n->name(), n->op_type(), n->domain());
    c->set_opset(n->opset());
    c->fused_from() = n->fused_from();
    c->attributes() = n->attributes();
    for (Attribute& a : c->attributes()) {
      if (a.g) a.g = CloneGraph(*a.g);
      for (auto& sub : a.graphs) sub = CloneGraph(*sub);
    }
    g->Connect(c, Mapped(n->inputs(), to), Mapped(n->outputs(), to),
               Mapped(n->implicit_inputs(), to));
  }
  return g;
}

Model CloneModel(const Model& model) {
  Model m;
  m.ir_version = model.ir_version;
  m.opsets = model.opsets;
  m.producer_name = model.producer_name;
  m.producer_version = model.producer_version;
  m.domain = model.domain;
  m.model_version = model.model_version;
  m.doc_string = model.doc_string;
  m.graph_doc_string = model.graph_doc_string;
  m.metadata = model.metadata;
  if (model.graph != nullptr) m.graph = CloneGraph(*model.graph);
  return m;
}

}  // namespace kiln::ir
