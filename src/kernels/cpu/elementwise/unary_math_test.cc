#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> RunFloat(const char* op, int opset, const std::vector<float>& x) {
  const auto n = static_cast<int64_t>(x.size());
  auto out = NodeTest(op, opset).Input<float>({n}, x).Run();
  EXPECT_EQ(out[0]->shape(), Shape({n}));
  return Values<float>(*out[0]);
}

// The inputs the reference values below were computed for.
std::vector<float> Sample() {
  return {-2.0f, -0.5f, 0.0f, 0.75f, 3.0f};
}

TEST(ElementwiseUnaryMath, ExpLogSqrtReciprocal) {
  ExpectAllNear(RunFloat("Exp", 13, Sample()), {0.1353352814912796, 0.6065306663513184, 1.0,
                                                2.117000102996826, 20.08553695678711});
  ExpectAllNear(RunFloat("Log", 13, {0.5f, 1, 2, 10}),
                {-0.6931471824645996, 0.0, 0.6931471824645996, 2.3025851249694824});
  ExpectAllNear(RunFloat("Sqrt", 13, {0, 0.25f, 2, 9}), {0.0, 0.5, 1.4142135381698608, 3.0});
  ExpectAllNear(RunFloat("Reciprocal", 13, {-4, 0.5f, 3}), {-0.25, 2.0, 0.3333333432674408});
  const std::vector<float> y = RunFloat("Log", 13, {0, -1});
  EXPECT_EQ(y[0], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[1]));
}

TEST(ElementwiseUnaryMath, Trigonometry) {
  ExpectAllNear(RunFloat("Tanh", 13, Sample()), {-0.9640275835990906, -0.46211719512939453, 0.0,
                                                 0.6351490020751953, 0.9950547814369202});
  ExpectAllNear(RunFloat("Sin", 7, Sample()), {-0.9092974066734314, -0.4794255495071411, 0.0,
                                               0.681638777256012, 0.14112000167369843});
  ExpectAllNear(RunFloat("Cos", 22, Sample()), {-0.41614681482315063, 0.8775825500488281, 1.0,
                                                0.7316888570785522, -0.9899924993515015});
  ExpectAllNear(RunFloat("Erf", 13, Sample()), {-0.9953222650189527, -0.5204998778130465, 0.0,
                                                0.7111556336535151, 0.9999779095030014});
}

// Tan … Atanh against double-precision libm, each over a domain where the op is defined; a value
// outside the domain of the inverse functions gives NaN.
TEST(ElementwiseUnaryMath, InverseAndHyperbolicTrigonometry) {
  struct Case {
    const char* op;
    int opset;
    double (*ref)(double);
    std::vector<float> x;
  };
  const std::vector<Case> cases = {
      {"Tan", 7, [](double v) { return std::tan(v); }, {-1.2f, -0.5f, 0, 0.75f, 1.4f}},
      {"Asin", 7, [](double v) { return std::asin(v); }, {-1, -0.5f, 0, 0.75f, 1}},
      {"Acos", 22, [](double v) { return std::acos(v); }, {-1, -0.5f, 0, 0.75f, 1}},
      {"Atan", 7, [](double v) { return std::atan(v); }, {-20, -0.5f, 0, 0.75f, 3}},
      {"Sinh", 9, [](double v) { return std::sinh(v); }, {-3, -0.5f, 0, 0.75f, 5}},
      {"Cosh", 9, [](double v) { return std::cosh(v); }, {-3, -0.5f, 0, 0.75f, 5}},
      {"Asinh", 9, [](double v) { return std::asinh(v); }, {-30, -0.5f, 0, 0.75f, 5}},
      {"Acosh", 9, [](double v) { return std::acosh(v); }, {1, 1.5f, 2, 10, 100}},
      {"Atanh", 22, [](double v) { return std::atanh(v); }, {-0.99f, -0.5f, 0, 0.75f, 0.9f}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    std::vector<double> want;
    for (float v : c.x) want.push_back(c.ref(v));
    ExpectAllNear(RunFloat(c.op, c.opset, c.x), want);
  }
  EXPECT_TRUE(std::isnan(RunFloat("Asin", 7, {2})[0]));
  EXPECT_TRUE(std::isnan(RunFloat("Acosh", 9, {0.5f})[0]));
  auto half = NodeTest("Cosh", 9).Input<Float16>({1}, {Float16::FromFloat(0.5f)}).Run();
  EXPECT_NEAR(Values<Float16>(*half[0])[0].ToFloat(), std::cosh(0.5), 1e-3);
}

TEST(ElementwiseUnaryMath, FloorCeilRound) {
  EXPECT_EQ(RunFloat("Floor", 13, {-1.5f, 1.5f, 2}), (std::vector<float>{-2, 1, 2}));
  EXPECT_EQ(RunFloat("Ceil", 13, {-1.5f, 1.5f, 2}), (std::vector<float>{-1, 2, 2}));
  // Halves round to even.
  EXPECT_EQ(RunFloat("Round", 11, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, 3.5f}),
            (std::vector<float>{0, 2, 2, -0.0f, -2, 2, -3, 4}));
}

TEST(ElementwiseUnaryMath, AbsNegSignOnIntegers) {
  auto abs =
      NodeTest("Abs", 13).Input<int32_t>({3}, {-3, 4, std::numeric_limits<int32_t>::min()}).Run();
  EXPECT_EQ(Values<int32_t>(*abs[0]),
            (std::vector<int32_t>{3, 4, std::numeric_limits<int32_t>::min()}));
  auto abs_u = NodeTest("Abs", 13).Input<uint8_t>({2}, {0, 200}).Run();
  EXPECT_EQ(Values<uint8_t>(*abs_u[0]), (std::vector<uint8_t>{0, 200}));
  auto neg = NodeTest("Neg", 13).Input<int8_t>({3}, {5, -128, 0}).Run();
  EXPECT_EQ(Values<int8_t>(*neg[0]), (std::vector<int8_t>{-5, -128, 0}));
  auto sign = NodeTest("Sign", 13).Input<int64_t>({3}, {-9, 0, 7}).Run();
  EXPECT_EQ(Values<int64_t>(*sign[0]), (std::vector<int64_t>{-1, 0, 1}));
  auto sign_u = NodeTest("Sign", 9).Input<uint32_t>({2}, {0, 9}).Run();
  EXPECT_EQ(Values<uint32_t>(*sign_u[0]), (std::vector<uint32_t>{0, 1}));
}

TEST(ElementwiseUnaryMath, AbsNegSignOnFloats) {
  EXPECT_EQ(RunFloat("Abs", 6, {-1.5f, 2}), (std::vector<float>{1.5f, 2}));
  EXPECT_EQ(RunFloat("Neg", 6, {-1.5f, 2}), (std::vector<float>{1.5f, -2}));
  const std::vector<float> sign = RunFloat("Sign", 13, {-0.1f, 0, 3, kNaN});
  EXPECT_EQ(sign[0], -1);
  EXPECT_EQ(sign[1], 0);
  EXPECT_EQ(sign[2], 1);
  EXPECT_TRUE(std::isnan(sign[3]));
}

TEST(ElementwiseUnaryMath, Opset1IgnoresConsumedInputs) {
  auto out = NodeTest("Sqrt", 1)
                 .Attr("consumed_inputs", std::vector<int64_t>{0})
                 .Input<double>({2}, {4, 16})
                 .Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{2, 4}));
}

TEST(ElementwiseUnaryMath, HalfTypesAndEmptyAndThreads) {
  auto h = NodeTest("Sqrt", 13).Input<Float16>({2}, Halves<Float16>({4, 2.25f})).Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{2, 1.5f}));
  auto b = NodeTest("Exp", 13).Input<BFloat16>({1}, Halves<BFloat16>({0})).Run();
  EXPECT_EQ(Floats<BFloat16>(*b[0]), (std::vector<float>{1}));
  auto empty = NodeTest("Exp", 13).Input<float>({2, 0}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({2, 0}));
  std::vector<float> big(50000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) - 25000.0f;
  auto many = NodeTest("Abs", 13).Input<float>({50000}, big).Run(4);
  const std::vector<float> y = Values<float>(*many[0]);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], std::fabs(big[i])) << i;
}

TEST(ElementwiseUnaryMath, UnsupportedTypesAreNotImplemented) {
  ExpectError([] { NodeTest("Sqrt", 13).Input<int32_t>({1}, {4}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (Sqrt)", "int32"});
  ExpectError([] { NodeTest("Neg", 13).Input<uint8_t>({1}, {4}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (Neg)", "uint8"});
}

TEST(ElementwiseUnaryMath, RegisteredFromTheirFirstOpset) {
  ExpectError([] { NodeTest("Round", 10).Input<float>({1}, {1}).Run(); },
              ErrorCode::kNotImplemented, {"Round", "10"});
  ExpectError([] { NodeTest("Sin", 6).Input<float>({1}, {1}).Run(); }, ErrorCode::kNotImplemented,
              {"Sin", "6"});
}

}  // namespace
}  // namespace kiln::testing
