#include "test_models.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kiln::test {
namespace {

void SetType(onnx::ValueInfoProto* v, const IoSpec& spec) {
  v->set_name(spec.name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(spec.elem_type);
  if (!spec.has_shape) return;
  onnx::TensorShapeProto* shape = t->mutable_shape();
  for (const std::string& d : spec.dims) {
    onnx::TensorShapeProto_Dimension* dim = shape->add_dim();
    if (d.empty()) continue;
    if (std::isdigit(static_cast<unsigned char>(d[0])) != 0) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

void AddIdentity(onnx::GraphProto* g, const std::string& in, const std::string& out) {
  onnx::NodeProto* node = g->add_node();
  node->set_op_type("Identity");
  node->set_name("identity_" + in);
  node->add_input(in);
  node->add_output(out);
}

// Sets `type` to tensor(spec.elem_type) of spec's shape.
void SetTensorType(onnx::TypeProto* type, const IoSpec& spec) {
  onnx::ValueInfoProto v;
  SetType(&v, spec);
  *type = v.type();
}

// The three non-tensor values of SequencePassThroughModel, named with `suffix`.
void DeclarePassThrough(onnx::GraphProto* g, bool outputs, const std::string& suffix, int seq_elem,
                        bool seq_shape) {
  auto add = [&](const std::string& name) {
    onnx::ValueInfoProto* v = outputs ? g->add_output() : g->add_input();
    v->set_name(name + suffix);
    return v->mutable_type();
  };
  SetTensorType(add("seq")->mutable_sequence_type()->mutable_elem_type(),
                {"", seq_elem, {"2", "3"}, seq_shape});
  SetTensorType(add("opt")->mutable_optional_type()->mutable_elem_type(),
                {"", onnx::TensorProto::INT64, {"3"}});
  SetTensorType(add("optseq")
                    ->mutable_optional_type()
                    ->mutable_elem_type()
                    ->mutable_sequence_type()
                    ->mutable_elem_type(),
                {"", onnx::TensorProto::FLOAT, {"1"}});
}

}  // namespace

onnx::ModelProto SequencePassThroughModel(int seq_elem, bool seq_shape) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("sequence_pass_through");
  SetType(g->add_input(), {"cond", onnx::TensorProto::BOOL, {}});
  DeclarePassThrough(g, false, "", seq_elem, seq_shape);
  onnx::NodeProto* node = g->add_node();
  node->set_name("pick");
  node->set_op_type("If");
  node->add_input("cond");
  for (const char* out : {"seq_out", "opt_out", "optseq_out"}) node->add_output(out);
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(branch);
    DeclarePassThrough(a->mutable_g(), true, "", seq_elem, seq_shape);
  }
  DeclarePassThrough(g, true, "_out", seq_elem, seq_shape);
  return m;
}

onnx::ModelProto IdentityModel(const std::vector<IoSpec>& inputs) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("identity_graph");
  for (const IoSpec& spec : inputs) {
    SetType(g->add_input(), spec);
    IoSpec out = spec;
    out.name = spec.name + "_out";
    SetType(g->add_output(), out);
    AddIdentity(g, spec.name, out.name);
  }
  return m;
}

onnx::ModelProto RichModel() {
  onnx::ModelProto m = IdentityModel({{"x", onnx::TensorProto::FLOAT, {"batch", "3"}},
                                      {"ids", onnx::TensorProto::INT64, {"2", "seq", ""}}});
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("com.kiln.tests");
  opset->set_version(1);
  m.set_producer_name("kiln-tests");
  m.set_producer_version("1.2");
  m.set_domain("org.kiln.tests");
  m.set_doc_string("A test model");
  m.set_model_version(7);
  for (const auto& [key, value] : {std::pair{"author", "tests"}, std::pair{"license", "MIT"}}) {
    onnx::StringStringEntryProto* p = m.add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  }
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("rich_graph");
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(4);
  for (int i = 0; i < 12; ++i) w->add_float_data(static_cast<float>(i) / 2);
  onnx::TensorProto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::INT64);
  b->add_dims(5);
  for (int i = 0; i < 5; ++i) b->add_int64_data(i - 2);
  SetType(g->add_output(), {"w_out", onnx::TensorProto::FLOAT, {"3", "4"}});
  SetType(g->add_output(), {"b_out", onnx::TensorProto::INT64, {"5"}});
  AddIdentity(g, "w", "w_out");
  AddIdentity(g, "b", "b_out");
  return m;
}

std::string WriteModel(const onnx::ModelProto& model, const std::filesystem::path& path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw std::runtime_error("cannot serialize a model");
  WriteBytes(path, bytes);
  return path.string();
}

std::string NpyBytes(const std::string& header, const std::string& data, int major) {
  std::string h = header;
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  const size_t n = h.size();
  bytes += static_cast<char>(n & 0xff);
  bytes += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    bytes += static_cast<char>((n >> 16) & 0xff);
    bytes += static_cast<char>((n >> 24) & 0xff);
  }
  return bytes + h + data;
}

void WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace kiln::test
