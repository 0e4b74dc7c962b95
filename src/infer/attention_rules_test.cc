// Inference rules of the attention family: Attention, RotaryEmbedding, TensorScatter,
// CausalConvWithState, LinearAttention.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kH = DataType::kFloat16;

TEST(InferAttention, FourDWithPastAndScores) {
  auto out = RuleTest("Attention", 23)
                 .Input(kF, {2, 9, 4, 8})
                 .Input(kF, {2, 3, 6, 8})
                 .Input(kF, {2, 3, 6, 10})
                 .Input(kF, {4, 18})
                 .Input(kF, {2, 3, 12, 8})
                 .Input(kF, {2, 3, 12, 10})
                 .Outputs(4)
                 .Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 9, 4, 10}));
  EXPECT_EQ(Dims(out[1]), (V{2, 3, 18, 8}));
  EXPECT_EQ(Dims(out[2]), (V{2, 3, 18, 10}));
  EXPECT_EQ(Dims(out[3]), (V{2, 9, 4, 18}));
}

TEST(InferAttention, ThreeDUsesTheHeadAttributes) {
  auto out = RuleTest("Attention", 23)
                 .Attr("q_num_heads", int64_t{9})
                 .Attr("kv_num_heads", int64_t{3})
                 .Input(kH, {2, -1, 72})
                 .Input(kH, {2, 6, 24})
                 .Input(kH, {2, 6, 30})
                 .Outputs(4, {1, 2})
                 .Run();
  EXPECT_EQ(out[0].type, kH);
  EXPECT_EQ(Dims(out[0]), (V{2, -1, 90}));
  EXPECT_EQ(Dims(out[3]), (V{2, 9, -1, 6}));
}

TEST(InferAttention, RejectsMixedOrWrongRanks) {
  ExpectFail(
      [] {
        RuleTest("Attention", 23).Input(kF, {2, 3}).Input(kF, {2, 3}).Input(kF, {2, 3}).Run();
      },
      {"input 'Q' has shape [2,3]"});
  ExpectFail(
      [] {
        RuleTest("Attention", 23)
            .Input(kF, {2, 3, 4, 8})
            .Input(kF, {2, 6, 8})
            .Input(kF, {2, 6, 8})
            .Run();
      },
      {"differ in rank"});
  auto unknown = RuleTest("Attention", 23)
                     .UnknownRankInput(kF)
                     .UnknownRankInput(kF)
                     .UnknownRankInput(kF)
                     .Run();
  EXPECT_EQ(Dims(unknown[0]), (V{-100}));
}

TEST(InferAttention, LikeFirstInputOps) {
  auto rot = RuleTest("RotaryEmbedding", 23)
                 .Input(kF, {2, 4, 3, 8})
                 .Input(kF, {50, 4})
                 .Input(kF, {50, 4})
                 .Run();
  EXPECT_EQ(Dims(rot[0]), (V{2, 4, 3, 8}));
  auto scatter = RuleTest("TensorScatter", 24)
                     .Input(kH, {2, 1, 4, 5})
                     .Input(kH, {2, 1, 1, 5})
                     .Input(DataType::kInt64, {2})
                     .Run();
  EXPECT_EQ(scatter[0].type, kH);
  EXPECT_EQ(Dims(scatter[0]), (V{2, 1, 4, 5}));
}

TEST(InferAttention, CausalConvWithState) {
  auto out = RuleTest("CausalConvWithState", 27)
                 .Input(kF, {2, 4, 8})
                 .Input(kF, {4, 1, 4})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 4, 8}));
  EXPECT_EQ(Dims(out[1]), (V{2, 4, 3}));
  ExpectFail(
      [] {
        RuleTest("CausalConvWithState", 27).Input(kF, {2, 4}).Input(kF, {4, 1, 4}).Run();
      },
      {"input 'input' has shape [2,4]"});
}

TEST(InferAttention, LinearAttention) {
  auto out = RuleTest("LinearAttention", 27)
                 .Attr("q_num_heads", int64_t{8})
                 .Attr("kv_num_heads", int64_t{4})
                 .Input(kF, {2, 4, 64})
                 .Input(kF, {2, 4, 32})
                 .Input(kF, {2, 4, 40})
                 .Input(kH, {2, 4, 8, 10})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 4, 80}));
  EXPECT_EQ(out[1].type, kH);
  EXPECT_EQ(Dims(out[1]), (V{2, 4, 8, 10}));
}

TEST(InferAttention, FlexAttention) {
  auto out = RuleTest("FlexAttention", 1, "ai.onnx.preview")
                 .Input(kF, {2, 8, 4, 16})
                 .Input(kF, {2, 2, 6, 16})
                 .Input(kF, {2, 2, 6, 32})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 8, 4, 32}));
  ExpectFail(
      [] {
        RuleTest("FlexAttention", 1, "ai.onnx.preview")
            .Input(kF, {2, 8, 4})
            .Input(kF, {2, 2, 6})
            .Input(kF, {2, 2, 6})
            .Run();
      },
      {"input 'Q' has shape [2,8,4]"});
}

}  // namespace
}  // namespace kiln::infer::testing
