// Inference rules of the losses, SwiGLU, BitCast and the normalizations beside them.
#include <gtest/gtest.h>

#include "infer/rule_test_util.h"

namespace kiln::infer::testing {
namespace {

using V = std::vector<int64_t>;
constexpr DataType kF = DataType::kFloat;
constexpr DataType kI = DataType::kInt64;

TEST(InferLossNorm, SameShapeOps) {
  for (const char* op : {"Swish", "CumProd", "MeanVarianceNormalization", "RMSNormalization"}) {
    SCOPED_TRACE(op);
    auto out = RuleTest(op, 26).Input(kF, {2, -1, 3}).Input(kI, {}).Run();
    EXPECT_EQ(out[0].type, kF);
    EXPECT_EQ(Dims(out[0]), (V{2, -1, 3}));
  }
}

TEST(InferLossNorm, SwiGluFillsUnknownDimsAndRejectsBroadcast) {
  auto out = RuleTest("SwiGLU", 28).Input(kF, {2, -1}).Input(kF, {-1, 4}).Run();
  EXPECT_EQ(Dims(out[0]), (V{2, 4}));
  ExpectFail(
      [] {
        RuleTest("SwiGLU", 28).Input(kF, {2, 4}).Input(kF, {1, 4}).Run();
      },
      {"input 'B'", "[1,4]"});
  ExpectFail([] { RuleTest("SwiGLU", 28).Input(kF, {2, 4}).Input(kF, {4}).Run(); }, {"input 'B'"});
}

TEST(InferLossNorm, BitCastTakesTo) {
  auto out = RuleTest("BitCast", 26).Attr("to", 6).Input(kF, {3, 2}).Run();
  EXPECT_EQ(out[0].type, DataType::kInt32);
  EXPECT_EQ(Dims(out[0]), (V{3, 2}));
}

TEST(InferLossNorm, LossShapesFollowReduction) {
  auto none = RuleTest("NegativeLogLikelihoodLoss", 13)
                  .Attr("reduction", "none")
                  .Input(kF, {4, 5, 6})
                  .Input(kI, {4, 6})
                  .Run();
  EXPECT_EQ(none[0].type, kF);
  EXPECT_EQ(Dims(none[0]), (V{4, 6}));
  auto mean =
      RuleTest("SoftmaxCrossEntropyLoss", 13).Input(kF, {4, 5}).Input(kI, {4}).Outputs(2).Run();
  EXPECT_EQ(Dims(mean[0]), V{});
  EXPECT_EQ(Dims(mean[1]), (V{4, 5}));
  EXPECT_EQ(mean[1].type, kF);
}

}  // namespace
}  // namespace kiln::infer::testing
