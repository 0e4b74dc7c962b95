// Inference rules of the com.microsoft fused ops: Gelu, FastGelu, BiasGelu,
// SkipLayerNormalization, FusedMatMul, MultiHeadAttention.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

// RuleTest for a com.microsoft op, inputs written as shapes (nullopt: left out; {-100}: unknown
// rank).
class MsRule {
 public:
  explicit MsRule(std::string op) : test_(std::move(op), 1, "com.microsoft") {}
  MsRule& Attr(const std::string& name, int64_t v) {
    test_.Attr(name, v);
    return *this;
  }
  MsRule& Input(const std::optional<V>& dims, DataType type = kF) {
    if (!dims) {
      test_.MissingInput();
    } else if (*dims == V{-100}) {
      test_.UnknownRankInput(type);
    } else {
      test_.Input(type, *dims);
    }
    return *this;
  }
  // An input whose value is known at load, or of which what is known is `facts`.
  MsRule& ConstInt32(const V& dims, const std::vector<int32_t>& values) {
    test_.ConstInput<int32_t>(dims, values);
    return *this;
  }
  MsRule& Input(TensorFacts facts) {
    test_.Input(std::move(facts));
    return *this;
  }
  MsRule& Outputs(size_t n, std::vector<size_t> missing = {}) {
    test_.Outputs(n, std::move(missing));
    return *this;
  }
  std::vector<TensorFacts> Run() const { return test_.Run(); }

 private:
  RuleTest test_;
};

TEST(InferContrib, RulesAreInTheMicrosoftDomainOnly) {
  for (const char* op : {"Gelu", "FastGelu", "BiasGelu", "SkipLayerNormalization", "FusedMatMul",
                         "MultiHeadAttention", "QEmbedLayerNormalization"}) {
    EXPECT_NE(FindRule("com.microsoft", op), nullptr) << op;
  }
  EXPECT_EQ(FindRule("", "FusedMatMul"), nullptr);
  EXPECT_EQ(FindRule("", "MultiHeadAttention"), nullptr);
}

TEST(InferContribGelu, ShapeOfTheFirstInput) {
  auto gelu = MsRule("Gelu").Input(V{2, -1, 8}).Run();
  EXPECT_EQ(gelu[0].type, kF);
  EXPECT_EQ(Dims(gelu[0]), (V{2, -1, 8}));
  auto fast = MsRule("FastGelu").Input(V{2, 3, 8}).Input(V{8}).Run();
  EXPECT_EQ(Dims(fast[0]), (V{2, 3, 8}));
  auto no_bias = MsRule("FastGelu").Input(V{4, 5}, DataType::kFloat16).Run();
  EXPECT_EQ(no_bias[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(no_bias[0]), (V{4, 5}));
  auto bias_gelu = MsRule("BiasGelu").Input(V{2, 3, -1}).Input(V{16}).Run();
  EXPECT_EQ(Dims(bias_gelu[0]), (V{2, 3, -1}));
  EXPECT_FALSE(MsRule("BiasGelu").Input(V{-100}).Input(V{16}).Run()[0].shape);
  ExpectFail(
      [] {
        MsRule("BiasGelu").Input(V{2, 3, 8}).Input(V{4}).Run();
      },
      {"input 'B' has shape [4]", "input 'A' [2,3,8]"});
  ExpectFail(
      [] {
        MsRule("FastGelu").Input(V{2, 8}).Input(V{1, 8}).Run();
      },
      {"input 'bias' has shape [1,8]"});
}

TEST(InferContribSkipLayerNormalization, OutputsAndStatistics) {
  auto all = MsRule("SkipLayerNormalization")
                 .Input(V{2, -1, 768})
                 .Input(V{2, -1, 768})
                 .Input(V{768})
                 .Outputs(4)
                 .Run();
  EXPECT_EQ(Dims(all[0]), (V{2, -1, 768}));
  EXPECT_EQ(all[0].type, kF);
  for (size_t i : {size_t{1}, size_t{2}}) {
    EXPECT_EQ(Dims(all[i]), (V{2, -1, 1}));
    EXPECT_EQ(all[i].type, kF);
  }
  EXPECT_EQ(Dims(all[3]), (V{2, -1, 768}));
  auto some = MsRule("SkipLayerNormalization")
                  .Input(V{6, 8}, DataType::kFloat16)
                  .Input(V{6, 8}, DataType::kFloat16)
                  .Input(V{8}, DataType::kFloat16)
                  .Outputs(4, {1, 2})
                  .Run();
  EXPECT_EQ(some[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(some[3]), (V{6, 8}));
  EXPECT_EQ(some[3].type, DataType::kFloat16);
  EXPECT_FALSE(some[1].shape);
  EXPECT_EQ(some[1].type, DataType::kUndefined);
  ExpectFail([] { MsRule("SkipLayerNormalization").Input(V{8}).Input(V{8}).Input(V{8}).Run(); },
             {"input 'input' has shape [8]", "2-D or 3-D"});
}

TEST(InferContribFusedMatMul, TransposesAndBroadcasts) {
  EXPECT_EQ(Dims(MsRule("FusedMatMul").Input(V{2, 3, 4}).Input(V{4, 5}).Run()[0]), (V{2, 3, 5}));
  EXPECT_EQ(Dims(MsRule("FusedMatMul")
                     .Attr("transA", 1)
                     .Attr("transB", 1)
                     .Input(V{2, 1, 4, 3})
                     .Input(V{5, 5, 4})
                     .Run()[0]),
            (V{2, 5, 3, 5}));
  EXPECT_EQ(Dims(MsRule("FusedMatMul")
                     .Attr("transB", 1)
                     .Input(V{-1, 12, 128, 64})
                     .Input(V{-1, 12, 128, 64})
                     .Run()[0]),
            (V{-1, 12, 128, 128}));
  EXPECT_EQ(Dims(MsRule("FusedMatMul").Attr("transA", 1).Input(V{4}).Input(V{4, 5}).Run()[0]),
            (V{5}));
  EXPECT_EQ(Dims(MsRule("FusedMatMul").Attr("transB", 1).Input(V{3, 4}).Input(V{4}).Run()[0]),
            (V{3}));
  EXPECT_FALSE(MsRule("FusedMatMul").Input(V{-100}).Input(V{4, 5}).Run()[0].shape);
  ExpectFail(
      [] {
        MsRule("FusedMatMul").Attr("transB", 1).Input(V{3, 4}).Input(V{4, 5}).Run();
      },
      {"input 'A' has shape [3,4]", "inner dimensions (4 and 5) differ"});
  ExpectFail(
      [] {
        MsRule("FusedMatMul").Input(V{2, 3, 4}).Input(V{3, 4, 5}).Run();
      },
      {"input 'B'"});
  ExpectFail([] { MsRule("FusedMatMul").Input(V{}).Input(V{4}).Run(); }, {"rank 1 or more"});
}

TEST(InferContribMultiHeadAttention, OutputShape) {
  auto out = MsRule("MultiHeadAttention")
                 .Attr("num_heads", 12)
                 .Input(V{-1, 128, 768})
                 .Input(V{-1, 64, 768})
                 .Input(V{-1, 64, 384})
                 .Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{-1, 128, 384}));
  auto unknown_value = MsRule("MultiHeadAttention")
                           .Attr("num_heads", 2)
                           .Input(V{2, 5, 8})
                           .Input(V{2, 7, 8})
                           .Input(V{-100})
                           .Run();
  EXPECT_EQ(Dims(unknown_value[0]), (V{2, 5, -1}));
  ExpectFail(
      [] {
        MsRule("MultiHeadAttention")
            .Attr("num_heads", 5)
            .Input(V{2, 5, 8})
            .Input(V{2, 7, 8})
            .Input(V{2, 7, 10})
            .Run();
      },
      {"attribute 'num_heads' (5)", "input 'query' [2,5,8]"});
  ExpectFail(
      [] {
        MsRule("MultiHeadAttention")
            .Attr("num_heads", 4)
            .Input(V{2, 5, 8})
            .Input(V{2, 7, 8})
            .Input(V{2, 7, 10})
            .Run();
      },
      {"attribute 'num_heads' (4)", "input 'value' [2,7,10]"});
  ExpectFail(
      [] {
        MsRule("MultiHeadAttention").Input(V{2, 5, 8}).Input(V{2, 7, 8}).Input(V{2, 7, 8}).Run();
      },
      {"attribute 'num_heads' is required"});
  ExpectFail(
      [] {
        MsRule("MultiHeadAttention")
            .Attr("num_heads", 0)
            .Input(V{2, 5, 8})
            .Input(V{2, 7, 8})
            .Input(V{2, 7, 8})
            .Run();
      },
      {"attribute 'num_heads' is 0"});
}

// Outputs 0-2, and output_qk [B, N, S, T] with T total_sequence_length's value when known.
TEST(InferContribGroupQueryAttention, OutputShapes) {
  const auto gqa = [](TensorFacts total, size_t outputs, std::vector<size_t> missing = {}) {
    return MsRule("GroupQueryAttention")
        .Attr("num_heads", 4)
        .Attr("kv_num_heads", 2)
        .Input(V{2, 5, 64})
        .Input(V{2, 5, 32})
        .Input(V{2, 5, 32})
        .Input(std::nullopt)
        .Input(std::nullopt)
        .Input(V{2}, DataType::kInt32)
        .Input(std::move(total))
        .Outputs(outputs, std::move(missing))
        .Run();
  };
  TensorFacts constant;
  constant.type = DataType::kInt32;
  constant.shape = Shape({1});
  constant.value = MakeTensor<int32_t>({1}, {9});
  auto out = gqa(constant, 4);
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 5, 64}));
  EXPECT_EQ(Dims(out[1]), (V{2, 2, -1, 16}));
  EXPECT_EQ(Dims(out[2]), (V{2, 2, -1, 16}));
  EXPECT_EQ(out[3].type, kF);
  EXPECT_EQ(Dims(out[3]), (V{2, 4, 5, 9}));
  TensorFacts symbol;  // e.g. Shape -> Gather of a graph input's dimension
  symbol.type = DataType::kInt32;
  symbol.shape = Shape({1});
  symbol.dims_value = V{SymbolicDim(3)};
  EXPECT_EQ(Dims(gqa(symbol, 4)[3]), (V{2, 4, 5, SymbolicDim(3)}));
  TensorFacts unknown;
  unknown.type = DataType::kInt32;
  unknown.shape = Shape({1});
  EXPECT_EQ(Dims(gqa(unknown, 4)[3]), (V{2, 4, 5, -1}));
  auto without = gqa(constant, 4, {3});
  EXPECT_EQ(Dims(without[0]), (V{2, 5, 64}));
  EXPECT_FALSE(without[3].shape.has_value());
  EXPECT_EQ(gqa(constant, 3).size(), 3u);
}

}  // namespace
}  // namespace kiln::infer::testing
