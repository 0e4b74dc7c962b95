// The graph API's ownership rules (kiln/kiln_graph_api.h; DESIGN.md §3 rules 4, 5 and 8): what an
// `…Owned…` entry takes and when, what a Release entry refuses, indexed getters' bounds. Every
// refusal is KILN_INVALID_ARGUMENT naming the argument, with the out-parameters untouched; an
// object a failed call was given is still the caller's (its Release frees it: a later call on it
// is told it is not live), so nothing leaks (ASan's leak check, and oom_graph_cases.cc, count).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "fixtures.h"
#include "graph_slots.h"

namespace kiln_test {
namespace {

const KilnGraphApi& G() {
  return graph_api();
}

// Asserts a KILN_INVALID_ARGUMENT naming `entry` and `argument` whose message has `fragment`.
void ExpectRefused(KilnStatus* status, const char* entry, const char* argument,
                   const char* fragment) {
  ASSERT_NE(status, nullptr) << entry << " succeeded; expected a refusal of '" << argument << "'";
  const std::string message = api().GetErrorMessage(status);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
  ExpectError(status, KILN_INVALID_ARGUMENT, entry, argument);
}

// A handle released for real: every entry now refuses it.
void ExpectGone(KilnModel* m) {
  int64_t v = 0;
  ExpectRefused(G().ModelGetIrVersion(m, &v), "ModelGetIrVersion", "model", "is not a live");
}
void ExpectGone(KilnGraph* g) {
  KilnStringRef r{};
  ExpectRefused(G().GraphGetName(g, &r), "GraphGetName", "graph", "is not a live");
}
void ExpectGone(KilnNode* n) {
  KilnStringRef r{};
  ExpectRefused(G().NodeGetName(n, &r), "NodeGetName", "node", "is not a live");
}
void ExpectGone(KilnValueInfo* v) {
  KilnStringRef r{};
  ExpectRefused(G().ValueInfoGetName(v, &r), "ValueInfoGetName", "value", "is not a live");
}
void ExpectGone(KilnAttribute* a) {
  KilnStringRef r{};
  ExpectRefused(G().AttributeGetName(a, &r), "AttributeGetName", "attribute", "is not a live");
}

// Releases what a failed `…Owned…` call was given, checking the caller still owned it.
void ReleaseOwned(KilnGraph* g) {
  G().ReleaseGraph(g);
  ExpectGone(g);
}
void ReleaseOwned(KilnNode* n) {
  G().ReleaseNode(n);
  ExpectGone(n);
}
void ReleaseOwned(KilnValueInfo* v) {
  G().ReleaseValueInfo(v);
  ExpectGone(v);
}
void ReleaseOwned(KilnAttribute* a) {
  G().ReleaseAttribute(a);
  ExpectGone(a);
}

std::string Name(KilnStringRef r) {
  return std::string(r.data, r.length);
}
std::string NodeName(const KilnNode* n) {
  KilnStringRef r{};
  ExpectOk(G().NodeGetName(n, &r));
  return Name(r);
}
size_t NumNodes(const KilnGraph* g) {
  size_t n = kSizeSentinel;
  ExpectOk(G().GraphGetNumNodes(g, &n));
  return n;
}
size_t NumInputs(const KilnGraph* g) {
  size_t n = kSizeSentinel;
  ExpectOk(G().GraphGetNumInputs(g, &n));
  return n;
}
size_t NumOutputs(const KilnGraph* g) {
  size_t n = kSizeSentinel;
  ExpectOk(G().GraphGetNumOutputs(g, &n));
  return n;
}
size_t NumAttributes(const KilnNode* n) {
  size_t count = kSizeSentinel;
  ExpectOk(G().NodeGetNumAttributes(n, &count));
  return count;
}

KilnGraph* NewGraph(const char* name) {
  KilnGraph* g = nullptr;
  ExpectOk(G().CreateGraph(name, &g));
  return g;
}
KilnNode* NewNode(const char* op, const char* in, const char* out, const char* name = "n") {
  KilnNode* n = nullptr;
  ExpectOk(G().CreateNode(op, "", name, &in, 1, &out, 1, &n));
  return n;
}
KilnValueInfo* NewValueInfo(const char* name) {
  KilnValueInfo* v = nullptr;
  ExpectOk(G().CreateValueInfo(name, nullptr, &v));
  return v;
}
KilnAttribute* NewIntAttribute(const char* name, int64_t value) {
  KilnAttribute* a = nullptr;
  ExpectOk(G().CreateAttributeInt(name, value, &a));
  return a;
}
KilnModel* NewModel() {
  const char* domains[] = {""};
  const int64_t versions[] = {17};
  KilnModel* m = nullptr;
  ExpectOk(G().CreateModel(8, domains, versions, 1, &m));
  return m;
}

// ---- Failed `…Owned…` calls take nothing -------------------------------------------------------

TEST(GraphOwnership, AFailedModelSetOwnedGraphLeavesTheGraphToTheCaller) {
  Objects b;
  KilnGraph* g = NewGraph("mine");
  ExpectRefused(G().ModelSetOwnedGraph(b.g.model, g), "ModelSetOwnedGraph", "model",
                "already has a graph");
  KilnModel* model = Sentinel<KilnModel>();
  ExpectOk(G().GraphGetModel(g, &model));
  EXPECT_EQ(model, nullptr);
  KilnGraph* main = nullptr;
  ExpectOk(G().ModelGetGraph(b.g.model, &main));
  EXPECT_EQ(main, b.g.graph);
  ReleaseOwned(g);
}

TEST(GraphOwnership, AFailedGraphSetOwnedInputsTakesNoneOfThem) {
  Objects b;
  // The graph has inputs already.
  KilnValueInfo* v = NewValueInfo("v");
  ExpectRefused(G().GraphSetOwnedInputs(b.g.graph, &v, 1), "GraphSetOwnedInputs", "graph",
                "already has inputs");
  EXPECT_EQ(NumInputs(b.g.graph), 1u);
  // Two entries of one name: neither is taken.
  KilnValueInfo* twins[] = {NewValueInfo("a"), NewValueInfo("a")};
  ExpectRefused(G().GraphSetOwnedInputs(b.g.free_graph, twins, 2), "GraphSetOwnedInputs", "inputs",
                "an earlier entry names");
  // The second entry is owned by another graph: the first is not taken either.
  KilnValueInfo* pair[] = {v, b.g.input};
  ExpectRefused(G().GraphSetOwnedInputs(b.g.free_graph, pair, 2), "GraphSetOwnedInputs",
                "inputs[1]", "is owned by a graph");
  // A name a node of the graph produces.
  KilnNode* n = NewNode("Relu", "q", "p");
  ExpectOk(G().GraphAddOwnedNode(b.g.free_graph, n));
  KilnValueInfo* produced[] = {NewValueInfo("b"), NewValueInfo("p")};
  ExpectRefused(G().GraphSetOwnedInputs(b.g.free_graph, produced, 2), "GraphSetOwnedInputs",
                "inputs", "produces");
  // A name that is an initializer.
  ExpectOk(G().GraphAddInitializer(b.g.free_graph, "k", b.value));
  KilnValueInfo* constant[] = {NewValueInfo("k")};
  ExpectRefused(G().GraphSetOwnedInputs(b.g.free_graph, constant, 1), "GraphSetOwnedInputs",
                "inputs", "is an initializer");
  EXPECT_EQ(NumInputs(b.g.free_graph), 0u);
  for (KilnValueInfo* mine : {v, twins[0], twins[1], produced[0], produced[1], constant[0]}) {
    ReleaseOwned(mine);
  }
}

TEST(GraphOwnership, AFailedGraphSetOwnedOutputsTakesNoneOfThem) {
  Objects b;
  KilnValueInfo* v = NewValueInfo("v");
  ExpectRefused(G().GraphSetOwnedOutputs(b.g.graph, &v, 1), "GraphSetOwnedOutputs", "graph",
                "already has outputs");
  EXPECT_EQ(NumOutputs(b.g.graph), 1u);
  KilnValueInfo* twins[] = {NewValueInfo("a"), NewValueInfo("a")};
  ExpectRefused(G().GraphSetOwnedOutputs(b.g.free_graph, twins, 2), "GraphSetOwnedOutputs",
                "outputs", "an earlier entry names");
  KilnValueInfo* pair[] = {v, b.g.output};
  ExpectRefused(G().GraphSetOwnedOutputs(b.g.free_graph, pair, 2), "GraphSetOwnedOutputs",
                "outputs[1]", "is owned by a graph");
  KilnValueInfo* with_null[] = {v, nullptr};
  ExpectRefused(G().GraphSetOwnedOutputs(b.g.free_graph, with_null, 2), "GraphSetOwnedOutputs",
                "outputs", "entry 1 is NULL");
  EXPECT_EQ(NumOutputs(b.g.free_graph), 0u);
  for (KilnValueInfo* mine : {v, twins[0], twins[1]}) ReleaseOwned(mine);
}

TEST(GraphOwnership, AFailedGraphAddOwnedNodeLeavesTheNodeToTheCaller) {
  Objects b;
  // y is produced by "add", w is an initializer, x an input.
  for (const char* out : {"y", "w", "x"}) {
    SCOPED_TRACE(out);
    KilnNode* n = NewNode("Relu", "x", out, "clash");
    ExpectRefused(G().GraphAddOwnedNode(b.g.graph, n), "GraphAddOwnedNode", "node", out);
    EXPECT_EQ(NumNodes(b.g.graph), 1u);
    EXPECT_EQ(NodeName(n), "clash");
    ReleaseOwned(n);
  }
  // A node that writes one name twice.
  const char* in[] = {"x"};
  const char* outs[] = {"u", "u"};
  KilnNode* twice = nullptr;
  ExpectOk(G().CreateNode("Split", "", "split", in, 1, outs, 2, &twice));
  ExpectRefused(G().GraphAddOwnedNode(b.g.free_graph, twice), "GraphAddOwnedNode", "node", "twice");
  EXPECT_EQ(NumNodes(b.g.free_graph), 0u);
  ReleaseOwned(twice);
  // Nor is anything taken when the graph is refused.
  ExpectRefused(G().GraphAddOwnedNode(b.g.view, b.g.free_node), "GraphAddOwnedNode", "graph",
                "session's view");
  ReleaseOwned(b.g.free_node);
  b.g.free_node = nullptr;
}

TEST(GraphOwnership, AFailedNodeAddOwnedAttributeLeavesTheAttributeToTheCaller) {
  Objects b;
  ExpectOk(G().NodeAddOwnedAttribute(b.g.free_node, b.g.attr_int));
  KilnAttribute* again = NewIntAttribute("i", 8);  // the name of b.g.attr_int
  ExpectRefused(G().NodeAddOwnedAttribute(b.g.free_node, again), "NodeAddOwnedAttribute",
                "attribute", "the node has an attribute of that name");
  EXPECT_EQ(NumAttributes(b.g.free_node), 1u);
  int64_t value = 0;
  ExpectOk(G().AttributeGetInt(again, &value));
  EXPECT_EQ(value, 8);
  ReleaseOwned(again);
  // The same on a node in a graph.
  KilnAttribute* axis = NewIntAttribute("axis", 0);
  ExpectOk(G().NodeAddOwnedAttribute(b.g.node, axis));
  KilnAttribute* axis2 = NewIntAttribute("axis", 1);
  ExpectRefused(G().NodeAddOwnedAttribute(b.g.node, axis2), "NodeAddOwnedAttribute", "attribute",
                "the node has an attribute of that name");
  ReleaseOwned(axis2);
}

TEST(GraphOwnership, AFailedCreateAttributeWithOwnedGraphLeavesTheGraphToTheCaller) {
  Objects b;
  Outs o;
  KilnGraph* g = NewGraph("body");
  ExpectRefused(G().CreateAttributeWithOwnedGraph("", g, &o.g.attribute),
                "CreateAttributeWithOwnedGraph", "name", "is empty");
  ExpectRefused(G().CreateAttributeWithOwnedGraph(nullptr, g, &o.g.attribute),
                "CreateAttributeWithOwnedGraph", "name", "is NULL");
  ExpectRefused(G().CreateAttributeWithOwnedGraph("body", g, nullptr),
                "CreateAttributeWithOwnedGraph", "out", "is NULL");
  // A graph a model owns is refused.
  ExpectRefused(G().CreateAttributeWithOwnedGraph("body", b.g.graph, &o.g.attribute),
                "CreateAttributeWithOwnedGraph", "graph", "is owned by a model");
  EXPECT_TRUE(o.Untouched());
  ReleaseOwned(g);
}

TEST(GraphOwnership, AFailedCreateAttributeWithOwnedGraphsTakesNoneOfThem) {
  Objects b;
  Outs o;
  KilnGraph* g = NewGraph("body");
  KilnGraph* twice[] = {g, g};
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("bodies", twice, 2, &o.g.attribute),
                "CreateAttributeWithOwnedGraphs", "graphs", "given twice");
  KilnGraph* owned[] = {g, b.g.graph};
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("bodies", owned, 2, &o.g.attribute),
                "CreateAttributeWithOwnedGraphs", "graphs[1]", "is owned by a model");
  KilnGraph* with_null[] = {g, nullptr};
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("bodies", with_null, 2, &o.g.attribute),
                "CreateAttributeWithOwnedGraphs", "graphs", "entry 1 is NULL");
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("bodies", &g, 1, nullptr),
                "CreateAttributeWithOwnedGraphs", "out", "is NULL");
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("", &g, 1, &o.g.attribute),
                "CreateAttributeWithOwnedGraphs", "name", "is empty");
  EXPECT_TRUE(o.Untouched());
  ReleaseOwned(g);
}

// ---- What a transfer keeps ---------------------------------------------------------------------

// A value info's handle stays the caller's view of it once a graph owns it, and so does the type
// borrowed from it before.
TEST(GraphOwnership, AValueInfosHandlesKeepWorkingAfterAGraphTookIt) {
  KilnTypeInfo* type = nullptr;
  const int64_t dims[] = {2, 3};
  ExpectOk(G().CreateTensorTypeInfo(KILN_ELEMENT_TYPE_FLOAT, dims, nullptr, 2, &type));
  KilnValueInfo* v = nullptr;
  ExpectOk(G().CreateValueInfo("x", type, &v));
  G().ReleaseTypeInfo(type);  // copied
  const KilnTypeInfo* before = nullptr;
  ExpectOk(G().ValueInfoGetType(v, &before));
  size_t rank = 0;
  ExpectOk(G().TypeInfoGetRank(before, &rank));
  EXPECT_EQ(rank, 2u);
  KilnGraph* g = NewGraph("g");
  ExpectOk(G().GraphSetOwnedInputs(g, &v, 1));
  KilnValueInfo* input = nullptr;
  ExpectOk(G().GraphGetInput(g, 0, &input));
  EXPECT_EQ(input, v);
  KilnStringRef name{};
  ExpectOk(G().ValueInfoGetName(v, &name));
  EXPECT_EQ(Name(name), "x");
  const KilnTypeInfo* after = nullptr;
  ExpectOk(G().ValueInfoGetType(v, &after));
  for (const KilnTypeInfo* t : {before, after}) {
    KilnTypeKind kind = KILN_TYPE_UNDEFINED;
    ExpectOk(G().TypeInfoGetKind(t, &kind));
    EXPECT_EQ(kind, KILN_TYPE_TENSOR);
    KilnElementType element = KILN_ELEMENT_TYPE_UNDEFINED;
    ExpectOk(G().TypeInfoGetElementType(t, &element));
    EXPECT_EQ(element, KILN_ELEMENT_TYPE_FLOAT);
    rank = 0;
    ExpectOk(G().TypeInfoGetRank(t, &rank));
    EXPECT_EQ(rank, 2u) << (t == before ? "the type borrowed before the transfer" : "after");
    int64_t got[2] = {0, 0};
    if (rank == 2) {
      ExpectOk(G().TypeInfoGetDimensions(t, got, 2));
      EXPECT_EQ(got[0], 2);
      EXPECT_EQ(got[1], 3);
    }
  }
  G().ReleaseGraph(g);
  ExpectGone(v);
}

// ---- A handle owned elsewhere is refused --------------------------------------------------------

TEST(GraphOwnership, ANodeGoesToOneGraphOnly) {
  KilnGraph* a = NewGraph("a");
  KilnGraph* c = NewGraph("c");
  KilnNode* n = NewNode("Relu", "x", "y");
  ExpectOk(G().GraphAddOwnedNode(a, n));
  ExpectRefused(G().GraphAddOwnedNode(c, n), "GraphAddOwnedNode", "node", "is owned by a graph");
  ExpectRefused(G().GraphAddOwnedNode(a, n), "GraphAddOwnedNode", "node", "is owned by a graph");
  EXPECT_EQ(NumNodes(a), 1u);
  EXPECT_EQ(NumNodes(c), 0u);
  KilnNode* first = nullptr;
  ExpectOk(G().GraphGetNode(a, 0, &first));
  EXPECT_EQ(first, n);  // the caller's handle, now a view
  G().ReleaseGraph(c);
  G().ReleaseGraph(a);
  ExpectGone(n);  // it went with its graph
}

TEST(GraphOwnership, AGraphGoesToOneModelOnly) {
  KilnModel* m1 = NewModel();
  KilnModel* m2 = NewModel();
  KilnGraph* g = NewGraph("main");
  ExpectOk(G().ModelSetOwnedGraph(m1, g));
  ExpectRefused(G().ModelSetOwnedGraph(m2, g), "ModelSetOwnedGraph", "graph",
                "is owned by a model");
  KilnGraph* none = Sentinel<KilnGraph>();
  ExpectOk(G().ModelGetGraph(m2, &none));
  EXPECT_EQ(none, nullptr);
  KilnModel* owner = nullptr;
  ExpectOk(G().GraphGetModel(g, &owner));
  EXPECT_EQ(owner, m1);
  // Nor to an attribute.
  KilnAttribute* a = Sentinel<KilnAttribute>();
  ExpectRefused(G().CreateAttributeWithOwnedGraph("body", g, &a), "CreateAttributeWithOwnedGraph",
                "graph", "is owned by a model");
  EXPECT_EQ(a, Sentinel<KilnAttribute>());
  G().ReleaseModel(m2);
  ExpectGone(m2);
  G().ReleaseModel(m1);
  ExpectGone(g);
}

TEST(GraphOwnership, AGraphAnAttributeOwnsGoesNowhereElse) {
  KilnModel* m = NewModel();
  KilnGraph* g = NewGraph("body");
  KilnAttribute* a = nullptr;
  ExpectOk(G().CreateAttributeWithOwnedGraph("body", g, &a));
  ExpectRefused(G().ModelSetOwnedGraph(m, g), "ModelSetOwnedGraph", "graph",
                "is owned by an attribute");
  KilnAttribute* other = Sentinel<KilnAttribute>();
  ExpectRefused(G().CreateAttributeWithOwnedGraph("again", g, &other),
                "CreateAttributeWithOwnedGraph", "graph", "is owned by an attribute");
  ExpectRefused(G().CreateAttributeWithOwnedGraphs("again", &g, 1, &other),
                "CreateAttributeWithOwnedGraphs", "graphs[0]", "is owned by an attribute");
  EXPECT_EQ(other, Sentinel<KilnAttribute>());
  KilnGraph* got = nullptr;
  ExpectOk(G().AttributeGetGraph(a, &got));
  EXPECT_EQ(got, g);
  G().ReleaseModel(m);
  G().ReleaseAttribute(a);
  ExpectGone(g);
}

TEST(GraphOwnership, AnAttributeGoesToOneNodeOnly) {
  KilnNode* n1 = NewNode("Relu", "x", "y", "n1");
  KilnNode* n2 = NewNode("Relu", "x", "y", "n2");
  KilnAttribute* a = NewIntAttribute("k", 3);
  ExpectOk(G().NodeAddOwnedAttribute(n1, a));
  ExpectRefused(G().NodeAddOwnedAttribute(n2, a), "NodeAddOwnedAttribute", "attribute",
                "is owned by a node");
  ExpectRefused(G().NodeAddOwnedAttribute(n1, a), "NodeAddOwnedAttribute", "attribute",
                "is owned by a node");
  EXPECT_EQ(NumAttributes(n1), 1u);
  EXPECT_EQ(NumAttributes(n2), 0u);
  KilnAttribute* got = nullptr;
  ExpectOk(G().NodeGetAttributeByName(n1, "k", &got));
  EXPECT_EQ(got, a);
  G().ReleaseNode(n2);
  G().ReleaseNode(n1);
  ExpectGone(a);
}

TEST(GraphOwnership, AValueInfoGoesToOneGraphOnly) {
  KilnGraph* g1 = NewGraph("g1");
  KilnGraph* g2 = NewGraph("g2");
  KilnValueInfo* v = NewValueInfo("x");
  ExpectOk(G().GraphSetOwnedInputs(g1, &v, 1));
  ExpectRefused(G().GraphSetOwnedInputs(g2, &v, 1), "GraphSetOwnedInputs", "inputs[0]",
                "is owned by a graph");
  ExpectRefused(G().GraphSetOwnedOutputs(g2, &v, 1), "GraphSetOwnedOutputs", "outputs[0]",
                "is owned by a graph");
  ExpectRefused(G().GraphSetOwnedOutputs(g1, &v, 1), "GraphSetOwnedOutputs", "outputs[0]",
                "is owned by a graph");
  EXPECT_EQ(NumInputs(g2), 0u);
  EXPECT_EQ(NumOutputs(g2), 0u);
  EXPECT_EQ(NumOutputs(g1), 0u);
  G().ReleaseGraph(g2);
  G().ReleaseGraph(g1);
  ExpectGone(v);
}

TEST(GraphOwnership, ASessionsGraphGoesNowhere) {
  Objects b;
  KilnModel* m = NewModel();
  ExpectRefused(G().ModelSetOwnedGraph(m, b.g.view), "ModelSetOwnedGraph", "graph",
                "is owned by a model");
  KilnAttribute* a = Sentinel<KilnAttribute>();
  ExpectRefused(G().CreateAttributeWithOwnedGraph("body", b.g.view, &a),
                "CreateAttributeWithOwnedGraph", "graph", "is owned by a model");
  ExpectRefused(G().GraphAddOwnedNode(b.g.free_graph, b.g.view_node), "GraphAddOwnedNode", "node",
                "is owned by a graph");
  EXPECT_EQ(a, Sentinel<KilnAttribute>());
  G().ReleaseModel(m);
}

// The child's part: exits with 0 when the cycle is refused.
[[noreturn]] void OwnTheGraphItIsIn() {
  alarm(10);
  KilnGraph* g = NewGraph("loop");
  KilnNode* n = NewNode("Relu", "x", "y");
  if (G().GraphAddOwnedNode(g, n) != nullptr) std::_Exit(3);
  KilnAttribute* a = nullptr;
  if (G().CreateAttributeWithOwnedGraph("body", g, &a) != nullptr) std::_Exit(3);
  KilnStatus* s = G().NodeAddOwnedAttribute(n, a);
  if (s == nullptr) {
    std::fprintf(stderr, "NodeAddOwnedAttribute accepted an ownership cycle\n");
    std::_Exit(2);
  }
  const bool invalid = api().GetErrorCode(s) == KILN_INVALID_ARGUMENT;
  api().ReleaseStatus(s);
  G().ReleaseAttribute(a);
  std::_Exit(invalid ? 0 : 4);
}

// A node cannot come to own the graph it is in: the graph would own itself (a cycle nobody can
// release, and GraphGetModel, which walks up from a graph to its model, would loop). Run in a child
// process, which a hang or a crash fails instead of the whole suite.
TEST(GraphOwnershipDeathTest, ANodeCannotOwnTheGraphItIsIn) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(OwnTheGraphItIsIn(), testing::ExitedWithCode(0), "");
}

// The child's part: exits with 0 when the cycle is refused.
[[noreturn]] void AddANodeToAGraphItOwns() {
  alarm(10);
  KilnGraph* g = NewGraph("loop");
  KilnNode* n = NewNode("If", "c", "y");
  KilnAttribute* a = nullptr;
  if (G().CreateAttributeWithOwnedGraph("then_branch", g, &a) != nullptr) std::_Exit(3);
  if (G().NodeAddOwnedAttribute(n, a) != nullptr) std::_Exit(3);
  KilnStatus* s = G().GraphAddOwnedNode(g, n);
  if (s == nullptr) {
    std::fprintf(stderr, "GraphAddOwnedNode accepted an ownership cycle\n");
    std::_Exit(2);
  }
  const bool invalid = api().GetErrorCode(s) == KILN_INVALID_ARGUMENT;
  api().ReleaseStatus(s);
  G().ReleaseNode(n);
  std::_Exit(invalid ? 0 : 4);
}

// The same cycle made the other way: a graph given a node that owns it (through an attribute).
TEST(GraphOwnershipDeathTest, AGraphCannotTakeANodeThatOwnsIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(AddANodeToAGraphItOwns(), testing::ExitedWithCode(0), "");
}

// ---- Indexed getters ---------------------------------------------------------------------------

struct Indexed {
  const char* entry;
  std::function<size_t(Objects&)> count;  // the number of parts: the first index out of range
  std::function<KilnStatus*(Objects&, Outs&, size_t)> call;
};

std::vector<Indexed> IndexedGetters() {
  return {
      {"ModelGetOpsetImport",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().ModelGetNumOpsetImports(b.g.model, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().ModelGetOpsetImport(b.g.model, i, &o.g.ref, &o.version);
       }},
      {"GraphGetInput",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().GraphGetNumInputs(b.g.graph, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().GraphGetInput(b.g.graph, i, &o.g.value_info);
       }},
      {"GraphGetOutput",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().GraphGetNumOutputs(b.g.graph, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().GraphGetOutput(b.g.graph, i, &o.g.value_info);
       }},
      {"GraphGetInitializer",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().GraphGetNumInitializers(b.g.graph, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().GraphGetInitializer(b.g.graph, i, &o.g.value_info);
       }},
      {"GraphGetNode",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().GraphGetNumNodes(b.g.graph, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) { return G().GraphGetNode(b.g.graph, i, &o.g.node); }},
      {"TypeInfoGetDimParam",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().TypeInfoGetRank(b.g.type, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().TypeInfoGetDimParam(b.g.type, i, &o.g.ref);
       }},
      {"ValueInfoGetConsumer",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().ValueInfoGetNumConsumers(b.g.input, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().ValueInfoGetConsumer(b.g.input, i, &o.g.node, &o.g.index);
       }},
      {"NodeGetInput",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().NodeGetNumInputs(b.g.node, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().NodeGetInput(b.g.node, i, &o.g.value_info);
       }},
      {"NodeGetOutput",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().NodeGetNumOutputs(b.g.node, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().NodeGetOutput(b.g.node, i, &o.g.value_info);
       }},
      {"NodeGetImplicitInput",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().NodeGetNumImplicitInputs(b.g.if_node, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().NodeGetImplicitInput(b.g.if_node, i, &o.g.value_info);
       }},
      {"NodeGetAttribute",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().NodeGetNumAttributes(b.g.if_node, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().NodeGetAttribute(b.g.if_node, i, &o.g.attribute);
       }},
      {"NodeGetFusedFrom",
       [](Objects& b) {
         b.g.MakeFused(b.env);
         size_t n = 0;
         ExpectOk(G().NodeGetNumFusedFrom(b.g.fused_node, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().NodeGetFusedFrom(b.g.fused_node, i, &o.g.ref);
       }},
      {"AttributeGetStringAt",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().AttributeGetNumElements(b.g.attr_strings, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().AttributeGetStringAt(b.g.attr_strings, i, &o.g.ref);
       }},
      {"AttributeGetTensorAt",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().AttributeGetNumElements(b.g.attr_tensors, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().AttributeGetTensorAt(b.g.attr_tensors, i, &o.const_value);
       }},
      {"AttributeGetGraphAt",
       [](Objects& b) {
         size_t n = 0;
         ExpectOk(G().AttributeGetNumElements(b.g.attr_graphs, &n));
         return n;
       },
       [](Objects& b, Outs& o, size_t i) {
         return G().AttributeGetGraphAt(b.g.attr_graphs, i, &o.g.graph);
       }},
  };
}

TEST(GraphIndexing, EveryIndexedGetterRefusesAnIndexOutOfRange) {
  Objects b;
  std::set<std::string> covered;
  for (const Indexed& c : IndexedGetters()) {
    SCOPED_TRACE(c.entry);
    covered.insert(c.entry);
    const size_t n = c.count(b);
    EXPECT_GT(n, 0u) << "the fixture has none: the last valid index is not checked";
    for (size_t i = 0; i < n; ++i) {
      Outs o;
      ExpectOk(c.call(b, o, i));
    }
    for (size_t i : {n, n + 1, SIZE_MAX}) {
      Outs o;
      ExpectRefused(c.call(b, o, i), c.entry, "index", "out of range");
      EXPECT_TRUE(o.Untouched());
    }
  }
  // Every entry of the sub-table that takes an index.
  const std::set<std::string> expected = {
      "ModelGetOpsetImport",  "GraphGetInput",        "GraphGetOutput",       "GraphGetInitializer",
      "GraphGetNode",         "TypeInfoGetDimParam",  "ValueInfoGetConsumer", "NodeGetInput",
      "NodeGetOutput",        "NodeGetImplicitInput", "NodeGetAttribute",     "NodeGetFusedFrom",
      "AttributeGetStringAt", "AttributeGetTensorAt", "AttributeGetGraphAt"};
  EXPECT_EQ(covered, expected);
  const std::set<std::string> slots = GraphSlotNames(true);
  for (const std::string& e : expected) EXPECT_EQ(slots.count(e), 1u) << e;
}

TEST(GraphIndexing, ACallersNodeHasNoValuesToIndex) {
  Objects b;
  Outs o;
  size_t n = 0;
  ExpectOk(G().NodeGetNumInputs(b.g.free_node, &n));
  EXPECT_EQ(n, 1u);
  // Its values come with a graph: until then it has names only.
  ExpectRefused(G().NodeGetInput(b.g.free_node, 0, &o.g.value_info), "NodeGetInput", "node",
                "is not in a graph");
  ExpectRefused(G().NodeGetOutput(b.g.free_node, 0, &o.g.value_info), "NodeGetOutput", "node",
                "is not in a graph");
  ExpectRefused(G().NodeGetImplicitInput(b.g.free_node, 0, &o.g.value_info), "NodeGetImplicitInput",
                "node", "is not in a graph");
  ExpectRefused(G().NodeGetFusedFrom(b.g.free_node, 0, &o.g.ref), "NodeGetFusedFrom", "index",
                "out of range");
  EXPECT_TRUE(o.Untouched());
}

}  // namespace
}  // namespace kiln_test
