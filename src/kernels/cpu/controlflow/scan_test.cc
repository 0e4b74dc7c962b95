#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include "kernels/test_util.h"
#include "onnx/loader.h"
#include "runtime/session.h"

namespace kiln::testing {
namespace {

void AddIo(::kiln_onnx::ValueInfoProto* vi, const std::string& name) {
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
}

// A Scan whose body adds each step's slice to a running sum and emits the sum:
// inputs (sequence_lens for opset 8,) init, x; outputs final, sums.
::kiln_onnx::ModelProto SumModel(int opset,
                                 const std::vector<std::pair<std::string, int64_t>>& lists) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  auto* g = m.mutable_graph();
  AddIo(g->add_input(), "init");
  AddIo(g->add_input(), "x");
  AddIo(g->add_output(), "final");
  AddIo(g->add_output(), "sums");
  auto* n = g->add_node();
  n->set_name("scan");
  n->set_op_type("Scan");
  if (opset == 8) n->add_input("");
  n->add_input("init");
  n->add_input("x");
  n->add_output("final");
  n->add_output("sums");
  auto* num = n->add_attribute();
  num->set_name("num_scan_inputs");
  num->set_type(::kiln_onnx::AttributeProto::INT);
  num->set_i(1);
  for (const auto& [name, v] : lists) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::kiln_onnx::AttributeProto::INTS);
    a->add_ints(v);
  }
  auto* body = n->add_attribute();
  body->set_name("body");
  body->set_type(::kiln_onnx::AttributeProto::GRAPH);
  auto* b = body->mutable_g();
  AddIo(b->add_input(), "s_in");
  AddIo(b->add_input(), "next");
  AddIo(b->add_output(), "s_out");
  AddIo(b->add_output(), "emit");
  auto* add = b->add_node();
  add->set_op_type("Add");
  add->add_input("s_in");
  add->add_input("next");
  add->add_output("s_out");
  auto* id = b->add_node();
  id->set_op_type("Identity");
  id->add_input("s_out");
  id->add_output("emit");
  return m;
}

std::vector<std::shared_ptr<Tensor>> RunModel(const ::kiln_onnx::ModelProto& m, Value init,
                                              Value x) {
  const std::string bytes = m.SerializeAsString();
  runtime::Session session(::kiln::onnx::LoadModelBytes(bytes.data(), bytes.size(), ""),
                           runtime::SessionOptions());
  std::vector<std::shared_ptr<Tensor>> out(2);
  std::vector<Value> others(2);
  const std::vector<std::string> in_names = {"init", "x"};
  const std::vector<std::string> out_names = {"final", "sums"};
  const std::vector<Value> in = {std::move(init), std::move(x)};
  session.Run(runtime::RunOptions(), in_names, in, out_names, out, others);
  return out;
}

TEST(ControlFlowScan, Opset9ReversedInputAlongAxisOne) {
  // x [2, 3] scanned along axis 1 from the end: steps [3, 6], [2, 5], [1, 4].
  auto out =
      RunModel(SumModel(9, {{"scan_input_axes", 1}, {"scan_input_directions", 1}}),
               MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{6, 15}));
  EXPECT_EQ(out[1]->shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>(*out[1]), (std::vector<float>{3, 6, 5, 11, 6, 15}));
}

TEST(ControlFlowScan, Opset9OutputAxisAndDirection) {
  auto out = RunModel(SumModel(11, {{"scan_output_axes", -1}, {"scan_output_directions", 1}}),
                      MakeTensor<float>({1}, {10}), MakeTensor<float>({3, 1}, {1, 2, 3}));
  EXPECT_EQ(out[1]->shape(), Shape({1, 3}));
  EXPECT_EQ(Values<float>(*out[1]), (std::vector<float>{16, 13, 11}));
}

TEST(ControlFlowScan, Opset8ScansEachBatchEntry) {
  auto out = RunModel(SumModel(8, {}), MakeTensor<float>({2, 1}, {0, 100}),
                      MakeTensor<float>({2, 2, 1}, {1, 2, 3, 4}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{3, 107}));
  EXPECT_EQ(out[1]->shape(), Shape({2, 2, 1}));
  EXPECT_EQ(Values<float>(*out[1]), (std::vector<float>{1, 3, 103, 107}));
}

TEST(ControlFlowScan, Errors) {
  auto expect_error = [](const ::kiln_onnx::ModelProto& m, Value init, Value x,
                         const char* needle) {
    try {
      RunModel(m, std::move(init), std::move(x));
      ADD_FAILURE() << "no error; expected " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(SumModel(9, {{"scan_input_axes", 2}}), MakeTensor<float>({1}, {0}),
               MakeTensor<float>({3, 1}, {1, 2, 3}), "scan_input_axes");
  ::kiln_onnx::ModelProto lists = SumModel(9, {});
  auto* extra = lists.mutable_graph()->mutable_node(0)->add_attribute();
  extra->set_name("scan_output_axes");
  extra->set_type(::kiln_onnx::AttributeProto::INTS);
  extra->add_ints(0);
  extra->add_ints(0);
  expect_error(lists, MakeTensor<float>({1}, {0}), MakeTensor<float>({3, 1}, {1, 2, 3}),
               "'scan_output_axes' has 2 entries");
  expect_error(SumModel(8, {}), MakeTensor<float>({2, 1}, {0, 0}),
               MakeTensor<float>({3, 2, 1}, {1, 2, 3, 4, 5, 6}), "batch size");
}

}  // namespace
}  // namespace kiln::testing
