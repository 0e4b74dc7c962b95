#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

TEST(ElementwiseAdd, BroadcastsNumpyStyle) {
  auto out = NodeTest("Add", 14)
                 .Input<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<float>({2, 1}, {10, 20})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 2, 3}));
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26}));
}

TEST(ElementwiseAdd, SameShapeScalarAndEmpty) {
  auto same = NodeTest("Add", 7).Input<double>({3}, {1, 2, 3}).Input<double>({3}, {4, 5, 6}).Run();
  EXPECT_EQ(Values<double>(*same[0]), (std::vector<double>{5, 7, 9}));
  auto scalar = NodeTest("Add", 13).Input<int64_t>({}, {5}).Input<int64_t>({2}, {1, 2}).Run();
  EXPECT_EQ(Values<int64_t>(*scalar[0]), (std::vector<int64_t>{6, 7}));
  auto empty = NodeTest("Add", 13).Input<float>({0, 3}, {}).Input<float>({3}, {1, 2, 3}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 3}));
}

TEST(ElementwiseAdd, IntegersWrapLikeNumpy) {
  auto i32 = NodeTest("Add", 14)
                 .Input<int32_t>({2}, {std::numeric_limits<int32_t>::max(), -5})
                 .Input<int32_t>({2}, {1, 3})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*i32[0]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -2}));
  auto u8 = NodeTest("Add", 14).Input<uint8_t>({1}, {250}).Input<uint8_t>({1}, {10}).Run();
  EXPECT_EQ(Values<uint8_t>(*u8[0]), (std::vector<uint8_t>{4}));
}

TEST(ElementwiseAdd, HalfTypesComputeInFloat) {
  auto h = NodeTest("Add", 14)
               .Input<Float16>({2}, Halves<Float16>({1.5f, -2.0f}))
               .Input<Float16>({2}, Halves<Float16>({0.25f, 0.5f}))
               .Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{1.75f, -1.5f}));
  auto b = NodeTest("Add", 14)
               .Input<BFloat16>({1}, Halves<BFloat16>({3.0f}))
               .Input<BFloat16>({1}, Halves<BFloat16>({0.5f}))
               .Run();
  EXPECT_EQ(Floats<BFloat16>(*b[0]), (std::vector<float>{3.5f}));
}

TEST(ElementwiseAdd, ManyThreadsMatchOneThread) {
  std::vector<float> a(size_t{300} * 200), b(200);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 97);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) * 0.5f;
  auto out = NodeTest("Add", 14).Input<float>({300, 200}, a).Input<float>({200}, b).Run(4);
  const std::vector<float> y = Values<float>(*out[0]);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], a[i] + b[i % 200]) << i;
}

TEST(ElementwiseAdd, LegacyBroadcastWithAxis) {
  auto out = NodeTest("Add", 6)
                 .Attr("broadcast", int64_t{1})
                 .Attr("axis", int64_t{0})
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<float>({2}, {10, 20})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{11, 12, 13, 24, 25, 26}));
}

TEST(ElementwiseAdd, LegacySuffixAndConsumedInputs) {
  auto out = NodeTest("Add", 1)
                 .Attr("broadcast", int64_t{1})
                 .Attr("consumed_inputs", std::vector<int64_t>{0, 0})
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<float>({2}, {10, 20})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{11, 22, 13, 24}));
}

TEST(ElementwiseAdd, LegacyWithoutBroadcastNeedsEqualShapes) {
  ExpectError(
      [] {
        NodeTest("Add", 6).Input<float>({2, 2}, {1, 2, 3, 4}).Input<float>({2}, {1, 2}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Add)", "'B'", "'broadcast'"});
}

TEST(ElementwiseAdd, LegacyDoesNotBroadcastBothWays) {
  // [2,1] and [1,2] broadcast under numpy (opset 7) but not under the legacy rule.
  auto numpy = NodeTest("Add", 7).Input<float>({2, 1}, {1, 2}).Input<float>({1, 2}, {10, 20}).Run();
  EXPECT_EQ(numpy[0]->shape(), Shape({2, 2}));
  ExpectError(
      [] {
        NodeTest("Add", 6)
            .Attr("broadcast", int64_t{1})
            .Input<float>({2, 1}, {1, 2})
            .Input<float>({1, 2}, {10, 20})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'B'", "[1,2]"});
}

TEST(ElementwiseAdd, ShapeAndTypeErrors) {
  ExpectError(
      [] {
        NodeTest("Add", 14)
            .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
            .Input<float>({2}, {1, 2})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Add)", "'B'", "[2]", "[2,3]"});
  ExpectError([] { NodeTest("Add", 14).Input<float>({1}, {1}).Input<double>({1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"'B'", "double", "float"});
  ExpectError([] { NodeTest("Add", 14).Input<bool>({1}, {true}).Input<bool>({1}, {true}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (Add)", "bool"});
}

TEST(ElementwiseSub, FloatAndWrappingInt) {
  auto f = NodeTest("Sub", 14).Input<float>({2}, {1, 5}).Input<float>({}, {2}).Run();
  EXPECT_EQ(Values<float>(*f[0]), (std::vector<float>{-1, 3}));
  auto i = NodeTest("Sub", 14)
               .Input<int64_t>({1}, {std::numeric_limits<int64_t>::min()})
               .Input<int64_t>({1}, {1})
               .Run();
  EXPECT_EQ(Values<int64_t>(*i[0]), (std::vector<int64_t>{std::numeric_limits<int64_t>::max()}));
}

TEST(ElementwiseMul, FloatAndUint16WithoutOverflow) {
  auto f = NodeTest("Mul", 14).Input<float>({2}, {1.5f, -2}).Input<float>({2}, {2, 4}).Run();
  EXPECT_EQ(Values<float>(*f[0]), (std::vector<float>{3, -8}));
  // 65535 * 65535 overflows int, the type uint16 promotes to; the result wraps to 1.
  auto u = NodeTest("Mul", 14).Input<uint16_t>({1}, {65535}).Input<uint16_t>({1}, {65535}).Run();
  EXPECT_EQ(Values<uint16_t>(*u[0]), (std::vector<uint16_t>{1}));
}

TEST(ElementwiseDiv, IntegersTruncateTowardZero) {
  auto out = NodeTest("Div", 14)
                 .Input<int32_t>({5}, {7, -7, 7, -7, std::numeric_limits<int32_t>::min()})
                 .Input<int32_t>({5}, {2, 2, -2, -2, -1})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*out[0]),
            (std::vector<int32_t>{3, -3, -3, 3, std::numeric_limits<int32_t>::min()}));
}

TEST(ElementwiseDiv, FloatByZeroIsInfinite) {
  auto out = NodeTest("Div", 14).Input<float>({3}, {1, -1, 0}).Input<float>({}, {0}).Run();
  const std::vector<float> y = Values<float>(*out[0]);
  EXPECT_EQ(y[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[2]));
}

TEST(ElementwiseDiv, IntegerByZeroIsAnError) {
  ExpectError(
      [] {
        NodeTest("Div", 14).Input<int64_t>({2}, {1, 2}).Input<int64_t>({2}, {1, 0}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Div)", "'B'", "division by zero"});
  // No element is divided when the output is empty.
  auto empty = NodeTest("Div", 14).Input<int32_t>({0}, {}).Input<int32_t>({1}, {0}).Run();
  EXPECT_EQ(empty[0]->element_count(), 0u);
}

TEST(ElementwiseMod, IntegerFollowsPythonSignRule) {
  auto out = NodeTest("Mod", 13)
                 .Input<int32_t>({4}, {-7, 7, -7, 7})
                 .Input<int32_t>({4}, {3, -3, -3, 3})
                 .Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{2, -2, -1, 1}));
  auto min = NodeTest("Mod", 13)
                 .Input<int8_t>({1}, {std::numeric_limits<int8_t>::min()})
                 .Input<int8_t>({1}, {-1})
                 .Run();
  EXPECT_EQ(Values<int8_t>(*min[0]), (std::vector<int8_t>{0}));
}

TEST(ElementwiseMod, FmodFollowsTheDividend) {
  auto ints = NodeTest("Mod", 10)
                  .Attr("fmod", int64_t{1})
                  .Input<int32_t>({4}, {-7, 7, -7, 7})
                  .Input<int32_t>({4}, {3, -3, -3, 3})
                  .Run();
  EXPECT_EQ(Values<int32_t>(*ints[0]), (std::vector<int32_t>{-1, 1, -1, 1}));
  auto floats = NodeTest("Mod", 13)
                    .Attr("fmod", int64_t{1})
                    .Input<float>({2}, {-7.5f, 7.5f})
                    .Input<float>({}, {2})
                    .Run();
  EXPECT_EQ(Values<float>(*floats[0]), (std::vector<float>{-1.5f, 1.5f}));
}

TEST(ElementwiseMod, Errors) {
  ExpectError([] { NodeTest("Mod", 13).Input<float>({1}, {1}).Input<float>({1}, {2}).Run(); },
              ErrorCode::kInvalidGraph, {"node 'test_node' (Mod)", "'fmod'", "float"});
  ExpectError(
      [] {
        NodeTest("Mod", 13).Input<uint8_t>({2}, {1, 2}).Input<uint8_t>({2}, {0, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Mod)", "'B'", "division by zero"});
}

TEST(ElementwisePow, FloatSameType) {
  auto out =
      NodeTest("Pow", 13).Input<float>({2}, {2.5f, 2}).Input<float>({2}, {1.5f, -0.5f}).Run();
  ExpectAllNear(Values<float>(*out[0]), {3.9528470039367676, 0.7071067690849304});
}

TEST(ElementwisePow, IntegersAreExactAndTruncateNegativePowers) {
  auto out = NodeTest("Pow", 13)
                 .Input<int64_t>({6}, {3, -2, 2, -1, 1, 5})
                 .Input<int64_t>({6}, {39, 3, -1, -3, -4, 0})
                 .Run();
  // 3^39 needs 62 bits: exact, where a double would round it.
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{4052555153018976267, -8, 0, -1, 1, 1}));
  ExpectError([] { NodeTest("Pow", 13).Input<int32_t>({1}, {0}).Input<int32_t>({1}, {-1}).Run(); },
              ErrorCode::kInvalidArgument, {"node 'test_node' (Pow)", "'X'", "negative"});
}

TEST(ElementwisePow, MixedTypesFromOpset12) {
  auto f = NodeTest("Pow", 15).Input<float>({2}, {2, 9}).Input<int64_t>({2}, {3, -1}).Run();
  ExpectAllNear(Values<float>(*f[0]), {8, 1.0 / 9});
  auto i =
      NodeTest("Pow", 12).Input<int32_t>({3}, {4, 2, 10}).Input<float>({3}, {0.5f, 2.5f, 20}).Run();
  // 2^2.5 = 5.66 truncates to 5; 10^20 saturates.
  EXPECT_EQ(Values<int32_t>(*i[0]),
            (std::vector<int32_t>{2, 5, std::numeric_limits<int32_t>::max()}));
  auto h =
      NodeTest("Pow", 13).Input<Float16>({1}, Halves<Float16>({3})).Input<int32_t>({1}, {2}).Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{9}));
  ExpectError([] { NodeTest("Pow", 7).Input<float>({1}, {2}).Input<int64_t>({1}, {3}).Run(); },
              ErrorCode::kInvalidArgument, {"node 'test_node' (Pow)", "'Y'", "int64"});
}

TEST(ElementwisePow, LegacyBroadcast) {
  auto out = NodeTest("Pow", 1)
                 .Attr("broadcast", int64_t{1})
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<float>({2}, {2, 1})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{1, 2, 9, 4}));
  ExpectError(
      [] {
        NodeTest("Pow", 6).Input<float>({2}, {1, 2}).Input<float>({1}, {2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'Y'", "'X'", "'broadcast'"});
}

}  // namespace
}  // namespace kiln::testing
