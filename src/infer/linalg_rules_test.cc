// Inference rules of MatMul, MatMulInteger, Gemm, LayerNormalization and Einsum.
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

RuleTest Einsum(const char* equation) {
  RuleTest t("Einsum", 12);
  t.Attr("equation", equation);
  return t;
}

TEST(InferEinsum, FollowsAnExplicitOutput) {
  auto out = Einsum("bij,bjk->bik").Input(kF, {2, 3, 4}).Input(kF, {2, 4, 5}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_EQ(Dims(out[0]), (V{2, 3, 5}));
  EXPECT_EQ(Dims(Einsum("ij->ji").Input(kF, {2, 3}).Run()[0]), (V{3, 2}));
  EXPECT_EQ(Dims(Einsum("ii->i").Input(kF, {4, 4}).Run()[0]), (V{4}));
  EXPECT_EQ(Dims(Einsum("i j , j k -> k").Input(kF, {2, 3}).Input(kF, {3, 5}).Run()[0]), (V{5}));
}

TEST(InferEinsum, BuildsAnImplicitOutput) {
  // The letters that occur once, sorted: "ik"; "ba" gives "ab".
  EXPECT_EQ(Dims(Einsum("ij,jk").Input(kF, {2, 3}).Input(kF, {3, 5}).Run()[0]), (V{2, 5}));
  EXPECT_EQ(Dims(Einsum("ba").Input(kF, {2, 3}).Run()[0]), (V{3, 2}));
  EXPECT_EQ(Dims(Einsum("Ba,b").Input(kF, {2, 3}).Input(kF, {7}).Run()[0]), (V{2, 3, 7}));
}

TEST(InferEinsum, BroadcastsTheEllipsis) {
  auto out = Einsum("...ij,...jk->...ik").Input(kF, {2, 1, 3, 4}).Input(kF, {5, 4, 6}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 5, 3, 6}));
  // Implicit: the ellipsis dimensions first.
  EXPECT_EQ(Dims(Einsum("i...").Input(kF, {3, 4, 5}).Run()[0]), (V{4, 5, 3}));
  EXPECT_EQ(Dims(Einsum("...ii->...i").Input(kF, {2, 3, 3}).Run()[0]), (V{2, 3}));
  EXPECT_EQ(Dims(Einsum("...,...").Input(kF, {1, 3}).Input(kF, {4, 1}).Run()[0]), (V{4, 3}));
}

TEST(InferEinsum, GivesAScalar) {
  auto out = Einsum("i,i").Input(kF, {4}).Input(kF, {4}).Run();
  ASSERT_TRUE(out[0].shape);
  EXPECT_EQ(Dims(out[0]), (V{}));
  EXPECT_EQ(Dims(Einsum("ij->").Input(kF, {2, 3}).Run()[0]), (V{}));
  EXPECT_EQ(Dims(Einsum("ii").Input(kF, {3, 3}).Run()[0]), (V{}));
  EXPECT_EQ(Dims(Einsum("->").Input(kF, {}).Run()[0]), (V{}));
}

TEST(InferEinsum, KeepsWhatIsUnknown) {
  auto out = Einsum("ij,jk->ik").UnknownRankInput(kF).Input(kF, {3, 5}).Run();
  EXPECT_EQ(out[0].type, kF);
  EXPECT_FALSE(out[0].shape);
  // Input 1 tells the type when input 0 does not.
  EXPECT_EQ(Einsum("i,i").Input(DataType::kUndefined, {3}).Input(kF, {3}).Run()[0].type, kF);
  EXPECT_EQ(Dims(Einsum("ij,jk->ik").Input(kF, {-1, 3}).Input(kF, {3, -1}).Run()[0]), (V{-1, -1}));
  // Another input's size other than 1 decides a label; an unknown one may be 1 or that size.
  EXPECT_EQ(Dims(Einsum("ij,jk->ijk").Input(kF, {2, -1}).Input(kF, {3, 5}).Run()[0]), (V{2, 3, 5}));
  EXPECT_EQ(Dims(Einsum("i,i->i").Input(kF, {-1}).Input(kF, {1}).Run()[0]), (V{-1}));
  EXPECT_EQ(Dims(Einsum("...i,...i->...i").Input(kF, {-1, 4}).Input(kF, {2, 4}).Run()[0]),
            (V{2, 4}));
  // The unknown size of a diagonal is its known one (1), which broadcasts to input 1's 5.
  EXPECT_EQ(Dims(Einsum("ii,i->i").Input(kF, {1, -1}).Input(kF, {5}).Run()[0]), (V{5}));
}

TEST(InferEinsum, FailsWhereTheKernelWould) {
  ExpectFail(
      [] {
        Einsum("ij,jk").Input(kF, {2, 3}).Input(kF, {4, 5}).Run();
      },
      {"equation 'ij,jk'", "label 'j' has size 4 in input 1 but 3 before, and neither is 1"});
  ExpectFail(
      [] {
        Einsum("ij,jk").Input(kF, {2, 3, 4}).Input(kF, {4, 5}).Run();
      },
      {"input 0 has rank 3 but its term has 2 letters"});
  ExpectFail(
      [] {
        Einsum("ii->i").Input(kF, {2, 3}).Run();
      },
      {"label 'i' repeats in input 0 with sizes 2 and 3"});
  ExpectFail(
      [] {
        Einsum("...i,...i->i").Input(kF, {2, 3}).Input(kF, {2, 3}).Run();
      },
      {"the output has no \"...\""});
  ExpectFail([] { Einsum("...,...").Input(kF, {2}).Input(kF, {3}).Run(); },
             {"a dimension of \"...\" has size 3 in input 1 but 2 before"});
  // Certain whatever the unknown sizes are.
  ExpectFail(
      [] {
        Einsum("ij,jk,k").Input(kF, {-1, 3}).Input(kF, {4, -1}).Input(kF, {-1}).Run();
      },
      {"label 'j' has size 4 in input 1 but 3 before"});
  ExpectFail([] { Einsum("ij,jk").Input(kF, {2, 3}).Run(); }, {"2 terms for 1 inputs"});
  ExpectFail([] { Einsum("ij->k").Input(kF, {2, 3}).Run(); }, {"output label 'k' is in no input"});
  ExpectFail([] { RuleTest("Einsum", 12).Input(kF, {2}).Run(); },
             {"attribute 'equation' is required"});
  ExpectFail([] { Einsum("i,i").Input(kF, {3}).Input(DataType::kDouble, {3}).Run(); },
             {"input 1 is double but input 0 is float"});
}

}  // namespace
}  // namespace kiln::infer::testing
