// ONNX's early experimental ops (ImageScaler, Crop, Affine, ScaledTanh, ParametricSoftplus,
// Scale) and MeanVarianceNormalization before opset 9: values worked out from their formulas,
// the attribute defaults, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(ExperimentalOps, ImageScalerScalesAndAddsABiasPerChannel) {
  auto out = NodeTest("ImageScaler", 8)
                 .Attr("scale", 2.0f)
                 .Attr("bias", std::vector<float>{10, 20})
                 .Input<float>({1, 2, 1, 2}, {1, 2, 3, 4})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{12, 14, 26, 28}));
  auto plain = NodeTest("ImageScaler", 1).Input<float>({2, 1, 2}, {1, 2, 3, 4}).Run();
  EXPECT_EQ(Values<float>(*plain[0]), (std::vector<float>{1, 2, 3, 4}));
  ExpectNodeError(NodeTest("ImageScaler", 8)
                      .Attr("bias", std::vector<float>{1, 2, 3})
                      .Input<float>({1, 2, 1, 1}, {1, 2}),
                  ErrorCode::kInvalidArgument, "with C = 3, the length of attribute 'bias'");
  ExpectNodeError(NodeTest("ImageScaler", 8).Input<double>({1, 1}, {1}), ErrorCode::kNotImplemented,
                  "input 'input' is double");
}

TEST(ExperimentalOps, CropByBorderOrByScale) {
  // X [1, 1, 4, 5] = 0..19; border [left 1, top 1, right 2, bottom 1]: rows 1-2, columns 1-2.
  auto out = NodeTest("Crop", 7)
                 .Attr("border", std::vector<int64_t>{1, 1, 2, 1})
                 .Input<float>({1, 1, 4, 5}, Ramp(20))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 2, 2}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{6, 7, 11, 12}));
  // With scale [3, 2]: 3 rows from top 0, 2 columns from left 2, on both channels.
  auto scaled = NodeTest("Crop", 7)
                    .Attr("border", std::vector<int64_t>{2, 0, 0, 0})
                    .Attr("scale", std::vector<int64_t>{3, 2})
                    .Input<float>({1, 2, 4, 5}, Ramp(40))
                    .Run();
  EXPECT_EQ(scaled[0]->shape(), Shape({1, 2, 3, 2}));
  EXPECT_EQ(Values<float>(*scaled[0]),
            (std::vector<float>{2, 3, 7, 8, 12, 13, 22, 23, 27, 28, 32, 33}));
  ExpectNodeError(NodeTest("Crop", 7)
                      .Attr("border", std::vector<int64_t>{1, 3, 1, 2})
                      .Input<float>({1, 1, 4, 5}, Ramp(20)),
                  ErrorCode::kInvalidArgument, "does not fit in it");
  ExpectNodeError(NodeTest("Crop", 7)
                      .Attr("border", std::vector<int64_t>{1, 0, 0, 0})
                      .Attr("scale", std::vector<int64_t>{std::numeric_limits<int64_t>::max(), 1})
                      .Input<float>({1, 1, 4, 5}, Ramp(20)),
                  ErrorCode::kInvalidArgument, "does not fit in it");
  ExpectNodeError(NodeTest("Crop", 7)
                      .Attr("border", std::vector<int64_t>{1, 1})
                      .Input<float>({1, 1, 4, 5}, Ramp(20)),
                  ErrorCode::kInvalidGraph, "attribute 'border' must be 4 values");
}

TEST(ExperimentalOps, PointwiseFormulasAndDefaults) {
  const std::vector<float> x = {-30, -1.5f, 0, 0.25f, 2, 40};
  const auto run = [&](const char* op, float alpha, float beta) {
    return Values<float>(
        *NodeTest(op, 8).Attr("alpha", alpha).Attr("beta", beta).Input<float>({6}, x).Run()[0]);
  };
  const std::vector<float> affine = run("Affine", 2, 0.5f);
  const std::vector<float> tanh = run("ScaledTanh", 2, 0.5f);
  const std::vector<float> softplus = run("ParametricSoftplus", 2, 0.5f);
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    EXPECT_NEAR(affine[i], 2 * v + 0.5, 1e-5) << i;
    EXPECT_NEAR(tanh[i], 2 * std::tanh(0.5 * v), 1e-6) << i;
    EXPECT_NEAR(softplus[i], 2 * std::log1p(std::exp(0.5 * v)), 1e-5) << i;
  }
  auto scale = NodeTest("Scale", 8).Attr("scale", 3.0f).Input<float>({6}, x).Run();
  EXPECT_EQ(Values<float>(*scale[0]), (std::vector<float>{-90, -4.5f, 0, 0.75f, 6, 120}));
  // Defaults: Affine alpha 1 beta 0, ScaledTanh and ParametricSoftplus alpha 1 beta 1, Scale 1.
  EXPECT_EQ(Values<float>(*NodeTest("Affine", 8).Input<float>({6}, x).Run()[0]), x);
  EXPECT_EQ(Values<float>(*NodeTest("Scale", 8).Input<float>({6}, x).Run()[0]), x);
  EXPECT_NEAR(Values<float>(*NodeTest("ScaledTanh", 8).Input<float>({6}, x).Run()[0])[4],
              std::tanh(2.0), 1e-6);
  EXPECT_NEAR(Values<float>(*NodeTest("ParametricSoftplus", 8).Input<float>({6}, x).Run()[0])[4],
              std::log1p(std::exp(2.0)), 1e-6);
}

// MVN before opset 9, as ONNX Runtime computes it: per channel over N, H, W; across_channels
// over everything; with normalize_variance 0 only the mean is taken off. X is [2, 2, 1, 2] so
// that channel c's values are x[c * 2 .. c * 2 + 1] and x[4 + c * 2 ..]: regrouped below.
TEST(ExperimentalOps, MeanVarianceNormalizationBeforeOpset9) {
  const std::vector<float> x = {1, 3, 2, 6, 0, 4, -4, 8};  // [2, 2, 1, 2]
  const auto run = [&](int64_t across, int64_t variance) {
    return Values<float>(*NodeTest("MeanVarianceNormalization", 8)
                              .Attr("across_channels", across)
                              .Attr("normalize_variance", variance)
                              .Input<float>({2, 2, 1, 2}, x)
                              .Run()[0]);
  };
  // The element indices of each group: per channel (across N), or all eight.
  const std::vector<std::vector<size_t>> per_channel = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  const std::vector<std::vector<size_t>> everything = {{0, 1, 2, 3, 4, 5, 6, 7}};
  const auto expect = [&](const std::vector<float>& got,
                          const std::vector<std::vector<size_t>>& groups, bool variance) {
    for (const std::vector<size_t>& g : groups) {
      double mean = 0;
      double squares = 0;
      for (size_t i : g) mean += x[i];
      mean /= static_cast<double>(g.size());
      for (size_t i : g) squares += (x[i] - mean) * (x[i] - mean);
      const double std_dev = std::sqrt(squares / static_cast<double>(g.size()));
      for (size_t i : g) {
        EXPECT_NEAR(got[i], (x[i] - mean) / (variance ? std_dev + 1e-9 : 1.0), 1e-5) << i;
      }
    }
  };
  expect(run(0, 1), per_channel, true);
  expect(run(1, 1), everything, true);
  expect(run(0, 0), per_channel, false);
  expect(run(1, 0), everything, false);
}

}  // namespace
}  // namespace kiln::testing
