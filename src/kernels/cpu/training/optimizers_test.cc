#include <gtest/gtest.h>

#include <cmath>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
constexpr const char* kDomain = "ai.onnx.preview.training";

TEST(TrainingAdagrad, OneStepMatchesTheFormula) {
  const float r = 0.1f, decay = 0.1f, eps = 1e-5f, norm = 0.001f;
  const int64_t t = 3;
  const F x = {1.0f, 2.0f}, g = {-1.0f, 3.0f}, h = {2.0f, 0.5f};
  auto out = NodeTest("Adagrad", 1, kDomain)
                 .Attr("decay_factor", decay)
                 .Attr("epsilon", eps)
                 .Attr("norm_coefficient", norm)
                 .Input<float>({}, {r})
                 .Input<int64_t>({}, {t})
                 .Input<float>({2}, x)
                 .Input<float>({2}, g)
                 .Input<float>({2}, h)
                 .Outputs(2)
                 .Run();
  const float ra = r / (1 + t * decay);
  for (size_t j = 0; j < 2; ++j) {
    const float gr = norm * x[j] + g[j];
    const float hn = h[j] + gr * gr;
    EXPECT_FLOAT_EQ(Values<float>(*out[1])[j], hn);
    EXPECT_FLOAT_EQ(Values<float>(*out[0])[j], x[j] - ra * gr / (std::sqrt(hn) + eps));
  }
}

TEST(TrainingAdam, TwoTensorsWithBiasCorrection) {
  const double alpha = 0.9, beta = 0.99, eps = 1e-3, post = 0.1;
  auto out = NodeTest("Adam", 1, kDomain)
                 .Attr("alpha", static_cast<float>(alpha))
                 .Attr("beta", static_cast<float>(beta))
                 .Attr("epsilon", static_cast<float>(eps))
                 .Attr("norm_coefficient_post", static_cast<float>(post))
                 .Input<double>({}, {0.5})
                 .Input<int64_t>({}, {2})
                 .Input<double>({1}, {1.0})
                 .Input<double>({2}, {2.0, -2.0})
                 .Input<double>({1}, {0.5})
                 .Input<double>({2}, {1.0, 1.0})
                 .Input<double>({1}, {0.0})
                 .Input<double>({2}, {0.0, 0.0})
                 .Input<double>({1}, {1.0})
                 .Input<double>({2}, {4.0, 4.0})
                 .Outputs(6)
                 .Run();
  const double a = static_cast<float>(alpha), b = static_cast<float>(beta);
  const double e = static_cast<float>(eps), p = static_cast<float>(post);
  const double r = 0.5 * std::sqrt(1 - b * b) / (1 - a * a);
  const double v = (1 - a) * 0.5, h = b * 1.0 + (1 - b) * 0.25;
  EXPECT_DOUBLE_EQ(Values<double>(*out[2])[0], v);
  EXPECT_DOUBLE_EQ(Values<double>(*out[4])[0], h);
  EXPECT_NEAR(Values<double>(*out[0])[0], (1 - p) * (1.0 - r * v / (std::sqrt(h) + e)), 1e-12);
  EXPECT_EQ(out[5]->shape(), Shape({2}));
}

TEST(TrainingMomentum, StandardNesterovAndFirstStep) {
  auto run = [](const char* mode, int64_t t) {
    return NodeTest("Momentum", 1, kDomain)
        .Attr("alpha", 0.5f)
        .Attr("beta", 0.25f)
        .Attr("norm_coefficient", 0.0f)
        .Attr("mode", mode)
        .Input<float>({}, {0.1f})
        .Input<int64_t>({}, {t})
        .Input<float>({1}, {1.0f})
        .Input<float>({1}, {2.0f})
        .Input<float>({1}, {4.0f})
        .Outputs(2)
        .Run();
  };
  auto standard = run("standard", 1);  // v = 0.5*4 + 0.25*2 = 2.5
  EXPECT_FLOAT_EQ(Values<float>(*standard[1])[0], 2.5f);
  EXPECT_FLOAT_EQ(Values<float>(*standard[0])[0], 1.0f - 0.1f * 2.5f);
  auto nesterov = run("nesterov", 1);  // x = 1 - 0.1 * (2 + 0.5 * 2.5)
  EXPECT_FLOAT_EQ(Values<float>(*nesterov[0])[0], 1.0f - 0.1f * (2.0f + 0.5f * 2.5f));
  auto first = run("standard", 0);  // beta is 1 on the first step: v = 2 + 2
  EXPECT_FLOAT_EQ(Values<float>(*first[1])[0], 4.0f);
}

TEST(TrainingOptimizers, EmptyTensorsGiveEmptyOutputs) {
  auto out = NodeTest("Momentum", 1, kDomain)
                 .Attr("alpha", 0.5f)
                 .Attr("beta", 0.25f)
                 .Attr("norm_coefficient", 0.0f)
                 .Attr("mode", "standard")
                 .Input<float>({}, {0.1f})
                 .Input<int64_t>({}, {1})
                 .Input<float>({0}, {})
                 .Input<float>({0}, {})
                 .Input<float>({0}, {})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({0}));
}

NodeTest Momentum(const char* mode) {
  NodeTest t("Momentum", 1, kDomain);
  t.Attr("alpha", 0.5f).Attr("beta", 0.25f).Attr("norm_coefficient", 0.0f).Attr("mode", mode);
  return t;
}

TEST(TrainingOptimizers, Errors) {
  ExpectNodeError(Momentum("heavy").Input<float>({}, {0.1f}), ErrorCode::kInvalidGraph, "'mode'");
  ExpectNodeError(NodeTest("Momentum", 1, kDomain).Attr("mode", "standard"),
                  ErrorCode::kInvalidGraph, "'alpha'");
  auto base = [](NodeTest t, const std::shared_ptr<Tensor>& r,
                 const std::shared_ptr<Tensor>& count) { return t.Input(r).Input(count); };
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({2}, {1, 2}), MakeTensor<int64_t>({}, {1}))
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Outputs(2),
      ErrorCode::kInvalidArgument, "'R'");
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({}, {1}), MakeTensor<int32_t>({}, {1}))
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Outputs(2),
      ErrorCode::kInvalidArgument, "'T'");
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({}, {1}), MakeTensor<int64_t>({}, {1}))
          .Input<float>({1}, {1})
          .Input<float>({2}, {1, 2})
          .Input<float>({1}, {1})
          .Outputs(2),
      ErrorCode::kInvalidArgument, "'G1'");
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({}, {1}), MakeTensor<int64_t>({}, {1}))
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Outputs(2),
      ErrorCode::kInvalidArgument, "groups");
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({}, {1}), MakeTensor<int64_t>({}, {1}))
          .Input<int32_t>({1}, {1})
          .Input<int32_t>({1}, {1})
          .Input<int32_t>({1}, {1})
          .Outputs(2),
      ErrorCode::kInvalidArgument, "'X1'");
  ExpectNodeError(
      base(Momentum("standard"), MakeTensor<float>({}, {1}), MakeTensor<int64_t>({}, {1}))
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Input<float>({1}, {1})
          .Outputs(3),
      ErrorCode::kInvalidArgument, "outputs");
}

}  // namespace
}  // namespace kiln::testing
