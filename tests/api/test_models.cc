#include "test_models.h"

#include <onnx/onnx_pb.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln_test::models {
namespace {

::onnx::ModelProto NewModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  return m;
}

// Declares a tensor input or output. A negative dimension is the symbolic dimension "batch".
void Declare(::onnx::ValueInfoProto* vi, const char* name, int32_t elem_type,
             std::initializer_list<int64_t> dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param("batch");
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

void AddNode(::onnx::GraphProto* g, const char* name, const char* op_type, const char* domain,
             const char* input, const char* output) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op_type);
  n->set_domain(domain);
  n->add_input(input);
  n->add_output(output);
}

// Declares a tensor type (a negative dimension is "batch") inside a sequence or optional type.
void DeclareTensor(::onnx::TypeProto* type, int32_t elem_type,
                   std::initializer_list<int64_t> dims) {
  auto* t = type->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param("batch");
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

void DeclareSequence(::onnx::ValueInfoProto* vi, const char* name) {
  vi->set_name(name);
  DeclareTensor(vi->mutable_type()->mutable_sequence_type()->mutable_elem_type(),
                ::onnx::TensorProto::FLOAT, {-1, 2});
}

void DeclareOptional(::onnx::ValueInfoProto* vi, const char* name) {
  vi->set_name(name);
  DeclareTensor(vi->mutable_type()->mutable_optional_type()->mutable_elem_type(),
                ::onnx::TensorProto::INT64, {3});
}

}  // namespace

std::string BoolIdentity() {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("bool_identity");
  AddNode(g, "copy", "Identity", "", "x", "y");
  Declare(g->add_input(), "x", ::onnx::TensorProto::BOOL, {-1});
  Declare(g->add_output(), "y", ::onnx::TensorProto::BOOL, {-1});
  return m.SerializeAsString();
}

std::string Identity() {
  ::onnx::ModelProto m = NewModel();
  m.set_producer_name(kProducerName);
  m.set_producer_version(kProducerVersion);
  m.set_domain(kDomain);
  m.set_doc_string(kDescription);
  m.set_model_version(kModelVersion);
  for (size_t i = 0; i < 2; ++i) {
    auto* kv = m.add_metadata_props();
    kv->set_key(kKeys[i]);
    kv->set_value(kValues[i]);
  }
  auto* g = m.mutable_graph();
  g->set_name(kGraphName);
  g->set_doc_string(kGraphDescription);
  AddNode(g, kNodeName, "Identity", "", "x", "y");
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 2});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 2});
  return m.SerializeAsString();
}

std::string TwoOutputs() {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("two_outputs");
  AddNode(g, "copy_a", "Identity", "", "a", "a_copy");
  AddNode(g, "copy_b", "Identity", "", "b", "b_copy");
  Declare(g->add_input(), "a", ::onnx::TensorProto::FLOAT, {-1, 2});
  Declare(g->add_input(), "b", ::onnx::TensorProto::INT64, {3});
  Declare(g->add_output(), "a_copy", ::onnx::TensorProto::FLOAT, {-1, 2});
  Declare(g->add_output(), "b_copy", ::onnx::TensorProto::INT64, {3});
  return m.SerializeAsString();
}

std::string UnknownOp() {
  ::onnx::ModelProto m = NewModel();
  auto* op = m.add_opset_import();
  op->set_domain(kUnknownOpDomain);
  op->set_version(kUnknownOpOpset);
  auto* g = m.mutable_graph();
  g->set_name("unknown_op");
  AddNode(g, kUnknownOpNode, kUnknownOpType, kUnknownOpDomain, "x", "y");
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 2});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 2});
  return m.SerializeAsString();
}

std::string NegChain(int nodes, int64_t elements) {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("neg_chain");
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {elements});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {elements});
  std::string from = "x";
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "neg_" + std::to_string(i);
    const std::string to = i + 1 == nodes ? "y" : name;
    AddNode(g, name.c_str(), "Neg", "", from.c_str(), to.c_str());
    from = to;
  }
  return m.SerializeAsString();
}

std::string SequencePassThrough() {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("sequence_pass_through");
  Declare(g->add_input(), "cond", ::onnx::TensorProto::BOOL, {});
  DeclareSequence(g->add_input(), "s");
  DeclareOptional(g->add_input(), "o");
  auto* n = g->add_node();
  n->set_name("pick");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("s_out");
  n->add_output("o_out");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(::onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(branch);
    DeclareSequence(body->add_output(), "s");
    DeclareOptional(body->add_output(), "o");
  }
  DeclareSequence(g->add_output(), "s_out");
  DeclareOptional(g->add_output(), "o_out");
  return m.SerializeAsString();
}

std::string Initializers(int64_t ir_version) {
  ::onnx::ModelProto m = NewModel();
  m.set_ir_version(ir_version);
  auto* g = m.mutable_graph();
  g->set_name("initializers");
  for (auto [name, values] : {std::pair{"w", kDefaultW}, std::pair{"c", kConstantC}}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    t->add_dims(2);
    for (int i = 0; i < 2; ++i) t->add_float_data(values[i]);
  }
  for (auto [node, other, out] : {std::tuple{"add_w", "w", "y"}, std::tuple{"add_c", "c", "z"}}) {
    auto* n = g->add_node();
    n->set_name(node);
    n->set_op_type("Add");
    n->add_input("x");
    n->add_input(other);
    n->add_output(out);
  }
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {2});
  Declare(g->add_input(), "w", ::onnx::TensorProto::FLOAT, {2});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {2});
  Declare(g->add_output(), "z", ::onnx::TensorProto::FLOAT, {2});
  return m.SerializeAsString();
}

std::string Denoted() {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("denoted");
  AddNode(g, kNodeName, "Identity", "", "x", "y");
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 2, 3});
  auto* dims = g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_denotation("DATA_BATCH");
  dims->mutable_dim(1)->set_denotation("DATA_CHANNEL");
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 2, 3});
  return m.SerializeAsString();
}

std::string CustomOp(const std::string& domain, const std::string& op_type, const std::string& node,
                     const std::vector<std::pair<std::string, std::string>>& string_attributes) {
  ::onnx::ModelProto m = NewModel();
  auto* op = m.add_opset_import();
  op->set_domain(domain);
  op->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("custom_op");
  AddNode(g, node.c_str(), op_type.c_str(), domain.c_str(), "x", "y");
  for (const auto& [name, value] : string_attributes) {
    auto* a = g->mutable_node(0)->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {-1, 2});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {-1, 2});
  return m.SerializeAsString();
}

std::string ConvRelu() {
  ::onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  g->set_name("conv_relu");
  for (auto [name, value, rank] :
       {std::tuple{"w", kConvWeight, 4}, std::tuple{"b", kConvBias, 1}}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int i = 0; i < rank; ++i) t->add_dims(1);
    t->add_float_data(value);
  }
  auto* conv = g->add_node();
  conv->set_name("conv");
  conv->set_op_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_input("b");
  conv->add_output("c");
  AddNode(g, "relu", "Relu", "", "c", "y");
  Declare(g->add_input(), "x", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2});
  Declare(g->add_output(), "y", ::onnx::TensorProto::FLOAT, {1, 1, 2, 2});
  return m.SerializeAsString();
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kiln_api_test_XXXXXX").string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + pattern);
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& bytes) const {
  const std::string file = (std::filesystem::path(path_) / name).string();
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file);
  return file;
}

const TempDir& ScratchDir() {
  static const TempDir dir;
  return dir;
}

const std::string& IdentityModelPath() {
  static const std::string path = ScratchDir().Write("identity.onnx", Identity());
  return path;
}

}  // namespace kiln_test::models
