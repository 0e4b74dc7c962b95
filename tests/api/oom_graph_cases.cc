// Failure injection over the graph API (the KilnGraphApi sub-table), joined to oom_test.cc's
// cases: one case (or more) per entry. A Get entry is called where it makes a handle on first use
// (a fresh model's parts), so that its allocations are injected into. An `…Owned…` entry's check
// sees that a failed call took nothing (the caller's Release frees what it gave) and a successful
// one took all. And one test of the refusals of those entries: they leak nothing either.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "alloc_hook.h"
#include "api_test_util.h"
#include "oom_cases.h"
#include "test_models.h"

namespace kiln_test {
namespace {

const KilnGraphApi& G() {
  return graph_api();
}

size_t g_printed = 0;  // what the print callbacks received (a static: they must not allocate)
void KILN_API_CALL CountText(const char*, size_t length, void*) {
  g_printed += length;
}

const std::string& SavePath() {
  static const std::string path = models::ScratchDir().path() + "/oom_graph_saved.onnx";
  return path;
}

constexpr const char* kLongName = "a name long enough to need the heap, twice over";

KilnStatus* Made1(KilnStatus* s, Made& m, std::function<void()> release) {
  if (s == nullptr) m.releases.push_back(std::move(release));
  return s;
}

// Whether a call succeeded without error.
bool Ok(KilnStatus* s) {
  const bool ok = s == nullptr;
  api().ReleaseStatus(s);
  return ok;
}

// Releases a handle the caller must still own (a failed `…Owned…` call took nothing) and checks it
// went; NULLs it so that the fixture does not release it again. A static string saying what is
// wrong, or NULL.
const char* ReleaseMine(KilnGraph*& g) {
  G().ReleaseGraph(g);
  KilnStringRef r{};
  const bool gone = !Ok(G().GraphGetName(g, &r));
  g = nullptr;
  return gone ? nullptr : "a failed call took the caller's graph";
}
const char* ReleaseMine(KilnNode*& n) {
  G().ReleaseNode(n);
  KilnStringRef r{};
  const bool gone = !Ok(G().NodeGetName(n, &r));
  n = nullptr;
  return gone ? nullptr : "a failed call took the caller's node";
}
const char* ReleaseMine(KilnValueInfo*& v) {
  G().ReleaseValueInfo(v);
  KilnStringRef r{};
  const bool gone = !Ok(G().ValueInfoGetName(v, &r));
  v = nullptr;
  return gone ? nullptr : "a failed call took the caller's value info";
}
const char* ReleaseMine(KilnAttribute*& a) {
  G().ReleaseAttribute(a);
  KilnStringRef r{};
  const bool gone = !Ok(G().AttributeGetName(a, &r));
  a = nullptr;
  return gone ? nullptr : "a failed call took the caller's attribute";
}

size_t Count(KilnStatus* (*get)(const KilnGraph*, size_t*), const KilnGraph* g) {
  size_t n = kSizeSentinel;
  ExpectOk(get(g, &n));
  return n;
}

// GraphSetOwnedInputs / Outputs given free_value_info and free_value_info2.
const char* TwoValueInfosWrong(Objects& b, bool failed, bool inputs) {
  const size_t n = Count(inputs ? G().GraphGetNumInputs : G().GraphGetNumOutputs, b.g.free_graph);
  if (failed) {
    if (n != 0) return "a failed call gave the graph values";
    if (const char* wrong = ReleaseMine(b.g.free_value_info)) return wrong;
    return ReleaseMine(b.g.free_value_info2);
  }
  if (n != 2) return "the call did not give the graph both values";
  KilnValueInfo* second = nullptr;
  ExpectOk(inputs ? G().GraphGetInput(b.g.free_graph, 1, &second)
                  : G().GraphGetOutput(b.g.free_graph, 1, &second));
  return second == b.g.free_value_info2 ? nullptr : "the graph does not show the caller's handle";
}

// The graph attribute cases: failed, the graphs are still the caller's; else the attribute's.
const char* GraphsWrong(Objects& b, bool failed, bool both) {
  if (!failed) {
    b.g.free_graph = nullptr;  // they went with the attribute
    if (both) b.g.free_graph2 = nullptr;
    return nullptr;
  }
  if (const char* wrong = ReleaseMine(b.g.free_graph)) return wrong;
  return both ? ReleaseMine(b.g.free_graph2) : nullptr;
}

}  // namespace

std::vector<OomCase> GraphOomCases() {
  static const char* const kDomains[] = {"", "com.example.a.domain.long.enough.to.need.the.heap"};
  static const int64_t kVersions[] = {17, 1};
  static const int64_t kDims[] = {-1, 3};
  static const char* const kParams[] = {kLongName, nullptr};
  return {
      // ---- KilnApi's two slots for it
      {"GetGraphApi",
       [](Objects&, Outs& o, Made&) {
         o.pointer = const_cast<KilnGraphApi*>(api().GetGraphApi(KILN_GRAPH_API_VERSION));
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"GetTensorData",
       [](Objects& b, Outs& o, Made&) { return api().GetTensorData(b.value, &o.g.data); }},
      // ---- Models
      {"CreateModel",
       [](Objects&, Outs& o, Made& m) {
         return Made1(G().CreateModel(8, kDomains, kVersions, 2, &o.g.model), m,
                      [p = &o.g.model] { G().ReleaseModel(*p); });
       }},
      {"CreateModelFromFile",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateModelFromFile(b.model_path.c_str(), &o.g.model), m,
                      [p = &o.g.model] { G().ReleaseModel(*p); });
       }},
      {"CreateModelFromArray",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateModelFromArray(b.model.data(), b.model.size(), &o.g.model), m,
                      [p = &o.g.model] { G().ReleaseModel(*p); });
       }},
      {"CreateModelFromText",
       [](Objects&, Outs& o, Made& m) {
         return Made1(G().CreateModelFromText(kIfModelText, std::strlen(kIfModelText), &o.g.model),
                      m, [p = &o.g.model] { G().ReleaseModel(*p); });
       }},
      {"ReleaseModel",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseModel(b.g.model);
         b.g.model = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"ModelGetIrVersion",
       [](Objects& b, Outs& o, Made&) { return G().ModelGetIrVersion(b.g.model, &o.version); }},
      {"ModelGetNumOpsetImports",
       [](Objects& b, Outs& o, Made&) { return G().ModelGetNumOpsetImports(b.g.model, &o.size); }},
      {"ModelGetOpsetImport",
       [](Objects& b, Outs& o, Made&) {
         return G().ModelGetOpsetImport(b.g.model, 0, &o.g.ref, &o.version);
       }},
      {"ModelSetOwnedGraph",
       [](Objects& b, Outs&, Made&) {
         return G().ModelSetOwnedGraph(b.g.empty_model, b.g.free_graph);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) -> const char* {
         KilnModel* owner = nullptr;
         ExpectOk(G().GraphGetModel(b.g.free_graph, &owner));
         if (failed)
           return owner != nullptr ? "a failed call gave the model its graph"
                                   : ReleaseMine(b.g.free_graph);
         return owner == b.g.empty_model ? nullptr : "the call did not give the model its graph";
       }},
      {"ModelGetGraph",  // of a model whose graph has no handle yet
       [](Objects& b, Outs& o, Made&) { return G().ModelGetGraph(b.g.text_model, &o.g.graph); },
       [](Objects& b) {
         G().ReleaseModel(b.g.text_model);
         ExpectOk(
             G().CreateModelFromText(kIfModelText, std::strlen(kIfModelText), &b.g.text_model));
       }},
      {"ModelVerify",
       [](Objects& b, Outs&, Made&) { return G().ModelVerify(b.g.model, b.session_options); }},
      {"ModelSave",
       [](Objects& b, Outs&, Made& m) {
         return Made1(G().ModelSave(b.g.model, SavePath().c_str()), m,
                      [] { std::remove(SavePath().c_str()); });
       },
       [](Objects&) { std::remove(SavePath().c_str()); }},
      {"ModelPrint",
       [](Objects& b, Outs&, Made&) {
         return G().ModelPrint(b.g.text_model, -1, KILN_PRINT_DEBUG, &CountText, nullptr);
       }},
      {"ModelPrint",  // a session's optimized view, with its kernels
       [](Objects& b, Outs&, Made&) {
         KilnModel* view = nullptr;
         KilnStatus* s = G().GraphGetModel(b.g.view, &view);
         if (s == nullptr) s = G().ModelPrint(view, 4, KILN_PRINT_DEBUG, &CountText, nullptr);
         return s;
       }},
      {"CreateSessionFromModel",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateSessionFromModel(b.env, b.g.model, b.session_options, &o.session),
                      m, [p = &o.session] { api().ReleaseSession(*p); });
       }},
      {"SessionGetGraph",  // its views are made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().SessionGetGraph(b.session, KILN_GRAPH_OPTIMIZED, &o.g.graph);
       }},
      // ---- Graphs
      {"CreateGraph",
       [](Objects&, Outs& o, Made& m) {
         return Made1(G().CreateGraph(kLongName, &o.g.graph), m,
                      [p = &o.g.graph] { G().ReleaseGraph(*p); });
       }},
      {"ReleaseGraph",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseGraph(b.g.free_graph);
         b.g.free_graph = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"GraphGetModel",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetModel(b.g.graph, &o.g.model); }},
      {"GraphGetName",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetName(b.g.graph, &o.g.ref); }},
      {"GraphGetNumInputs",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetNumInputs(b.g.graph, &o.size); }},
      {"GraphGetInput",
       [](Objects& b, Outs& o, Made&) {
         return G().GraphGetInput(b.g.text_graph, 1, &o.g.value_info);
       },
       [](Objects& b) { b.g.RemakeTextModel(); }},
      {"GraphGetNumOutputs",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetNumOutputs(b.g.graph, &o.size); }},
      {"GraphGetOutput",
       [](Objects& b, Outs& o, Made&) {
         return G().GraphGetOutput(b.g.text_graph, 0, &o.g.value_info);
       },
       [](Objects& b) { b.g.RemakeTextModel(); }},
      {"GraphGetNumInitializers",  // after a change dropped what it knew
       [](Objects& b, Outs& o, Made&) { return G().GraphGetNumInitializers(b.g.graph, &o.size); },
       [](Objects& b) { ExpectOk(G().GraphAddInitializer(b.g.graph, "w2", b.value)); }},
      {"GraphGetInitializer",
       [](Objects& b, Outs& o, Made&) {
         return G().GraphGetInitializer(b.g.graph, 1, &o.g.value_info);
       },
       [](Objects& b) { ExpectOk(G().GraphAddInitializer(b.g.graph, "w2", b.value)); }},
      {"GraphGetNumNodes",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetNumNodes(b.g.graph, &o.size); }},
      {"GraphGetNode",
       [](Objects& b, Outs& o, Made&) { return G().GraphGetNode(b.g.text_graph, 0, &o.g.node); },
       [](Objects& b) { b.g.RemakeTextModel(); }},
      {"GraphSetOwnedInputs",
       [](Objects& b, Outs&, Made&) {
         KilnValueInfo* inputs[] = {b.g.free_value_info, b.g.free_value_info2};
         return G().GraphSetOwnedInputs(b.g.free_graph, inputs, 2);
       },
       nullptr, [](Objects& b, Made&, bool failed) { return TwoValueInfosWrong(b, failed, true); }},
      {"GraphSetOwnedInputs",  // y has a handle already: the caller's is kept beside it
       [](Objects& b, Outs&, Made&) {
         KilnValueInfo* inputs[] = {b.g.free_value_info, b.g.free_value_info2};
         return G().GraphSetOwnedInputs(b.g.free_graph, inputs, 2);
       },
       [](Objects& b) {
         ExpectOk(G().GraphAddOwnedNode(b.g.free_graph, b.g.free_node));  // reads y
         ExpectOk(G().NodeGetInput(b.g.free_node, 0, &b.g.parked_value));
       },
       [](Objects& b, Made&, bool failed) -> const char* {
         const size_t n = Count(G().GraphGetNumInputs, b.g.free_graph);
         if (failed) {
           if (n != 0) return "a failed call gave the graph inputs";
           if (const char* wrong = ReleaseMine(b.g.free_value_info)) return wrong;
           return ReleaseMine(b.g.free_value_info2);
         }
         return n == 2 ? nullptr : "the call did not give the graph its inputs";
       }},
      {"GraphSetOwnedOutputs",
       [](Objects& b, Outs&, Made&) {
         KilnValueInfo* outputs[] = {b.g.free_value_info, b.g.free_value_info2};
         return G().GraphSetOwnedOutputs(b.g.free_graph, outputs, 2);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) { return TwoValueInfosWrong(b, failed, false); }},
      {"GraphAddInitializer",
       [](Objects& b, Outs&, Made&) {
         return G().GraphAddInitializer(b.g.free_graph, kLongName, b.value);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) -> const char* {
         const size_t n = Count(G().GraphGetNumInitializers, b.g.free_graph);
         if (failed && n != 0) return "a failed GraphAddInitializer added one";
         if (!failed && n != 1) return "GraphAddInitializer added none";
         return nullptr;
       }},
      {"GraphAddOwnedNode",  // with an attribute
       [](Objects& b, Outs&, Made&) { return G().GraphAddOwnedNode(b.g.graph, b.g.free_node); },
       [](Objects& b) { ExpectOk(G().NodeAddOwnedAttribute(b.g.free_node, b.g.attr_int)); },
       [](Objects& b, Made&, bool failed) -> const char* {
         const size_t n = Count(G().GraphGetNumNodes, b.g.graph);
         if (failed) return n != 1 ? "a failed call added the node" : ReleaseMine(b.g.free_node);
         if (n != 2) return "the call did not add the node";
         KilnNode* producer = nullptr;
         size_t index = 0;
         KilnValueInfo* y = b.g.output;
         KilnNode* reader = nullptr;
         ExpectOk(G().ValueInfoGetProducer(y, &producer, &index));
         ExpectOk(G().ValueInfoGetConsumer(y, 0, &reader, &index));
         return reader == b.g.free_node ? nullptr : "the node was not linked to its input";
       }},
      {"GraphAddOwnedNode",  // reading two values: a failure links neither
       [](Objects& b, Outs&, Made&) { return G().GraphAddOwnedNode(b.g.graph, b.g.free_node); },
       [](Objects& b) {
         G().ReleaseNode(b.g.free_node);
         b.g.free_node = nullptr;
         const char* in[] = {"x", "y"};
         const char* out[] = {"z"};
         ExpectOk(G().CreateNode("Add", "", "add2", in, 2, out, 1, &b.g.free_node));
       },
       [](Objects& b, Made&, bool failed) -> const char* {
         const size_t n = Count(G().GraphGetNumNodes, b.g.graph);
         size_t x_reads = 0;
         ExpectOk(G().ValueInfoGetNumConsumers(b.g.input, &x_reads));
         if (failed) {
           if (n != 1) return "a failed call added the node";
           if (x_reads != 1) return "a failed call left the node among x's consumers";
           return ReleaseMine(b.g.free_node);
         }
         if (n != 2 || x_reads != 2) return "the call did not add and link the node";
         return nullptr;
       }},
      {"GraphPrint",
       [](Objects& b, Outs&, Made&) {
         return G().GraphPrint(b.g.graph, -1, KILN_PRINT_DEFAULT, &CountText, nullptr);
       }},
      // ---- Types
      {"CreateTensorTypeInfo",
       [](Objects&, Outs& o, Made& m) {
         return Made1(
             G().CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, kDims, kParams, 2, &o.g.type), m,
             [p = &o.g.type] { G().ReleaseTypeInfo(*p); });
       }},
      {"CreateSparseTensorTypeInfo",
       [](Objects&, Outs& o, Made& m) {
         return Made1(
             G().CreateSparseTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, kDims, kParams, 2, &o.g.type),
             m, [p = &o.g.type] { G().ReleaseTypeInfo(*p); });
       }},
      {"CreateSequenceTypeInfo",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateSequenceTypeInfo(b.g.type, &o.g.type), m,
                      [p = &o.g.type] { G().ReleaseTypeInfo(*p); });
       }},
      {"CreateOptionalTypeInfo",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateOptionalTypeInfo(b.g.type, &o.g.type), m,
                      [p = &o.g.type] { G().ReleaseTypeInfo(*p); });
       }},
      {"CreateMapTypeInfo",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateMapTypeInfo(KILN_ELEMENT_TYPE_STRING, b.g.seq_type, &o.g.type), m,
                      [p = &o.g.type] { G().ReleaseTypeInfo(*p); });
       }},
      {"ReleaseTypeInfo",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseTypeInfo(b.g.type);
         b.g.type = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"TypeInfoGetKind",
       [](Objects& b, Outs& o, Made&) { return G().TypeInfoGetKind(b.g.seq_type, &o.g.kind); }},
      {"TypeInfoGetElementType",
       [](Objects& b, Outs& o, Made&) {
         return G().TypeInfoGetElementType(b.g.type, &o.element_type);
       }},
      {"TypeInfoGetRank",
       [](Objects& b, Outs& o, Made&) { return G().TypeInfoGetRank(b.g.type, &o.size); }},
      {"TypeInfoGetDimensions",
       [](Objects& b, Outs& o, Made&) { return G().TypeInfoGetDimensions(b.g.type, o.dims, 2); }},
      {"TypeInfoGetDimParam",
       [](Objects& b, Outs& o, Made&) { return G().TypeInfoGetDimParam(b.g.type, 0, &o.g.ref); }},
      {"TypeInfoGetContainedType",
       [](Objects& b, Outs& o, Made&) {
         return G().TypeInfoGetContainedType(b.g.seq_type, &o.g.const_type);
       }},
      // ---- Values
      {"CreateValueInfo",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateValueInfo(kLongName, b.g.type, &o.g.value_info), m,
                      [p = &o.g.value_info] { G().ReleaseValueInfo(*p); });
       }},
      {"ReleaseValueInfo",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseValueInfo(b.g.free_value_info);
         b.g.free_value_info = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"ValueInfoGetName",
       [](Objects& b, Outs& o, Made&) { return G().ValueInfoGetName(b.g.input, &o.g.ref); }},
      {"ValueInfoGetType",  // asked for the first time
       [](Objects& b, Outs& o, Made&) { return G().ValueInfoGetType(b.g.input, &o.g.const_type); }},
      {"ValueInfoGetType",  // a session's value: the type inferred
       [](Objects& b, Outs& o, Made&) {
         KilnValueInfo* v = nullptr;
         KilnStatus* s = G().GraphGetInput(b.g.view, 0, &v);
         if (s == nullptr) s = G().ValueInfoGetType(v, &o.g.const_type);
         return s;
       }},
      {"ValueInfoGetProducer",  // the If node, which has no handle yet
       [](Objects& b, Outs& o, Made&) {
         return G().ValueInfoGetProducer(b.g.parked_value, &o.g.node, &o.g.index);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetOutput(b.g.text_graph, 0, &b.g.parked_value));
       }},
      {"ValueInfoGetNumConsumers",
       [](Objects& b, Outs& o, Made&) { return G().ValueInfoGetNumConsumers(b.g.input, &o.size); }},
      {"ValueInfoGetConsumer",  // x, read by the If node's branches
       [](Objects& b, Outs& o, Made&) {
         return G().ValueInfoGetConsumer(b.g.parked_value, 0, &o.g.node, &o.g.index);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetInput(b.g.text_graph, 1, &b.g.parked_value));
       }},
      {"ValueInfoGetInitializer",
       [](Objects& b, Outs& o, Made&) {
         return G().ValueInfoGetInitializer(b.g.weight, &o.const_value);
       }},
      {"ValueInfoIsCaptured",
       [](Objects& b, Outs& o, Made&) { return G().ValueInfoIsCaptured(b.g.input, &o.i); }},
      // ---- Nodes
      {"CreateNode",
       [](Objects&, Outs& o, Made& m) {
         const char* in[] = {kLongName, ""};
         const char* out[] = {"a second name long enough to need the heap"};
         return Made1(G().CreateNode("AnOpTypeLongEnoughToNeedTheHeap", kDomains[1], kLongName, in,
                                     2, out, 1, &o.g.node),
                      m, [p = &o.g.node] { G().ReleaseNode(*p); });
       }},
      {"ReleaseNode",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseNode(b.g.free_node);
         b.g.free_node = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"NodeGetName",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetName(b.g.node, &o.g.ref); }},
      {"NodeGetOpType",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetOpType(b.g.node, &o.g.ref); }},
      {"NodeGetDomain",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetDomain(b.g.node, &o.g.ref); }},
      {"NodeGetSinceVersion",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetSinceVersion(b.g.node, &o.version); }},
      {"NodeGetNumInputs",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetNumInputs(b.g.node, &o.size); }},
      {"NodeGetInput",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetInput(b.g.if_node, 0, &o.g.value_info); },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
       }},
      {"NodeGetNumOutputs",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetNumOutputs(b.g.node, &o.size); }},
      {"NodeGetOutput",
       [](Objects& b, Outs& o, Made&) {
         return G().NodeGetOutput(b.g.if_node, 0, &o.g.value_info);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
       }},
      {"NodeGetNumImplicitInputs",
       [](Objects& b, Outs& o, Made&) {
         return G().NodeGetNumImplicitInputs(b.g.if_node, &o.size);
       }},
      {"NodeGetImplicitInput",
       [](Objects& b, Outs& o, Made&) {
         return G().NodeGetImplicitInput(b.g.if_node, 0, &o.g.value_info);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
       }},
      {"NodeGetNumAttributes",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetNumAttributes(b.g.if_node, &o.size); }},
      {"NodeGetAttribute",
       [](Objects& b, Outs& o, Made&) {
         return G().NodeGetAttribute(b.g.if_node, 1, &o.g.attribute);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
       }},
      {"NodeGetAttributeByName",
       [](Objects& b, Outs& o, Made&) {
         return G().NodeGetAttributeByName(b.g.if_node, "else_branch", &o.g.attribute);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
       }},
      {"NodeAddOwnedAttribute",  // a node of the caller's
       [](Objects& b, Outs&, Made&) {
         return G().NodeAddOwnedAttribute(b.g.free_node, b.g.attr_strings);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) -> const char* {
         size_t n = kSizeSentinel;
         ExpectOk(G().NodeGetNumAttributes(b.g.free_node, &n));
         if (failed)
           return n != 0 ? "a failed call added the attribute" : ReleaseMine(b.g.attr_strings);
         return n == 1 ? nullptr : "the call did not add the attribute";
       }},
      {"NodeAddOwnedAttribute",  // a node in a graph
       [](Objects& b, Outs&, Made&) { return G().NodeAddOwnedAttribute(b.g.node, b.g.attr_graph); },
       nullptr,
       [](Objects& b, Made&, bool failed) -> const char* {
         size_t n = kSizeSentinel;
         ExpectOk(G().NodeGetNumAttributes(b.g.node, &n));
         if (failed)
           return n != 0 ? "a failed call added the attribute" : ReleaseMine(b.g.attr_graph);
         if (n != 1) return "the call did not add the attribute";
         KilnAttribute* got = nullptr;
         ExpectOk(G().NodeGetAttribute(b.g.node, 0, &got));
         return got == b.g.attr_graph ? nullptr : "the node does not show the caller's handle";
       }},
      {"NodeGetKernel",  // made on first use
       [](Objects& b, Outs& o, Made&) { return G().NodeGetKernel(b.g.view_node, &o.g.ref); }},
      {"NodeGetNumFusedFrom",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetNumFusedFrom(b.g.view_node, &o.size); }},
      {"NodeGetFusedFrom",
       [](Objects& b, Outs& o, Made&) { return G().NodeGetFusedFrom(b.g.fused_node, 1, &o.g.ref); },
       [](Objects& b) { b.g.MakeFused(b.env); }},
      // ---- Attributes
      {"CreateAttributeInt",
       [](Objects&, Outs& o, Made& m) {
         return Made1(G().CreateAttributeInt(kLongName, -3, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeFloat",
       [](Objects&, Outs& o, Made& m) {
         return Made1(G().CreateAttributeFloat(kLongName, 2.5f, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeString",
       [](Objects&, Outs& o, Made& m) {
         return Made1(
             G().CreateAttributeString("s", kLongName, std::strlen(kLongName), &o.g.attribute), m,
             [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeTensor",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateAttributeTensor(kLongName, b.value, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeWithOwnedGraph",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateAttributeWithOwnedGraph(kLongName, b.g.free_graph, &o.g.attribute),
                      m, [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       },
       nullptr, [](Objects& b, Made&, bool failed) { return GraphsWrong(b, failed, false); }},
      {"CreateAttributeInts",
       [](Objects&, Outs& o, Made& m) {
         const int64_t values[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
         return Made1(G().CreateAttributeInts("ints", values, 10, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeFloats",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateAttributeFloats("floats", b.data, 6, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeStrings",
       [](Objects&, Outs& o, Made& m) {
         const KilnStringRef values[] = {{kLongName, std::strlen(kLongName)}, {"", 0}, {"q", 1}};
         return Made1(G().CreateAttributeStrings("strings", values, 3, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeTensors",
       [](Objects& b, Outs& o, Made& m) {
         const KilnValue* values[] = {b.value, b.x, b.y};
         return Made1(G().CreateAttributeTensors("tensors", values, 3, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeWithOwnedGraphs",
       [](Objects& b, Outs& o, Made& m) {
         KilnGraph* graphs[] = {b.g.free_graph, b.g.free_graph2};
         return Made1(G().CreateAttributeWithOwnedGraphs("bodies", graphs, 2, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       },
       nullptr, [](Objects& b, Made&, bool failed) { return GraphsWrong(b, failed, true); }},
      {"ReleaseAttribute",
       [](Objects& b, Outs&, Made&) {
         G().ReleaseAttribute(b.g.attr_graphs);
         b.g.attr_graphs = nullptr;
         return static_cast<KilnStatus*>(nullptr);
       }},
      {"AttributeGetName",
       [](Objects& b, Outs& o, Made&) { return G().AttributeGetName(b.g.attr_int, &o.g.ref); }},
      {"AttributeGetType",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetType(b.g.attr_int, &o.g.attribute_type);
       }},
      {"AttributeGetInt",
       [](Objects& b, Outs& o, Made&) { return G().AttributeGetInt(b.g.attr_int, &o.version); }},
      {"AttributeGetFloat",
       [](Objects& b, Outs& o, Made&) { return G().AttributeGetFloat(b.g.attr_float, &o.f); }},
      {"AttributeGetString",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetString(b.g.attr_string, &o.g.ref);
       }},
      {"AttributeGetTensor",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetTensor(b.g.attr_tensor, &o.const_value);
       }},
      {"AttributeGetGraph",  // a subgraph of a node's, made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetGraph(b.g.parked_attribute, &o.g.graph);
       },
       [](Objects& b) {
         b.g.RemakeTextModel();
         ExpectOk(G().GraphGetNode(b.g.text_graph, 0, &b.g.if_node));
         ExpectOk(G().NodeGetAttribute(b.g.if_node, 0, &b.g.parked_attribute));
       }},
      {"AttributeGetNumElements",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetNumElements(b.g.attr_strings, &o.size);
       }},
      {"AttributeGetInts",
       [](Objects& b, Outs& o, Made&) { return G().AttributeGetInts(b.g.attr_ints, &o.ints); }},
      {"AttributeGetFloats",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetFloats(b.g.attr_floats, &o.floats);
       }},
      {"AttributeGetStringAt",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetStringAt(b.g.attr_strings, 1, &o.g.ref);
       }},
      {"AttributeGetTensorAt",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetTensorAt(b.g.attr_tensors, 0, &o.const_value);
       }},
      {"AttributeGetGraphAt",
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetGraphAt(b.g.attr_graphs, 0, &o.g.graph);
       }},
      {"CreateAttributeSparseTensor",
       [](Objects& b, Outs& o, Made& m) {
         const int64_t dense[] = {2, 3};
         return Made1(G().CreateAttributeSparseTensor(kLongName, b.g.sparse_values,
                                                      b.g.sparse_indices, dense, 2, &o.g.attribute),
                      m, [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeSparseTensors",
       [](Objects& b, Outs& o, Made& m) {
         const int64_t dense[] = {2, 3};
         const KilnValue* v[] = {b.g.sparse_values, b.g.sparse_values};
         const KilnValue* i[] = {b.g.sparse_indices, b.g.sparse_indices};
         const int64_t* d[] = {dense, dense};
         const size_t r[] = {2, 2};
         return Made1(G().CreateAttributeSparseTensors("sparses", v, i, d, r, 2, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeTypeProto",
       [](Objects& b, Outs& o, Made& m) {
         return Made1(G().CreateAttributeTypeProto(kLongName, b.g.seq_type, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"CreateAttributeTypeProtos",
       [](Objects& b, Outs& o, Made& m) {
         const KilnTypeInfo* t[] = {b.g.type, b.g.seq_type};
         return Made1(G().CreateAttributeTypeProtos("types", t, 2, &o.g.attribute), m,
                      [p = &o.g.attribute] { G().ReleaseAttribute(*p); });
       }},
      {"AttributeGetSparseTensor",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetSparseTensor(b.g.attr_sparse, &o.const_value, &o.g.value2,
                                             &o.g.dims, &o.g.rank);
       }},
      {"AttributeGetSparseTensorAt",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetSparseTensorAt(b.g.attr_sparses, 1, &o.const_value, &o.g.value2,
                                               &o.g.dims, &o.g.rank);
       }},
      {"AttributeGetTypeProto",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetTypeProto(b.g.attr_type, &o.g.const_type);
       }},
      {"AttributeGetTypeProtoAt",  // made on first use
       [](Objects& b, Outs& o, Made&) {
         return G().AttributeGetTypeProtoAt(b.g.attr_types, 1, &o.g.const_type);
       }},
  };
}

std::vector<std::string> GraphAllocatingEntries() {
  return {"CreateModel",
          "CreateModelFromFile",
          "CreateModelFromArray",
          "CreateModelFromText",
          "ModelGetGraph",
          "ModelVerify",
          "ModelSave",
          "ModelPrint",
          "CreateSessionFromModel",
          "SessionGetGraph",
          "CreateGraph",
          "GraphGetInput",
          "GraphGetOutput",
          "GraphGetNumInitializers",
          "GraphGetInitializer",
          "GraphGetNode",
          "GraphSetOwnedInputs",
          "GraphSetOwnedOutputs",
          "GraphAddInitializer",
          "GraphAddOwnedNode",
          "GraphPrint",
          "CreateTensorTypeInfo",
          "CreateSparseTensorTypeInfo",
          "CreateSequenceTypeInfo",
          "CreateOptionalTypeInfo",
          "CreateMapTypeInfo",
          "TypeInfoGetContainedType",
          "CreateValueInfo",
          "ValueInfoGetType",
          "ValueInfoGetProducer",
          "ValueInfoGetConsumer",
          "ValueInfoGetInitializer",
          "CreateNode",
          "NodeGetInput",
          "NodeGetOutput",
          "NodeGetImplicitInput",
          "NodeGetAttribute",
          "NodeGetAttributeByName",
          "NodeAddOwnedAttribute",
          "NodeGetKernel",
          "CreateAttributeInt",
          "CreateAttributeFloat",
          "CreateAttributeString",
          "CreateAttributeTensor",
          "CreateAttributeWithOwnedGraph",
          "CreateAttributeInts",
          "CreateAttributeFloats",
          "CreateAttributeStrings",
          "CreateAttributeTensors",
          "CreateAttributeWithOwnedGraphs",
          "AttributeGetTensor",
          "AttributeGetGraph",
          "AttributeGetTensorAt",
          "CreateAttributeSparseTensor",
          "CreateAttributeSparseTensors",
          "CreateAttributeTypeProto",
          "CreateAttributeTypeProtos",
          "AttributeGetSparseTensor",
          "AttributeGetSparseTensorAt",
          "AttributeGetTypeProto",
          "AttributeGetTypeProtoAt"};
}

namespace {

// Every way an `…Owned…` entry refuses what it is given, the caller then releasing it all.
void RefuseOwnedCalls() {
  Objects b;
  const auto refused = [](KilnStatus* s) { EXPECT_FALSE(Ok(s)); };
  KilnAttribute* out = Sentinel<KilnAttribute>();
  refused(G().ModelSetOwnedGraph(b.g.model, b.g.free_graph));           // has a graph
  refused(G().ModelSetOwnedGraph(b.g.empty_model, b.g.graph));          // owned by a model
  KilnValueInfo* twins[] = {b.g.free_value_info, b.g.free_value_info};  // one name twice
  refused(G().GraphSetOwnedInputs(b.g.free_graph, twins, 2));
  refused(G().GraphSetOwnedOutputs(b.g.free_graph, twins, 2));
  KilnValueInfo* owned[] = {b.g.free_value_info, b.g.input};  // the second owned by a graph
  refused(G().GraphSetOwnedInputs(b.g.free_graph, owned, 2));
  refused(G().GraphSetOwnedOutputs(b.g.free_graph, owned, 2));
  refused(G().GraphSetOwnedInputs(b.g.graph, &b.g.free_value_info, 1));  // has inputs
  refused(G().GraphSetOwnedInputs(b.g.view, &b.g.free_value_info, 1));   // a view
  const char* in[] = {"x"};
  const char* out_y[] = {"y"};
  KilnNode* clash = nullptr;
  ExpectOk(G().CreateNode("Relu", "", kLongName, in, 1, out_y, 1, &clash));
  ExpectOk(G().NodeAddOwnedAttribute(clash, b.g.attr_ints));
  refused(G().GraphAddOwnedNode(b.g.graph, clash));  // y is produced already
  refused(G().GraphAddOwnedNode(b.g.view, clash));
  ExpectOk(G().NodeAddOwnedAttribute(b.g.free_node, b.g.attr_int));
  KilnAttribute* again = nullptr;
  ExpectOk(G().CreateAttributeInt("i", 1, &again));
  refused(G().NodeAddOwnedAttribute(b.g.free_node, again));  // the name is taken
  refused(G().NodeAddOwnedAttribute(b.g.view_node, again));
  refused(G().CreateAttributeWithOwnedGraph("", b.g.free_graph, &out));
  refused(G().CreateAttributeWithOwnedGraph(kLongName, b.g.graph, &out));
  KilnGraph* graphs[] = {b.g.free_graph, b.g.free_graph};
  refused(G().CreateAttributeWithOwnedGraphs(kLongName, graphs, 2, &out));
  KilnGraph* owned_graphs[] = {b.g.free_graph, b.g.graph};
  refused(G().CreateAttributeWithOwnedGraphs(kLongName, owned_graphs, 2, &out));
  EXPECT_EQ(out, Sentinel<KilnAttribute>());
  G().ReleaseNode(clash);
  G().ReleaseAttribute(again);
}

}  // namespace

TEST(FailureInjection, RefusedOwnedCallsLeakNothing) {
  RefuseOwnedCalls();  // warm-up
  const long baseline = alloc_hook::Live();
  RefuseOwnedCalls();
  EXPECT_EQ(alloc_hook::Live(), baseline);
}

}  // namespace kiln_test
