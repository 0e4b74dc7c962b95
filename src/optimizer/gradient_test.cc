// The Gradient rewrite: each derivative rule against central finite differences of the same graph
// (double precision), at optimization levels 0 and 1, plus the error paths.
#include "optimizer/gradient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#include "core/allocator.h"
#include "core/error.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"
#include "runtime/session.h"

namespace kiln::optimizer {
namespace {

using testing::GraphBuilder;
using testing::RunModel;
constexpr const char* kTraining = "ai.onnx.preview.training";

ir::Attribute Strings(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  return a;
}

// The graph under test: double inputs, y = body(inputs), and a Gradient node over them.
struct GradCase {
  std::vector<std::vector<int64_t>> shapes;
  std::function<ir::Value*(GraphBuilder&, const std::vector<ir::Value*>&)> body;
  double lo = -1.0;  // inputs drawn from [lo, hi)
  double hi = 1.0;
};

ir::Model Build(const GradCase& c) {
  GraphBuilder b;
  std::vector<ir::Value*> xs;
  std::vector<std::string> names;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    xs.push_back(b.Input("x" + std::to_string(i), c.shapes[i], DataType::kDouble));
    names.push_back(xs.back()->name());
  }
  ir::Value* y = c.body(b, xs);
  std::vector<ir::Value*> grads = b.Node(
      "Gradient", xs, xs.size(), {Strings("xs", names), StringAttr("y", y->name())}, 1, kTraining);
  b.Output(y);
  for (ir::Value* g : grads) b.Output(g);
  ir::Model m = b.Model();
  m.opsets[kTraining] = 1;
  return m;
}

double SumOf(const Tensor& t) {
  double s = 0;
  for (size_t i = 0; i < t.element_count(); ++i) s += static_cast<const double*>(t.data())[i];
  return s;
}

// Runs the case at `level` and compares each gradient with (Σy(x + h) − Σy(x − h)) / 2h.
void ExpectGradients(const GradCase& c, int level) {
  SCOPED_TRACE("level " + std::to_string(level));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(c.lo, c.hi);
  std::vector<std::shared_ptr<Tensor>> xs;
  for (const auto& shape : c.shapes) {
    xs.push_back(Tensor::Allocate(DataType::kDouble, Shape(shape), CpuAllocator()));
    auto* p = static_cast<double*>(xs.back()->data());
    for (size_t i = 0; i < xs.back()->element_count(); ++i) p[i] = u(rng);
  }
  auto run = [&] {
    std::vector<Value> inputs;
    inputs.reserve(xs.size());
    for (const auto& x : xs) inputs.emplace_back(x);
    return RunModel(Build(c), level, inputs, 1);
  };
  const auto outs = run();
  ASSERT_EQ(outs.size(), xs.size() + 1);
  const double h = 1e-6;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& grad = *outs[i + 1];
    ASSERT_EQ(grad.type(), DataType::kDouble);
    ASSERT_EQ(grad.shape(), xs[i]->shape()) << "gradient " << i;
    auto* p = static_cast<double*>(xs[i]->data());
    for (size_t j = 0; j < xs[i]->element_count(); ++j) {
      const double keep = p[j];
      p[j] = keep + h;
      const double up = SumOf(*run()[0]);
      p[j] = keep - h;
      const double down = SumOf(*run()[0]);
      p[j] = keep;
      const double want = (up - down) / (2 * h);
      const double got = static_cast<const double*>(grad.data())[j];
      EXPECT_NEAR(got, want, 1e-6 + 1e-6 * std::fabs(want)) << "d y / d x" << i << "[" << j << "]";
    }
  }
}

void ExpectGradients(const GradCase& c) {
  ExpectGradients(c, 0);
  ExpectGradients(c, 1);
}

GradCase Binary(const std::string& op, std::vector<int64_t> a, std::vector<int64_t> b) {
  return {{std::move(a), std::move(b)}, [op](GraphBuilder& g, const std::vector<ir::Value*>& x) {
            return g.Op(op, {x[0], x[1]});
          }};
}

GradCase Unary(const std::string& op, double lo = -1.0, double hi = 1.0) {
  return {{{2, 3}},
          [op](GraphBuilder& g, const std::vector<ir::Value*>& x) { return g.Op(op, {x[0]}); },
          lo,
          hi};
}

TEST(Gradient, ArithmeticOfSameShapes) {
  for (const char* op : {"Add", "Sub", "Mul"}) {
    SCOPED_TRACE(op);
    ExpectGradients(Binary(op, {2, 3}, {2, 3}));
  }
  GradCase div = Binary("Div", {2, 3}, {2, 3});
  div.lo = 0.5;
  div.hi = 2.0;
  ExpectGradients(div);
}

TEST(Gradient, BroadcastOperandsGetSummedGradients) {
  ExpectGradients(Binary("Add", {2, 3}, {3}));
  ExpectGradients(Binary("Mul", {2, 1, 3}, {4, 1}));
  ExpectGradients(Binary("Sub", {}, {2, 3}));
  GradCase div = Binary("Div", {2, 3}, {1, 3});
  div.lo = 0.5;
  ExpectGradients(div);
  ExpectGradients({{{2, 3}, {3}, {2, 1}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
                     return g.Op("Sum", {x[0], x[1], x[2]});
                   }});
}

TEST(Gradient, EmptyTensors) {
  // y has no elements: every gradient is zero, of its input's shape.
  ExpectGradients(Binary("Add", {0, 3}, {3}));
  ExpectGradients(Binary("Mul", {2, 0}, {2, 1}));
}

TEST(Gradient, UnaryOps) {
  for (const char* op : {"Neg", "Identity", "Relu", "Sigmoid", "Tanh", "Exp"}) {
    SCOPED_TRACE(op);
    ExpectGradients(Unary(op));
  }
  ExpectGradients(Unary("Log", 0.5, 2.0));
  ExpectGradients(Unary("Sqrt", 0.5, 2.0));
}

TEST(Gradient, MatMulOfEveryRank) {
  ExpectGradients(Binary("MatMul", {2, 3}, {3, 4}));
  ExpectGradients(Binary("MatMul", {2, 2, 3}, {2, 3, 4}));
  ExpectGradients(Binary("MatMul", {2, 2, 3}, {3, 4}));     // B broadcast over the batch
  ExpectGradients(Binary("MatMul", {2, 3}, {2, 1, 3, 4}));  // A broadcast over two batch dims
  ExpectGradients(Binary("MatMul", {3}, {3, 4}));
  ExpectGradients(Binary("MatMul", {2, 3}, {3}));
  ExpectGradients(Binary("MatMul", {3}, {3}));
}

TEST(Gradient, ShapeOps) {
  ExpectGradients({{{2, 3, 2}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
                     return g.Op("Mul", {g.Op("Reshape", {x[0], g.Ints({2}, {3, 4})}),
                                         g.Op("Reshape", {x[0], g.Ints({2}, {3, -1})})});
                   }});
  ExpectGradients(
      {{{2, 3, 4}, {4, 2, 3}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
         return g.Op("Mul", {g.Op("Transpose", {x[0]}, {IntsAttr("perm", {2, 0, 1})}), x[1]});
       }});
  ExpectGradients({{{2, 3, 4}, {4, 3, 2}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
                     return g.Op("Mul", {g.Op("Transpose", {x[0]}), x[1]});
                   }});
}

TEST(Gradient, Reductions) {
  // Weighted by a second input so each element's gradient differs.
  auto reduce = [](const std::function<ir::Value*(GraphBuilder&, ir::Value*)>& r,
                   std::vector<int64_t> w_shape) {
    return GradCase{{{2, 3, 4}, std::move(w_shape)},
                    [r](GraphBuilder& g, const std::vector<ir::Value*>& x) {
                      return g.Op("Mul", {r(g, g.Op("Mul", {x[0], x[0]})), x[1]});
                    }};
  };
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceSum", {v, g.Ints({1}, {1})}, 1, {IntAttr("keepdims", 0)}, 13)[0];
      },
      {2, 4}));
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceSum", {v, g.Ints({2}, {-1, 0})}, 1, {}, 13)[0];
      },
      {1, 3, 1}));
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceSum", {v}, 1, {IntsAttr("axes", {0, 2}), IntAttr("keepdims", 0)},
                      11)[0];
      },
      {3}));
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceMean", {v}, 1, {IntsAttr("axes", {2}), IntAttr("keepdims", 0)}, 17)[0];
      },
      {2, 3}));
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceMean", {v, g.Ints({1}, {1})}, 1, {}, 18)[0];
      },
      {2, 1, 4}));
  ExpectGradients(reduce(
      [](GraphBuilder& g, ir::Value* v) {
        return g.Node("ReduceMean", {v}, 1, {IntAttr("keepdims", 0)}, 18)[0];
      },
      {}));
}

TEST(Gradient, ValueReachedAlongSeveralPathsSumsItsShares) {
  // y = x·x + exp(x) + x: three readers of x, one of them twice.
  ExpectGradients(
      {{{2, 3}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
         return g.Op("Add", {g.Op("Add", {g.Op("Mul", {x[0], x[0]}), g.Op("Exp", {x[0]})}), x[0]});
       }});
}

TEST(Gradient, SmallNetwork) {
  // mean(tanh(relu(x·W + b)·V)) with x, W, b, V all differentiated.
  ExpectGradients(
      {{{4, 3}, {3, 5}, {5}, {5, 2}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
         ir::Value* h = g.Op("Relu", {g.Op("Add", {g.Op("MatMul", {x[0], x[1]}), x[2]})});
         return g.Node("ReduceMean", {g.Op("Tanh", {g.Op("MatMul", {h, x[3]})})}, 1,
                       {IntAttr("keepdims", 0)}, 17)[0];
       }});
}

// Runs a hand-built model at level 0 and returns its outputs on the given double inputs.
std::vector<std::vector<double>> Outputs(ir::Model m, const std::vector<std::vector<double>>& in,
                                         const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Value> inputs;
  for (size_t i = 0; i < in.size(); ++i) {
    std::shared_ptr<Tensor> t =
        Tensor::Allocate(DataType::kDouble, Shape(shapes[i]), CpuAllocator());
    std::memcpy(t->data(), in[i].data(), in[i].size() * sizeof(double));
    inputs.emplace_back(t);
  }
  std::vector<std::vector<double>> result;
  for (const auto& t : RunModel(std::move(m), 0, inputs, 1)) {
    const auto* p = static_cast<const double*>(t->data());
    result.emplace_back(p, p + t->element_count());
  }
  return result;
}

TEST(Gradient, XThatYDoesNotDependOnGetsZeros) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2}, DataType::kDouble);
  ir::Value* c = b.Input("c", {3}, DataType::kDouble);
  ir::Value* y = b.Op("Mul", {a, a});
  auto g = b.Node("Gradient", {a, c}, 2, {Strings("xs", {"a", "c"}), StringAttr("y", y->name())}, 1,
                  kTraining);
  b.Output(g[0]);
  b.Output(g[1]);
  const auto out = Outputs(b.Model(), {{1.5, -2}, {1, 2, 3}}, {{2}, {3}});
  EXPECT_EQ(out[0], (std::vector<double>{3, -4}));
  EXPECT_EQ(out[1], (std::vector<double>{0, 0, 0}));
}

TEST(Gradient, ZsAreHeldConstant) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2}, DataType::kDouble);
  ir::Value* z = b.Input("z", {2}, DataType::kDouble);
  ir::Value* y = b.Op("Mul", {a, z});
  auto g = b.Node("Gradient", {a, z}, 1,
                  {Strings("xs", {"a"}), Strings("zs", {"z"}), StringAttr("y", y->name())}, 1,
                  kTraining);
  b.Output(g[0]);
  EXPECT_EQ(Outputs(b.Model(), {{1, 2}, {5, -7}}, {{2}, {2}})[0], (std::vector<double>{5, -7}));
}

TEST(Gradient, InputsOtherThanTheNamedValuesAreWhereTheGradientIsTaken) {
  // y = a·a·z; the node is given a2 for a and z2 for z: the gradient is 2·a2·z2, and y itself is
  // still computed from a and z.
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2}, DataType::kDouble);
  ir::Value* z = b.Input("z", {2}, DataType::kDouble);
  ir::Value* a2 = b.Input("a2", {2}, DataType::kDouble);
  ir::Value* z2 = b.Input("z2", {2}, DataType::kDouble);
  ir::Value* y = b.Op("Mul", {b.Op("Mul", {a, a}), z});
  auto g = b.Node("Gradient", {a2, z2}, 1,
                  {Strings("xs", {"a"}), Strings("zs", {"z"}), StringAttr("y", y->name())}, 1,
                  kTraining);
  b.Output(y);
  b.Output(g[0]);
  const auto out = Outputs(b.Model(), {{1, 2}, {3, 4}, {5, 6}, {-1, 10}}, {{2}, {2}, {2}, {2}});
  EXPECT_EQ(out[0], (std::vector<double>{3, 16}));
  EXPECT_EQ(out[1], (std::vector<double>{-10, 120}));
}

TEST(Gradient, WithRespectToAnIntermediate) {
  // xs = [h] with h = exp(a): dy/dh for y = h·h is 2h, not a's chain rule.
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2}, DataType::kDouble);
  ir::Value* h = b.Op("Exp", {a});
  ir::Value* y = b.Op("Mul", {h, h});
  auto g = b.Node("Gradient", {h}, 1, {Strings("xs", {h->name()}), StringAttr("y", y->name())}, 1,
                  kTraining);
  b.Output(g[0]);
  const auto out = Outputs(b.Model(), {{0, 1}}, {{2}});
  EXPECT_NEAR(out[0][0], 2.0, 1e-12);
  EXPECT_NEAR(out[0][1], 2 * std::exp(1.0), 1e-12);
}

TEST(Gradient, WhereExpandAndCastLike) {
  ExpectGradients(
      {{{2, 3}, {3}, {2, 1}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
         ir::Value* cond = g.Op("Greater", {x[0], g.Op("CastLike", {g.Floats({}, {0.2f}), x[0]})});
         return g.Op("Where", {cond, x[1], g.Op("Expand", {x[2], g.Ints({2}, {2, 3})})});
       }});
  ExpectGradients({{{3}, {2, 1}}, [](GraphBuilder& g, const std::vector<ir::Value*>& x) {
                     return g.Op("Mul", {g.Op("CastLike", {x[0], x[1]}), x[1]});
                   }});
}

TEST(Gradient, SecondOrder) {
  // y = x³ + x·w: dy/dx = 3x² + w, and the Gradient of that output is 6x (and 1 for w).
  GraphBuilder b;
  ir::Value* x = b.Input("x", {3}, DataType::kDouble);
  ir::Value* w = b.Input("w", {1}, DataType::kDouble);
  ir::Value* y = b.Op("Add", {b.Op("Mul", {b.Op("Mul", {x, x}), x}), b.Op("Mul", {x, w})});
  auto g1 = b.Node("Gradient", {x, w}, 1, {Strings("xs", {"x", "w"}), StringAttr("y", y->name())},
                   1, kTraining);
  auto g2 = b.Node("Gradient", {x, w}, 2,
                   {Strings("xs", {"x", "w"}), StringAttr("y", g1[0]->name())}, 1, kTraining);
  b.Output(g1[0]);
  b.Output(g2[0]);
  b.Output(g2[1]);
  const auto out = Outputs(b.Model(), {{1, -2, 0.5}, {4}}, {{3}, {1}});
  EXPECT_EQ(out[0], (std::vector<double>{7, 16, 4.75}));
  EXPECT_EQ(out[1], (std::vector<double>{6, -12, 3}));
  EXPECT_EQ(out[2], (std::vector<double>{3}));  // the sum over x's three elements
}

TEST(Gradient, EveryGradientNodeIsReplacedAndNamesStay) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2});
  ir::Value* y = b.Op("Relu", {a});
  auto g =
      b.Node("Gradient", {a}, 1, {Strings("xs", {"a"}), StringAttr("y", y->name())}, 1, kTraining);
  b.Output(g[0]);
  ir::Model m = b.Model();
  EXPECT_EQ(ExpandGradients(*m.graph), 1u);
  for (const auto& n : m.graph->nodes()) EXPECT_NE(n->op_type(), "Gradient");
  ASSERT_EQ(m.graph->outputs().size(), 1u);
  EXPECT_EQ(m.graph->outputs()[0], g[0]);
  EXPECT_EQ(g[0]->producer()->op_type(), "Identity");
  EXPECT_EQ(ExpandGradients(*m.graph), 0u);
}

// Building a session of the model must fail with `code` naming the Gradient node and `needle`.
void ExpectError(ir::Model m, ErrorCode code, const std::string& needle) {
  try {
    RunModel(std::move(m), 0, {}, 1);
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find("(Gradient)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// A model with inputs a, b (float [2]) and y = Sin(a) + b whose Gradient node gets `attrs`.
ir::Model WithGradient(std::vector<ir::Attribute> attrs, size_t inputs = 2, size_t outputs = 2,
                       const char* op = "Mul") {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2});
  ir::Value* c = b.Input("b", {2});
  ir::Value* y = b.Op("Add", {b.Op(op, {a, a}), c});
  (void)y;  // named "Add1_out0" in the attributes below
  std::vector<ir::Value*> in{a, c, a};
  in.resize(inputs);
  for (ir::Value* v : b.Node("Gradient", in, outputs, std::move(attrs), 1, kTraining)) {
    b.Output(v);
  }
  return b.Model();
}

TEST(Gradient, ErrorsNameTheNodeAndTheAttribute) {
  const ir::Attribute xs = Strings("xs", {"a", "b"});
  const ir::Attribute y = StringAttr("y", "Add1_out0");
  ExpectError(WithGradient({y}), ErrorCode::kInvalidGraph, "attribute 'xs' is required");
  ExpectError(WithGradient({xs}), ErrorCode::kInvalidGraph, "attribute 'y' is required");
  ExpectError(WithGradient({xs, IntAttr("y", 1)}), ErrorCode::kInvalidGraph,
              "attribute 'y' must be a string");
  ExpectError(WithGradient({StringAttr("xs", "a"), y}), ErrorCode::kInvalidGraph,
              "attribute 'xs' must be strings");
  ExpectError(WithGradient({Strings("xs", {}), y}, 0, 0), ErrorCode::kInvalidGraph,
              "attribute 'xs' names no tensor");
  ExpectError(WithGradient({Strings("xs", {"a", "nope"}), y}), ErrorCode::kInvalidGraph,
              "attribute 'xs' names 'nope', which is not a value");
  ExpectError(WithGradient({xs, Strings("zs", {"nope"}), y}, 3), ErrorCode::kInvalidGraph,
              "attribute 'zs' names 'nope'");
  ExpectError(WithGradient({xs, StringAttr("y", "nope")}), ErrorCode::kInvalidGraph,
              "attribute 'y' names 'nope'");
  ExpectError(WithGradient({xs, Strings("zs", {"a"}), y}, 3), ErrorCode::kInvalidGraph,
              "'zs' names 'a', which 'xs' or 'zs' already names");
  ExpectError(WithGradient({xs, y}, 1), ErrorCode::kInvalidGraph,
              "has 1 inputs; attributes 'xs' and 'zs' name 2 tensors");
  ExpectError(WithGradient({xs, y}, 2, 3), ErrorCode::kInvalidGraph,
              "has 3 outputs; attribute 'xs' names only 2");
  ExpectError(WithGradient({xs, y}, 2, 2, "Pow"), ErrorCode::kNotImplemented,
              "the derivative of node 'Pow0' (Pow)");
}

TEST(Gradient, OpsWithoutDerivativeOffThePathAreFine) {
  // y = a·Sin(z) with z in zs: Sin is not differentiated, so it needs no rule.
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2}, DataType::kDouble);
  ir::Value* z = b.Input("z", {2}, DataType::kDouble);
  ir::Value* y = b.Op("Mul", {a, b.Op("Sin", {z})});
  auto g = b.Node("Gradient", {a, z}, 1,
                  {Strings("xs", {"a"}), Strings("zs", {"z"}), StringAttr("y", y->name())}, 1,
                  kTraining);
  b.Output(g[0]);
  const auto out = Outputs(b.Model(), {{1, 2}, {0, 1}}, {{2}, {2}});
  EXPECT_NEAR(out[0][0], 0.0, 1e-15);
  EXPECT_NEAR(out[0][1], std::sin(1.0), 1e-15);
}

TEST(Gradient, YThatDependsOnTheNodeItselfIsRefused) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2});
  ir::Node* grad = b.Model().graph->AddNode("grad", "Gradient", kTraining);
  grad->set_opset(1);
  ir::Model m = b.Model();
  ir::Value* ga = m.graph->AddValue("ga");
  m.graph->Connect(grad, {a}, {ga});
  ir::Value* y = b.Op("Mul", {a, ga});
  grad->attributes() = {Strings("xs", {"a"}), StringAttr("y", y->name())};
  m.graph->outputs().push_back(y);
  ExpectError(std::move(m), ErrorCode::kInvalidGraph, "depends on this node's own outputs");
}

TEST(Gradient, BadTransposePermIsRefused) {
  GraphBuilder b;
  ir::Value* a = b.Input("a", {2, 3});
  ir::Value* y = b.Op("Transpose", {a}, {IntsAttr("perm", {0, 0})});
  auto g =
      b.Node("Gradient", {a}, 1, {Strings("xs", {"a"}), StringAttr("y", y->name())}, 1, kTraining);
  b.Output(g[0]);
  ExpectError(b.Model(), ErrorCode::kInvalidGraph, "'perm' that is not a permutation");
}

}  // namespace
}  // namespace kiln::optimizer
