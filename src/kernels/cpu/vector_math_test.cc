#include "kernels/cpu/vector_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMin = std::numeric_limits<float>::min();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();

// The loop the kernels run: compiled for AVX-512, AVX2 and the baseline, vectorized.
template <typename F>
KILN_VECTOR_CLONES void ApplyLoop(size_t n, const float* x, float* y, F f) {
  for (size_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// Distance in floats between a and b (adjacent floats are 1 apart, FLT_MAX and inf too).
int64_t UlpDistance(float a, float b) {
  const auto key = [](float v) {
    const auto bits = static_cast<int64_t>(std::bit_cast<uint32_t>(v) & 0x7fffffffu);
    return std::signbit(v) ? -bits : bits;
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

// A dense set of inputs: every float bit pattern in steps (log-uniform over the whole range, both
// signs), a linear sweep over [lo, hi], the special values and `extra`.
std::vector<float> Inputs(float lo, float hi, const std::vector<float>& extra) {
  std::vector<float> x;
  constexpr uint32_t kSteps = 500000;
  constexpr uint32_t kStride = 0x7f800000u / kSteps;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += kStride) {
    x.push_back(std::bit_cast<float>(bits));
    x.push_back(-std::bit_cast<float>(bits));
  }
  constexpr int kLinear = 1000000;
  for (int i = 0; i <= kLinear; ++i) {
    x.push_back(lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(kLinear));
  }
  for (float v : {0.0f,
                  -0.0f,
                  kInf,
                  -kInf,
                  kNaN,
                  -kNaN,
                  kMin,
                  -kMin,
                  kDenormMin,
                  -kDenormMin,
                  1e-40f,
                  -1e-40f,
                  1e-30f,
                  -1e-30f,
                  1e-7f,
                  -1e-7f,
                  0.5f,
                  -0.5f,
                  1.0f,
                  -1.0f,
                  std::numeric_limits<float>::max(),
                  -std::numeric_limits<float>::max()}) {
    x.push_back(v);
  }
  x.insert(x.end(), extra.begin(), extra.end());
  // The neighbours of each extra value.
  for (float v : extra) {
    for (int k = 1; k <= 4; ++k) {
      x.push_back(std::nextafter(v, kInf));
      x.push_back(std::nextafter(v, -kInf));
      v = std::nextafter(v, kInf);
    }
  }
  return x;
}

struct Errors {
  double max_rel = 0;    // where the rounded reference is a normal float
  int64_t max_ulps = 0;  // everywhere else, too
  float worst_x = 0;
};

// Checks y = f(x) against the double reference.
template <typename Ref>
Errors CheckValues(const char* name, const std::vector<float>& x, const std::vector<float>& ys,
                   Ref ref) {
  Errors errors;
  for (size_t i = 0; i < x.size(); ++i) {
    const float y = ys[i];
    const double expected = ref(static_cast<double>(x[i]));
    const auto rounded = static_cast<float>(expected);
    if (std::isnan(expected)) {
      if (!std::isnan(y)) {
        ADD_FAILURE() << name << "(" << x[i] << ") = " << y << ", not NaN";
        return errors;
      }
      continue;
    }
    if (std::isnan(y)) {
      ADD_FAILURE() << name << "(" << x[i] << ") is NaN, not " << expected;
      return errors;
    }
    const int64_t ulps = UlpDistance(y, rounded);
    if (ulps > errors.max_ulps) errors.max_ulps = ulps;
    if (std::fabs(rounded) >= kMin && std::isfinite(rounded)) {
      const double rel = std::fabs((static_cast<double>(y) - expected) / expected);
      if (rel > errors.max_rel) {
        errors.max_rel = rel;
        errors.worst_x = x[i];
      }
    }
  }
  std::printf("%-10s max relative error %.3g (at x = %.9g), max %lld ulps\n", name, errors.max_rel,
              static_cast<double>(errors.worst_x), static_cast<long long>(errors.max_ulps));
  EXPECT_LE(errors.max_rel, 2e-6) << name;
  return errors;
}

// The scalar and the vectorized results may differ in the last bits: the AVX2 and AVX-512 clones
// contract a·b + c into fused multiply-adds, the baseline does not.
template <typename F, typename Ref>
Errors Check(const char* name, const std::vector<float>& x, F f, Ref ref) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
  Errors scalar = CheckValues(name, x, y, ref);
  ApplyLoop(x.size(), x.data(), y.data(), f);
  const Errors vectorized = CheckValues((std::string(name) + " loop").c_str(), x, y, ref);
  if (vectorized.max_rel > scalar.max_rel) {
    scalar.max_rel = vectorized.max_rel;
    scalar.worst_x = vectorized.worst_x;
  }
  scalar.max_ulps = std::max(scalar.max_ulps, vectorized.max_ulps);
  return scalar;
}

double Sigmoid(double x) {
  return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
}

double Softplus(double x) {
  return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

TEST(VectorMath, Exp) {
  // The overflow edge (e^x > FLT_MAX above 88.7228), the normal and subnormal underflow edges.
  const Errors e = Check(
      "ExpF", Inputs(-110.0f, 90.0f, {88.7228394f, -87.3365479f, -103.972076f}),
      [](float x) { return ExpF(x); }, [](double x) { return std::exp(x); });
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(ExpF(0.0f), 1.0f);
  EXPECT_EQ(ExpF(-0.0f), 1.0f);
  EXPECT_EQ(ExpF(kInf), kInf);
  EXPECT_EQ(ExpF(-kInf), 0.0f);
  EXPECT_EQ(ExpF(89.0f), kInf);
  EXPECT_EQ(ExpF(1000.0f), kInf);
  EXPECT_EQ(ExpF(-104.0f), 0.0f);
  EXPECT_GT(ExpF(-103.0f), 0.0f);  // subnormal
  EXPECT_EQ(ExpF(1e-40f), 1.0f);
  EXPECT_TRUE(std::isnan(ExpF(kNaN)));
  EXPECT_TRUE(std::isnan(ExpF(-kNaN)));
}

TEST(VectorMath, Expm1) {
  const Errors e = Check(
      "Expm1F", Inputs(-20.0f, 90.0f, {0.35f, -0.35f}), [](float x) { return Expm1F(x); },
      [](double x) { return std::expm1(x); });
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(std::bit_cast<uint32_t>(Expm1F(-0.0f)), std::bit_cast<uint32_t>(-0.0f));
  EXPECT_EQ(Expm1F(1e-40f), 1e-40f);
  EXPECT_EQ(Expm1F(-kInf), -1.0f);
  EXPECT_EQ(Expm1F(kInf), kInf);
  EXPECT_TRUE(std::isnan(Expm1F(kNaN)));
}

TEST(VectorMath, Sigmoid) {
  const Errors e = Check(
      "SigmoidF", Inputs(-110.0f, 30.0f, {-87.0f, -88.7228394f}),
      [](float x) { return SigmoidF(x); }, Sigmoid);
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(SigmoidF(0.0f), 0.5f);
  EXPECT_EQ(SigmoidF(kInf), 1.0f);
  EXPECT_EQ(SigmoidF(-kInf), 0.0f);
  EXPECT_EQ(SigmoidF(200.0f), 1.0f);
  EXPECT_TRUE(std::isnan(SigmoidF(kNaN)));
}

TEST(VectorMath, Tanh) {
  const Errors e = Check(
      "TanhF", Inputs(-12.0f, 12.0f, {0.625f, -0.625f}), [](float x) { return TanhF(x); },
      [](double x) { return std::tanh(x); });
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(std::bit_cast<uint32_t>(TanhF(-0.0f)), std::bit_cast<uint32_t>(-0.0f));
  EXPECT_EQ(TanhF(1e-40f), 1e-40f);
  EXPECT_EQ(TanhF(kInf), 1.0f);
  EXPECT_EQ(TanhF(-kInf), -1.0f);
  EXPECT_EQ(TanhF(100.0f), 1.0f);
  EXPECT_TRUE(std::isnan(TanhF(kNaN)));
}

TEST(VectorMath, Erf) {
  const Errors e = Check(
      "ErfF", Inputs(-5.0f, 5.0f, {1.0f, -1.0f, 3.95f, -3.95f}), [](float x) { return ErfF(x); },
      [](double x) { return std::erf(x); });
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(std::bit_cast<uint32_t>(ErfF(-0.0f)), std::bit_cast<uint32_t>(-0.0f));
  EXPECT_EQ(ErfF(kInf), 1.0f);
  EXPECT_EQ(ErfF(-kInf), -1.0f);
  EXPECT_EQ(ErfF(10.0f), 1.0f);
  EXPECT_TRUE(std::isnan(ErfF(kNaN)));
}

TEST(VectorMath, Softplus) {
  const Errors e = Check(
      "SoftplusF", Inputs(-110.0f, 30.0f, {}), [](float x) { return SoftplusF(x); }, Softplus);
  EXPECT_LE(e.max_ulps, 4);
  EXPECT_EQ(SoftplusF(kInf), kInf);
  EXPECT_EQ(SoftplusF(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(SoftplusF(kNaN)));
}

}  // namespace
}  // namespace kiln::cpu
