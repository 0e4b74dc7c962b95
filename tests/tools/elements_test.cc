// Element-type helpers of the tool (tools/kiln/elements.h): names, sizes, float16 and bfloat16.
#include "elements.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::cli {
namespace {

TEST(Elements, NamesAndSizes) {
  EXPECT_EQ(ElementTypeName(KILN_ELEMENT_TYPE_FLOAT), "float");
  EXPECT_EQ(ElementTypeName(KILN_ELEMENT_TYPE_BFLOAT16), "bfloat16");
  EXPECT_EQ(ElementTypeName(KILN_ELEMENT_TYPE_INT2), "int2");
  EXPECT_EQ(ElementTypeName(KILN_ELEMENT_TYPE_UNDEFINED), "undefined");
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_BOOL), 1u);
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_FLOAT16), 2u);
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_UINT32), 4u);
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_INT64), 8u);
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_STRING), 0u);
  EXPECT_EQ(ElementSize(KILN_ELEMENT_TYPE_INT4), 0u);
  EXPECT_EQ(ShapeText({1, -1, -1, 0}, {"", "batch", "", ""}), "[1, batch, ?, 0]");
  EXPECT_EQ(ShapeText({}, {}), "[]");
}

TEST(Elements, HalfKnownValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);  // rounds down
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);  // below half the smallest: zero
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 of the smallest: rounds up
  EXPECT_EQ(FloatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7e00, 0x7e00);
  EXPECT_EQ(HalfToFloat(0x3555), 0.33325195f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(Elements, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0) continue;  // NaN payloads
    ASSERT_EQ(FloatToHalf(HalfToFloat(bits)), bits) << std::hex << h;
  }
}

TEST(Elements, HalfRoundsToNearestEven) {
  // Halfway between 1 and the next half (1 + 2^-10) is 1 + 2^-11: ties go to the even 1.0.
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
}

TEST(Elements, BFloat16) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16ToFloat(0xc040), -3.0f);
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie to even
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie to even
  EXPECT_EQ(FloatToBFloat16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_TRUE(
      std::isnan(BFloat16ToFloat(FloatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Elements, ElementAsDouble) {
  const uint16_t h[] = {0x3c00, 0xc000};
  EXPECT_EQ(ElementAsDouble(KILN_ELEMENT_TYPE_FLOAT16, h, 1), -2.0);
  const int8_t i8[] = {-7};
  EXPECT_EQ(ElementAsDouble(KILN_ELEMENT_TYPE_INT8, i8, 0), -7.0);
  const uint64_t u64[] = {0, 1ull << 60};
  EXPECT_EQ(ElementAsDouble(KILN_ELEMENT_TYPE_UINT64, u64, 1), std::ldexp(1.0, 60));
}

}  // namespace
}  // namespace kiln::cli
