#include "onnx/writer.h"

#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "onnx/loader.h"
#include "onnx/model_compare.h"

namespace kiln::onnx {
namespace {

namespace fs = std::filesystem;

ir::Model Load(const ::kiln_onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return LoadModelBytes(bytes.data(), bytes.size(), "");
}

// load → write → load, in memory.
ir::Model RoundTrip(const ir::Model& m) {
  const std::string bytes = ModelToBytes(m);
  return LoadModelBytes(bytes.data(), bytes.size(), "");
}

// A fresh folder for one test.
fs::path TestDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("kiln_writer_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void SetTensorType(::kiln_onnx::TypeProto* t, int elem, std::vector<std::string> dims) {
  auto* tt = t->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (d == "?") continue;  // neither field: an unknown dimension
    if (!d.empty() && d[0] >= '0' && d[0] <= '9') {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

::kiln_onnx::ModelProto BaseModel() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(9);
  m.set_producer_name("writer-test");
  m.set_producer_version("1.2");
  m.set_domain("org.kiln.test");
  m.set_model_version(7);
  m.set_doc_string("a model");
  auto* kv = m.add_metadata_props();
  kv->set_key("k");
  kv->set_value("v");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("main");
  g->set_doc_string("the graph");
  return m;
}

// x: float [batch, 2, ?] → Identity → y.
::kiln_onnx::ModelProto IdentityModel() {
  ::kiln_onnx::ModelProto m = BaseModel();
  auto* g = m.mutable_graph();
  auto* in = g->add_input();
  in->set_name("x");
  SetTensorType(in->mutable_type(), ::kiln_onnx::TensorProto::FLOAT, {"batch", "2", "?"});
  auto* n = g->add_node();
  n->set_name("id");
  n->set_op_type("Identity");
  n->add_input("x");
  n->add_output("y");
  auto* out = g->add_output();
  out->set_name("y");
  SetTensorType(out->mutable_type(), ::kiln_onnx::TensorProto::FLOAT, {"batch", "2", "?"});
  return m;
}

void ExpectErrorWith(const std::function<void()>& f, ErrorCode code,
                     std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& s : fragments) {
      EXPECT_NE(std::string(e.what()).find(s), std::string::npos)
          << "'" << s << "' not in: " << e.what();
    }
  }
}

TEST(Writer, RoundTripsModelFieldsTypesAndSymbolicDims) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  // Sequence, optional and map inputs, passed through to outputs.
  auto* s = g->add_input();
  s->set_name("s");
  SetTensorType(s->mutable_type()->mutable_sequence_type()->mutable_elem_type(),
                ::kiln_onnx::TensorProto::INT64, {"n"});
  auto* o = g->add_input();
  o->set_name("o");
  SetTensorType(o->mutable_type()->mutable_optional_type()->mutable_elem_type(),
                ::kiln_onnx::TensorProto::FLOAT16, {"3"});
  auto* os = g->add_input();
  os->set_name("os");
  SetTensorType(os->mutable_type()
                    ->mutable_optional_type()
                    ->mutable_elem_type()
                    ->mutable_sequence_type()
                    ->mutable_elem_type(),
                ::kiln_onnx::TensorProto::STRING, {});
  auto* mp = g->add_input();
  mp->set_name("map");
  mp->mutable_type()->mutable_map_type()->set_key_type(::kiln_onnx::TensorProto::INT64);
  for (const char* name : {"s", "o", "os", "map"}) *g->add_output()->mutable_name() = name;
  // A value_info for an intermediate.
  auto* n2 = g->add_node();
  n2->set_op_type("Identity");  // no name: the loader names it
  n2->add_input("y");
  n2->add_output("z");
  auto* vi = g->add_value_info();
  vi->set_name("z");
  SetTensorType(vi->mutable_type(), ::kiln_onnx::TensorProto::FLOAT, {"batch", "2", "5"});
  *g->add_output()->mutable_name() = "z";

  const ir::Model a = Load(m);
  const ir::Model b = RoundTrip(a);
  testing::ExpectSameModel(a, b);
  EXPECT_EQ(b.producer_name, "writer-test");
  EXPECT_EQ(b.metadata.at("k"), "v");
  EXPECT_EQ(b.graph_doc_string, "the graph");
  EXPECT_EQ(b.graph->name(), "main");
  EXPECT_EQ(b.graph->inputs()[0]->type().shape->symbols()[0], "batch");
  EXPECT_EQ(b.graph->inputs()[0]->type().shape->dims()[2], -1);
  EXPECT_EQ(b.graph->inputs()[1]->type().kind, ir::ValueKind::kSequence);
  EXPECT_EQ(b.graph->inputs()[2]->type().contained->elem, DataType::kFloat16);
  EXPECT_EQ(b.graph->inputs()[3]->type().contained->kind, ir::ValueKind::kSequence);
  EXPECT_EQ(b.graph->inputs()[4]->type().kind, ir::ValueKind::kMap);
  EXPECT_EQ(b.graph->FindValue("z")->type().shape->dims()[2], 5);

  // Written again, the bytes are the same: the writer is deterministic and the loader's view
  // is a fixed point.
  EXPECT_EQ(ModelToBytes(a), ModelToBytes(b));
}

::kiln_onnx::GraphProto SmallGraph(const std::string& name, const std::string& in,
                                   const std::string& out) {
  ::kiln_onnx::GraphProto g;
  g.set_name(name);
  auto* n = g.add_node();
  n->set_op_type("Identity");
  n->add_input(in);
  n->add_output(out);
  *g.add_output()->mutable_name() = out;
  return g;
}

TEST(Writer, RoundTripsEveryAttributeType) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* op = m.add_opset_import();
  op->set_domain("com.example");
  op->set_version(3);
  auto* n = m.mutable_graph()->add_node();
  n->set_name("everything");
  n->set_op_type("Everything");
  n->set_domain("com.example");
  n->add_input("x");
  n->add_input("");  // an optional input left out
  n->add_input("y");
  n->add_output("");
  n->add_output("w");
  auto add = [&](const char* name, ::kiln_onnx::AttributeProto::AttributeType type) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  };
  add("f", ::kiln_onnx::AttributeProto::FLOAT)->set_f(-1.5f);
  add("i", ::kiln_onnx::AttributeProto::INT)->set_i(-(int64_t{1} << 40));
  add("s", ::kiln_onnx::AttributeProto::STRING)->set_s(std::string("a\0\xff", 3));
  auto* t = add("t", ::kiln_onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(::kiln_onnx::TensorProto::INT32);
  t->add_dims(2);
  t->add_int32_data(7);
  t->add_int32_data(-8);
  *add("g", ::kiln_onnx::AttributeProto::GRAPH)->mutable_g() = SmallGraph("sub", "x", "gx");
  auto* fl = add("floats", ::kiln_onnx::AttributeProto::FLOATS);
  fl->add_floats(1.0f);
  fl->add_floats(-0.0f);
  auto* is = add("ints", ::kiln_onnx::AttributeProto::INTS);
  is->add_ints(3);
  is->add_ints(-4);
  auto* ss = add("strings", ::kiln_onnx::AttributeProto::STRINGS);
  ss->add_strings("one");
  ss->add_strings("");
  auto* ts = add("tensors", ::kiln_onnx::AttributeProto::TENSORS);
  for (int k = 0; k < 2; ++k) {
    auto* e = ts->add_tensors();
    e->set_data_type(::kiln_onnx::TensorProto::FLOAT);
    e->add_float_data(static_cast<float>(k) + 0.25f);
  }
  auto* gs = add("graphs", ::kiln_onnx::AttributeProto::GRAPHS);
  *gs->add_graphs() = SmallGraph("a", "y", "ga");
  *gs->add_graphs() = SmallGraph("b", "x", "gb");
  auto* sparse = add("sparse", ::kiln_onnx::AttributeProto::SPARSE_TENSOR)->mutable_sparse_tensor();
  sparse->mutable_values()->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(1);
  sparse->mutable_values()->add_float_data(2.5f);
  sparse->mutable_indices()->set_data_type(::kiln_onnx::TensorProto::INT64);
  sparse->mutable_indices()->add_dims(1);
  sparse->mutable_indices()->add_int64_data(3);
  sparse->add_dims(4);
  SetTensorType(add("type", ::kiln_onnx::AttributeProto::TYPE_PROTO)->mutable_tp(),
                ::kiln_onnx::TensorProto::FLOAT, {"N", "2"});
  add("empty_ints", ::kiln_onnx::AttributeProto::INTS);
  *m.mutable_graph()->add_output()->mutable_name() = "w";

  const ir::Model a = Load(m);
  const ir::Model b = RoundTrip(a);
  testing::ExpectSameModel(a, b);
  const ir::Node* node = nullptr;
  for (const auto& nd : b.graph->nodes()) {
    if (nd->op_type() == "Everything") node = nd.get();
  }
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->attributes().size(), 13u);
  EXPECT_EQ(node->FindAttribute("s")->s, std::string("a\0\xff", 3));
  EXPECT_EQ(node->FindAttribute("sparse")->type, ir::AttrType::kSparseTensor);
  ASSERT_NE(node->FindAttribute("sparse")->sparse, nullptr);
  EXPECT_EQ(node->FindAttribute("sparse")->sparse->dims, std::vector<int64_t>{4});
  ASSERT_NE(node->FindAttribute("type")->type_proto, nullptr);
  EXPECT_EQ(node->FindAttribute("type")->type_proto->shape->rank(), 2u);
  EXPECT_EQ(node->FindAttribute("empty_ints")->type, ir::AttrType::kInts);
  EXPECT_EQ(node->inputs()[1], nullptr);
  EXPECT_EQ(node->outputs()[0], nullptr);
  EXPECT_EQ(node->domain(), "com.example");
  EXPECT_EQ(node->opset(), 3);
  // The subgraphs' captures are the node's implicit inputs again.
  EXPECT_EQ(node->implicit_inputs().size(), 2u);
}

// Raw bytes for `count` elements of `type` (valid bools; sub-byte types packed, any bits).
std::string RawBytes(DataType type, size_t count, uint8_t seed) {
  std::string bytes(*StorageBytes(type, count), '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(seed + 37 * i);
  if (type == DataType::kBool) {
    for (char& c : bytes) c = static_cast<char>(c & 1);
  }
  return bytes;
}

TEST(Writer, RoundTripsInitializersOfEveryElementType) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  for (int32_t type = 1; type <= kMaxDataType; ++type) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{5}}) {
      auto* t = g->add_initializer();
      t->set_name("t" + std::to_string(type) + "_" + std::to_string(count));
      t->set_data_type(type);
      if (count != 1) t->add_dims(static_cast<int64_t>(count));  // count 1: a scalar
      if (type == static_cast<int32_t>(DataType::kString)) {
        for (size_t i = 0; i < count; ++i) {
          t->add_string_data(i == 0 ? std::string("\xff\0b", 3) : "s" + std::to_string(i));
        }
      } else {
        t->set_raw_data(RawBytes(static_cast<DataType>(type), count, static_cast<uint8_t>(type)));
      }
      *g->add_output()->mutable_name() = t->name();
    }
  }
  // Typed fields come back as raw_data holding the same values.
  auto* typed = g->add_initializer();
  typed->set_name("typed_f16");
  typed->set_data_type(::kiln_onnx::TensorProto::FLOAT16);
  typed->add_dims(2);
  typed->add_int32_data(0x3c00);
  typed->add_int32_data(0xc000);
  *g->add_output()->mutable_name() = "typed_f16";

  const ir::Model a = Load(m);
  const ir::Model b = RoundTrip(a);
  testing::ExpectSameModel(a, b);
  const ::kiln_onnx::ModelProto written = ModelToProto(a);
  int raw = 0;
  int strings = 0;
  for (const auto& t : written.graph().initializer()) {
    if (t.data_type() == ::kiln_onnx::TensorProto::STRING) {
      EXPECT_FALSE(t.has_raw_data()) << t.name();
      strings += t.string_data_size() > 0 ? 1 : 0;
    } else {
      EXPECT_TRUE(t.has_raw_data()) << t.name();
      ++raw;
    }
  }
  EXPECT_EQ(raw, 3 * (kMaxDataType - 1) + 1);
  EXPECT_EQ(strings, 2);
  const ir::Value* f16 = b.graph->FindValue("typed_f16");
  ASSERT_NE(f16, nullptr);
  EXPECT_EQ(static_cast<const uint16_t*>(f16->initializer()->data())[1], 0xc000);
}

// cond ? (x + a) : (x - a), where x and a are captured; the else branch nests another If.
TEST(Writer, RoundTripsSubgraphsAndTheirCaptures) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  auto* c = g->add_input();
  c->set_name("cond");
  SetTensorType(c->mutable_type(), ::kiln_onnx::TensorProto::BOOL, {});
  auto* a = g->add_initializer();
  a->set_name("a");
  a->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  a->add_float_data(2.0f);
  auto* n = g->add_node();
  n->set_name("pick");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("r");
  auto* then_attr = n->add_attribute();
  then_attr->set_name("then_branch");
  then_attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
  ::kiln_onnx::GraphProto* then_g = then_attr->mutable_g();
  then_g->set_name("then");
  auto* add = then_g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("a");
  add->add_output("sum");
  *then_g->add_output()->mutable_name() = "sum";
  auto* else_attr = n->add_attribute();
  else_attr->set_name("else_branch");
  else_attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
  ::kiln_onnx::GraphProto* else_g = else_attr->mutable_g();
  else_g->set_name("else");
  auto* inner_init = else_g->add_initializer();
  inner_init->set_name("b");
  inner_init->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  inner_init->add_float_data(3.0f);
  auto* nested = else_g->add_node();
  nested->set_op_type("If");
  nested->add_input("cond");
  nested->add_output("d");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* attr = nested->add_attribute();
    attr->set_name(branch);
    attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
    auto* sub = attr->mutable_g();
    auto* s = sub->add_node();
    s->set_op_type("Sub");
    s->add_input("x");  // two levels out
    s->add_input("b");  // one level out
    s->add_output("diff");
    *sub->add_output()->mutable_name() = "diff";
  }
  *else_g->add_output()->mutable_name() = "d";
  *g->add_output()->mutable_name() = "r";

  const ir::Model ma = Load(m);
  const ir::Model mb = RoundTrip(ma);
  testing::ExpectSameModel(ma, mb);
  const ir::Node* pick = mb.graph->FindValue("r")->producer();
  ASSERT_NE(pick, nullptr);
  std::vector<std::string> implicit;
  for (const ir::Value* v : pick->implicit_inputs()) implicit.push_back(v->name());
  // cond: the nested If in the else branch reads it.
  EXPECT_EQ(implicit, (std::vector<std::string>{"x", "a", "cond"}));
  const ir::Graph& else_ir = *pick->FindAttribute("else_branch")->g;
  ASSERT_NE(else_ir.FindValue("b"), nullptr);
  EXPECT_NE(else_ir.FindValue("b")->initializer(), nullptr);
  EXPECT_TRUE(else_ir.FindValue("x")->is_outer());
}

// A model with a 4 KiB, a 64-byte and a 4-byte float initializer and a string one, y = x.
::kiln_onnx::ModelProto WeightsModel() {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  for (const auto& [name, count] :
       std::vector<std::pair<std::string, int>>{{"big", 1024}, {"mid", 16}, {"small", 1}}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::kiln_onnx::TensorProto::FLOAT);
    t->add_dims(count);
    std::string raw(static_cast<size_t>(count) * 4, '\0');
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i * 7 + name.size());
    t->set_raw_data(raw);
    *g->add_output()->mutable_name() = name;
  }
  auto* s = g->add_initializer();
  s->set_name("words");
  s->set_data_type(::kiln_onnx::TensorProto::STRING);
  s->add_dims(300);
  for (int i = 0; i < 300; ++i) s->add_string_data("a word of some length " + std::to_string(i));
  *g->add_output()->mutable_name() = "words";
  return m;
}

::kiln_onnx::ModelProto ReadProto(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  ::kiln_onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromIstream(&in)) << path;
  return m;
}

int ExternalCount(const ::kiln_onnx::ModelProto& m) {
  int n = 0;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() == ::kiln_onnx::TensorProto::EXTERNAL) ++n;
  }
  return n;
}

TEST(Writer, WritesTensorsInlineByDefault) {
  const fs::path dir = TestDir("inline");
  const ir::Model a = Load(WeightsModel());
  WriteModelFile(a, (dir / "m.onnx").string());
  EXPECT_FALSE(fs::exists(dir / "m.onnx.data"));
  EXPECT_EQ(ExternalCount(ReadProto(dir / "m.onnx")), 0);
  testing::ExpectSameModel(a, LoadModelFile((dir / "m.onnx").string()));
  // The file holds what ModelToBytes gives.
  std::ifstream in(dir / "m.onnx", std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(file, ModelToBytes(a));
}

TEST(Writer, WritesLargeTensorsAsExternalDataWhenAsked) {
  const fs::path dir = TestDir("always");
  const ir::Model a = Load(WeightsModel());
  WriteOptions w;
  w.external = ExternalData::kAlways;
  w.external_min_bytes = 64;
  WriteModelFile(a, (dir / "m.onnx").string(), w);
  const ::kiln_onnx::ModelProto written = ReadProto(dir / "m.onnx");
  EXPECT_EQ(ExternalCount(written), 2);  // big and mid; small and the strings stay inline
  for (const auto& t : written.graph().initializer()) {
    if (t.data_location() != ::kiln_onnx::TensorProto::EXTERNAL) continue;
    EXPECT_FALSE(t.has_raw_data());
    std::map<std::string, std::string> kv;
    for (const auto& e : t.external_data()) kv[e.key()] = e.value();
    EXPECT_EQ(kv["location"], "m.onnx.data");
    EXPECT_EQ(std::stoull(kv["offset"]) % 4096, 0u) << t.name();
  }
  ASSERT_TRUE(fs::exists(dir / "m.onnx.data"));
  EXPECT_EQ(fs::file_size(dir / "m.onnx.data"), 4096u + 64u);
  testing::ExpectSameModel(a, LoadModelFile((dir / "m.onnx").string()));

  // Another name for the data file.
  w.external_file = "weights.bin";
  WriteModelFile(a, (dir / "n.onnx").string(), w);
  EXPECT_TRUE(fs::exists(dir / "weights.bin"));
  testing::ExpectSameModel(a, LoadModelFile((dir / "n.onnx").string()));
  for (const char* bad : {"sub/w.bin", "/tmp/w.bin", "..", "n.onnx"}) {
    w.external_file = bad;
    ExpectErrorWith([&] { WriteModelFile(a, (dir / "n.onnx").string(), w); },
                    ErrorCode::kInvalidArgument, {"external data file", bad});
  }
}

TEST(Writer, GoesExternalOnlyWhenTheModelWouldPassTheLimit) {
  const fs::path dir = TestDir("auto");
  const ir::Model a = Load(WeightsModel());
  const size_t inline_size = ModelToBytes(a).size();
  WriteOptions w;                   // kAuto
  w.max_proto_bytes = inline_size;  // fits exactly: inline
  WriteModelFile(a, (dir / "fits.onnx").string(), w);
  EXPECT_EQ(ExternalCount(ReadProto(dir / "fits.onnx")), 0);
  EXPECT_FALSE(fs::exists(dir / "fits.onnx.data"));

  w.max_proto_bytes = inline_size - 1;  // one byte short: the large tensors go external
  WriteModelFile(a, (dir / "over.onnx").string(), w);
  EXPECT_EQ(ExternalCount(ReadProto(dir / "over.onnx")), 1);  // big: the only one of >= 1 KiB
  EXPECT_TRUE(fs::exists(dir / "over.onnx.data"));
  testing::ExpectSameModel(a, LoadModelFile((dir / "over.onnx").string()));

  // What is left inline must fit too, or it is an error.
  w.max_proto_bytes = 100;
  ExpectErrorWith([&] { WriteModelFile(a, (dir / "tiny.onnx").string(), w); },
                  ErrorCode::kInvalidArgument, {"bytes", "external data"});
  w.external = ExternalData::kNever;
  w.max_proto_bytes = inline_size - 1;
  ExpectErrorWith([&] { WriteModelFile(a, (dir / "never.onnx").string(), w); },
                  ErrorCode::kInvalidArgument, {"external data is off"});
  EXPECT_FALSE(fs::exists(dir / "never.onnx.data"));
}

TEST(Writer, AFileThatCannotBeWrittenIsNoSuchFileNamingIt) {
  const ir::Model a = Load(WeightsModel());
  const std::string missing = (TestDir("missing") / "no" / "such" / "m.onnx").string();
  ExpectErrorWith([&] { WriteModelFile(a, missing); }, ErrorCode::kNoSuchFile, {missing});
  WriteOptions w;
  w.external = ExternalData::kAlways;
  ExpectErrorWith([&] { WriteModelFile(a, missing, w); }, ErrorCode::kNoSuchFile,
                  {"external data", "m.onnx.data"});
  const fs::path dir = TestDir("is_dir");
  ExpectErrorWith([&] { WriteModelFile(a, dir.string()); }, ErrorCode::kNoSuchFile, {dir.string()});
  ExpectErrorWith([&] { WriteModelFile(a, ""); }, ErrorCode::kNoSuchFile, {"''"});
}

// y = Squeeze(x) as an optimizer would add it: opset 13 in a model importing 11, plus a node of
// a domain the model does not import.
ir::Model MixedOpsets() {
  ir::Model m = Load(IdentityModel());
  ir::Graph& g = *m.graph;
  m.opsets[""] = 11;
  for (const auto& n : g.nodes()) n->set_opset(11);
  ir::Node* sq = g.AddNode("sq", "Squeeze", "");
  sq->set_opset(13);
  g.Connect(sq, {g.FindValue("y")}, {g.AddValue("q")});
  ir::Node* k = g.AddNode("k", "NhwcConv", "ai.kiln");
  k->set_opset(1);
  g.Connect(k, {g.FindValue("q")}, {g.AddValue("r")});
  ir::Node* k2 = g.AddNode("k2", "NhwcConv", "ai.kiln");  // no version of its own
  g.Connect(k2, {g.FindValue("r")}, {g.AddValue("s")});
  g.outputs().push_back(g.FindValue("s"));
  return m;
}

TEST(Writer, ANodeOfAnotherOpsetIsWrittenOnlyWhereItComputesTheSame) {
  const ir::Model m = MixedOpsets();
  ExpectErrorWith([&] { ModelToProto(m); }, ErrorCode::kNotImplemented,
                  {"node 'sq' (Squeeze)", "opset 13", "importing opset 11"});
  WriteOptions w;
  std::vector<std::string> asked;
  w.compatible = [&](const std::string& domain, const std::string& op, int64_t from, int64_t to) {
    asked.push_back(domain + "." + op + " " + std::to_string(from) + "->" + std::to_string(to));
    return true;
  };
  const ::kiln_onnx::ModelProto p = ModelToProto(m, w);
  EXPECT_EQ(asked, (std::vector<std::string>{".Squeeze 13->11"}));
  std::map<std::string, int64_t> imports;
  for (const auto& op : p.opset_import()) imports[op.domain()] = op.version();
  EXPECT_EQ(imports, (std::map<std::string, int64_t>{{"", 11}, {"ai.kiln", 1}}));
  const std::string bytes = ModelToBytes(m, w);
  const ir::Model back = LoadModelBytes(bytes.data(), bytes.size(), "");
  EXPECT_EQ(back.graph->FindValue("q")->producer()->opset(), 11);
  EXPECT_EQ(back.graph->FindValue("r")->producer()->opset(), 1);
  EXPECT_EQ(back.graph->FindValue("s")->producer()->opset(), 1);

  w.compatible = [](const std::string&, const std::string&, int64_t, int64_t) { return false; };
  ExpectErrorWith([&] { ModelToProto(m, w); }, ErrorCode::kNotImplemented, {"node 'sq'"});
}

TEST(Writer, AModelBuiltInMemoryGetsAnIrVersionAndLoads) {
  ir::Model m = Load(IdentityModel());
  m.ir_version = 0;
  const ::kiln_onnx::ModelProto p = ModelToProto(m);
  EXPECT_GE(p.ir_version(), kMinIrVersion);
  EXPECT_LE(p.ir_version(), kMaxIrVersion);
  ir::Model back = RoundTrip(m);
  EXPECT_EQ(back.ir_version, p.ir_version());
  m.graph = nullptr;
  ExpectErrorWith([&] { ModelToProto(m); }, ErrorCode::kInvalidGraph, {"no graph"});
}

}  // namespace
}  // namespace kiln::onnx
