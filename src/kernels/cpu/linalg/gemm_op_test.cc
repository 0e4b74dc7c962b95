// The Gemm operator: transposes, alpha and beta, the broadcasting of C per opset (the opset 1–6
// broadcast attribute, opset 7+ unidirectional broadcasting, opset 11+ optional C), element types
// and the shape, type and attribute errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::testing {
namespace {

// 2×3
std::vector<float> A() {
  return {1, 2, 3, 4, 5, 6};
}
// A transposed, 3×2
std::vector<float> At() {
  return {1, 4, 2, 5, 3, 6};
}
// 3×2
std::vector<float> B() {
  return {1, -1, 2, 0, 0, 3};
}
// B transposed, 2×3
std::vector<float> Bt() {
  return {1, 2, 0, -1, 0, 3};
}
// A·B = [[5, 8], [14, 14]]

TEST(LinalgGemm, AddsCByDefault) {
  auto out = NodeTest("Gemm", 13)
                 .Input<float>({2, 3}, A())
                 .Input<float>({3, 2}, B())
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{6, 10, 17, 18}));
}

TEST(LinalgGemm, TransposesAndScales) {
  auto out = NodeTest("Gemm", 11)
                 .Attr("transA", int64_t{1})
                 .Attr("transB", int64_t{1})
                 .Attr("alpha", 0.5f)
                 .Attr("beta", 2.0f)
                 .Input<float>({3, 2}, At())
                 .Input<float>({2, 3}, Bt())
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{4.5f, 8, 13, 15}));
}

TEST(LinalgGemm, BroadcastsCFromOpset7) {
  auto row = NodeTest("Gemm", 7)
                 .Input<float>({2, 3}, A())
                 .Input<float>({3, 2}, B())
                 .Input<float>({2}, {10, 20})
                 .Run();
  EXPECT_EQ(Values<float>(*row[0]), (std::vector<float>{15, 28, 24, 34}));
  auto column = NodeTest("Gemm", 9)
                    .Input<float>({2, 3}, A())
                    .Input<float>({3, 2}, B())
                    .Input<float>({2, 1}, {10, 20})
                    .Run();
  EXPECT_EQ(Values<float>(*column[0]), (std::vector<float>{15, 18, 34, 34}));
  auto scalar = NodeTest("Gemm", 13)
                    .Input<float>({2, 3}, A())
                    .Input<float>({3, 2}, B())
                    .Input<float>({}, {5})
                    .Run();
  EXPECT_EQ(Values<float>(*scalar[0]), (std::vector<float>{10, 13, 19, 19}));
}

TEST(LinalgGemm, CIsOptionalFromOpset11) {
  auto out = NodeTest("Gemm", 11).Input<float>({2, 3}, A()).Input<float>({3, 2}, B()).Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{5, 8, 14, 14}));
  auto missing =
      NodeTest("Gemm", 13).Input<float>({2, 3}, A()).Input<float>({3, 2}, B()).MissingInput().Run();
  EXPECT_EQ(Values<float>(*missing[0]), (std::vector<float>{5, 8, 14, 14}));
  ExpectError(NodeTest("Gemm", 10).Input<float>({2, 3}, A()).Input<float>({3, 2}, B()),
              ErrorCode::kInvalidArgument, "Gemm", "input 'C' is required before opset 11");
}

TEST(LinalgGemm, BroadcastAttributeBeforeOpset7) {
  auto exact = NodeTest("Gemm", 6)
                   .Input<float>({2, 3}, A())
                   .Input<float>({3, 2}, B())
                   .Input<float>({2, 2}, {1, 2, 3, 4})
                   .Run();
  EXPECT_EQ(Values<float>(*exact[0]), (std::vector<float>{6, 10, 17, 18}));
  auto broadcast = NodeTest("Gemm", 1)
                       .Attr("broadcast", int64_t{1})
                       .Input<float>({2, 3}, A())
                       .Input<float>({3, 2}, B())
                       .Input<float>({2}, {10, 20})
                       .Run();
  EXPECT_EQ(Values<float>(*broadcast[0]), (std::vector<float>{15, 28, 24, 34}));
  ExpectError(NodeTest("Gemm", 6)
                  .Input<float>({2, 3}, A())
                  .Input<float>({3, 2}, B())
                  .Input<float>({2}, {10, 20}),
              ErrorCode::kInvalidArgument, "Gemm",
              "input 'C' has shape [2] but must be [2,2] when broadcast is 0");
}

TEST(LinalgGemm, BetaZeroIgnoresC) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = NodeTest("Gemm", 13)
                 .Attr("beta", 0.0f)
                 .Input<float>({2, 3}, A())
                 .Input<float>({3, 2}, B())
                 .Input<float>({2, 2}, {nan, nan, nan, nan})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{5, 8, 14, 14}));
}

TEST(LinalgGemm, ZeroDepthLeavesBetaTimesC) {
  auto out = NodeTest("Gemm", 13)
                 .Attr("beta", 3.0f)
                 .Input<float>({2, 0}, {})
                 .Input<float>({0, 2}, {})
                 .Input<float>({2}, {1, 2})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{3, 6, 3, 6}));
}

TEST(LinalgGemm, DoubleHalfAndIntegerTypes) {
  auto d = NodeTest("Gemm", 13)
               .Attr("transB", int64_t{1})
               .Input<double>({1, 2}, {0.5, 0.25})
               .Input<double>({2, 2}, {2, 4, 8, 16})
               .Input<double>({1}, {1})
               .Run();
  EXPECT_EQ(Values<double>(*d[0]), (std::vector<double>{3, 9}));

  std::vector<Float16> a = {Float16::FromFloat(1), Float16::FromFloat(2)};
  std::vector<Float16> b = {Float16::FromFloat(3), Float16::FromFloat(4)};
  auto h = NodeTest("Gemm", 13)
               .Attr("alpha", 0.5f)
               .Input<Float16>({1, 2}, a)
               .Input<Float16>({2, 1}, b)
               .Input<Float16>({1, 1}, {Float16::FromFloat(0.25f)})
               .Run();
  EXPECT_EQ(Values<Float16>(*h[0])[0].ToFloat(), 5.75f);

  auto i = NodeTest("Gemm", 9)
               .Attr("alpha", 2.0f)
               .Attr("beta", -1.0f)
               .Input<int32_t>({1, 2}, {3, 4})
               .Input<int32_t>({2, 2}, {1, 2, 3, 4})
               .Input<int32_t>({2}, {100, std::numeric_limits<int32_t>::min()})
               .Run();
  // 2·[15, 22] − [100, −2^31]: the second wraps to 44 − 2^31.
  EXPECT_EQ(Values<int32_t>(*i[0]), (std::vector<int32_t>{-70, -2147483604}));

  auto u = NodeTest("Gemm", 13)
               .Input<uint64_t>({1, 1}, {7})
               .Input<uint64_t>({1, 1}, {6})
               .Input<uint64_t>({1, 1}, {1})
               .Run();
  EXPECT_EQ(Values<uint64_t>(*u[0]), (std::vector<uint64_t>{43}));
  ExpectError(NodeTest("Gemm", 13)
                  .Attr("alpha", 0.5f)
                  .Input<int64_t>({1, 1}, {1})
                  .Input<int64_t>({1, 1}, {1}),
              ErrorCode::kNotImplemented, "Gemm", "attribute 'alpha' is 0.5");
}

TEST(LinalgGemm, RejectsBadShapesAndTypes) {
  ExpectError(NodeTest("Gemm", 13).Input<float>({6}, A()).Input<float>({3, 2}, B()),
              ErrorCode::kInvalidArgument, "Gemm", "both must be 2-D");
  ExpectError(NodeTest("Gemm", 13)
                  .Attr("transA", int64_t{1})
                  .Input<float>({2, 3}, A())
                  .Input<float>({3, 2}, B()),
              ErrorCode::kInvalidArgument, "Gemm", "the inner dimensions 2 and 3 differ");
  ExpectError(NodeTest("Gemm", 13)
                  .Input<float>({2, 3}, A())
                  .Input<float>({3, 2}, B())
                  .Input<float>({3}, {1, 2, 3}),
              ErrorCode::kInvalidArgument, "Gemm",
              "input 'C' has shape [3], which does not broadcast to [2,2]");
  ExpectError(
      NodeTest("Gemm", 13).Input<float>({2, 3}, A()).Input<double>({3, 2}, {1, -1, 2, 0, 0, 3}),
      ErrorCode::kInvalidArgument, "Gemm", "input 'B' is double but input 'A' is float");
  ExpectError(NodeTest("Gemm", 13)
                  .Input<float>({2, 3}, A())
                  .Input<float>({3, 2}, B())
                  .Input<int32_t>({1}, {1}),
              ErrorCode::kInvalidArgument, "Gemm", "input 'C' is int32 but input 'A' is float");
  ExpectError(NodeTest("Gemm", 13).Input<int8_t>({1, 1}, {1}).Input<int8_t>({1, 1}, {1}),
              ErrorCode::kNotImplemented, "Gemm", "int8");
}

}  // namespace
}  // namespace kiln::testing
