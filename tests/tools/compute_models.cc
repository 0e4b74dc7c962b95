#include "compute_models.h"

#include <cstring>

namespace kiln::test {
namespace {

onnx::ModelProto Empty(const std::string& name) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  m.mutable_graph()->set_name(name);
  return m;
}

void Declare(onnx::ValueInfoProto* v, const std::string& name, int elem_type,
             const std::vector<std::string>& dims) {
  v->set_name(name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (const std::string& d : dims) {
    onnx::TensorShapeProto_Dimension* dim = shape->add_dim();
    if (d.empty()) continue;
    if (d[0] >= '0' && d[0] <= '9') {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

// A float initializer of seeded values in [-1, 1).
void Weight(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (const int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  std::string bytes(static_cast<size_t>(n) * sizeof(float), '\0');
  uint32_t state = 12345;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float v = static_cast<float>(state >> 8) / static_cast<float>(1 << 24) * 2 - 1;
    std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof v);
  }
  t->set_raw_data(bytes);
}

onnx::NodeProto* Node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                      const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* node = g->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string& in : inputs) node->add_input(in);
  node->add_output(output);
  return node;
}

void Ints(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (const int64_t v : values) a->add_ints(v);
}

}  // namespace

onnx::ModelProto MatMulChainModel(const std::string& batch) {
  onnx::ModelProto m = Empty("matmul_chain");
  onnx::GraphProto* g = m.mutable_graph();
  Declare(g->add_input(), "x", onnx::TensorProto::FLOAT, {batch, "64"});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {batch, "8"});
  Weight(g, "w1", {64, 32});
  Weight(g, "w2", {32, 8});
  Node(g, "MatMul", "mm1", {"x", "w1"}, "h");
  Node(g, "Relu", "act", {"h"}, "a");
  Node(g, "MatMul", "mm2", {"a", "w2"}, "y");
  return m;
}

onnx::ModelProto GroupedConvModel() {
  onnx::ModelProto m = Empty("grouped_conv");
  onnx::GraphProto* g = m.mutable_graph();
  Declare(g->add_input(), "x", onnx::TensorProto::FLOAT, {"1", "16", "32", "32"});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {"1", "32", "32", "32"});
  Weight(g, "w", {32, 8, 3, 3});
  Weight(g, "b", {32});
  onnx::NodeProto* conv = Node(g, "Conv", "conv", {"x", "w", "b"}, "y");
  onnx::AttributeProto* group = conv->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(2);
  Ints(conv, "pads", {1, 1, 1, 1});
  Ints(conv, "kernel_shape", {3, 3});
  return m;
}

onnx::ModelProto SquareMatMulModel(int64_t n) {
  onnx::ModelProto m = Empty("square_matmul");
  onnx::GraphProto* g = m.mutable_graph();
  const std::string d = std::to_string(n);
  Declare(g->add_input(), "x", onnx::TensorProto::FLOAT, {d, d});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {d, d});
  Weight(g, "w", {n, n});
  Node(g, "MatMul", "big", {"x", "w"}, "y");
  return m;
}

onnx::ModelProto LoopMatMulModel(int64_t n, int64_t trips) {
  onnx::ModelProto m = Empty("loop_matmul");
  onnx::GraphProto* g = m.mutable_graph();
  const std::string d = std::to_string(n);
  Declare(g->add_input(), "x", onnx::TensorProto::FLOAT, {d, d});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {d, d});
  Weight(g, "w", {n, n});
  onnx::TensorProto* count = g->add_initializer();
  count->set_name("trips");
  count->set_data_type(onnx::TensorProto::INT64);
  count->add_int64_data(trips);
  onnx::TensorProto* go = g->add_initializer();
  go->set_name("go");
  go->set_data_type(onnx::TensorProto::BOOL);
  go->add_int32_data(1);
  onnx::NodeProto* loop = Node(g, "Loop", "loop", {"trips", "go", "x"}, "y");
  onnx::AttributeProto* body_attribute = loop->add_attribute();
  body_attribute->set_name("body");
  body_attribute->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* body = body_attribute->mutable_g();
  body->set_name("loop_body");
  Declare(body->add_input(), "i", onnx::TensorProto::INT64, {});
  Declare(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  Declare(body->add_input(), "v_in", onnx::TensorProto::FLOAT, {d, d});
  Declare(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  Declare(body->add_output(), "v_out", onnx::TensorProto::FLOAT, {d, d});
  Node(body, "Identity", "body_cond", {"cond_in"}, "cond_out");
  Node(body, "MatMul", "body_mm", {"v_in", "w"}, "v_out");  // w from the outer graph
  return m;
}

onnx::ModelProto GatherTableModel(int64_t rows, int64_t cols) {
  onnx::ModelProto m = Empty("gather_table");
  onnx::GraphProto* g = m.mutable_graph();
  Declare(g->add_input(), "idx", onnx::TensorProto::INT64, {"1"});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {"1", std::to_string(cols)});
  Weight(g, "table", {rows, cols});
  Node(g, "Gather", "gather", {"table", "idx"}, "y");
  return m;
}

onnx::ModelProto FailingReshapeModel() {
  onnx::ModelProto m = Empty("failing_reshape");
  onnx::GraphProto* g = m.mutable_graph();
  Declare(g->add_input(), "x", onnx::TensorProto::FLOAT, {"batch", "6"});
  Declare(g->add_output(), "y", onnx::TensorProto::FLOAT, {"7"});
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(1);
  shape->add_int64_data(7);
  Node(g, "Reshape", "reshape", {"x", "shape"}, "y");
  return m;
}

}  // namespace kiln::test
