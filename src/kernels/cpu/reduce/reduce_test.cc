#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

// A [3,2,4] input; the expected values below are numpy's.
std::vector<float> X() {
  return {1.5f, -2, 3, 0.5f, 4,    5, -6,   1,  -1, 0.25f, 2, 3,
          7,    -8, 9, 2,    0.5f, 1, 1.5f, -2, 3,  -3,    2, 1};
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// Runs `op` over axes {0, 2} of X(), in the attribute form (opset 13) and, except ReduceSum, the
// input form (opset 18).
std::vector<float> ReduceAxes02(const std::string& op, int64_t opset) {
  NodeTest t(op, opset);
  t.Attr("keepdims", int64_t{0}).Input<float>({3, 2, 4}, X());
  if (opset >= 18 || (op == "ReduceSum" && opset >= 13)) {
    t.Input<int64_t>({2}, {0, -1});
  } else {
    t.Attr("axes", std::vector<int64_t>{0, -1});
  }
  auto out = t.Run();
  EXPECT_EQ(out[0]->shape(), Shape({2}));
  return Values<float>(*out[0]);
}

TEST(ReduceOps, EachOpOverTwoAxesMatchesNumpy) {
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"ReduceSum", {8.25f, 17}},
      {"ReduceMean", {0.6875f, 1.41666663f}},
      {"ReduceMax", {3, 9}},
      {"ReduceMin", {-2, -8}},
      {"ReduceProd", {-10.125f, -2177280}},
      {"ReduceL1", {18.25f, 51}},
      {"ReduceL2", {6.08789778f, 17.2916164f}},
      {"ReduceLogSumExp", {4.16607292f, 9.15303761f}},
      {"ReduceSumSquare", {37.0625f, 299}},
  };
  for (const auto& [op, want] : cases) {
    SCOPED_TRACE(op);
    ExpectNear(ReduceAxes02(op, 13), want, 1e-4f * std::abs(want[1]));
    ExpectNear(ReduceAxes02(op, op == "ReduceSum" ? 13 : 18), want, 1e-4f * std::abs(want[1]));
  }
}

TEST(ReduceOps, LogSumOfPositiveValues) {
  std::vector<float> x = X();
  for (float& v : x) v = std::abs(v);
  auto out = NodeTest("ReduceLogSum", 11)
                 .Attr("axes", std::vector<int64_t>{0, 2})
                 .Attr("keepdims", int64_t{1})
                 .Input<float>({3, 2, 4}, x)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 1}));
  ExpectNear(Values<float>(*out[0]), {2.90416503f, 3.93182564f});
}

TEST(ReduceSum, MiddleAxisKeepsDimsByDefault) {
  auto out = NodeTest("ReduceSum", 1)
                 .Attr("axes", std::vector<int64_t>{1})
                 .Input<float>({3, 2, 4}, X())
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 1, 4}));
  ExpectNear(Values<float>(*out[0]), {5.5f, 3, -3, 1.5f, 6, -7.75f, 11, 5, 3.5f, -2, 3.5f, -1});
}

TEST(ReduceMean, NegativeAxisLastDimension) {
  auto out = NodeTest("ReduceMean", 11)
                 .Attr("axes", std::vector<int64_t>{-1})
                 .Attr("keepdims", int64_t{0})
                 .Input<float>({3, 2, 4}, X())
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 2}));
  ExpectNear(Values<float>(*out[0]), {0.75f, 1, 1.0625f, 2.5f, 0.25f, 0.75f});
}

// Long float runs are summed to float64 accuracy (float_sum.h), not in one running float sum
// (off by about 1e-4 relative over 50,000 positive values): ReduceMean over the last two axes (a
// global pool written as a mean) and ReduceSum over the first and last axes (several runs into
// each output), each output checked against the float64 sum of its values.
TEST(ReduceSum, LongFloatRunsMatchFloat64) {
  const int64_t a = 3, b = 2, c = 230, d = 229;
  std::vector<float> x(static_cast<size_t>(a * b * c * d));
  uint32_t state = 11;
  for (float& v : x) {
    state = state * 1664525u + 1013904223u;
    v = 0.1f + static_cast<float>(state >> 8) / 16777216.0f;  // in [0.1, 1.1)
  }
  const auto at = [&](int64_t i, int64_t j, int64_t k, int64_t l) {
    return static_cast<double>(x[static_cast<size_t>(((i * b + j) * c + k) * d + l)]);
  };
  const std::vector<float> mean = Values<float>(*NodeTest("ReduceMean", 18)
                                                     .Input<float>({a, b, c, d}, x)
                                                     .Input<int64_t>({2}, {2, 3})
                                                     .Run()[0]);
  ASSERT_EQ(mean.size(), static_cast<size_t>(a * b));
  for (int64_t i = 0; i < a; ++i) {
    for (int64_t j = 0; j < b; ++j) {
      double want = 0;
      for (int64_t k = 0; k < c; ++k) {
        for (int64_t l = 0; l < d; ++l) want += at(i, j, k, l);
      }
      want /= static_cast<double>(c * d);
      EXPECT_NEAR(mean[static_cast<size_t>(i * b + j)], want, 2e-7 * want) << i << ", " << j;
    }
  }
  const std::vector<float> sum = Values<float>(*NodeTest("ReduceSum", 13)
                                                    .Input<float>({a, b, c, d}, x)
                                                    .Input<int64_t>({2}, {0, 3})
                                                    .Run()[0]);
  ASSERT_EQ(sum.size(), static_cast<size_t>(b * c));
  for (int64_t j = 0; j < b; ++j) {
    for (int64_t k = 0; k < c; ++k) {
      double want = 0;
      for (int64_t i = 0; i < a; ++i) {
        for (int64_t l = 0; l < d; ++l) want += at(i, j, k, l);
      }
      EXPECT_NEAR(sum[static_cast<size_t>(j * c + k)], want, 2e-7 * want) << j << ", " << k;
    }
  }
}

TEST(ReduceProd, AxesInputFromOpset18) {
  auto out = NodeTest("ReduceProd", 18).Input<float>({3, 2, 4}, X()).Input<int32_t>({1}, {1}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 1, 4}));
  ExpectNear(Values<float>(*out[0]), {6, -10, -18, 0.5f, -7, -2, 18, 6, 1.5f, -3, 3, -2});
}

TEST(ReduceMax, LeadingAxisInParallel) {
  auto out = NodeTest("ReduceMax", 13)
                 .Attr("axes", std::vector<int64_t>{0})
                 .Attr("keepdims", int64_t{0})
                 .Input<float>({3, 2, 4}, X())
                 .Run(4);
  ExpectNear(Values<float>(*out[0]), {1.5f, 1, 3, 3, 7, 5, 9, 2});
}

TEST(ReduceSum, EmptyAxesReducesEverything) {
  auto attr_form = NodeTest("ReduceSum", 11).Input<float>({3, 2, 4}, X()).Run();
  EXPECT_EQ(attr_form[0]->shape(), Shape({1, 1, 1}));
  EXPECT_FLOAT_EQ(Values<float>(*attr_form[0])[0], 25.25f);
  auto missing =
      NodeTest("ReduceSum", 13).Attr("keepdims", int64_t{0}).Input<float>({3, 2, 4}, X()).Run();
  EXPECT_EQ(missing[0]->shape(), Shape());
  EXPECT_FLOAT_EQ(Values<float>(*missing[0])[0], 25.25f);
  auto empty_input = NodeTest("ReduceMean", 18)
                         .Attr("keepdims", int64_t{0})
                         .Input<float>({3, 2, 4}, X())
                         .Input<int64_t>({0}, {})
                         .Run();
  EXPECT_NEAR(Values<float>(*empty_input[0])[0], 1.0520834f, 1e-6f);
}

TEST(ReduceSum, NoopWithEmptyAxesIsIdentity) {
  auto out = NodeTest("ReduceSum", 13)
                 .Attr("noop_with_empty_axes", int64_t{1})
                 .Input<float>({3, 2, 4}, X())
                 .Input<int64_t>({0}, {})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({3, 2, 4}));
  EXPECT_EQ(Values<float>(*out[0]), X());
}

TEST(ReduceSumSquare, NoopStillSquaresLikeTheOnnxReference) {
  auto out = NodeTest("ReduceSumSquare", 18)
                 .Attr("noop_with_empty_axes", int64_t{1})
                 .Input<float>({3}, {1, -2, 3})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 4, 9}));
}

TEST(ReduceOps, ZeroSizeAxisGivesTheIdentity) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<std::string, float>> cases = {
      {"ReduceSum", 0},       {"ReduceProd", 1},      {"ReduceMax", -inf},
      {"ReduceMin", inf},     {"ReduceL1", 0},        {"ReduceL2", 0},
      {"ReduceSumSquare", 0}, {"ReduceLogSum", -inf}, {"ReduceLogSumExp", -inf},
  };
  for (const auto& [op, want] : cases) {
    SCOPED_TRACE(op);
    auto out = NodeTest(op, 11)
                   .Attr("axes", std::vector<int64_t>{1})
                   .Attr("keepdims", int64_t{0})
                   .Input<float>({2, 0}, {})
                   .Run();
    EXPECT_EQ(out[0]->shape(), Shape({2}));
    EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{want, want}));
  }
  auto mean = NodeTest("ReduceMean", 13).Input<float>({0, 3}, {}).Run();
  EXPECT_TRUE(std::isnan(Values<float>(*mean[0])[0]));
  auto int_max = NodeTest("ReduceMax", 18).Input<int32_t>({0}, {}).Run();
  EXPECT_EQ(Values<int32_t>(*int_max[0])[0], std::numeric_limits<int32_t>::min());
  auto int_mean = NodeTest("ReduceMean", 18).Input<int64_t>({0}, {}).Run();
  EXPECT_EQ(Values<int64_t>(*int_mean[0])[0], 0);
  // Kept zero-size dimension: the output is empty too.
  auto kept = NodeTest("ReduceSum", 13).Input<float>({0, 3}, {}).Input<int64_t>({1}, {1}).Run();
  EXPECT_EQ(kept[0]->shape(), Shape({0, 1}));
}

TEST(ReduceMax, PropagatesNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    auto out = NodeTest(op, 13)
                   .Attr("axes", std::vector<int64_t>{1})
                   .Input<float>({2, 3}, {1, nan, 3, 4, 5, 6})
                   .Run();
    auto v = Values<float>(*out[0]);
    EXPECT_TRUE(std::isnan(v[0])) << op;
    EXPECT_EQ(v[1], op == std::string("ReduceMax") ? 6.0f : 4.0f);
  }
}

TEST(ReduceLogSumExp, StableForLargeValuesAndInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  auto out = NodeTest("ReduceLogSumExp", 13)
                 .Attr("axes", std::vector<int64_t>{1})
                 .Attr("keepdims", int64_t{0})
                 .Input<float>({3, 2}, {1000, 1000, -inf, -inf, inf, 1})
                 .Run();
  auto v = Values<float>(*out[0]);
  EXPECT_NEAR(v[0], 1000.6931472f, 1e-3f);
  EXPECT_EQ(v[1], -inf);
  EXPECT_EQ(v[2], inf);
}

TEST(ReduceSum, IntegerTypesWrapOnOverflow) {
  auto out =
      NodeTest("ReduceSum", 13).Input<int32_t>({2}, {std::numeric_limits<int32_t>::max(), 1}).Run();
  EXPECT_EQ(Values<int32_t>(*out[0])[0], std::numeric_limits<int32_t>::min());
  auto u = NodeTest("ReduceSum", 13).Input<uint64_t>({3}, {1, 2, 3}).Run();
  EXPECT_EQ(Values<uint64_t>(*u[0])[0], 6u);
}

TEST(ReduceMean, IntegerMeanTruncates) {
  auto out = NodeTest("ReduceMean", 13)
                 .Attr("axes", std::vector<int64_t>{1})
                 .Input<int64_t>({2, 2}, {1, 2, -3, -4})
                 .Run();
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{1, -3}));
}

TEST(ReduceL2, IntegerComputesInDouble) {
  auto out = NodeTest("ReduceL2", 13).Input<int32_t>({2}, {3, 4}).Run();
  EXPECT_EQ(Values<int32_t>(*out[0])[0], 5);
  auto l1 =
      NodeTest("ReduceL1", 13).Input<int32_t>({2}, {std::numeric_limits<int32_t>::min(), 0}).Run();
  EXPECT_EQ(Values<int32_t>(*l1[0])[0], std::numeric_limits<int32_t>::min());  // wraps, no UB
}

TEST(ReduceMax, Int8AndBool) {
  auto i8 = NodeTest("ReduceMin", 13).Input<int8_t>({3}, {5, -128, 7}).Run();
  EXPECT_EQ(Values<int8_t>(*i8[0])[0], -128);
  auto any = NodeTest("ReduceMax", 20)
                 .Attr("keepdims", int64_t{0})
                 .Input<bool>({2, 2}, {false, true, false, false})
                 .Input<int64_t>({1}, {1})
                 .Run();
  EXPECT_EQ(Values<bool>(*any[0]), (std::vector<bool>{true, false}));
  auto all = NodeTest("ReduceMin", 20)
                 .Attr("keepdims", int64_t{0})
                 .Input<bool>({2, 2}, {true, true, false, true})
                 .Input<int64_t>({1}, {1})
                 .Run();
  EXPECT_EQ(Values<bool>(*all[0]), (std::vector<bool>{true, false}));
}

TEST(ReduceSum, Float16ComputesInFloat) {
  std::vector<Float16> x;
  for (float v : {0.5f, 1.25f, -3.0f, 2048.0f, 1.0f, 1.0f}) x.push_back(Float16::FromFloat(v));
  auto out = NodeTest("ReduceSum", 13)
                 .Attr("keepdims", int64_t{0})
                 .Input<Float16>({2, 3}, x)
                 .Input<int64_t>({1}, {1})
                 .Run();
  auto v = Values<Float16>(*out[0]);
  EXPECT_EQ(v[0].ToFloat(), -1.25f);
  EXPECT_EQ(v[1].ToFloat(), 2050.0f);  // summing in half would give 2048
}

TEST(ReduceSum, ScalarInput) {
  auto out = NodeTest("ReduceSum", 11).Input<double>({}, {2.5}).Run();
  EXPECT_EQ(out[0]->shape(), Shape());
  EXPECT_EQ(Values<double>(*out[0])[0], 2.5);
}

// A naive reference over a larger tensor, run with several threads through each walk shape.
TEST(ReduceMean, LargeTensorMatchesNaiveReference) {
  const std::vector<int64_t> dims = {5, 7, 6, 33};
  std::vector<double> x(size_t{5} * 7 * 6 * 33);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<double>(i) * 0.37) * 10;
  for (const std::vector<int64_t>& axes :
       {std::vector<int64_t>{0}, {1}, {3}, {0, 2}, {1, 3}, {0, 1, 2, 3}}) {
    std::vector<bool> reduced(4, false);
    for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
    std::vector<int64_t> out_dims;
    for (size_t d = 0; d < 4; ++d) out_dims.push_back(reduced[d] ? 1 : dims[d]);
    std::vector<double> want(
        static_cast<size_t>(out_dims[0] * out_dims[1] * out_dims[2] * out_dims[3]));
    size_t count = 1;
    for (size_t d = 0; d < 4; ++d) count *= reduced[d] ? static_cast<size_t>(dims[d]) : 1;
    size_t i = 0;
    for (int64_t a = 0; a < dims[0]; ++a) {
      for (int64_t b = 0; b < dims[1]; ++b) {
        for (int64_t c = 0; c < dims[2]; ++c) {
          for (int64_t e = 0; e < dims[3]; ++e, ++i) {
            const int64_t idx[4] = {a, b, c, e};
            size_t o = 0;
            for (size_t d = 0; d < 4; ++d) {
              o = o * static_cast<size_t>(out_dims[d]) +
                  (reduced[d] ? 0 : static_cast<size_t>(idx[d]));
            }
            want[o] += x[i] / static_cast<double>(count);
          }
        }
      }
    }
    auto out = NodeTest("ReduceMean", 18)
                   .Input<double>(dims, x)
                   .Input<int64_t>({static_cast<int64_t>(axes.size())}, axes)
                   .Run(3);
    EXPECT_EQ(out[0]->shape(), Shape(out_dims));
    auto got = Values<double>(*out[0]);
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], want[j], 1e-9) << "at " << j;
  }
}

TEST(ReduceErrors, AxisOutOfRange) {
  ExpectNodeError(
      NodeTest("ReduceSum", 11).Attr("axes", std::vector<int64_t>{3}).Input<float>({3, 2, 4}, X()),
      ErrorCode::kInvalidArgument, "axis 3 is out of range for rank 3");
  ExpectNodeError(NodeTest("ReduceMax", 18).Input<float>({3, 2, 4}, X()).Input<int64_t>({1}, {-4}),
                  ErrorCode::kInvalidArgument, "axis -4");
}

TEST(ReduceErrors, RepeatedAxis) {
  ExpectNodeError(
      NodeTest("ReduceSum", 13).Input<float>({3, 2, 4}, X()).Input<int64_t>({2}, {1, -2}),
      ErrorCode::kInvalidArgument, "appears more than once in 'axes'");
}

TEST(ReduceErrors, AxesInputShapeAndType) {
  ExpectNodeError(
      NodeTest("ReduceSum", 13).Input<float>({3, 2, 4}, X()).Input<int64_t>({1, 1}, {1}),
      ErrorCode::kInvalidArgument, "input 'axes' must be 1-D");
  ExpectNodeError(NodeTest("ReduceL1", 18).Input<float>({3, 2, 4}, X()).Input<float>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'axes' must be int64 or int32");
}

TEST(ReduceErrors, UnsupportedType) {
  ExpectNodeError(NodeTest("ReduceSum", 13).Input<bool>({2}, {true, false}),
                  ErrorCode::kNotImplemented, "element type bool");
  ExpectNodeError(NodeTest("ReduceProd", 13).Input<int8_t>({2}, {1, 2}), ErrorCode::kNotImplemented,
                  "element type int8");
}

}  // namespace
}  // namespace kiln::testing
