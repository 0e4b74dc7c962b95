#include "ir/graph.h"

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

}  // namespace kiln::ir
