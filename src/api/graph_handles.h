// The objects behind the graph API's handles (include/kiln/kiln_graph_api.h) and the rules they
// share. Handles form a tree that mirrors the IR: a model owns its main graph's handle, a graph
// the handles of its nodes and values, a node those of its attributes, an attribute those of its
// graphs and tensors, a value its type's and its initializer's. A handle the caller owns is the
// root of its own tree; an `…Owned…` entry moves it under a parent (and makes it permanent in the
// registry, so that its Release entry refuses it). Destroying a handle unregisters it and frees
// its subtree, so a view used after its root is gone is reported, not followed.
//
// Borrowed handles are made on first use, under GraphMutex(), so that many threads may read one
// model (a session's views) at once; building is single-threaded by contract.
#ifndef KILN_API_GRAPH_HANDLES_H_
#define KILN_API_GRAPH_HANDLES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/handles.h"
#include "ir/graph.h"
#include "kiln/kiln_graph_api.h"
#include "runtime/plan.h"
#include "runtime/session.h"

struct KilnTypeInfo {
  KilnTypeInfo() = default;
  KilnTypeInfo(const KilnTypeInfo&) = delete;
  KilnTypeInfo& operator=(const KilnTypeInfo&) = delete;
  ~KilnTypeInfo();
  std::shared_ptr<const kiln::ir::TypeInfo> own;    // a created (or inferred) type
  const kiln::ir::TypeInfo* type = nullptr;         // what it describes (`own`, or a value's)
  mutable std::unique_ptr<KilnTypeInfo> contained;  // TypeInfoGetContainedType's, made once
};

struct KilnAttribute {
  KilnAttribute() = default;
  KilnAttribute(const KilnAttribute&) = delete;
  KilnAttribute& operator=(const KilnAttribute&) = delete;
  ~KilnAttribute();
  // Owned by the caller: the attribute itself. Once a node owns it: the node and its index.
  std::unique_ptr<kiln::ir::Attribute> own;
  KilnNode* node = nullptr;
  size_t index = 0;
  // The handles of its graphs (parallel to ir::Attribute::g / graphs: graphs[0] for g) and of its
  // tensors (made on first use).
  std::vector<std::unique_ptr<KilnGraph>> graphs;
  mutable std::vector<std::unique_ptr<KilnValue>> tensors;
  // Of SPARSE_TENSOR(S): per sparse tensor, its values' and its indices' (2k and 2k + 1); of
  // TYPE_PROTO(S): per type. Made on first use.
  mutable std::vector<std::unique_ptr<KilnValue>> sparse_parts;
  mutable std::vector<std::unique_ptr<KilnTypeInfo>> types;

  const kiln::ir::Attribute& get() const;
};

// A node the caller made and still owns: what GraphAddOwnedNode links into a graph.
struct NodeSpec {
  std::string name;
  std::string op_type;
  std::string domain;
  std::vector<std::string> inputs;   // "": left out
  std::vector<std::string> outputs;  // "": left out
  std::vector<kiln::ir::Attribute> attributes;
};

struct KilnNode {
  KilnNode() = default;
  KilnNode(const KilnNode&) = delete;
  KilnNode& operator=(const KilnNode&) = delete;
  ~KilnNode();
  std::unique_ptr<NodeSpec> spec;  // while the caller owns it
  KilnGraph* graph = nullptr;      // once a graph owns it
  kiln::ir::Node* node = nullptr;
  // Index-aligned with the node's attributes; null where no handle was asked for yet.
  mutable std::vector<std::unique_ptr<KilnAttribute>> attributes;
  mutable std::string kernel;  // NodeGetKernel's text, made once
  mutable bool kernel_known = false;

  const std::string& name() const { return spec ? spec->name : node->name(); }
  const std::string& op_type() const { return spec ? spec->op_type : node->op_type(); }
  const std::string& domain() const { return spec ? spec->domain : node->domain(); }
  std::vector<kiln::ir::Attribute>& attrs() { return spec ? spec->attributes : node->attributes(); }
  const std::vector<kiln::ir::Attribute>& attrs() const {
    return spec ? spec->attributes : node->attributes();
  }
};

struct KilnValueInfo {
  KilnValueInfo() = default;
  KilnValueInfo(const KilnValueInfo&) = delete;
  KilnValueInfo& operator=(const KilnValueInfo&) = delete;
  ~KilnValueInfo();
  // Owned by the caller: a name and a type. Once a graph owns it: the graph's value.
  std::string name;
  kiln::ir::TypeInfo declared;
  KilnGraph* graph = nullptr;
  kiln::ir::Value* value = nullptr;
  mutable std::unique_ptr<KilnTypeInfo> type;  // ValueInfoGetType's, made once
  mutable std::unique_ptr<KilnValue> initializer;
};

struct KilnGraph {
  KilnGraph() = default;
  KilnGraph(const KilnGraph&) = delete;
  KilnGraph& operator=(const KilnGraph&) = delete;
  ~KilnGraph();
  std::shared_ptr<kiln::ir::Graph> graph;
  // Its owner: none (the caller), a model (its main graph) or an attribute (a subgraph).
  KilnModel* model = nullptr;
  KilnAttribute* attribute = nullptr;
  mutable std::unordered_map<const kiln::ir::Node*, std::unique_ptr<KilnNode>> nodes;
  mutable std::unordered_map<const kiln::ir::Value*, std::unique_ptr<KilnValueInfo>> values;
  // Value infos the caller gave (GraphSetOwnedInputs/Outputs) for a value that had a handle.
  std::vector<std::unique_ptr<KilnValueInfo>> adopted;
  // Caches, dropped by every change made through this handle.
  mutable std::vector<kiln::ir::Node*> order;  // GraphGetNode's
  mutable bool order_known = false;
  mutable uint64_t order_generation = 0;  // LinkGeneration() when `order` was made
  // On the outermost graph of a tree being built: a change since the links between its graphs
  // (captured names, implicit inputs) were last worked out (Relink).
  mutable bool links_dirty = false;
  mutable std::vector<kiln::ir::Value*> constants;  // GraphGetInitializer's
  mutable bool constants_known = false;
  void Changed() const noexcept {
    order_known = false;
    constants_known = false;
  }
};

struct KilnModel {
  KilnModel() = default;
  KilnModel(const KilnModel&) = delete;
  KilnModel& operator=(const KilnModel&) = delete;
  ~KilnModel();
  std::unique_ptr<kiln::ir::Model> own;  // a model the caller made or read
  const kiln::ir::Model* model = nullptr;
  // A session's view: read-only; `plan` (the optimized view's) gives each node's kernel.
  bool read_only = false;
  std::shared_ptr<const kiln::runtime::Session> session;
  const kiln::runtime::GraphPlan* plan = nullptr;
  // A view's opset imports: the model's and the domains its optimized nodes add.
  std::map<std::string, int64_t> view_opsets;
  std::unique_ptr<KilnGraph> graph;  // the main graph's handle

  const std::map<std::string, int64_t>& opsets() const {
    return read_only ? view_opsets : model->opsets;
  }
};

namespace kiln::api {

template <>
struct HandleTraits<KilnModel> {
  static constexpr HandleKind kKind = HandleKind::kModel;
};
template <>
struct HandleTraits<KilnGraph> {
  static constexpr HandleKind kKind = HandleKind::kGraph;
};
template <>
struct HandleTraits<KilnNode> {
  static constexpr HandleKind kKind = HandleKind::kNode;
};
template <>
struct HandleTraits<KilnValueInfo> {
  static constexpr HandleKind kKind = HandleKind::kValueInfo;
};
template <>
struct HandleTraits<KilnAttribute> {
  static constexpr HandleKind kKind = HandleKind::kAttribute;
};
template <>
struct HandleTraits<KilnTypeInfo> {
  static constexpr HandleKind kKind = HandleKind::kTypeInfo;
};

namespace graph {

// Held while a borrowed handle is looked up or made.
std::mutex& GraphMutex() noexcept;

// Registers a borrowed handle (permanent: no Release entry frees it) and returns it.
template <class H>
H* Borrowed(std::unique_ptr<H>& slot, std::unique_ptr<H> made) {
  registry::Add(made.get(), HandleTraits<H>::kKind, /*permanent=*/true);
  slot = std::move(made);
  return slot.get();
}

// The model a graph (or a node's, a value's graph) belongs to; null for one no model owns.
const KilnModel* ModelOf(const KilnGraph& graph) noexcept;
// The graph holding the node whose attribute owns `graph`; null for a graph no node owns.
const KilnGraph* Owner(const KilnGraph& graph) noexcept;
// Throws INVALID_ARGUMENT naming `argument` when `graph` lies inside `node` (one of its
// attributes' graphs, at any depth) or inside `attribute`: adding one to the other would make
// an ownership cycle.
void CheckNoCycle(const KilnGraph* graph, const KilnNode* node, const KilnAttribute* attribute,
                  const char* argument);
// Throws INVALID_ARGUMENT naming `argument` when the graph is part of a session's view.
void CheckWritable(const KilnGraph& graph, const char* argument);
// Throws INVALID_ARGUMENT naming `argument` unless the caller owns the handle: the ones an
// `…Owned…` entry may take (not yet given to a model, a node, a graph or an attribute).
void CheckCallerOwned(const KilnGraph& graph, const char* argument);
void CheckCallerOwned(const KilnNode& node, const char* argument);
void CheckCallerOwned(const KilnValueInfo& value, const char* argument);
void CheckCallerOwned(const KilnAttribute& attribute, const char* argument);

// Throws INVALID_ARGUMENT naming "index" unless index < count ("3 is out of range: the graph has 2
// inputs", with `what` = "inputs").
void CheckIndex(size_t index, size_t count, const char* what);

// A borrowed view of a string.
inline KilnStringRef Ref(const std::string& s) noexcept {
  return KilnStringRef{s.c_str(), s.size()};
}

// "CPU ai.onnx::Conv opsets 11+": the text NodeGetKernel gives for a node run by `def`.
std::string KernelName(const KernelDef& def);

// ONNX's since-version of an op at an opset: the newest version in which ONNX (re)defined it
// not past `opset` (src/api/onnx_since_versions.inc); 0 for an op ONNX does not define there.
int64_t OnnxSinceVersion(std::string_view domain, std::string_view op_type, int64_t opset);

// What a session's plan inferred of a value of its main graph, as a type (declared dimension
// names kept); null when the declaration says as much, or for a value that is not a tensor.
std::shared_ptr<const ir::TypeInfo> InferredType(const runtime::GraphPlan& plan,
                                                 const ir::Value& value);

// The handles of a graph's parts, made on first use (callers hold GraphMutex()).
KilnNode* NodeHandle(const KilnGraph& graph, ir::Node* node);
KilnValueInfo* ValueHandle(const KilnGraph& graph, ir::Value* value);
KilnGraph* SubgraphHandle(const KilnAttribute& attribute, size_t index);
KilnAttribute* AttributeHandle(const KilnNode& node, size_t index);
KilnTypeInfo* TypeHandle(const KilnValueInfo& value);
const KilnValue* TensorHandle(std::unique_ptr<KilnValue>& slot,
                              const std::shared_ptr<const Tensor>& tensor);

// The nodes of the graph in topological order (the order they were added in when there is a
// cycle), and its initializers (and inputs with a default) by name. Cached in the handle.
const std::vector<ir::Node*>& Order(const KilnGraph& graph);
const std::vector<ir::Value*>& Constants(const KilnGraph& graph);

// The kernel a node of a session's optimized view runs with; null elsewhere (or for a node folded
// into a constant at load).
const KernelDef* KernelDefOf(const KilnNode& node);
// The text NodeGetKernel gives ("" outside a session's optimized view).
const std::string& KernelText(const KilnNode& node);

// After a change to `graph` (a caller's model or graph being built): drops its caches and marks
// the links of its outermost graph to be worked out again. Callers hold GraphMutex().
void MarkChanged(const KilnGraph& graph) noexcept;
// Counts changes and relinks (under GraphMutex()): caches made at another count are stale.
uint64_t& LinkGeneration() noexcept;
// Works out, in place, what each subgraph of the tree `graph` belongs to reads from the graphs
// around it (captured names) and the implicit inputs of the nodes holding them, when a change
// since asks for it: what the read entries that show links call first. Callers hold
// GraphMutex(). Throws std::bad_alloc (the links are worked out again next time).
void Relink(const KilnGraph& graph);

// ONNX's checker's node rules (graph_verify.cc): every node of a domain and opset ONNX 1.12
// defines has the input and output counts, attribute names and types and required attributes
// of its operator's schema. Throws kInvalidGraph naming the node.
void CheckSchemas(const ir::Model& model);

// A copy of a built (or read) model made ready for a session, the writer or the verifier: the
// captured names of its subgraphs and the implicit inputs of their nodes found, every node given
// the opset its domain imports. Throws kInvalidGraph naming the node or value at fault: an input
// nothing defines, a domain not imported, a cycle, a model without a graph.
ir::Model PreparedCopy(const ir::Model& model);

}  // namespace graph
}  // namespace kiln::api

#endif  // KILN_API_GRAPH_HANDLES_H_
