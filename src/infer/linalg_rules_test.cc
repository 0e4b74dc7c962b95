// Inference rules of MatMul, MatMulInteger, Gemm and LayerNormalization.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;

TEST(InferMatMul, MultipliesBatchesOfMatrices) {
  auto out = RuleTest("MatMul", 13).Input(kF, {2, 1, 3, 4}).Input(kF, {5, 4, 6}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 5, 3, 6}));
}

TEST(InferMatMul, PromotesVectors) {
  EXPECT_EQ(Dims(RuleTest("MatMul", 13).Input(kF, {4}).Input(kF, {2, 4, 6}).Run()[0]), (V{2, 6}));
  EXPECT_EQ(Dims(RuleTest("MatMul", 13).Input(kF, {3, 4}).Input(kF, {4}).Run()[0]), (V{3}));
  EXPECT_EQ(Dims(RuleTest("MatMul", 13).Input(kF, {4}).Input(kF, {4}).Run()[0]), (V{}));
}

TEST(InferMatMul, KeepsUnknownDimensions) {
  auto out = RuleTest("MatMul", 13).Input(kF, {-1, 3, -1}).Input(kF, {-1, 5}).Run();
  EXPECT_EQ(Dims(out[0]), (V{-1, 3, 5}));
  EXPECT_FALSE(RuleTest("MatMul", 13).UnknownRankInput(kF).Input(kF, {2, 3}).Run()[0].shape);
}

TEST(InferMatMul, FailsOnInnerMismatch) {
  ExpectFail(
      [] {
        RuleTest("MatMul", 13).Input(kF, {2, 3}).Input(kF, {4, 5}).Run();
      },
      {"input 'A' has shape [2,3]", "input 'B' has shape [4,5]", "(3)", "(4)"});
  ExpectFail(
      [] {
        RuleTest("MatMul", 13).Input(kF, {2, 2, 3}).Input(kF, {3, 3, 5}).Run();
      },
      {"input 'B'", "does not broadcast"});
  ExpectFail([] { RuleTest("MatMul", 13).Input(kF, {}).Input(kF, {3}).Run(); }, {"rank 1"});
}

TEST(InferMatMulInteger, GivesInt32) {
  auto out = RuleTest("MatMulInteger", 10)
                 .Input(DataType::kUint8, {2, 3})
                 .Input(DataType::kUint8, {3, 4})
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kInt32);
  EXPECT_EQ(Dims(out[0]), (V{2, 4}));
}

TEST(InferGemm, TransposesOperands) {
  auto out = RuleTest("Gemm", 13)
                 .Attr("transA", 1)
                 .Attr("transB", 1)
                 .Input(kF, {3, 2})
                 .Input(kF, {5, 3})
                 .Input(kF, {5})
                 .Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 5}));
  auto no_c = RuleTest("Gemm", 13).Input(kF, {-1, 3}).Input(kF, {3, 4}).Run();
  EXPECT_EQ(Dims(no_c[0]), (V{-1, 4}));
}

TEST(InferGemm, FailsOnBadShapes) {
  ExpectFail(
      [] {
        RuleTest("Gemm", 13).Input(kF, {2, 3}).Input(kF, {4, 5}).Run();
      },
      {"input 'A'", "inner dimensions 3 and 4 differ"});
  ExpectFail(
      [] {
        RuleTest("Gemm", 13).Input(kF, {2, 3, 1}).Input(kF, {3, 5}).Run();
      },
      {"input 'A'", "2-D"});
  ExpectFail(
      [] {
        RuleTest("Gemm", 13).Input(kF, {2, 3}).Input(kF, {3, 5}).Input(kF, {3}).Run();
      },
      {"input 'C'", "does not broadcast"});
  ExpectFail(
      [] {
        RuleTest("Gemm", 6).Input(kF, {2, 3}).Input(kF, {3, 5}).Input(kF, {5}).Run();
      },
      {"input 'C'", "broadcast is 0"});
}

TEST(InferLayerNormalization, StatisticsKeepLeadingDimensions) {
  auto out = RuleTest("LayerNormalization", 17)
                 .Attr("axis", -2)
                 .Input(DataType::kFloat16, {2, 3, 4})
                 .Input(DataType::kFloat16, {3, 4})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(out[0].type, DataType::kFloat16);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 4}));
  EXPECT_EQ(out[1].type, kF);
  EXPECT_EQ(Dims(out[1]), (V{2, 1, 1}));
  EXPECT_EQ(Dims(out[2]), (V{2, 1, 1}));
  ExpectFail(
      [] {
        RuleTest("LayerNormalization", 17).Attr("axis", 3).Input(kF, {2, 3}).Outputs(2).Run();
      },
      {"axis 3", "input 'X'"});
}

}  // namespace
}  // namespace kiln::infer::testing
