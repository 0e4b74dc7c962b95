// row_gather_pushdown: a Gather of constant rows moves up through row-wise ops (and attention's
// queries) so that rows no output reads are not computed; the outputs stay the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

// After level 2, for each Gather, what its data is ("input x", "constant", or the producer's op
// type),
// sorted. The model is optimized in place: hand it a fresh one.
std::vector<std::string> GatherSources(const ir::Model& m) {
  Optimize(*m.graph, 2, CpuKernels());
  std::vector<std::string> out;
  for (const auto& n : m.graph->nodes()) {
    if (n->op_type() != "Gather") continue;
    const ir::Value* data = n->inputs()[0];
    if (data->producer() != nullptr) {
      out.push_back(data->producer()->op_type());
    } else {
      out.push_back(data->initializer() != nullptr ? "constant" : "input " + data->name());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// x [2, 5, 8] → LayerNormalization → MatMul → + b → Relu → + z [2, 5, 12] → · u [2, 1, 12]
// → Gather on axis 1.
ir::Model RowWiseChain(const std::vector<int64_t>& picks, bool scalar) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 5, 8});
  ir::Value* z = b.Input("z", {2, 5, 12});
  ir::Value* ln = b.Op("LayerNormalization", {x, b.Floats({8}), b.Floats({8})});
  ir::Value* h =
      b.Op("Relu", {b.Op("Add", {b.Op("MatMul", {ln, b.Floats({8, 12})}), b.Floats({12})})});
  ir::Value* s = b.Op("Mul", {b.Op("Add", {h, z}), b.Input("u", {2, 1, 12})});
  ir::Value* idx = scalar ? b.Ints({}, picks) : b.Ints({static_cast<int64_t>(picks.size())}, picks);
  b.Output(b.Op("Gather", {s, idx}, {IntAttr("axis", 1)}));
  return b.Model();
}

TEST(RowGatherPushdown, MovesAGatherUpARowWiseChain) {
  // One row (scalar index: a Squeeze keeps the output's rank), a negative one, and two rows in
  // any order: gathered from the inputs x and z (u, one row broadcast to all, is read as it is);
  // every op runs on those rows only.
  struct Case {
    std::vector<int64_t> picks;
    bool scalar;
  };
  for (const Case& c : {Case{{2}, true}, Case{{-1}, true}, Case{{3, 0}, false}}) {
    SCOPED_TRACE(std::to_string(c.picks[0]) + (c.scalar ? " scalar" : " list"));
    OpCounts want{{"Gather", 2},
                  {"LayerNormalization", 1},
                  {"ai.kiln.BlockedMatMul", 1},  // with + b as its bias
                  {"Add", 1},
                  {"Mul", 1},
                  {"Relu", 1}};
    if (c.scalar) want["Squeeze"] = 1;
    EXPECT_EQ(OpsAfter(RowWiseChain(c.picks, c.scalar), 2), want);
    EXPECT_EQ(GatherSources(RowWiseChain(c.picks, c.scalar)),
              (std::vector<std::string>{"input x", "input z"}));
    ExpectSameOutputs([&] { return RowWiseChain(c.picks, c.scalar); }, 2);
  }
}

// ViT's last layer as torch exports it (sequence-first attention, batch 1), then the final
// LayerNormalization, the class token x[:, token] and the head. `causal` uses a unidirectional
// MultiHeadAttention node instead; `query_bias` adds an attention_bias that differs per query.
ir::Model ClassTokenEncoder(bool causal = false, bool query_bias = false, int64_t token = 0) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {1, 6, 16});
  ir::Value* ln1 = b.Op("LayerNormalization", {x, b.Floats({16}), b.Floats({16})});
  ir::Value* attn = nullptr;
  if (causal || query_bias) {
    auto proj = [&] { return b.Op("MatMul", {ln1, b.Floats({16, 16})}); };
    std::vector<ir::Value*> in = {proj(), proj(), proj()};
    std::vector<ir::Attribute> attrs = {IntAttr("num_heads", 2)};
    if (causal) attrs.push_back(IntAttr("unidirectional", 1));
    if (query_bias) {
      in.push_back(nullptr);  // bias
      in.push_back(nullptr);  // key_padding_mask
      in.push_back(b.Floats({1, 2, 6, 6}));
    }
    attn = b.Node("MultiHeadAttention", in, 1, attrs, 1, "com.microsoft")[0];
  } else {
    ir::Value* xt = b.Op("Transpose", {ln1}, {IntsAttr("perm", {1, 0, 2})});
    ir::Value* qkv = b.Op("Add", {b.Floats({48}), b.Op("MatMul", {xt, b.Floats({16, 48})})});
    auto part = [&](int64_t p, std::vector<int64_t> perm) {
      ir::Value* sl = b.Op(
          "Slice", {qkv, b.Ints({1}, {16 * p}), b.Ints({1}, {16 * (p + 1)}), b.Ints({1}, {-1})});
      ir::Value* r = b.Op("Reshape", {sl, b.Ints({3}, {6, 2, 8})});
      return b.Op("Transpose", {r}, {IntsAttr("perm", std::move(perm))});
    };
    ir::Value* q = b.Op("Div", {part(0, {1, 0, 2}), b.Floats({}, {2.8284271f})});
    ir::Value* p =
        b.Op("Softmax", {b.Op("MatMul", {q, part(1, {1, 2, 0})})}, {IntAttr("axis", -1)});
    ir::Value* o =
        b.Op("Transpose", {b.Op("MatMul", {p, part(2, {1, 0, 2})})}, {IntsAttr("perm", {1, 0, 2})});
    ir::Value* flat = b.Op("Reshape", {o, b.Ints({2}, {6, 16})});
    ir::Value* proj =
        b.Op("Gemm", {flat, b.Floats({16, 16}), b.Floats({16})}, {IntAttr("transB", 1)});
    ir::Value* r = b.Op("Reshape", {proj, b.Ints({3}, {6, 1, 16})});
    attn = b.Op("Transpose", {r}, {IntsAttr("perm", {1, 0, 2})});
  }
  ir::Value* h = b.Op("Add", {x, attn});
  ir::Value* ln2 = b.Op("LayerNormalization", {h, b.Floats({16}), b.Floats({16})});
  ir::Value* mlp = b.Op(
      "MatMul",
      {b.Op("Relu", {b.Op("Add", {b.Op("MatMul", {ln2, b.Floats({16, 32})}), b.Floats({32})})}),
       b.Floats({32, 16})});
  ir::Value* y = b.Op("Add", {h, b.Op("Add", {mlp, b.Floats({16})})});
  ir::Value* ln3 = b.Op("LayerNormalization", {y, b.Floats({16}), b.Floats({16})});
  ir::Value* cls = b.Op("Gather", {ln3, b.Ints({}, {token})}, {IntAttr("axis", 1)});
  b.Output(b.Op("Gemm", {cls, b.Floats({10, 16}), b.Floats({10})}, {IntAttr("transB", 1)}));
  return b.Model();
}

TEST(RowGatherPushdown, ComputesTheLastLayerForTheClassTokenOnly) {
  // The class token is gathered where the layer's input is first read: before the query's
  // projection (the keys' and values' read every token) and on the residual path. Everything
  // after the attention, MLP included, is on that one row. The attention fusion made the three
  // projections BlockedMatMuls (the query's now runs on one row); the MLP's products, on one row
  // by the time the blocked_matmul pass sees them, are matrix-vector ones and stay MatMul.
  const OpCounts after = OpsAfter(ClassTokenEncoder(), 2);
  EXPECT_EQ(after.at("Gather"), 2);
  EXPECT_EQ(after.at("com.microsoft.MultiHeadAttention"), 1);
  EXPECT_EQ(after.at("ai.kiln.BlockedMatMul"), 3);
  EXPECT_EQ(after.at("MatMul"), 2);
  EXPECT_EQ(after.at("Squeeze"), 1);
  EXPECT_EQ(GatherSources(ClassTokenEncoder()),
            (std::vector<std::string>{"LayerNormalization", "input x"}));
  ExpectSameOutputs([] { return ClassTokenEncoder(); }, 2);
  ExpectSameOutputs([] { return ClassTokenEncoder(); }, 3);
  // An attention_bias that differs per query is gathered with the query.
  const OpCounts biased = OpsAfter(ClassTokenEncoder(false, true), 2);
  // A constant one's rows are picked at load: no Gather of it is left to run.
  EXPECT_EQ(biased.at("Gather"), 2);
  EXPECT_EQ(biased.at("ai.kiln.BlockedMatMul"), 2) << "the keys' and values' projections";
  EXPECT_EQ(GatherSources(ClassTokenEncoder(false, true)),
            (std::vector<std::string>{"LayerNormalization", "input x"}));
  for (int64_t token : {0, 4}) {
    ExpectSameOutputs([&] { return ClassTokenEncoder(false, true, token); }, 2);
  }
}

TEST(RowGatherPushdown, StopsWhereRowsDependOnOtherRows) {
  // Causal attention: query i's keys depend on i, so the Gather stays after the attention (it
  // still moves through the MLP and the residual Add).
  EXPECT_EQ(GatherSources(ClassTokenEncoder(true)),
            (std::vector<std::string>{"MultiHeadAttention", "input x"}));
  ExpectSameOutputs([] { return ClassTokenEncoder(true); }, 2);
  // LayerNormalization over the gathered axis, a product's columns, and a Softmax.
  auto build = [](int variant) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {2, 5, 8});
    ir::Value* y = nullptr;
    int64_t axis = 1;
    if (variant == 0)
      y = b.Op("LayerNormalization", {x, b.Floats({5, 8}), b.Floats({5, 8})}, {IntAttr("axis", 1)});
    if (variant == 1) {
      y = b.Op("MatMul", {x, b.Floats({8, 6})});
      axis = 2;
    }
    if (variant == 2) y = b.Op("Softmax", {x}, {IntAttr("axis", 1)});
    b.Output(b.Op("Gather", {y, b.Ints({1}, {0})}, {IntAttr("axis", axis)}));
    return b.Model();
  };
  EXPECT_EQ(GatherSources(build(0)), std::vector<std::string>{"LayerNormalization"});
  EXPECT_EQ(GatherSources(build(1)), std::vector<std::string>{"BlockedMatMul"});
  EXPECT_EQ(GatherSources(build(2)), std::vector<std::string>{"Softmax"});
}

// A Reshape to sizes whose product overflows int64 (its own check cannot count the elements):
// the Gather after it stays there, and working out which input axis holds its rows overflows
// nothing (the sanitizer build would report it).
TEST(RowGatherPushdown, StopsAtAReshapeToSizesTooLargeToMultiply) {
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 5, 8});
  ir::Value* r = b.Op("Reshape", {b.Op("Relu", {x}), b.Ints({4}, {int64_t{1} << 62, 4, 5, 8})});
  b.Output(b.Op("Gather", {r, b.Ints({1}, {0})}, {IntAttr("axis", 2)}));
  EXPECT_EQ(GatherSources(b.Model()), std::vector<std::string>{"Reshape"});
}

TEST(RowGatherPushdown, LeavesGathersWhoseRowsAreNeededElsewhere) {
  // The gathered value is also a graph output (BERT's last_hidden_state), or another node reads
  // it, or the Gather picks every row, or its indices are not constant.
  auto build = [](int variant) {
    GraphBuilder b;
    ir::Value* x = b.Input("x", {2, 5, 8});
    ir::Value* y = b.Op("Relu", {x});
    if (variant == 0) b.Output(y);
    if (variant == 1) b.Output(b.Op("Tanh", {y}));
    ir::Value* idx = variant == 2   ? b.Ints({5}, {4, 3, 2, 1, 0})
                     : variant == 3 ? b.Input("i", {1}, DataType::kInt64)
                                    : b.Ints({1}, {0});
    b.Output(b.Op("Gather", {y, idx}, {IntAttr("axis", 1)}));
    return b.Model();
  };
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    EXPECT_EQ(GatherSources(build(variant)), std::vector<std::string>{"Relu"});
  }
  // Two outputs of one node read by Gathers of different rows.
  GraphBuilder b;
  ir::Value* x = b.Input("x", {2, 5, 8});
  std::vector<ir::Value*> ln = b.Node("LayerNormalization", {x, b.Floats({8}), b.Floats({8})}, 2);
  b.Output(b.Op("Gather", {ln[0], b.Ints({1}, {0})}, {IntAttr("axis", 1)}));
  b.Output(b.Op("Gather", {ln[1], b.Ints({1}, {1})}, {IntAttr("axis", 1)}));
  EXPECT_EQ(GatherSources(b.Model()),
            (std::vector<std::string>{"LayerNormalization", "LayerNormalization"}));
}

}  // namespace
}  // namespace kiln::optimizer
