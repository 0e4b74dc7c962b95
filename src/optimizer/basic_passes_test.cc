// Level 1: constant folding, identity elimination, dead-code elimination.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernels/registry.h"
#include "optimizer/optimizer.h"
#include "optimizer/pattern.h"
#include "optimizer/test_util.h"

namespace kiln::optimizer {
namespace {

using testing::ExpectSameOutputs;
using testing::GraphBuilder;
using testing::OpCounts;
using testing::OpsAfter;

// y = Relu(x + Reshape(c1 · c2, Shape(x))): the product and the shape subgraph fold.
ir::Model FoldableModel() {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 3});
  ir::Value* prod = b.Op("Mul", {b.Floats({6}), b.Floats({6})});
  ir::Value* shaped = b.Op("Reshape", {prod, b.Op("Shape", {x})});
  b.Output(b.Op("Relu", {b.Op("Add", {x, shaped})}));
  return b.Model();
}

TEST(ConstantFolding, FoldsConstantAndShapeSubgraphsIntoInitializers) {
  EXPECT_EQ(OpsAfter(FoldableModel(), 1), (OpCounts{{"Add", 1}, {"Relu", 1}}));
  ExpectSameOutputs(FoldableModel, 1);
}

TEST(ConstantFolding, LevelZeroChangesNothing) {
  EXPECT_EQ(OpsAfter(FoldableModel(), 0),
            (OpCounts{{"Add", 1}, {"Mul", 1}, {"Relu", 1}, {"Reshape", 1}, {"Shape", 1}}));
}

TEST(ConstantFolding, AGraphOutputComputedFromConstantsBecomesAnInitializer) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {3});
    b.Output(b.Op("Neg", {x}));
    b.Output(b.Op("Add", {b.Floats({3}), b.Floats({3})}));
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 1), (OpCounts{{"Neg", 1}}));
  ExpectSameOutputs(build, 1);
}

// Identity → Dropout (inference) → Cast to float → Relu.
ir::Model PassThroughModel(bool output_is_identity) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {4});
  ir::Value* i = b.Op("Identity", {x});
  ir::Value* d = b.Op("Dropout", {i});
  ir::Value* c = b.Op("Cast", {d}, {IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
  ir::Value* r = b.Op("Relu", {c});
  b.Output(output_is_identity ? b.Op("Identity", {r}) : r);
  return b.Model();
}

TEST(IdentityElimination, RemovesIdentityInferenceDropoutAndNoOpCast) {
  EXPECT_EQ(OpsAfter(PassThroughModel(false), 1), (OpCounts{{"Relu", 1}}));
  ExpectSameOutputs([] { return PassThroughModel(false); }, 1);
}

TEST(IdentityElimination, KeepsAnIdentityThatWritesAGraphOutput) {
  EXPECT_EQ(OpsAfter(PassThroughModel(true), 1), (OpCounts{{"Identity", 1}, {"Relu", 1}}));
  ExpectSameOutputs([] { return PassThroughModel(true); }, 1);
}

TEST(IdentityElimination, KeepsACastThatConvertsAndADropoutWhoseMaskIsRead) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {4});
    ir::Value* c = b.Op("Cast", {x}, {IntAttr("to", static_cast<int64_t>(DataType::kDouble))});
    b.Output(b.Op("Cast", {c}, {IntAttr("to", static_cast<int64_t>(DataType::kFloat))}));
    std::vector<ir::Value*> d = b.Node("Dropout", {x}, 2);
    b.Output(d[0]);
    b.Output(d[1]);
    return b.Model();
  };
  EXPECT_EQ(OpsAfter(build(), 1), (OpCounts{{"Cast", 2}, {"Dropout", 1}}));
  ExpectSameOutputs(build, 1);
}

TEST(DeadCode, RemovesNodesWhoseOutputsNothingReads) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {4});
    ir::Value* unused = b.Op("Exp", {b.Op("Neg", {x})});
    (void)unused;
    b.Output(b.Op("Relu", {x}));
    return b.Model();
  };
  ir::Model m = build();
  const size_t values_before = m.graph->values().size();
  EXPECT_EQ(OpsAfter(build(), 1), (OpCounts{{"Relu", 1}}));
  Optimize(*m.graph, 1, CpuKernels());
  EXPECT_EQ(m.graph->values().size(), values_before - 2);  // the Neg and Exp outputs went too
  ExpectSameOutputs(build, 1);
}

// An initializer nothing reads any more is dropped with its tensor (the session would otherwise
// hold the weights a fusion replaced); one that is a graph output stays.
TEST(DeadCode, DropsInitializersNothingReads) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {4});
  ir::Value* w = b.Floats({4});
  ir::Value* kept = b.Floats({2});
  b.Output(b.Op("Relu", {b.Op("Mul", {x, w})}));
  b.Output(kept);
  ir::Model m = b.Model();
  std::weak_ptr<const Tensor> weights = w->initializer();
  const std::string w_name = w->name();
  // The Mul is rewired to read x twice, as a fusion would: w has no reader left.
  m.graph->SetInput(w->consumers().front(), 1, x);
  Optimize(*m.graph, 1, CpuKernels());
  EXPECT_EQ(m.graph->FindValue(w_name), nullptr);
  EXPECT_TRUE(weights.expired()) << "the unread weights were freed";
  ASSERT_NE(m.graph->FindValue(kept->name()), nullptr);
  EXPECT_NE(m.graph->FindValue(kept->name())->initializer(), nullptr);
}

TEST(Optimize, ReportsWhatEachPassDid) {
  ir::Model m = PassThroughModel(false);
  const std::vector<PassReport> r = Optimize(*m.graph, 1, CpuKernels());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].pass, "constant_folding");
  EXPECT_EQ(r[1].pass, "identity_elimination");
  EXPECT_EQ(r[1].rewrites, 3u);
}

// Nodes missing inputs their schemas require (a fuzzer found a MaxPool with none that the layout
// pass read past): every level leaves them alone, for their kernels to reject at run time.
TEST(Optimize, LeavesNodesMissingRequiredInputsAlone) {
  auto build = [] {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {1, 3, 8, 8});
    b.Output(b.Op("MaxPool", {}, {IntsAttr("kernel_shape", {2, 2})}));
    ir::Value* conv = b.Op("Conv", {x});
    ir::Value* bn = b.Op("BatchNormalization", {conv, b.Floats({3})});
    b.Output(b.Op("Relu", {bn}));
    b.Output(b.Op("Add", {nullptr, x}));
    b.Output(b.Op("Slice", {x, b.Ints({1}, {0})}));
    return b.Model();
  };
  const OpCounts all{{"MaxPool", 1}, {"Conv", 1}, {"BatchNormalization", 1},
                     {"Relu", 1},    {"Add", 1},  {"Slice", 1}};
  for (int level = 0; level <= 3; ++level) {
    SCOPED_TRACE(level);
    EXPECT_EQ(OpsAfter(build(), level), all);
  }
}

}  // namespace
}  // namespace kiln::optimizer
