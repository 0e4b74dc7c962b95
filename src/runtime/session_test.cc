#include "runtime/session.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "core/error.h"
#include "core/float16.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/test_util.h"
#include "onnx/loader.h"

namespace kiln::runtime {
namespace {

// y = <op>(x) over float [2] at `opset`, with whatever attributes the caller adds.
::kiln_onnx::ModelProto UnaryModel(const std::string& op, int64_t opset) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  auto* n = g->add_node();
  n->set_name("n0");
  n->set_op_type(op);
  n->add_input("x");
  n->add_output("y");
  for (auto [vi, name] : {std::pair{g->add_input(), "x"}, std::pair{g->add_output(), "y"}}) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  return m;
}

std::unique_ptr<Session> Create(const ::kiln_onnx::ModelProto& m, const std::string& dir = "") {
  const std::string bytes = m.SerializeAsString();
  return std::make_unique<Session>(onnx::LoadModelBytes(bytes.data(), bytes.size(), dir),
                                   SessionOptions());
}

void ExpectCreateError(const ::kiln_onnx::ModelProto& m, ErrorCode code,
                       std::initializer_list<const char*> fragments) {
  try {
    Create(m);
    ADD_FAILURE() << "created without error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << f << " not in " << e.what();
    }
  }
}

TEST(Session, WrongAttributeTypeNamesNodeAndAttribute) {
  ::kiln_onnx::ModelProto m = UnaryModel("LeakyRelu", 16);
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_type(::kiln_onnx::AttributeProto::INT);
  a->set_i(2);
  ExpectCreateError(m, ErrorCode::kInvalidGraph,
                    {"node 'n0' (LeakyRelu)", "attribute 'alpha'", "float", "int"});
}

TEST(Session, UnsupportedOpAndOpsetNameNodeOpDomainAndOpset) {
  ExpectCreateError(UnaryModel("NoSuchOp", 17), ErrorCode::kNotImplemented,
                    {"node 'n0' (NoSuchOp)", "ai.onnx", "opset 17"});
  ExpectCreateError(UnaryModel("Relu", 40), ErrorCode::kNotImplemented,
                    {"node 'n0' (Relu)", "opset 40", "ai.onnx"});
  ::kiln_onnx::ModelProto custom = UnaryModel("Thing", 17);
  custom.mutable_graph()->mutable_node(0)->set_domain("com.example");
  auto* op = custom.add_opset_import();
  op->set_domain("com.example");
  op->set_version(3);
  ExpectCreateError(custom, ErrorCode::kNotImplemented,
                    {"node 'n0' (Thing)", "com.example", "opset 3"});
}

TEST(Session, RunsAndFreesIntermediates) {
  ::kiln_onnx::ModelProto m = UnaryModel("Relu", 14);
  auto session = Create(m);
  std::vector<std::string> in_names = {"x"}, out_names = {"y"};
  std::vector<Value> in = {Value(testing::MakeTensor<float>({2}, {-1, 2}))};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  session->Run(RunOptions(), in_names, in, out_names, out, others);
  EXPECT_EQ(testing::Values<float>(*out[0]), (std::vector<float>{0, 2}));
}

// A kernel that refuses what it was given at run time: the error names the node, its op and the
// type and shape of every input it got.
TEST(Session, ARunTimeKernelErrorNamesTheNodeAndTheShapesItGot) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* n = g->add_node();
  n->set_name("reshape_node");
  n->set_op_type("Reshape");
  n->add_input("x");
  n->add_input("shape");
  n->add_output("y");
  for (auto [vi, name, type] :
       {std::tuple{g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT},
        std::tuple{g->add_input(), "shape", ::kiln_onnx::TensorProto::INT64},
        std::tuple{g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT}}) {
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  auto session = Create(m);
  std::vector<std::string> in_names = {"x", "shape"}, out_names = {"y"};
  std::vector<Value> in = {Value(testing::MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})),
                           Value(testing::MakeTensor<int64_t>({2}, {4, 4}))};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  try {
    session->Run(RunOptions(), in_names, in, out_names, out, others);
    ADD_FAILURE() << "the run did not fail";
  } catch (const Error& e) {
    const std::string what = e.what();
    for (const char* f :
         {"reshape_node", "Reshape",
          "(the node was given 'x' tensor(float) [2,3], 'shape' tensor(int64) [2])"}) {
      EXPECT_NE(what.find(f), std::string::npos) << f << " not in " << what;
    }
  }
}

TEST(Session, TerminateStopsBeforeTheFirstNode) {
  auto session = Create(UnaryModel("Relu", 14));
  RunOptions run;
  run.terminate = true;
  std::vector<std::string> in_names = {"x"}, out_names = {"y"};
  std::vector<Value> in = {Value(testing::MakeTensor<float>({2}, {-1, 2}))};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  try {
    session->Run(run, in_names, in, out_names, out, others);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTerminated);
    EXPECT_NE(std::string(e.what()).find("node 'n0'"), std::string::npos);
  }
  EXPECT_EQ(out[0], nullptr);
}

// y = MatMul(x, Relu(w)): x float [2, 4]; w float [4, 3], an initializer (1 ... 12) the graph
// also lists as an input (IR 8: an overridable initializer). Were w a constant, Relu(w) would be
// folded and the MatMul's weights packed at load from level 1 on.
::kiln_onnx::ModelProto OverridableModel(int64_t ir_version = 8) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(ir_version);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* relu = g->add_node();
  relu->set_name("relu_w");
  relu->set_op_type("Relu");
  relu->add_input("w");
  relu->add_output("rw");
  auto* mm = g->add_node();
  mm->set_name("mm");
  mm->set_op_type("MatMul");
  mm->add_input("x");
  mm->add_input("rw");
  mm->add_output("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->add_dims(3);
  for (int i = 0; i < 12; ++i) w->add_float_data(static_cast<float>(i + 1));
  for (auto [vi, name, rows, cols] :
       {std::tuple{g->add_input(), "x", 2, 4}, std::tuple{g->add_input(), "w", 4, 3},
        std::tuple{g->add_output(), "y", 2, 3}}) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(rows);
    t->mutable_shape()->add_dim()->set_dim_value(cols);
  }
  return m;
}

// x [2, 4] times Relu(w) [4, 3], by loops.
std::vector<float> MatMulRelu(const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<float> y(6, 0.0f);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < 4; ++k) y[r * 3 + c] += x[r * 4 + k] * std::max(w[k * 3 + c], 0.0f);
    }
  }
  return y;
}

TEST(Session, AFedOverridableInitializerChangesTheResultAndAnUnfedOneIsTheModels) {
  const std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 2, -3};
  std::vector<float> model_w(12);
  std::vector<float> fed_w(12);
  for (int i = 0; i < 12; ++i) {
    model_w[i] = static_cast<float>(i + 1);
    fed_w[i] = static_cast<float>(i % 2 == 0 ? -(i + 1) : 2 * (i + 1));
  }
  for (int level : {0, 3}) {
    SCOPED_TRACE("level " + std::to_string(level));
    const std::string bytes = OverridableModel().SerializeAsString();
    SessionOptions options;
    options.optimization_level = level;
    Session session(onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), options);
    ASSERT_EQ(session.inputs().size(), 1u);
    EXPECT_EQ(session.inputs()[0].name, "x");
    ASSERT_EQ(session.overridable_initializers().size(), 1u);
    EXPECT_EQ(session.overridable_initializers()[0].name, "w");
    std::vector<std::string> out_names = {"y"};
    auto run = [&](std::vector<std::string> names, std::vector<Value> in) {
      std::vector<std::shared_ptr<Tensor>> out(1);
      std::vector<Value> others(1);
      session.Run(RunOptions(), names, in, out_names, out, others);
      return testing::Values<float>(*out[0]);
    };
    const Value xv(testing::MakeTensor<float>({2, 4}, x));
    const Value wv(testing::MakeTensor<float>({4, 3}, fed_w));
    EXPECT_EQ(run({"x"}, {xv}), MatMulRelu(x, model_w));
    EXPECT_EQ(run({"x", "w"}, {xv, wv}), MatMulRelu(x, fed_w));
    EXPECT_NE(MatMulRelu(x, fed_w), MatMulRelu(x, model_w));
    EXPECT_EQ(run({"x"}, {xv}), MatMulRelu(x, model_w));
  }
}

TEST(Session, AnInitializerListedAsAnInputBeforeIrVersion4IsAConstant) {
  auto session = Create(OverridableModel(3));
  EXPECT_EQ(session->inputs().size(), 1u);
  EXPECT_TRUE(session->overridable_initializers().empty());
}

TEST(Session, AnOverridableInitializersDeclaredTypeMustFitItsValue) {
  ::kiln_onnx::ModelProto wrong_type = OverridableModel();
  wrong_type.mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(::kiln_onnx::TensorProto::DOUBLE);
  ExpectCreateError(wrong_type, ErrorCode::kInvalidGraph,
                    {"graph input 'w'", "declared double", "initializer is float"});
  ::kiln_onnx::ModelProto wrong_shape = OverridableModel();
  wrong_shape.mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  ExpectCreateError(wrong_shape, ErrorCode::kInvalidGraph,
                    {"graph input 'w'", "[4,5]", "initializer has shape [4,3]"});
  // A free dimension declared for it takes any size a run feeds, the model's by default.
  ::kiln_onnx::ModelProto free_cols = OverridableModel();
  free_cols.mutable_graph()
      ->mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_param("cols");
  auto session = Create(free_cols);
  ASSERT_EQ(session->overridable_initializers().size(), 1u);
  EXPECT_EQ(session->overridable_initializers()[0].type.shape->ToString(), "[4,cols]");
}

TEST(Session, TheLoaderKeepsDimensionDenotations) {
  ::kiln_onnx::ModelProto m = UnaryModel("Relu", 14);
  auto* shape =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_denotation("DATA_FEATURE");
  const std::string bytes = m.SerializeAsString();
  ir::Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  EXPECT_EQ(model.graph->inputs()[0]->type().dim_denotations,
            (std::vector<std::string>{"DATA_FEATURE"}));
  EXPECT_TRUE(model.graph->outputs()[0]->type().dim_denotations.empty());
}

TEST(Session, ArenaShrinkageGivesTheKeptBlocksBackAfterTheRun) {
  auto session = Create(UnaryModel("Relu", 14));
  std::vector<std::string> in_names = {"x"}, out_names = {"y"};
  std::vector<Value> in = {Value(testing::MakeTensor<float>({2}, {-1, 2}))};
  std::vector<Value> others(1);
  {
    // An output left to the run is handed over from the session's allocator; dropped, its block
    // is kept for reuse.
    std::vector<std::shared_ptr<Tensor>> out(1);
    session->Run(RunOptions(), in_names, in, out_names, out, others);
  }
  const size_t kept = session->cached_bytes();
  ASSERT_GT(kept, 0u);
  std::vector<std::shared_ptr<Tensor>> given = {testing::MakeTensor<float>({2}, {9, 9})};
  session->Run(RunOptions(), in_names, in, out_names, given, others);
  EXPECT_EQ(session->cached_bytes(), kept);
  RunOptions keep;
  keep.AddConfig("memory.enable_memory_arena_shrinkage", "0");
  session->Run(keep, in_names, in, out_names, given, others);
  EXPECT_EQ(session->cached_bytes(), kept);
  RunOptions shrink;
  shrink.AddConfig("memory.enable_memory_arena_shrinkage", "cpu:0");
  session->Run(shrink, in_names, in, out_names, given, others);
  EXPECT_EQ(session->cached_bytes(), 0u);
  EXPECT_EQ(testing::Values<float>(*given[0]), (std::vector<float>{0, 2}));
}

TEST(Session, RunConfigKeysAreAListedSet) {
  RunOptions run;
  try {
    run.AddConfig("kiln.arena.enable", "1");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("'kiln.arena.enable'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run.check_finite, -1);
  run.AddConfig("kiln.run.check_finite", "0");
  EXPECT_EQ(run.check_finite, 0);
  EXPECT_THROW(run.AddConfig("kiln.run.check_finite", "2"), Error);
  EXPECT_EQ(run.check_finite, 0);
  const RunOptions copy(run);
  EXPECT_EQ(copy.check_finite, 0);
  EXPECT_EQ(copy.config.at("kiln.run.check_finite"), "0");
}

// A model over 2 GiB: the weights live in an external data file (sparse on disk) next to it.
TEST(Session, LoadsAModelOverTwoGigabytesThroughExternalData) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kiln_big_model_" + std::to_string(getpid()));
  fs::create_directories(dir);
  constexpr int64_t kElements = 600'000'000;  // 2.4 GB of float
  {
    const int fd = ::open((dir / "weights.bin").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, kElements * 4), 0);
    const float last = 42.0f;
    ASSERT_EQ(::pwrite(fd, &last, sizeof last, (kElements - 1) * 4), 4);
    ::close(fd);
  }
  ::kiln_onnx::ModelProto m = UnaryModel("Shape", 15);
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "w");
  g->clear_input();
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      ::kiln_onnx::TensorProto::INT64);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->add_dims(kElements);
  w->set_data_location(::kiln_onnx::TensorProto::EXTERNAL);
  auto* loc = w->add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  {
    std::ofstream out(dir / "model.onnx", std::ios::binary);
    out << m.SerializeAsString();
  }
  ir::Model model = onnx::LoadModelFile((dir / "model.onnx").string());
  const Tensor& weights = *model.graph->FindValue("w")->initializer();
  EXPECT_EQ(weights.byte_size(), size_t{kElements} * 4);
  EXPECT_EQ(static_cast<const float*>(weights.data())[kElements - 1], 42.0f);
  Session session(std::move(model), SessionOptions());
  std::vector<std::string> out_names = {"y"};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  session.Run(RunOptions(), {}, {}, out_names, out, others);
  EXPECT_EQ(testing::Values<int64_t>(*out[0]), (std::vector<int64_t>{kElements}));
  fs::remove_all(dir);
}

// The model's output y for input x of `dims`, run in a session with kiln.compute.bf16 = `bf16`.
std::vector<float> RunBf16(const std::string& bytes, const char* bf16, std::vector<int64_t> dims,
                           const std::vector<float>& x) {
  SessionOptions options;
  options.AddConfig("kiln.compute.bf16", bf16);
  Session session(onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), options);
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  const std::vector<std::string> in_names = {"x"}, out_names = {"y"};
  const std::vector<Value> in = {Value(testing::MakeTensor<float>(std::move(dims), x))};
  session.Run(RunOptions(), in_names, in, out_names, out, others);
  return testing::Values<float>(*out[0]);
}

// Session config kiln.compute.bf16: a product against a constant weight runs on bf16 operands
// (the result is the bf16-rounded operands' product, which differs from the float one); without
// the flag, the float product.
TEST(Session, Bf16ConfigRunsConstantWeightProductsInBf16) {
  if (!cpu::Bf16GemmSupported()) GTEST_SKIP() << "no AVX-512 BF16 on this machine";
  const int64_t m = 6, k = 40, n = 70;
  std::vector<float> x(static_cast<size_t>(m * k)), w(static_cast<size_t>(k * n));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.37f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(static_cast<float>(i) * 0.11f);
  ::kiln_onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  auto* g = proto.mutable_graph();
  auto* node = g->add_node();
  node->set_op_type("MatMul");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  auto* init = g->add_initializer();
  init->set_name("w");
  init->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  init->add_dims(k);
  init->add_dims(n);
  for (float v : w) init->add_float_data(v);
  for (auto [vi, name, d0, d1] :
       {std::tuple{g->add_input(), "x", m, k}, std::tuple{g->add_output(), "y", m, n}}) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(d0);
    t->mutable_shape()->add_dim()->set_dim_value(d1);
  }
  const std::string bytes = proto.SerializeAsString();
  auto run = [&](const char* bf16) { return RunBf16(bytes, bf16, {m, k}, x); };
  const std::vector<float> plain = run("0"), half = run("1");
  size_t differ = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double exact = 0, rounded = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float a = x[static_cast<size_t>(i * k + p)], b = w[static_cast<size_t>(p * n + j)];
        exact += static_cast<double>(a) * b;
        rounded += static_cast<double>(BFloat16::FromFloat(a).ToFloat()) *
                   BFloat16::FromFloat(b).ToFloat();
        mag += std::abs(static_cast<double>(a) * b);
      }
      const size_t at = static_cast<size_t>(i * n + j);
      EXPECT_NEAR(plain[at], exact, 1e-5 * mag) << at;
      EXPECT_NEAR(half[at], rounded, 1e-5 * mag) << at;
      differ += plain[at] != half[at] ? 1 : 0;
    }
  }
  EXPECT_GT(differ, static_cast<size_t>(m * n / 2));  // the bf16 path ran
  SessionOptions bad;
  EXPECT_THROW(bad.AddConfig("kiln.compute.bf16", "yes"), Error);
}

// The same for a convolution at level 3 (its channels-last form): a 3×3 Conv with padding over
// [1, 16, 10, 10] gives the convolution of the bf16-rounded operands with the flag, the float one
// without.
TEST(Session, Bf16ConfigRunsConvolutionsInBf16) {
  if (!cpu::Bf16GemmSupported()) GTEST_SKIP() << "no AVX-512 BF16 on this machine";
  const int64_t c = 16, m = 24, h = 10, w = 10;
  std::vector<float> x(static_cast<size_t>(c * h * w)), wt(static_cast<size_t>(m * c * 9));
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.37f);
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = std::cos(static_cast<float>(i) * 0.11f);
  ::kiln_onnx::ModelProto proto;
  proto.set_ir_version(8);
  proto.add_opset_import()->set_version(17);
  auto* g = proto.mutable_graph();
  auto* node = g->add_node();
  node->set_op_type("Conv");
  node->add_input("x");
  node->add_input("w");
  node->add_output("y");
  auto* pads = node->add_attribute();
  pads->set_name("pads");
  pads->set_type(::kiln_onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  auto* init = g->add_initializer();
  init->set_name("w");
  init->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  for (int64_t d : {m, c, int64_t{3}, int64_t{3}}) init->add_dims(d);
  for (float v : wt) init->add_float_data(v);
  for (auto [vi, name, channels] :
       {std::tuple{g->add_input(), "x", c}, std::tuple{g->add_output(), "y", m}}) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
    for (int64_t d : {int64_t{1}, channels, h, w}) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  const std::string bytes = proto.SerializeAsString();
  auto run = [&](const char* bf16) { return RunBf16(bytes, bf16, {1, c, h, w}, x); };
  const std::vector<float> plain = run("0"), half = run("1");
  const auto round = [](float v) { return BFloat16::FromFloat(v).ToFloat(); };
  size_t differ = 0;
  for (int64_t f = 0; f < m; ++f) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        double exact = 0, rounded = 0, mag = 0;
        for (int64_t ch = 0; ch < c; ++ch) {
          for (int64_t r = 0; r < 3; ++r) {
            for (int64_t t = 0; t < 3; ++t) {
              const int64_t y = i + r - 1, xx = j + t - 1;
              if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
              const float a = x[static_cast<size_t>((ch * h + y) * w + xx)];
              const float b = wt[static_cast<size_t>(((f * c + ch) * 3 + r) * 3 + t)];
              exact += static_cast<double>(a) * b;
              rounded += static_cast<double>(round(a)) * round(b);
              mag += std::abs(static_cast<double>(a) * b);
            }
          }
        }
        const auto at = static_cast<size_t>((f * h + i) * w + j);
        EXPECT_NEAR(plain[at], exact, 1e-5 * mag) << at;
        EXPECT_NEAR(half[at], rounded, 1e-5 * mag) << at;
        differ += plain[at] != half[at] ? 1 : 0;
      }
    }
  }
  EXPECT_GT(differ, static_cast<size_t>(m * h * w / 2));  // the bf16 path ran
}

}  // namespace
}  // namespace kiln::runtime
