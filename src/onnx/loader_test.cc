#include "onnx/loader.h"

#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace kiln::onnx {
namespace {

// y = Identity(x) over float [2], plus whatever a test adds.
::kiln_onnx::ModelProto IdentityModel() {
  ::kiln_onnx::ModelProto m;
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
    t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("batch");
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  g->mutable_input(0)->set_name("x");
  g->mutable_output(0)->set_name("y");
  return m;
}

ir::Model Load(const ::kiln_onnx::ModelProto& m, const std::string& dir = "") {
  const std::string bytes = m.SerializeAsString();
  return LoadModelBytes(bytes.data(), bytes.size(), dir);
}

// Loads `m` and expects `code` with every fragment in the message.
void ExpectLoadError(const ::kiln_onnx::ModelProto& m, ErrorCode code,
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
  ::kiln_onnx::ModelProto m = IdentityModel();
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
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  auto* typed = g->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(::kiln_onnx::TensorProto::INT64);
  typed->add_dims(2);
  typed->add_int64_data(7);
  typed->add_int64_data(-8);
  auto* raw = g->add_initializer();
  raw->set_name("raw");
  raw->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  raw->add_dims(1);
  const float v = 2.5f;
  raw->set_raw_data(std::string(reinterpret_cast<const char*>(&v), sizeof v));
  auto* half = g->add_initializer();
  half->set_name("half");
  half->set_data_type(::kiln_onnx::TensorProto::FLOAT16);
  half->add_dims(1);
  half->add_int32_data(0x3c00);
  // A bool is true for any non-zero entry, as ONNX's numpy_helper reads it: 256 (low byte 0)
  // included.
  auto* flags = g->add_initializer();
  flags->set_name("flags");
  flags->set_data_type(::kiln_onnx::TensorProto::BOOL);
  flags->add_dims(6);
  for (const int32_t v : {0, 1, 7, 256, -256, 0x10000}) flags->add_int32_data(v);
  // And raw bytes: any non-zero byte is true, stored as 1 (the kernels read C++ bools, for which
  // another byte is undefined behaviour; found by the run-path fuzzer).
  auto* raw_flags = g->add_initializer();
  raw_flags->set_name("raw_flags");
  raw_flags->set_data_type(::kiln_onnx::TensorProto::BOOL);
  raw_flags->add_dims(4);
  raw_flags->set_raw_data(std::string("\x00\x01\xff\x02", 4));
  ir::Model model = Load(m);
  const auto* b =
      static_cast<const uint8_t*>(model.graph->FindValue("flags")->initializer()->data());
  EXPECT_EQ(std::vector<uint8_t>(b, b + 6), (std::vector<uint8_t>{0, 1, 1, 1, 1, 1}));
  const auto* rb =
      static_cast<const uint8_t*>(model.graph->FindValue("raw_flags")->initializer()->data());
  EXPECT_EQ(std::vector<uint8_t>(rb, rb + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
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
    ::kiln_onnx::ModelProto m = IdentityModel();
    auto* w = m.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
    w->add_dims(3);
    w->set_data_location(::kiln_onnx::TensorProto::EXTERNAL);
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
  ::kiln_onnx::ModelProto m = IdentityModel();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  ExpectLoadError(m, ErrorCode::kInvalidGraph, {"node 'id' (Identity)", "'nowhere'"});
}

TEST(Loader, CycleIsRefused) {
  ::kiln_onnx::ModelProto m = IdentityModel();
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
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->add_dims(4);
  w->set_raw_data(std::string(12, '\0'));
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "12 bytes", "16"});
  w->clear_raw_data();
  w->add_float_data(1.0f);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "float_data holds 1"});
  w->set_data_type(99);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "data_type 99"});
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->set_dims(0, -4);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "negative"});
}

TEST(Loader, IrVersionsOutsideTheRange) {
  ::kiln_onnx::ModelProto m = IdentityModel();
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
  ::kiln_onnx::ModelProto m = IdentityModel();
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
  ExpectLoadError(::kiln_onnx::ModelProto(), ErrorCode::kInvalidProtobuf, {"IR version 0"});
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
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(::kiln_onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* n = g->add_node();
  n->set_name("if");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("z");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(::kiln_onnx::AttributeProto::GRAPH);
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

// --- Lifting large raw_data out of what protobuf parses (detail::LiftRawData) ---

constexpr size_t kNoLift = std::numeric_limits<size_t>::max();

// A field of wire type 2, written by hand for what protobuf's API cannot build (repeats).
std::string LengthField(uint32_t number, const std::string& payload) {
  std::string out;
  for (uint64_t v : {uint64_t{number} << 3 | 2, uint64_t{payload.size()}}) {
    for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
    out += static_cast<char>(v);
  }
  return out + payload;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

::kiln_onnx::TensorProto* AddRaw(::kiln_onnx::GraphProto* g, const std::string& name,
                                 ::kiln_onnx::TensorProto::DataType type,
                                 const std::vector<int64_t>& dims, size_t element_bytes,
                                 uint32_t seed) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  size_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= static_cast<size_t>(d);
  }
  t->set_raw_data(RandomBytes(n * element_bytes, seed));
  return t;
}

// Initializers of every kind the lifting meets: large raw_data at odd and even offsets (names of
// odd and even length before it), a zero-size one, small raw_data, typed fields, and a large
// raw_data in a subgraph (never lifted).
::kiln_onnx::ModelProto ModelWithInitializers() {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* g = m.mutable_graph();
  AddRaw(g, "w", ::kiln_onnx::TensorProto::FLOAT, {37, 41}, 4, 1);
  AddRaw(g, "bytes_odd", ::kiln_onnx::TensorProto::INT8, {3, 1001}, 1, 2);
  AddRaw(g, "empty", ::kiln_onnx::TensorProto::FLOAT, {0, 5}, 4, 3);
  AddRaw(g, "small", ::kiln_onnx::TensorProto::FLOAT, {3}, 4, 4);
  auto* typed = g->add_initializer();
  typed->set_name("typed");
  typed->set_data_type(::kiln_onnx::TensorProto::INT64);
  typed->add_dims(2);
  typed->add_int64_data(7);
  typed->add_int64_data(-8);
  AddRaw(g, "h", ::kiln_onnx::TensorProto::FLOAT16, {1027}, 2, 5);
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(::kiln_onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* n = g->add_node();
  n->set_name("if");
  n->set_op_type("If");
  n->add_input("cond");
  n->add_output("z");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(::kiln_onnx::AttributeProto::GRAPH);
    auto* sg = a->mutable_g();
    AddRaw(sg, "inner_w", ::kiln_onnx::TensorProto::FLOAT, {700}, 4, 6);
    auto* sn = sg->add_node();
    sn->set_op_type("Identity");
    sn->add_input("inner_w");
    sn->add_output("inner");
    sg->add_output()->set_name("inner");
  }
  return m;
}

// What a load gives, as text: every initializer (main graph and subgraphs) with its type, shape
// and bytes, or the error's code and message. Two loads that agree give the same text.
std::string Outcome(std::string_view bytes, size_t lift_min_bytes) {
  try {
    ir::Model m = detail::LoadModelBytes(bytes.data(), bytes.size(), "", lift_min_bytes);
    std::string out;
    std::vector<const ir::Graph*> graphs = {m.graph.get()};
    for (size_t i = 0; i < graphs.size(); ++i) {
      for (const auto& node : graphs[i]->nodes()) {
        for (const ir::Attribute& a : node->attributes()) {
          if (a.g) graphs.push_back(a.g.get());
        }
      }
      for (const auto& v : graphs[i]->values()) {
        const auto& t = v->initializer();
        if (t == nullptr) continue;
        out += std::to_string(i) + " " + v->name() + " " + DataTypeName(t->type()) + " " +
               t->shape().ToString() + " ";
        out.append(static_cast<const char*>(t->data()), t->byte_size());
        out += "\n";
      }
    }
    return out;
  } catch (const Error& e) {
    return "error " + std::to_string(static_cast<int>(e.code())) + ": " + e.what();
  }
}

TEST(Lifting, LiftedBytesParseToTheModelWithoutTheRawData) {
  const ::kiln_onnx::ModelProto m = ModelWithInitializers();
  const std::string bytes = m.SerializeAsString();
  for (size_t min_bytes : {size_t{0}, size_t{1024}}) {
    std::optional<detail::LiftedModel> lifted =
        detail::LiftRawData(bytes.data(), bytes.size(), min_bytes);
    ASSERT_TRUE(lifted.has_value());
    ::kiln_onnx::ModelProto expected = m;
    std::vector<int> want;
    for (int i = 0; i < expected.graph().initializer_size(); ++i) {
      auto* t = expected.mutable_graph()->mutable_initializer(i);
      if (t->has_raw_data() && t->raw_data().size() >= min_bytes) {
        want.push_back(i);
        t->set_raw_data("");
      }
    }
    ::kiln_onnx::ModelProto parsed;
    ASSERT_TRUE(parsed.ParseFromString(lifted->bytes));
    EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString()) << min_bytes;
    ASSERT_EQ(lifted->raw.size(), want.size());
    bool odd = false;
    for (size_t k = 0; k < want.size(); ++k) {
      const detail::LiftedRaw& r = lifted->raw[k];
      EXPECT_EQ(r.index, want[k]);
      const std::string& original = m.graph().initializer(r.index).raw_data();
      ASSERT_EQ(r.size, original.size());
      ASSERT_LE(r.offset + r.size, bytes.size());
      EXPECT_EQ(bytes.compare(r.offset, r.size, original), 0) << r.index;
      odd = odd || (r.offset % 2 == 1 && r.size > 0);
    }
    EXPECT_TRUE(odd) << "no raw_data at an odd offset: the test lost its point";
  }
  // Nothing large enough: nothing lifted, the original bytes are parsed.
  EXPECT_FALSE(detail::LiftRawData(bytes.data(), bytes.size(), 1 << 20).has_value());
}

TEST(Lifting, LoadsTheSameTensorsAsThePlainPath) {
  const std::string bytes = ModelWithInitializers().SerializeAsString();
  const std::string plain = Outcome(bytes, kNoLift);
  ASSERT_EQ(plain.rfind("error", 0), std::string::npos) << plain;
  for (size_t min_bytes : {size_t{0}, size_t{1}, size_t{1024}, detail::kLiftMinBytes}) {
    EXPECT_EQ(Outcome(bytes, min_bytes), plain) << min_bytes;
  }
  // The public entry lifts with the default threshold.
  ir::Model m = LoadModelBytes(bytes.data(), bytes.size(), "");
  const auto& w = m.graph->FindValue("bytes_odd")->initializer();
  EXPECT_EQ(std::string(static_cast<const char*>(w->data()), w->byte_size()), RandomBytes(3003, 2));
}

TEST(Lifting, FileLoadCopiesFromTheMappingAcrossSlices) {
  namespace fs = std::filesystem;
  ::kiln_onnx::ModelProto m = ModelWithInitializers();
  // Larger than a copy slice (4 MiB), so pages are given back while it is copied.
  AddRaw(m.mutable_graph(), "big", ::kiln_onnx::TensorProto::UINT8, {9 * (1 << 20) + 3}, 1, 7);
  AddRaw(m.mutable_graph(), "after", ::kiln_onnx::TensorProto::FLOAT, {5000}, 4, 8);
  const std::string bytes = m.SerializeAsString();
  const fs::path path =
      fs::temp_directory_path() / ("kiln_lift_test_" + std::to_string(::getpid()) + ".onnx");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ir::Model loaded = LoadModelFile(path.string());
  fs::remove(path);
  for (const auto& init : m.graph().initializer()) {
    const auto& t = loaded.graph->FindValue(init.name())->initializer();
    ASSERT_NE(t, nullptr) << init.name();
    if (!init.has_raw_data()) continue;
    ASSERT_EQ(t->byte_size(), init.raw_data().size()) << init.name();
    if (t->byte_size() == 0) continue;  // an empty tensor has no buffer (memcmp needs one)
    EXPECT_EQ(std::memcmp(t->data(), init.raw_data().data(), t->byte_size()), 0) << init.name();
  }
}

// Repeats protobuf merges: a second graph field appends its initializers (indices run on), and
// of two raw_data in one tensor the last wins, whichever of them is lifted.
TEST(Lifting, MergedGraphsAndRepeatedRawData) {
  const std::string big = RandomBytes(4000, 9);
  const std::string small = RandomBytes(40, 10);
  ::kiln_onnx::TensorProto head;
  head.set_name("twice");
  head.set_data_type(::kiln_onnx::TensorProto::UINT8);
  for (const std::string* last : {&small, &big}) {
    const std::string& first = last == &small ? big : small;
    head.clear_dims();
    head.add_dims(static_cast<int64_t>(last->size()));
    const std::string tensor =
        head.SerializeAsString() + LengthField(9, first) + LengthField(9, *last);
    ::kiln_onnx::GraphProto extra;
    AddRaw(&extra, "second_graph_w", ::kiln_onnx::TensorProto::FLOAT, {600}, 4, 11);
    const std::string graph = extra.SerializeAsString() + LengthField(5, tensor);
    const std::string bytes = ModelWithInitializers().SerializeAsString() + LengthField(7, graph);
    const std::string plain = Outcome(bytes, kNoLift);
    ASSERT_EQ(plain.rfind("error", 0), std::string::npos) << plain;
    EXPECT_NE(plain.find(" twice uint8 [" + std::to_string(last->size()) + "] " + *last + "\n"),
              std::string::npos);
    EXPECT_EQ(Outcome(bytes, 1024), plain);
    EXPECT_EQ(Outcome(bytes, 0), plain);
  }
}

TEST(Lifting, LiftedRawDataIsCheckedLikeAnyOther) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  auto* w = AddRaw(m.mutable_graph(), "w", ::kiln_onnx::TensorProto::FLOAT, {400}, 4, 12);
  w->mutable_raw_data()->append("1234");
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "1604 bytes", "1600"});
  w->set_data_type(::kiln_onnx::TensorProto::STRING);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf,
                  {"initializer 'w'", "string tensors cannot use raw_data"});
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  w->set_dims(0, -400);
  ExpectLoadError(m, ErrorCode::kInvalidProtobuf, {"initializer 'w'", "negative"});
}

// Truncations and corrupted bytes — length prefixes of the graph, the initializers and their
// raw_data among them — must fail cleanly, and exactly as the plain path fails (or load the same
// tensors where the damage still parses).
TEST(Lifting, DamagedBytesFailAsThePlainPathFails) {
  ::kiln_onnx::ModelProto m = IdentityModel();
  AddRaw(m.mutable_graph(), "w", ::kiln_onnx::TensorProto::FLOAT, {300}, 4, 13);
  AddRaw(m.mutable_graph(), "b", ::kiln_onnx::TensorProto::INT8, {1101}, 1, 14);
  const std::string bytes = m.SerializeAsString();
  ASSERT_TRUE(detail::LiftRawData(bytes.data(), bytes.size(), 1024).has_value());
  int failures = 0;
  // A view, so a walk past its end would find the rest of the model there, not a clean stop.
  auto check = [&](std::string_view damaged, const std::string& how) {
    const std::string plain = Outcome(damaged, kNoLift);
    failures += plain.rfind("error", 0) == 0 ? 1 : 0;
    EXPECT_EQ(Outcome(damaged, 1024), plain) << how;
    EXPECT_EQ(Outcome(damaged, 0), plain) << how;
  };
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    check(std::string_view(bytes).substr(0, cut), "cut at " + std::to_string(cut));
  }
  // Every byte outside the raw data itself (where any value parses), set to values that end,
  // continue, shrink or grow a varint.
  std::optional<detail::LiftedModel> lifted = detail::LiftRawData(bytes.data(), bytes.size(), 0);
  ASSERT_TRUE(lifted.has_value());
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    bool inside = false;
    for (const detail::LiftedRaw& r : lifted->raw)
      inside |= pos >= r.offset + 2 && pos < r.offset + r.size;
    if (inside) continue;
    for (uint8_t value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string damaged = bytes;
      if (static_cast<uint8_t>(damaged[pos]) == value) continue;
      damaged[pos] = static_cast<char>(value);
      check(damaged, "byte " + std::to_string(pos) + " = " + std::to_string(value));
    }
  }
  EXPECT_GT(failures, 1000);  // the damage did reach the error paths
}

}  // namespace
}  // namespace kiln::onnx
