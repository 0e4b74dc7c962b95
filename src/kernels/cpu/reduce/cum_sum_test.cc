#include <gtest/gtest.h>

#include <limits>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

// [2,3]
std::vector<float> X() {
  return {1, 2, 3, 4, 5, 6};
}

std::vector<float> CumSum14(int64_t axis, int64_t exclusive, int64_t reverse) {
  auto out = NodeTest("CumSum", 14)
                 .Attr("exclusive", exclusive)
                 .Attr("reverse", reverse)
                 .Input<float>({2, 3}, X())
                 .Input<int64_t>({}, {axis})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  return Values<float>(*out[0]);
}

TEST(ReduceCumSum, AxesAndModesMatchNumpy) {
  EXPECT_EQ(CumSum14(0, 0, 0), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(CumSum14(1, 0, 0), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(CumSum14(-1, 1, 0), (std::vector<float>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(CumSum14(1, 0, 1), (std::vector<float>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(CumSum14(1, 1, 1), (std::vector<float>{5, 3, 0, 11, 6, 0}));
}

TEST(ReduceCumSum, Opset11IntegerAxisTensorAndWrap) {
  auto out = NodeTest("CumSum", 11)
                 .Input<int32_t>({3}, {std::numeric_limits<int32_t>::max(), 1, 1})
                 .Input<int32_t>({1}, {0})
                 .Run(2);
  EXPECT_EQ(Values<int32_t>(*out[0]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(),
                                  std::numeric_limits<int32_t>::min() + 1}));
}

TEST(ReduceCumSum, Float16FromOpset14) {
  std::vector<Float16> h;
  for (float v : {2048.0f, 1.0f, 1.0f}) h.push_back(Float16::FromFloat(v));
  auto out = NodeTest("CumSum", 14).Input<Float16>({3}, h).Input<int64_t>({}, {0}).Run();
  auto v = Values<Float16>(*out[0]);
  EXPECT_EQ(v[2].ToFloat(), 2050.0f);
  ExpectNodeError(NodeTest("CumSum", 11).Input<Float16>({3}, h).Input<int64_t>({}, {0}),
                  ErrorCode::kNotImplemented, "element type float16");
}

TEST(ReduceCumSum, EmptyInput) {
  auto out = NodeTest("CumSum", 14).Input<double>({0, 4}, {}).Input<int64_t>({}, {1}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({0, 4}));
}

TEST(ReduceCumSumErrors, BadAxis) {
  ExpectNodeError(NodeTest("CumSum", 14).Input<float>({2, 3}, X()).Input<int64_t>({}, {2}),
                  ErrorCode::kInvalidArgument, "axis 2 is out of range for rank 2");
  ExpectNodeError(NodeTest("CumSum", 14).Input<float>({2, 3}, X()).Input<int64_t>({2}, {0, 1}),
                  ErrorCode::kInvalidArgument, "input 'axis' must hold one value");
  ExpectNodeError(NodeTest("CumSum", 14).Input<float>({2, 3}, X()).Input<float>({}, {0}),
                  ErrorCode::kInvalidArgument, "input 'axis' must be int64 or int32");
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

TEST(ReduceCumProd, ModesAxesAndIntegers) {
  const auto run = [](int64_t axis, int64_t exclusive, int64_t reverse) {
    auto out = NodeTest("CumProd", 26)
                   .Attr("exclusive", exclusive)
                   .Attr("reverse", reverse)
                   .Input<float>({2, 3}, X())
                   .Input<int64_t>({}, {axis})
                   .Run(2);
    return Values<float>(*out[0]);
  };
  EXPECT_EQ(run(1, 0, 0), (std::vector<float>{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(run(0, 0, 0), (std::vector<float>{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(run(-1, 1, 0), (std::vector<float>{1, 1, 2, 1, 4, 20}));
  EXPECT_EQ(run(1, 1, 1), (std::vector<float>{6, 3, 1, 30, 6, 1}));
  // int32 products wrap.
  auto i =
      NodeTest("CumProd", 26).Input<int32_t>({3}, {65536, 65536, 3}).Input<int32_t>({1}, {0}).Run();
  EXPECT_EQ(Values<int32_t>(*i[0]), (std::vector<int32_t>{65536, 0, 0}));
  auto h = NodeTest("CumProd", 26)
               .Input<Float16>({2}, {Float16::FromFloat(1.5f), Float16::FromFloat(2.0f)})
               .Input<int64_t>({}, {0})
               .Run();
  EXPECT_EQ(Values<Float16>(*h[0])[1].ToFloat(), 3.0f);
}

TEST(ReduceCumProdErrors, BadAxis) {
  ExpectNodeError(NodeTest("CumProd", 26).Input<float>({2, 3}, X()).Input<int64_t>({}, {2}),
                  ErrorCode::kInvalidArgument, "axis");
  ExpectNodeError(NodeTest("CumProd", 26).Input<float>({2, 3}, X()).Input<float>({}, {0}),
                  ErrorCode::kInvalidArgument, "'axis'");
}

}  // namespace
}  // namespace kiln::testing
