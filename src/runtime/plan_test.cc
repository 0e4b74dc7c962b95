// Inference at load, constant folding and the per-run arena (runtime/plan.h, inference.h).
#include "runtime/plan.h"

#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "kernels/registry.h"
#include "onnx/loader.h"
#include "runtime/executor.h"
#include "runtime/session.h"

namespace kiln::runtime {
namespace {

void SetType(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem,
             const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

void AddInt64Initializer(::kiln_onnx::GraphProto* g, const std::string& name,
                         const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::kiln_onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
}

::kiln_onnx::NodeProto* AddNode(::kiln_onnx::GraphProto* g, const std::string& name,
                                const std::string& op, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs) {
  auto* n = g->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

// Concat's axis 0, as shapes are put together.
::kiln_onnx::AttributeProto AxisZero() {
  ::kiln_onnx::AttributeProto a;
  a.set_name("axis");
  a.set_type(::kiln_onnx::AttributeProto::INT);
  a.set_i(0);
  return a;
}

::kiln_onnx::ModelProto NewModel() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  return m;
}

// y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): torch's way of flattening all
// but the first dimension of x [2,3,4].
::kiln_onnx::ModelProto FlattenByShapeSubgraph() {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  SetType(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {2, 12});
  AddInt64Initializer(g, "zero", {}, {0});
  AddInt64Initializer(g, "axes", {1}, {0});
  AddInt64Initializer(g, "minus_one", {1}, {-1});
  AddNode(g, "shape", "Shape", {"x"}, {"s"});
  AddNode(g, "gather", "Gather", {"s", "zero"}, {"batch"});
  AddNode(g, "unsqueeze", "Unsqueeze", {"batch", "axes"}, {"batch1"});
  AddNode(g, "concat", "Concat", {"batch1", "minus_one"}, {"target"})
      ->add_attribute()
      ->CopyFrom(AxisZero());
  AddNode(g, "reshape", "Reshape", {"x", "target"}, {"r"});
  AddNode(g, "relu", "Relu", {"r"}, {"y"});
  return m;
}

std::unique_ptr<Session> Create(const ::kiln_onnx::ModelProto& m, int level = 3) {
  const std::string bytes = m.SerializeAsString();
  SessionOptions options;
  options.optimization_level = level;
  return std::make_unique<Session>(onnx::LoadModelBytes(bytes.data(), bytes.size(), ""), options);
}

std::vector<float> RunFloat(const Session& s, const std::string& input, const Shape& shape,
                            const std::vector<float>& values, const std::string& output) {
  std::shared_ptr<Tensor> x = Tensor::Allocate(DataType::kFloat, shape, CpuAllocator());
  if (!values.empty()) std::memcpy(x->data(), values.data(), values.size() * sizeof(float));
  std::vector<std::string> in_names{input}, out_names{output};
  std::vector<Value> in{Value(x)}, others(1);
  std::vector<std::shared_ptr<Tensor>> out(1);
  s.Run(RunOptions(), in_names, in, out_names, out, others);
  const float* p = static_cast<const float*>(out[0]->data());
  return std::vector<float>(p, p + out[0]->element_count());
}

std::vector<float> Ramp(size_t n, float first) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = first + static_cast<float>(i);
  return v;
}

TEST(PlanInference, ShapeSubgraphIsFoldedAndTheReshapeBecomesStatic) {
  // The planner's own folding (a session's optimizer folds before the planner sees the graph).
  const std::string bytes = FlattenByShapeSubgraph().SerializeAsString();
  const ir::Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  const GraphPlan plan(*model.graph, CpuKernels(), {.infer = true, .fold_constants = true});
  EXPECT_EQ(plan.folded_steps(), 4u);  // Shape, Gather, Unsqueeze, Concat
  // Only the folded value a remaining step reads stays: the Reshape target, not s/batch/batch1.
  auto is_constant = [&](const char* name) {
    const int slot = plan.SlotNamed(name);
    for (const auto& c : plan.constants()) {
      if (c.first == slot) return true;
    }
    return false;
  };
  EXPECT_TRUE(is_constant("target"));
  EXPECT_FALSE(is_constant("s"));
  EXPECT_FALSE(is_constant("batch1"));
  ASSERT_EQ(plan.steps().size(), 2u);
  EXPECT_EQ(plan.steps()[0].node->op_type(), "Reshape");
  const infer::TensorFacts& r = plan.Facts(plan.SlotNamed("r"));
  EXPECT_EQ(r.type, DataType::kFloat);
  ASSERT_TRUE(r.shape.has_value());
  EXPECT_EQ(r.shape->dims(), (std::vector<int64_t>{2, 12}));
  EXPECT_GE(plan.ArenaOffset(plan.SlotNamed("r")), 0);
  EXPECT_GE(plan.ArenaOffset(plan.SlotNamed("y")), 0);

  const std::vector<float> x = Ramp(24, -12.0f);
  std::vector<float> want(24);
  for (size_t i = 0; i < 24; ++i) want[i] = x[i] > 0 ? x[i] : 0.0f;
  std::unique_ptr<Session> s = Create(FlattenByShapeSubgraph());
  EXPECT_EQ(s->plan().steps().size(), 2u);  // the optimizer folded the same four
  EXPECT_EQ(RunFloat(*s, "x", Shape({2, 3, 4}), x, "y"), want);
}

// y = Loop(3 times) { v = Reshape(v + x, shape) } from v = x: x and shape captured by the body.
::kiln_onnx::ModelProto LoopOverCapturedValues() {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2});
  SetType(g->add_input(), "shape", ::kiln_onnx::TensorProto::INT64, {1});
  SetType(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {});
  AddInt64Initializer(g, "trips", {}, {3});
  ::kiln_onnx::NodeProto* loop = AddNode(g, "loop", "Loop", {"trips", "", "x"}, {"y"});
  ::kiln_onnx::AttributeProto* body_attr = loop->add_attribute();
  body_attr->set_name("body");
  body_attr->set_type(::kiln_onnx::AttributeProto::GRAPH);
  ::kiln_onnx::GraphProto* body = body_attr->mutable_g();
  body->set_name("body");
  SetType(body->add_input(), "i", ::kiln_onnx::TensorProto::INT64, {});
  SetType(body->add_input(), "cond_in", ::kiln_onnx::TensorProto::BOOL, {});
  SetType(body->add_input(), "v_in", ::kiln_onnx::TensorProto::FLOAT, {});
  SetType(body->add_output(), "cond_out", ::kiln_onnx::TensorProto::BOOL, {});
  SetType(body->add_output(), "v_out", ::kiln_onnx::TensorProto::FLOAT, {});
  AddNode(body, "add", "Add", {"v_in", "x"}, {"sum"});
  AddNode(body, "reshape", "Reshape", {"sum", "shape"}, {"v_out"});
  AddNode(body, "keep", "Identity", {"cond_in"}, {"cond_out"});
  return m;
}

// A subgraph's child frame is kept from one entry to the next (Frame::TakeChild): every
// iteration and every run must still see that run's captured values, and a run whose body fails
// must leave nothing behind for the next.
TEST(SubgraphFrames, KeptFramesSeeEachRunsCapturedValuesAndSurviveAFailure) {
  std::unique_ptr<Session> s = Create(LoopOverCapturedValues());
  const auto run = [&](const std::vector<float>& x, int64_t shape) {
    std::shared_ptr<Tensor> xt = Tensor::Allocate(DataType::kFloat, Shape({2}), CpuAllocator());
    std::memcpy(xt->data(), x.data(), 2 * sizeof(float));
    std::shared_ptr<Tensor> st = Tensor::Allocate(DataType::kInt64, Shape({1}), CpuAllocator());
    *static_cast<int64_t*>(st->data()) = shape;
    std::vector<std::string> in_names{"x", "shape"}, out_names{"y"};
    std::vector<Value> in{Value(xt), Value(st)}, others(1);
    std::vector<std::shared_ptr<Tensor>> out(1);
    s->Run(RunOptions(), in_names, in, out_names, out, others);
    const float* p = static_cast<const float*>(out[0]->data());
    return std::vector<float>(p, p + out[0]->element_count());
  };
  EXPECT_EQ(run({1, 2}, 2), (std::vector<float>{4, 8}));
  EXPECT_EQ(run({10, 20}, 2), (std::vector<float>{40, 80}));
  try {
    run({1, 2}, 3);  // Reshape of 2 elements to [3], in the body's first iteration
    ADD_FAILURE() << "the body's Reshape did not fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reshape"), std::string::npos) << e.what();
  }
  EXPECT_EQ(run({1, 1}, 2), (std::vector<float>{4, 4}));
  EXPECT_EQ(run({-1, 0.5f}, 2), (std::vector<float>{-4, 2}));
}

TEST(PlanInference, LevelZeroInfersButKeepsEveryStep) {
  std::unique_ptr<Session> s = Create(FlattenByShapeSubgraph(), 0);
  EXPECT_EQ(s->plan().folded_steps(), 0u);
  EXPECT_EQ(s->plan().steps().size(), 6u);
  const infer::TensorFacts& r = s->plan().Facts(s->plan().SlotNamed("r"));
  ASSERT_TRUE(r.shape.has_value());
  EXPECT_EQ(r.shape->dims(), (std::vector<int64_t>{2, 12}));
  const std::vector<float> x = Ramp(24, -3.0f);
  EXPECT_EQ(RunFloat(*s, "x", Shape({2, 3, 4}), x, "y"),
            RunFloat(*Create(FlattenByShapeSubgraph(), 3), "x", Shape({2, 3, 4}), x, "y"));
}

TEST(PlanInference, AStaticContradictionIsAnErrorAtLoadNamingTheNode) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "a", ::kiln_onnx::TensorProto::FLOAT, {2, 3});
  SetType(g->add_input(), "b", ::kiln_onnx::TensorProto::FLOAT, {4, 5});
  SetType(g->add_output(), "c", ::kiln_onnx::TensorProto::FLOAT, {});
  AddNode(g, "mm", "MatMul", {"a", "b"}, {"c"});
  try {
    Create(m);
    ADD_FAILURE() << "created without error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph) << e.what();
    EXPECT_NE(std::string(e.what()).find("node 'mm' (MatMul)"), std::string::npos) << e.what();
  }
}

TEST(PlanInference, ShapeOfAScalarFoldsToAnEmptyTensor) {
  // Found by the loader fuzzer: folding Shape of a rank-0 value copied from a null buffer.
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {});
  SetType(g->add_output(), "s", ::kiln_onnx::TensorProto::INT64, {0});
  AddNode(g, "shape", "Shape", {"x"}, {"s"});
  std::unique_ptr<Session> s = Create(m);
  EXPECT_TRUE(s->plan().steps().empty());  // folded by the optimizer's constant folding
  std::shared_ptr<Tensor> x = Tensor::Allocate(DataType::kFloat, Shape(), CpuAllocator());
  std::vector<std::string> in_names{"x"}, out_names{"s"};
  std::vector<Value> in{Value(x)}, others(1);
  std::vector<std::shared_ptr<Tensor>> out(1);
  s->Run(RunOptions(), in_names, in, out_names, out, others);
  EXPECT_EQ(out[0]->shape().dims(), (std::vector<int64_t>{0}));
}

// A chain y = relu(relu(...relu(x))) of `n` steps over float [64].
::kiln_onnx::ModelProto ReluChain(int n) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "v0", ::kiln_onnx::TensorProto::FLOAT, {64});
  for (int i = 0; i < n; ++i) {
    AddNode(g, "relu" + std::to_string(i), "Relu", {"v" + std::to_string(i)},
            {"v" + std::to_string(i + 1)});
  }
  SetType(g->add_output(), "v" + std::to_string(n), ::kiln_onnx::TensorProto::FLOAT, {64});
  return m;
}

// ReluChain(2), then v_i = v_{i-1} + v_{i-2} for i = 3..last, which keeps two values alive at
// once; the output is v<last>.
::kiln_onnx::ModelProto AddChain(int last) {
  ::kiln_onnx::ModelProto m = ReluChain(2);
  auto* g = m.mutable_graph();
  for (int i = 3; i <= last; ++i) {
    AddNode(g, "add" + std::to_string(i), "Add",
            {"v" + std::to_string(i - 1), "v" + std::to_string(i - 2)}, {"v" + std::to_string(i)});
  }
  g->mutable_output(0)->set_name("v" + std::to_string(last));
  return m;
}

// What AddChain(last) computes from x.
std::vector<float> AddChainReference(const std::vector<float>& x, int last) {
  std::vector<float> a(x.size()), b;
  for (size_t i = 0; i < x.size(); ++i) a[i] = x[i] > 0 ? x[i] : 0.0f;
  b = a;  // v1, v2
  for (int i = 3; i <= last; ++i) {
    std::vector<float> c(x.size());
    for (size_t k = 0; k < x.size(); ++k) c[k] = b[k] + a[k];
    a = b;
    b = c;
  }
  return b;
}

// Expects the step outputs that `offset(slot)` places (>= 0), each `bytes` long, never to overlap
// while both are alive (from the step that makes one to the step that releases it; graph
// outputs to the end). Returns how many are placed.
template <typename Offset>
size_t ExpectLiveBuffersDisjoint(const GraphPlan& plan, Offset offset, int64_t bytes) {
  struct Range {
    size_t first, last;
    int64_t offset;
  };
  std::vector<Range> ranges;
  for (size_t k = 0; k < plan.steps().size(); ++k) {
    for (int slot : plan.steps()[k].outputs) {
      if (offset(slot) < 0) continue;
      size_t last = plan.steps().size();
      for (size_t j = k; j < plan.steps().size(); ++j) {
        for (int r : plan.steps()[j].release) {
          if (r == slot) last = j;
        }
      }
      ranges.push_back({k, last, offset(slot)});
    }
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      if (ranges[i].first <= ranges[j].last && ranges[j].first <= ranges[i].last) {
        EXPECT_TRUE(ranges[i].offset + bytes <= ranges[j].offset ||
                    ranges[j].offset + bytes <= ranges[i].offset)
            << i << " and " << j;
      }
    }
  }
  return ranges.size();
}

TEST(PlanArena, BuffersAliveAtTheSameTimeNeverOverlapAndDeadOnesAreReused) {
  std::unique_ptr<Session> s = Create(AddChain(12));
  const GraphPlan& plan = s->plan();
  // Every intermediate and the output are planned; 64 floats each.
  EXPECT_EQ(ExpectLiveBuffersDisjoint(
                plan, [&](int slot) { return plan.ArenaOffset(slot); }, 256),
            12u);
  EXPECT_LT(plan.arena_bytes(), 12u * 256u) << "dead buffers are reused";
  EXPECT_GE(plan.arena_bytes(), 3u * 256u) << "three buffers are alive at once";

  const std::vector<float> x = Ramp(64, -32.0f);
  const std::vector<float> b = AddChainReference(x, 12);
  EXPECT_EQ(RunFloat(*s, "v0", Shape({64}), x, "v12"), b);
  EXPECT_EQ(RunFloat(*s, "v0", Shape({64}), x, "v12"), b) << "a second run, from the pool";
}

// Views share their input's buffer: r = Relu(x) [2,3,4]; v = Reshape(r, [6,4]); u = Unsqueeze(v,
// [0]) [1,6,4]; t = Transpose(u, [1,0,2]) [6,1,4] (moves only the axis of size 1); w = Relu(t);
// q = Transpose(w, [2,1,0]) [4,1,6] (a real one); z = Reshape(q, [2,3,4]); y = z + r. r is read
// last, so its buffer (shared by v, u and t) must outlive w and q.
TEST(PlanArena, AViewSharesItsInputsBufferWhichLivesAsLongAsEither) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  SetType(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  AddInt64Initializer(g, "six_four", {2}, {6, 4});
  AddInt64Initializer(g, "two_three_four", {3}, {2, 3, 4});
  AddInt64Initializer(g, "axis0", {1}, {0});
  const auto perm = [](const std::vector<int64_t>& p) {
    ::kiln_onnx::AttributeProto a;
    a.set_name("perm");
    a.set_type(::kiln_onnx::AttributeProto::INTS);
    for (int64_t v : p) a.add_ints(v);
    return a;
  };
  AddNode(g, "relu_r", "Relu", {"x"}, {"r"});
  AddNode(g, "reshape_v", "Reshape", {"r", "six_four"}, {"v"});
  AddNode(g, "unsqueeze_u", "Unsqueeze", {"v", "axis0"}, {"u"});
  AddNode(g, "transpose_t", "Transpose", {"u"}, {"t"})->add_attribute()->CopyFrom(perm({1, 0, 2}));
  AddNode(g, "relu_w", "Relu", {"t"}, {"w"});
  AddNode(g, "transpose_q", "Transpose", {"w"}, {"q"})->add_attribute()->CopyFrom(perm({2, 1, 0}));
  AddNode(g, "reshape_z", "Reshape", {"q", "two_three_four"}, {"z"});
  AddNode(g, "add_y", "Add", {"z", "r"}, {"y"});
  std::unique_ptr<Session> s = Create(m, 0);
  const GraphPlan& plan = s->plan();
  const auto offset = [&](const char* name) { return plan.ArenaOffset(plan.SlotNamed(name)); };
  const auto shares = [&](const char* name) {
    return plan.SharesInputBuffer(plan.SlotNamed(name));
  };
  ASSERT_GE(offset("r"), 0);
  for (const char* view : {"v", "u", "t"}) {
    EXPECT_EQ(offset(view), offset("r")) << view;
    EXPECT_TRUE(shares(view)) << view;
  }
  EXPECT_TRUE(shares("z"));
  EXPECT_EQ(offset("z"), offset("q"));
  for (const char* own : {"r", "w", "q"}) EXPECT_FALSE(shares(own)) << own;
  // r's buffer is live until the Add, so w and q (96 bytes each, 128 with alignment) are elsewhere.
  for (const char* other : {"w", "q"}) {
    EXPECT_TRUE(offset(other) + 128 <= offset("r") || offset("r") + 128 <= offset(other)) << other;
  }
  EXPECT_TRUE(offset("w") + 128 <= offset("q") || offset("q") + 128 <= offset("w"));

  const std::vector<float> x = Ramp(24, -11.5f);
  std::vector<float> r(24), want(24);
  for (size_t i = 0; i < 24; ++i) r[i] = x[i] > 0 ? x[i] : 0.0f;
  // q [4,1,6] from w = r viewed as [6,1,4]: q[k][0][i] = r[i·4 + k].
  for (size_t k = 0; k < 4; ++k) {
    for (size_t i = 0; i < 6; ++i) want[k * 6 + i] = r[i * 4 + k] + r[k * 6 + i];
  }
  EXPECT_EQ(RunFloat(*s, "x", Shape({2, 3, 4}), x, "y"), want);
  EXPECT_EQ(RunFloat(*s, "x", Shape({2, 3, 4}), x, "y"), want) << "a second run, from the pool";
}

// String tensors own their strings, so they are never placed in the arena: a static model whose
// intermediate and output are strings runs again and again (the Python package found the second
// run of Identity on a string input failing, the arena wrapping a string tensor).
TEST(PlanArena, StringValuesAreNeverPlacedInTheArena) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::STRING, {2});
  SetType(g->add_output(), "y", ::kiln_onnx::TensorProto::STRING, {2});
  AddNode(g, "first", "Identity", {"x"}, {"i"});
  AddNode(g, "second", "Identity", {"i"}, {"y"});
  std::unique_ptr<Session> s = Create(m, 0);
  const GraphPlan& plan = s->plan();
  EXPECT_LT(plan.ArenaOffset(plan.SlotNamed("i")), 0);
  EXPECT_LT(plan.ArenaOffset(plan.SlotNamed("y")), 0);
  for (int run = 0; run < 3; ++run) {
    std::shared_ptr<Tensor> x = Tensor::Allocate(DataType::kString, Shape({2}), CpuAllocator());
    x->strings()[0] = "kiln";
    x->strings()[1] = "strings";
    std::vector<std::string> in_names{"x"}, out_names{"y"};
    std::vector<Value> in{Value(x)}, others(1);
    std::vector<std::shared_ptr<Tensor>> out(1);
    s->Run(RunOptions(), in_names, in, out_names, out, others);
    ASSERT_NE(out[0], nullptr) << "run " << run;
    EXPECT_EQ(out[0]->strings()[0], "kiln") << "run " << run;
    EXPECT_EQ(out[0]->strings()[1], "strings") << "run " << run;
  }
}

// r = Relu(x) [2,3,4] is an output that a view (v = Reshape(r, [6,4])) reads on; y =
// Reshape(Neg(v), [2,3,4]) is the other output. An output the caller leaves to the run is made
// outside the arena and handed over as it is; one it gives a tensor for is computed in the arena
// and copied into that tensor.
TEST(PlanArena, AnOutputTheCallerLeavesToTheRunIsMadeOutsideTheArenaAndHandedOver) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  SetType(g->add_output(), "r", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  SetType(g->add_output(), "y", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  AddInt64Initializer(g, "six_four", {2}, {6, 4});
  AddInt64Initializer(g, "two_three_four", {3}, {2, 3, 4});
  AddNode(g, "relu_r", "Relu", {"x"}, {"r"});
  AddNode(g, "reshape_v", "Reshape", {"r", "six_four"}, {"v"});
  AddNode(g, "neg_w", "Neg", {"v"}, {"w"});
  AddNode(g, "reshape_y", "Reshape", {"w", "two_three_four"}, {"y"});
  std::unique_ptr<Session> s = Create(m, 0);
  const GraphPlan& plan = s->plan();
  ASSERT_TRUE(plan.has_arena());
  ASSERT_TRUE(plan.SharesInputBuffer(plan.SlotNamed("v"))) << "v is planned on r's buffer";

  const std::vector<float> x = Ramp(24, -11.5f);
  std::vector<float> r(24), y(24);
  for (size_t i = 0; i < 24; ++i) {
    r[i] = x[i] > 0 ? x[i] : 0.0f;
    y[i] = -r[i];
  }
  const auto values = [](const Tensor& t) {
    const float* p = static_cast<const float*>(t.data());
    return std::vector<float>(p, p + t.element_count());
  };
  std::shared_ptr<Tensor> in = Tensor::Allocate(DataType::kFloat, Shape({2, 3, 4}), CpuAllocator());
  std::memcpy(in->data(), x.data(), x.size() * sizeof(float));

  // The frame: with HandOver, r is a tensor of its own, and TakeTensorOutput gives that tensor.
  ThreadPool pool(1);
  RunContext ctx{pool, std::make_shared<CachingAllocator>()};
  Frame frame(plan, nullptr, ctx);
  for (const bool hand_over : {true, false, true}) {
    frame.SetInput(0, Value(in));
    if (hand_over) frame.HandOver(0);
    frame.Execute();
    const Tensor* made = frame.Output(0).tensor().get();
    EXPECT_EQ(frame.InArena(*made), !hand_over);
    EXPECT_TRUE(frame.InArena(*frame.Output(1).tensor())) << "y was not handed over";
    const std::shared_ptr<Tensor> taken = frame.TakeTensorOutput(0);
    EXPECT_EQ(taken.get() == made, hand_over) << "handed over, or copied";
    EXPECT_EQ(values(*taken), r);
    EXPECT_EQ(values(*frame.TakeTensorOutput(1)), y);
    frame.Clear();
    frame.Reset(ctx);
  }

  // The session: outputs left to the run, given, and mixed, twice each (frames come from a pool).
  for (int round = 0; round < 2; ++round) {
    for (const int given : {0, 1, 2, 3}) {  // bit k: the caller gives output k a tensor
      std::vector<std::string> in_names{"x"}, out_names{"r", "y"};
      std::vector<Value> inputs{Value(in)}, others(2);
      std::vector<std::shared_ptr<Tensor>> out(2);
      for (size_t k = 0; k < 2; ++k) {
        if ((given >> k) & 1) {
          out[k] = Tensor::Allocate(DataType::kFloat, Shape({2, 3, 4}), CpuAllocator());
        }
      }
      const std::vector<std::shared_ptr<Tensor>> before = out;
      s->Run(RunOptions(), in_names, inputs, out_names, out, others);
      for (size_t k = 0; k < 2; ++k) {
        if ((given >> k) & 1) {
          EXPECT_EQ(out[k], before[k]) << "written in place";
        }
        ASSERT_NE(out[k], nullptr);
      }
      EXPECT_EQ(values(*out[0]), r) << given;
      EXPECT_EQ(values(*out[1]), y) << given;
    }
  }
}

TEST(PlanInference, AWrongValueInfoIsNotTrusted) {
  // v0 [64] -> Relu -> v1 -> Shape -> s. The exporter claims v1 is [5]: neither the plan nor the
  // folded Shape may believe it.
  ::kiln_onnx::ModelProto m = ReluChain(1);
  auto* g = m.mutable_graph();
  SetType(g->add_value_info(), "v1", ::kiln_onnx::TensorProto::FLOAT, {5});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();  // any [n]
  AddNode(g, "shape", "Shape", {"v1"}, {"s"});
  SetType(g->add_output(), "s", ::kiln_onnx::TensorProto::INT64, {1});
  std::unique_ptr<Session> s = Create(m);
  EXPECT_FALSE(s->plan().Facts(s->plan().SlotNamed("v1")).shape.has_value());
  EXPECT_EQ(s->plan().folded_steps(), 0u);
  std::shared_ptr<Tensor> x = Tensor::Allocate(DataType::kFloat, Shape({64}), CpuAllocator());
  std::vector<std::string> in_names{"v0"}, out_names{"s"};
  std::vector<Value> in{Value(x)}, others(1);
  std::vector<std::shared_ptr<Tensor>> out(1);
  s->Run(RunOptions(), in_names, in, out_names, out, others);
  ASSERT_EQ(out[0]->element_count(), 1u);
  EXPECT_EQ(*static_cast<const int64_t*>(out[0]->data()), 64);
}

TEST(PlanArena, FreeDimensionsLeaveTheirValuesToRunTime) {
  ::kiln_onnx::ModelProto m = ReluChain(3);
  auto* dim = m.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(0);
  dim->set_dim_param("n");
  std::unique_ptr<Session> s = Create(m);
  EXPECT_LT(s->plan().ArenaOffset(s->plan().SlotNamed("v1")), 0);
  EXPECT_EQ(s->plan().arena_bytes(), 0u);
  const std::vector<float> x = Ramp(10, -5.0f);
  std::vector<float> want(10);
  for (size_t i = 0; i < 10; ++i) want[i] = x[i] > 0 ? x[i] : 0.0f;
  EXPECT_EQ(RunFloat(*s, "v0", Shape({10}), x, "v3"), want);
}

// A kernel that records what SpecializeForShapes hands it (the dims of each input, or "?" when
// nothing is known) under its node's name.
std::vector<std::string>& SpecializeCalls() {
  static std::vector<std::string> calls;
  return calls;
}

class ProbeKernel final : public Kernel {
 public:
  explicit ProbeKernel(const KernelInfo& info) : name_(info.name()) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    std::memcpy(y.data(), x.data(), x.element_count() * sizeof(float));
  }
  void SpecializeForShapes(std::span<const Shape* const> shapes) override {
    std::string call = name_ + ":";
    for (const Shape* s : shapes) call += " " + (s != nullptr ? s->ToString() : std::string("?"));
    SpecializeCalls().push_back(call);
  }

 private:
  std::string name_;
};

std::unique_ptr<Kernel> MakeProbe(const KernelInfo& info) {
  return std::make_unique<ProbeKernel>(info);
}

// An input whose dimensions are sizes or, where `names` has one, that dim_param ("?" for an
// unknown dimension without a name).
void SetNamedType(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int elem,
                  const std::vector<std::string>& names) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (const std::string& n : names) {
    auto* d = shape->add_dim();
    if (n == "?") continue;
    if (n.find_first_not_of("0123456789") == std::string::npos) {
      d->set_dim_value(std::stoll(n));
    } else {
      d->set_dim_param(n);
    }
  }
}

// x [batch, seq, 6] split into heads by a Reshape to a target computed from Shape(x), as torch
// exports dynamic axes; y [batch, ?, 6].
::kiln_onnx::ModelProto HeadsOfDynamicAxes() {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetNamedType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"batch", "seq", "6"});
  SetNamedType(g->add_input(), "y", ::kiln_onnx::TensorProto::FLOAT, {"batch", "?", "6"});
  SetType(g->add_output(), "heads", ::kiln_onnx::TensorProto::FLOAT, {});
  SetType(g->add_output(), "z", ::kiln_onnx::TensorProto::FLOAT, {});
  AddInt64Initializer(g, "zero", {}, {0});
  AddInt64Initializer(g, "one", {}, {1});
  AddInt64Initializer(g, "axes", {1}, {0});
  AddInt64Initializer(g, "split", {2}, {2, 3});
  AddNode(g, "shape", "Shape", {"x"}, {"s"});
  AddNode(g, "gather_b", "Gather", {"s", "zero"}, {"b"});
  AddNode(g, "gather_s", "Gather", {"s", "one"}, {"q"});
  AddNode(g, "unsqueeze_b", "Unsqueeze", {"b", "axes"}, {"b1"});
  AddNode(g, "unsqueeze_s", "Unsqueeze", {"q", "axes"}, {"q1"});
  AddNode(g, "concat", "Concat", {"b1", "q1", "split"}, {"target"})
      ->add_attribute()
      ->CopyFrom(AxisZero());
  AddNode(g, "reshape", "Reshape", {"x", "target"}, {"heads"});
  AddNode(g, "add", "Add", {"x", "y"}, {"z"});
  return m;
}

// Inference gives every dimension named "batch" one symbol, "seq" another, the unnamed one of y
// a third, and carries them through the shape computation into the Reshape's output; Add of
// [batch, seq, 6] and [batch, ?, 6] keeps only what it can be sure of.
TEST(PlanInference, NamedDimensionsShareASymbolThroughShapeComputations) {
  const std::string bytes = HeadsOfDynamicAxes().SerializeAsString();
  const ir::Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  const GraphPlan plan(*model.graph, CpuKernels(), {.infer = true});
  auto dims = [&](const std::string& name) {
    const infer::TensorFacts& f = plan.Facts(plan.SlotNamed(name));
    return f.shape ? f.shape->dims() : std::vector<int64_t>{-100};
  };
  const std::vector<int64_t> x = dims("x");
  const std::vector<int64_t> y = dims("y");
  ASSERT_EQ(x.size(), 3u);
  ASSERT_EQ(y.size(), 3u);
  const int64_t batch = x[0], seq = x[1], unnamed = y[1];
  for (int64_t d : {batch, seq, unnamed}) EXPECT_TRUE(infer::IsSymbolicDim(d)) << d;
  EXPECT_EQ(y[0], batch);
  EXPECT_NE(seq, batch);
  EXPECT_NE(unnamed, seq);
  EXPECT_NE(unnamed, batch);
  EXPECT_EQ(dims("heads"), (std::vector<int64_t>{batch, seq, 2, 3}));
  EXPECT_EQ(dims("z"), (std::vector<int64_t>{batch, -1, 6}));
}

// Inputs that name a dimension alike must give it one size: inference and the optimizer count on
// it. The error names both inputs, the dimensions and the name.
TEST(PlanInference, InputsDisagreeingOnANamedDimensionAreRefused) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetNamedType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"batch", "seq"});
  SetNamedType(g->add_input(), "y", ::kiln_onnx::TensorProto::FLOAT, {"?", "seq"});
  SetType(g->add_output(), "z", ::kiln_onnx::TensorProto::FLOAT, {});
  AddNode(g, "add", "Add", {"x", "y"}, {"z"});
  auto run = [&](const std::vector<int64_t>& xd, const std::vector<int64_t>& yd) {
    const std::unique_ptr<Session> s = Create(m);
    std::vector<std::string> in_names{"x", "y"}, out_names{"z"};
    std::vector<Value> in;
    for (const auto& d : {xd, yd}) {
      std::shared_ptr<Tensor> t = Tensor::Allocate(DataType::kFloat, Shape(d), CpuAllocator());
      std::fill_n(static_cast<float*>(t->data()), t->element_count(), 1.0f);
      in.emplace_back(t);
    }
    std::vector<Value> others(1);
    std::vector<std::shared_ptr<Tensor>> out(1);
    s->Run(RunOptions(), in_names, in, out_names, out, others);
    return out[0]->shape();
  };
  // The unnamed dimension broadcasts as Add allows.
  EXPECT_EQ(run({2, 3}, {1, 3}), Shape({2, 3}));
  try {
    run({2, 3}, {2, 1});
    ADD_FAILURE() << "ran without error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "input 'y' dimension 1 ('seq') is 1, but input 'x' dimension 1 has 3 for it"),
              std::string::npos)
        << e.what();
  }
}

TEST(PlanInference, KernelsAreSpecializedOnceWithWhatInferenceKnows) {
  KernelRegistry registry;
  const KernelDef probe[] = {{"test.probe", "Probe", 1, 1, &MakeProbe}};
  registry.Add(probe);
  ::kiln_onnx::ModelProto m = NewModel();
  auto* import = m.add_opset_import();
  import->set_domain("test.probe");
  import->set_version(1);
  auto* g = m.mutable_graph();
  SetType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {2, 3, 4});
  SetType(g->add_output(), "z", ::kiln_onnx::TensorProto::FLOAT, {});
  AddNode(g, "first", "Probe", {"x"}, {"y"})->set_domain("test.probe");
  AddNode(g, "second", "Probe", {"y"}, {"z"})->set_domain("test.probe");  // no rule: y unknown
  const std::string bytes = m.SerializeAsString();
  const ir::Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  SpecializeCalls().clear();
  { const GraphPlan plan(*model.graph, registry, {.infer = true}); }
  EXPECT_EQ(SpecializeCalls(), (std::vector<std::string>{"first: [2,3,4]", "second: ?"}));
  // Without inference nothing is known, and kernels are left as created.
  SpecializeCalls().clear();
  { const GraphPlan plan(*model.graph, registry, {.infer = false}); }
  EXPECT_TRUE(SpecializeCalls().empty());
}

// v0 [n] (n a dim_param) -> Relu -> v1 -> Relu -> v2, then v_i = v_{i-1} + v_{i-2} up to v8, the
// output: nothing past the input is laid out at load.
::kiln_onnx::ModelProto AddChainOfFreeLength() {
  ::kiln_onnx::ModelProto m = AddChain(8);
  auto* g = m.mutable_graph();
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  g->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("n");
  return m;
}

TEST(PlanArena, ARunsShapesAreLaidOutAndTheNextRunWithThemUsesTheLayout) {
  const std::string bytes = AddChainOfFreeLength().SerializeAsString();
  const ir::Model model = onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
  const GraphPlan plan(*model.graph, CpuKernels(), {.infer = true});
  ASSERT_TRUE(plan.has_unplanned_outputs());
  EXPECT_FALSE(plan.has_arena());
  ThreadPool pool(1);
  RunContext ctx{pool, std::make_shared<CachingAllocator>()};
  Frame frame(plan, nullptr, ctx);
  const auto run = [&](size_t n) {
    const std::vector<float> x = Ramp(n, -3.0f);
    std::shared_ptr<Tensor> t =
        Tensor::Allocate(DataType::kFloat, Shape({int64_t(n)}), CpuAllocator());
    std::memcpy(t->data(), x.data(), n * sizeof(float));
    frame.SetInput(0, Value(t));
    frame.Execute();
    const Tensor& y = *frame.Output(0).tensor();
    const float* p = static_cast<const float*>(y.data());
    EXPECT_EQ(std::vector<float>(p, p + y.element_count()), AddChainReference(x, 8)) << n;
  };
  const auto next = [&] {
    frame.Clear();
    frame.Reset(ctx);
  };

  frame.RecordShapes();
  run(10);
  EXPECT_FALSE(frame.InArena(*frame.Output(0).tensor()));
  const std::span<const ProducedShape> produced = frame.ProducedShapes();
  ASSERT_EQ(produced.size(), plan.slot_count());
  for (const GraphPlan::Step& step : plan.steps()) {
    EXPECT_TRUE(produced[step.outputs[0]].known) << step.node->name();
    EXPECT_EQ(produced[step.outputs[0]].shape, Shape({10})) << step.node->name();
  }
  EXPECT_FALSE(produced[plan.input_slots()[0]].known) << "the input is not a step's";
  const std::shared_ptr<const ArenaLayout> layout = plan.LayoutFor(produced);

  // Every step output has a place; two buffers alive at once never overlap (64 bytes each with
  // alignment); dead ones are reused.
  EXPECT_EQ(ExpectLiveBuffersDisjoint(
                plan, [&](int slot) { return layout->offsets[slot]; }, 64),
            plan.steps().size());
  EXPECT_LT(layout->bytes, 8u * 64u);

  next();
  frame.UseLayout(layout);
  run(10);
  EXPECT_TRUE(frame.InArena(*frame.Output(0).tensor())) << "placed by the layout";
  // Other shapes under that layout get buffers of their own.
  next();
  run(7);
  EXPECT_FALSE(frame.InArena(*frame.Output(0).tensor()));
  next();
  run(10);
  EXPECT_TRUE(frame.InArena(*frame.Output(0).tensor()));
  // A larger layout, recorded under this one: the block grows.
  next();
  frame.RecordShapes();
  run(1000);
  const std::shared_ptr<const ArenaLayout> large = plan.LayoutFor(frame.ProducedShapes());
  EXPECT_GT(large->bytes, layout->bytes);
  next();
  frame.UseLayout(large);
  run(1000);
  EXPECT_TRUE(frame.InArena(*frame.Output(0).tensor()));
  // The plan's own layout places nothing.
  next();
  frame.UseLayout(plan.arena());
  run(10);
  EXPECT_FALSE(frame.InArena(*frame.Output(0).tensor()));
}

TEST(PlanArena, ASessionKeepsALayoutPerSetOfInputShapes) {
  std::unique_ptr<Session> s = Create(AddChainOfFreeLength());
  const auto run = [&](size_t n) {
    const std::vector<float> x = Ramp(n, -2.5f);
    EXPECT_EQ(RunFloat(*s, "v0", Shape({int64_t(n)}), x, "v8"), AddChainReference(x, 8)) << n;
  };
  EXPECT_EQ(s->shape_layout_count(), 0u);
  run(10);
  EXPECT_EQ(s->shape_layout_count(), 1u);
  run(10);
  EXPECT_EQ(s->shape_layout_count(), 1u);
  run(7);
  EXPECT_EQ(s->shape_layout_count(), 2u);
  run(10);
  run(0);  // an empty tensor has a layout too
  EXPECT_EQ(s->shape_layout_count(), 3u);
  for (size_t n = 20; n < 30; ++n) run(n);
  EXPECT_EQ(s->shape_layout_count(), Session::kMaxLayouts);
  run(10);  // evicted long ago: laid out again
  run(10);
  EXPECT_EQ(s->shape_layout_count(), Session::kMaxLayouts);
  // A static model needs none.
  std::unique_ptr<Session> fixed = Create(ReluChain(3));
  RunFloat(*fixed, "v0", Shape({64}), Ramp(64, 0.0f), "v3");
  EXPECT_EQ(fixed->shape_layout_count(), 0u);
}

// The run that records a layout takes its intermediates from the caching allocator; once the
// layout holds them, the blocks the allocator kept are given back. Only the output the caller
// holds stays the allocator's; the next run with those shapes takes nothing more from it.
TEST(PlanArena, TheRunThatRecordsALayoutGivesTheAllocatorsKeptBlocksBack) {
  std::unique_ptr<Session> s = Create(AddChainOfFreeLength());
  const auto run = [&](size_t n) {
    std::shared_ptr<Tensor> x =
        Tensor::Allocate(DataType::kFloat, Shape({int64_t(n)}), CpuAllocator());
    std::vector<std::string> in_names{"v0"}, out_names{"v8"};
    std::vector<Value> in{Value(x)}, others(1);
    std::vector<std::shared_ptr<Tensor>> out(1);
    s->Run(RunOptions(), in_names, in, out_names, out, others);
    return out[0];
  };
  std::shared_ptr<Tensor> held = run(4096);
  EXPECT_EQ(s->shape_layout_count(), 1u);
  EXPECT_EQ(s->cached_bytes(), 0u);
  held = run(4096);  // laid out: the first output's block is the only one kept
  EXPECT_EQ(s->cached_bytes(), 4096 * sizeof(float));
  held.reset();
  EXPECT_EQ(s->cached_bytes(), 2 * sizeof(float) * 4096);
  held = run(1000);  // a new set of shapes: recorded, then everything kept is given back
  EXPECT_EQ(s->shape_layout_count(), 2u);
  EXPECT_EQ(s->cached_bytes(), 0u);
}

// r = Relu(x [n]); w = Reshape(r, s) with s an input; z = Reshape(w, [-1]) + r. With the same
// input shapes, the values of s change w's shape: the layout made for one must not be used for
// the other, and z (a view of w in the layout) must still get w's bytes.
TEST(PlanArena, ShapesThatDependOnInputValuesFallBackToTheAllocator) {
  ::kiln_onnx::ModelProto m = NewModel();
  auto* g = m.mutable_graph();
  SetNamedType(g->add_input(), "x", ::kiln_onnx::TensorProto::FLOAT, {"n"});
  SetType(g->add_input(), "s", ::kiln_onnx::TensorProto::INT64, {2});
  SetType(g->add_output(), "w", ::kiln_onnx::TensorProto::FLOAT, {});
  SetType(g->add_output(), "z", ::kiln_onnx::TensorProto::FLOAT, {});
  AddInt64Initializer(g, "flat", {1}, {-1});
  AddNode(g, "relu", "Relu", {"x"}, {"r"});
  AddNode(g, "reshape_w", "Reshape", {"r", "s"}, {"w"});
  AddNode(g, "flatten", "Reshape", {"w", "flat"}, {"f"});
  AddNode(g, "add", "Add", {"f", "r"}, {"z"});
  std::unique_ptr<Session> session = Create(m, 0);
  const std::vector<float> x = Ramp(10, -4.0f);
  std::vector<float> relu(10), twice(10);
  for (size_t i = 0; i < 10; ++i) {
    relu[i] = x[i] > 0 ? x[i] : 0.0f;
    twice[i] = 2 * relu[i];
  }
  for (const std::vector<int64_t>& target : {std::vector<int64_t>{2, 5}, {5, 2}, {2, 5}, {10, 1}}) {
    std::shared_ptr<Tensor> xt = Tensor::Allocate(DataType::kFloat, Shape({10}), CpuAllocator());
    std::memcpy(xt->data(), x.data(), sizeof(float) * 10);
    std::shared_ptr<Tensor> st = Tensor::Allocate(DataType::kInt64, Shape({2}), CpuAllocator());
    std::memcpy(st->data(), target.data(), sizeof(int64_t) * 2);
    std::vector<std::string> in_names{"x", "s"}, out_names{"w", "z"};
    std::vector<Value> in{Value(xt), Value(st)}, others(2);
    std::vector<std::shared_ptr<Tensor>> out(2);
    session->Run(RunOptions(), in_names, in, out_names, out, others);
    EXPECT_EQ(out[0]->shape(), Shape(target));
    const auto* w = static_cast<const float*>(out[0]->data());
    const auto* z = static_cast<const float*>(out[1]->data());
    EXPECT_EQ(std::vector<float>(w, w + 10), relu) << target[0];
    EXPECT_EQ(std::vector<float>(z, z + 10), twice) << target[0];
  }
  EXPECT_EQ(session->shape_layout_count(), 1u) << "one set of input shapes";
}

}  // namespace
}  // namespace kiln::runtime
