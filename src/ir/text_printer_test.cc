#include "ir/text_printer.h"

#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "onnx/loader.h"

namespace kiln::ir {
namespace {

// Kiln's text of a model is pinned in src/ir/testdata/text_printer/<name>.txt, which
// src/ir/testdata/check_text_with_onnx.py also parses with ONNX's own parser (an outside check
// that the text is ONNX's syntax; ctest's text_printer_parses_with_onnx). KILN_REWRITE_TEXT=1
// rewrites the files instead of comparing.
void ExpectText(const ::kiln_onnx::ModelProto& proto, const std::string& name,
                const TextOptions& options = {}) {
  const std::string bytes = proto.SerializeAsString();
  const Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  const std::string text = ModelToText(model, options);
  const std::string path =
      std::string(KILN_SOURCE_DIR) + "/src/ir/testdata/text_printer/" + name + ".txt";
  const char* rewrite = std::getenv("KILN_REWRITE_TEXT");
  if (rewrite != nullptr && std::string(rewrite) == "1") {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, want) << "printed:\n" << text;
  // Printed in pieces, the same text.
  std::string pieces;
  size_t count = 0;
  PrintModel(model, options, [&](std::string_view p) {
    pieces += p;
    ++count;
  });
  EXPECT_EQ(pieces, text);
  EXPECT_GT(count, 1u);
}

::kiln_onnx::ValueInfoProto* TensorInfo(::kiln_onnx::ValueInfoProto* vi, const std::string& name,
                                        int elem, std::initializer_list<const char*> dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (const char* d : dims) {
    auto* dim = shape->add_dim();
    if (d[0] >= '0' && d[0] <= '9') {
      dim->set_dim_value(std::stoll(d));
    } else if (d[0] != '?') {
      dim->set_dim_param(d);
    }
  }
  return vi;
}

::kiln_onnx::NodeProto* AddNode(::kiln_onnx::GraphProto* g, const std::string& op,
                                std::initializer_list<const char*> inputs,
                                std::initializer_list<const char*> outputs,
                                const std::string& domain = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  for (const char* i : inputs) n->add_input(i);
  for (const char* o : outputs) n->add_output(o);
  return n;
}

::kiln_onnx::ModelProto Base() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.set_producer_name("kiln-test");
  m.mutable_graph()->set_name("g");
  return m;
}

TEST(TextPrinter, WritesTypesShapesInitializersAndNodes) {
  ::kiln_onnx::ModelProto m = Base();
  m.set_model_version(3);
  auto* g = m.mutable_graph();
  TensorInfo(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"N", "2"});
  TensorInfo(g->add_input(), "flag", ::kiln_onnx::TensorProto::BOOL, {});
  TensorInfo(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {"N", "?"});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_dims(3);
  for (float v : {1.0f, -2.5f, 0.125f, 3.0f, 1e-7f, 100.0f}) w->add_float_data(v);
  auto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(::kiln_onnx::TensorProto::INT64);
  b->add_dims(3);
  for (int64_t v : {1, -2, 3}) b->add_int64_data(v);
  AddNode(g, "MatMul", {"x", "w"}, {"t"});
  AddNode(g, "Cast", {"b"}, {"bf"})->add_attribute()->CopyFrom([] {
    ::kiln_onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(::kiln_onnx::AttributeProto::INT);
    a.set_i(1);
    return a;
  }());
  AddNode(g, "Add", {"t", "bf"}, {"y"});
  ExpectText(m, "matmul_add");
}

TEST(TextPrinter, WritesEveryAttributeKindACustomDomainAndLeftOutInputs) {
  ::kiln_onnx::ModelProto m = Base();
  auto* custom = m.add_opset_import();
  custom->set_domain("ai.kiln.example");
  custom->set_version(1);
  auto* g = m.mutable_graph();
  TensorInfo(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"2", "3"});
  TensorInfo(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {"2", "3"});
  TensorInfo(g->add_output(), "z", ::kiln_onnx::TensorProto::FLOAT, {"3", "2"});
  auto* op = AddNode(g, "MulAddRelu", {"x", "x", "x"}, {"y"}, "ai.kiln.example");
  auto attr = [&](::kiln_onnx::NodeProto* n, const char* name,
                  ::kiln_onnx::AttributeProto::AttributeType t) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(t);
    return a;
  };
  attr(op, "alpha", ::kiln_onnx::AttributeProto::FLOAT)->set_f(0.1f);
  attr(op, "count", ::kiln_onnx::AttributeProto::INT)->set_i(-4);
  attr(op, "label", ::kiln_onnx::AttributeProto::STRING)->set_s("a label");
  auto* fs = attr(op, "scales", ::kiln_onnx::AttributeProto::FLOATS);
  fs->add_floats(1.0f);
  fs->add_floats(2.5f);
  auto* is = attr(op, "axes", ::kiln_onnx::AttributeProto::INTS);
  is->add_ints(0);
  is->add_ints(-1);
  auto* ss = attr(op, "names", ::kiln_onnx::AttributeProto::STRINGS);
  ss->add_strings("p");
  ss->add_strings("q");
  auto* c = AddNode(g, "Constant", {}, {"perm_f"});
  auto* tv = attr(c, "value", ::kiln_onnx::AttributeProto::TENSOR)->mutable_t();
  tv->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  tv->add_dims(2);
  tv->add_float_data(1.5f);
  tv->add_float_data(2.0f);
  attr(AddNode(g, "Transpose", {"y"}, {"z0"}), "perm", ::kiln_onnx::AttributeProto::INTS)
      ->mutable_ints()
      ->Add(1);
  g->mutable_node(2)->mutable_attribute(0)->add_ints(0);
  AddNode(g, "Clip", {"z0", "", "perm_f"}, {"z1"});  // min left out
  AddNode(g, "Identity", {"z1"}, {"z"});
  ExpectText(m, "attributes");
}

TEST(TextPrinter, WritesSubgraphsAsAttributes) {
  ::kiln_onnx::ModelProto m = Base();
  auto* g = m.mutable_graph();
  TensorInfo(g->add_input(), "c", ::kiln_onnx::TensorProto::BOOL, {});
  TensorInfo(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"2"});
  TensorInfo(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {"2"});
  auto* n = AddNode(g, "If", {"c"}, {"y"});
  for (auto [name, op] : {std::pair{"then_branch", "Identity"}, std::pair{"else_branch", "Neg"}}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::kiln_onnx::AttributeProto::GRAPH);
    auto* b = a->mutable_g();
    b->set_name(std::string(name) + "_g");
    const std::string out = std::string(op) + "_out";
    AddNode(b, op, {"x"}, {out.c_str()});
    TensorInfo(b->add_output(), out, ::kiln_onnx::TensorProto::FLOAT, {"2"});
  }
  ExpectText(m, "if");
}

TEST(TextPrinter, ElidesLargeInitializersAndQuotesNamesThatAreNotIdentifiers) {
  ::kiln_onnx::ModelProto m = Base();
  auto* g = m.mutable_graph();
  TensorInfo(g->add_input(), "/input:0", ::kiln_onnx::TensorProto::FLOAT, {"4"});
  TensorInfo(g->add_output(), "out put", ::kiln_onnx::TensorProto::FLOAT, {"4"});
  auto* w = g->add_initializer();
  w->set_name("weights.big");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->add_dims(4);
  for (int i = 0; i < 4; ++i) w->add_float_data(static_cast<float>(i));
  auto* s = g->add_initializer();
  s->set_name("small");
  s->set_data_type(::kiln_onnx::TensorProto::STRING);
  s->add_dims(1);
  s->add_string_data("say \"hi\"\\");
  AddNode(g, "Add", {"/input:0", "weights.big"}, {"out put"});
  TextOptions o;
  o.elide_above = 2;
  ExpectText(m, "elided", o);
}

// Names the parser would read as numbers are quoted.
TEST(TextPrinter, QuotesNamesThatReadAsNumbers) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 17;
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  g.name() = "g";
  Value* inf = g.AddValue("inf");
  inf->type().kind = ValueKind::kTensor;
  inf->type().elem = DataType::kFloat;
  g.inputs().push_back(inf);
  Value* nan = g.AddValue("nan");
  nan->type() = inf->type();
  Node* n = g.AddNode("neg", "Neg", "");
  g.Connect(n, {inf}, {nan});
  g.outputs().push_back(nan);
  const std::string text = ModelToText(m);
  EXPECT_NE(text.find("float[] \"inf\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"nan\" = Neg (\"inf\")"), std::string::npos) << text;
}

// Bytes that are not UTF-8 (a string attribute holds bytes) are escaped, so the text stays
// UTF-8; valid UTF-8 is written as it is.
TEST(TextPrinter, EscapesBytesThatAreNotUtf8) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 17;
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  g.name() = "g";
  Value* x = g.AddValue("x");
  x->type().kind = ValueKind::kTensor;
  x->type().elem = DataType::kFloat;
  g.inputs().push_back(x);
  Value* y = g.AddValue("y");
  Node* n = g.AddNode("n", "Identity", "");
  Attribute a;
  a.name = "note";
  a.type = AttrType::kString;
  a.s = std::string("caf\xc3\xa9 \xff\xc3 \x01", 10);
  n->attributes().push_back(a);
  g.Connect(n, {x}, {y});
  g.outputs().push_back(y);
  const std::string text = ModelToText(m);
  EXPECT_NE(text.find("\"caf\xc3\xa9 \\xff\\xc3 \\x01\""), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::ir
