// SequenceMap, and sequences and optionals through If and Loop, run in whole models (a subgraph
// needs the executor). The models mirror ONNX's backend cases of the same names.
#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include "kernels/cpu/sequence/sequence_test_util.h"
#include "onnx/loader.h"
#include "runtime/session.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
constexpr int kFloat = ::kiln_onnx::TensorProto::FLOAT;
constexpr int kInt64 = ::kiln_onnx::TensorProto::INT64;
constexpr int kBool = ::kiln_onnx::TensorProto::BOOL;

void TensorIo(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
}

void SeqType(::kiln_onnx::TypeProto* t, int elem) {
  t->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(elem);
}

void SeqIo(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  SeqType(vi->mutable_type(), elem);
}

void OptSeqIo(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem) {
  vi->set_name(name);
  SeqType(vi->mutable_type()->mutable_optional_type()->mutable_elem_type(), elem);
}

::kiln_onnx::NodeProto* Node(::kiln_onnx::GraphProto* g, const std::string& op,
                             const std::vector<std::string>& in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_name(op + "_" + out[0]);
  n->set_op_type(op);
  for (const auto& s : in) n->add_input(s);
  for (const auto& s : out) n->add_output(s);
  return n;
}

::kiln_onnx::GraphProto* GraphAttr(::kiln_onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::kiln_onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

// A Constant node giving `values` (float, 1-D, or a scalar with `scalar`).
void ConstantF(::kiln_onnx::GraphProto* g, const std::string& out, const F& values,
               bool scalar = false) {
  auto* n = Node(g, "Constant", {}, {out});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(::kiln_onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(kFloat);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (float v : values) t->add_float_data(v);
}

void ConstantI(::kiln_onnx::GraphProto* g, const std::string& out,
               const std::vector<int64_t>& values, bool scalar) {
  auto* n = Node(g, "Constant", {}, {out});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(::kiln_onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(kInt64);
  if (!scalar) t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

::kiln_onnx::ModelProto Model(int64_t opset) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  return m;
}

std::shared_ptr<runtime::Session> Load(const ::kiln_onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return std::make_shared<runtime::Session>(
      ::kiln::onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), runtime::SessionOptions());
}

// Runs the session; every output comes back as a value.
std::vector<Value> RunModel(const runtime::Session& s, std::vector<std::string> in_names,
                            std::vector<Value> in, std::vector<std::string> out_names) {
  std::vector<std::shared_ptr<Tensor>> results(out_names.size());
  std::vector<Value> others(out_names.size());
  s.Run(runtime::RunOptions(), in_names, in, out_names, results, others);
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i] != nullptr) others[i] = Value(results[i]);
  }
  return others;
}

// SequenceMap over inputs x0 (a float sequence) and x1 (a float sequence or tensor); the body
// applies `op` ("Add": one output in0 + in1; "Identity": two outputs in0, in1).
::kiln_onnx::ModelProto MapModel(const std::string& op, bool x1_is_sequence) {
  ::kiln_onnx::ModelProto m = Model(17);
  auto* g = m.mutable_graph();
  SeqIo(g->add_input(), "x0", kFloat);
  if (x1_is_sequence) {
    SeqIo(g->add_input(), "x1", kFloat);
  } else {
    TensorIo(g->add_input(), "x1", kFloat);
  }
  const bool two = op == "Identity";
  SeqIo(g->add_output(), "y0", kFloat);
  if (two) SeqIo(g->add_output(), "y1", kFloat);
  auto* n = Node(g, "SequenceMap", {"x0", "x1"},
                 two ? std::vector<std::string>{"y0", "y1"} : std::vector<std::string>{"y0"});
  auto* body = GraphAttr(n, "body");
  TensorIo(body->add_input(), "in0", kFloat);
  TensorIo(body->add_input(), "in1", kFloat);
  if (two) {
    Node(body, "Identity", {"in0"}, {"out0"});
    Node(body, "Identity", {"in1"}, {"out1"});
    TensorIo(body->add_output(), "out0", kFloat);
    TensorIo(body->add_output(), "out1", kFloat);
  } else {
    Node(body, "Add", {"in0", "in1"}, {"out0"});
    TensorIo(body->add_output(), "out0", kFloat);
  }
  return m;
}

TEST(SequenceMap, Add1Sequence1TensorMirrorsTheSharedCase) {
  auto s = Load(MapModel("Add", false));
  Value x0 = Seq(DataType::kFloat,
                 {MakeTensor<float>(
                      {10}, {0.548813522f, 0.715189338f, 0.602763355f, 0.544883192f, 0.423654795f,
                             0.64589411f, 0.437587202f, 0.891772985f, 0.963662744f, 0.383441508f}),
                  MakeTensor<float>({10}, {0.791725039f, 0.528894901f, 0.568044543f, 0.925596654f,
                                           0.0710360557f, 0.0871293023f, 0.0202183966f,
                                           0.832619846f, 0.778156757f, 0.870012164f}),
                  MakeTensor<float>({10}, {0.978618324f, 0.799158573f, 0.461479366f, 0.780529201f,
                                           0.118274428f, 0.63992101f, 0.143353283f, 0.944668889f,
                                           0.521848321f, 0.414661944f})});
  Value x1 = MakeTensor<float>(
      {10}, {0.264555603f, 0.774233699f, 0.456150323f, 0.56843394f, 0.0187897999f, 0.617635489f,
             0.612095714f, 0.616934001f, 0.943748057f, 0.681820273f});
  std::vector<Value> out = RunModel(*s, {"x0", "x1"}, {x0, x1}, {"y0"});
  ASSERT_EQ(SeqOf(out[0]).tensors.size(), 3u);
  const F want[3] = {{0.813369155f, 1.48942304f, 1.05891371f, 1.11331713f, 0.442444593f,
                      1.26352954f, 1.04968286f, 1.50870705f, 1.90741086f, 1.06526184f},
                     {1.05628061f, 1.3031286f, 1.02419484f, 1.49403059f, 0.0898258537f,
                      0.704764783f, 0.632314086f, 1.44955385f, 1.72190475f, 1.55183244f},
                     {1.24317396f, 1.57339227f, 0.917629719f, 1.34896314f, 0.137064233f,
                      1.25755644f, 0.755448997f, 1.56160283f, 1.46559644f, 1.09648228f}};
  for (size_t k = 0; k < 3; ++k) {
    const F got = ItemValues<float>(out[0], k, Shape({10}));
    ASSERT_EQ(got.size(), 10u);
    for (size_t i = 0; i < 10; ++i) EXPECT_FLOAT_EQ(got[i], want[k][i]) << k << "," << i;
  }
}

TEST(SequenceMap, Add2SequencesMirrorsTheSharedCase) {
  auto s = Load(MapModel("Add", true));
  Value x0 =
      Seq(DataType::kFloat,
          {MakeTensor<float>({6}, {0.857945621f, 0.847251713f, 0.623563707f, 0.384381711f,
                                   0.297534615f, 0.0567129776f}),
           MakeTensor<float>({1}, {0.272656292f}),
           MakeTensor<float>({4}, {0.477665126f, 0.812168717f, 0.479977161f, 0.392784804f})});
  Value x1 =
      Seq(DataType::kFloat,
          {MakeTensor<float>({6}, {0.836078763f, 0.337396175f, 0.648171902f, 0.368241549f,
                                   0.957155168f, 0.140350774f}),
           MakeTensor<float>({1}, {0.870087266f}),
           MakeTensor<float>({4}, {0.473608047f, 0.800910771f, 0.520477474f, 0.678879559f})});
  std::vector<Value> out = RunModel(*s, {"x0", "x1"}, {x0, x1}, {"y0"});
  const F want[3] = {
      {1.69402432f, 1.18464792f, 1.27173567f, 0.75262326f, 1.25468981f, 0.197063744f},
      {1.14274359f},
      {0.951273203f, 1.61307955f, 1.00045466f, 1.07166433f}};
  const int64_t lens[3] = {6, 1, 4};
  for (size_t k = 0; k < 3; ++k) {
    const F got = ItemValues<float>(out[0], k, Shape({lens[k]}));
    ASSERT_EQ(got.size(), want[k].size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[k][i]) << k << "," << i;
  }
  // Sequences of different lengths are an error naming the node.
  Value short_x1 = Seq(DataType::kFloat, {MakeTensor<float>({1}, {1})});
  try {
    RunModel(*s, {"x0", "x1"}, {x0, short_x1}, {"y0"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(SequenceMap)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("input 1 is a sequence of 1 tensors, input 0 of 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(SequenceMap, IdentityWithATensorAndWithTwoSequencesMirrorsTheSharedCases) {
  // test_sequence_map_identity_1_sequence_1_tensor: the tensor is given to every iteration.
  auto s = Load(MapModel("Identity", false));
  Value x0 = Seq(DataType::kFloat,
                 {MakeTensor<float>({6}, F(6, 0.5f)), MakeTensor<float>({9}, F(9, 0.25f)),
                  MakeTensor<float>({4}, F(4, 0.75f))});
  Value x1 = MakeTensor<float>({2}, {0.461479366f, 0.780529201f});
  std::vector<Value> out = RunModel(*s, {"x0", "x1"}, {x0, x1}, {"y0", "y1"});
  ASSERT_EQ(SeqOf(out[0]).tensors.size(), 3u);
  ASSERT_EQ(SeqOf(out[1]).tensors.size(), 3u);
  EXPECT_EQ(ItemValues<float>(out[0], 1, Shape({9})), F(9, 0.25f));
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(ItemValues<float>(out[1], k, Shape({2})), (F{0.461479366f, 0.780529201f}));
  }
  // test_sequence_map_identity_2_sequences: element k of each.
  auto s2 = Load(MapModel("Identity", true));
  Value y = Seq(DataType::kFloat, {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({8}, F(8, 3)),
                                   MakeTensor<float>({3}, {4, 5, 6})});
  std::vector<Value> out2 = RunModel(*s2, {"x0", "x1"}, {x0, y}, {"y0", "y1"});
  EXPECT_EQ(ItemValues<float>(out2[0], 2, Shape({4})), F(4, 0.75f));
  EXPECT_EQ(ItemValues<float>(out2[1], 2, Shape({3})), (F{4, 5, 6}));
  EXPECT_EQ(ItemValues<float>(out2[1], 0, Shape({2})), (F{1, 2}));
  // An empty input sequence gives empty sequences of the body's declared element type.
  Value none = Seq(DataType::kFloat, {});
  std::vector<Value> empty = RunModel(*s2, {"x0", "x1"}, {none, none}, {"y0", "y1"});
  EXPECT_TRUE(SeqOf(empty[0]).tensors.empty());
  EXPECT_EQ(empty[1].TypeText(), "seq(tensor(float))");
}

TEST(SequenceMap, ExtractShapesMirrorsTheSharedCase) {
  ::kiln_onnx::ModelProto m = Model(17);
  auto* g = m.mutable_graph();
  SeqIo(g->add_input(), "in_seq", kFloat);
  SeqIo(g->add_output(), "shapes", kInt64);
  auto* body = GraphAttr(Node(g, "SequenceMap", {"in_seq"}, {"shapes"}), "body");
  TensorIo(body->add_input(), "x", kFloat);
  Node(body, "Shape", {"x"}, {"shape"});
  TensorIo(body->add_output(), "shape", kInt64);
  auto s = Load(m);
  Value in = Seq(DataType::kFloat, {MakeTensor<float>({40, 30, 3}, F(3600, 0)),
                                    MakeTensor<float>({20, 10, 3}, F(600, 0)),
                                    MakeTensor<float>({10, 5, 3}, F(150, 0))});
  std::vector<Value> out = RunModel(*s, {"in_seq"}, {in}, {"shapes"});
  EXPECT_EQ(SeqOf(out[0]).elem_type, DataType::kInt64);
  EXPECT_EQ(ItemValues<int64_t>(out[0], 0, Shape({3})), (std::vector<int64_t>{40, 30, 3}));
  EXPECT_EQ(ItemValues<int64_t>(out[0], 1, Shape({3})), (std::vector<int64_t>{20, 10, 3}));
  EXPECT_EQ(ItemValues<int64_t>(out[0], 2, Shape({3})), (std::vector<int64_t>{10, 5, 3}));
}

TEST(SequenceMap, Errors) {
  // A body whose output is a sequence.
  ::kiln_onnx::ModelProto m = Model(17);
  auto* g = m.mutable_graph();
  SeqIo(g->add_input(), "x", kFloat);
  SeqIo(g->add_output(), "y", kFloat);
  auto* body = GraphAttr(Node(g, "SequenceMap", {"x"}, {"y"}), "body");
  TensorIo(body->add_input(), "e", kFloat);
  Node(body, "SequenceConstruct", {"e"}, {"s"});
  SeqIo(body->add_output(), "s", kFloat);
  auto s = Load(m);
  Value x = Seq(DataType::kFloat, {MakeTensor<float>({1}, {1})});
  try {
    RunModel(*s, {"x"}, {x}, {"y"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("body output 0 is a seq(tensor(float)), not a tensor"),
              std::string::npos)
        << e.what();
  }
  // A body that takes another number of inputs than the node has is refused at load.
  ::kiln_onnx::ModelProto bad = Model(17);
  auto* bg = bad.mutable_graph();
  SeqIo(bg->add_input(), "x", kFloat);
  SeqIo(bg->add_output(), "y", kFloat);
  auto* bb = GraphAttr(Node(bg, "SequenceMap", {"x"}, {"y"}), "body");
  TensorIo(bb->add_input(), "a", kFloat);
  TensorIo(bb->add_input(), "b", kFloat);
  Node(bb, "Add", {"a", "b"}, {"c"});
  TensorIo(bb->add_output(), "c", kFloat);
  try {
    Load(bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the body takes 2 inputs, the node has 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(SequenceControlFlow, IfSeqMirrorsTestIfSeq) {
  ::kiln_onnx::ModelProto m = Model(13);
  auto* g = m.mutable_graph();
  TensorIo(g->add_input(), "cond", kBool);
  SeqIo(g->add_output(), "res", kFloat);
  auto* n = Node(g, "If", {"cond"}, {"res"});
  auto* then_g = GraphAttr(n, "then_branch");
  ConstantF(then_g, "x", {1, 2, 3, 4, 5});
  Node(then_g, "SequenceConstruct", {"x"}, {"then_out"});
  SeqIo(then_g->add_output(), "then_out", kFloat);
  auto* else_g = GraphAttr(n, "else_branch");
  ConstantF(else_g, "y", {5, 4, 3, 2, 1});
  Node(else_g, "SequenceConstruct", {"y"}, {"else_out"});
  SeqIo(else_g->add_output(), "else_out", kFloat);
  auto s = Load(m);
  std::vector<Value> out = RunModel(*s, {"cond"}, {MakeTensor<bool>({}, {true})}, {"res"});
  EXPECT_EQ(ItemValues<float>(out[0], 0, Shape({5})), (F{1, 2, 3, 4, 5}));
  out = RunModel(*s, {"cond"}, {MakeTensor<bool>({}, {false})}, {"res"});
  EXPECT_EQ(ItemValues<float>(out[0], 0, Shape({5})), (F{5, 4, 3, 2, 1}));
}

TEST(SequenceControlFlow, IfOptMirrorsTestIfOpt) {
  ::kiln_onnx::ModelProto m = Model(16);
  auto* g = m.mutable_graph();
  TensorIo(g->add_input(), "cond", kBool);
  OptSeqIo(g->add_output(), "sequence", kFloat);
  auto* n = Node(g, "If", {"cond"}, {"sequence"});
  auto* then_g = GraphAttr(n, "then_branch");
  auto* empty = Node(then_g, "Optional", {}, {"optional_empty"});
  auto* type = empty->add_attribute();
  type->set_name("type");
  type->set_type(::kiln_onnx::AttributeProto::TYPE_PROTO);
  SeqType(type->mutable_tp(), kFloat);
  OptSeqIo(then_g->add_output(), "optional_empty", kFloat);
  auto* else_g = GraphAttr(n, "else_branch");
  ConstantF(else_g, "x", {1, 2, 3, 4, 5});
  Node(else_g, "SequenceConstruct", {"x"}, {"else_seq"});
  Node(else_g, "Optional", {"else_seq"}, {"else_opt"});
  OptSeqIo(else_g->add_output(), "else_opt", kFloat);
  auto s = Load(m);
  // The case's data: cond false gives optional([[1, 2, 3, 4, 5]]).
  std::vector<Value> out = RunModel(*s, {"cond"}, {MakeTensor<bool>({}, {false})}, {"sequence"});
  ASSERT_EQ(out[0].kind(), Value::Kind::kOptional);
  ASSERT_TRUE(out[0].has_value());
  EXPECT_EQ(ItemValues<float>(out[0].Content(), 0, Shape({5})), (F{1, 2, 3, 4, 5}));
  // cond true: the empty optional, typed from the branch output's declared type.
  out = RunModel(*s, {"cond"}, {MakeTensor<bool>({}, {true})}, {"sequence"});
  ASSERT_EQ(out[0].kind(), Value::Kind::kOptional);
  EXPECT_FALSE(out[0].has_value());
  EXPECT_EQ(out[0].TypeText(), "optional(seq(tensor(float)))");
}

// The body shared by test_loop13_seq and test_loop16_seq_none: appends x[0:i+1] (x = 1..5) to
// the sequence `seq`, giving `seq_out`.
void AppendSlice(::kiln_onnx::GraphProto* body, const std::string& seq) {
  ConstantF(body, "x", {1, 2, 3, 4, 5});
  ConstantI(body, "one", {1}, true);
  ConstantI(body, "slice_start", {0}, false);
  Node(body, "Add", {"iter_count", "one"}, {"end"});
  ConstantI(body, "axes", {0}, true);
  Node(body, "Unsqueeze", {"end", "axes"}, {"slice_end"});
  Node(body, "Slice", {"x", "slice_start", "slice_end"}, {"slice_out"});
  Node(body, "SequenceInsert", {seq, "slice_out"}, {"seq_out"});
}

void ExpectPrefixes(const Value& v, size_t first) {
  for (size_t k = 1; k <= 5; ++k) {
    F want;
    for (size_t i = 1; i <= k; ++i) want.push_back(static_cast<float>(i));
    EXPECT_EQ(ItemValues<float>(v, first + k - 1, Shape({static_cast<int64_t>(k)})), want);
  }
}

TEST(SequenceControlFlow, LoopSeqMirrorsTestLoop13Seq) {
  ::kiln_onnx::ModelProto m = Model(13);
  auto* g = m.mutable_graph();
  TensorIo(g->add_input(), "trip_count", kInt64);
  TensorIo(g->add_input(), "cond", kBool);
  SeqIo(g->add_input(), "seq_empty", kFloat);
  SeqIo(g->add_output(), "seq_res", kFloat);
  auto* body = GraphAttr(Node(g, "Loop", {"trip_count", "cond", "seq_empty"}, {"seq_res"}), "body");
  TensorIo(body->add_input(), "iter_count", kInt64);
  TensorIo(body->add_input(), "cond_in", kBool);
  SeqIo(body->add_input(), "seq_in", kFloat);
  Node(body, "Identity", {"cond_in"}, {"cond_out"});
  AppendSlice(body, "seq_in");
  TensorIo(body->add_output(), "cond_out", kBool);
  SeqIo(body->add_output(), "seq_out", kFloat);
  auto s = Load(m);
  std::vector<Value> out = RunModel(
      *s, {"trip_count", "cond", "seq_empty"},
      {MakeTensor<int64_t>({}, {5}), MakeTensor<bool>({}, {true}), Seq(DataType::kFloat, {})},
      {"seq_res"});
  ASSERT_EQ(SeqOf(out[0]).tensors.size(), 5u);
  ExpectPrefixes(out[0], 0);
}

TEST(SequenceControlFlow, LoopOptionalSeqMirrorsTestLoop16SeqNone) {
  ::kiln_onnx::ModelProto m = Model(16);
  auto* g = m.mutable_graph();
  TensorIo(g->add_input(), "trip_count", kInt64);
  TensorIo(g->add_input(), "cond", kBool);
  OptSeqIo(g->add_input(), "opt_seq", kFloat);
  SeqIo(g->add_output(), "seq_res", kFloat);
  auto* body = GraphAttr(Node(g, "Loop", {"trip_count", "cond", "opt_seq"}, {"seq_res"}), "body");
  TensorIo(body->add_input(), "iter_count", kInt64);
  TensorIo(body->add_input(), "cond_in", kBool);
  OptSeqIo(body->add_input(), "opt_seq_in", kFloat);
  Node(body, "Identity", {"cond_in"}, {"cond_out"});
  Node(body, "OptionalHasElement", {"opt_seq_in"}, {"optional_has_elem"});
  Node(body, "Not", {"optional_has_elem"}, {"optional_is_none"});
  auto* n = Node(body, "If", {"optional_is_none"}, {"sequence"});
  auto* then_g = GraphAttr(n, "then_branch");
  ConstantF(then_g, "constant_in", {0}, true);
  Node(then_g, "SequenceConstruct", {"constant_in"}, {"init_seq_in"});
  SeqIo(then_g->add_output(), "init_seq_in", kFloat);
  auto* else_g = GraphAttr(n, "else_branch");
  Node(else_g, "OptionalGetElement", {"opt_seq_in"}, {"seq_in"});
  SeqIo(else_g->add_output(), "seq_in", kFloat);
  AppendSlice(body, "sequence");
  TensorIo(body->add_output(), "cond_out", kBool);
  SeqIo(body->add_output(), "seq_out", kFloat);
  auto s = Load(m);
  const std::vector<std::string> names = {"trip_count", "cond", "opt_seq"};
  // The case's data: optional([0.0]) in, [0.0, [1], [1,2], …, [1..5]] out.
  Value start = Value::OptionalOf(Seq(DataType::kFloat, {MakeTensor<float>({}, {0})}));
  std::vector<Value> out = RunModel(
      *s, names, {MakeTensor<int64_t>({}, {5}), MakeTensor<bool>({}, {true}), start}, {"seq_res"});
  ASSERT_EQ(SeqOf(out[0]).tensors.size(), 6u);
  EXPECT_EQ(ItemValues<float>(out[0], 0, Shape(std::vector<int64_t>{})), (F{0}));
  ExpectPrefixes(out[0], 1);
  // An empty optional in: the then branch starts the sequence with 0.0, the same result.
  Value none = Value::EmptyOptional(Value::Kind::kSequence, DataType::kFloat);
  out = RunModel(*s, names, {MakeTensor<int64_t>({}, {5}), MakeTensor<bool>({}, {true}), none},
                 {"seq_res"});
  ASSERT_EQ(SeqOf(out[0]).tensors.size(), 6u);
  ExpectPrefixes(out[0], 1);
}

}  // namespace
}  // namespace kiln::testing
