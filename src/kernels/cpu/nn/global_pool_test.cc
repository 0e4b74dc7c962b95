// GlobalAveragePool, GlobalMaxPool and GlobalLpPool: values computed with numpy from
// nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;

std::vector<float> RunGlobal(const char* op, int64_t opset, int threads = 1) {
  auto out = NodeTest(op, opset).Input<float>({2, 3, 2, 2}, Pattern(24)).Run(threads);
  EXPECT_EQ(out[0]->shape(), Shape({2, 3, 1, 1}));
  return Values<float>(*out[0]);
}

TEST(NnGlobalPool, AverageAndMax) {
  ExpectNear(RunGlobal("GlobalAveragePool", 1),
             {-0.21875f, 0.09375f, -0.125f, 0.1875f, -0.03125f, -0.25f}, 1e-6);
  ExpectNear(RunGlobal("GlobalAveragePool", 22, 2),
             {-0.21875f, 0.09375f, -0.125f, 0.1875f, -0.03125f, -0.25f}, 1e-6);
  EXPECT_EQ(RunGlobal("GlobalMaxPool", 1),
            (std::vector<float>{0.75f, 0.875f, 0.5f, 1.0f, 0.75f, 0.375f}));
  EXPECT_EQ(RunGlobal("GlobalMaxPool", 22),
            (std::vector<float>{0.75f, 0.875f, 0.5f, 1.0f, 0.75f, 0.375f}));
}

// Large planes are averaged to float64 accuracy: no running float sum over all of them (which,
// for 112×112 positive values, is off by about 1e-4 relative), including sizes that end inside a
// lane and inside a block; every plane checked against the float64 mean of its values.
TEST(NnGlobalPool, AverageOfLargePlanesMatchesFloat64) {
  for (const int64_t side : {1, 7, 33, 112, 230}) {
    SCOPED_TRACE("side " + std::to_string(side));
    const size_t plane = static_cast<size_t>(side * side);
    std::vector<float> x(3 * plane);
    uint32_t state = 7;
    for (float& v : x) {
      state = state * 1664525u + 1013904223u;
      v = 0.1f + static_cast<float>(state >> 8) / 16777216.0f;  // in [0.1, 1.1)
    }
    const auto out = NodeTest("GlobalAveragePool", 22).Input<float>({1, 3, side, side}, x).Run();
    const std::vector<float> got = Values<float>(*out[0]);
    ASSERT_EQ(got.size(), 3u);
    for (size_t c = 0; c < 3; ++c) {
      double want = 0;
      for (size_t i = 0; i < plane; ++i) want += x[c * plane + i];
      want /= static_cast<double>(plane);
      EXPECT_NEAR(got[c], want, 2e-7 * want) << "channel " << c;
    }
  }
}

TEST(NnGlobalPool, LpWithIntAndFloatP) {
  ExpectNear(RunGlobal("GlobalLpPool", 2),
             {1.352082f, 1.29301f, 0.984251f, 1.357848f, 1.280869f, 1.075291f}, 1e-5);
  auto p3 = NodeTest("GlobalLpPool", 22)
                .Attr("p", int64_t{3})
                .Input<float>({2, 3, 2, 2}, Pattern(24))
                .Run();
  ExpectNear(Values<float>(*p3[0]),
             {1.157003f, 1.116709f, 0.8441642f, 1.145707f, 1.1291f, 0.9463968f}, 1e-5);
  auto p15 =
      NodeTest("GlobalLpPool", 1).Attr("p", 1.5f).Input<float>({2, 3, 2, 2}, Pattern(24)).Run();
  ExpectNear(Values<float>(*p15[0]),
             {1.612314f, 1.516014f, 1.17699f, 1.646754f, 1.489965f, 1.252466f}, 1e-5);
  ExpectError(
      [] {
        NodeTest("GlobalLpPool", 2).Attr("p", int64_t{-1}).Input<float>({1, 1, 2}, {1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'p'", "positive"});
}

TEST(NnGlobalPool, OneDThreeDAndRankTwo) {
  auto one = NodeTest("GlobalMaxPool", 1).Input<float>({1, 2, 3}, {1, 5, 2, -1, -3, -2}).Run();
  EXPECT_EQ(one[0]->shape(), Shape({1, 2, 1}));
  EXPECT_EQ(Values<float>(*one[0]), (std::vector<float>{5, -1}));
  auto three =
      NodeTest("GlobalAveragePool", 1).Input<double>({1, 1, 2, 1, 2}, {1.0, 2.0, 3.0, 4.0}).Run();
  EXPECT_EQ(three[0]->shape(), Shape({1, 1, 1, 1, 1}));
  EXPECT_EQ(Values<double>(*three[0]), (std::vector<double>{2.5}));
  auto two = NodeTest("GlobalAveragePool", 1).Input<float>({2, 2}, {1, 2, 3, 4}).Run();
  EXPECT_EQ(two[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*two[0]), (std::vector<float>{1, 2, 3, 4}));
}

TEST(NnGlobalPool, MaxIgnoresNanUnlessAllNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("GlobalMaxPool", 1).Input<float>({1, 2, 2}, {nan, 3, nan, nan}).Run();
  const std::vector<float> y = Values<float>(*out[0]);
  EXPECT_EQ(y[0], 3.0f);
  EXPECT_TRUE(std::isnan(y[1]));
}

TEST(NnGlobalPool, Float16AndBFloat16) {
  const std::vector<Float16> h = nn_test::Cast<Float16>(Pattern(24));
  auto out = NodeTest("GlobalAveragePool", 1).Input<Float16>({2, 3, 2, 2}, h).Run();
  EXPECT_EQ(Values<Float16>(*out[0])[0].ToFloat(), -0.21875f);
  const std::vector<BFloat16> b = nn_test::Cast<BFloat16>(Pattern(24));
  auto bf = NodeTest("GlobalMaxPool", 22).Input<BFloat16>({2, 3, 2, 2}, b).Run();
  EXPECT_EQ(Values<BFloat16>(*bf[0])[3].ToFloat(), 1.0f);
  ExpectError(
      [&] {
        NodeTest("GlobalMaxPool", 1).Input<BFloat16>({2, 3, 2, 2}, b).Run();
      },
      ErrorCode::kInvalidArgument, {"bfloat16", "opset 22"});
}

TEST(NnGlobalPool, EmptyInputs) {
  auto empty_batch = NodeTest("GlobalAveragePool", 1).Input<float>({0, 3, 2}, {}).Run();
  EXPECT_EQ(empty_batch[0]->shape(), Shape({0, 3, 1}));
  ExpectError(
      [] {
        NodeTest("GlobalAveragePool", 1).Input<float>({1, 2, 0}, {}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "empty"});
  ExpectError(
      [] {
        NodeTest("GlobalMaxPool", 1).Input<float>({1, 2, 0}, {}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "empty"});
  auto lp = NodeTest("GlobalLpPool", 2).Input<float>({1, 2, 0}, {}).Run();
  EXPECT_EQ(Values<float>(*lp[0]), (std::vector<float>{0.0f, 0.0f}));
  ExpectError(
      [] {
        NodeTest("GlobalMaxPool", 1).Input<float>({3}, {1, 2, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "rank 2"});
}

}  // namespace
}  // namespace kiln::testing
