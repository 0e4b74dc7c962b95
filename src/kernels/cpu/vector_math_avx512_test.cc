// The AVX-512 rows of vector_math_avx512.h against double precision: dense sweeps of the float
// range that matters, the special values, every tail length, in place and not.
#include "kernels/cpu/vector_math_avx512.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

namespace kiln::cpu {
namespace {

bool Supported() {
  return UseVectorMathAvx512();
}

// Every `step`th float bit pattern with lo <= x <= hi.
std::vector<float> Sweep(uint64_t step, float lo, float hi) {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += step) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (x >= lo && x <= hi) xs.push_back(x);
  }
  return xs;
}

TEST(VectorMathAvx512, ExpShiftedSumMatchesTheDefinition) {
  if (!Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  // x - shift over [-110, 0] (e^x underflows to 0 in float below about -103.3).
  const std::vector<float> xs = Sweep(1021, -110.0f, 0.0f);
  std::vector<float> y(xs.size());
  const float sum = ExpShiftedSumAvx512(xs.data(), y.data(), xs.size(), 0.0f);
  double worst = 0, want_sum = 0;
  float worst_at = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::exp(static_cast<double>(xs[i]));
    want_sum += want;
    if (want < std::numeric_limits<float>::min()) {
      ASSERT_EQ(y[i], 0.0f) << xs[i];  // flushed: a subnormal result would be slow
      continue;
    }
    const double rel = std::fabs(y[i] - want) / want;
    if (rel > worst) {
      worst = rel;
      worst_at = xs[i];
    }
  }
  EXPECT_LE(worst, 2e-6) << "at " << worst_at;
  // A float sum of about a million terms in 32 lanes: rounding grows with the count per lane.
  EXPECT_NEAR(sum, want_sum, 2e-5 * want_sum);
}

TEST(VectorMathAvx512, ExpShiftedSumEveryTailInPlace) {
  if (!Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  for (size_t n = 0; n <= 70; ++n) {
    SCOPED_TRACE(n);
    std::vector<float> x(n + 1, 123.0f);  // one past the end: must stay
    double want_sum = 0;
    for (size_t i = 0; i < n; ++i) {
      x[i] = 0.37f * static_cast<float>(i % 13) - 2.0f;
      want_sum += std::exp(static_cast<double>(x[i]) - 2.5);
    }
    const std::vector<float> before = x;
    const float sum = ExpShiftedSumAvx512(x.data(), x.data(), n, 2.5f);
    EXPECT_NEAR(sum, want_sum, 1e-6 * want_sum + 1e-30);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(x[i], std::exp(static_cast<double>(before[i]) - 2.5),
                  2e-6 * std::exp(static_cast<double>(before[i]) - 2.5));
    }
    EXPECT_EQ(x[n], 123.0f);
  }
}

TEST(VectorMathAvx512, ExpShiftedSumSpecialValues) {
  if (!Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {0.0f, -inf, -1e30f, nan, -0.0f};
  std::vector<float> y(x.size());
  const float sum = ExpShiftedSumAvx512(x.data(), y.data(), x.size(), 0.0f);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_TRUE(std::isnan(sum));
}

double GeluRef(double v) {
  return 0.5 * v * (1.0 + std::erf(v / std::numbers::sqrt2));
}

TEST(VectorMathAvx512, GeluMatchesTheDefinition) {
  if (!Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  const std::vector<float> xs = Sweep(1021, -12.0f, 12.0f);
  std::vector<float> y(xs.size());
  GeluErfRowAvx512(xs.data(), nullptr, y.data(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    // 1 + erf loses its relative accuracy as erf nears -1 (as in vector_math.h's ErfF): there
    // the bound is absolute, in units of |v|·2^-24.
    const double want = GeluRef(xs[i]);
    const double tol = 4e-6 * std::fabs(want) + 1.2e-7 * std::fabs(xs[i]) + 1e-44;
    ASSERT_LE(std::fabs(y[i] - want), tol) << xs[i];
  }
}

TEST(VectorMathAvx512, GeluWithBiasTailsAndSpecialValues) {
  if (!Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  for (size_t n = 0; n <= 40; ++n) {
    SCOPED_TRACE(n);
    std::vector<float> x(n + 1, 9.0f), b(n), y(n + 1, 7.0f);
    for (size_t i = 0; i < n; ++i) {
      x[i] = 0.41f * static_cast<float>(i % 17) - 3.3f;
      b[i] = 0.05f * static_cast<float>(i) - 0.6f;
    }
    GeluErfRowAvx512(x.data(), b.data(), y.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const double want = GeluRef(static_cast<double>(x[i]) + b[i]);
      EXPECT_NEAR(y[i], want, 4e-6 * std::fabs(want) + 1e-6);
    }
    EXPECT_EQ(y[n], 7.0f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> s = {0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 50.0f, -50.0f};
  GeluErfRowAvx512(s.data(), nullptr, s.data(), s.size());  // in place
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(s[1], inf);
  EXPECT_TRUE(std::isnan(s[2]));  // -inf·(1 + erf(-inf)) = -inf·0, as the definition
  EXPECT_TRUE(std::isnan(s[3]));
  EXPECT_EQ(s[4], 50.0f);
  EXPECT_EQ(s[5], -0.0f);
}

TEST(VectorMathAvx512, TheSwitchTurnsThemOff) {
  const bool before = AllowVectorMathAvx512ForTesting(false);
  EXPECT_FALSE(UseVectorMathAvx512());
  {
    ScopedVectorMathAvx512 on(true);
    EXPECT_EQ(UseVectorMathAvx512(), __builtin_cpu_supports("avx512f") != 0);
  }
  EXPECT_FALSE(UseVectorMathAvx512());
  AllowVectorMathAvx512ForTesting(before);
}

}  // namespace
}  // namespace kiln::cpu
