// The graph API's Release entries and a session's views (kiln/kiln_graph_api.h; DESIGN.md §3
// rules 4 and 8): a Release entry accepts NULL and only logs a handle that is not the caller's to
// release; a session's graphs (SessionGetGraph) refuse every change, and once the session is
// released every handle into them is refused; a model's constants are read with GetTensorData,
// which GetTensorMutableData's refusal leaves the only way in.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "fixtures.h"

namespace kiln_test {
namespace {

const KilnGraphApi& G() {
  return graph_api();
}

void ExpectRefused(KilnStatus* status, const char* entry, const char* argument,
                   const char* fragment) {
  ASSERT_NE(status, nullptr) << entry << " succeeded; expected a refusal of '" << argument << "'";
  const std::string message = api().GetErrorMessage(status);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
  ExpectError(status, KILN_INVALID_ARGUMENT, entry, argument);
}

// What the process logs, through the first live Env (make it before any other).
class LogCapture {
 public:
  LogCapture() {
    ExpectOk(api().CreateEnvWithCustomLogger(&Capture, this, KILN_LOGGING_LEVEL_WARNING,
                                             "graph-view-test", &env_));
  }
  ~LogCapture() { api().ReleaseEnv(env_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  KilnEnv* env() const { return env_; }

  // Whether exactly one message was logged since the last call, naming `entry` and saying what
  // was wrong with the handle.
  void ExpectOneIgnored(const char* entry, const char* why) {
    ASSERT_EQ(messages_.size(), 1u) << entry;
    EXPECT_NE(messages_[0].find(std::string(entry) + ": argument"), std::string::npos)
        << messages_[0];
    EXPECT_NE(messages_[0].find(why), std::string::npos) << messages_[0];
    EXPECT_NE(messages_[0].find("ignored"), std::string::npos) << messages_[0];
    messages_.clear();
  }
  void ExpectNothing() {
    EXPECT_TRUE(messages_.empty()) << messages_.front();
    messages_.clear();
  }

 private:
  static void KILN_API_CALL Capture(void* self, KilnLoggingLevel, const char*, const char*,
                                    const char*, const char* message) {
    static_cast<LogCapture*>(self)->messages_.emplace_back(message);
  }
  KilnEnv* env_ = nullptr;
  std::vector<std::string> messages_;
};

constexpr const char* kBorrowed = "is borrowed, not owned by the caller";

// c: bool [], x: float [2], w: float [2] = {1, 2} (an initializer); xw = Add(x, w) (node "add");
// y = If(c) whose branches read xw: Identity(xw), Neg(xw).
constexpr const char kViewModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y)
<float[2] w = {1.0, 2.0}>
{
  xw = Add (x, w)
  y = If <then_branch = then_g () => (float[2] t)
    {
      t = Identity (xw)
    }, else_branch = else_g () => (float[2] e)
    {
      e = Neg (xw)
    }> (c)
}
)";

// A session of kViewModel that keeps its loaded graph.
KilnSession* ViewSession(KilnEnv* env) {
  KilnModel* model = nullptr;
  ExpectOk(G().CreateModelFromText(kViewModel, std::strlen(kViewModel), &model));
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().AddSessionConfigEntry(options, "kiln.graph.keep_loaded", "1"));
  KilnSession* session = nullptr;
  ExpectOk(G().CreateSessionFromModel(env, model, options, &session));
  api().ReleaseSessionOptions(options);
  G().ReleaseModel(model);  // the session has its own copy
  return session;
}

KilnNode* FindNode(const KilnGraph* graph, const std::string& op_type) {
  size_t count = 0;
  ExpectOk(G().GraphGetNumNodes(graph, &count));
  for (size_t i = 0; i < count; ++i) {
    KilnNode* n = nullptr;
    ExpectOk(G().GraphGetNode(graph, i, &n));
    KilnStringRef op{};
    ExpectOk(G().NodeGetOpType(n, &op));
    if (std::string(op.data, op.length) == op_type) return n;
  }
  return nullptr;
}

size_t NumNodes(const KilnGraph* g) {
  size_t n = kSizeSentinel;
  ExpectOk(G().GraphGetNumNodes(g, &n));
  return n;
}

// The handles of one view: its graph, model, a node, a value, an attribute, a type, a subgraph
// and its node, and an initializer's tensor.
struct ViewHandles {
  KilnGraph* graph = nullptr;
  KilnModel* model = nullptr;
  KilnNode* add = nullptr;
  KilnNode* if_node = nullptr;
  KilnValueInfo* input = nullptr;
  KilnAttribute* branch = nullptr;
  const KilnTypeInfo* type = nullptr;
  KilnGraph* subgraph = nullptr;
  KilnNode* subnode = nullptr;
  const KilnValue* constant = nullptr;  // w's tensor, when the view has w

  ViewHandles(const KilnSession* session, KilnGraphStage stage) {
    ExpectOk(G().SessionGetGraph(session, stage, &graph));
    ExpectOk(G().GraphGetModel(graph, &model));
    add = FindNode(graph, "Add");
    if_node = FindNode(graph, "If");
    ExpectOk(G().GraphGetInput(graph, 1, &input));
    ExpectOk(G().ValueInfoGetType(input, &type));
    if (if_node != nullptr) {
      ExpectOk(G().NodeGetAttributeByName(if_node, "then_branch", &branch));
      ExpectOk(G().AttributeGetGraph(branch, &subgraph));
      ExpectOk(G().GraphGetNode(subgraph, 0, &subnode));
    }
    size_t initializers = 0;
    ExpectOk(G().GraphGetNumInitializers(graph, &initializers));
    for (size_t i = 0; i < initializers && constant == nullptr; ++i) {
      KilnValueInfo* v = nullptr;
      ExpectOk(G().GraphGetInitializer(graph, i, &v));
      ExpectOk(G().ValueInfoGetInitializer(v, &constant));
    }
  }
};

// ---- Release entries ---------------------------------------------------------------------------

TEST(GraphRelease, EveryReleaseAcceptsNullAndIgnoresForeignAndReleasedHandles) {
  LogCapture log;
  G().ReleaseModel(nullptr);
  G().ReleaseGraph(nullptr);
  G().ReleaseTypeInfo(nullptr);
  G().ReleaseValueInfo(nullptr);
  G().ReleaseNode(nullptr);
  G().ReleaseAttribute(nullptr);
  log.ExpectNothing();
  Objects b;
  G().ReleaseModel(reinterpret_cast<KilnModel*>(b.g.free_graph));
  log.ExpectOneIgnored("ReleaseModel", "is a handle of another type");
  G().ReleaseGraph(reinterpret_cast<KilnGraph*>(b.g.empty_model));
  log.ExpectOneIgnored("ReleaseGraph", "is a handle of another type");
  G().ReleaseTypeInfo(reinterpret_cast<KilnTypeInfo*>(b.g.free_value_info));
  log.ExpectOneIgnored("ReleaseTypeInfo", "is a handle of another type");
  G().ReleaseValueInfo(reinterpret_cast<KilnValueInfo*>(b.g.free_node));
  log.ExpectOneIgnored("ReleaseValueInfo", "is a handle of another type");
  G().ReleaseNode(reinterpret_cast<KilnNode*>(b.g.attr_int));
  log.ExpectOneIgnored("ReleaseNode", "is a handle of another type");
  G().ReleaseAttribute(reinterpret_cast<KilnAttribute*>(b.g.type));
  log.ExpectOneIgnored("ReleaseAttribute", "is a handle of another type");
  // A graph handle given to KilnApi's Release entries, and theirs to the graph API's.
  api().ReleaseValue(reinterpret_cast<KilnValue*>(b.g.free_value_info));
  log.ExpectOneIgnored("ReleaseValue", "is a handle of another type");
  G().ReleaseValueInfo(reinterpret_cast<KilnValueInfo*>(b.value));
  log.ExpectOneIgnored("ReleaseValueInfo", "is a handle of another type");
  G().ReleaseModel(b.g.stale_model);
  log.ExpectOneIgnored("ReleaseModel", "is not a live handle");
  G().ReleaseGraph(b.g.stale_graph);
  log.ExpectOneIgnored("ReleaseGraph", "is not a live handle");
  G().ReleaseTypeInfo(b.g.stale_type);
  log.ExpectOneIgnored("ReleaseTypeInfo", "is not a live handle");
  G().ReleaseValueInfo(b.g.stale_value_info);
  log.ExpectOneIgnored("ReleaseValueInfo", "is not a live handle");
  G().ReleaseNode(b.g.stale_node);
  log.ExpectOneIgnored("ReleaseNode", "is not a live handle");
  G().ReleaseAttribute(b.g.stale_attribute);
  log.ExpectOneIgnored("ReleaseAttribute", "is not a live handle");
  // Everything is still alive and usable.
  KilnStringRef name{};
  ExpectOk(G().GraphGetName(b.g.free_graph, &name));
  int64_t ir = 0;
  ExpectOk(G().ModelGetIrVersion(b.g.empty_model, &ir));
  ExpectOk(G().ValueInfoGetName(b.g.free_value_info, &name));
  ExpectOk(G().NodeGetName(b.g.free_node, &name));
  ExpectOk(G().AttributeGetName(b.g.attr_int, &name));
  KilnTypeKind kind = KILN_TYPE_UNDEFINED;
  ExpectOk(G().TypeInfoGetKind(b.g.type, &kind));
  EXPECT_EQ(kind, KILN_TYPE_TENSOR);
  int is_tensor = 0;
  ExpectOk(api().IsTensor(b.value, &is_tensor));
}

// A handle an `…Owned…` entry took, or a Get entry lent, is the parent's to release: its Release
// entry logs it and does nothing, and the handle keeps working.
TEST(GraphRelease, ABorrowedHandleIsOnlyLogged) {
  LogCapture log;
  KilnModel* model = nullptr;
  const char* domains[] = {""};
  const int64_t versions[] = {17};
  ExpectOk(G().CreateModel(8, domains, versions, 1, &model));
  KilnGraph* graph = nullptr;
  ExpectOk(G().CreateGraph("main", &graph));
  KilnValueInfo* x = nullptr;
  ExpectOk(G().CreateValueInfo("x", nullptr, &x));
  ExpectOk(G().GraphSetOwnedInputs(graph, &x, 1));
  KilnValueInfo* y = nullptr;
  ExpectOk(G().CreateValueInfo("y", nullptr, &y));
  ExpectOk(G().GraphSetOwnedOutputs(graph, &y, 1));
  const char* in[] = {"x"};
  const char* out[] = {"y"};
  KilnNode* node = nullptr;
  ExpectOk(G().CreateNode("Relu", "", "relu", in, 1, out, 1, &node));
  ExpectOk(G().GraphAddOwnedNode(graph, node));
  KilnAttribute* attribute = nullptr;
  ExpectOk(G().CreateAttributeInt("k", 1, &attribute));
  ExpectOk(G().NodeAddOwnedAttribute(node, attribute));
  KilnGraph* body = nullptr;
  ExpectOk(G().CreateGraph("body", &body));
  KilnAttribute* with_body = nullptr;
  ExpectOk(G().CreateAttributeWithOwnedGraph("body", body, &with_body));
  ExpectOk(G().ModelSetOwnedGraph(model, graph));
  const KilnTypeInfo* x_type = nullptr;
  ExpectOk(G().ValueInfoGetType(x, &x_type));
  log.ExpectNothing();

  G().ReleaseNode(node);
  log.ExpectOneIgnored("ReleaseNode", kBorrowed);
  G().ReleaseGraph(graph);
  log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
  G().ReleaseValueInfo(x);
  log.ExpectOneIgnored("ReleaseValueInfo", kBorrowed);
  G().ReleaseValueInfo(y);
  log.ExpectOneIgnored("ReleaseValueInfo", kBorrowed);
  G().ReleaseAttribute(attribute);
  log.ExpectOneIgnored("ReleaseAttribute", kBorrowed);
  G().ReleaseGraph(body);
  log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
  G().ReleaseTypeInfo(const_cast<KilnTypeInfo*>(x_type));
  log.ExpectOneIgnored("ReleaseTypeInfo", kBorrowed);
  KilnModel* owner = nullptr;
  ExpectOk(G().GraphGetModel(graph, &owner));
  EXPECT_EQ(owner, model);
  G().ReleaseModel(owner);  // the caller's own model, fetched through its graph: released
  log.ExpectNothing();
  KilnStringRef name{};
  ExpectRefused(G().GraphGetName(graph, &name), "GraphGetName", "graph", "is not a live");

  // The graph attribute was never given to a node: it is the caller's, and so is its graph.
  ExpectOk(G().GraphGetName(body, &name));
  G().ReleaseAttribute(with_body);
  log.ExpectNothing();
  ExpectRefused(G().GraphGetName(body, &name), "GraphGetName", "graph", "is not a live");
}

TEST(GraphRelease, ABorrowedHandleStillWorksAfterItsReleaseWasRefused) {
  LogCapture log;
  Objects b;
  log.ExpectNothing();
  G().ReleaseNode(b.g.node);
  log.ExpectOneIgnored("ReleaseNode", kBorrowed);
  G().ReleaseGraph(b.g.graph);
  log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
  G().ReleaseValueInfo(b.g.input);
  log.ExpectOneIgnored("ReleaseValueInfo", kBorrowed);
  KilnAttribute* branch = nullptr;
  ExpectOk(G().NodeGetAttribute(b.g.if_node, 0, &branch));
  G().ReleaseAttribute(branch);
  log.ExpectOneIgnored("ReleaseAttribute", kBorrowed);
  KilnGraph* sub = nullptr;
  ExpectOk(G().AttributeGetGraph(branch, &sub));
  G().ReleaseGraph(sub);
  log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
  const KilnTypeInfo* element = nullptr;
  ExpectOk(G().TypeInfoGetContainedType(b.g.seq_type, &element));
  G().ReleaseTypeInfo(const_cast<KilnTypeInfo*>(element));
  log.ExpectOneIgnored("ReleaseTypeInfo", kBorrowed);
  KilnStringRef name{};
  ExpectOk(G().NodeGetName(b.g.node, &name));
  EXPECT_EQ(std::string(name.data, name.length), "add");
  ExpectOk(G().GraphGetName(b.g.graph, &name));
  EXPECT_EQ(std::string(name.data, name.length), "main");
  ExpectOk(G().ValueInfoGetName(b.g.input, &name));
  EXPECT_EQ(std::string(name.data, name.length), "x");
  ExpectOk(G().AttributeGetName(branch, &name));
  ExpectOk(G().GraphGetName(sub, &name));
  KilnTypeKind kind = KILN_TYPE_UNDEFINED;
  ExpectOk(G().TypeInfoGetKind(element, &kind));
  EXPECT_EQ(kind, KILN_TYPE_TENSOR);
  EXPECT_EQ(NumNodes(b.g.graph), 1u);
}

TEST(GraphRelease, ASessionsViewsAreOnlyLogged) {
  LogCapture log;
  KilnSession* session = ViewSession(log.env());
  for (KilnGraphStage stage : {KILN_GRAPH_OPTIMIZED, KILN_GRAPH_LOADED}) {
    SCOPED_TRACE(stage);
    const ViewHandles v(session, stage);
    ASSERT_NE(v.if_node, nullptr);
    log.ExpectNothing();
    G().ReleaseGraph(v.graph);
    log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
    G().ReleaseModel(v.model);
    log.ExpectOneIgnored("ReleaseModel", kBorrowed);
    G().ReleaseNode(v.if_node);
    log.ExpectOneIgnored("ReleaseNode", kBorrowed);
    G().ReleaseValueInfo(v.input);
    log.ExpectOneIgnored("ReleaseValueInfo", kBorrowed);
    G().ReleaseAttribute(v.branch);
    log.ExpectOneIgnored("ReleaseAttribute", kBorrowed);
    G().ReleaseTypeInfo(const_cast<KilnTypeInfo*>(v.type));
    log.ExpectOneIgnored("ReleaseTypeInfo", kBorrowed);
    G().ReleaseGraph(v.subgraph);
    log.ExpectOneIgnored("ReleaseGraph", kBorrowed);
    if (v.constant != nullptr) {
      api().ReleaseValue(const_cast<KilnValue*>(v.constant));
      log.ExpectOneIgnored("ReleaseValue", kBorrowed);
    }
    // All still there, and the same handles asked for again.
    KilnGraph* again = nullptr;
    ExpectOk(G().SessionGetGraph(session, stage, &again));
    EXPECT_EQ(again, v.graph);
    KilnStringRef name{};
    ExpectOk(G().NodeGetName(v.if_node, &name));
    ExpectOk(G().GraphGetName(v.subgraph, &name));
    int64_t ir = 0;
    ExpectOk(G().ModelGetIrVersion(v.model, &ir));
    EXPECT_EQ(ir, 8);
  }
  api().ReleaseSession(session);
}

// ---- A session's views --------------------------------------------------------------------------

TEST(GraphViews, TheLoadedGraphNeedsTheConfigEntry) {
  Objects b;
  Outs o;
  ExpectRefused(G().SessionGetGraph(b.session, KILN_GRAPH_LOADED, &o.g.graph), "SessionGetGraph",
                "stage", "kiln.graph.keep_loaded");
  // (Values the enum can hold: a C++ caller loading one outside them is undefined behaviour,
  // which UBSan reports in the test itself; from C any int arrives and is checked the same way.)
  for (int stage : {0, 3}) {
    KilnGraphStage s{};
    std::memcpy(&s, &stage, sizeof s);
    ExpectRefused(G().SessionGetGraph(b.session, s, &o.g.graph), "SessionGetGraph", "stage",
                  "is not KILN_GRAPH_LOADED");
  }
  EXPECT_TRUE(o.Untouched());
  // Kept, the loaded graph is the graph before the optimizer fused Conv and Relu.
  b.g.MakeFused(b.env);  // at the extended level, without the entry
  ExpectRefused(G().SessionGetGraph(b.g.fused_session, KILN_GRAPH_LOADED, &o.g.graph),
                "SessionGetGraph", "stage", "kiln.graph.keep_loaded");
  static const std::string conv_relu = models::ConvRelu();
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().SetSessionGraphOptimizationLevel(options, KILN_GRAPH_OPTIMIZATION_EXTENDED));
  ExpectOk(api().AddSessionConfigEntry(options, "kiln.graph.keep_loaded", "1"));
  KilnSession* session = nullptr;
  ExpectOk(
      api().CreateSessionFromArray(b.env, conv_relu.data(), conv_relu.size(), options, &session));
  api().ReleaseSessionOptions(options);
  KilnGraph* loaded = nullptr;
  KilnGraph* optimized = nullptr;
  ExpectOk(G().SessionGetGraph(session, KILN_GRAPH_LOADED, &loaded));
  ExpectOk(G().SessionGetGraph(session, KILN_GRAPH_OPTIMIZED, &optimized));
  EXPECT_NE(loaded, optimized);
  EXPECT_EQ(NumNodes(loaded), 2u);
  EXPECT_NE(FindNode(loaded, "Conv"), nullptr);
  EXPECT_NE(FindNode(loaded, "Relu"), nullptr);
  EXPECT_LT(NumNodes(optimized), 2u);
  KilnGraph* again = nullptr;
  ExpectOk(G().SessionGetGraph(session, KILN_GRAPH_LOADED, &again));
  EXPECT_EQ(again, loaded);
  api().ReleaseSession(session);
}

// The entries that change a model: each refuses a session's view, at every depth, and takes
// nothing it was given.
TEST(GraphViews, EveryViewRefusesEveryChange) {
  Objects b;
  KilnSession* session = ViewSession(b.env);
  std::set<std::string> refused;
  for (KilnGraphStage stage : {KILN_GRAPH_OPTIMIZED, KILN_GRAPH_LOADED}) {
    SCOPED_TRACE(stage);
    const ViewHandles v(session, stage);
    const size_t nodes = NumNodes(v.graph);
    KilnGraph* g = nullptr;
    ExpectOk(G().CreateGraph("mine", &g));
    ExpectRefused(G().ModelSetOwnedGraph(v.model, g), "ModelSetOwnedGraph", "model",
                  "session's view");
    refused.insert("ModelSetOwnedGraph");
    std::vector<KilnGraph*> graphs = {v.graph};
    if (v.subgraph != nullptr) graphs.push_back(v.subgraph);
    for (KilnGraph* target : graphs) {
      KilnValueInfo* vi = nullptr;
      ExpectOk(G().CreateValueInfo("fresh", nullptr, &vi));
      ExpectRefused(G().GraphSetOwnedInputs(target, &vi, 1), "GraphSetOwnedInputs", "graph",
                    "session's view");
      ExpectRefused(G().GraphSetOwnedOutputs(target, &vi, 1), "GraphSetOwnedOutputs", "graph",
                    "session's view");
      ExpectRefused(G().GraphAddInitializer(target, "fresh", b.value), "GraphAddInitializer",
                    "graph", "session's view");
      const char* in[] = {"xw"};
      const char* out[] = {"fresh"};
      KilnNode* n = nullptr;
      ExpectOk(G().CreateNode("Relu", "", "mine", in, 1, out, 1, &n));
      ExpectRefused(G().GraphAddOwnedNode(target, n), "GraphAddOwnedNode", "graph",
                    "session's view");
      KilnNode* inside = nullptr;
      ExpectOk(G().GraphGetNode(target, 0, &inside));
      KilnAttribute* a = nullptr;
      ExpectOk(G().CreateAttributeInt("fresh", 1, &a));
      ExpectRefused(G().NodeAddOwnedAttribute(inside, a), "NodeAddOwnedAttribute", "node",
                    "session's view");
      refused.insert({"GraphSetOwnedInputs", "GraphSetOwnedOutputs", "GraphAddInitializer",
                      "GraphAddOwnedNode", "NodeAddOwnedAttribute"});
      // Nothing was taken: all of it is still the caller's to release.
      KilnStringRef name{};
      G().ReleaseValueInfo(vi);
      ExpectRefused(G().ValueInfoGetName(vi, &name), "ValueInfoGetName", "value", "is not a live");
      G().ReleaseNode(n);
      ExpectRefused(G().NodeGetName(n, &name), "NodeGetName", "node", "is not a live");
      G().ReleaseAttribute(a);
      ExpectRefused(G().AttributeGetName(a, &name), "AttributeGetName", "attribute",
                    "is not a live");
    }
    G().ReleaseGraph(g);
    KilnStringRef name{};
    ExpectRefused(G().GraphGetName(g, &name), "GraphGetName", "graph", "is not a live");
    EXPECT_EQ(NumNodes(v.graph), nodes);
    size_t inputs = 0;
    ExpectOk(G().GraphGetNumInputs(v.graph, &inputs));
    EXPECT_EQ(inputs, 2u);
  }
  // Every entry that changes a model or what it holds.
  EXPECT_EQ(refused, (std::set<std::string>{"ModelSetOwnedGraph", "GraphSetOwnedInputs",
                                            "GraphSetOwnedOutputs", "GraphAddInitializer",
                                            "GraphAddOwnedNode", "NodeAddOwnedAttribute"}));
  api().ReleaseSession(session);
}

TEST(GraphViews, EveryHandleOfAViewIsRefusedOnceTheSessionIsReleased) {
  Objects b;
  KilnSession* session = ViewSession(b.env);
  std::vector<ViewHandles> views;
  views.emplace_back(session, KILN_GRAPH_OPTIMIZED);
  views.emplace_back(session, KILN_GRAPH_LOADED);
  for (const ViewHandles& v : views) {
    ASSERT_NE(v.if_node, nullptr);
    ASSERT_NE(v.subnode, nullptr);
    ASSERT_NE(v.constant, nullptr);
  }
  api().ReleaseSession(session);
  for (const ViewHandles& v : views) {
    Outs o;
    ExpectRefused(G().GraphGetName(v.graph, &o.g.ref), "GraphGetName", "graph", "is not a live");
    ExpectRefused(G().GraphGetNumNodes(v.graph, &o.size), "GraphGetNumNodes", "graph",
                  "is not a live");
    ExpectRefused(G().ModelGetIrVersion(v.model, &o.version), "ModelGetIrVersion", "model",
                  "is not a live");
    ExpectRefused(G().ModelGetGraph(v.model, &o.g.graph), "ModelGetGraph", "model",
                  "is not a live");
    ExpectRefused(G().NodeGetName(v.if_node, &o.g.ref), "NodeGetName", "node", "is not a live");
    ExpectRefused(G().NodeGetKernel(v.if_node, &o.g.ref), "NodeGetKernel", "node", "is not a live");
    if (v.add != nullptr) {
      ExpectRefused(G().NodeGetInput(v.add, 0, &o.g.value_info), "NodeGetInput", "node",
                    "is not a live");
    }
    ExpectRefused(G().ValueInfoGetName(v.input, &o.g.ref), "ValueInfoGetName", "value",
                  "is not a live");
    ExpectRefused(G().ValueInfoGetType(v.input, &o.g.const_type), "ValueInfoGetType", "value",
                  "is not a live");
    ExpectRefused(G().AttributeGetName(v.branch, &o.g.ref), "AttributeGetName", "attribute",
                  "is not a live");
    ExpectRefused(G().AttributeGetGraph(v.branch, &o.g.graph), "AttributeGetGraph", "attribute",
                  "is not a live");
    ExpectRefused(G().TypeInfoGetKind(v.type, &o.g.kind), "TypeInfoGetKind", "type",
                  "is not a live");
    ExpectRefused(G().GraphGetName(v.subgraph, &o.g.ref), "GraphGetName", "graph", "is not a live");
    ExpectRefused(G().NodeGetOpType(v.subnode, &o.g.ref), "NodeGetOpType", "node", "is not a live");
    ExpectRefused(api().GetTensorData(v.constant, &o.g.data), "GetTensorData", "value",
                  "is not a live");
    EXPECT_TRUE(o.Untouched());
  }
}

// ---- A model's constants -----------------------------------------------------------------------

TEST(GraphConstants, GetTensorDataReadsWhatGetTensorMutableDataRefuses) {
  Objects b;
  void* mine = nullptr;
  ExpectOk(api().GetTensorMutableData(b.value, &mine));
  const void* read = nullptr;
  ExpectOk(api().GetTensorData(b.value, &read));  // any tensor reads
  EXPECT_EQ(read, mine);
  // The tensors a model shows: an initializer (shared with the caller's tensor, not copied), and
  // tensor attributes.
  std::vector<const KilnValue*> constants(3, nullptr);
  ExpectOk(G().ValueInfoGetInitializer(b.g.weight, &constants[0]));
  ExpectOk(G().AttributeGetTensor(b.g.attr_tensor, &constants[1]));
  ExpectOk(G().AttributeGetTensorAt(b.g.attr_tensors, 0, &constants[2]));
  // And a session's: the view's initializers (w, an overridable one, and c).
  size_t count = 0;
  ExpectOk(G().GraphGetNumInitializers(b.g.view, &count));
  EXPECT_EQ(count, 2u);
  for (size_t i = 0; i < count; ++i) {
    KilnValueInfo* v = nullptr;
    ExpectOk(G().GraphGetInitializer(b.g.view, i, &v));
    const KilnValue* t = nullptr;
    ExpectOk(G().ValueInfoGetInitializer(v, &t));
    constants.push_back(t);
  }
  for (size_t i = 0; i < constants.size(); ++i) {
    SCOPED_TRACE(i);
    const KilnValue* t = constants[i];
    ASSERT_NE(t, nullptr);
    const void* data = nullptr;
    ExpectOk(api().GetTensorData(t, &data));
    EXPECT_NE(data, nullptr);
    if (i < 3) {
      EXPECT_EQ(data, mine);
    }
    size_t bytes = 0;
    ExpectOk(api().GetTensorSizeInBytes(t, &bytes));
    Outs o;
    KilnValue* writable = const_cast<KilnValue*>(t);
    ExpectRefused(api().GetTensorMutableData(writable, &o.pointer), "GetTensorMutableData", "value",
                  "model's constant");
    // Nor may a run or a binding write into it.
    ExpectRefused(api().BindOutput(b.binding, "y", writable), "BindOutput", "value",
                  "model's constant");
    const char* in[] = {"x"};
    const char* out[] = {"y"};
    KilnValue* outputs[] = {writable};
    ExpectRefused(api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, outputs), "Run",
                  "outputs", "model's constant");
    EXPECT_EQ(outputs[0], writable);
    EXPECT_TRUE(o.Untouched());
  }
}

TEST(GraphConstants, GetTensorDataRefusesWhatIsNotANumericTensor) {
  Objects b;
  Outs o;
  ExpectError(api().GetTensorData(b.strings, &o.g.data), KILN_INVALID_ARGUMENT, "GetTensorData",
              "value");
  ExpectError(api().GetTensorData(b.seq, &o.g.data), KILN_INVALID_ARGUMENT, "GetTensorData",
              "value");
  ExpectError(api().GetTensorData(b.opt, &o.g.data), KILN_INVALID_ARGUMENT, "GetTensorData",
              "value");
  EXPECT_TRUE(o.Untouched());
}

// The child's part: exits with 0 when both tensors are refused.
[[noreturn]] void UseAttributeTensorsAfterRelease() {
  TestTensor tensor;
  const KilnValue* list[] = {tensor.get()};
  KilnAttribute* one = nullptr;
  KilnAttribute* many = nullptr;
  if (G().CreateAttributeTensor("t", tensor.get(), &one) != nullptr) std::_Exit(3);
  if (G().CreateAttributeTensors("ts", list, 1, &many) != nullptr) std::_Exit(3);
  const KilnValue* lent[2] = {nullptr, nullptr};
  if (G().AttributeGetTensor(one, &lent[0]) != nullptr) std::_Exit(3);
  if (G().AttributeGetTensorAt(many, 0, &lent[1]) != nullptr) std::_Exit(3);
  G().ReleaseAttribute(one);
  G().ReleaseAttribute(many);
  int refused = 0;
  for (const KilnValue* t : lent) {
    const void* data = nullptr;
    KilnStatus* s = api().GetTensorData(t, &data);
    if (s != nullptr && api().GetErrorCode(s) == KILN_INVALID_ARGUMENT &&
        std::string(api().GetErrorMessage(s)).find("is not a live") != std::string::npos) {
      ++refused;
    }
    api().ReleaseStatus(s);
  }
  std::_Exit(refused == 2 ? 0 : 2);
}

// A tensor an attribute lends (AttributeGetTensor, AttributeGetTensorAt) goes with the attribute:
// used after, it is refused like any released handle, not read. In a child process, which a
// crash fails instead of the whole suite.
TEST(GraphConstantsDeathTest, AnAttributesTensorGoesWithTheAttribute) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(UseAttributeTensorsAfterRelease(), testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace kiln_test
