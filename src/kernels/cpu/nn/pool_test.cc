// MaxPool, AveragePool and LpPool: values against a direct numpy implementation of the ONNX
// formulas (checked against torch where torch has the same options), from nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;

using Ints = std::vector<int64_t>;

TEST(NnMaxPool, TwoByTwoWithIndices) {
  auto out = NodeTest("MaxPool", 8)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("strides", Ints{2, 2})
                 .Input<float>({1, 2, 4, 4}, Pattern(32))
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 2, 2}));
  EXPECT_EQ(out[1]->shape(), Shape({1, 2, 2, 2}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0.375f, 0.875f, 1.0f, 0.625f, 0.375f, 0.75f, 1.0f, 0.625f}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (Ints{4, 7, 12, 14, 21, 19, 29, 31}));
}

TEST(NnMaxPool, PaddedStridedIndicesSkipPadding) {
  auto out = NodeTest("MaxPool", 12)
                 .Attr("kernel_shape", Ints{3, 3})
                 .Attr("strides", Ints{2, 2})
                 .Attr("pads", Ints{1, 1, 1, 1})
                 .Input<float>({1, 2, 5, 5}, Pattern(50))
                 .Outputs(2)
                 .Run(2);
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0.0f, 0.875f, 0.5f, 0.25f, 1.0f, 0.75f, 0.375f, 0.375f, 0.875f,
                                0.625f, 0.625f, 1.0f, 0.875f, 0.875f, 0.5f, 1.0f, 1.0f, 0.625f}));
  EXPECT_EQ(Values<int64_t>(*out[1]),
            (Ints{6, 7, 9, 16, 12, 19, 21, 21, 24, 31, 31, 29, 41, 41, 43, 46, 46, 48}));
}

TEST(NnMaxPool, IndicesOutputLeftOut) {
  auto out = NodeTest("MaxPool", 12)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("strides", Ints{2, 2})
                 .Input<float>({1, 2, 4, 4}, Pattern(32))
                 .Outputs(2, {1})
                 .Run();
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{0.375f, 0.875f, 1.0f, 0.625f, 0.375f, 0.75f, 1.0f, 0.625f}));
}

TEST(NnMaxPool, StorageOrderColumnMajorIndices) {
  auto run = [](int64_t order) {
    return NodeTest("MaxPool", 8)
        .Attr("kernel_shape", Ints{2, 2})
        .Attr("strides", Ints{1, 2})
        .Attr("storage_order", order)
        .Input<float>({1, 2, 3, 4}, Pattern(24))
        .Outputs(2)
        .Run();
  };
  auto row = run(0);
  auto col = run(1);
  EXPECT_EQ(Values<float>(*col[0]),
            (std::vector<float>{0.375f, 0.875f, 0.5f, 0.875f, 1.0f, 0.75f, 0.375f, 0.75f}));
  EXPECT_EQ(Values<int64_t>(*row[1]), (Ints{4, 7, 9, 7, 12, 19, 21, 19}));
  EXPECT_EQ(Values<int64_t>(*col[1]), (Ints{1, 10, 5, 10, 12, 22, 17, 22}));
}

std::vector<float> Pool1D(const char* op, int64_t opset, const std::vector<float>& x,
                          const Ints& kernel, const Ints& strides, const Ints& pads,
                          int64_t ceil_mode) {
  const auto n = static_cast<int64_t>(x.size());
  NodeTest t(op, opset);
  t.Attr("kernel_shape", kernel).Attr("strides", strides).Input<float>({1, 1, n}, x);
  if (!pads.empty()) t.Attr("pads", pads);
  if (ceil_mode != 0) t.Attr("ceil_mode", ceil_mode);
  return Values<float>(*t.Run()[0]);
}

TEST(NnMaxPool, CeilModeDropsAWindowStartingInTheEndPadding) {
  // [-1, -0.125, 0.75, -0.5], kernel 2, stride 2.
  const std::vector<float> x = Pattern(4);
  // pads [0, 1]: ceil gives 3 windows but the third would start in the end padding.
  EXPECT_EQ(Pool1D("MaxPool", 10, x, {2}, {2}, {0, 1}, 1), (std::vector<float>{-0.125f, 0.75f}));
  // pads [1, 1]: the third window starts inside the input and is kept.
  EXPECT_EQ(Pool1D("MaxPool", 10, x, {2}, {2}, {1, 1}, 1),
            (std::vector<float>{-1.0f, 0.75f, -0.5f}));
  EXPECT_EQ(Pool1D("MaxPool", 10, x, {2}, {2}, {0, 1}, 0), (std::vector<float>{-0.125f, 0.75f}));
  // No padding, 5 elements: the last window covers only the last element.
  EXPECT_EQ(Pool1D("MaxPool", 11, Pattern(5), {2}, {2}, {}, 1),
            (std::vector<float>{-0.125f, 0.75f, 0.375f}));
  EXPECT_EQ(Pool1D("MaxPool", 11, Pattern(5), {2}, {2}, {}, 0),
            (std::vector<float>{-0.125f, 0.75f}));
}

TEST(NnMaxPool, CeilModeIgnoredBeforeOpset10) {
  EXPECT_EQ(Pool1D("MaxPool", 8, Pattern(5), {2}, {2}, {}, 1),
            (std::vector<float>{-0.125f, 0.75f}));
}

TEST(NnMaxPool, Dilations) {
  auto out = NodeTest("MaxPool", 10)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("dilations", Ints{2, 2})
                 .Input<float>({1, 1, 5, 5}, Pattern(25))
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 1, 3, 3}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{1.0f, 0.125f, 1.0f, 0.875f, 0.25f, 0.875f, 1.0f, 0.375f, 1.0f}));
  EXPECT_EQ(Values<int64_t>(*out[1]), (Ints{12, 11, 12, 7, 16, 7, 12, 21, 12}));
}

TEST(NnMaxPool, ThreeD) {
  const std::vector<float> x = Pattern(size_t{2} * 3 * 4 * 4 * 4, 5);
  auto out = NodeTest("MaxPool", 22)
                 .Attr("kernel_shape", Ints{2, 3, 2})
                 .Attr("strides", Ints{2, 1, 2})
                 .Attr("pads", Ints{0, 1, 1, 1, 0, 0})
                 .Input<float>({2, 3, 4, 4, 4}, x)
                 .Run(3);
  EXPECT_EQ(out[0]->shape(), Shape({2, 3, 2, 3, 2}));
  EXPECT_EQ(
      Values<float>(*out[0]),
      (std::vector<float>{0.875f, 0.625f, 0.875f, 1.0f,   0.875f, 1.0f,   0.25f,  0.875f, 0.625f,
                          0.875f, 1.0f,   1.0f,   0.75f,  0.75f,  0.875f, 0.75f,  0.875f, 1.0f,
                          1.0f,   0.75f,  1.0f,   0.875f, 0.625f, 0.875f, 0.75f,  1.0f,   0.75f,
                          1.0f,   0.875f, 0.75f,  1.0f,   0.75f,  1.0f,   0.75f,  1.0f,   0.875f,
                          0.375f, 1.0f,   0.75f,  1.0f,   0.75f,  1.0f,   0.875f, 0.875f, 1.0f,
                          0.875f, 1.0f,   0.75f,  0.0f,   0.875f, 0.375f, 1.0f,   0.75f,  1.0f,
                          0.875f, 0.875f, 0.875f, 0.875f, 1.0f,   0.875f, 0.75f,  0.875f, 0.75f,
                          0.875f, 0.375f, 1.0f,   0.5f,   0.75f,  0.875f, 0.875f, 0.875f, 0.875f}));
}

std::vector<float> MaxPoolAutoPad(const char* mode) {
  return Values<float>(*NodeTest("MaxPool", 11)
                            .Attr("kernel_shape", Ints{2, 2})
                            .Attr("strides", Ints{2, 2})
                            .Attr("auto_pad", mode)
                            .Input<float>({1, 1, 5, 5}, Pattern(25))
                            .Run()[0]);
}

TEST(NnMaxPool, AutoPad) {
  // ceil(5 / 2) = 3 windows, one padding element at the end (UPPER) or beginning (LOWER).
  EXPECT_EQ(MaxPoolAutoPad("SAME_UPPER"),
            (std::vector<float>{0.0f, 0.875f, 0.5f, 0.25f, 1.0f, 0.75f, 0.375f, 0.0f, 0.875f}));
  EXPECT_EQ(MaxPoolAutoPad("SAME_LOWER"), (std::vector<float>{-1.0f, 0.75f, 0.375f, -0.75f, 1.0f,
                                                              0.625f, -0.5f, 0.375f, 0.875f}));
  EXPECT_EQ(MaxPoolAutoPad("VALID"), (std::vector<float>{0.0f, 0.875f, 0.25f, 1.0f}));
}

TEST(NnMaxPool, AutoPadValidWithCeilMode) {
  // 5 elements, kernel 2, stride 2: the third window starts inside the input and is kept.
  auto out = NodeTest("MaxPool", 12)
                 .Attr("kernel_shape", Ints{2})
                 .Attr("strides", Ints{2})
                 .Attr("auto_pad", "VALID")
                 .Attr("ceil_mode", int64_t{1})
                 .Input<float>({1, 1, 5}, Pattern(5))
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{-0.125f, 0.75f, 0.375f}));
  ExpectError(
      [] {
        NodeTest("MaxPool", 12)
            .Attr("kernel_shape", Ints{3})
            .Attr("auto_pad", "VALID")
            .Input<float>({1, 1, 2}, Pattern(2))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"kernel extent 3", "auto_pad VALID"});
}

TEST(NnMaxPool, NanIsIgnoredUnlessTheWholeWindowIsNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("MaxPool", 12)
                 .Attr("kernel_shape", Ints{2})
                 .Attr("strides", Ints{2})
                 .Input<float>({1, 1, 6}, {nan, 1.0f, 2.0f, nan, nan, nan})
                 .Outputs(2)
                 .Run();
  const std::vector<float> y = Values<float>(*out[0]);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 2.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(Values<int64_t>(*out[1]), (Ints{1, 2, 4}));
}

TEST(NnMaxPool, FirstMaximumWinsTies) {
  auto out = NodeTest("MaxPool", 12)
                 .Attr("kernel_shape", Ints{3})
                 .Input<float>({1, 1, 4}, {5.0f, 5.0f, 5.0f, 1.0f})
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Values<int64_t>(*out[1]), (Ints{0, 1}));
}

// The 8-bit types run the float types' box passes: a 2-D window over padding and negative values
// (the running maximum starting from the type's least value) equals the float result.
TEST(NnMaxPool, Int8BoxPassesMatchTheFloatResult) {
  std::vector<int8_t> x(2 * 5 * 7);
  std::vector<float> xf(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<int8_t>(-128 + static_cast<int>((i * 37) % 100));
    xf[i] = x[i];
  }
  auto run = [](NodeTest t) {
    return t.Attr("kernel_shape", Ints{3, 3})
        .Attr("pads", Ints{1, 1, 1, 1})
        .Attr("strides", Ints{2, 2})
        .Run(2);
  };
  auto q = run(std::move(NodeTest("MaxPool", 12).Input<int8_t>({1, 2, 5, 7}, x)));
  auto f = run(std::move(NodeTest("MaxPool", 12).Input<float>({1, 2, 5, 7}, xf)));
  ASSERT_EQ(q[0]->shape(), f[0]->shape());
  const auto qv = Values<int8_t>(*q[0]);
  const auto fv = Values<float>(*f[0]);
  for (size_t i = 0; i < qv.size(); ++i) EXPECT_EQ(static_cast<float>(qv[i]), fv[i]) << i;
}

TEST(NnMaxPool, Int8AndUint8FromOpset12) {
  auto i8 = NodeTest("MaxPool", 12)
                .Attr("kernel_shape", Ints{2})
                .Input<int8_t>({1, 1, 4}, {-128, -5, 7, 127})
                .Run();
  EXPECT_EQ(Values<int8_t>(*i8[0]), (std::vector<int8_t>{-5, 7, 127}));
  auto u8 = NodeTest("MaxPool", 22)
                .Attr("kernel_shape", Ints{2})
                .Attr("pads", Ints{1, 0})
                .Input<uint8_t>({1, 1, 3}, {0, 255, 3})
                .Run();
  EXPECT_EQ(Values<uint8_t>(*u8[0]), (std::vector<uint8_t>{0, 255, 255}));
  ExpectError(
      [] {
        NodeTest("MaxPool", 11)
            .Attr("kernel_shape", Ints{2})
            .Input<int8_t>({1, 1, 4}, {1, 2, 3, 4})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "int8", "opset 12"});
  ExpectError(
      [] {
        NodeTest("AveragePool", 19)
            .Attr("kernel_shape", Ints{2})
            .Input<int8_t>({1, 1, 4}, {1, 2, 3, 4})
            .Run();
      },
      ErrorCode::kNotImplemented, {"int8"});
}

TEST(NnMaxPool, Float16AndDouble) {
  const std::vector<Float16> h = nn_test::Cast<Float16>(Pattern(32));
  auto out = NodeTest("MaxPool", 1)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("strides", Ints{2, 2})
                 .Input<Float16>({1, 2, 4, 4}, h)
                 .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<Float16>(*out[0]));
  EXPECT_EQ(got, (std::vector<float>{0.375f, 0.875f, 1.0f, 0.625f, 0.375f, 0.75f, 1.0f, 0.625f}));
  const std::vector<float> xf = Pattern(32);
  auto d = NodeTest("MaxPool", 12)
               .Attr("kernel_shape", Ints{2, 2})
               .Attr("strides", Ints{2, 2})
               .Input<double>({1, 2, 4, 4}, nn_test::Cast<double>(xf))
               .Run();
  EXPECT_EQ(Values<double>(*d[0]),
            (std::vector<double>{0.375, 0.875, 1.0, 0.625, 0.375, 0.75, 1.0, 0.625}));
}

TEST(NnMaxPool, RejectsBadAttributesAndInputs) {
  auto pool = [](Ints kernel, Ints pads) {
    NodeTest t("MaxPool", 12);
    t.Attr("kernel_shape", std::move(kernel)).Input<float>({1, 1, 4, 4}, Pattern(16));
    if (!pads.empty()) t.Attr("pads", std::move(pads));
    return t;
  };
  ExpectError(
      [&] {
        NodeTest("MaxPool", 12).Input<float>({1, 1, 4}, Pattern(4)).Run();
      },
      ErrorCode::kInvalidGraph, {"'kernel_shape'", "required"});
  ExpectError(
      [&] {
        pool({2, 0}, {}).Run();
      },
      ErrorCode::kInvalidArgument, {"'kernel_shape'", "positive"});
  ExpectError([&] { pool({2}, {}).Run(); }, ErrorCode::kInvalidArgument,
              {"'kernel_shape'", "1 values", "2 spatial axes"});
  ExpectError(
      [&] {
        pool({2, 2}, {0, 0, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "begin and an end"});
  ExpectError(
      [&] {
        pool({2, 2}, {0, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"'pads'", "2 values but 4 are needed"});
  ExpectError(
      [&] {
        pool({5, 2}, {}).Run();
      },
      ErrorCode::kInvalidArgument, {"kernel extent 5", "'X'"});
  ExpectError(
      [&] {
        pool({1, 1}, {1, 0, 0, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"entirely in the padding", "'pads'"});
  ExpectError(
      [&] {
        pool({2, 2}, {}).Attr("strides", Ints{0, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'strides'", "positive"});
  ExpectError(
      [&] {
        pool({2, 2}, {}).Attr("dilations", Ints{1, -2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'dilations'", "positive"});
  ExpectError(
      [&] {
        pool({2, 2}, {}).Attr("storage_order", int64_t{2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'storage_order'"});
  ExpectError(
      [] {
        NodeTest("MaxPool", 7)
            .Attr("kernel_shape", Ints{2})
            .Input<float>({1, 1, 4}, Pattern(4))
            .Outputs(2)
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'Indices'", "opset 8"});
  ExpectError(
      [] {
        NodeTest("MaxPool", 12).Attr("kernel_shape", Ints{2}).Input<float>({4}, Pattern(4)).Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "rank 3"});
}

TEST(NnAveragePool, CountIncludePad) {
  auto run = [](int64_t opset, int64_t include) {
    NodeTest t("AveragePool", opset);
    t.Attr("kernel_shape", Ints{3, 3})
        .Attr("pads", Ints{1, 1, 1, 1})
        .Input<float>({1, 2, 3, 3}, Pattern(18));
    if (include >= 0) t.Attr("count_include_pad", include);
    return Values<float>(*t.Run()[0]);
  };
  const std::vector<float> excluded = {
      -0.3125f,    -0.2291667f,  0.03125f,    -0.0625f, -0.09722222f, 0.1041667f,
      0.1875f,     -0.08333333f, 0.0f,        0.125f,   0.2083333f,   -0.0625f,
      0.02083333f, -0.01388889f, -0.1666667f, 0.09375f, 0.0f,         -0.09375f};
  const std::vector<float> included = {
      -0.1388889f, -0.1527778f,  0.01388889f, -0.04166667f, -0.09722222f, 0.06944444f,
      0.08333333f, -0.05555556f, 0.0f,        0.05555556f,  0.1388889f,   -0.02777778f,
      0.01388889f, -0.01388889f, -0.1111111f, 0.04166667f,  0.0f,         -0.04166667f};
  ExpectNear(run(7, 0), excluded, 1e-6);
  ExpectNear(run(11, -1), excluded, 1e-6);
  ExpectNear(run(7, 1), included, 1e-6);
  ExpectNear(run(22, 1), included, 1e-6);
  // Opset 1 has no count_include_pad: padding is never counted.
  ExpectNear(run(1, 1), excluded, 1e-6);
}

TEST(NnAveragePool, CeilModeCountsPaddingButNotPastIt) {
  // [6 elements], kernel 3, stride 2, pads [1, 1]: the fourth window starts at 5 and covers the
  // last element, the end padding and one position past it.
  EXPECT_EQ(Pool1D("AveragePool", 10, Pattern(6), {3}, {2}, {1, 1}, 0).size(), 3u);
  NodeTest t("AveragePool", 19);
  t.Attr("kernel_shape", Ints{3})
      .Attr("strides", Ints{2})
      .Attr("pads", Ints{1, 1})
      .Attr("ceil_mode", int64_t{1})
      .Attr("count_include_pad", int64_t{1})
      .Input<float>({1, 1, 6}, Pattern(6));
  ExpectNear(Values<float>(*t.Run()[0]), {-0.375f, 0.04166667f, -0.3333333f, -0.4375f}, 1e-6);
  ExpectNear(Pool1D("AveragePool", 10, Pattern(6), {3}, {2}, {1, 1}, 1),
             {-0.5625f, 0.04166667f, -0.3333333f, -0.875f}, 1e-6);
}

TEST(NnAveragePool, DilationsFromOpset19) {
  auto run = [](int64_t include) {
    return Values<float>(*NodeTest("AveragePool", 19)
                              .Attr("kernel_shape", Ints{2, 2})
                              .Attr("strides", Ints{1, 2})
                              .Attr("pads", Ints{1, 0, 0, 1})
                              .Attr("dilations", Ints{2, 2})
                              .Attr("count_include_pad", include)
                              .Input<float>({1, 1, 5, 5}, Pattern(25))
                              .Run()[0]);
  };
  ExpectNear(run(1), {0.0f, 0.34375f, 0.0f, 0.6875f, -0.40625f, 0.28125f, -0.28125f, 0.40625f},
             1e-6);
  ExpectNear(run(0), {0.0f, 0.6875f, 0.0f, 0.6875f, -0.40625f, 0.28125f, -0.28125f, 0.40625f},
             1e-6);
}

TEST(NnAveragePool, ThreeDDoubleAndBFloat16) {
  const std::vector<float> want = {
      -0.3125f,  0.03125f,   -0.0625f,  0.15625f,  -0.03125f, -0.125f,   -0.109375f, -0.03125f,
      -0.125f,   0.09375f,   -0.09375f, -0.1875f,  0.03125f,  0.109375f, 0.28125f,   -0.03125f,
      -0.21875f, -0.3125f,   -0.15625f, 0.1875f,   0.625f,    0.3125f,   0.125f,     -0.5f,
      -0.21875f, 0.125f,     0.5625f,   0.25f,     0.0625f,   -0.5625f,  -0.078125f, 0.0f,
      0.4375f,   0.125f,     -0.0625f,  -0.6875f,  0.0f,      -0.1875f,  0.25f,      -0.0625f,
      0.28125f,  0.1875f,    -0.0625f,  -0.25f,    0.1875f,   -0.125f,   0.21875f,   0.125f,
      0.078125f, -0.109375f, 0.0625f,   -0.25f,    0.09375f,  0.0f,      0.15625f,   -0.03125f,
      -0.125f,   0.09375f,   -0.09375f, -0.1875f,  0.09375f,  -0.09375f, -0.1875f,   0.03125f,
      0.109375f, 0.28125f,   -0.03125f, -0.21875f, -0.3125f,  -0.09375f, 0.25f,      0.6875f};
  const std::vector<float> xf = Pattern(144);
  auto d = NodeTest("AveragePool", 11)
               .Attr("kernel_shape", Ints{2, 2, 2})
               .Attr("strides", Ints{1, 2, 1})
               .Attr("pads", Ints{1, 0, 0, 0, 1, 1})
               .Input<double>({2, 2, 3, 4, 3}, nn_test::Cast<double>(xf))
               .Run(2);
  EXPECT_EQ(d[0]->shape(), Shape({2, 2, 3, 2, 3}));
  ExpectNear(Values<double>(*d[0]), nn_test::Cast<double>(want), 1e-12);

  const std::vector<BFloat16> xb = nn_test::Cast<BFloat16>(xf);
  auto b = NodeTest("AveragePool", 22)
               .Attr("kernel_shape", Ints{2, 2, 2})
               .Attr("strides", Ints{1, 2, 1})
               .Attr("pads", Ints{1, 0, 0, 0, 1, 1})
               .Input<BFloat16>({2, 2, 3, 4, 3}, xb)
               .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<BFloat16>(*b[0]));
  ExpectNear(got, want, 1e-2);
  ExpectError(
      [&] {
        NodeTest("AveragePool", 19)
            .Attr("kernel_shape", Ints{2, 2, 2})
            .Input<BFloat16>({2, 2, 3, 4, 3}, xb)
            .Run();
      },
      ErrorCode::kInvalidArgument, {"bfloat16", "opset 22"});
}

TEST(NnAveragePool, AllPaddingWindowNeedsCountIncludePad) {
  NodeTest t("AveragePool", 11);
  t.Attr("kernel_shape", Ints{1}).Attr("pads", Ints{1, 0}).Input<float>({1, 1, 2}, {2.0f, 4.0f});
  ExpectError([&] { t.Run(); }, ErrorCode::kInvalidArgument, {"entirely in the padding"});
  auto out = NodeTest("AveragePool", 11)
                 .Attr("kernel_shape", Ints{1})
                 .Attr("pads", Ints{1, 0})
                 .Attr("count_include_pad", int64_t{1})
                 .Input<float>({1, 1, 2}, {2.0f, 4.0f})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0.0f, 2.0f, 4.0f}));
}

// A pooling geometry drawn at random for PoolsMatchTheWholeWindow.
struct RandomWindow {
  Ints in, kernel, strides, dilations, pads;  // pads: begins, then ends
  int64_t ceil_mode = 0;
};

// MaxPool (without Indices) and AveragePool reduce one axis at a time; here each output is
// reduced over its whole window at once, in double, and compared: rank 1-3, kernels 1-4, strides
// 1-3, dilations 1-2, pads, ceil_mode, NaNs, on one thread and two.
TEST(NnPool, PoolsMatchTheWholeWindow) {
  std::mt19937 rng(27);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  int checked = 0;
  int refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    RandomWindow w;
    const auto rank = static_cast<size_t>(pick(1, 3));
    w.pads.assign(2 * rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      w.in.push_back(pick(1, 9));
      w.kernel.push_back(pick(1, 4));
      w.strides.push_back(pick(1, 3));
      w.dilations.push_back(pick(1, 2));
      const int64_t extent = (w.kernel[d] - 1) * w.dilations[d] + 1;
      w.pads[d] = pick(0, extent - 1);
      w.pads[rank + d] = pick(0, extent - 1);
      if (w.in[d] + w.pads[d] + w.pads[rank + d] < extent) w.in[d] = extent;  // the kernel fits
    }
    w.ceil_mode = pick(0, 1);
    Ints x_dims = {2, 3};
    x_dims.insert(x_dims.end(), w.in.begin(), w.in.end());
    size_t x_size = 6;
    for (int64_t v : w.in) x_size *= static_cast<size_t>(v);
    std::vector<float> x(x_size);
    // Multiples of 1/8: every window sum is exact in float.
    for (float& v : x) v = pick(0, 9) == 0 ? nan : static_cast<float>(pick(-16, 16)) / 8.0f;

    const std::string op = trial % 2 == 0 ? "MaxPool" : "AveragePool";
    const int64_t include_pad = op == "AveragePool" ? pick(0, 1) : 0;
    auto run = [&](int threads) {
      NodeTest t(op, 19);
      t.Attr("kernel_shape", w.kernel)
          .Attr("strides", w.strides)
          .Attr("dilations", w.dilations)
          .Attr("pads", w.pads)
          .Attr("ceil_mode", w.ceil_mode)
          .Input<float>(x_dims, x);
      if (op == "AveragePool") t.Attr("count_include_pad", include_pad);
      return t.Run(threads);
    };
    // The output shape (floor, or ceil without a last window that starts in the end padding),
    // then every output position's window: taps inside the input (or, for the divisor with
    // count_include_pad, inside the padded input).
    Ints y_dims(rank);
    size_t plane_out = 1;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t span =
          w.in[d] + w.pads[d] + w.pads[rank + d] - (w.kernel[d] - 1) * w.dilations[d] - 1;
      y_dims[d] =
          (w.ceil_mode != 0 ? (span + w.strides[d] - 1) / w.strides[d] : span / w.strides[d]) + 1;
      if (w.ceil_mode != 0 && (y_dims[d] - 1) * w.strides[d] >= w.in[d] + w.pads[d]) --y_dims[d];
      plane_out *= static_cast<size_t>(y_dims[d]);
    }
    const size_t plane_in = x_size / 6;
    std::vector<float> want(6 * plane_out);
    bool empty = false;
    for (size_t plane = 0; plane < 6; ++plane) {
      for (size_t i = 0; i < plane_out; ++i) {
        Ints pos(rank);
        size_t rest = i;
        for (size_t d = rank; d-- > 0;) {
          pos[d] = static_cast<int64_t>(rest % static_cast<size_t>(y_dims[d]));
          rest /= static_cast<size_t>(y_dims[d]);
        }
        double best = std::nan("");
        double sum = 0;
        double inside = 0;
        double padded = 0;
        Ints tap(rank, 0);
        for (bool more = true; more;) {
          bool in_image = true;
          bool in_padding = true;
          size_t at = 0;
          for (size_t d = 0; d < rank; ++d) {
            const int64_t c = pos[d] * w.strides[d] - w.pads[d] + tap[d] * w.dilations[d];
            in_image = in_image && c >= 0 && c < w.in[d];
            in_padding = in_padding && c >= -w.pads[d] && c < w.in[d] + w.pads[rank + d];
            at = at * static_cast<size_t>(w.in[d]) + static_cast<size_t>(std::max<int64_t>(c, 0));
          }
          if (in_image) {
            const double v = x[plane * plane_in + at];
            if (!std::isnan(v) && (std::isnan(best) || v > best)) best = v;
            sum += v;
            inside += 1;
          }
          if (in_padding) padded += 1;
          more = false;
          for (size_t d = rank; d-- > 0;) {
            if (++tap[d] < w.kernel[d]) {
              more = true;
              break;
            }
            tap[d] = 0;
          }
        }
        empty = empty || inside == 0;
        want[plane * plane_out + i] =
            static_cast<float>(op == "MaxPool" ? best : sum / (include_pad != 0 ? padded : inside));
      }
    }
    if (empty && !(op == "AveragePool" && include_pad != 0)) {
      ExpectError([&] { run(1); }, ErrorCode::kInvalidArgument, {"entirely in the padding"});
      ++refused;
      continue;
    }
    for (int threads : {1, 2}) {
      const std::shared_ptr<Tensor> y = run(threads)[0];
      Ints want_dims = {2, 3};
      want_dims.insert(want_dims.end(), y_dims.begin(), y_dims.end());
      ASSERT_EQ(y->shape(), Shape(want_dims)) << op << " trial " << trial;
      const std::vector<float> got = Values<float>(*y);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
          EXPECT_TRUE(std::isnan(got[i])) << op << " trial " << trial << " element " << i;
        } else {
          EXPECT_NEAR(got[i], want[i], 1e-6 * std::max(1.0f, std::abs(want[i])))
              << op << " trial " << trial << " element " << i;
        }
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 200);  // most geometries have no window wholly in the padding
  EXPECT_GT(refused, 0);    // and some have
}

std::vector<float> LpPool2D(int64_t opset, int64_t p) {
  return Values<float>(*NodeTest("LpPool", opset)
                            .Attr("kernel_shape", Ints{2, 2})
                            .Attr("pads", Ints{1, 0, 0, 1})
                            .Attr("p", p)
                            .Input<float>({1, 2, 3, 3}, Pattern(18))
                            .Run()[0]);
}

TEST(NnLpPool, IntegerP) {
  ExpectNear(LpPool2D(11, 2),
             {1.007782f, 0.7603453f, 0.75f, 1.185854f, 1.218349f, 1.152443f, 1.075291f, 1.346291f,
              0.9519716f, 0.9013878f, 0.7603453f, 0.125f, 1.369306f, 1.015505f, 0.6373774f,
              1.231107f, 1.231107f, 1.179248f},
             1e-5);
  ExpectNear(LpPool2D(2, 3),
             {1.000651f, 0.7511556f, 0.75f, 1.056629f, 1.046621f, 1.029708f, 0.9463968f, 1.13063f,
              0.8973818f, 0.8177666f, 0.7511556f, 0.125f, 1.160397f, 0.8809123f, 0.6266622f,
              1.084462f, 1.084462f, 1.075532f},
             1e-5);
  ExpectNear(LpPool2D(22, 1),
             {1.125f, 0.875f, 0.75f, 2.0f, 2.125f, 1.625f, 1.75f, 2.5f, 1.25f, 1.25f, 0.875f,
              0.125f, 2.5f, 1.75f, 0.75f, 2.125f, 2.125f, 1.625f},
             1e-5);
}

TEST(NnLpPool, FloatPAtOpset1) {
  auto out = NodeTest("LpPool", 1)
                 .Attr("kernel_shape", Ints{2, 2})
                 .Attr("strides", Ints{2, 2})
                 .Attr("p", 2.5f)
                 .Input<float>({1, 2, 3, 3}, Pattern(18))
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({1, 2, 1, 1}));
  ExpectNear(Values<float>(*out[0]), {1.099777f, 1.235051f}, 1e-5);
}

TEST(NnLpPool, CeilModeAndDilationsFromOpset18) {
  NodeTest t("LpPool", 18);
  t.Attr("kernel_shape", Ints{2})
      .Attr("strides", Ints{2})
      .Attr("pads", Ints{0, 1})
      .Attr("dilations", Ints{2})
      .Attr("ceil_mode", int64_t{1})
      .Input<float>({1, 1, 7}, Pattern(7));
  ExpectNear(Values<float>(*t.Run()[0]), {1.25f, 0.8385255f, 0.375f, 0.0f}, 1e-6);
}

TEST(NnLpPool, RejectsNonPositiveP) {
  ExpectError(
      [] {
        NodeTest("LpPool", 11)
            .Attr("kernel_shape", Ints{2})
            .Attr("p", int64_t{0})
            .Input<float>({1, 1, 4}, Pattern(4))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'p'", "positive"});
  ExpectError(
      [] {
        NodeTest("LpPool", 11)
            .Attr("kernel_shape", Ints{2})
            .Attr("p", 2.0f)
            .Input<float>({1, 1, 4}, Pattern(4))
            .Run();
      },
      ErrorCode::kInvalidGraph, {"'p'"});
}

}  // namespace
}  // namespace kiln::testing
