// Models written and loaded back compute what they computed: load → write → load gives the same
// graph, and a session writing its optimized model (SessionOptions::optimized_model_path) at
// each level gives a file whose outputs match the session's, run as written and optimized again.
#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "onnx/loader.h"
#include "onnx/model_compare.h"
#include "onnx/writer.h"
#include "runtime/session.h"

namespace kiln::onnx {
namespace {

namespace fs = std::filesystem;

fs::path TestDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("kiln_round_trip_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ir::Model Load(const ::kiln_onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return LoadModelBytes(bytes.data(), bytes.size(), "");
}

// A random tensor for a declared type (symbolic dimensions 2; bools alternate; ints small).
std::shared_ptr<Tensor> RandomTensor(const ir::TypeInfo& t, std::mt19937& rng) {
  std::vector<int64_t> dims = t.shape ? t.shape->dims() : std::vector<int64_t>{};
  for (int64_t& d : dims) d = d < 0 ? 2 : d;
  std::shared_ptr<Tensor> x = Tensor::Allocate(t.elem, Shape(dims), CpuAllocator());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < x->element_count(); ++i) {
    switch (t.elem) {
      case DataType::kFloat:
        static_cast<float*>(x->data())[i] = u(rng);
        break;
      case DataType::kInt64:
        static_cast<int64_t*>(x->data())[i] = static_cast<int64_t>(rng() % 5);
        break;
      case DataType::kBool:
        static_cast<uint8_t*>(x->data())[i] = static_cast<uint8_t>(i % 2);
        break;
      default:
        break;
    }
  }
  return x;
}

// Inputs for every graph input: tensors, a sequence of two tensors, an optional holding one.
std::vector<Value> Inputs(const ir::Model& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Value> inputs;
  for (const ir::Value* in : m.graph->inputs()) {
    const ir::TypeInfo& t = in->type();
    if (t.kind == ir::ValueKind::kSequence) {
      auto seq = std::make_shared<TensorSequence>();
      seq->elem_type = t.contained->elem;
      seq->tensors = {RandomTensor(*t.contained, rng), RandomTensor(*t.contained, rng)};
      inputs.push_back(Value::FromSequence(seq));
    } else if (t.kind == ir::ValueKind::kOptional) {
      inputs.push_back(Value::OptionalOf(Value(RandomTensor(*t.contained, rng))));
    } else {
      inputs.emplace_back(RandomTensor(t, rng));
    }
  }
  return inputs;
}

// Runs a session over the model; sequence and optional outputs come back in `others`.
struct Outputs {
  std::vector<std::shared_ptr<Tensor>> tensors;
  std::vector<Value> others;
};
Outputs RunModel(ir::Model model, int level, const std::vector<Value>& inputs,
                 const std::string& optimized_model_path = "") {
  runtime::SessionOptions options;
  options.optimization_level = level;
  options.intra_op_threads = 1;
  options.optimized_model_path = optimized_model_path;
  runtime::Session s(std::move(model), options);
  std::vector<std::string> in_names, out_names;
  for (const auto& d : s.inputs()) in_names.push_back(d.name);
  for (const auto& d : s.outputs()) out_names.push_back(d.name);
  Outputs out;
  out.tensors.resize(out_names.size());
  out.others.resize(out_names.size());
  s.Run(runtime::RunOptions(), in_names, inputs, out_names, out.tensors, out.others);
  return out;
}

void ExpectSameOutputs(const Outputs& a, const Outputs& b, const std::string& what) {
  ASSERT_EQ(a.tensors.size(), b.tensors.size()) << what;
  for (size_t k = 0; k < a.tensors.size(); ++k) {
    ASSERT_EQ(a.tensors[k] == nullptr, b.tensors[k] == nullptr) << what << " output " << k;
    if (a.tensors[k] != nullptr) {
      EXPECT_TRUE(testing::SameTensor(*a.tensors[k], *b.tensors[k])) << what << " output " << k;
      continue;
    }
    const Value& x = a.others[k];
    const Value& y = b.others[k];
    ASSERT_EQ(x.kind(), y.kind()) << what << " output " << k;
    ASSERT_EQ(x.has_value(), y.has_value()) << what << " output " << k;
    if (x.kind() == Value::Kind::kSequence) {
      ASSERT_EQ(x.sequence()->tensors.size(), y.sequence()->tensors.size()) << what;
      for (size_t i = 0; i < x.sequence()->tensors.size(); ++i) {
        EXPECT_TRUE(testing::SameTensor(*x.sequence()->tensors[i], *y.sequence()->tensors[i]))
            << what << " output " << k << " element " << i;
      }
    } else if (x.has_value() && x.tensor() != nullptr) {
      EXPECT_TRUE(testing::SameTensor(*x.tensor(), *y.tensor())) << what << " output " << k;
    }
  }
}

// The whole check for one model: the structure survives load → write → load, the rewritten
// model computes the same, and at every level the session's optimized model, loaded back, gives
// the session's outputs both as written (level 0) and optimized again (the same level).
void ExpectRoundTrips(const std::function<ir::Model()>& load, const std::string& name) {
  SCOPED_TRACE(name);
  const fs::path dir = TestDir(name);
  const std::vector<Value> inputs = Inputs(load(), 7);
  const ir::Model original = load();
  WriteModelFile(original, (dir / "plain.onnx").string());
  testing::ExpectSameModel(original, LoadModelFile((dir / "plain.onnx").string()));
  const Outputs want = RunModel(load(), 0, inputs);
  ExpectSameOutputs(want, RunModel(LoadModelFile((dir / "plain.onnx").string()), 0, inputs),
                    "written unoptimized");
  for (int level = 0; level <= 3; ++level) {
    const std::string path = (dir / ("level" + std::to_string(level) + ".onnx")).string();
    const Outputs direct = RunModel(load(), level, inputs, path);
    ASSERT_TRUE(fs::exists(path)) << path;
    for (int again : {0, level}) {
      ExpectSameOutputs(
          direct, RunModel(LoadModelFile(path), again, inputs),
          "written at level " + std::to_string(level) + ", run at level " + std::to_string(again));
    }
  }
}

TEST(RoundTrip, Digits) {
  ExpectRoundTrips(
      [] { return LoadModelFile(std::string(KILN_SOURCE_DIR) + "/examples/digits/digits.onnx"); },
      "digits");
}

void SetTensorType(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem,
                   std::vector<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) {
    if (d < 0) {
      tt->mutable_shape()->add_dim()->set_dim_param("n");
    } else {
      tt->mutable_shape()->add_dim()->set_dim_value(d);
    }
  }
}

::kiln_onnx::NodeProto* AddNode(::kiln_onnx::GraphProto* g, const std::string& op,
                                std::vector<std::string> in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_name(out.empty() ? op : out[0] + "/" + op);
  n->set_op_type(op);
  for (const auto& s : in) n->add_input(s);
  for (const auto& s : out) n->add_output(s);
  return n;
}

::kiln_onnx::TensorProto FloatTensor(const std::string& name, std::vector<float> values) {
  ::kiln_onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::kiln_onnx::TensorProto::FLOAT);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t.add_float_data(v);
  return t;
}

::kiln_onnx::ModelProto Opset17() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name("g");
  return m;
}

// r = If(cond, x + a, x - b); acc = Loop 3 times: acc += x * a (x, a captured).
TEST(RoundTrip, IfAndLoopWithCapturedValues) {
  ::kiln_onnx::ModelProto m = Opset17();
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {3});
  SetTensorType(g->add_input(), "cond", ::kiln_onnx::TensorProto::BOOL, {});
  *g->add_initializer() = FloatTensor("a", {1.5f, -2.0f, 0.25f});
  *g->add_initializer() = FloatTensor("zeros", {0, 0, 0});
  ::kiln_onnx::TensorProto trips;
  trips.set_name("trips");
  trips.set_data_type(::kiln_onnx::TensorProto::INT64);
  trips.add_int64_data(3);
  *g->add_initializer() = trips;
  auto* n_if = AddNode(g, "If", {"cond"}, {"r"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* attr = n_if->add_attribute();
    attr->set_name(branch);
    attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
    auto* sub = attr->mutable_g();
    sub->set_name(branch);
    const bool then = std::string(branch) == "then_branch";
    if (!then) *sub->add_initializer() = FloatTensor("b", {0.5f, 0.5f, 0.5f});
    AddNode(sub, then ? "Add" : "Sub", {"x", then ? "a" : "b"}, {"branch_out"});
    SetTensorType(sub->add_output(), "branch_out", ::kiln_onnx::TensorProto::FLOAT, {3});
  }
  auto* loop = AddNode(g, "Loop", {"trips", "", "zeros"}, {"acc"});
  auto* body_attr = loop->add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
  auto* body = body_attr->mutable_g();
  body->set_name("body");
  SetTensorType(body->add_input(), "i", ::kiln_onnx::TensorProto::INT64, {});
  SetTensorType(body->add_input(), "c", ::kiln_onnx::TensorProto::BOOL, {});
  SetTensorType(body->add_input(), "acc_in", ::kiln_onnx::TensorProto::FLOAT, {3});
  AddNode(body, "Identity", {"c"}, {"c_out"});
  AddNode(body, "Mul", {"x", "a"}, {"xa"});
  AddNode(body, "Add", {"acc_in", "xa"}, {"acc_out"});
  SetTensorType(body->add_output(), "c_out", ::kiln_onnx::TensorProto::BOOL, {});
  SetTensorType(body->add_output(), "acc_out", ::kiln_onnx::TensorProto::FLOAT, {3});
  SetTensorType(g->add_output(), "r", ::kiln_onnx::TensorProto::FLOAT, {3});
  SetTensorType(g->add_output(), "acc", ::kiln_onnx::TensorProto::FLOAT, {3});
  ExpectRoundTrips([&] { return Load(m); }, "control_flow");
}

// y16 = Cast(x, float16) + w16; words = Identity(string initializer).
TEST(RoundTrip, Float16AndStringInitializers) {
  ::kiln_onnx::ModelProto m = Opset17();
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {-1, 3});
  ::kiln_onnx::TensorProto w;
  w.set_name("w16");
  w.set_data_type(::kiln_onnx::TensorProto::FLOAT16);
  w.add_dims(3);
  for (uint16_t bits : {0x3c00, 0xc200, 0x3555}) w.add_int32_data(bits);
  *g->add_initializer() = w;
  ::kiln_onnx::TensorProto s;
  s.set_name("strings");
  s.set_data_type(::kiln_onnx::TensorProto::STRING);
  s.add_dims(3);
  for (const char* v : {"alpha", "", "\xce\xb2\xce\xb3"}) s.add_string_data(v);
  *g->add_initializer() = s;
  auto* cast = AddNode(g, "Cast", {"x"}, {"x16"});
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(::kiln_onnx::AttributeProto::INT);
  to->set_i(::kiln_onnx::TensorProto::FLOAT16);
  AddNode(g, "Add", {"x16", "w16"}, {"y16"});
  AddNode(g, "Identity", {"strings"}, {"words"});
  SetTensorType(g->add_output(), "y16", ::kiln_onnx::TensorProto::FLOAT16, {-1, 3});
  SetTensorType(g->add_output(), "words", ::kiln_onnx::TensorProto::STRING, {3});
  ExpectRoundTrips([&] { return Load(m); }, "f16_strings");
}

// Sequence and optional inputs and outputs: s2 = SequenceInsert(s, x), n = SequenceLength(s2),
// has = OptionalHasElement(o), back = OptionalGetElement(o), ox = Optional(x).
TEST(RoundTrip, SequenceAndOptionalInputsAndOutputs) {
  ::kiln_onnx::ModelProto m = Opset17();
  m.mutable_opset_import(0)->set_version(18);
  auto* g = m.mutable_graph();
  SetTensorType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2});
  auto* s = g->add_input();
  s->set_name("s");
  auto* st = s->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
  st->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  st->mutable_shape()->add_dim()->set_dim_param("len");
  auto* o = g->add_input();
  o->set_name("o");
  auto* ot = o->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
  ot->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  ot->mutable_shape()->add_dim()->set_dim_value(3);
  AddNode(g, "SequenceInsert", {"s", "x"}, {"s2"});
  AddNode(g, "SequenceLength", {"s2"}, {"n"});
  AddNode(g, "OptionalHasElement", {"o"}, {"has"});
  AddNode(g, "OptionalGetElement", {"o"}, {"back"});
  AddNode(g, "Optional", {"x"}, {"ox"});
  auto* s2 = g->add_output();
  *s2->mutable_type() = s->type();
  s2->set_name("s2");
  SetTensorType(g->add_output(), "n", ::kiln_onnx::TensorProto::INT64, {});
  SetTensorType(g->add_output(), "has", ::kiln_onnx::TensorProto::BOOL, {});
  SetTensorType(g->add_output(), "back", ::kiln_onnx::TensorProto::FLOAT, {3});
  auto* ox = g->add_output();
  ox->set_name("ox");
  SetTensorType(ox, "ox", ::kiln_onnx::TensorProto::FLOAT, {2});
  ::kiln_onnx::TypeProto inner = ox->type();
  *ox->mutable_type()->mutable_optional_type()->mutable_elem_type() = inner;
  ExpectRoundTrips([&] { return Load(m); }, "sequence_optional");
}

TEST(RoundTrip, TheSessionNamesAFileItCannotWrite) {
  const fs::path missing = TestDir("cannot") / "no" / "such" / "m.onnx";
  ir::Model m = LoadModelFile(std::string(KILN_SOURCE_DIR) + "/examples/digits/digits.onnx");
  runtime::SessionOptions options;
  options.optimized_model_path = missing.string();
  try {
    runtime::Session s(std::move(m), options);
    ADD_FAILURE() << "created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoSuchFile);
    EXPECT_NE(std::string(e.what()).find("writing the optimized model to '" + missing.string()),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::onnx
