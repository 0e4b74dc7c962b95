#include "core/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln {
namespace {

TEST(Float16, RoundTripsExactValues) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(Float16::FromFloat(f).ToFloat(), f) << f;
  }
}

TEST(Float16, KnownBitPatterns) {
  EXPECT_EQ(Float16::FromFloat(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16::FromFloat(-2.0f).bits, 0xc000);
  EXPECT_EQ(Float16::FromFloat(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Float16::FromFloat(1e6f).bits, 0x7c00);            // overflow to inf
  EXPECT_EQ(Float16::FromFloat(5.9604645e-08f).bits, 0x0001);  // smallest subnormal
  // 1 + 2^-11 is halfway between 1 and the next half: ties to even (1.0).
  EXPECT_EQ(Float16::FromFloat(1.0f + 0.00048828125f).bits, 0x3c00);
  EXPECT_TRUE(std::isnan(Float16::FromFloat(std::numeric_limits<float>::quiet_NaN()).ToFloat()));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16::FromFloat(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16::FromFloat(1.0f).ToFloat(), 1.0f);
  EXPECT_EQ(BFloat16::FromFloat(3.140625f).ToFloat(), 3.140625f);
  EXPECT_TRUE(std::isnan(BFloat16::FromFloat(std::numeric_limits<float>::quiet_NaN()).ToFloat()));
}

}  // namespace
}  // namespace kiln
