// What `kiln info` reads from the file (tools/kiln/model_stats.h), including subgraphs, which
// Kiln cannot load yet (no If kernel), so they are tested here rather than through the tool.
#include "model_stats.h"

#include <gtest/gtest.h>

#include "test_models.h"

namespace kiln::cli {
namespace {

// A graph holding `n` Relu nodes and one initializer of `params` elements.
onnx::GraphProto Branch(const std::string& name, int n, int params) {
  onnx::GraphProto g;
  g.set_name(name);
  for (int i = 0; i < n; ++i) g.add_node()->set_op_type("Relu");
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name + "_w");
  t->add_dims(params);
  return g;
}

TEST(ModelStats, CountsNodesAndParametersInSubgraphs) {
  onnx::ModelProto m = kiln::test::RichModel();
  onnx::NodeProto* if_node = m.mutable_graph()->add_node();
  if_node->set_op_type("If");
  onnx::AttributeProto* then_branch = if_node->add_attribute();
  then_branch->set_name("then_branch");
  *then_branch->mutable_g() = Branch("then", 2, 10);
  onnx::NodeProto* nested = then_branch->mutable_g()->add_node();  // a Loop inside the branch
  nested->set_op_type("Loop");
  *nested->add_attribute()->mutable_g() = Branch("body", 3, 100);
  onnx::AttributeProto* else_branch = if_node->add_attribute();
  else_branch->set_name("else_branch");
  *else_branch->mutable_g() = Branch("else", 1, 1000);
  onnx::AttributeProto* graphs = if_node->add_attribute();  // a GRAPHS attribute
  *graphs->add_graphs() = Branch("g1", 1, 0);
  onnx::NodeProto* custom = m.mutable_graph()->add_node();
  custom->set_op_type("Fancy");
  custom->set_domain("com.kiln.tests");
  onnx::SparseTensorProto* sparse = m.mutable_graph()->add_sparse_initializer();
  sparse->add_dims(4);
  sparse->add_dims(5);

  const ModelStats s = ComputeModelStats(m);
  EXPECT_EQ(s.ir_version, 8);
  EXPECT_EQ(s.opset_imports,
            (std::vector<std::pair<std::string, int64_t>>{{"ai.onnx", 17}, {"com.kiln.tests", 1}}));
  EXPECT_EQ(
      s.op_counts,
      (std::map<std::string, int64_t>{
          {"Identity", 4}, {"If", 1}, {"Loop", 1}, {"Relu", 7}, {"com.kiln.tests::Fancy", 1}}));
  EXPECT_EQ(s.node_count, 14);
  EXPECT_EQ(s.parameter_count, 17 + 10 + 100 + 1000 + 0 + 20);
  EXPECT_EQ(s.initializer_count, 2 + 4 + 1);
  const auto sorted = SortedOpCounts(s);
  ASSERT_EQ(sorted.size(), 5u);
  EXPECT_EQ(sorted[0], (std::pair<std::string, int64_t>{"Relu", 7}));
  EXPECT_EQ(sorted[1], (std::pair<std::string, int64_t>{"Identity", 4}));
  EXPECT_EQ(sorted[2].first, "If");  // ties by name
  EXPECT_EQ(sorted[3].first, "Loop");
}

TEST(ModelStats, DeclaredRank) {
  const onnx::ModelProto m =
      kiln::test::IdentityModel({{"shaped", 1, {}, true}, {"unshaped", 1, {}, false}});
  EXPECT_TRUE(ValueDeclaresRank(m, "shaped", false));
  EXPECT_FALSE(ValueDeclaresRank(m, "unshaped", false));
  EXPECT_FALSE(ValueDeclaresRank(m, "unshaped_out", true));
  EXPECT_TRUE(ValueDeclaresRank(m, "shaped_out", true));
}

}  // namespace
}  // namespace kiln::cli
