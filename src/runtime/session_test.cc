#include "runtime/session.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "kernels/test_util.h"
#include "onnx/loader.h"

namespace kiln::runtime {
namespace {

// y = <op>(x) over float [2] at `opset`, with whatever attributes the caller adds.
::onnx::ModelProto UnaryModel(const std::string& op, int64_t opset) {
  ::onnx::ModelProto m;
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
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  return m;
}

std::unique_ptr<Session> Create(const ::onnx::ModelProto& m, const std::string& dir = "") {
  const std::string bytes = m.SerializeAsString();
  return std::make_unique<Session>(onnx::LoadModelBytes(bytes.data(), bytes.size(), dir),
                                   SessionOptions());
}

void ExpectCreateError(const ::onnx::ModelProto& m, ErrorCode code,
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
  ::onnx::ModelProto m = UnaryModel("LeakyRelu", 16);
  auto* a = m.mutable_graph()->mutable_node(0)->add_attribute();
  a->set_name("alpha");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(2);
  ExpectCreateError(m, ErrorCode::kInvalidGraph,
                    {"node 'n0' (LeakyRelu)", "attribute 'alpha'", "float", "int"});
}

TEST(Session, UnsupportedOpAndOpsetNameNodeOpDomainAndOpset) {
  ExpectCreateError(UnaryModel("NoSuchOp", 17), ErrorCode::kNotImplemented,
                    {"node 'n0' (NoSuchOp)", "ai.onnx", "opset 17"});
  ExpectCreateError(UnaryModel("Relu", 40), ErrorCode::kNotImplemented,
                    {"node 'n0' (Relu)", "opset 40", "ai.onnx"});
  ::onnx::ModelProto custom = UnaryModel("Thing", 17);
  custom.mutable_graph()->mutable_node(0)->set_domain("com.example");
  auto* op = custom.add_opset_import();
  op->set_domain("com.example");
  op->set_version(3);
  ExpectCreateError(custom, ErrorCode::kNotImplemented,
                    {"node 'n0' (Thing)", "com.example", "opset 3"});
}

TEST(Session, RunsAndFreesIntermediates) {
  ::onnx::ModelProto m = UnaryModel("Relu", 14);
  auto session = Create(m);
  std::vector<std::string> in_names = {"x"}, out_names = {"y"};
  std::vector<Value> in = {Value(testing::MakeTensor<float>({2}, {-1, 2}))};
  std::vector<std::shared_ptr<Tensor>> out(1);
  std::vector<Value> others(1);
  session->Run(RunOptions(), in_names, in, out_names, out, others);
  EXPECT_EQ(testing::Values<float>(*out[0]), (std::vector<float>{0, 2}));
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
  ::onnx::ModelProto m = UnaryModel("Shape", 15);
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "w");
  g->clear_input();
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      ::onnx::TensorProto::INT64);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(kElements);
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
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

}  // namespace
}  // namespace kiln::runtime
