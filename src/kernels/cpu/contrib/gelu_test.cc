// Gelu, FastGelu, BiasGelu and QuickGelu (com.microsoft): random data against double-precision
// formulas, with and without the bias, several shapes, 1 and 2 threads, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

double ErfGelu(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
}
double TanhGelu(double x) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// The reference of op(x + bias) with bias (possibly empty) along the last dimension.
std::vector<double> Reference(double (*op)(double), const std::vector<float>& x,
                              const std::vector<float>& bias) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double b = bias.empty() ? 0.0 : bias[i % bias.size()];
    out[i] = op(static_cast<double>(x[i]) + b);
  }
  return out;
}

// The shapes each test runs on (made inside a function: no global with a throwing constructor).
std::vector<std::vector<int64_t>> Shapes() {
  return {{1}, {7}, {3, 5}, {2, 3, 64}, {2, 128, 96}, {4, 1, 1000}};
}

TEST(ContribGelu, MatchesErfFormula) {
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 rows" : "vector-cloned rows");
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    for (const auto& dims : Shapes()) {
      for (int threads : {1, 2}) {
        const std::vector<float> x = RandomFloats(Count(dims), 1, -6.0f, 6.0f);
        auto out = NodeTest("Gelu", 1, kMs).Input<float>(dims, x).Run(threads);
        EXPECT_EQ(out[0]->shape(), Shape(dims));
        ExpectClose(*out[0], Reference(ErfGelu, x, {}));
      }
    }
  }
}

TEST(ContribFastGelu, MatchesTanhFormulaWithAndWithoutBias) {
  for (const auto& dims : Shapes()) {
    for (int threads : {1, 2}) {
      const std::vector<float> x = RandomFloats(Count(dims), 2, -6.0f, 6.0f);
      const std::vector<float> bias = RandomFloats(static_cast<size_t>(dims.back()), 3);
      auto plain = NodeTest("FastGelu", 1, kMs).Input<float>(dims, x).Run(threads);
      ExpectClose(*plain[0], Reference(TanhGelu, x, {}));
      auto missing = NodeTest("FastGelu", 1, kMs).Input<float>(dims, x).MissingInput().Run(threads);
      ExpectClose(*missing[0], Reference(TanhGelu, x, {}));
      for (bool constant : {false, true}) {
        auto biased = NodeTest("FastGelu", 1, kMs)
                          .Input<float>(dims, x)
                          .Input<float>({dims.back()}, bias, constant)
                          .Run(threads);
        EXPECT_EQ(biased[0]->shape(), Shape(dims));
        ExpectClose(*biased[0], Reference(TanhGelu, x, bias));
      }
    }
  }
}

TEST(ContribBiasGelu, MatchesErfFormulaOfTheSum) {
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 rows" : "vector-cloned rows");
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    for (const auto& dims : Shapes()) {
      for (int threads : {1, 2}) {
        const std::vector<float> a = RandomFloats(Count(dims), 4, -6.0f, 6.0f);
        const std::vector<float> b = RandomFloats(static_cast<size_t>(dims.back()), 5);
        auto out = NodeTest("BiasGelu", 1, kMs)
                       .Input<float>(dims, a)
                       .Input<float>({dims.back()}, b, true)
                       .Run(threads);
        EXPECT_EQ(out[0]->shape(), Shape(dims));
        ExpectClose(*out[0], Reference(ErfGelu, a, b));
      }
    }
  }
}

// QuickGelu: x·sigmoid(alpha·x), alpha 1.702 unless given.
TEST(ContribQuickGelu, MatchesFormulaWithDefaultAndGivenAlpha) {
  for (const auto& dims : Shapes()) {
    const std::vector<float> x = RandomFloats(Count(dims), 3, -8.0f, 8.0f);
    for (float alpha : {1.702f, 1.0f, -0.5f}) {
      NodeTest t("QuickGelu", 1, kMs);
      if (alpha != 1.702f) t.Attr("alpha", alpha);
      auto out = t.Input<float>(dims, x).Run(2);
      std::vector<double> want(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        want[i] = v / (1.0 + std::exp(-double{alpha} * v));
      }
      SCOPED_TRACE(::testing::Message()
                   << "alpha " << alpha << " shape " << Shape(dims).ToString());
      EXPECT_EQ(out[0]->shape(), Shape(dims));
      ExpectClose(*out[0], want);
    }
  }
  ExpectNodeError(NodeTest("QuickGelu", 1, kMs).Input<double>({2}, {1, 2}),
                  ErrorCode::kNotImplemented, "input 'X' is double");
}

TEST(ContribGelu, EmptyInput) {
  auto out = NodeTest("Gelu", 1, kMs).Input<float>({2, 0}, {}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 0}));
  auto biased =
      NodeTest("BiasGelu", 1, kMs).Input<float>({0, 3}, {}).Input<float>({3}, {1, 2, 3}).Run();
  EXPECT_EQ(biased[0]->shape(), Shape({0, 3}));
}

TEST(ContribGelu, Errors) {
  ExpectNodeError(NodeTest("Gelu", 1, kMs).Input<double>({2}, {1, 2}), ErrorCode::kNotImplemented,
                  "input 'X' is double");
  ExpectNodeError(NodeTest("FastGelu", 1, kMs)
                      .Input<float>({2, 3}, RandomFloats(6, 1))
                      .Input<float>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'bias' has shape [2]");
  ExpectNodeError(NodeTest("FastGelu", 1, kMs)
                      .Input<float>({2, 2}, RandomFloats(4, 1))
                      .Input<float>({1, 2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'bias' has shape [1,2]");
  ExpectNodeError(NodeTest("FastGelu", 1, kMs)
                      .Input<float>({2, 2}, RandomFloats(4, 1))
                      .Input<double>({2}, {1, 2}),
                  ErrorCode::kInvalidArgument, "input 'bias' is double");
  ExpectNodeError(NodeTest("BiasGelu", 1, kMs)
                      .Input<float>({2, 3}, RandomFloats(6, 1))
                      .Input<float>({6}, RandomFloats(6, 2)),
                  ErrorCode::kInvalidArgument, "input 'B' has shape [6]");
  ExpectNodeError(NodeTest("BiasGelu", 1, kMs).Input<float>({2}, {1, 2}).MissingInput(),
                  ErrorCode::kInvalidArgument, "input 1 is required");
  ExpectNodeError(NodeTest("BiasGelu", 1, kMs).Input<float>({}, {1}).Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'B' has shape [1]");
}

}  // namespace
}  // namespace kiln::testing
