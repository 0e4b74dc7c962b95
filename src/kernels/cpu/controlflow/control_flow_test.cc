#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include "kernels/test_util.h"
#include "onnx/loader.h"
#include "runtime/session.h"

namespace kiln::testing {
namespace {

void AddIdentity(::kiln_onnx::GraphProto* g, const std::string& in, const std::string& out) {
  auto* n = g->add_node();
  n->set_name("id_" + out);
  n->set_op_type("Identity");
  n->add_input(in);
  n->add_output(out);
}

void AddTensorIo(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

std::shared_ptr<runtime::Session> Load(const ::kiln_onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return std::make_shared<runtime::Session>(
      ::kiln::onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), runtime::SessionOptions());
}

::kiln_onnx::ModelProto Model() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_version(17);
  return m;
}

TEST(ControlFlowIf, RunsTheBranchTheConditionPicksWithCapturedValues) {
  ::kiln_onnx::ModelProto m = Model();
  auto* g = m.mutable_graph();
  AddTensorIo(g->add_input(), "cond", ::kiln_onnx::TensorProto::BOOL);
  AddTensorIo(g->add_input(), "a", ::kiln_onnx::TensorProto::FLOAT);
  AddTensorIo(g->add_input(), "b", ::kiln_onnx::TensorProto::FLOAT);
  AddTensorIo(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT);
  auto* n = g->add_node();
  n->set_name("if");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("y");
  for (auto [attr, source] : {std::pair{"then_branch", "a"}, std::pair{"else_branch", "b"}}) {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(::kiln_onnx::AttributeProto::GRAPH);
    AddIdentity(a->mutable_g(), source, "out");
    AddTensorIo(a->mutable_g()->add_output(), "out", ::kiln_onnx::TensorProto::FLOAT);
  }
  auto session = Load(m);
  for (bool c : {true, false}) {
    std::vector<Value> in = {MakeTensor<bool>({}, {c}), MakeTensor<float>({2}, {1, 2}),
                             MakeTensor<float>({3}, {7, 8, 9})};
    std::vector<std::string> in_names = {"cond", "a", "b"};
    std::vector<std::string> out_names = {"y"};
    std::vector<std::shared_ptr<Tensor>> out(1);
    std::vector<Value> others(1);
    session->Run(runtime::RunOptions(), in_names, in, out_names, out, others);
    EXPECT_EQ(Values<float>(*out[0]),
              c ? (std::vector<float>{1, 2}) : (std::vector<float>{7, 8, 9}));
  }
}

TEST(ControlFlowLoop, CarriesStateAndStacksScanOutputs) {
  ::kiln_onnx::ModelProto m = Model();
  auto* g = m.mutable_graph();
  AddTensorIo(g->add_input(), "M", ::kiln_onnx::TensorProto::INT64);
  AddTensorIo(g->add_input(), "v", ::kiln_onnx::TensorProto::FLOAT);
  AddTensorIo(g->add_output(), "v_final", ::kiln_onnx::TensorProto::FLOAT);
  AddTensorIo(g->add_output(), "iters", ::kiln_onnx::TensorProto::INT64);
  auto* n = g->add_node();
  n->set_name("loop");
  n->set_op_type("Loop");
  n->add_input("M");
  n->add_input("");
  n->add_input("v");
  n->add_output("v_final");
  n->add_output("iters");
  auto* a = n->add_attribute();
  a->set_name("body");
  a->set_type(::kiln_onnx::AttributeProto::GRAPH);
  auto* body = a->mutable_g();
  AddTensorIo(body->add_input(), "i", ::kiln_onnx::TensorProto::INT64);
  AddTensorIo(body->add_input(), "c", ::kiln_onnx::TensorProto::BOOL);
  AddTensorIo(body->add_input(), "v_in", ::kiln_onnx::TensorProto::FLOAT);
  AddIdentity(body, "c", "c_out");
  AddIdentity(body, "v_in", "v_out");
  AddIdentity(body, "i", "i_out");
  AddTensorIo(body->add_output(), "c_out", ::kiln_onnx::TensorProto::BOOL);
  AddTensorIo(body->add_output(), "v_out", ::kiln_onnx::TensorProto::FLOAT);
  AddTensorIo(body->add_output(), "i_out", ::kiln_onnx::TensorProto::INT64);
  auto session = Load(m);
  std::vector<Value> in = {MakeTensor<int64_t>({}, {3}), MakeTensor<float>({2}, {4, 5})};
  std::vector<std::string> in_names = {"M", "v"};
  std::vector<std::string> out_names = {"v_final", "iters"};
  std::vector<std::shared_ptr<Tensor>> out(2);
  std::vector<Value> others(2);
  session->Run(runtime::RunOptions(), in_names, in, out_names, out, others);
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{4, 5}));
  EXPECT_EQ(out[1]->shape(), Shape({3}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (std::vector<int64_t>{0, 1, 2}));
  // A non-scalar cond is an error naming the node.
  std::vector<Value> bad = {MakeTensor<int64_t>({2}, {3, 3}), MakeTensor<float>({2}, {4, 5})};
  try {
    session->Run(runtime::RunOptions(), in_names, bad, out_names, out, others);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'loop' (Loop)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
