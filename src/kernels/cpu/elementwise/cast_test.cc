#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

int64_t To(DataType t) {
  return static_cast<int64_t>(t);
}

TEST(ElementwiseCast, FloatToIntegerTruncatesAndSaturates) {
  auto out = NodeTest("Cast", 13)
                 .Attr("to", To(DataType::kInt32))
                 .Input<float>({6}, {2.9f, -2.9f, 3e10f, -3e10f, kNaN, kInf})
                 .Run();
  EXPECT_EQ(out[0]->type(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(*out[0]),
            (std::vector<int32_t>{2, -2, std::numeric_limits<int32_t>::max(),
                                  std::numeric_limits<int32_t>::min(), 0,
                                  std::numeric_limits<int32_t>::max()}));
  auto u8 = NodeTest("Cast", 13)
                .Attr("to", To(DataType::kUint8))
                .Input<double>({3}, {-1.5, 255.9, 256})
                .Run();
  EXPECT_EQ(Values<uint8_t>(*u8[0]), (std::vector<uint8_t>{0, 255, 255}));
}

TEST(ElementwiseCast, IntegerToIntegerKeepsLowBits) {
  auto out = NodeTest("Cast", 13)
                 .Attr("to", To(DataType::kInt8))
                 .Input<int32_t>({3}, {300, -129, 200})
                 .Run();
  EXPECT_EQ(Values<int8_t>(*out[0]), (std::vector<int8_t>{44, 127, -56}));
  auto widen =
      NodeTest("Cast", 13).Attr("to", To(DataType::kUint64)).Input<int8_t>({1}, {-1}).Run();
  EXPECT_EQ(Values<uint64_t>(*widen[0]), (std::vector<uint64_t>{18446744073709551615u}));
}

TEST(ElementwiseCast, BoolBothWays) {
  auto to_bool = NodeTest("Cast", 13)
                     .Attr("to", To(DataType::kBool))
                     .Input<float>({4}, {0, -0.0f, 0.1f, kNaN})
                     .Run();
  EXPECT_EQ(Values<bool>(*to_bool[0]), (std::vector<bool>{false, false, true, true}));
  auto from_bool =
      NodeTest("Cast", 13).Attr("to", To(DataType::kDouble)).Input<bool>({2}, {true, false}).Run();
  EXPECT_EQ(Values<double>(*from_bool[0]), (std::vector<double>{1, 0}));
}

TEST(ElementwiseCast, HalfTypes) {
  auto to_half = NodeTest("Cast", 13)
                     .Attr("to", To(DataType::kFloat16))
                     .Input<int64_t>({2}, {3, -70000})
                     .Run();
  EXPECT_EQ(Floats<Float16>(*to_half[0]), (std::vector<float>{3, -kInf}));
  auto half_to_bf = NodeTest("Cast", 13)
                        .Attr("to", To(DataType::kBfloat16))
                        .Input<Float16>({1}, Halves<Float16>({1.5f}))
                        .Run();
  EXPECT_EQ(Floats<BFloat16>(*half_to_bf[0]), (std::vector<float>{1.5f}));
  auto bf_to_int = NodeTest("Cast", 13)
                       .Attr("to", To(DataType::kInt16))
                       .Input<BFloat16>({1}, Halves<BFloat16>({-7.5f}))
                       .Run();
  EXPECT_EQ(Values<int16_t>(*bf_to_int[0]), (std::vector<int16_t>{-7}));
}

TEST(ElementwiseCast, StringToNumbers) {
  auto f =
      NodeTest("Cast", 9)
          .Attr("to", To(DataType::kFloat))
          .Input<std::string>({8}, {"3.14", "1e-5", "1E8", "+INF", "inf", "-Inf", "NaN", " 2.5 "})
          .Run();
  const double inf = std::numeric_limits<double>::infinity();
  ExpectAllNear(Values<float>(*f[0]),
                {3.14, 1e-5, 1e8, inf, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 2.5});
  auto big = NodeTest("Cast", 13)
                 .Attr("to", To(DataType::kFloat))
                 .Input<std::string>({2}, {"1e50", "-1e-50"})
                 .Run();
  const std::vector<float> b = Values<float>(*big[0]);
  EXPECT_EQ(b[0], kInf);
  EXPECT_EQ(b[1], 0.0f);
  EXPECT_TRUE(std::signbit(b[1]));
  auto i = NodeTest("Cast", 13)
               .Attr("to", To(DataType::kInt64))
               .Input<std::string>({4}, {"-42", "100.5", "+7", "9223372036854775807"})
               .Run();
  EXPECT_EQ(Values<int64_t>(*i[0]),
            (std::vector<int64_t>{-42, 100, 7, std::numeric_limits<int64_t>::max()}));
  auto b8 = NodeTest("Cast", 13)
                .Attr("to", To(DataType::kBool))
                .Input<std::string>({4}, {"True", "false", "0", "2.5"})
                .Run();
  EXPECT_EQ(Values<bool>(*b8[0]), (std::vector<bool>{true, false, false, true}));
}

TEST(ElementwiseCast, NumbersToStrings) {
  auto f = NodeTest("Cast", 13)
               .Attr("to", To(DataType::kString))
               .Input<float>({6}, {314.15926f, 1.0f / 3, 1e20f, kNaN, kInf, -kInf})
               .Run();
  EXPECT_EQ(Values<std::string>(*f[0]),
            (std::vector<std::string>{"314.15927", "0.33333334", "1e+20", "NaN", "INF", "-INF"}));
  auto d = NodeTest("Cast", 13).Attr("to", To(DataType::kString)).Input<double>({1}, {0.1}).Run();
  EXPECT_EQ(Values<std::string>(*d[0]), (std::vector<std::string>{"0.1"}));
  auto h = NodeTest("Cast", 13)
               .Attr("to", To(DataType::kString))
               .Input<Float16>({1}, Halves<Float16>({0.1f}))
               .Run();
  EXPECT_EQ(Values<std::string>(*h[0]), (std::vector<std::string>{"0.1"}));
  auto i =
      NodeTest("Cast", 13).Attr("to", To(DataType::kString)).Input<int8_t>({2}, {-5, 120}).Run();
  EXPECT_EQ(Values<std::string>(*i[0]), (std::vector<std::string>{"-5", "120"}));
  auto b =
      NodeTest("Cast", 13).Attr("to", To(DataType::kString)).Input<bool>({2}, {true, false}).Run();
  EXPECT_EQ(Values<std::string>(*b[0]), (std::vector<std::string>{"1", "0"}));
}

TEST(ElementwiseCast, SameTypeCopiesAndEmpty) {
  auto s = NodeTest("Cast", 19)
               .Attr("to", To(DataType::kString))
               .Attr("saturate", int64_t{1})
               .Input<std::string>({1}, {"abc"})
               .Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"abc"}));
  auto empty = NodeTest("Cast", 21).Attr("to", To(DataType::kInt32)).Input<float>({0, 2}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 2}));
  EXPECT_EQ(empty[0]->type(), DataType::kInt32);
}

TEST(ElementwiseCast, Opset1TakesATypeName) {
  auto out = NodeTest("Cast", 1).Attr("to", "INT32").Input<float>({2}, {1.5f, -1.5f}).Run();
  EXPECT_EQ(Values<int32_t>(*out[0]), (std::vector<int32_t>{1, -1}));
  auto lower = NodeTest("Cast", 5).Attr("to", "float16").Input<int32_t>({1}, {2}).Run();
  EXPECT_EQ(Floats<Float16>(*lower[0]), (std::vector<float>{2}));
  auto number =
      NodeTest("Cast", 1).Attr("to", To(DataType::kDouble)).Input<int32_t>({1}, {2}).Run();
  EXPECT_EQ(Values<double>(*number[0]), (std::vector<double>{2}));
  ExpectError([] { NodeTest("Cast", 1).Attr("to", "REAL").Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"node 'test_node' (Cast)", "'to'", "REAL"});
  ExpectError([] { NodeTest("Cast", 6).Attr("to", "FLOAT").Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"'to'", "string"});
}

TEST(ElementwiseCast, Errors) {
  ExpectError([] { NodeTest("Cast", 13).Input<float>({1}, {1}).Run(); }, ErrorCode::kInvalidGraph,
              {"node 'test_node' (Cast)", "'to'", "required"});
  ExpectError([] { NodeTest("Cast", 13).Attr("to", int64_t{99}).Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"'to'", "99"});
  ExpectError(
      [] {
        NodeTest("Cast", 13)
            .Attr("to", To(DataType::kFloat))
            .Input<std::string>({2}, {"1", "Hello"})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Cast)", "element 1", "Hello"});
}

TEST(ElementwiseCastLike, TakesTheTypeOfTheSecondInput) {
  auto out = NodeTest("CastLike", 15).Input<double>({2}, {1.7, -1.7}).Input<int16_t>({}, {0}).Run();
  EXPECT_EQ(out[0]->type(), DataType::kInt16);
  EXPECT_EQ(Values<int16_t>(*out[0]), (std::vector<int16_t>{1, -1}));
  auto s = NodeTest("CastLike", 19).Input<int32_t>({1}, {12}).Input<std::string>({1}, {""}).Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"12"}));
  ExpectError([] { NodeTest("CastLike", 14).Input<float>({1}, {1}).Input<float>({1}, {1}).Run(); },
              ErrorCode::kNotImplemented, {"CastLike", "14"});
}

}  // namespace
}  // namespace kiln::testing
