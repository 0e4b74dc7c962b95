#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
using Bools = std::vector<bool>;

TEST(ElementwiseCompare, EqualOnNumbersBoolsAndStrings) {
  auto f =
      NodeTest("Equal", 13).Input<float>({3}, {1, kNaN, 2}).Input<float>({3}, {1, kNaN, 3}).Run();
  EXPECT_EQ(f[0]->type(), DataType::kBool);
  EXPECT_EQ(Values<bool>(*f[0]), (Bools{true, false, false}));
  auto b = NodeTest("Equal", 11).Input<bool>({2}, {true, false}).Input<bool>({}, {false}).Run();
  EXPECT_EQ(Values<bool>(*b[0]), (Bools{false, true}));
  auto s = NodeTest("Equal", 19)
               .Input<std::string>({2, 1}, {"a", "b"})
               .Input<std::string>({2}, {"a", "c"})
               .Run();
  EXPECT_EQ(s[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<bool>(*s[0]), (Bools{true, false, false, false}));
}

TEST(ElementwiseCompare, BoolBytesOtherThanOneAreTrue) {
  auto a = MakeTensor<bool>({2}, {true, false});
  const uint8_t two = 2;
  std::memcpy(a->data(), &two, 1);  // a caller's buffer may hold any nonzero byte for true
  auto out = NodeTest("Equal", 13).Input(a).Input<bool>({2}, {true, false}).Run();
  EXPECT_EQ(Values<bool>(*out[0]), (Bools{true, true}));
}

TEST(ElementwiseCompare, OrderingsBroadcast) {
  auto less = NodeTest("Less", 13).Input<int32_t>({2, 1}, {1, 3}).Input<int32_t>({2}, {2, 3}).Run();
  EXPECT_EQ(Values<bool>(*less[0]), (Bools{true, true, false, false}));
  auto greater = NodeTest("Greater", 9).Input<double>({3}, {1, 2, 3}).Input<double>({}, {2}).Run();
  EXPECT_EQ(Values<bool>(*greater[0]), (Bools{false, false, true}));
  auto le =
      NodeTest("LessOrEqual", 16).Input<uint8_t>({3}, {1, 2, 3}).Input<uint8_t>({}, {2}).Run();
  EXPECT_EQ(Values<bool>(*le[0]), (Bools{true, true, false}));
  auto ge = NodeTest("GreaterOrEqual", 12)
                .Input<Float16>({3}, Halves<Float16>({1, 2, 3}))
                .Input<Float16>({}, Halves<Float16>({2}))
                .Run();
  EXPECT_EQ(Values<bool>(*ge[0]), (Bools{false, true, true}));
  auto nan = NodeTest("Less", 13).Input<float>({1}, {kNaN}).Input<float>({1}, {0}).Run();
  EXPECT_EQ(Values<bool>(*nan[0]), (Bools{false}));
}

TEST(ElementwiseCompare, LegacyBroadcastBeforeOpset7) {
  auto out = NodeTest("Greater", 1)
                 .Attr("broadcast", int64_t{1})
                 .Input<float>({2, 2}, {1, 2, 3, 4})
                 .Input<float>({2}, {2, 2})
                 .Run();
  EXPECT_EQ(Values<bool>(*out[0]), (Bools{false, false, true, true}));
  ExpectError(
      [] {
        NodeTest("Equal", 1).Input<int32_t>({2}, {1, 2}).Input<int32_t>({}, {1}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Equal)", "'B'", "'broadcast'"});
}

TEST(ElementwiseCompare, Errors) {
  ExpectError([] { NodeTest("Less", 13).Input<float>({1}, {1}).Input<int64_t>({1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"node 'test_node' (Less)", "'B'", "int64"});
  ExpectError(
      [] {
        NodeTest("Less", 13).Input<std::string>({1}, {"a"}).Input<std::string>({1}, {"b"}).Run();
      },
      ErrorCode::kNotImplemented, {"string"});
}

TEST(ElementwiseLogic, AndOrXorNot) {
  const Bools a = {true, true, false, false};
  const Bools b = {true, false, true, false};
  auto run = [&](const char* op, int opset) {
    auto out = NodeTest(op, opset).Input<bool>({4}, a).Input<bool>({4}, b).Run();
    return Values<bool>(*out[0]);
  };
  EXPECT_EQ(run("And", 7), (Bools{true, false, false, false}));
  EXPECT_EQ(run("Or", 7), (Bools{true, true, true, false}));
  EXPECT_EQ(run("Xor", 7), (Bools{false, true, true, false}));
  auto legacy = NodeTest("And", 1)
                    .Attr("broadcast", int64_t{1})
                    .Input<bool>({2, 2}, a)
                    .Input<bool>({2}, {true, false})
                    .Run();
  EXPECT_EQ(Values<bool>(*legacy[0]), (Bools{true, false, false, false}));
  auto negated = NodeTest("Not", 1).Input<bool>({2}, {true, false}).Run();
  EXPECT_EQ(Values<bool>(*negated[0]), (Bools{false, true}));
}

TEST(ElementwiseLogic, NonBoolInputsAreRejected) {
  ExpectError([] { NodeTest("Or", 7).Input<int32_t>({1}, {1}).Input<int32_t>({1}, {0}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (Or)", "int32"});
  ExpectError([] { NodeTest("Not", 1).Input<float>({1}, {1}).Run(); }, ErrorCode::kInvalidArgument,
              {"node 'test_node' (Not)", "'X'", "float"});
}

TEST(ElementwiseWhere, BroadcastsAllThree) {
  auto out = NodeTest("Where", 16)
                 .Input<bool>({2, 1}, {true, false})
                 .Input<int64_t>({3}, {1, 2, 3})
                 .Input<int64_t>({}, {-1})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(ElementwiseWhere, StringsHalvesAndBools) {
  auto s = NodeTest("Where", 9)
               .Input<bool>({2}, {false, true})
               .Input<std::string>({2}, {"x0", "x1"})
               .Input<std::string>({2}, {"y0", "y1"})
               .Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"y0", "x1"}));
  auto h = NodeTest("Where", 16)
               .Input<bool>({1}, {true})
               .Input<BFloat16>({1}, Halves<BFloat16>({2}))
               .Input<BFloat16>({1}, Halves<BFloat16>({3}))
               .Run();
  EXPECT_EQ(Floats<BFloat16>(*h[0]), (std::vector<float>{2}));
  auto b = NodeTest("Where", 9)
               .Input<bool>({2}, {true, false})
               .Input<bool>({}, {true})
               .Input<bool>({}, {false})
               .Run();
  EXPECT_EQ(Values<bool>(*b[0]), (Bools{true, false}));
}

TEST(ElementwiseWhere, Errors) {
  ExpectError(
      [] {
        NodeTest("Where", 16)
            .Input<int32_t>({1}, {1})
            .Input<float>({1}, {1})
            .Input<float>({1}, {2})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Where)", "'condition'", "int32"});
  ExpectError(
      [] {
        NodeTest("Where", 16)
            .Input<bool>({1}, {true})
            .Input<float>({1}, {1})
            .Input<double>({1}, {2})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'Y'", "double"});
  ExpectError(
      [] {
        NodeTest("Where", 16)
            .Input<bool>({2}, {true, false})
            .Input<float>({3}, {1, 2, 3})
            .Input<float>({1}, {2})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "[3]", "[2]"});
}

TEST(ElementwiseIsNaN, FloatTypes) {
  auto f = NodeTest("IsNaN", 13).Input<float>({3}, {kNaN, 1, kInf}).Run();
  EXPECT_EQ(Values<bool>(*f[0]), (Bools{true, false, false}));
  auto h = NodeTest("IsNaN", 20).Input<Float16>({2}, Halves<Float16>({kNaN, 0})).Run();
  EXPECT_EQ(Values<bool>(*h[0]), (Bools{true, false}));
  ExpectError([] { NodeTest("IsNaN", 13).Input<int32_t>({1}, {1}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (IsNaN)", "int32"});
}

TEST(ElementwiseIsInf, DetectAttributes) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {-inf, inf, 1, std::numeric_limits<double>::quiet_NaN()};
  auto both = NodeTest("IsInf", 10).Input<double>({4}, x).Run();
  EXPECT_EQ(Values<bool>(*both[0]), (Bools{true, true, false, false}));
  auto neg = NodeTest("IsInf", 20).Attr("detect_positive", int64_t{0}).Input<double>({4}, x).Run();
  EXPECT_EQ(Values<bool>(*neg[0]), (Bools{true, false, false, false}));
  auto pos = NodeTest("IsInf", 20).Attr("detect_negative", int64_t{0}).Input<double>({4}, x).Run();
  EXPECT_EQ(Values<bool>(*pos[0]), (Bools{false, true, false, false}));
}

}  // namespace
}  // namespace kiln::testing
