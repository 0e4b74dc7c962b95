#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

TEST(ElementwiseBitShift, LeftRightBroadcastAndWideShifts) {
  auto left = NodeTest("BitShift", 11)
                  .Attr("direction", "LEFT")
                  .Input<uint8_t>({4}, {1, 3, 255, 7})
                  .Input<uint8_t>({4}, {1, 2, 1, 8})
                  .Run();
  // 255 << 1 keeps the low 8 bits; a shift by the full width gives 0.
  EXPECT_EQ(Values<uint8_t>(*left[0]), (std::vector<uint8_t>{2, 12, 254, 0}));
  auto right = NodeTest("BitShift", 11)
                   .Attr("direction", "RIGHT")
                   .Input<uint64_t>({2, 2}, {16, 17, 1ull << 63, 5})
                   .Input<uint64_t>({2}, {4, 63})
                   .Run();
  EXPECT_EQ(right[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<uint64_t>(*right[0]), (std::vector<uint64_t>{1, 0, 1ull << 59, 0}));
}

TEST(ElementwiseBitShift, Errors) {
  ExpectError(
      [] { NodeTest("BitShift", 11).Input<uint8_t>({1}, {1}).Input<uint8_t>({1}, {1}).Run(); },
      ErrorCode::kInvalidGraph, {"(BitShift)", "'direction'"});
  ExpectError(
      [] {
        NodeTest("BitShift", 11)
            .Attr("direction", "UP")
            .Input<uint8_t>({1}, {1})
            .Input<uint8_t>({1}, {1})
            .Run();
      },
      ErrorCode::kInvalidGraph, {"(BitShift)", "'direction'", "UP"});
  ExpectError(
      [] {
        NodeTest("BitShift", 11)
            .Attr("direction", "LEFT")
            .Input<int32_t>({1}, {1})
            .Input<int32_t>({1}, {1})
            .Run();
      },
      ErrorCode::kNotImplemented, {"(BitShift)", "int32"});
  ExpectError(
      [] {
        NodeTest("BitShift", 11)
            .Attr("direction", "LEFT")
            .Input<uint8_t>({2}, {1, 2})
            .Input<uint8_t>({3}, {1, 2, 3})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"(BitShift)"});
}

TEST(ElementwiseBitwise, AndOrXorNotOverTypes) {
  auto a = NodeTest("BitwiseAnd", 18)
               .Input<int16_t>({2, 2}, {-1, 6, 12, -8})
               .Input<int16_t>({2}, {0x0f, 3})
               .Run();
  EXPECT_EQ(Values<int16_t>(*a[0]), (std::vector<int16_t>{0x0f, 2, 12, 0}));
  auto o =
      NodeTest("BitwiseOr", 18).Input<uint64_t>({2}, {1, 0xf0}).Input<uint64_t>({1}, {0x0f}).Run();
  EXPECT_EQ(Values<uint64_t>(*o[0]), (std::vector<uint64_t>{0x0f, 0xff}));
  auto x = NodeTest("BitwiseXor", 18)
               .Input<int32_t>({3}, {5, -1, 0})
               .Input<int32_t>({3}, {3, 1, 0})
               .Run();
  EXPECT_EQ(Values<int32_t>(*x[0]), (std::vector<int32_t>{6, -2, 0}));
  auto n = NodeTest("BitwiseNot", 18).Input<uint8_t>({3}, {0, 1, 255}).Run();
  EXPECT_EQ(Values<uint8_t>(*n[0]), (std::vector<uint8_t>{255, 254, 0}));
  auto ni = NodeTest("BitwiseNot", 18).Input<int64_t>({2}, {0, -5}).Run();
  EXPECT_EQ(Values<int64_t>(*ni[0]), (std::vector<int64_t>{-1, 4}));
  auto empty =
      NodeTest("BitwiseAnd", 18).Input<int8_t>({0, 2}, {}).Input<int8_t>({2}, {1, 2}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 2}));
}

TEST(ElementwiseBitwise, FloatsAndMixedTypesRejected) {
  ExpectError([] { NodeTest("BitwiseNot", 18).Input<float>({1}, {1}).Run(); },
              ErrorCode::kNotImplemented, {"(BitwiseNot)", "float"});
  ExpectError(
      [] { NodeTest("BitwiseOr", 18).Input<int8_t>({1}, {1}).Input<int16_t>({1}, {1}).Run(); },
      ErrorCode::kInvalidArgument, {"(BitwiseOr)", "'B'"});
}

TEST(ElementwiseBitCast, ReinterpretsBits) {
  auto f = NodeTest("BitCast", 26).Attr("to", int64_t{6}).Input<float>({2}, {1.0f, -2.5f}).Run();
  std::vector<int32_t> want(2);
  const float src[2] = {1.0f, -2.5f};
  std::memcpy(want.data(), src, sizeof(src));
  EXPECT_EQ(f[0]->type(), DataType::kInt32);
  EXPECT_EQ(Values<int32_t>(*f[0]), want);
  auto u = NodeTest("BitCast", 26).Attr("to", int64_t{3}).Input<uint8_t>({2}, {255, 7}).Run();
  EXPECT_EQ(Values<int8_t>(*u[0]), (std::vector<int8_t>{-1, 7}));
}

TEST(ElementwiseBitCast, Errors) {
  ExpectError([] { NodeTest("BitCast", 26).Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"(BitCast)", "'to'"});
  ExpectError([] { NodeTest("BitCast", 26).Attr("to", int64_t{8}).Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"(BitCast)", "'to'"});
  ExpectError([] { NodeTest("BitCast", 26).Attr("to", int64_t{99}).Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidGraph, {"(BitCast)", "'to'"});
  ExpectError([] { NodeTest("BitCast", 26).Attr("to", int64_t{7}).Input<float>({1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"(BitCast)", "'input'", "float", "int64"});
}

}  // namespace
}  // namespace kiln::testing
