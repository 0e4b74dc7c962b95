#include "kernels/cpu/elementwise/numeric.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::cpu {
namespace {

TEST(ElementwiseNumeric, SaturateCastAtTheRangeEdges) {
  using L = std::numeric_limits<int64_t>;
  const float two63 = std::ldexp(1.0f, 63);
  EXPECT_EQ(SaturateCast<int64_t>(two63), L::max());
  EXPECT_EQ(SaturateCast<int64_t>(std::nextafter(two63, 0.0f)),
            int64_t{9223371487098961920});  // 2^63 - 2^39
  EXPECT_EQ(SaturateCast<int64_t>(-two63), L::min());
  EXPECT_EQ(SaturateCast<int64_t>(-std::numeric_limits<double>::infinity()), L::min());
  EXPECT_EQ(SaturateCast<uint64_t>(std::ldexp(1.0, 64)), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(SaturateCast<uint64_t>(-0.9), 0u);
  EXPECT_EQ(SaturateCast<int8_t>(-128.9f), -128);
  EXPECT_EQ(SaturateCast<int8_t>(127.9f), 127);
  EXPECT_EQ(SaturateCast<int8_t>(128.0f), 127);
  EXPECT_EQ(SaturateCast<int32_t>(std::nan("")), 0);
  EXPECT_EQ(SaturateCast<uint16_t>(65535.5), 65535);
}

TEST(ElementwiseNumeric, WrappingAndIntegerDivision) {
  EXPECT_EQ(WrapMul<int16_t>(300, 300), int16_t{24464});  // 90000 - 65536
  EXPECT_EQ(WrapNeg<int64_t>(std::numeric_limits<int64_t>::min()),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(WrapSub<uint32_t>(0, 1), std::numeric_limits<uint32_t>::max());
  EXPECT_EQ(TruncDiv<int16_t>(std::numeric_limits<int16_t>::min(), -1),
            std::numeric_limits<int16_t>::min());
  EXPECT_EQ(TruncDiv<int32_t>(-7, 2), -3);
  EXPECT_EQ(TruncMod<int32_t>(-7, 2), -1);
  EXPECT_EQ(FloorMod<int32_t>(-7, 2), 1);
  EXPECT_EQ(FloorMod<int32_t>(7, -2), -1);
  EXPECT_EQ(FloorMod<int32_t>(-6, 3), 0);
  EXPECT_EQ(FloorMod<uint8_t>(7, 3), 1);
}

TEST(ElementwiseNumeric, HalvesLoadAndStoreThroughFloat) {
  EXPECT_EQ(Load(Float16::FromFloat(1.5f)), 1.5f);
  EXPECT_EQ(Store<BFloat16>(2.0f).ToFloat(), 2.0f);
  EXPECT_EQ(Load(7), 7);
}

}  // namespace
}  // namespace kiln::cpu
