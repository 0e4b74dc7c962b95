// The arithmetic `kiln profile` counts for each op (tools/kiln/op_cost.h), called directly.
#include "op_cost.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::cli {
namespace {

MaybeShape S(std::initializer_list<int64_t> dims) {
  return std::vector<int64_t>(dims);
}

std::optional<double> F(const std::string& op, std::vector<MaybeShape> inputs,
                        std::vector<MaybeShape> outputs, std::map<std::string, int64_t> ints = {}) {
  return Flops({op, std::move(inputs), std::move(outputs), std::move(ints)});
}

TEST(OpCost, Convolutions) {
  // Y [1, 6, 8, 8], W [6, 2, 3, 3] (group 2): 384 outputs x 18 multiply-adds.
  const std::vector<MaybeShape> conv_in = {S({1, 4, 8, 8}), S({6, 2, 3, 3})};
  for (const char* op : {"Conv", "FusedConv", "ConvInteger", "DeformConv"}) {
    EXPECT_EQ(F(op, conv_in, {S({1, 6, 8, 8})}), 2.0 * 384 * 18) << op;
  }
  // Channels last, the same counts.
  EXPECT_EQ(F("NhwcConv", {S({1, 8, 8, 4}), S({6, 2, 3, 3})}, {S({1, 8, 8, 6})}), 2.0 * 384 * 18);
  // The fused 1x1 expansion: X [1, 8, 8, 4] to 16 channels first (WE, input 4, [16, 4, 1, 1]),
  // then a depthwise 3x3 (W [16, 1, 3, 3]).
  EXPECT_EQ(F("NhwcConv",
              {S({1, 8, 8, 4}), S({16, 1, 3, 3}), std::nullopt, std::nullopt, S({16, 4, 1, 1})},
              {S({1, 8, 8, 16})}, {{"expand", 1}}),
            2.0 * 1024 * 9 + 2.0 * 256 * 16);
  // Quantized: the weight is input 3.
  EXPECT_EQ(F("QLinearConv", {S({1, 4, 8, 8}), S({}), S({}), S({6, 2, 3, 3})}, {S({1, 6, 8, 8})}),
            2.0 * 384 * 18);
  // ConvTranspose: every input element times W [C, M/group, k, k] / C.
  EXPECT_EQ(F("ConvTranspose", {S({1, 4, 5, 5}), S({4, 3, 2, 2})}, {S({1, 3, 10, 10})}),
            2.0 * 100 * 12);
}

TEST(OpCost, Products) {
  // Batched MatMul [2, 3, 5] x [5, 7] -> [2, 3, 7]: 42 outputs x K 5.
  for (const char* op : {"MatMul", "BlockedMatMul", "MatMulInteger", "MatMulNBits"}) {
    EXPECT_EQ(F(op, {S({2, 3, 5}), S({5, 7})}, {S({2, 3, 7})}), 2.0 * 42 * 5) << op;
  }
  EXPECT_EQ(F("MatMul", {S({5}), S({5, 7})}, {S({7})}), 2.0 * 7 * 5);
  // transA: A [K, M].
  EXPECT_EQ(F("Gemm", {S({5, 3}), S({5, 7})}, {S({3, 7})}, {{"transA", 1}}), 2.0 * 21 * 5);
  EXPECT_EQ(F("FusedMatMul", {S({2, 5, 3}), S({5, 7})}, {S({2, 3, 7})}, {{"transA", 1}}),
            2.0 * 42 * 5);
  EXPECT_EQ(F("QGemm", {S({3, 5}), S({}), S({}), S({5, 7})}, {S({3, 7})}), 2.0 * 21 * 5);
}

// MultiHeadAttention (com.microsoft), as Kiln's attention fusion makes it: Q·Kᵀ and softmax·V
// over all heads, whatever their number.
TEST(OpCost, Attention) {
  EXPECT_TRUE(CountsFlops("MultiHeadAttention"));
  // q [B 2, S 5, D 8], k [2, L 7, 8], v [2, 7, Dv 6] -> [2, 5, 6].
  const std::vector<MaybeShape> qkv = {S({2, 5, 8}), S({2, 7, 8}), S({2, 7, 6})};
  const double expected = 2.0 * 2 * 5 * 7 * 8 + 2.0 * 2 * 5 * 7 * 6;
  for (const int64_t heads : {1, 2}) {
    EXPECT_EQ(F("MultiHeadAttention", qkv, {S({2, 5, 6})}, {{"num_heads", heads}}), expected)
        << heads << " heads";
  }
  // With the optional bias (input 3) and attention_bias (input 5): the same products.
  EXPECT_EQ(F("MultiHeadAttention",
              {S({2, 5, 8}), S({2, 7, 8}), S({2, 7, 6}), S({22}), std::nullopt, S({2, 1, 5, 7})},
              {S({2, 5, 6})}),
            expected);
  // Self-attention, S = L: what the fusion of a [1, 128, 64] layer gives.
  EXPECT_EQ(F("MultiHeadAttention", {S({1, 128, 64}), S({1, 128, 64}), S({1, 128, 64})},
              {S({1, 128, 64})}),
            4.0 * 128 * 128 * 64);
  // Not known: a dimension, the key (the packed QKV form), a packed key or query.
  EXPECT_FALSE(F("MultiHeadAttention", {S({2, -1, 8}), S({2, 7, 8}), S({2, 7, 6})}, {}));
  EXPECT_FALSE(F("MultiHeadAttention", {S({2, 5, 8}), S({2, 7, -1}), S({2, 7, 6})}, {}));
  EXPECT_FALSE(F("MultiHeadAttention", {S({2, 5, 3, 2, 4})}, {}));
  EXPECT_FALSE(F("MultiHeadAttention", {S({2, 5, 8}), std::nullopt, std::nullopt}, {}));
  EXPECT_FALSE(F("MultiHeadAttention", {S({2, 5, 8}), S({2, 7, 2, 2, 4})}, {}));
}

TEST(OpCost, UnknownOrUncounted) {
  EXPECT_FALSE(F("MatMul", {S({-1, 5}), S({5, 7})}, {S({-1, 7})}));
  EXPECT_FALSE(F("MatMul", {std::nullopt, S({5, 7})}, {S({3, 7})}));
  EXPECT_FALSE(F("Conv", {S({1, 4, 8, 8}), S({6, 2, -1, 3})}, {S({1, 6, 8, 8})}));
  EXPECT_FALSE(F("Conv", {S({1, 4, 8, 8})}, {S({1, 6, 8, 8})}));  // no weight
  EXPECT_FALSE(F("FusedMatMul", {S({2, 3, 5}), S({5, 7})}, {S({2, 3, 7})}, {{"transBatchA", 1}}));
  EXPECT_FALSE(F("Relu", {S({3})}, {S({3})}));
  EXPECT_FALSE(CountsFlops("Relu"));
  EXPECT_TRUE(CountsFlops("NhwcQLinearConv"));
  // An empty product has no arithmetic, and says so.
  EXPECT_EQ(F("MatMul", {S({0, 5}), S({5, 7})}, {S({0, 7})}), 0.0);
}

}  // namespace
}  // namespace kiln::cli
