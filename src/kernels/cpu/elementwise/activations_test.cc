#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// The inputs the reference values below were computed for.
std::vector<float> Sample() {
  return {-2.0f, -0.5f, 0.0f, 0.75f, 3.0f};
}

std::vector<float> Run5(NodeTest test) {
  auto out = test.Input<float>({5}, Sample()).Run();
  return Values<float>(*out[0]);
}

TEST(ElementwiseRelu, FloatsIntegersAndNaN) {
  auto f = NodeTest("Relu", 6).Input<float>({4}, {-1, 0, 2, kNaN}).Run();
  const std::vector<float> y = Values<float>(*f[0]);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 2);
  EXPECT_TRUE(std::isnan(y[3]));
  auto i = NodeTest("Relu", 14).Input<int8_t>({3}, {-128, 0, 127}).Run();
  EXPECT_EQ(Values<int8_t>(*i[0]), (std::vector<int8_t>{0, 0, 127}));
}

TEST(ElementwiseLeakyRelu, DefaultAndAttributeAlpha) {
  ExpectAllNear(Run5(NodeTest("LeakyRelu", 16)), {-0.02, -0.005, 0, 0.75, 3});
  ExpectAllNear(Run5(NodeTest("LeakyRelu", 1).Attr("alpha", 0.5f)), {-1, -0.25, 0, 0.75, 3});
}

TEST(ElementwiseElu, ExpMinusOneBelowZero) {
  ExpectAllNear(Run5(NodeTest("Elu", 6)),
                {-0.8646647167633873, -0.3934693402873666, 0.0, 0.75, 3.0});
  ExpectAllNear(Run5(NodeTest("Elu", 22).Attr("alpha", 2.0f)),
                {-1.7293294335267746, -0.7869386805747332, 0.0, 0.75, 3.0});
}

TEST(ElementwiseSelu, DefaultsChangedInOpset6) {
  ExpectAllNear(Run5(NodeTest("Selu", 6)), {-1.5201664733475926, -0.6917581899652425, 0.0,
                                            0.7880257368087769, 3.1521029472351074});
  ExpectAllNear(Run5(NodeTest("Selu", 1)), {-1.5201075841957865, -0.691731392207381, 0.0,
                                            0.7880249619483948, 3.152099847793579});
}

TEST(ElementwiseSigmoid, ValuesAndExtremes) {
  ExpectAllNear(Run5(NodeTest("Sigmoid", 13)), {0.11920292202211755, 0.3775406687981454, 0.5,
                                                0.679178699175393, 0.9525741268224334});
  auto out = NodeTest("Sigmoid", 6).Input<float>({2}, {-1000, 1000}).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0, 1}));
}

TEST(ElementwiseHardSigmoid, DefaultsAndAttributes) {
  ExpectAllNear(Run5(NodeTest("HardSigmoid", 6)),
                {0.09999999403953552, 0.4000000059604645, 0.5, 0.6499999761581421, 1.0});
  ExpectAllNear(Run5(NodeTest("HardSigmoid", 22).Attr("alpha", 1.0f).Attr("beta", 0.0f)),
                {0, 0, 0, 0.75, 1});
}

TEST(ElementwiseHardSwish, XTimesHardSigmoid) {
  ExpectAllNear(Run5(NodeTest("HardSwish", 14)),
                {-0.3333333134651184, -0.2083333283662796, 0.0, 0.46875, 3.0});
}

TEST(ElementwiseSoftplus, ValuesWithoutOverflow) {
  ExpectAllNear(Run5(NodeTest("Softplus", 1)),
                {0.1269280110429725, 0.4740769841801067, 0.6931471805599453, 1.1368710061148999,
                 3.048587351573742});
  auto out = NodeTest("Softplus", 22).Input<double>({2}, {1000, -100}).Run();
  ExpectAllNear(Values<double>(*out[0]), {1000, 3.720075976020836e-44}, 1e-12);
}

TEST(ElementwiseSoftsign, XOverOnePlusAbs) {
  ExpectAllNear(Run5(NodeTest("Softsign", 1)),
                {-0.6666666666666666, -0.3333333333333333, 0.0, 0.42857142857142855, 0.75});
}

TEST(ElementwiseGelu, ExactAndTanhApproximation) {
  ExpectAllNear(Run5(NodeTest("Gelu", 20)), {-0.04550026389635842, -0.15426876936299344, 0.0,
                                             0.5800294857173488, 2.99595030590511});
  ExpectAllNear(
      Run5(NodeTest("Gelu", 20).Attr("approximate", "tanh")),
      {-0.04540230591222494, -0.15428599017485606, 0.0, 0.5799605551656203, 2.996362607918227});
  ExpectError([] { NodeTest("Gelu", 20).Attr("approximate", "fast").Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"node 'test_node' (Gelu)", "'approximate'", "fast"});
}

TEST(ElementwiseActivations, HalfTypesAndWrongTypes) {
  auto h = NodeTest("Sigmoid", 13).Input<Float16>({1}, Halves<Float16>({0})).Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{0.5f}));
  ExpectError([] { NodeTest("Elu", 6).Input<int32_t>({1}, {1}).Run(); }, ErrorCode::kNotImplemented,
              {"node 'test_node' (Elu)", "int32"});
  ExpectError(
      [] { NodeTest("LeakyRelu", 6).Attr("alpha", int64_t{1}).Input<float>({1}, {1}).Run(); },
      ErrorCode::kInvalidGraph, {"'alpha'"});
}

TEST(ElementwisePRelu, UnidirectionalBroadcastOfSlope) {
  auto out = NodeTest("PRelu", 16)
                 .Input<float>({2, 3}, {-1, -2, 3, -4, 5, -6})
                 .Input<float>({3}, {0.1f, 0.2f, 0.3f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  ExpectAllNear(Values<float>(*out[0]), {-0.1, -0.4, 3, -0.4, 5, -1.8});
  auto ints = NodeTest("PRelu", 9).Input<int32_t>({3}, {-3, 0, 4}).Input<int32_t>({}, {2}).Run();
  EXPECT_EQ(Values<int32_t>(*ints[0]), (std::vector<int32_t>{-6, 0, 4}));
}

TEST(ElementwisePRelu, SlopeMustBroadcastToX) {
  // [2] and [2,1] broadcast to [2,2], but slope cannot grow X.
  ExpectError(
      [] {
        NodeTest("PRelu", 16).Input<float>({2}, {1, 2}).Input<float>({2, 1}, {1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (PRelu)", "'slope'", "[2,1]", "[2]"});
  ExpectError(
      [] {
        NodeTest("PRelu", 16).Input<float>({2}, {1, 2}).Input<double>({1}, {1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'slope'", "double"});
}

TEST(ElementwisePRelu, LegacySlopeIsPerChannel) {
  // Opset 6: slope [C] applies along axis 1 of an NCHW input (numpy would match it to W).
  auto out = NodeTest("PRelu", 6)
                 .Input<float>({1, 2, 1, 2}, {-1, -1, -1, 1})
                 .Input<float>({2}, {0.5f, 0.25f})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{-0.5f, -0.5f, -0.25f, 1}));
  auto scalar = NodeTest("PRelu", 1)
                    .Attr("consumed_inputs", std::vector<int64_t>{0})
                    .Input<float>({2}, {-2, 2})
                    .Input<float>({1}, {0.5f})
                    .Run();
  EXPECT_EQ(Values<float>(*scalar[0]), (std::vector<float>{-1, 2}));
  ExpectError(
      [] {
        NodeTest("PRelu", 6)
            .Input<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6})
            .Input<float>({3}, {1, 2, 3})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (PRelu)", "'slope'", "[3]", "opset 7"});
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

double SigmoidRef(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

TEST(ElementwiseThresholdedRelu, ZeroAtOrBelowAlpha) {
  ExpectAllNear(Run5(NodeTest("ThresholdedRelu", 10)), {0, 0, 0, 0, 3});
  ExpectAllNear(Run5(NodeTest("ThresholdedRelu", 22).Attr("alpha", -1.0f)), {0, -0.5, 0, 0.75, 3});
}

TEST(ElementwiseShrink, SoftHardAndIntegers) {
  ExpectAllNear(Run5(NodeTest("Shrink", 9)), {-2, 0, 0, 0.75, 3});
  ExpectAllNear(Run5(NodeTest("Shrink", 9).Attr("lambd", 0.6f).Attr("bias", 0.5f)),
                {-1.5, 0, 0, 0.25, 2.5});
  auto i = NodeTest("Shrink", 9)
               .Attr("lambd", 1.0f)
               .Attr("bias", 1.0f)
               .Input<int32_t>({5}, {-5, -1, 0, 1, 7})
               .Run();
  EXPECT_EQ(Values<int32_t>(*i[0]), (std::vector<int32_t>{-4, 0, 0, 0, 6}));
}

TEST(ElementwiseCelu, AgainstFormulaAndZeroAlphaRejected) {
  std::vector<double> want;
  for (float x : Sample())
    want.push_back(std::max(0.0, double{x}) + std::min(0.0, 2.0 * std::expm1(x / 2.0)));
  ExpectAllNear(Run5(NodeTest("Celu", 12).Attr("alpha", 2.0f)), want);
  ExpectError([] { Run5(NodeTest("Celu", 12).Attr("alpha", 0.0f)); }, ErrorCode::kInvalidGraph,
              {"(Celu)", "'alpha'"});
}

TEST(ElementwiseSwishMish, AgainstFormulas) {
  std::vector<double> swish;
  std::vector<double> mish;
  for (float x : Sample()) {
    swish.push_back(x * SigmoidRef(0.5 * x));
    mish.push_back(x * std::tanh(std::log1p(std::exp(double{x}))));
  }
  ExpectAllNear(Run5(NodeTest("Swish", 24).Attr("alpha", 0.5f)), swish);
  ExpectAllNear(Run5(NodeTest("Mish", 18)), mish);
}

TEST(ElementwiseSwiGlu, GateTimesValueAndShapeCheck) {
  const std::vector<float> a = Sample();
  const std::vector<float> b = {1, 2, 3, -4, 0.5f};
  std::vector<double> want;
  for (size_t i = 0; i < a.size(); ++i) want.push_back(a[i] * SigmoidRef(1.5 * a[i]) * b[i]);
  auto out =
      NodeTest("SwiGLU", 28).Attr("alpha", 1.5f).Input<float>({5}, a).Input<float>({5}, b).Run();
  ExpectAllNear(Values<float>(*out[0]), want);
  ExpectError(
      [] {
        NodeTest("SwiGLU", 28).Input<float>({2}, {1, 2}).Input<float>({1}, {1}).Run();
      },
      ErrorCode::kInvalidArgument, {"(SwiGLU)", "'B'", "[1]"});
  ExpectError([] { NodeTest("SwiGLU", 28).Input<float>({1}, {1}).Input<double>({1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"(SwiGLU)", "'B'"});
}

}  // namespace
}  // namespace kiln::testing
