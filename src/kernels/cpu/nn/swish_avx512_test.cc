// The AVX-512 Swish epilogue against x·sigmoid(x) in double: a dense sweep of the float range
// that matters, the special values, and rows with bias, Z, a row stride and ragged tails.
#include "kernels/cpu/nn/swish_avx512.h"

#include "kernels/cpu/nn/conv_epilogue.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace kiln::cpu::nn {
namespace {

double SwishRef(double v) {
  return v / (1.0 + std::exp(-v));
}

TEST(SwishAvx512, MatchesTheDefinition) {
  if (!SwishAvx512Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  // Every 2039th float bit pattern with |v| <= 120 (about a million values).
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 2039) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::fabs(x) <= 120.0f) xs.push_back(x);
  }
  std::vector<float> y = xs;
  SwishRowsAvx512(y.data(), 1, y.size(), y.size(), nullptr, nullptr, 0);
  double worst = 0;
  float worst_at = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = SwishRef(xs[i]);
    if (xs[i] < -87.3f) {
      // e^v is subnormal here (few bits), and the result below 1e-36: an absolute bound.
      ASSERT_LE(std::fabs(y[i] - want), 1e-42) << xs[i];
      continue;
    }
    if (std::fabs(want) < std::numeric_limits<float>::min()) {
      ASSERT_LE(std::fabs(y[i] - want), 1e-44) << xs[i];  // a subnormal result: a few steps
      continue;
    }
    const double rel = std::fabs(y[i] - want) / std::fabs(want);
    if (rel > worst) {
      worst = rel;
      worst_at = xs[i];
    }
  }
  EXPECT_LE(worst, 4e-7) << "at " << worst_at;
}

TEST(SwishAvx512, SpecialValues) {
  if (!SwishAvx512Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> y = {0.0f,   -0.0f,   inf,   std::numeric_limits<float>::quiet_NaN(),
                          200.0f, -200.0f, 1e-30f};
  SwishRowsAvx512(y.data(), 1, y.size(), y.size(), nullptr, nullptr, 0);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], inf);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 200.0f);
  EXPECT_EQ(y[5], -0.0f);
  EXPECT_FLOAT_EQ(y[6], 5e-31f);
}

TEST(SwishAvx512, RowsWithBiasZAndStrides) {
  if (!SwishAvx512Supported()) GTEST_SKIP() << "this machine does not run AVX-512";
  // 3 rows of 37 values (two full vectors and a tail of 5) in rows of 40; the padding stays.
  const size_t rows = 3, cols = 37, ldy = 40, ldz = 38;
  std::vector<float> y(rows * ldy, 7.0f);
  std::vector<float> z(rows * ldz);
  std::vector<float> bias(cols);
  for (size_t j = 0; j < cols; ++j) bias[j] = 0.1f * static_cast<float>(j) - 1.5f;
  for (size_t i = 0; i < z.size(); ++i) z[i] = 0.05f * static_cast<float>(i % 17) - 0.4f;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < cols; ++j)
      y[r * ldy + j] = 0.3f * static_cast<float>(r) - 0.02f * static_cast<float>(j);
  }
  const std::vector<float> before = y;
  SwishRowsAvx512(y.data(), rows, cols, ldy, bias.data(), z.data(), ldz);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < ldy; ++j) {
      if (j >= cols) {
        EXPECT_EQ(y[r * ldy + j], 7.0f) << "padding at row " << r << " column " << j;
        continue;
      }
      const double v = static_cast<double>(before[r * ldy + j] + bias[j] + z[r * ldz + j]);
      EXPECT_NEAR(y[r * ldy + j], SwishRef(v), 1e-6 * std::fabs(SwishRef(v)) + 1e-12)
          << "row " << r << " column " << j;
    }
  }
}

// The convolutions' Swish epilogue through both of its variants (the AVX-512 one where the
// machine runs it, and the vector-cloned loop) against the definition.
TEST(SwishAvx512, EpilogueVariantsAgree) {
  Epilogue e;
  e.activation = Activation::kSwish;
  const size_t rows = 4, cols = 45;
  std::vector<float> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.37f * static_cast<float>(i % 91) - 17.0f;
  std::vector<float> bias(cols, 0.25f);
  for (bool allow : {true, false}) {
    SCOPED_TRACE(allow ? "AVX-512 allowed" : "vector-cloned loop");
    const bool before = AllowSwishAvx512ForTesting(allow);
    std::vector<float> y = x;
    ApplyEpilogueRows(e, y.data(), rows, cols, cols, bias.data(), nullptr, 0);
    AllowSwishAvx512ForTesting(before);
    for (size_t i = 0; i < y.size(); ++i) {
      const double want = SwishRef(static_cast<double>(x[i]) + 0.25);
      ASSERT_NEAR(y[i], want, 1e-6 * std::fabs(want) + 1e-30) << i;
    }
  }
}

}  // namespace
}  // namespace kiln::cpu::nn
