// Graph API entries: graphs and values (KilnGraphApi slots 15-16, 18-30, 44-52).
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "api/arguments.h"
#include "api/graph_api_entries.h"
#include "api/graph_handles.h"
#include "api/status.h"

namespace kiln::api::graph {
namespace {

void Unmake(KilnGraph& g, std::vector<ir::Value*>& made) noexcept;

const KilnValueInfo& UnwrapValueEntry(KilnValueInfo* const* list, size_t i, const char* argument) {
  const std::string entry = std::string(argument) + "[" + std::to_string(i) + "]";
  if (list[i] == nullptr) ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " is NULL");
  CheckHandle(list[i], HandleKind::kValueInfo, entry.c_str());
  CheckCallerOwned(*list[i], entry.c_str());
  return *list[i];
}

// Links the caller's value infos to `values` (one each) and takes them: a value without a handle
// gets the caller's; one that has one keeps it, and the graph keeps the caller's beside it (still
// a view of the same value). All or nothing.
void Adopt(KilnGraph& g, KilnValueInfo* const* infos, const std::vector<ir::Value*>& values) {
  std::vector<const ir::Value*> inserted;
  size_t adopted = 0;
  try {
    for (size_t i = 0; i < values.size(); ++i) {
      if (g.values.find(values[i]) == g.values.end()) {
        inserted.reserve(inserted.size() + 1);
        g.values.emplace(values[i], nullptr).first->second.reset(infos[i]);
        inserted.push_back(values[i]);
      } else {
        g.adopted.reserve(g.adopted.size() + 1);
        g.adopted.emplace_back(infos[i]);
        ++adopted;
      }
    }
  } catch (...) {  // give the caller back what it still owns
    for (const ir::Value* v : inserted) {
      (void)g.values.at(v).release();
      g.values.erase(v);
    }
    for (; adopted > 0; --adopted) {
      (void)g.adopted.back().release();
      g.adopted.pop_back();
    }
    throw;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    infos[i]->graph = &g;
    infos[i]->value = values[i];
    // A type handle asked for before shows the value's type from now on.
    if (infos[i]->type != nullptr) infos[i]->type->type = &values[i]->type();
    registry::MakeBorrowed(infos[i], HandleKind::kValueInfo);
  }
}

// The values named by `infos` (made where the graph has none yet, and listed in `made`); checks
// the names are distinct.
std::vector<ir::Value*> NamedValues(KilnGraph& g, KilnValueInfo* const* infos, size_t count,
                                    const char* argument, bool outputs,
                                    std::vector<ir::Value*>& made) {
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < count; ++i) {
    const KilnValueInfo& vi = UnwrapValueEntry(infos, i, argument);
    if (!seen.insert(vi.name).second) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " names '" + vi.name +
                                         "', which an earlier entry names");
    }
    const ir::Value* v = g.graph->FindValue(vi.name);
    if (outputs || v == nullptr) continue;
    if (v->producer() != nullptr) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " names '" + vi.name +
                                         "', which " + v->producer()->Describe() + " produces");
    }
    if (v->initializer() != nullptr) {
      ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " names '" + vi.name +
                                         "', which is an initializer");
    }
  }
  std::vector<ir::Value*> values;
  values.reserve(count);
  made.reserve(count);
  try {
    for (size_t i = 0; i < count; ++i) {
      ir::Value* v = g.graph->FindValue(infos[i]->name);
      if (v == nullptr) {
        v = g.graph->AddValue(infos[i]->name);
        made.push_back(v);
      }
      values.push_back(v);
    }
  } catch (...) {
    Unmake(g, made);
    throw;
  }
  return values;
}

// Removes the values a failed change made.
void Unmake(KilnGraph& g, std::vector<ir::Value*>& made) noexcept {
  for (ir::Value* v : made) g.graph->RemoveValue(v);
  made.clear();
}

}  // namespace

KilnStatus* KILN_API_CALL CreateGraph(const char* name, KilnGraph** out) {
  return Guard("CreateGraph", [&] {
    std::string n = CheckedUtf8(name, "name");
    CheckOut(out, "out");
    auto g = std::make_unique<KilnGraph>();
    g->graph = std::make_shared<ir::Graph>();
    g->graph->name() = std::move(n);
    Publish(std::move(g), out);
  });
}

void KILN_API_CALL ReleaseGraph(KilnGraph* graph) {
  Release(graph, "ReleaseGraph");
}

KilnStatus* KILN_API_CALL GraphGetName(const KilnGraph* graph, KilnStringRef* out) {
  return Guard("GraphGetName", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    *out = Ref(g.graph->name());
  });
}

KilnStatus* KILN_API_CALL GraphGetNumInputs(const KilnGraph* graph, size_t* out) {
  return Guard("GraphGetNumInputs", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    *out = g.graph->inputs().size();
  });
}

KilnStatus* KILN_API_CALL GraphGetInput(const KilnGraph* graph, size_t index, KilnValueInfo** out) {
  return Guard("GraphGetInput", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckIndex(index, g.graph->inputs().size(), "inputs");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = ValueHandle(g, g.graph->inputs()[index]);
  });
}

KilnStatus* KILN_API_CALL GraphGetNumOutputs(const KilnGraph* graph, size_t* out) {
  return Guard("GraphGetNumOutputs", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    *out = g.graph->outputs().size();
  });
}

KilnStatus* KILN_API_CALL GraphGetOutput(const KilnGraph* graph, size_t index,
                                         KilnValueInfo** out) {
  return Guard("GraphGetOutput", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckIndex(index, g.graph->outputs().size(), "outputs");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = ValueHandle(g, g.graph->outputs()[index]);
  });
}

KilnStatus* KILN_API_CALL GraphGetNumInitializers(const KilnGraph* graph, size_t* out) {
  return Guard("GraphGetNumInitializers", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = Constants(g).size();
  });
}

KilnStatus* KILN_API_CALL GraphGetInitializer(const KilnGraph* graph, size_t index,
                                              KilnValueInfo** out) {
  return Guard("GraphGetInitializer", [&] {
    const auto& g = Unwrap(graph, "graph");
    std::lock_guard<std::mutex> lock(GraphMutex());
    const std::vector<ir::Value*>& constants = Constants(g);
    CheckIndex(index, constants.size(), "initializers");
    CheckOut(out, "out");
    *out = ValueHandle(g, constants[index]);
  });
}

KilnStatus* KILN_API_CALL GraphGetNumNodes(const KilnGraph* graph, size_t* out) {
  return Guard("GraphGetNumNodes", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    *out = g.graph->nodes().size();
  });
}

KilnStatus* KILN_API_CALL GraphGetNode(const KilnGraph* graph, size_t index, KilnNode** out) {
  return Guard("GraphGetNode", [&] {
    const auto& g = Unwrap(graph, "graph");
    std::lock_guard<std::mutex> lock(GraphMutex());
    const std::vector<ir::Node*>& order = Order(g);
    CheckIndex(index, order.size(), "nodes");
    CheckOut(out, "out");
    *out = NodeHandle(g, order[index]);
  });
}

KilnStatus* KILN_API_CALL GraphSetOwnedInputs(KilnGraph* graph, KilnValueInfo* const* inputs,
                                              size_t count) {
  return Guard("GraphSetOwnedInputs", [&] {
    auto& g = Unwrap(graph, "graph");
    CheckWritable(g, "graph");
    if (!g.graph->inputs().empty()) ThrowInvalidArgument("graph", "already has inputs");
    if (count > 0 && inputs == nullptr) ThrowInvalidArgument("inputs", "is NULL");
    std::lock_guard<std::mutex> lock(GraphMutex());
    std::vector<ir::Value*> made;
    std::vector<ir::Value*> values = NamedValues(g, inputs, count, "inputs", false, made);
    std::vector<ir::Value*> list;
    try {
      list = values;
      Adopt(g, inputs, values);
    } catch (...) {
      Unmake(g, made);
      throw;
    }
    for (size_t i = 0; i < count; ++i) values[i]->type() = std::move(inputs[i]->declared);
    g.graph->inputs() = std::move(list);
    MarkChanged(g);
  });
}

KilnStatus* KILN_API_CALL GraphSetOwnedOutputs(KilnGraph* graph, KilnValueInfo* const* outputs,
                                               size_t count) {
  return Guard("GraphSetOwnedOutputs", [&] {
    auto& g = Unwrap(graph, "graph");
    CheckWritable(g, "graph");
    if (!g.graph->outputs().empty()) ThrowInvalidArgument("graph", "already has outputs");
    if (count > 0 && outputs == nullptr) ThrowInvalidArgument("outputs", "is NULL");
    std::lock_guard<std::mutex> lock(GraphMutex());
    std::vector<ir::Value*> made;
    std::vector<ir::Value*> values = NamedValues(g, outputs, count, "outputs", true, made);
    std::vector<ir::Value*> list;
    try {
      list = values;
      Adopt(g, outputs, values);
    } catch (...) {
      Unmake(g, made);
      throw;
    }
    for (size_t i = 0; i < count; ++i) {
      // A declared type describes the value, unless it is a constant (its tensor says).
      if (outputs[i]->declared.kind != ir::ValueKind::kUnknown &&
          values[i]->initializer() == nullptr) {
        values[i]->type() = std::move(outputs[i]->declared);
      }
    }
    g.graph->outputs() = std::move(list);
    MarkChanged(g);
  });
}

KilnStatus* KILN_API_CALL GraphAddInitializer(KilnGraph* graph, const char* name,
                                              const KilnValue* value) {
  return Guard("GraphAddInitializer", [&] {
    auto& g = Unwrap(graph, "graph");
    CheckWritable(g, "graph");
    std::string n = CheckedUtf8(name, "name");
    if (n.empty()) ThrowInvalidArgument("name", "is empty");
    const auto& v = Unwrap(value, "value");
    RefuseLent(v, "value");
    if (v.tensor == nullptr) {
      ThrowInvalidArgument("value", "is a " + v.other.TypeText() + ", not a tensor");
    }
    ir::Value* existing = g.graph->FindValue(n);
    if (existing != nullptr) {
      const bool input = std::find(g.graph->inputs().begin(), g.graph->inputs().end(), existing) !=
                         g.graph->inputs().end();
      if (existing->initializer() != nullptr) {
        ThrowInvalidArgument("name", "'" + n + "' is already an initializer");
      }
      if (input) ThrowInvalidArgument("name", "'" + n + "' is a graph input");
      if (existing->producer() != nullptr) {
        ThrowInvalidArgument("name",
                             "'" + n + "' is produced by " + existing->producer()->Describe());
      }
    }
    ir::TypeInfo type;
    type.kind = ir::ValueKind::kTensor;
    type.elem = v.tensor->type();
    type.shape = v.tensor->shape();
    std::lock_guard<std::mutex> lock(GraphMutex());
    ir::Value* target = existing != nullptr ? existing : g.graph->AddValue(n);
    target->set_initializer(v.tensor);
    target->type() = std::move(type);
    MarkChanged(g);
  });
}

KilnStatus* KILN_API_CALL GraphAddOwnedNode(KilnGraph* graph, KilnNode* node) {
  return Guard("GraphAddOwnedNode", [&] {
    auto& g = Unwrap(graph, "graph");
    CheckWritable(g, "graph");
    auto& n = Unwrap(node, "node");
    CheckCallerOwned(n, "node");
    CheckNoCycle(&g, &n, nullptr, "node");
    const NodeSpec& spec = *n.spec;
    const std::string desc = "node '" + spec.name + "' (" + spec.op_type + ")";
    // "node 'n' (Op) output 'y' <why>"
    auto refuse = [&](const std::string& out, const std::string& why) {
      std::string what = desc;
      what += " output '";
      what += out;
      what += "' ";
      what += why;
      ThrowInvalidArgument("node", what);
    };
    std::unordered_set<std::string> outs;
    for (const std::string& out : spec.outputs) {
      if (out.empty()) continue;
      if (!outs.insert(out).second) refuse(out, "is written twice");
      const ir::Value* v = g.graph->FindValue(out);
      if (v == nullptr) continue;
      const bool input = std::find(g.graph->inputs().begin(), g.graph->inputs().end(), v) !=
                         g.graph->inputs().end();
      if (v->producer() != nullptr)
        refuse(out, "is already produced by " + v->producer()->Describe());
      if (v->initializer() != nullptr) refuse(out, "is an initializer");
      if (input) refuse(out, "is a graph input");
    }
    std::lock_guard<std::mutex> lock(GraphMutex());
    std::vector<ir::Value*> made_values;
    ir::Node* made = nullptr;
    try {
      made_values.reserve(spec.inputs.size() + spec.outputs.size());
      auto value = [&](const std::string& name) -> ir::Value* {
        if (name.empty()) return nullptr;
        ir::Value* v = g.graph->FindValue(name);
        if (v != nullptr) return v;
        v = g.graph->AddValue(name);
        made_values.push_back(v);
        return v;
      };
      std::vector<ir::Value*> inputs;
      std::vector<ir::Value*> outputs;
      for (const std::string& in : spec.inputs) inputs.push_back(value(in));
      for (const std::string& out : spec.outputs) outputs.push_back(value(out));
      made = g.graph->AddNode(spec.name, spec.op_type, spec.domain);
      g.graph->Connect(made, std::move(inputs), std::move(outputs));
      g.nodes.emplace(made, nullptr).first->second.reset(&n);
    } catch (...) {  // nothing of it stays
      if (made != nullptr) g.graph->RemoveNode(made);
      Unmake(g, made_values);
      throw;
    }
    // Nothing below can fail.
    made->attributes() = std::move(n.spec->attributes);
    n.spec.reset();
    n.graph = &g;
    n.node = made;
    registry::MakeBorrowed(&n, HandleKind::kNode);
    MarkChanged(g);
  });
}

KilnStatus* KILN_API_CALL CreateValueInfo(const char* name, const KilnTypeInfo* type,
                                          KilnValueInfo** out) {
  return Guard("CreateValueInfo", [&] {
    std::string n = CheckedUtf8(name, "name");
    if (n.empty()) ThrowInvalidArgument("name", "is empty");
    const KilnTypeInfo* t = type != nullptr ? &Unwrap(type, "type") : nullptr;
    CheckOut(out, "out");
    auto vi = std::make_unique<KilnValueInfo>();
    vi->name = std::move(n);
    if (t != nullptr) vi->declared = *t->type;
    Publish(std::move(vi), out);
  });
}

void KILN_API_CALL ReleaseValueInfo(KilnValueInfo* value) {
  Release(value, "ReleaseValueInfo");
}

KilnStatus* KILN_API_CALL ValueInfoGetName(const KilnValueInfo* value, KilnStringRef* out) {
  return Guard("ValueInfoGetName", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(out, "out");
    *out = Ref(v.value != nullptr ? v.value->name() : v.name);
  });
}

KilnStatus* KILN_API_CALL ValueInfoGetType(const KilnValueInfo* value, const KilnTypeInfo** out) {
  return Guard("ValueInfoGetType", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = TypeHandle(v);
  });
}

KilnStatus* KILN_API_CALL ValueInfoGetProducer(const KilnValueInfo* value, KilnNode** node,
                                               size_t* output_index) {
  return Guard("ValueInfoGetProducer", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(node, "node");
    CheckOut(output_index, "output_index");
    ir::Node* producer = v.value != nullptr ? v.value->producer() : nullptr;
    if (producer == nullptr) {
      *node = nullptr;
      *output_index = 0;
      return;
    }
    size_t index = 0;
    while (index < producer->outputs().size() && producer->outputs()[index] != v.value) ++index;
    std::lock_guard<std::mutex> lock(GraphMutex());
    KilnNode* h = NodeHandle(*v.graph, producer);
    *node = h;
    *output_index = index;
  });
}

KilnStatus* KILN_API_CALL ValueInfoGetNumConsumers(const KilnValueInfo* value, size_t* out) {
  return Guard("ValueInfoGetNumConsumers", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    if (v.graph != nullptr) Relink(*v.graph);
    *out = v.value != nullptr ? v.value->consumers().size() : 0;
  });
}

KilnStatus* KILN_API_CALL ValueInfoGetConsumer(const KilnValueInfo* value, size_t index,
                                               KilnNode** node, size_t* input_index) {
  return Guard("ValueInfoGetConsumer", [&] {
    const auto& v = Unwrap(value, "value");
    std::lock_guard<std::mutex> lock(GraphMutex());
    if (v.graph != nullptr) Relink(*v.graph);
    const size_t count = v.value != nullptr ? v.value->consumers().size() : 0;
    CheckIndex(index, count, "consumers");
    CheckOut(node, "node");
    CheckOut(input_index, "input_index");
    const std::vector<ir::Node*>& consumers = v.value->consumers();
    ir::Node* reader = consumers[index];
    // The k-th entry of this node is its k-th read: its inputs in order, then its subgraphs'.
    size_t k = 0;
    for (size_t i = 0; i < index; ++i) k += consumers[i] == reader ? 1 : 0;
    size_t in = KILN_IMPLICIT_INPUT;
    for (size_t i = 0; i < reader->inputs().size(); ++i) {
      if (reader->inputs()[i] == v.value && k-- == 0) {
        in = i;
        break;
      }
    }
    KilnNode* h = NodeHandle(*v.graph, reader);
    *node = h;
    *input_index = in;
  });
}

KilnStatus* KILN_API_CALL ValueInfoGetInitializer(const KilnValueInfo* value,
                                                  const KilnValue** out) {
  return Guard("ValueInfoGetInitializer", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(out, "out");
    const ir::Value* iv = v.value;
    const std::shared_ptr<const Tensor>* t = nullptr;
    if (iv != nullptr && iv->initializer() != nullptr) t = &iv->initializer();
    if (iv != nullptr && iv->default_value() != nullptr) t = &iv->default_value();
    if (t == nullptr) {
      *out = nullptr;
      return;
    }
    std::lock_guard<std::mutex> lock(GraphMutex());
    *out = TensorHandle(v.initializer, *t);
  });
}

KilnStatus* KILN_API_CALL ValueInfoIsCaptured(const KilnValueInfo* value, int* out) {
  return Guard("ValueInfoIsCaptured", [&] {
    const auto& v = Unwrap(value, "value");
    CheckOut(out, "out");
    std::lock_guard<std::mutex> lock(GraphMutex());
    if (v.graph != nullptr) Relink(*v.graph);
    *out = v.value != nullptr && v.value->is_outer() ? 1 : 0;
  });
}

}  // namespace kiln::api::graph
