// Graph API entries: models, sessions and printing (KilnGraphApi slots 0-14, 17, 31).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/arguments.h"
#include "api/graph_api_entries.h"
#include "api/graph_handles.h"
#include "api/status.h"
#include "ir/text_printer.h"
#include "kernels/registry.h"
#include "onnx/loader.h"
#include "onnx/text_parser.h"
#include "onnx/writer.h"

namespace kiln::api::graph {
namespace {

// The views SessionGetGraph gives, kept by the session's handle (KilnSession::graph_views).
struct SessionViews {
  std::unique_ptr<KilnModel> loaded;
  std::unique_ptr<KilnModel> optimized;
};

void PublishModel(ir::Model model, KilnModel** out) {
  auto handle = std::make_unique<KilnModel>();
  handle->own = std::make_unique<ir::Model>(std::move(model));
  handle->model = handle->own.get();
  Publish(std::move(handle), out);
}

// The main graph's handle, made on first use; null when the model has none.
KilnGraph* MainGraph(const KilnModel& model) {
  std::lock_guard<std::mutex> lock(GraphMutex());
  if (model.graph != nullptr) return model.graph.get();
  if (model.model->graph == nullptr) return nullptr;
  auto made = std::make_unique<KilnGraph>();
  made->graph = model.model->graph;
  made->model = const_cast<KilnModel*>(&model);
  return Borrowed(const_cast<KilnModel&>(model).graph, std::move(made));
}

const ir::Model& WithGraph(const KilnModel& model) {
  if (model.model->graph == nullptr) {
    ThrowInvalidArgument("model", "has no graph (give it one with ModelSetOwnedGraph)");
  }
  return *model.model;
}

void CollectKernels(const runtime::GraphPlan& plan,
                    std::unordered_map<const ir::Node*, const KernelDef*>& into) {
  for (const runtime::GraphPlan::Step& step : plan.steps()) {
    into[step.node] = step.def;
    for (const ir::Attribute& a : step.node->attributes()) {
      if (a.type == ir::AttrType::kGraph && a.g) CollectKernels(plan.Subplan(*a.g), into);
      for (const auto& g : a.graphs) CollectKernels(plan.Subplan(*g), into);
    }
  }
}

// The printer's options for ModelPrint and GraphPrint.
ir::TextOptions PrintOptions(
    const KilnModel* model, int64_t elide_above, uint32_t flags,
    std::shared_ptr<std::unordered_map<const ir::Node*, const KernelDef*>>& kernels) {
  if (elide_above < -1) ThrowInvalidArgument("elide_above", "is below -1");
  if ((flags & ~static_cast<uint32_t>(KILN_PRINT_DEBUG)) != 0) {
    ThrowInvalidArgument("flags", std::to_string(flags) + " has bits that are not KilnPrintFlags");
  }
  ir::TextOptions o;
  o.elide_above = elide_above;
  if (model != nullptr && model->plan != nullptr) {
    // A session's optimized graph: its inputs and outputs as inference knows them.
    const runtime::GraphPlan* plan = model->plan;
    const ir::Graph* main = model->model->graph.get();
    o.value_type = [plan, main](const ir::Value& v) -> std::shared_ptr<const ir::TypeInfo> {
      return main->FindValue(v.name()) == &v ? InferredType(*plan, v) : nullptr;
    };
  }
  if ((flags & KILN_PRINT_DEBUG) != 0 && model != nullptr && model->plan != nullptr) {
    kernels = std::make_shared<std::unordered_map<const ir::Node*, const KernelDef*>>();
    CollectKernels(*model->plan, *kernels);
    auto table = kernels;
    o.node_comments = [table](const ir::Node& n) {
      std::vector<std::string> comments;
      auto it = table->find(&n);
      comments.push_back("kernel: " + (it == table->end()
                                           ? std::string("folded into a constant at load")
                                       : it->second == nullptr ? std::string("none")
                                                               : KernelName(*it->second)));
      if (!n.fused_from().empty()) {
        std::string from = "fused from:";
        for (size_t i = 0; i < n.fused_from().size(); ++i) {
          from += (i == 0 ? " " : ", ") + n.fused_from()[i];
        }
        comments.push_back(std::move(from));
      }
      return comments;
    };
  }
  return o;
}

void CheckCallback(KilnPrintCallback callback) {
  if (callback == nullptr) ThrowInvalidArgument("callback", "is NULL");
}

}  // namespace

KilnStatus* KILN_API_CALL CreateModel(int64_t ir_version, const char* const* opset_domains,
                                      const int64_t* opset_versions, size_t opset_count,
                                      KilnModel** out) {
  return Guard("CreateModel", [&] {
    if (ir_version < onnx::kMinIrVersion || ir_version > onnx::kMaxIrVersion) {
      ThrowInvalidArgument("ir_version", std::to_string(ir_version) + " is not " +
                                             std::to_string(onnx::kMinIrVersion) + " to " +
                                             std::to_string(onnx::kMaxIrVersion));
    }
    if (opset_count > 0 && opset_domains == nullptr)
      ThrowInvalidArgument("opset_domains", "is NULL");
    if (opset_count > 0 && opset_versions == nullptr) {
      ThrowInvalidArgument("opset_versions", "is NULL");
    }
    CheckOut(out, "out");
    ir::Model m;
    m.ir_version = ir_version;
    for (size_t i = 0; i < opset_count; ++i) {
      const std::string entry = "entry " + std::to_string(i);
      if (opset_domains[i] == nullptr) ThrowInvalidArgument("opset_domains", entry + " is NULL");
      std::string domain = CheckedUtf8(opset_domains[i], "opset_domains");
      if (domain == "ai.onnx") domain.clear();
      if (opset_versions[i] < 1) {
        ThrowInvalidArgument("opset_versions",
                             entry + " is " + std::to_string(opset_versions[i]) + ", below 1");
      }
      if (!m.opsets.emplace(domain, opset_versions[i]).second) {
        std::string what = entry;
        what += " imports domain '";
        what += domain;
        what += "' a second time";
        ThrowInvalidArgument("opset_domains", what);
      }
    }
    PublishModel(std::move(m), out);
  });
}

KilnStatus* KILN_API_CALL CreateModelFromFile(const char* path, KilnModel** out) {
  return Guard("CreateModelFromFile", [&] {
    const std::string p = CheckedUtf8(path, "path");
    CheckOut(out, "out");
    PublishModel(onnx::LoadModelFile(p), out);
  });
}

KilnStatus* KILN_API_CALL CreateModelFromArray(const void* data, size_t data_len, KilnModel** out) {
  return Guard("CreateModelFromArray", [&] {
    if (data == nullptr) ThrowInvalidArgument("data", "is NULL");
    if (data_len == 0) ThrowInvalidArgument("data_len", "is 0");
    CheckOut(out, "out");
    PublishModel(onnx::LoadModelBytes(data, data_len, ""), out);
  });
}

KilnStatus* KILN_API_CALL CreateModelFromText(const char* text, size_t text_len, KilnModel** out) {
  return Guard("CreateModelFromText", [&] {
    if (text == nullptr) ThrowInvalidArgument("text", "is NULL");
    CheckOut(out, "out");
    PublishModel(onnx::ParseModelText(std::string_view(text, text_len)), out);
  });
}

void KILN_API_CALL ReleaseModel(KilnModel* model) {
  Release(model, "ReleaseModel");
}

KilnStatus* KILN_API_CALL ModelGetIrVersion(const KilnModel* model, int64_t* out) {
  return Guard("ModelGetIrVersion", [&] {
    const auto& m = Unwrap(model, "model");
    CheckOut(out, "out");
    *out = m.model->ir_version;
  });
}

KilnStatus* KILN_API_CALL ModelGetNumOpsetImports(const KilnModel* model, size_t* out) {
  return Guard("ModelGetNumOpsetImports", [&] {
    const auto& m = Unwrap(model, "model");
    CheckOut(out, "out");
    *out = m.opsets().size();
  });
}

KilnStatus* KILN_API_CALL ModelGetOpsetImport(const KilnModel* model, size_t index,
                                              KilnStringRef* domain, int64_t* version) {
  return Guard("ModelGetOpsetImport", [&] {
    const auto& m = Unwrap(model, "model");
    CheckIndex(index, m.opsets().size(), "opset imports");
    CheckOut(domain, "domain");
    CheckOut(version, "version");
    auto it = m.opsets().begin();
    std::advance(it, static_cast<std::ptrdiff_t>(index));
    *domain = Ref(it->first);
    *version = it->second;
  });
}

KilnStatus* KILN_API_CALL ModelSetOwnedGraph(KilnModel* model, KilnGraph* graph) {
  return Guard("ModelSetOwnedGraph", [&] {
    auto& m = Unwrap(model, "model");
    auto& g = Unwrap(graph, "graph");
    if (m.read_only) ThrowInvalidArgument("model", "is a session's view, which cannot be changed");
    if (m.model->graph != nullptr) ThrowInvalidArgument("model", "already has a graph");
    CheckCallerOwned(g, "graph");
    // Nothing below can fail.
    m.own->graph = g.graph;
    g.model = &m;
    m.graph.reset(&g);
    registry::MakeBorrowed(&g, HandleKind::kGraph);
    std::lock_guard<std::mutex> lock(GraphMutex());
    MarkChanged(g);
  });
}

KilnStatus* KILN_API_CALL ModelGetGraph(const KilnModel* model, KilnGraph** out) {
  return Guard("ModelGetGraph", [&] {
    const auto& m = Unwrap(model, "model");
    CheckOut(out, "out");
    *out = MainGraph(m);
  });
}

KilnStatus* KILN_API_CALL ModelVerify(const KilnModel* model, const KilnSessionOptions* options) {
  return Guard("ModelVerify", [&] {
    const auto& m = Unwrap(model, "model");
    if (options != nullptr) Unwrap(options, "options");
    ir::Model copy = PreparedCopy(WithGraph(m));
    // (A session's optimized view holds Kiln's own forms of nodes; its schemas are the kernels'.)
    if (!m.read_only) CheckSchemas(copy);
    runtime::SessionOptions o = options != nullptr ? options->options : runtime::SessionOptions();
    o.optimization_level = 0;  // errors name the model's own nodes
    o.intra_op_threads = 1;
    o.parallel = false;
    o.optimized_model_path.clear();
    o.profile_prefix.clear();
    runtime::Session check(std::move(copy), std::move(o));
  });
}

KilnStatus* KILN_API_CALL ModelSave(const KilnModel* model, const char* path) {
  return Guard("ModelSave", [&] {
    const auto& m = Unwrap(model, "model");
    const std::string p = CheckedUtf8(path, "path");
    onnx::WriteModelFile(PreparedCopy(WithGraph(m)), p);
  });
}

KilnStatus* KILN_API_CALL ModelPrint(const KilnModel* model, int64_t elide_above, uint32_t flags,
                                     KilnPrintCallback callback, void* user) {
  return Guard("ModelPrint", [&] {
    const auto& m = Unwrap(model, "model");
    CheckCallback(callback);
    std::shared_ptr<std::unordered_map<const ir::Node*, const KernelDef*>> kernels;
    const ir::TextOptions o = PrintOptions(&m, elide_above, flags, kernels);
    if (!m.read_only && m.model->graph != nullptr) {
      const KilnGraph* g = MainGraph(m);  // (takes GraphMutex() itself)
      std::lock_guard<std::mutex> lock(GraphMutex());
      Relink(*g);
    }
    ir::PrintModel(WithGraph(m), o,
                   [&](std::string_view piece) { callback(piece.data(), piece.size(), user); });
  });
}

KilnStatus* KILN_API_CALL GraphPrint(const KilnGraph* graph, int64_t elide_above, uint32_t flags,
                                     KilnPrintCallback callback, void* user) {
  return Guard("GraphPrint", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckCallback(callback);
    std::shared_ptr<std::unordered_map<const ir::Node*, const KernelDef*>> kernels;
    const ir::TextOptions o = PrintOptions(ModelOf(g), elide_above, flags, kernels);
    {
      std::lock_guard<std::mutex> lock(GraphMutex());
      Relink(g);
    }
    ir::PrintGraph(*g.graph, o,
                   [&](std::string_view piece) { callback(piece.data(), piece.size(), user); });
  });
}

KilnStatus* KILN_API_CALL CreateSessionFromModel(const KilnEnv* env, const KilnModel* model,
                                                 const KilnSessionOptions* options,
                                                 KilnSession** out) {
  return Guard("CreateSessionFromModel", [&] {
    const auto& e = Unwrap(env, "env");
    const auto& m = Unwrap(model, "model");
    if (options != nullptr) Unwrap(options, "options");
    CheckOut(out, "out");
    MakeSession(e, PreparedCopy(WithGraph(m)), options, out);
  });
}

KilnStatus* KILN_API_CALL SessionGetGraph(const KilnSession* session, KilnGraphStage stage,
                                          KilnGraph** out) {
  return Guard("SessionGetGraph", [&] {
    const auto& s = Unwrap(session, "session");
    const int which = EnumValue(stage);
    if (which != KILN_GRAPH_LOADED && which != KILN_GRAPH_OPTIMIZED) {
      ThrowInvalidArgument(
          "stage",
          std::to_string(which) + " is not KILN_GRAPH_LOADED (1) or KILN_GRAPH_OPTIMIZED (2)");
    }
    CheckOut(out, "out");
    const bool loaded = which == KILN_GRAPH_LOADED;
    if (loaded && s.session->loaded_model() == nullptr) {
      ThrowInvalidArgument("stage",
                           "is KILN_GRAPH_LOADED, but the session did not keep its loaded graph "
                           "(make it with the session config entry kiln.graph.keep_loaded = 1)");
    }
    std::lock_guard<std::mutex> views_lock(*s.graph_views_mutex);
    auto& self = const_cast<KilnSession&>(s);
    if (self.graph_views == nullptr) self.graph_views = std::make_shared<SessionViews>();
    auto& views = *static_cast<SessionViews*>(self.graph_views.get());
    std::unique_ptr<KilnModel>& slot = loaded ? views.loaded : views.optimized;
    if (slot == nullptr) {
      auto view = std::make_unique<KilnModel>();
      view->model = loaded ? s.session->loaded_model() : &s.session->model();
      view->read_only = true;
      view->session = s.session;
      view->plan = loaded ? nullptr : &s.session->plan();
      view->view_opsets = ir::ImportedOpsets(*view->model);
      std::unique_ptr<KilnModel> made;
      std::lock_guard<std::mutex> lock(GraphMutex());
      Borrowed(made, std::move(view));
      auto graph = std::make_unique<KilnGraph>();
      graph->graph = made->model->graph;
      graph->model = made.get();
      Borrowed(made->graph, std::move(graph));
      slot = std::move(made);
    }
    *out = slot->graph.get();
  });
}

KilnStatus* KILN_API_CALL GraphGetModel(const KilnGraph* graph, KilnModel** out) {
  return Guard("GraphGetModel", [&] {
    const auto& g = Unwrap(graph, "graph");
    CheckOut(out, "out");
    *out = const_cast<KilnModel*>(ModelOf(g));
  });
}

}  // namespace kiln::api::graph
