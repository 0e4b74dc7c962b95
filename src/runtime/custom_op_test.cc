#include "runtime/custom_op.h"

#include <gtest/gtest.h>
#include <kiln_onnx/onnx.pb.h>

#include <atomic>
#include <string>

#include "core/error.h"
#include "infer/infer.h"
#include "onnx/loader.h"
#include "runtime/session.h"

namespace kiln::runtime {
namespace {

// y = x · 2 + bias (float), counting its computes; `bias` tells the override apart from a
// built-in op it replaces.
class ScaleKernel final : public Kernel {
 public:
  ScaleKernel(std::atomic<int>* computes, float bias) : computes_(computes), bias_(bias) {}
  void Compute(KernelContext& ctx) const override {
    computes_->fetch_add(1);
    const Tensor& x = ctx.Input(0);
    Tensor& y = ctx.Output(0, DataType::kFloat, x.shape());
    for (size_t i = 0; i < x.element_count(); ++i) {
      static_cast<float*>(y.data())[i] = static_cast<const float*>(x.data())[i] * 2.0f + bias_;
    }
  }
  bool InferOutputs(infer::InferenceContext& ctx) const override {
    const infer::TensorFacts* x = ctx.Input(0);
    ctx.SetOutput(0, DataType::kFloat, x != nullptr ? x->shape : std::nullopt);
    return true;
  }
  bool EvaluableAtLoad() const override { return false; }

 private:
  std::atomic<int>* computes_;
  float bias_;
};

class ScaleOp final : public CustomOp {
 public:
  ScaleOp(std::string domain, std::string name, bool overrides, float bias = 0.0f)
      : domain_(std::move(domain)), name_(std::move(name)), overrides_(overrides), bias_(bias) {}
  const std::string& domain() const noexcept override { return domain_; }
  const std::string& name() const noexcept override { return name_; }
  int since() const noexcept override { return 1; }
  int until() const noexcept override { return 100; }
  bool overrides_builtin() const noexcept override { return overrides_; }
  const std::string& origin() const noexcept override { return origin_; }
  std::unique_ptr<Kernel> CreateKernel(const KernelInfo&) const override {
    return std::make_unique<ScaleKernel>(&computes, bias_);
  }
  mutable std::atomic<int> computes{0};

 private:
  std::string domain_;
  std::string name_;
  bool overrides_;
  float bias_;
  std::string origin_ = "the test";
};

void AddTensorInfo(::kiln_onnx::ValueInfoProto* vi, const std::string& name, int dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::kiln_onnx::TensorProto::FLOAT);
  for (int d = 0; d < dims; ++d) t->mutable_shape()->add_dim()->set_dim_value(d <= 1 ? 1 : 2);
}

// y = Relu(Conv(x, w)) and s = Scale(y); or, with `constant_input`, y = Relu(Scale(w)).
ir::Model ConvScaleRelu(bool constant_input) {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* custom = m.add_opset_import();
  custom->set_domain("test.domain");
  custom->set_version(1);
  auto* g = m.mutable_graph();
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(::kiln_onnx::TensorProto::FLOAT);
  for (int d : {1, 1, 1, 1}) w->add_dims(d);
  w->add_float_data(-1.0f);
  auto* conv = g->add_node();
  conv->set_name("conv");
  conv->set_op_type("Conv");
  conv->add_input(constant_input ? "w" : "x");
  conv->add_input("w");
  conv->add_output("c");
  auto* scale = g->add_node();
  scale->set_name("scale");
  scale->set_op_type("Scale");
  scale->set_domain("test.domain");
  scale->add_input(constant_input ? "w" : "y");
  scale->add_output("s");
  auto* relu = g->add_node();
  relu->set_name("relu");
  relu->set_op_type("Relu");
  relu->add_input(constant_input ? "s" : "c");  // Conv's only reader: a fusion candidate
  relu->add_output("y");
  if (!constant_input) {
    auto* out = g->add_output();
    out->set_name("s");
  }
  AddTensorInfo(g->add_input(), "x", 4);
  AddTensorInfo(g->add_output(), "y", 4);
  const std::string bytes = m.SerializeAsString();
  return onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
}

// y = If(c) then Relu(Scale(x)) else Scale(x): custom nodes (one of them an override) inside
// the branches of an If.
ir::Model IfWithCustomBranches() {
  ::kiln_onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* custom = m.add_opset_import();
  custom->set_domain("test.domain");
  custom->set_version(1);
  auto* g = m.mutable_graph();
  auto branch = [](::kiln_onnx::GraphProto* b, const std::string& prefix, bool relu) {
    b->set_name(prefix);
    auto* scale = b->add_node();
    scale->set_name(prefix + "_scale");
    scale->set_op_type("Scale");
    scale->set_domain("test.domain");
    scale->add_input("x");
    scale->add_output(prefix + (relu ? "_s" : "_out"));
    if (relu) {
      auto* r = b->add_node();
      r->set_name(prefix + "_relu");
      r->set_op_type("Relu");
      r->add_input(prefix + "_s");
      r->add_output(prefix + "_out");
    }
    AddTensorInfo(b->add_output(), prefix + "_out", 4);
  };
  auto* n = g->add_node();
  n->set_name("if");
  n->set_op_type("If");
  n->add_input("c");
  n->add_output("y");
  for (auto [name, relu] : {std::pair{"then_branch", true}, std::pair{"else_branch", false}}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::kiln_onnx::AttributeProto::GRAPH);
    branch(a->mutable_g(), relu ? "then" : "else", relu);
  }
  AddTensorInfo(g->add_input(), "x", 4);
  auto* c = g->add_input();
  c->set_name("c");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(::kiln_onnx::TensorProto::BOOL);
  c->mutable_type()->mutable_tensor_type()->mutable_shape();
  AddTensorInfo(g->add_output(), "y", 4);
  const std::string bytes = m.SerializeAsString();
  return onnx::LoadModelBytes(bytes.data(), bytes.size(), "");
}

std::vector<float> RunOnce(const Session& s, float x, const std::string& output = "y") {
  std::shared_ptr<Tensor> t =
      Tensor::Allocate(DataType::kFloat, Shape({1, 1, 2, 2}), CpuAllocator());
  for (size_t i = 0; i < 4; ++i) static_cast<float*>(t->data())[i] = x;
  const std::vector<std::string> in = {"x"};
  const std::vector<Value> values = {Value(t)};
  const std::vector<std::string> out = {output};
  std::vector<std::shared_ptr<Tensor>> results(1);
  std::vector<Value> others(1);
  s.Run(RunOptions(), in, values, out, results, others);
  const auto* y = static_cast<const float*>(results[0]->data());
  return {y, y + 4};
}

TEST(CustomOps, RegistryPutsItsOwnEntriesBeforeTheFallbacks) {
  auto relu = std::make_shared<ScaleOp>("", "Relu", true);
  auto scale = std::make_shared<ScaleOp>("test.domain", "Scale", false);
  auto sigmoid = std::make_shared<ScaleOp>("test.domain", "Sigmoid", false);
  const CustomKernels kernels({relu, scale, sigmoid});
  const KernelRegistry& r = kernels.registry();
  // An override is found only where the session moves the model's nodes: a Relu the optimizer
  // makes stays Kiln's.
  EXPECT_EQ(r.Find(OverrideDomain(""), "Relu", 14)->state, relu.get());
  EXPECT_EQ(r.Find(OverrideDomain("ai.onnx"), "Relu", 14)->state, relu.get());
  EXPECT_EQ(r.Find("", "Relu", 14), CpuKernels().Find("", "Relu", 14));
  EXPECT_EQ(r.Find(OverrideDomain(""), "Relu", 101), nullptr);  // past its range
  EXPECT_EQ(r.Find("test.domain", "Scale", 1)->state, scale.get());
  EXPECT_EQ(r.Find("test.domain", "Sigmoid", 1)->state, sigmoid.get());
  EXPECT_EQ(r.Find("", "Sigmoid", 13), CpuKernels().Find("", "Sigmoid", 13));
  EXPECT_TRUE(r.KnowsDomain(OverrideDomain("")));
  EXPECT_TRUE(r.KnowsDomain("com.microsoft"));
  EXPECT_TRUE(r.KnowsDomain("test.domain"));
  EXPECT_FALSE(r.KnowsDomain("other.domain"));
  EXPECT_FALSE(CpuKernels().KnowsDomain(OverrideDomain("")));
}

TEST(CustomOps, OverriddenNodesLeaveTheirDomainOnlyWhileClaimed) {
  ir::Model model = ConvScaleRelu(false);
  const CustomOps ops = {std::make_shared<ScaleOp>("ai.onnx", "Relu", true),
                         std::make_shared<ScaleOp>("", "Conv", false)};  // not overriding
  EXPECT_EQ(ClaimOverriddenNodes(*model.graph, ops, false), 1u);
  for (const auto& n : model.graph->nodes()) {
    EXPECT_EQ(n->domain(), n->op_type() == "Relu"    ? OverrideDomain("")
                           : n->op_type() == "Scale" ? "test.domain"
                                                     : "");
  }
  EXPECT_EQ(ClaimOverriddenNodes(*model.graph, ops, true), 1u);
  for (const auto& n : model.graph->nodes()) {
    EXPECT_EQ(n->domain(), n->op_type() == "Scale" ? "test.domain" : "");
  }
}

TEST(CustomOps, ASessionRunsThemAndInfersTheirOutputs) {
  auto scale = std::make_shared<ScaleOp>("test.domain", "Scale", false);
  SessionOptions o;
  o.custom_ops = {scale};
  const Session s(ConvScaleRelu(false), o);
  EXPECT_EQ(scale->computes, 0);
  // The custom op's inference gave its output a static shape: the planner placed it.
  const int slot = s.plan().SlotOf(s.model().graph->FindValue("s"));
  ASSERT_TRUE(s.plan().Facts(slot).shape.has_value());
  EXPECT_EQ(s.plan().Facts(slot).shape->dims(), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(RunOnce(s, 3.0f), std::vector<float>(4, 0.0f));  // Relu(Conv) = Relu(-3)
  EXPECT_EQ(RunOnce(s, 3.0f, "s"), std::vector<float>(4, 0.0f));
  EXPECT_EQ(RunOnce(s, -3.0f, "s"), std::vector<float>(4, 6.0f));
  EXPECT_EQ(scale->computes, 3);
}

TEST(CustomOps, AreNeverEvaluatedAtLoadEvenOnConstants) {
  auto scale = std::make_shared<ScaleOp>("test.domain", "Scale", false);
  SessionOptions o;
  o.custom_ops = {scale};
  const Session s(ConvScaleRelu(true), o);
  EXPECT_EQ(scale->computes, 0);
  bool kept = false;
  for (const auto& step : s.plan().steps()) kept = kept || step.node->op_type() == "Scale";
  EXPECT_TRUE(kept);
}

TEST(CustomOps, AnOverrideReplacesTheBuiltInOpAndIsNotFused) {
  for (int level : {0, 3}) {
    auto relu = std::make_shared<ScaleOp>("", "Relu", true, 0.5f);
    auto scale = std::make_shared<ScaleOp>("test.domain", "Scale", false);
    SessionOptions o;
    o.optimization_level = level;
    o.custom_ops = {scale, relu};
    const Session s(ConvScaleRelu(false), o);
    // Conv + Relu would be one FusedConv at level 3; the override keeps Relu a node of its own,
    // back in its own domain once planned.
    bool relu_step = false;
    for (const auto& step : s.plan().steps()) {
      if (step.node->op_type() == "Relu") {
        relu_step = true;
        EXPECT_EQ(step.node->domain(), "");
      }
    }
    EXPECT_TRUE(relu_step) << "level " << level;
    EXPECT_EQ(RunOnce(s, 3.0f), std::vector<float>(4, -5.5f)) << "level " << level;
    EXPECT_EQ(relu->computes, 1);
  }
}

TEST(CustomOps, RunInsideTheBranchesOfAnIf) {
  auto relu = std::make_shared<ScaleOp>("", "Relu", true, 0.5f);  // y = x·2 + 0.5
  auto scale = std::make_shared<ScaleOp>("test.domain", "Scale", false);
  SessionOptions o;
  o.custom_ops = {scale, relu};
  const Session s(IfWithCustomBranches(), o);
  // The override's node went back to its domain after planning, in the branch too.
  size_t relus = 0;
  for (const auto& n : s.model().graph->nodes()) {
    for (const ir::Attribute& a : n->attributes()) {
      if (!a.g) continue;
      for (const auto& node : a.g->nodes()) {
        if (node->op_type() != "Relu") continue;
        ++relus;
        EXPECT_EQ(node->domain(), "");
      }
    }
  }
  EXPECT_EQ(relus, 1u);
  auto run = [&](bool c) {
    std::shared_ptr<Tensor> x =
        Tensor::Allocate(DataType::kFloat, Shape({1, 1, 2, 2}), CpuAllocator());
    for (size_t i = 0; i < 4; ++i) static_cast<float*>(x->data())[i] = -3.0f;
    std::shared_ptr<Tensor> cond =
        Tensor::Allocate(DataType::kBool, Shape(std::vector<int64_t>{}), CpuAllocator());
    *static_cast<bool*>(cond->data()) = c;
    const std::vector<std::string> in = {"x", "c"};
    const std::vector<Value> values = {Value(x), Value(cond)};
    const std::vector<std::string> out = {"y"};
    std::vector<std::shared_ptr<Tensor>> results(1);
    std::vector<Value> others(1);
    s.Run(RunOptions(), in, values, out, results, others);
    return static_cast<const float*>(results[0]->data())[0];
  };
  EXPECT_EQ(run(true), -11.5f);  // the override Relu of Scale(-3) = -6: -6·2 + 0.5
  EXPECT_EQ(run(false), -6.0f);  // Scale(-3)
  EXPECT_EQ(relu->computes, 1);
  EXPECT_EQ(scale->computes, 2);
}

}  // namespace
}  // namespace kiln::runtime
