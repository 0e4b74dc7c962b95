// Softmax, LogSoftmax and Hardmax: opset 13+ along one axis (contiguous and strided), opsets
// 1–12 over the block coerced to 2-D at axis, negative axes, numerical stability, Hardmax ties and
// NaN, 16-bit floats, empty inputs and the axis and type errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/vector_math_avx512.h"

namespace kiln::testing {
namespace {

std::vector<float> Input2x3() {
  return {1, 2, 3, -1, 0, 5};
}

// 0.5·arange(12) − 2, shaped [2,3,2].
std::vector<double> Ramp() {
  std::vector<double> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i) - 2;
  return v;
}

TEST(LinalgSoftmax, NormalisesTheLastAxisFromOpset13) {
  auto out = NodeTest("Softmax", 13).Input<float>({2, 3}, Input2x3()).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  ExpectNear<float>(*out[0],
                    {0.09003057f, 0.24472847f, 0.66524096f, 0.00245611f, 0.00667641f, 0.99086747f},
                    1e-6);
}

TEST(LinalgSoftmax, StridedAxisFromOpset13) {
  auto out =
      NodeTest("Softmax", 13).Attr("axis", int64_t{1}).Input<double>({2, 3, 2}, Ramp()).Run();
  const double a = 0.09003057317038043, b = 0.24472847105479767, c = 0.6652409557748218;
  ExpectNear<double>(*out[0], {a, a, b, b, c, c, a, a, b, b, c, c}, 1e-12);
  auto negative =
      NodeTest("Softmax", 18).Attr("axis", int64_t{-2}).Input<double>({2, 3, 2}, Ramp()).Run();
  ExpectNear<double>(*negative[0], {a, a, b, b, c, c, a, a, b, b, c, c}, 1e-12);
}

TEST(LinalgSoftmax, CoercesTo2DBeforeOpset13) {
  const std::vector<double> row = {0.033990202807025804, 0.05604037036335464, 0.09239495063597586,
                                   0.15233352041882178,  0.2511555153551437,  0.4140854404196781};
  std::vector<double> both = row;
  both.insert(both.end(), row.begin(), row.end());
  auto by_default = NodeTest("Softmax", 11).Input<double>({2, 3, 2}, Ramp()).Run();
  ExpectNear<double>(*by_default[0], both, 1e-12);
  auto negative =
      NodeTest("Softmax", 11).Attr("axis", int64_t{-2}).Input<double>({2, 3, 2}, Ramp()).Run();
  ExpectNear<double>(*negative[0], both, 1e-12);
  auto whole =
      NodeTest("Softmax", 1).Attr("axis", int64_t{0}).Input<double>({2, 3, 2}, Ramp()).Run();
  ExpectNear<double>(
      *whole[0],
      {0.0016120150476057803, 0.0026577634976763295, 0.004381911211109336, 0.0072245502200753205,
       0.011911269619079474, 0.01963836358202054, 0.03237818775942003, 0.05338260686567831,
       0.08801303942486655, 0.14510897019874647, 0.2392442457360643, 0.3944470768376576},
      1e-12);
}

TEST(LinalgSoftmax, StableForLargeInputsAndParallelRows) {
  auto out = NodeTest("Softmax", 13).Input<float>({2}, {1000, 1001}).Run();
  ExpectNear<float>(*out[0], {0.26894142f, 0.73105858f}, 1e-6);

  std::vector<float> x(size_t{4000} * 7);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i));
  auto rows = NodeTest("Softmax", 13).Input<float>({4000, 7}, x).Run(2);
  const std::vector<float> y = Values<float>(*rows[0]);
  for (size_t r = 0; r < 4000; ++r) {
    float sum = 0;
    for (size_t j = 0; j < 7; ++j) sum += y[r * 7 + j];
    ASSERT_NEAR(sum, 1.0f, 1e-5) << r;
  }
}

// Float rows of every length up to three vectors and a tail, some values near -100 (e^x below the
// smallest normal float: 0 in the AVX-512 rows, a subnormal or 0 in the others, both within the
// absolute tolerance), against double; both variants.
TEST(LinalgSoftmax, FloatRowsMatchDoubleInBothVariants) {
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 rows" : "vector-cloned rows");
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    for (int64_t n = 1; n <= 50; ++n) {
      std::vector<float> x(static_cast<size_t>(n));
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = i % 7 == 3 ? -100.0f : std::sin(static_cast<float>(i)) * 5.0f;
      }
      const float max = *std::max_element(x.begin(), x.end());
      double sum = 0;
      for (float v : x) sum += std::exp(static_cast<double>(v) - max);
      for (int64_t opset : {13, 1}) {
        const std::vector<float> y =
            Values<float>(*NodeTest("Softmax", opset).Input<float>({1, n}, x).Run()[0]);
        const std::vector<float> log_y =
            Values<float>(*NodeTest("LogSoftmax", opset).Input<float>({1, n}, x).Run()[0]);
        for (size_t i = 0; i < x.size(); ++i) {
          const double want = std::exp(static_cast<double>(x[i]) - max) / sum;
          ASSERT_NEAR(y[i], want, 2e-6 * want + 1e-30) << n << " " << i;
          ASSERT_NEAR(log_y[i], std::log(want), 1e-5 * std::fabs(std::log(want)) + 1e-6)
              << n << " " << i;
        }
      }
    }
  }
}

TEST(LinalgSoftmax, HalfTypesAndEmptyInput) {
  std::vector<Float16> h = {Float16::FromFloat(0), Float16::FromFloat(0)};
  auto out = NodeTest("Softmax", 13).Input<Float16>({2}, h).Run();
  EXPECT_EQ(Values<Float16>(*out[0])[1].ToFloat(), 0.5f);
  std::vector<BFloat16> b = {BFloat16::FromFloat(1), BFloat16::FromFloat(1)};
  auto bf = NodeTest("LogSoftmax", 13).Input<BFloat16>({1, 2}, b).Run();
  EXPECT_NEAR(Values<BFloat16>(*bf[0])[0].ToFloat(), -0.6931472f, 4e-3);

  auto empty = NodeTest("Softmax", 13).Input<float>({0, 3}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 3}));
}

TEST(LinalgSoftmax, NaNFillsItsRow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("Softmax", 13).Input<float>({2, 2}, {nan, 1, 0, 0}).Run();
  const std::vector<float> y = Values<float>(*out[0]);
  EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]));
  EXPECT_EQ(y[2], 0.5f);
}

// RowMax (shared with the attention kernels) over every length up to three vectors of 16 and the
// tail, the maximum in each position; a NaN first makes the result NaN, a later one is skipped.
TEST(LinalgSoftmax, RowMaxFindsTheMaximumAnywhere) {
  for (size_t n = 1; n <= 50; ++n) {
    for (size_t at = 0; at < n; ++at) {
      std::vector<float> x(n);
      for (size_t i = 0; i < n; ++i) x[i] = -static_cast<float>((i * 7) % 13) - 1.0f;
      x[at] = 0.5f;
      ASSERT_EQ(cpu::RowMax(x.data(), n), 0.5f) << "n " << n << ", maximum at " << at;
    }
  }
  // A NaN after the maximum in the same vector lane (1 and 17), and one in the scalar tail.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(40, 1.0f);
  x[1] = 2.0f;
  x[17] = nan;
  x[38] = nan;
  EXPECT_EQ(cpu::RowMax(x.data(), x.size()), 2.0f);
  x[0] = nan;
  EXPECT_TRUE(std::isnan(cpu::RowMax(x.data(), x.size())));
}

TEST(LinalgSoftmax, RejectsBadAxisRankAndType) {
  ExpectError(NodeTest("Softmax", 13).Attr("axis", int64_t{2}).Input<float>({2, 3}, Input2x3()),
              ErrorCode::kInvalidArgument, "Softmax", "axis 2 is out of range for rank 2");
  ExpectError(NodeTest("LogSoftmax", 11).Input<float>({}, {1}), ErrorCode::kInvalidArgument,
              "LogSoftmax", "axis 1 is out of range for rank 0");
  ExpectError(NodeTest("Hardmax", 13).Input<int32_t>({2}, {1, 2}), ErrorCode::kNotImplemented,
              "Hardmax", "int32");
}

TEST(LinalgLogSoftmax, NormalisesInLogSpace) {
  auto out = NodeTest("LogSoftmax", 13).Input<float>({2, 3}, Input2x3()).Run();
  ExpectNear<float>(
      *out[0], {-2.40760596f, -1.40760596f, -0.40760596f, -6.00917448f, -5.00917448f, -0.00917448f},
      1e-5);
  auto coerced = NodeTest("LogSoftmax", 1).Input<float>({1, 2, 1}, {3, 3}).Run();
  ExpectNear<float>(*coerced[0], {-0.69314718f, -0.69314718f}, 1e-6);
  auto large = NodeTest("LogSoftmax", 13).Input<double>({2}, {-1000, 0}).Run();
  ExpectNear<double>(*large[0], {-1000, 0}, 1e-12);
}

TEST(LinalgHardmax, MarksTheFirstMaximum) {
  auto out = NodeTest("Hardmax", 13).Input<float>({2, 3}, {1, 3, 3, -1, 5, 0}).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0, 1, 0, 0, 1, 0}));
  auto strided =
      NodeTest("Hardmax", 13).Attr("axis", int64_t{0}).Input<float>({2, 2}, {1, 7, 4, 2}).Run();
  EXPECT_EQ(Values<float>(*strided[0]), (std::vector<float>{0, 1, 1, 0}));
}

TEST(LinalgHardmax, CoercesTo2DBeforeOpset13) {
  // Opset 11, axis 1 of [2,2,2]: one maximum in each flattened row of 4.
  auto out = NodeTest("Hardmax", 11).Input<double>({2, 2, 2}, {1, 2, 4, 3, 9, 0, 0, 9}).Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{0, 0, 1, 0, 1, 0, 0, 0}));
}

TEST(LinalgHardmax, NaNCountsAsTheMaximum) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("Hardmax", 13).Input<float>({4}, {1, nan, 5, nan}).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0, 1, 0, 0}));
}

}  // namespace
}  // namespace kiln::testing
