// The graph API end to end, through the C ABI: models built in memory equal the same models read
// from .onnx files written by python3-onnx (src/api/testdata/graph_api/make_models.py) and run
// the same; saved models read back identical; a session's views show the optimized graph with
// kernels and fused-from; bad graphs and bad text get precise statuses and change nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "api/graph_handles.h"
#include "kiln/kiln_c_api.h"
#include "onnx/loader.h"
#include "onnx/model_compare.h"

namespace {

const KilnApi& Api() {
  static const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  return *api;
}
const KilnGraphApi& G() {
  static const KilnGraphApi* g = Api().GetGraphApi(KILN_GRAPH_API_VERSION);
  return *g;
}

std::string Data(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/src/api/testdata/graph_api/" + name;
}

// The status's code and message, releasing it ("" and KILN_OK for success).
struct Outcome {
  KilnErrorCode code = KILN_OK;
  std::string message;
};
Outcome Take(KilnStatus* st) {
  Outcome o;
  if (st == nullptr) return o;
  o.code = Api().GetErrorCode(st);
  o.message = Api().GetErrorMessage(st);
  Api().ReleaseStatus(st);
  return o;
}
#define KILN_OK_OR_FAIL(call)                              \
  do {                                                     \
    const Outcome outcome_ = Take(call);                   \
    ASSERT_EQ(outcome_.code, KILN_OK) << outcome_.message; \
  } while (0)

std::string Str(KilnStringRef r) {
  return std::string(r.data, r.length);
}

struct Deleter {
  void operator()(KilnModel* m) const { G().ReleaseModel(m); }
  void operator()(KilnSession* s) const { Api().ReleaseSession(s); }
  void operator()(KilnValue* v) const { Api().ReleaseValue(v); }
  void operator()(KilnEnv* e) const { Api().ReleaseEnv(e); }
  void operator()(KilnTypeInfo* t) const { G().ReleaseTypeInfo(t); }
  void operator()(KilnSessionOptions* o) const { Api().ReleaseSessionOptions(o); }
};
template <class T>
using Owned = std::unique_ptr<T, Deleter>;

KilnEnv* Env() {
  static KilnEnv* env = [] {
    KilnEnv* e = nullptr;
    Take(Api().CreateEnv(KILN_LOGGING_LEVEL_ERROR, "graph_api_test", &e));
    return e;
  }();
  return env;
}

Owned<KilnValue> FloatTensor(const std::vector<float>& data, const std::vector<int64_t>& shape) {
  KilnAllocator* alloc = nullptr;
  Take(Api().GetAllocatorWithDefaultOptions(&alloc));
  KilnValue* v = nullptr;
  Take(Api().CreateTensorAsValue(alloc, shape.data(), shape.size(), KILN_ELEMENT_TYPE_FLOAT, &v));
  void* p = nullptr;
  Take(Api().GetTensorMutableData(v, &p));
  if (!data.empty()) std::memcpy(p, data.data(), data.size() * sizeof(float));
  return Owned<KilnValue>(v);
}

template <class T>
Owned<KilnValue> ScalarTensor(T value, KilnElementType type) {
  KilnAllocator* alloc = nullptr;
  Take(Api().GetAllocatorWithDefaultOptions(&alloc));
  KilnValue* v = nullptr;
  Take(Api().CreateTensorAsValue(alloc, nullptr, 0, type, &v));
  void* p = nullptr;
  Take(Api().GetTensorMutableData(v, &p));
  std::memcpy(p, &value, sizeof value);
  return Owned<KilnValue>(v);
}

// The weights of make_models.py: W = arange(12).reshape(3, 4) / 8 - 0.5, b.
std::vector<float> Weights() {
  return {-0.5f, -0.375f, -0.25f, -0.125f, 0.0f,  0.125f,
          0.25f, 0.375f,  0.5f,   0.625f,  0.75f, 0.875f};
}
std::vector<float> Bias() {
  return {0.5f, -1.0f, 2.0f, 0.25f};
}

// ---- Building ---------------------------------------------------------------------------------

// A float tensor type with these dims (-1 with a name: symbolic).
Owned<KilnTypeInfo> FloatType(std::vector<int64_t> dims, std::vector<const char*> params = {},
                              KilnElementType elem = KILN_ELEMENT_TYPE_FLOAT) {
  params.resize(dims.size(), nullptr);
  KilnTypeInfo* t = nullptr;
  Take(G().CreateTensorTypeInfo(elem, dims.data(), params.data(), dims.size(), &t));
  return Owned<KilnTypeInfo>(t);
}

void AddNode(KilnGraph* g, const char* op, const char* name, std::vector<const char*> in,
             std::vector<const char*> out, const std::vector<KilnAttribute*>& attrs = {}) {
  KilnNode* n = nullptr;
  KILN_OK_OR_FAIL(G().CreateNode(op, "", name, in.data(), in.size(), out.data(), out.size(), &n));
  for (KilnAttribute* a : attrs) KILN_OK_OR_FAIL(G().NodeAddOwnedAttribute(n, a));
  KILN_OK_OR_FAIL(G().GraphAddOwnedNode(g, n));
}

void SetValues(KilnGraph* g, bool inputs, const std::vector<std::string>& names,
               const std::vector<const KilnTypeInfo*>& types) {
  std::vector<KilnValueInfo*> infos;
  for (size_t i = 0; i < names.size(); ++i) {
    KilnValueInfo* vi = nullptr;
    KILN_OK_OR_FAIL(G().CreateValueInfo(names[i].c_str(), types[i], &vi));
    infos.push_back(vi);
  }
  if (inputs) {
    KILN_OK_OR_FAIL(G().GraphSetOwnedInputs(g, infos.data(), infos.size()));
  } else {
    KILN_OK_OR_FAIL(G().GraphSetOwnedOutputs(g, infos.data(), infos.size()));
  }
}

Owned<KilnModel> NewModel(KilnGraph* graph) {
  const char* domains[] = {""};
  const int64_t versions[] = {17};
  KilnModel* m = nullptr;
  Take(G().CreateModel(8, domains, versions, 1, &m));
  Take(G().ModelSetOwnedGraph(m, graph));
  return Owned<KilnModel>(m);
}

Owned<KilnModel> BuildMatMulAdd(const KilnValue* w, const KilnValue* b) {
  KilnGraph* g = nullptr;
  Take(G().CreateGraph("matmul_add", &g));
  auto x = FloatType({-1, 3}, {"N"});
  auto y = FloatType({-1, 4}, {"N"});
  SetValues(g, true, {"x"}, {x.get()});
  Take(G().GraphAddInitializer(g, "W", w));
  Take(G().GraphAddInitializer(g, "b", b));
  AddNode(g, "MatMul", "mm", {"x", "W"}, {"xw"});
  AddNode(g, "Add", "add", {"xw", "b"}, {"y"});
  SetValues(g, false, {"y"}, {y.get()});
  return NewModel(g);
}

KilnGraph* Branch(const char* name, bool positive) {
  KilnGraph* g = nullptr;
  Take(G().CreateGraph(name, &g));
  if (positive) {
    AddNode(g, "MatMul", "then_mm", {"x", "W"}, {"then_xw"});
    AddNode(g, "Add", "then_add", {"then_xw", "b"}, {"then_y"});
  } else {
    AddNode(g, "Neg", "else_neg", {"x"}, {"else_nx"});
    AddNode(g, "MatMul", "else_mm", {"else_nx", "W"}, {"else_y"});
  }
  auto t = FloatType({-1, 4}, {"N"});
  SetValues(g, false, {positive ? "then_y" : "else_y"}, {t.get()});
  return g;
}

Owned<KilnModel> BuildIf(const KilnValue* w, const KilnValue* b) {
  KilnGraph* g = nullptr;
  Take(G().CreateGraph("if_two_branches", &g));
  auto x = FloatType({-1, 3}, {"N"});
  auto flag = FloatType({}, {}, KILN_ELEMENT_TYPE_BOOL);
  auto y = FloatType({-1, 4}, {"N"});
  SetValues(g, true, {"x", "flag"}, {x.get(), flag.get()});
  Take(G().GraphAddInitializer(g, "W", w));
  Take(G().GraphAddInitializer(g, "b", b));
  KilnAttribute* then_branch = nullptr;
  KilnAttribute* else_branch = nullptr;
  Take(G().CreateAttributeWithOwnedGraph("then_branch", Branch("then_branch", true), &then_branch));
  Take(
      G().CreateAttributeWithOwnedGraph("else_branch", Branch("else_branch", false), &else_branch));
  // (In the order onnx.helper writes them: by name.)
  AddNode(g, "If", "choose", {"flag"}, {"y"}, {else_branch, then_branch});
  SetValues(g, false, {"y"}, {y.get()});
  return NewModel(g);
}

Owned<KilnModel> BuildLoop(const KilnValue* b) {
  KilnGraph* body = nullptr;
  Take(G().CreateGraph("body", &body));
  auto i64 = FloatType({}, {}, KILN_ELEMENT_TYPE_INT64);
  auto boolean = FloatType({}, {}, KILN_ELEMENT_TYPE_BOOL);
  auto vec = FloatType({4});
  SetValues(body, true, {"i", "cond_in", "acc_in"}, {i64.get(), boolean.get(), vec.get()});
  AddNode(body, "Identity", "keep_going", {"cond_in"}, {"cond_out"});
  AddNode(body, "Add", "accumulate", {"acc_in", "b"}, {"acc_out"});
  AddNode(body, "Identity", "record", {"acc_out"}, {"step"});
  SetValues(body, false, {"cond_out", "acc_out", "step"}, {boolean.get(), vec.get(), vec.get()});
  KilnGraph* g = nullptr;
  Take(G().CreateGraph("loop_sum", &g));
  SetValues(g, true, {"M", "cond", "acc0"}, {i64.get(), boolean.get(), vec.get()});
  Take(G().GraphAddInitializer(g, "b", b));
  KilnAttribute* attr = nullptr;
  Take(G().CreateAttributeWithOwnedGraph("body", body, &attr));
  AddNode(g, "Loop", "loop", {"M", "cond", "acc0"}, {"acc", "steps"}, {attr});
  auto steps = FloatType({-1, 4}, {"T"});
  SetValues(g, false, {"acc", "steps"}, {vec.get(), steps.get()});
  return NewModel(g);
}

Owned<KilnModel> Load(const std::string& path) {
  KilnModel* m = nullptr;
  const Outcome o = Take(G().CreateModelFromFile(path.c_str(), &m));
  EXPECT_EQ(o.code, KILN_OK) << o.message;
  return Owned<KilnModel>(m);
}

std::string Print(const KilnModel* m, int64_t elide = -1, uint32_t flags = KILN_PRINT_DEFAULT) {
  std::string text;
  const Outcome o = Take(G().ModelPrint(
      m, elide, flags,
      [](const char* data, size_t length, void* user) {
        static_cast<std::string*>(user)->append(data, length);
      },
      &text));
  EXPECT_EQ(o.code, KILN_OK) << o.message;
  return text;
}

Owned<KilnSession> SessionOf(const KilnModel* m, KilnSessionOptions* options = nullptr) {
  KilnSession* s = nullptr;
  const Outcome o = Take(G().CreateSessionFromModel(Env(), m, options, &s));
  EXPECT_EQ(o.code, KILN_OK) << o.message;
  return Owned<KilnSession>(s);
}

// Runs and returns each output's floats.
std::vector<std::vector<float>> RunFloats(KilnSession* s, const std::vector<const char*>& names,
                                          const std::vector<const KilnValue*>& inputs,
                                          const std::vector<const char*>& outputs) {
  std::vector<KilnValue*> results(outputs.size(), nullptr);
  const Outcome o = Take(Api().Run(s, nullptr, names.data(), inputs.data(), inputs.size(),
                                   outputs.data(), outputs.size(), results.data()));
  EXPECT_EQ(o.code, KILN_OK) << o.message;
  std::vector<std::vector<float>> out;
  for (KilnValue* v : results) {
    if (v == nullptr) return out;
    size_t bytes = 0;
    const void* p = nullptr;
    Take(Api().GetTensorSizeInBytes(v, &bytes));
    Take(Api().GetTensorData(v, &p));
    const auto* f = static_cast<const float*>(p);
    out.emplace_back(f, f + bytes / sizeof(float));
    Api().ReleaseValue(v);
  }
  return out;
}

// The built model, prepared as a session would take it, equals the file's as the loader reads it.
void ExpectSameAsFile(const KilnModel* built, const std::string& file) {
  using kiln::api::graph::PreparedCopy;
  kiln::onnx::testing::ExpectSameModel(PreparedCopy(*built->model),
                                       PreparedCopy(kiln::onnx::LoadModelFile(file)));
}

TEST(GraphApi, BuiltMatMulAddEqualsTheLoadedModelAndRunsTheSame) {
  auto w = FloatTensor(Weights(), {3, 4});
  auto b = FloatTensor(Bias(), {4});
  auto built = BuildMatMulAdd(w.get(), b.get());
  KILN_OK_OR_FAIL(G().ModelVerify(built.get(), nullptr));
  ExpectSameAsFile(built.get(), Data("matmul_add.onnx"));
  auto loaded = Load(Data("matmul_add.onnx"));
  EXPECT_EQ(Print(built.get()), Print(loaded.get()));
  auto x = FloatTensor({1, 2, 3, -4, 5, -6}, {2, 3});
  auto a = RunFloats(SessionOf(built.get()).get(), {"x"}, {x.get()}, {"y"});
  auto c = RunFloats(SessionOf(loaded.get()).get(), {"x"}, {x.get()}, {"y"});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a, c);
  // y[0][0] = 1*-0.5 + 2*0 + 3*0.5 + 0.5
  EXPECT_FLOAT_EQ(a[0][0], 1.5f);
  // ONNX's since-versions at opset 17: MatMul 13, Add 14.
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().ModelGetGraph(built.get(), &g));
  std::vector<int64_t> since;
  for (size_t i = 0; i < 2; ++i) {
    KilnNode* n = nullptr;
    KILN_OK_OR_FAIL(G().GraphGetNode(g, i, &n));
    int64_t v = 0;
    KILN_OK_OR_FAIL(G().NodeGetSinceVersion(n, &v));
    since.push_back(v);
  }
  EXPECT_EQ(since, (std::vector<int64_t>{13, 14}));
}

TEST(GraphApi, BuiltIfEqualsTheLoadedModelAndRunsBothBranches) {
  auto w = FloatTensor(Weights(), {3, 4});
  auto b = FloatTensor(Bias(), {4});
  auto built = BuildIf(w.get(), b.get());
  KILN_OK_OR_FAIL(G().ModelVerify(built.get(), nullptr));
  ExpectSameAsFile(built.get(), Data("if_two_branches.onnx"));
  auto loaded = Load(Data("if_two_branches.onnx"));
  auto sb = SessionOf(built.get());
  auto sl = SessionOf(loaded.get());
  auto x = FloatTensor({1, 2, 3, -4, 5, -6}, {2, 3});
  for (bool flag : {true, false}) {
    auto f = ScalarTensor<bool>(flag, KILN_ELEMENT_TYPE_BOOL);
    auto a = RunFloats(sb.get(), {"x", "flag"}, {x.get(), f.get()}, {"y"});
    auto c = RunFloats(sl.get(), {"x", "flag"}, {x.get(), f.get()}, {"y"});
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a, c);
    EXPECT_FLOAT_EQ(a[0][0], flag ? 1.5f : -1.0f);
  }
}

TEST(GraphApi, BuiltLoopEqualsTheLoadedModelAndRuns) {
  auto b = FloatTensor(Bias(), {4});
  auto built = BuildLoop(b.get());
  KILN_OK_OR_FAIL(G().ModelVerify(built.get(), nullptr));
  ExpectSameAsFile(built.get(), Data("loop_sum.onnx"));
  auto loaded = Load(Data("loop_sum.onnx"));
  auto m = ScalarTensor<int64_t>(3, KILN_ELEMENT_TYPE_INT64);
  auto cond = ScalarTensor<bool>(true, KILN_ELEMENT_TYPE_BOOL);
  auto acc0 = FloatTensor({1, 1, 1, 1}, {4});
  const std::vector<const char*> names = {"M", "cond", "acc0"};
  const std::vector<const KilnValue*> in = {m.get(), cond.get(), acc0.get()};
  auto a = RunFloats(SessionOf(built.get()).get(), names, in, {"acc", "steps"});
  auto c = RunFloats(SessionOf(loaded.get()).get(), names, in, {"acc", "steps"});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a, c);
  EXPECT_FLOAT_EQ(a[0][2], 1 + 3 * 2.0f);
  EXPECT_EQ(a[1].size(), 12u);
}

// A built model shows what its subgraphs read from around them as it is built, as one read from a
// file does: the If's implicit inputs, the outer values' reads, the branch's captured names.
TEST(GraphApi, ABuiltModelShowsItsCapturedNamesAndImplicitInputs) {
  auto w = FloatTensor(Weights(), {3, 4});
  auto b = FloatTensor(Bias(), {4});
  auto built = BuildIf(w.get(), b.get());
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().ModelGetGraph(built.get(), &g));
  KilnNode* choose = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(g, 0, &choose));
  size_t implicit = 0;
  KILN_OK_OR_FAIL(G().NodeGetNumImplicitInputs(choose, &implicit));
  std::vector<std::string> names;
  for (size_t i = 0; i < implicit; ++i) {
    KilnValueInfo* v = nullptr;
    KILN_OK_OR_FAIL(G().NodeGetImplicitInput(choose, i, &v));
    KilnStringRef name{};
    KILN_OK_OR_FAIL(G().ValueInfoGetName(v, &name));
    names.push_back(Str(name));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"W", "b", "x"}));
  KilnValueInfo* x = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetInput(g, 0, &x));
  size_t reads = 0;
  KILN_OK_OR_FAIL(G().ValueInfoGetNumConsumers(x, &reads));
  ASSERT_EQ(reads, 1u);
  KilnNode* reader = nullptr;
  size_t index = 0;
  KILN_OK_OR_FAIL(G().ValueInfoGetConsumer(x, 0, &reader, &index));
  EXPECT_EQ(reader, choose);
  EXPECT_EQ(index, KILN_IMPLICIT_INPUT);
  // In the else branch, x is captured; its own Neg output is not.
  KilnAttribute* else_branch = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetAttributeByName(choose, "else_branch", &else_branch));
  KilnGraph* else_graph = nullptr;
  KILN_OK_OR_FAIL(G().AttributeGetGraph(else_branch, &else_graph));
  KilnNode* neg = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(else_graph, 0, &neg));
  KilnValueInfo* neg_in = nullptr;
  KilnValueInfo* neg_out = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetInput(neg, 0, &neg_in));
  KILN_OK_OR_FAIL(G().NodeGetOutput(neg, 0, &neg_out));
  int captured = -1;
  KILN_OK_OR_FAIL(G().ValueInfoIsCaptured(neg_in, &captured));
  EXPECT_EQ(captured, 1);
  KILN_OK_OR_FAIL(G().ValueInfoIsCaptured(neg_out, &captured));
  EXPECT_EQ(captured, 0);
  // Once the branch defines b itself, the If no longer reads the outer b.
  KilnAttribute* then_branch = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetAttributeByName(choose, "then_branch", &then_branch));
  KilnGraph* then_graph = nullptr;
  KILN_OK_OR_FAIL(G().AttributeGetGraph(then_branch, &then_graph));
  auto zeros = FloatTensor({0, 0, 0, 0}, {4});
  KILN_OK_OR_FAIL(G().GraphAddInitializer(then_graph, "b", zeros.get()));
  KILN_OK_OR_FAIL(G().NodeGetNumImplicitInputs(choose, &implicit));
  EXPECT_EQ(implicit, 2u);
}

TEST(GraphApi, ASavedModelReadsBackIdenticalAndTheModelStaysUsable) {
  auto w = FloatTensor(Weights(), {3, 4});
  auto b = FloatTensor(Bias(), {4});
  const std::string path = testing::TempDir() + "/graph_api_saved_if.onnx";
  auto built = BuildIf(w.get(), b.get());
  KILN_OK_OR_FAIL(G().ModelSave(built.get(), path.c_str()));
  auto back = Load(path);
  kiln::onnx::testing::ExpectSameModel(kiln::api::graph::PreparedCopy(*built->model), *back->model);
  EXPECT_EQ(Print(built.get()), Print(back.get()));
  // The session made first does not hold the model: changing it after changes nothing there.
  auto session = SessionOf(built.get());
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().ModelGetGraph(built.get(), &g));
  auto extra = FloatTensor({1}, {1});
  KILN_OK_OR_FAIL(G().GraphAddInitializer(g, "extra", extra.get()));
  size_t count = 0;
  KilnGraph* view = nullptr;
  KILN_OK_OR_FAIL(G().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &view));
  KILN_OK_OR_FAIL(G().GraphGetNumInitializers(view, &count));
  EXPECT_EQ(count, 2u);
  std::remove(path.c_str());
}

// A name a subgraph read from its enclosing graph becomes its own once the subgraph defines it:
// the session then reads the subgraph's value, as a model saved and read back does.
TEST(GraphApi, AValueASubgraphDefinesIsNoLongerCaptured) {
  auto model = Load(Data("if_two_branches.onnx"));
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().ModelGetGraph(model.get(), &g));
  KilnNode* choose = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(g, 0, &choose));
  KilnAttribute* then_branch = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetAttributeByName(choose, "then_branch", &then_branch));
  KilnGraph* then_graph = nullptr;
  KILN_OK_OR_FAIL(G().AttributeGetGraph(then_branch, &then_graph));
  auto zeros = FloatTensor({0, 0, 0, 0}, {4});
  KILN_OK_OR_FAIL(G().GraphAddInitializer(then_graph, "b", zeros.get()));
  auto session = SessionOf(model.get());
  auto x = FloatTensor({1, 2, 3, -4, 5, -6}, {2, 3});
  auto flag = ScalarTensor<bool>(true, KILN_ELEMENT_TYPE_BOOL);
  auto y = RunFloats(session.get(), {"x", "flag"}, {x.get(), flag.get()}, {"y"});
  ASSERT_EQ(y.size(), 1u);
  EXPECT_FLOAT_EQ(y[0][0], 1.0f);  // 1*-0.5 + 2*0 + 3*0.5, no bias
}

// Sparse-tensor and type attributes: built, they equal the file's; saved, they read back; read,
// their parts come back.
TEST(GraphApi, SparseTensorAndTypeAttributesAreBuiltSavedAndRead) {
  auto values = FloatTensor({1.5f, -2.0f}, {2});
  KilnAllocator* alloc = nullptr;
  KILN_OK_OR_FAIL(Api().GetAllocatorWithDefaultOptions(&alloc));
  KilnValue* raw_indices = nullptr;
  const int64_t nnz[] = {2};
  KILN_OK_OR_FAIL(Api().CreateTensorAsValue(alloc, nnz, 1, KILN_ELEMENT_TYPE_INT64, &raw_indices));
  Owned<KilnValue> indices(raw_indices);
  void* p = nullptr;
  KILN_OK_OR_FAIL(Api().GetTensorMutableData(raw_indices, &p));
  const int64_t at[] = {0, 5};
  std::memcpy(p, at, sizeof at);
  const int64_t dense[] = {2, 3};
  KilnAttribute* sparse = nullptr;
  KILN_OK_OR_FAIL(G().CreateAttributeSparseTensor("sparse_value", values.get(), indices.get(),
                                                  dense, 2, &sparse));
  auto element = FloatType({2});
  KilnAttribute* type = nullptr;
  KILN_OK_OR_FAIL(G().CreateAttributeTypeProto("type", element.get(), &type));
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().CreateGraph("sparse_and_types", &g));
  AddNode(g, "Constant", "const", {}, {"c"}, {sparse});
  AddNode(g, "Optional", "none", {}, {"o"}, {type});
  KilnTypeInfo* optional = nullptr;
  KILN_OK_OR_FAIL(G().CreateOptionalTypeInfo(element.get(), &optional));
  Owned<KilnTypeInfo> owned_optional(optional);
  auto c = FloatType({2, 3});
  SetValues(g, false, {"c", "o"}, {c.get(), optional});
  auto built = NewModel(g);
  ExpectSameAsFile(built.get(), Data("sparse_and_types.onnx"));
  const std::string path = testing::TempDir() + "/graph_api_sparse_and_types.onnx";
  KILN_OK_OR_FAIL(G().ModelSave(built.get(), path.c_str()));
  auto back = Load(path);
  kiln::onnx::testing::ExpectSameModel(kiln::api::graph::PreparedCopy(*built->model), *back->model);
  std::remove(path.c_str());
  // Read back through the API: the parts, and the type.
  KilnGraph* read = nullptr;
  KILN_OK_OR_FAIL(G().ModelGetGraph(back.get(), &read));
  KilnNode* constant = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(read, 0, &constant));
  KilnAttribute* a = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetAttributeByName(constant, "sparse_value", &a));
  ASSERT_NE(a, nullptr);
  const KilnValue* got_values = nullptr;
  const KilnValue* got_indices = nullptr;
  const int64_t* got_dims = nullptr;
  size_t rank = 0;
  KILN_OK_OR_FAIL(G().AttributeGetSparseTensor(a, &got_values, &got_indices, &got_dims, &rank));
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(got_dims[0], 2);
  EXPECT_EQ(got_dims[1], 3);
  const void* data = nullptr;
  KILN_OK_OR_FAIL(Api().GetTensorData(got_indices, &data));
  EXPECT_EQ(static_cast<const int64_t*>(data)[1], 5);
  KilnNode* none = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(read, 1, &none));
  KilnAttribute* t = nullptr;
  KILN_OK_OR_FAIL(G().NodeGetAttributeByName(none, "type", &t));
  ASSERT_NE(t, nullptr);
  const KilnTypeInfo* got_type = nullptr;
  KILN_OK_OR_FAIL(G().AttributeGetTypeProto(t, &got_type));
  size_t type_rank = 0;
  KILN_OK_OR_FAIL(G().TypeInfoGetRank(got_type, &type_rank));
  EXPECT_EQ(type_rank, 1u);
  // A sparse tensor whose index is outside its dense shape is refused, naming the problem.
  const int64_t small[] = {2, 2};
  KilnAttribute* bad = reinterpret_cast<KilnAttribute*>(0x1);
  const Outcome o =
      Take(G().CreateAttributeSparseTensor("s", values.get(), indices.get(), small, 2, &bad));
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("index 1 is outside the shape"), std::string::npos) << o.message;
  EXPECT_EQ(bad, reinterpret_cast<KilnAttribute*>(0x1));
}

TEST(GraphApi, TextRoundTripsThroughTheApi) {
  auto loaded = Load(Data("if_two_branches.onnx"));
  const std::string text = Print(loaded.get());
  KilnModel* parsed = nullptr;
  KILN_OK_OR_FAIL(G().CreateModelFromText(text.data(), text.size(), &parsed));
  Owned<KilnModel> owned(parsed);
  EXPECT_EQ(Print(parsed), text);  // (the syntax has no node names: the parser numbers them)
}

// ---- Inspecting a session ----------------------------------------------------------------------

TEST(GraphApi, ASessionShowsItsOptimizedGraphWithKernelsAndFusedFrom) {
  KilnSessionOptions* options = nullptr;
  KILN_OK_OR_FAIL(Api().CreateSessionOptions(&options));
  Owned<KilnSessionOptions> owned_options(options);
  KILN_OK_OR_FAIL(Api().AddSessionConfigEntry(options, "kiln.graph.keep_loaded", "1"));
  auto model = Load(Data("conv_relu.onnx"));
  auto session = SessionOf(model.get(), options);
  KilnGraph* loaded = nullptr;
  KilnGraph* optimized = nullptr;
  KILN_OK_OR_FAIL(G().SessionGetGraph(session.get(), KILN_GRAPH_LOADED, &loaded));
  KILN_OK_OR_FAIL(G().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &optimized));
  size_t loaded_nodes = 0;
  size_t optimized_nodes = 0;
  KILN_OK_OR_FAIL(G().GraphGetNumNodes(loaded, &loaded_nodes));
  KILN_OK_OR_FAIL(G().GraphGetNumNodes(optimized, &optimized_nodes));
  EXPECT_EQ(loaded_nodes, 2u);
  bool found = false;
  for (size_t i = 0; i < optimized_nodes; ++i) {
    KilnNode* n = nullptr;
    KILN_OK_OR_FAIL(G().GraphGetNode(optimized, i, &n));
    KilnStringRef kernel{};
    KILN_OK_OR_FAIL(G().NodeGetKernel(n, &kernel));
    EXPECT_EQ(Str(kernel).rfind("CPU ", 0), 0u) << Str(kernel);
    size_t fused = 0;
    KILN_OK_OR_FAIL(G().NodeGetNumFusedFrom(n, &fused));
    if (fused != 2) continue;
    KilnStringRef a{};
    KilnStringRef c{};
    KILN_OK_OR_FAIL(G().NodeGetFusedFrom(n, 0, &a));
    KILN_OK_OR_FAIL(G().NodeGetFusedFrom(n, 1, &c));
    EXPECT_EQ(Str(a), "conv");
    EXPECT_EQ(Str(c), "relu");
    found = true;
  }
  EXPECT_TRUE(found) << "no node fused from conv and relu";
  // The loaded view has no kernels; its initializer is the file's, not copied.
  KilnNode* first = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetNode(loaded, 0, &first));
  KilnStringRef kernel{};
  KILN_OK_OR_FAIL(G().NodeGetKernel(first, &kernel));
  EXPECT_EQ(kernel.length, 0u);
  KilnValueInfo* w = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetInitializer(loaded, 0, &w));
  const KilnValue* data = nullptr;
  KILN_OK_OR_FAIL(G().ValueInfoGetInitializer(w, &data));
  const void* p = nullptr;
  KILN_OK_OR_FAIL(Api().GetTensorData(data, &p));
  const auto& file_w = *model->model->graph->FindValue("w")->initializer();
  EXPECT_EQ(std::memcmp(p, file_w.data(), file_w.byte_size()), 0);
  void* writable = nullptr;
  EXPECT_EQ(Take(Api().GetTensorMutableData(const_cast<KilnValue*>(data), &writable)).code,
            KILN_INVALID_ARGUMENT);
  EXPECT_EQ(writable, nullptr);
  // Debug printing names the kernel and the fused nodes.
  KilnModel* view_model = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetModel(optimized, &view_model));
  const std::string text = Print(view_model, 16, KILN_PRINT_DEBUG);
  EXPECT_NE(text.find("# kernel: CPU "), std::string::npos) << text;
  EXPECT_NE(text.find("# fused from: conv, relu"), std::string::npos) << text;
  // The view imports the domain of Kiln's own nodes, as its text and ModelSave do.
  size_t imports = 0;
  KILN_OK_OR_FAIL(G().ModelGetNumOpsetImports(view_model, &imports));
  std::string domains;
  for (size_t i = 0; i < imports; ++i) {
    KilnStringRef domain{};
    int64_t version = 0;
    KILN_OK_OR_FAIL(G().ModelGetOpsetImport(view_model, i, &domain, &version));
    domains += "[" + Str(domain) + ":" + std::to_string(version) + "]";
  }
  EXPECT_EQ(domains, "[:17][ai.kiln:1]");
  // Without the comments, the optimized graph's text (Kiln's own domain imported) reads back as a
  // model that prints the same and runs.
  const std::string plain = Print(view_model);
  KilnModel* reread = nullptr;
  KILN_OK_OR_FAIL(G().CreateModelFromText(plain.data(), plain.size(), &reread));
  Owned<KilnModel> owned_reread(reread);
  EXPECT_EQ(Print(reread), plain);
  KILN_OK_OR_FAIL(G().ModelVerify(reread, nullptr));
  // Inferred types: the Conv's output shape is known although the model declares only y.
  KilnValueInfo* out = nullptr;
  KILN_OK_OR_FAIL(G().GraphGetOutput(optimized, 0, &out));
  const KilnTypeInfo* type = nullptr;
  KILN_OK_OR_FAIL(G().ValueInfoGetType(out, &type));
  size_t rank = 0;
  KILN_OK_OR_FAIL(G().TypeInfoGetRank(type, &rank));
  EXPECT_EQ(rank, 4u);
  // The view goes with the session.
  session.reset();
  EXPECT_EQ(Take(G().GraphGetNumNodes(optimized, &optimized_nodes)).code, KILN_INVALID_ARGUMENT);
}

// Many threads reading one session's views at once (handles made on first use, caches) see the
// same graph, as the header promises.
TEST(GraphApi, ManyThreadsReadOneViewAtOnce) {
  KilnSessionOptions* options = nullptr;
  KILN_OK_OR_FAIL(Api().CreateSessionOptions(&options));
  Owned<KilnSessionOptions> owned_options(options);
  KILN_OK_OR_FAIL(Api().AddSessionConfigEntry(options, "kiln.graph.keep_loaded", "1"));
  auto model = Load(Data("if_two_branches.onnx"));
  auto session = SessionOf(model.get(), options);
  // A walk of a graph: each node's op, kernel, inputs' names and types and consumers' count.
  std::function<std::string(const KilnGraph*)> walk = [&](const KilnGraph* g) {
    std::string out;
    size_t nodes = 0;
    if (Take(G().GraphGetNumNodes(g, &nodes)).code != KILN_OK) return std::string("error");
    for (size_t i = 0; i < nodes; ++i) {
      KilnNode* n = nullptr;
      KilnStringRef op{};
      KilnStringRef kernel{};
      size_t inputs = 0;
      size_t attributes = 0;
      if (Take(G().GraphGetNode(g, i, &n)).code != KILN_OK ||
          Take(G().NodeGetOpType(n, &op)).code != KILN_OK ||
          Take(G().NodeGetKernel(n, &kernel)).code != KILN_OK ||
          Take(G().NodeGetNumInputs(n, &inputs)).code != KILN_OK ||
          Take(G().NodeGetNumAttributes(n, &attributes)).code != KILN_OK) {
        return std::string("error");
      }
      out += Str(op) + "/" + Str(kernel) + "(";
      for (size_t k = 0; k < inputs; ++k) {
        KilnValueInfo* v = nullptr;
        const KilnTypeInfo* t = nullptr;
        KilnStringRef name{};
        size_t rank = 0;
        size_t readers = 0;
        if (Take(G().NodeGetInput(n, k, &v)).code != KILN_OK || v == nullptr ||
            Take(G().ValueInfoGetName(v, &name)).code != KILN_OK ||
            Take(G().ValueInfoGetType(v, &t)).code != KILN_OK ||
            Take(G().TypeInfoGetRank(t, &rank)).code != KILN_OK ||
            Take(G().ValueInfoGetNumConsumers(v, &readers)).code != KILN_OK) {
          return std::string("error");
        }
        out += Str(name) + ":" + std::to_string(rank) + ":" + std::to_string(readers) + ",";
      }
      out += ")";
      for (size_t k = 0; k < attributes; ++k) {
        KilnAttribute* a = nullptr;
        KilnAttributeType type = KILN_ATTRIBUTE_UNDEFINED;
        if (Take(G().NodeGetAttribute(n, k, &a)).code != KILN_OK ||
            Take(G().AttributeGetType(a, &type)).code != KILN_OK) {
          return std::string("error");
        }
        if (type != KILN_ATTRIBUTE_GRAPH) continue;
        KilnGraph* sub = nullptr;
        if (Take(G().AttributeGetGraph(a, &sub)).code != KILN_OK) return std::string("error");
        out += "{" + walk(sub) + "}";
      }
      out += ";";
    }
    return out;
  };
  KilnGraph* optimized = nullptr;
  KilnGraph* loaded = nullptr;
  KILN_OK_OR_FAIL(G().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &optimized));
  KILN_OK_OR_FAIL(G().SessionGetGraph(session.get(), KILN_GRAPH_LOADED, &loaded));
  constexpr int kThreads = 8;
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { seen[t] = walk(t % 2 == 0 ? optimized : loaded); });
  }
  for (std::thread& th : threads) th.join();
  const std::string want_optimized = walk(optimized);
  const std::string want_loaded = walk(loaded);
  EXPECT_NE(want_optimized.find("If/CPU ai.onnx::If"), std::string::npos) << want_optimized;
  EXPECT_NE(want_loaded.find("{MatMul/("), std::string::npos) << want_loaded;
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(seen[t], t % 2 == 0 ? want_optimized : want_loaded) << "thread " << t;
  }
}

// ---- Bad input ----------------------------------------------------------------------------------

Outcome VerifyText(const std::string& body) {
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\n" + body;
  // Parsed as a built model would be: loaded by the parser (which checks structure) …
  KilnModel* m = nullptr;
  Outcome o = Take(G().CreateModelFromText(text.data(), text.size(), &m));
  if (o.code != KILN_OK) return o;
  Owned<KilnModel> owned(m);
  return Take(G().ModelVerify(m, nullptr));
}

TEST(GraphApi, ModelVerifyNamesTheNodeAtFault) {
  auto w = FloatTensor(Weights(), {3, 4});
  auto b = FloatTensor(Bias(), {4});
  // A cycle, built by hand (the parser's loader would refuse it first).
  {
    KilnGraph* g = nullptr;
    KILN_OK_OR_FAIL(G().CreateGraph("cycle", &g));
    auto t = FloatType({2});
    SetValues(g, true, {"x"}, {t.get()});
    AddNode(g, "Add", "first", {"x", "b2"}, {"a"});
    AddNode(g, "Relu", "second", {"a"}, {"b2"});
    SetValues(g, false, {"a"}, {t.get()});
    auto m = NewModel(g);
    const Outcome o = Take(G().ModelVerify(m.get(), nullptr));
    EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
    EXPECT_NE(o.message.find("cycle"), std::string::npos) << o.message;
    size_t nodes = 0;
    KILN_OK_OR_FAIL(G().GraphGetNumNodes(g, &nodes));  // listed in the order added
    EXPECT_EQ(nodes, 2u);
  }
  // A dangling edge.
  {
    KilnGraph* g = nullptr;
    KILN_OK_OR_FAIL(G().CreateGraph("dangling", &g));
    auto t = FloatType({2});
    SetValues(g, true, {"x"}, {t.get()});
    AddNode(g, "Add", "adder", {"x", "nowhere"}, {"y"});
    SetValues(g, false, {"y"}, {t.get()});
    auto m = NewModel(g);
    const Outcome o = Take(G().ModelVerify(m.get(), nullptr));
    EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
    EXPECT_NE(o.message.find("node 'adder' (Add) input 1 'nowhere'"), std::string::npos)
        << o.message;
  }
  // An attribute of the wrong type, an unknown op, a domain not imported.
  const std::string io = "g (float[2, 3] x) => (float[3, 2] y) ";
  Outcome o = VerifyText(io + "{ y = Transpose <perm: floats = [1.0, 0.0]> (x) }");
  EXPECT_NE(o.code, KILN_OK);
  EXPECT_NE(o.message.find("Transpose"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("perm"), std::string::npos) << o.message;
  // ONNX's checker's node rules: an attribute the op does not have, a required one missing, too
  // many inputs.
  o = VerifyText(io + "{ y = Transpose <alpha: float = 1.0> (x) }");
  EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
  EXPECT_NE(o.message.find("attribute 'alpha' is not one Transpose (opset 17) has"),
            std::string::npos)
      << o.message;
  o = VerifyText("g (float[2] x) => (float[2] y) { y = Cast (x) }");
  EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
  EXPECT_NE(o.message.find("Cast (opset 17) requires attribute 'to'"), std::string::npos)
      << o.message;
  o = VerifyText("g (float[2] x) => (float[2] y) { y = Relu (x, x) }");
  EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
  EXPECT_NE(o.message.find("has 2 inputs; Relu (opset 17) takes 1"), std::string::npos)
      << o.message;
  o = VerifyText(io + "{ y = Frobnicate (x) }");
  EXPECT_EQ(o.code, KILN_NOT_IMPLEMENTED) << o.message;
  EXPECT_NE(o.message.find("Frobnicate"), std::string::npos) << o.message;
  {
    const char* domains[] = {""};
    const int64_t versions[] = {17};
    KilnModel* m = nullptr;
    KILN_OK_OR_FAIL(G().CreateModel(8, domains, versions, 1, &m));
    Owned<KilnModel> owned(m);
    KilnGraph* g = nullptr;
    KILN_OK_OR_FAIL(G().CreateGraph("g", &g));
    auto t = FloatType({2});
    SetValues(g, true, {"x"}, {t.get()});
    KilnNode* n = nullptr;
    const char* in[] = {"x"};
    const char* out[] = {"y"};
    KILN_OK_OR_FAIL(G().CreateNode("Thing", "my.domain", "custom", in, 1, out, 1, &n));
    KILN_OK_OR_FAIL(G().GraphAddOwnedNode(g, n));
    SetValues(g, false, {"y"}, {t.get()});
    KILN_OK_OR_FAIL(G().ModelSetOwnedGraph(m, g));
    o = Take(G().ModelVerify(m, nullptr));
    EXPECT_EQ(o.code, KILN_INVALID_GRAPH) << o.message;
    EXPECT_NE(o.message.find("node 'custom' (Thing) uses domain 'my.domain', which the model "
                             "does not import"),
              std::string::npos)
        << o.message;
  }
}

TEST(GraphApi, TextThatDoesNotParseGivesLineAndColumn) {
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\ng (flot[2] x) => () {}";
  KilnModel* m = nullptr;
  const Outcome o = Take(G().CreateModelFromText(text.data(), text.size(), &m));
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("CreateModelFromText"), std::string::npos) << o.message;
  EXPECT_NE(o.message.find("line 2, column 4"), std::string::npos) << o.message;
  EXPECT_EQ(m, nullptr);
  // Bytes that are not printable are shown, not passed on raw.
  const std::string binary =
      "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[2] x) => () \x01";
  const Outcome b = Take(G().CreateModelFromText(binary.data(), binary.size(), &m));
  EXPECT_EQ(b.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(b.message.find("found '\\x01'"), std::string::npos) << b.message;
}

TEST(GraphApi, RefusedBuildStepsChangeNothing) {
  KilnGraph* g = nullptr;
  KILN_OK_OR_FAIL(G().CreateGraph("g", &g));
  auto m = NewModel(g);
  auto t = FloatType({2});
  SetValues(g, true, {"x"}, {t.get()});
  AddNode(g, "Relu", "r", {"x"}, {"y"});
  // A second producer of y: refused, the node stays the caller's.
  KilnNode* again = nullptr;
  const char* in[] = {"x"};
  const char* out[] = {"y"};
  KILN_OK_OR_FAIL(G().CreateNode("Neg", "", "n", in, 1, out, 1, &again));
  Outcome o = Take(G().GraphAddOwnedNode(g, again));
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("node 'n' (Neg) output 'y' is already produced by node 'r' (Relu)"),
            std::string::npos)
      << o.message;
  size_t nodes = 0;
  KILN_OK_OR_FAIL(G().GraphGetNumNodes(g, &nodes));
  EXPECT_EQ(nodes, 1u);
  // A node of another graph.
  KilnGraph* other = nullptr;
  KILN_OK_OR_FAIL(G().CreateGraph("other", &other));
  KILN_OK_OR_FAIL(G().GraphAddOwnedNode(other, again));
  o = Take(G().GraphAddOwnedNode(g, again));
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("owned by a graph"), std::string::npos) << o.message;
  G().ReleaseGraph(other);
  // An index out of range.
  KilnNode* n = reinterpret_cast<KilnNode*>(0x1);
  o = Take(G().GraphGetNode(g, 1, &n));
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("1 is out of range: there are 1 nodes"), std::string::npos) << o.message;
  EXPECT_EQ(n, reinterpret_cast<KilnNode*>(0x1));
}

}  // namespace
