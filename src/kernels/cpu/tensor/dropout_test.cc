// Dropout: inference at every opset (copies, mask types) and training from opset 12 (seeded mask,
// scaling, kept fraction, ratio 0, errors).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

TEST(TensorDropout, InferenceCopiesAndMaskIsBoolTrue) {
  auto out = NodeTest("Dropout", 13)
                 .Input<float>({3}, {1, -2, 3})
                 .Input<float>({}, {0.5f})
                 .Input<bool>({}, {false})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(Values<bool>(*out[1]), (std::vector<bool>{true, true, true}));
}

TEST(TensorDropout, Opset7MaskHasInputType) {
  auto out = NodeTest("Dropout", 7).Attr("ratio", 0.3f).Input<double>({2}, {4, 5}).Outputs(2).Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{4, 5}));
  EXPECT_EQ(Values<double>(*out[1]), (std::vector<double>{1, 1}));
}

TEST(TensorDropout, Opset10MaskIsBool) {
  auto out = NodeTest("Dropout", 10).Input<float>({1}, {4}).Outputs(2).Run();
  EXPECT_EQ(out[1]->type(), DataType::kBool);
}

TEST(TensorDropout, Opset1IgnoresIsTestAndConsumedInputs) {
  auto out = NodeTest("Dropout", 1)
                 .Attr("is_test", int64_t{0})
                 .Attr("consumed_inputs", std::vector<int64_t>{0})
                 .Input<float>({2}, {1, 2})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 2}));
}

TEST(TensorDropout, MaskLeftOut) {
  auto out = NodeTest("Dropout", 22).Input<float>({1}, {4}).Outputs(2, {1}).Run();
  EXPECT_EQ(out[1], nullptr);
}

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 13) - 6.0f;
  return v;
}

NodeTest Training(int64_t opset, size_t n, float ratio, int64_t seed = 7) {
  NodeTest t("Dropout", opset);
  t.Attr("seed", seed)
      .Input<float>({static_cast<int64_t>(n)}, Ramp(n))
      .Input<float>({}, {ratio})
      .Input<bool>({}, {true})
      .Outputs(2);
  return t;
}

TEST(TensorDropout, TrainingScalesKeptValuesAndZeroesTheRest) {
  const size_t n = 100000;
  for (int64_t opset : {12, 13, 22}) {
    SCOPED_TRACE(opset);
    auto out = Training(opset, n, 0.25f).Run(4);
    ASSERT_EQ(out[0]->type(), DataType::kFloat);
    ASSERT_EQ(out[1]->type(), DataType::kBool);
    EXPECT_EQ(out[1]->shape(), Shape({static_cast<int64_t>(n)}));
    const std::vector<float> x = Ramp(n);
    const std::vector<float> y = Values<float>(*out[0]);
    const std::vector<bool> mask = Values<bool>(*out[1]);
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
      if (mask[i]) {
        ++kept;
        ASSERT_EQ(y[i], x[i] * (1.0f / 0.75f)) << i;
      } else {
        ASSERT_EQ(y[i], 0.0f) << i;
      }
    }
    // 75% kept: the binomial standard deviation is 0.14% of n.
    EXPECT_NEAR(static_cast<double>(kept) / n, 0.75, 0.01);
  }
}

TEST(TensorDropout, TrainingMaskDependsOnTheSeedNotTheThreads) {
  const size_t n = 50000;
  const std::vector<bool> one = Values<bool>(*Training(13, n, 0.5f).Run(1)[1]);
  EXPECT_EQ(Values<bool>(*Training(13, n, 0.5f).Run(4)[1]), one);
  EXPECT_NE(Values<bool>(*Training(13, n, 0.5f, 8).Run(1)[1]), one);
}

TEST(TensorDropout, TrainingDefaultRatioHalvesAndDoubles) {
  const size_t n = 40000;
  auto out = NodeTest("Dropout", 13)
                 .Attr("seed", int64_t{1})
                 .Input<double>({static_cast<int64_t>(n)}, std::vector<double>(n, 3.0))
                 .MissingInput()
                 .Input<bool>({}, {true})
                 .Run();
  size_t kept = 0;
  for (double v : Values<double>(*out[0])) {
    ASSERT_TRUE(v == 0.0 || v == 6.0) << v;
    kept += v == 6.0 ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(kept) / n, 0.5, 0.015);
}

TEST(TensorDropout, TrainingWithHalfTypes) {
  std::vector<Float16> x(1000, Float16::FromFloat(1.5f));
  auto out = NodeTest("Dropout", 13)
                 .Attr("seed", int64_t{3})
                 .Input<Float16>({1000}, x)
                 .Input<double>({}, {0.5})
                 .Input<bool>({}, {true})
                 .Outputs(2)
                 .Run();
  const std::vector<Float16> y = Values<Float16>(*out[0]);
  const std::vector<bool> mask = Values<bool>(*out[1]);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(y[i].ToFloat(), mask[i] ? 3.0f : 0.0f) << i;
}

TEST(TensorDropout, TrainingWithRatioZeroIsIdentity) {
  auto out = Training(13, 5, 0.0f).Run();
  EXPECT_EQ(Values<float>(*out[0]), Ramp(5));
  EXPECT_EQ(Values<bool>(*out[1]), (std::vector<bool>(5, true)));
}

TEST(TensorDropout, TrainingModeFalseIgnoresTheRatio) {
  auto out = NodeTest("Dropout", 13)
                 .Input<float>({2}, {1, 2})
                 .Input<float>({}, {0.9f})
                 .Input<bool>({}, {false})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<bool>(*out[1]), (std::vector<bool>{true, true}));
}

TEST(TensorDropout, TrainingErrors) {
  ExpectNodeError(
      NodeTest("Dropout", 12).Input<float>({1}, {4}).MissingInput().Input<int64_t>({}, {0}),
      ErrorCode::kInvalidArgument, "training_mode");
  ExpectNodeError(Training(12, 4, 1.0f), ErrorCode::kInvalidArgument, "input 'ratio' is 1.0");
  ExpectNodeError(Training(12, 4, -0.5f), ErrorCode::kInvalidArgument, "[0, 1)");
  ExpectNodeError(NodeTest("Dropout", 12)
                      .Input<float>({1}, {4})
                      .Input<float>({2}, {0.1f, 0.2f})
                      .Input<bool>({}, {true}),
                  ErrorCode::kInvalidArgument, "input 'ratio' must hold one value");
}

}  // namespace
}  // namespace kiln::testing
