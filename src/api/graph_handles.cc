#include "api/graph_handles.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "core/error.h"
#include "kernels/registry.h"

using kiln::api::HandleKind;
namespace registry = kiln::api::registry;

// Every handle forgets itself when it goes: one its parent frees is reported, not followed.
KilnTypeInfo::~KilnTypeInfo() {
  registry::RemoveLent(this, HandleKind::kTypeInfo);
}
KilnAttribute::~KilnAttribute() {
  registry::RemoveLent(this, HandleKind::kAttribute);
  for (const auto& t : tensors) {
    if (t != nullptr) registry::RemoveLent(t.get(), HandleKind::kValue);
  }
  for (const auto& t : sparse_parts) {
    if (t != nullptr) registry::RemoveLent(t.get(), HandleKind::kValue);
  }
}
KilnNode::~KilnNode() {
  registry::RemoveLent(this, HandleKind::kNode);
}
KilnValueInfo::~KilnValueInfo() {
  registry::RemoveLent(this, HandleKind::kValueInfo);
  if (initializer) registry::RemoveLent(initializer.get(), HandleKind::kValue);
}
KilnGraph::~KilnGraph() {
  registry::RemoveLent(this, HandleKind::kGraph);
}
KilnModel::~KilnModel() {
  registry::RemoveLent(this, HandleKind::kModel);
}

const kiln::ir::Attribute& KilnAttribute::get() const {
  return own ? *own : node->attrs().at(index);
}

namespace kiln::api::graph {

std::mutex& GraphMutex() noexcept {
  static std::mutex mutex;
  return mutex;
}

const KilnGraph* Owner(const KilnGraph& graph) noexcept {
  if (graph.attribute == nullptr || graph.attribute->node == nullptr) return nullptr;
  return graph.attribute->node->graph;
}

const KilnModel* ModelOf(const KilnGraph& graph) noexcept {
  const KilnGraph* g = &graph;
  for (const KilnGraph* up = Owner(*g); up != nullptr; up = Owner(*g)) g = up;
  return g->model;
}

void CheckNoCycle(const KilnGraph* graph, const KilnNode* node, const KilnAttribute* attribute,
                  const char* argument) {
  for (const KilnGraph* g = graph; g != nullptr; g = Owner(*g)) {
    const bool inside =
        g->attribute != nullptr &&
        (g->attribute == attribute || (node != nullptr && g->attribute->node == node));
    if (inside) {
      ThrowInvalidArgument(argument, "holds the graph it would be added to (an ownership cycle)");
    }
  }
}

void CheckWritable(const KilnGraph& graph, const char* argument) {
  const KilnModel* m = ModelOf(graph);
  if (m != nullptr && m->read_only) {
    ThrowInvalidArgument(argument, "is part of a session's view, which cannot be changed");
  }
}

KilnNode* NodeHandle(const KilnGraph& graph, ir::Node* node) {
  auto it = graph.nodes.find(node);
  if (it != graph.nodes.end()) return it->second.get();
  auto made = std::make_unique<KilnNode>();
  made->graph = const_cast<KilnGraph*>(&graph);
  made->node = node;
  std::unique_ptr<KilnNode> slot;
  KilnNode* h = Borrowed(slot, std::move(made));
  try {
    graph.nodes.emplace(node, std::move(slot));
  } catch (...) {
    registry::RemoveLent(h, HandleKind::kNode);
    throw;
  }
  return h;
}

KilnValueInfo* ValueHandle(const KilnGraph& graph, ir::Value* value) {
  auto it = graph.values.find(value);
  if (it != graph.values.end()) return it->second.get();
  auto made = std::make_unique<KilnValueInfo>();
  made->graph = const_cast<KilnGraph*>(&graph);
  made->value = value;
  std::unique_ptr<KilnValueInfo> slot;
  KilnValueInfo* h = Borrowed(slot, std::move(made));
  try {
    graph.values.emplace(value, std::move(slot));
  } catch (...) {
    registry::RemoveLent(h, HandleKind::kValueInfo);
    throw;
  }
  return h;
}

KilnGraph* SubgraphHandle(const KilnAttribute& attribute, size_t index) {
  auto& slots = const_cast<KilnAttribute&>(attribute).graphs;
  if (slots.size() <= index) slots.resize(index + 1);
  if (slots[index] != nullptr) return slots[index].get();
  const ir::Attribute& a = attribute.get();
  const std::shared_ptr<const ir::Graph>& g =
      a.type == ir::AttrType::kGraph ? a.g : a.graphs.at(index);
  auto made = std::make_unique<KilnGraph>();
  made->graph = std::const_pointer_cast<ir::Graph>(g);
  made->attribute = const_cast<KilnAttribute*>(&attribute);
  return Borrowed(slots[index], std::move(made));
}

KilnAttribute* AttributeHandle(const KilnNode& node, size_t index) {
  if (node.attributes.size() <= index) node.attributes.resize(index + 1);
  if (node.attributes[index] != nullptr) return node.attributes[index].get();
  auto made = std::make_unique<KilnAttribute>();
  made->node = const_cast<KilnNode*>(&node);
  made->index = index;
  return Borrowed(node.attributes[index], std::move(made));
}

void CheckCallerOwned(const KilnGraph& graph, const char* argument) {
  if (graph.model != nullptr || graph.attribute != nullptr) {
    ThrowInvalidArgument(argument, std::string("is owned by ") +
                                       (graph.model != nullptr ? "a model" : "an attribute") +
                                       " (an Owned entry takes only what the caller owns)");
  }
}

void CheckCallerOwned(const KilnNode& node, const char* argument) {
  if (node.spec == nullptr) {
    ThrowInvalidArgument(argument,
                         "is owned by a graph (an Owned entry takes only what the caller owns)");
  }
}

void CheckCallerOwned(const KilnValueInfo& value, const char* argument) {
  if (value.graph != nullptr) {
    ThrowInvalidArgument(argument,
                         "is owned by a graph (an Owned entry takes only what the caller owns)");
  }
}

void CheckCallerOwned(const KilnAttribute& attribute, const char* argument) {
  if (attribute.own == nullptr) {
    ThrowInvalidArgument(argument,
                         "is owned by a node (an Owned entry takes only what the caller owns)");
  }
}

void CheckIndex(size_t index, size_t count, const char* what) {
  if (index >= count) {
    ThrowInvalidArgument("index", std::to_string(index) + " is out of range: there are " +
                                      std::to_string(count) + " " + what);
  }
}

std::string KernelName(const KernelDef& d) {
  const std::string domain = d.domain[0] == '\0' ? "ai.onnx" : d.domain;
  // A range still open (to the newest opset Kiln knows, or with no end) is written "N+".
  const std::string range = d.until >= kLatestOpset
                                ? std::to_string(d.since) + "+"
                                : std::to_string(d.since) + "-" + std::to_string(d.until);
  return std::string(d.create_with_state != nullptr ? "custom " : "CPU ") + domain +
         "::" + d.op_type + " opsets " + range;
}

namespace {

struct SinceVersion {
  const char* domain;
  const char* op_type;
  int64_t version;
};
constexpr SinceVersion kSinceVersions[] = {
#include "api/onnx_since_versions.inc"
};

}  // namespace

int64_t OnnxSinceVersion(std::string_view domain, std::string_view op_type, int64_t opset) {
  int64_t since = 0;
  for (const SinceVersion& s : kSinceVersions) {
    if (s.version <= opset && s.version > since && op_type == s.op_type && domain == s.domain) {
      since = s.version;
    }
  }
  return since;
}

std::shared_ptr<const ir::TypeInfo> InferredType(const runtime::GraphPlan& plan,
                                                 const ir::Value& value) {
  const ir::TypeInfo& declared = value.type();
  if (declared.kind != ir::ValueKind::kTensor && declared.kind != ir::ValueKind::kUnknown) {
    return nullptr;
  }
  const int slot = plan.SlotNamed(value.name());
  if (slot < 0) return nullptr;
  const infer::TensorFacts& f = plan.Facts(slot);
  if (f.type == DataType::kUndefined && !f.shape) return nullptr;
  auto t = std::make_shared<ir::TypeInfo>(declared);
  t->kind = ir::ValueKind::kTensor;
  if (t->elem == DataType::kUndefined) t->elem = f.type;
  if (!f.shape) return t;
  if (!t->shape) {
    t->shape = f.shape;
  } else if (t->shape->rank() == f.shape->rank()) {
    // Inferred dimensions where the declaration has none; declared names kept.
    std::vector<int64_t> dims = t->shape->dims();
    std::vector<std::string> symbols = t->shape->symbols();
    symbols.resize(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] < 0 && f.shape->dims()[d] >= 0) {
        dims[d] = f.shape->dims()[d];
        symbols[d].clear();
      } else if (dims[d] < 0 && symbols[d].empty() && d < f.shape->symbols().size()) {
        symbols[d] = f.shape->symbols()[d];
      }
    }
    t->shape = Shape(std::move(dims), std::move(symbols));
  }
  return t;
}

namespace {

// What the value's handle shows: in a session's optimized main graph, the inferred type.
std::shared_ptr<const ir::TypeInfo> Inferred(const KilnValueInfo& value) {
  const KilnModel* m = ModelOf(*value.graph);
  if (m == nullptr || m->plan == nullptr || value.graph->model == nullptr) return nullptr;
  return InferredType(*m->plan, *value.value);
}

}  // namespace

KilnTypeInfo* TypeHandle(const KilnValueInfo& value) {
  if (value.type != nullptr) return value.type.get();
  auto made = std::make_unique<KilnTypeInfo>();
  if (value.value == nullptr) {
    made->type = &value.declared;
  } else {
    made->own = Inferred(value);
    made->type = made->own != nullptr ? made->own.get() : &value.value->type();
  }
  return Borrowed(value.type, std::move(made));
}

const KilnValue* TensorHandle(std::unique_ptr<KilnValue>& slot,
                              const std::shared_ptr<const Tensor>& tensor) {
  if (slot != nullptr) return slot.get();
  auto made = std::make_unique<KilnValue>();
  made->tensor = std::const_pointer_cast<Tensor>(tensor);
  made->read_only = true;
  return Borrowed(slot, std::move(made));
}

const std::vector<ir::Node*>& Order(const KilnGraph& graph) {
  Relink(graph);
  if (graph.order_known && graph.order_generation == LinkGeneration()) return graph.order;
  std::vector<ir::Node*> order;
  try {
    order = graph.graph->TopologicalOrder();
  } catch (const Error&) {  // a cycle: the order they were added in
    order.clear();
    for (const auto& n : graph.graph->nodes()) order.push_back(n.get());
  }
  graph.order = std::move(order);
  graph.order_known = true;
  graph.order_generation = LinkGeneration();
  return graph.order;
}

const std::vector<ir::Value*>& Constants(const KilnGraph& graph) {
  if (graph.constants_known) return graph.constants;
  std::vector<ir::Value*> constants;
  for (const auto& v : graph.graph->values()) {
    if (v->initializer() != nullptr || v->default_value() != nullptr) constants.push_back(v.get());
  }
  std::sort(constants.begin(), constants.end(),
            [](const ir::Value* a, const ir::Value* b) { return a->name() < b->name(); });
  graph.constants = std::move(constants);
  graph.constants_known = true;
  return graph.constants;
}

namespace {

// The plan of a graph of a session's optimized view; null elsewhere.
const runtime::GraphPlan* PlanOf(const KilnGraph& graph) {
  if (graph.model != nullptr) return graph.model->plan;
  if (graph.attribute == nullptr || graph.attribute->node == nullptr ||
      graph.attribute->node->graph == nullptr) {
    return nullptr;
  }
  const runtime::GraphPlan* parent = PlanOf(*graph.attribute->node->graph);
  return parent != nullptr ? &parent->Subplan(*graph.graph) : nullptr;
}

}  // namespace

const KernelDef* KernelDefOf(const KilnNode& node) {
  const runtime::GraphPlan* plan = node.graph != nullptr ? PlanOf(*node.graph) : nullptr;
  if (plan == nullptr) return nullptr;
  for (const runtime::GraphPlan::Step& step : plan->steps()) {
    if (step.node == node.node) return step.def;
  }
  return nullptr;
}

const std::string& KernelText(const KilnNode& node) {
  if (node.kernel_known) return node.kernel;
  std::string text;
  if (node.graph != nullptr && PlanOf(*node.graph) != nullptr) {
    const KernelDef* def = KernelDefOf(node);
    text = def != nullptr ? KernelName(*def) : "folded into a constant at load";
  }
  node.kernel = std::move(text);
  node.kernel_known = true;
  return node.kernel;
}

// ---- Preparing a built model ---------------------------------------------------------------

namespace {

[[noreturn]] void BadGraph(const std::string& what) {
  throw Error(ErrorCode::kInvalidGraph, what);
}

bool IsDefined(const ir::Graph& g, const ir::Value& v) {
  return v.producer() != nullptr || v.initializer() != nullptr || v.default_value() != nullptr ||
         std::find(g.inputs().begin(), g.inputs().end(), &v) != g.inputs().end();
}

bool IsRead(const ir::Graph& g, const ir::Value& v) {
  return !v.consumers().empty() ||
         std::find(g.outputs().begin(), g.outputs().end(), &v) != g.outputs().end();
}

std::string NormalDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

// Finds what each subgraph reads from the graphs around it (its captures) and makes those reads
// the implicit inputs of the node that holds it; sets each node's opset. Returns the values of
// `g` that it reads and does not define (the main graph must have none).
// `opsets` null: links only (the caller's model, in place: nodes keep what they have).
std::vector<ir::Value*> Resolve(ir::Graph& g, const std::map<std::string, int64_t>* opsets,
                                int depth) {
  if (depth > 32) BadGraph("subgraphs nest deeper than 32 levels");
  for (const auto& n : g.nodes()) {
    ir::Node* node = n.get();
    // A node read from a file, or a session's, has its opset (an optimized graph's may differ
    // from the import's); a built one takes its domain's.
    if (opsets != nullptr && node->opset() <= 0) {
      node->set_domain(NormalDomain(node->domain()));
      auto opset = opsets->find(node->domain());
      if (opset == opsets->end()) {
        BadGraph(node->Describe() + " uses domain '" + node->domain() +
                 "', which the model does not import");
      }
      node->set_opset(opset->second);
    }
    std::vector<ir::Value*> implicit;
    for (ir::Attribute& a : node->attributes()) {
      std::vector<const ir::Graph*> subgraphs;
      if (a.type == ir::AttrType::kGraph && a.g) subgraphs.push_back(a.g.get());
      for (const auto& sg : a.graphs) subgraphs.push_back(sg.get());
      for (const ir::Graph* sg : subgraphs) {
        for (ir::Value* c : Resolve(const_cast<ir::Graph&>(*sg), opsets, depth + 1)) {
          ir::Value* v = g.FindValue(c->name());
          if (v == nullptr) v = g.AddValue(c->name());
          if (std::find(implicit.begin(), implicit.end(), v) == implicit.end()) {
            implicit.push_back(v);
          }
        }
      }
    }
    g.SetImplicitInputs(node, std::move(implicit));
  }
  // Captured: what the graph reads and does not define. A value it now defines (an initializer
  // or an output added to a subgraph read from a file) is its own again: the plan reads a value
  // from the enclosing graph by this flag.
  std::vector<ir::Value*> free;
  for (const auto& v : g.values()) {
    const bool captured = !IsDefined(g, *v) && IsRead(g, *v);
    v->set_outer(captured);
    if (captured) free.push_back(v.get());
  }
  g.captures() = free;
  return free;
}

// Gives each captured value of a subgraph, at any depth, the type of the value it reads (when it
// has none of its own): top-down, once the whole model is resolved.
void CaptureTypes(const ir::Graph& g) {
  for (const auto& n : g.nodes()) {
    for (const ir::Attribute& a : n->attributes()) {
      std::vector<const ir::Graph*> subgraphs;
      if (a.type == ir::AttrType::kGraph && a.g) subgraphs.push_back(a.g.get());
      for (const auto& sg : a.graphs) subgraphs.push_back(sg.get());
      for (const ir::Graph* sg : subgraphs) {
        for (ir::Value* c : sg->captures()) {
          const ir::Value* outer = g.FindValue(c->name());
          if (outer != nullptr && c->type().kind == ir::ValueKind::kUnknown) {
            c->type() = outer->type();
          }
        }
        CaptureTypes(*sg);
      }
    }
  }
}

// Where the main graph reads a value nothing defines, for the message.
std::string Undefined(const ir::Graph& g, const ir::Value& v) {
  for (const ir::Node* n : v.consumers()) {
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      if (n->inputs()[i] == &v) {
        return n->Describe() + " input " + std::to_string(i) + " '" + v.name() +
               "' is not a graph input, an initializer or any node's output";
      }
    }
    return n->Describe() + " reads '" + v.name() +
           "' in a subgraph, and it is not a graph input, an initializer or any node's output "
           "of an enclosing graph";
  }
  (void)g;
  return "graph output '" + v.name() + "' is not produced by any node, initializer or input";
}

}  // namespace

uint64_t& LinkGeneration() noexcept {
  static uint64_t generation = 0;  // (under GraphMutex())
  return generation;
}

void MarkChanged(const KilnGraph& graph) noexcept {
  const KilnGraph* root = &graph;
  for (const KilnGraph* up = Owner(*root); up != nullptr; up = Owner(*root)) root = up;
  root->links_dirty = true;
  graph.Changed();
  ++LinkGeneration();
}

void Relink(const KilnGraph& graph) {
  const KilnGraph* root = &graph;
  for (const KilnGraph* up = Owner(*root); up != nullptr; up = Owner(*root)) root = up;
  if (!root->links_dirty) return;
  ir::Graph& g = *root->graph;
  Resolve(g, nullptr, 0);
  // The outermost graph reads nothing from around it: what it lacks is not defined yet.
  for (const auto& v : g.values()) v->set_outer(false);
  g.captures().clear();
  CaptureTypes(g);
  root->links_dirty = false;
  ++LinkGeneration();
}

ir::Model PreparedCopy(const ir::Model& model) {
  if (model.graph == nullptr) {
    ThrowInvalidArgument("model", "has no graph (give it one with ModelSetOwnedGraph)");
  }
  ir::Model m = ir::CloneModel(model);
  std::vector<ir::Value*> free = Resolve(*m.graph, &m.opsets, 0);
  if (!free.empty()) BadGraph(Undefined(*m.graph, *free.front()));
  CaptureTypes(*m.graph);
  m.graph->TopologicalOrder();  // throws naming a node on a cycle
  return m;
}

}  // namespace kiln::api::graph
