// The in-memory model: a Graph of Nodes and Values. No protobuf beyond src/onnx; the loader builds
// this, the optimizer rewrites it, the planner reads it.
//
//   kiln::ir::Graph g;
//   kiln::ir::Value* x = g.AddValue("x");
//   g.inputs().push_back(x);
//   kiln::ir::Node* relu = g.AddNode("relu0", "Relu", "");
//   g.Connect(relu, {x}, {g.AddValue("y")});
#ifndef KILN_IR_GRAPH_H_
#define KILN_IR_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/data_type.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "ir/attribute.h"

namespace kiln::ir {

class Node;

// What a value holds. Sequences and optionals carry the element type of their tensors; a map its
// key type (in TypeInfo::elem) and its value type (TypeInfo::contained). A sparse tensor is typed
// as a tensor is; no kernel takes one.
enum class ValueKind : int {
  kUnknown = 0,
  kTensor = 1,
  kSequence = 2,
  kOptional = 3,
  kMap = 4,
  kSparseTensor = 5,
};

// Static type knowledge: the element type (kUndefined when unknown) and the shape, when its rank is
// known (dimensions -1 where unknown, with symbolic names where the model gives them).
struct TypeInfo {
  ValueKind kind = ValueKind::kUnknown;
  DataType elem = DataType::kUndefined;
  std::optional<Shape> shape;
  // For kSequence/kOptional: the type of the contained value; for kMap: the value type.
  std::shared_ptr<const TypeInfo> contained;
  // The ONNX denotation of each dimension (TensorShapeProto.Dimension.denotation, such as
  // "DATA_BATCH"), "" where a dimension has none; empty when no dimension has one. Kept for graph
  // inputs (AddFreeDimensionOverride matches them).
  std::vector<std::string> dim_denotations;
};

// A named edge. One producer (a node, or none for graph inputs, initializers and values captured
// from an enclosing graph) and any number of consumers.
class Value {
 public:
  explicit Value(std::string name) : name_(std::move(name)) {}
  const std::string& name() const noexcept { return name_; }
  TypeInfo& type() noexcept { return type_; }
  const TypeInfo& type() const noexcept { return type_; }
  Node* producer() const noexcept { return producer_; }
  const std::vector<Node*>& consumers() const noexcept { return consumers_; }
  // The constant data when the value is an initializer; null otherwise.
  const std::shared_ptr<const Tensor>& initializer() const noexcept { return initializer_; }
  void set_initializer(std::shared_ptr<const Tensor> t) { initializer_ = std::move(t); }
  // For a graph input: the value it takes when a run does not feed it (an initializer the model
  // also lists as a graph input, IR >= 4: ONNX Runtime's overridable initializer); null otherwise.
  // Never a constant: a run may feed another value, so nothing may be folded or packed from it.
  const std::shared_ptr<const Tensor>& default_value() const noexcept { return default_value_; }
  void set_default_value(std::shared_ptr<const Tensor> t) { default_value_ = std::move(t); }
  // True for a name a subgraph reads from an enclosing graph.
  bool is_outer() const noexcept { return outer_; }
  void set_outer(bool outer) noexcept { outer_ = outer; }

 private:
  friend class Graph;
  std::string name_;
  TypeInfo type_;
  Node* producer_ = nullptr;
  std::vector<Node*> consumers_;
  std::shared_ptr<const Tensor> initializer_;
  std::shared_ptr<const Tensor> default_value_;
  bool outer_ = false;
};

class Node {
 public:
  Node(std::string name, std::string op_type, std::string domain)
      : name_(std::move(name)), op_type_(std::move(op_type)), domain_(std::move(domain)) {}
  const std::string& name() const noexcept { return name_; }
  const std::string& op_type() const noexcept { return op_type_; }
  // "" for the default ONNX domain (also written "ai.onnx" in models).
  const std::string& domain() const noexcept { return domain_; }
  // The opset version of domain() the model imports; set by the loader.
  int64_t opset() const noexcept { return opset_; }
  void set_opset(int64_t v) noexcept { opset_ = v; }
  void set_domain(std::string d) { domain_ = std::move(d); }
  // nullptr entries are optional inputs/outputs left out (an empty name in ONNX).
  const std::vector<Value*>& inputs() const noexcept { return inputs_; }
  const std::vector<Value*>& outputs() const noexcept { return outputs_; }
  // Values of this graph that the node's subgraphs read (captured names): dependencies that are
  // not inputs of the kernel.
  const std::vector<Value*>& implicit_inputs() const noexcept { return implicit_inputs_; }
  std::vector<Attribute>& attributes() noexcept { return attributes_; }
  const std::vector<Attribute>& attributes() const noexcept { return attributes_; }
  const Attribute* FindAttribute(const std::string& name) const noexcept;
  // The names of the nodes of the graph as loaded that this node stands for, when a rewrite
  // made it from them (optimizer::Replace); empty for a node as loaded (or one a pass added).
  std::vector<std::string>& fused_from() noexcept { return fused_from_; }
  const std::vector<std::string>& fused_from() const noexcept { return fused_from_; }
  // "node 'conv1' (Conv)" for messages; "node #3 (Conv)" style is produced by the loader when a
  // node has no name, so the name is never empty after loading.
  std::string Describe() const;

 private:
  friend class Graph;
  std::string name_;
  std::string op_type_;
  std::string domain_;
  int64_t opset_ = 0;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Value*> implicit_inputs_;
  std::vector<Attribute> attributes_;
  std::vector<std::string> fused_from_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::string& name() noexcept { return name_; }
  const std::string& name() const noexcept { return name_; }

  // Creates a value; the name must be new in this graph (throws kInvalidGraph otherwise).
  Value* AddValue(const std::string& name);
  // The value named `name` in this graph, or nullptr.
  Value* FindValue(const std::string& name) const noexcept;
  Node* AddNode(std::string name, std::string op_type, std::string domain);
  // Sets the node's inputs, outputs and implicit inputs and records producer/consumer links. An
  // output that already has a producer is an error (kInvalidGraph, naming both nodes).
  void Connect(Node* node, std::vector<Value*> inputs, std::vector<Value*> outputs,
               std::vector<Value*> implicit_inputs = {});

  std::vector<Value*>& inputs() noexcept { return inputs_; }
  const std::vector<Value*>& inputs() const noexcept { return inputs_; }
  std::vector<Value*>& outputs() noexcept { return outputs_; }
  const std::vector<Value*>& outputs() const noexcept { return outputs_; }
  // In the order they were added; TopologicalOrder() gives an executable one.
  const std::vector<std::unique_ptr<Node>>& nodes() const noexcept { return nodes_; }
  const std::vector<std::unique_ptr<Value>>& values() const noexcept { return values_; }
  // Names this graph reads from enclosing graphs (subgraphs of If/Loop/Scan), in first-use order.
  std::vector<Value*>& captures() noexcept { return captures_; }
  const std::vector<Value*>& captures() const noexcept { return captures_; }

  // Nodes in an order where every producer comes before its consumers. Throws kInvalidGraph
  // naming a node on the cycle when there is one.
  std::vector<Node*> TopologicalOrder() const;

  // Rewriting (the optimizer). Node and Value pointers stay valid until removed.
  // A value name not yet used in this graph, made from `base` ("base", "base_1", ...).
  std::string UniqueName(const std::string& base) const;
  // Unlinks the node from its inputs and outputs (the output values stay, producerless, so a
  // replacement node can Connect to them) and destroys it.
  void RemoveNode(Node* node);
  // Points input `index` of `node` at `value` (nullptr: left out), keeping consumer lists true.
  void SetInput(Node* node, size_t index, Value* value);
  // Replaces the node's implicit inputs (what its subgraphs read), keeping consumer lists true.
  void SetImplicitInputs(Node* node, std::vector<Value*> implicit_inputs);
  // Makes every node that reads `from` read `to` instead. Refuses (returns false, changes nothing)
  // when `from` is a graph output or is read by a subgraph (those refer to it by name).
  bool ReplaceUses(Value* from, Value* to);
  // Whether anything reads the value: a node, a subgraph, or the graph's outputs.
  bool IsUsed(const Value* v) const noexcept;
  // Destroys a value nothing produces or reads and the graph does not name (an input, output or
  // capture): one made for a change that then failed. Never throws.
  void RemoveValue(const Value* value) noexcept;
  // Destroys values nothing produces, reads or names (left behind by rewrites, initializers
  // included) and returns their former addresses (to forget, never to dereference).
  std::vector<const Value*> RemoveDeadValues();

 private:
  // Drops one entry for `node` from v's consumers (a node reading v twice has two).
  static void DropConsumer(Value* v, const Node* node);

  std::string name_;
  std::vector<std::unique_ptr<Value>> values_;
  std::unordered_map<std::string, Value*> by_name_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<Value*> captures_;
};

// A loaded model: the main graph and what the ModelProto says about itself.
struct Model {
  int64_t ir_version = 0;
  // Imported opset per domain ("" is the default ONNX domain).
  std::map<std::string, int64_t> opsets;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::string graph_doc_string;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<Graph> graph;
};

// A deep copy of the graph (its nodes, values, attributes and subgraphs, with producer, consumer
// and capture links remade); tensors (initializers, tensor attributes) are shared, not copied.
std::shared_ptr<Graph> CloneGraph(const Graph& graph);
// The model with its graph cloned (CloneGraph).
Model CloneModel(const Model& model);

}  // namespace kiln::ir

#endif  // KILN_IR_GRAPH_H_
