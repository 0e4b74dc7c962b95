#include "onnx/loader.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"

namespace kiln::onnx {
namespace {

// y = Identity(x) over float [2], plus whatever a test adds.
::onnx::ModelProto IdentityModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("kiln-test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_name("id");
  n->set_op_type("Identity");
  n->add_input("x");
  n->add_output("y");
  for (auto* vi : {g->add_input(), g->add_output()}) {
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("batch");
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  g->mutable_input(0)->set_name("x");
  g->mutable_output(0)->set_name("y");
  return m;
}

ir::Model Load(const ::onnx::ModelProto& m, const std::string& dir = "") {
  const std::string bytes = m.SerializeAsString();
  return LoadModelBytes(bytes.data(), bytes.size(), dir);
}

// Loads `m` and expects `code` with every fragment in the message.
void ExpectLoadError(const ::onnx::ModelProto& m, ErrorCode code,
                     std::initializer_list<const char*> fragments, const std::string& dir = "") {
  try {
    Load(m, dir);
    ADD_FAILURE() << "loaded without error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "'" << f << "' not in: " << e.what();
    }
  }
}

TEST(Loader, ReadsGraphTypesAndMetadata) {
  ::onnx::ModelProto m = IdentityModel();
  auto* kv = m.add_metadata_props();
  kv->set_key("author");
  kv->set_value("kiln");
  ir::Model model = Load(m);
  EXPECT_EQ(model.producer_name, "kiln-test");
  EXPECT_EQ(model.metadata.at("author"), "kiln");
  EXPECT_EQ(model.opsets.at(""), 17);
  ASSERT_EQ(model.graph->inputs().size(), 1u);
  const ir::TypeInfo& t = model.graph->inputs()[0]->type();
  EXPECT_EQ(t.elem, DataType::kFloat);
  ASSERT_TRUE(t.shape.has_value());
  EXPECT_EQ(t.shape->dims(), (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(t.shape->symbols()[0], "batch");
  EXPECT_EQ(model.graph->nodes()[0]->opset(), 17);
}

TEST(Loader, EveryInitializerEncoding) {
  ::onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  auto* typed = g->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(::onnx::TensorProto::INT64);
  typed->add_dims(2);
  typed->add_int64_data(7);
  typed->add_int64_data(-8);
  auto* raw = g->add_initializer();
  raw->set_name("raw");
  raw->set_data_type(::onnx::TensorProto::FLOAT);
  raw->add_dims(1);
  const float v = 2.5f;
  raw->set_raw_data(std::string(reinterpret_cast<const char*>(&v), sizeof v));
  auto* half = g->add_initializer();
  half->set_name("half");
  half->set_data_type(::onnx::TensorProto::FLOAT16);
  half->add_dims(1);
  half->add_int32_data(0x3c00);
  ir::Model model = Load(m);
  const auto* t = model.graph->FindValue("typed")->initializer().get();
  EXPECT_EQ(static_cast<const int64_t*>(t->data())[1], -8);
  EXPECT_EQ(*static_cast<const float*>(model.graph->FindValue("raw")->initializer()->data()), 2.5f);
  EXPECT_EQ(*static_cast<const uint16_t*>(model.graph->FindValue("half")->initializer()->data()),
            0x3c00);
}

TEST(Loader, ExternalDataInsideTheFolderOnly) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("kiln_loader_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  const float data[3] = {1, 2, 3};
  {
    std::ofstream out(dir / "sub" / "w.bin", std::ios::binary);
    out.write("PAD!", 4);
    out.write(reinterpret_cast<const char*>(data), sizeof data);
  }
  auto with_external = [](const std::string& location, const std::string& offset) {
    ::onnx::ModelProto m = IdentityModel();
    auto* w = m.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(::onnx::TensorProto::FLOAT);
    w->add_dims(3);
    w->set_data_location(::onnx::TensorProto::EXTERNAL);
    auto* loc = w->add_external_data();
    loc->set_key("location");
    loc->set_value(location);
    auto* off = w->add_external_data();
    off->set_key("offset");
    off->set_value(offset);
    return m;
  };
  ir::Model model = Load(with_external("sub/w.bin", "4"), dir.string());
  const auto* w = static_cast<const float*>(model.graph->FindValue("w")->initializer()->data());
  EXPECT_EQ(w[2], 3.0f);
  ExpectLoadError(with_external("../escape.bin", "0"), ErrorCode::kInvalidGraph,
                  {"initializer 'w'", "leaves the model's folder"}, (dir / "sub").string());
  ExpectLoadError(with_external("/etc/passwd", "0"), ErrorCode::kInvalidGraph,
                  {"initializer 'w'", "must be relative"}, dir.string());
  ExpectLoadError(with_external("sub/w.bin", "8"), ErrorCode::kInvalidProtobuf,
                  {"initializer 'w'", "runs past its end"}, dir.string());
  ExpectLoadError(with_external("sub/w.bin", "4"), ErrorCode::kInvalidGraph,
                  {"not loaded from a file"}, "");
  fs::remove_all(dir);
}

TEST(Loader, DanglingNameNamesNodeAndInput) {
  ::onnx::ModelProto m = IdentityModel();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  ExpectLoadError(m, ErrorCode::kInvalidGraph, {"node 'id' (Identity)", "'nowhere'"});
}

TEST(Loader, CycleIsRefused) {
  ::onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "z");
  auto* n2 = g->add_node();
  n2->set_name("back");
  n2->set_op_type("Identity");
  n2->add_input("y");
  n2->add_output("z");
  ExpectLoadError(m, ErrorCode::kInvalidGraph, {"cycle"});
}

TEST(Loader, InitializerBytesMustMatchDims) {
  ::onnx::ModelProto m = IdentityModel();
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_raw_data(std::string(12, '\0'));
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "12 bytes", "16"});
  w->clear_raw_data();
  w->add_float_data(1.0f);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "float_data holds 1"});
  w->set_data_type(99);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "data_type 99"});
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->set_dims(0, -4);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "negative"});
}

TEST(Loader, IrVersionsOutsideTheRange) {
  ::onnx::ModelProto m = IdentityModel();
  m.set_ir_version(2);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"IR version 2"});
  m.set_ir_version(14);
  ExpectLoadError(m, ErrorCode::kNotImplemented, {"IR version 14"});
  for (int v = 3; v <= 13; ++v) {
    m.set_ir_version(v);
    EXPECT_NO_THROW(Load(m)) << v;
  }
}

TEST(Loader, UnimportedDomainNamesTheNode) {
  ::onnx::ModelProto m = IdentityModel();
  m.mutable_graph()->mutable_node(0)->set_domain("com.example");
  ExpectLoadError(m, ErrorCode::kInvalidGraph, {"node 'id' (Identity)", "com.example"});
}

TEST(Loader, GarbageAndTruncatedBytes) {
  const std::string bytes = IdentityModel().SerializeAsString();
  for (size_t cut : {size_t{1}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      LoadModelBytes(bytes.data(), cut, "");
      // A cut that happens to land on a field boundary can parse; it must still be consistent.
    } catch (const Error& e) {
      EXPECT_TRUE(e.code() == ErrorCode::kInvalidProtobuf || e.code() == ErrorCode::kInvalidGraph)
          << e.what();
    }
  }
  const std::string garbage = "\xff\xff\xff\xff this is not a model";
  ExpectLoadError(::onnx::ModelProto(), ErrorCode::kInvalidProtobuf, {"IR version 0"});
  EXPECT_THROW(LoadModelBytes(garbage.data(), garbage.size(), ""), Error);
}

TEST(Loader, MissingFileIsNoSuchFile) {
  try {
    LoadModelFile("/nonexistent/model.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoSuchFile);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.onnx"), std::string::npos);
  }
}

TEST(Loader, SubgraphCapturesBecomeImplicitInputs) {
  ::onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(::onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* n = g->add_node();
  n->set_name("if");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("z");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(::onnx::AttributeProto::GRAPH);
    auto* sg = a->mutable_g();
    auto* sn = sg->add_node();
    sn->set_op_type("Identity");
    sn->add_input("y");  // from the outer graph
    sn->add_output("inner");
    sg->add_output()->set_name("inner");
  }
  ir::Model model = Load(m);
  const ir::Node* if_node = model.graph->nodes()[1].get();
  ASSERT_EQ(if_node->implicit_inputs().size(), 1u);
  EXPECT_EQ(if_node->implicit_inputs()[0]->name(), "y");
  std::vector<ir::Node*> order = model.graph->TopologicalOrder();
  EXPECT_EQ(order[0]->name(), "id");
}

}  // namespace
}  // namespace kiln::onnx
