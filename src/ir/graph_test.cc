#include "ir/graph.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace kiln::ir {
namespace {

TEST(Graph, TopologicalOrderPutsProducersFirst) {
  Graph g;
  Value* x = g.AddValue("x");
  Value* a = g.AddValue("a");
  Value* b = g.AddValue("b");
  g.inputs().push_back(x);
  Node* second = g.AddNode("second", "Neg", "");
  Node* first = g.AddNode("first", "Relu", "");
  g.Connect(second, {a, a}, {b});
  g.Connect(first, {x}, {a});
  std::vector<Node*> order = g.TopologicalOrder();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], first);
  EXPECT_EQ(order[1], second);
  EXPECT_EQ(a->consumers().size(), 2u);
  EXPECT_EQ(b->producer(), second);
}

TEST(Graph, CycleIsAnErrorNamingANode) {
  Graph g;
  Value* a = g.AddValue("a");
  Value* b = g.AddValue("b");
  g.Connect(g.AddNode("n1", "Relu", ""), {b}, {a});
  g.Connect(g.AddNode("n2", "Relu", ""), {a}, {b});
  try {
    g.TopologicalOrder();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidGraph);
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("node 'n"), std::string::npos);
  }
}

TEST(Graph, DuplicateNamesAndTwoProducersAreErrors) {
  Graph g;
  Value* a = g.AddValue("a");
  EXPECT_THROW(g.AddValue("a"), Error);
  g.Connect(g.AddNode("n1", "Relu", ""), {}, {a});
  try {
    g.Connect(g.AddNode("n2", "Relu", ""), {}, {a});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'n1'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir
