// Cast and CastLike with the narrow types (float8s, float8e8m0, float4e2m1, int4/uint4,
// int2/uint2). Expected codes are those of the ONNX backend test data (test_cast_*) or worked out
// by hand from the formats.
#include <gtest/gtest.h>

#include <cmath>
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

int64_t To(DataType t) {
  return static_cast<int64_t>(t);
}

// A tensor of a narrow type from its stored (packed) bytes.
std::shared_ptr<Tensor> Raw(DataType type, std::vector<int64_t> shape,
                            const std::vector<uint8_t>& bytes) {
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, Shape(std::move(shape)), CpuAllocator());
  EXPECT_EQ(t->byte_size(), bytes.size());
  std::memcpy(t->data(), bytes.data(), std::min(bytes.size(), t->byte_size()));
  return t;
}

std::vector<uint8_t> Bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  return std::vector<uint8_t>(p, p + t.byte_size());
}

// Casts float values to `to` at opset 25 and returns the stored bytes.
std::vector<uint8_t> FromFloats(DataType to, const std::vector<float>& values, int64_t saturate = 1,
                                const char* round_mode = "up") {
  auto out = NodeTest("Cast", 25)
                 .Attr("to", To(to))
                 .Attr("saturate", saturate)
                 .Attr("round_mode", round_mode)
                 .Input<float>({static_cast<int64_t>(values.size())}, values)
                 .Run();
  EXPECT_EQ(out[0]->type(), to);
  return Bytes(*out[0]);
}

// Casts stored bytes of `from` to float at opset 25.
std::vector<float> ToFloats(DataType from, int64_t count, const std::vector<uint8_t>& bytes) {
  auto out =
      NodeTest("Cast", 25).Attr("to", To(DataType::kFloat)).Input(Raw(from, {count}, bytes)).Run();
  return Values<float>(*out[0]);
}

// The ONNX test_cast_FLOAT_to_FLOAT8* inputs (without the repeated inf).
std::vector<float> Float8Inputs() {
  return {0.47892547f, 0.48033667f, 0.49968487f, 0.81910545f, 0.47031248f, 0.7229038f, 1000000.0f,
          1e-07f,      kNaN,        kInf,        -kInf,       -1e-07f,     -1000000.0f};
}

TEST(ElementwiseCastNarrow, FloatToFloat8Saturating) {
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FN, Float8Inputs()),
            (std::vector<uint8_t>{0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7e, 0x00, 0x7f, 0x7e, 0xfe,
                                  0x80, 0xfe}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FNUZ, Float8Inputs()),
            (std::vector<uint8_t>{0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x7f, 0x00, 0x80, 0x7f, 0xff,
                                  0x00, 0xff}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2, Float8Inputs()),
            (std::vector<uint8_t>{0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7b, 0x00, 0x7e, 0x7b, 0xfb,
                                  0x80, 0xfb}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2FNUZ, Float8Inputs()),
            (std::vector<uint8_t>{0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x7f, 0x00, 0x80, 0x7f, 0xff,
                                  0x00, 0xff}));
}

TEST(ElementwiseCastNarrow, FloatToFloat8WithoutSaturation) {
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FN, Float8Inputs(), 0),
            (std::vector<uint8_t>{0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7f, 0x00, 0x7f, 0x7f, 0xff,
                                  0x80, 0xff}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FNUZ, Float8Inputs(), 0),
            (std::vector<uint8_t>{0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x80, 0x00, 0x80, 0x80, 0x80,
                                  0x00, 0x80}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2, Float8Inputs(), 0),
            (std::vector<uint8_t>{0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7c, 0x00, 0x7e, 0x7c, 0xfc,
                                  0x80, 0xfc}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2FNUZ, Float8Inputs(), 0),
            (std::vector<uint8_t>{0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x80, 0x00, 0x80, 0x80, 0x80,
                                  0x00, 0x80}));
}

TEST(ElementwiseCastNarrow, Float8RoundsTiesToEvenAndOverflowsAfterRounding) {
  // E4M3FN: 1.0625 lies between 1 (0x38) and 1.125 (0x39), 1.1875 between 0x39 and 1.25 (0x3a);
  // 2^-10 and 3·2^-10 are ties between subnormals (quantum 2^-9); 464 ties 448 with the NaN
  // code and rounds to 448, anything above overflows.
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FN,
                       {1.0625f, 1.1875f, 0x1p-10f, 0x3p-10f, 464.0f, 465.0f, -0.0f}, 0),
            (std::vector<uint8_t>{0x38, 0x3a, 0x00, 0x02, 0x7e, 0x7f, 0x80}));
  // E5M2: 61440 ties 57344 (0x7b) with infinity and rounds to even (the 0x7c code).
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2, {61439.0f, 61440.0f, -0.0f}, 0),
            (std::vector<uint8_t>{0x7b, 0x7c, 0x80}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2, {61440.0f}, 1), (std::vector<uint8_t>{0x7b}));
  // Negative NaN keeps its sign where the type has one; FNUZ has no negative zero.
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FN, {-kNaN}), (std::vector<uint8_t>{0xff}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E5M2, {-kNaN}), (std::vector<uint8_t>{0xfe}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E4M3FNUZ, {-kNaN, -0.0f}),
            (std::vector<uint8_t>{0x80, 0x00}));
}

TEST(ElementwiseCastNarrow, Float8ToFloat) {
  const std::vector<float> fn =
      ToFloats(DataType::kFloat8E4M3FN, 7, {0x2f, 0x7e, 0x7f, 0xff, 0x80, 0x01, 0xfe});
  EXPECT_EQ(fn[0], 0.46875f);
  EXPECT_EQ(fn[1], 448.0f);
  EXPECT_TRUE(std::isnan(fn[2]));
  EXPECT_TRUE(std::isnan(fn[3]));
  EXPECT_EQ(fn[4], 0.0f);
  EXPECT_TRUE(std::signbit(fn[4]));
  EXPECT_EQ(fn[5], 0x1p-9f);
  EXPECT_EQ(fn[6], -448.0f);
  const std::vector<float> fnuz = ToFloats(DataType::kFloat8E4M3FNUZ, 3, {0x80, 0x7f, 0x01});
  EXPECT_TRUE(std::isnan(fnuz[0]));
  EXPECT_EQ(fnuz[1], 240.0f);
  EXPECT_EQ(fnuz[2], 0x1p-10f);
  const std::vector<float> e5m2 = ToFloats(DataType::kFloat8E5M2, 4, {0x7c, 0xfc, 0x7d, 0x7b});
  EXPECT_EQ(e5m2[0], kInf);
  EXPECT_EQ(e5m2[1], -kInf);
  EXPECT_TRUE(std::isnan(e5m2[2]));
  EXPECT_EQ(e5m2[3], 57344.0f);
  const std::vector<float> e5m2fnuz = ToFloats(DataType::kFloat8E5M2FNUZ, 3, {0x80, 0x7f, 0x01});
  EXPECT_TRUE(std::isnan(e5m2fnuz[0]));
  EXPECT_EQ(e5m2fnuz[1], 57344.0f);
  EXPECT_EQ(e5m2fnuz[2], 0x1p-17f);
}

TEST(ElementwiseCastNarrow, Float16AndDoubleToFloat8) {
  auto h = NodeTest("Cast", 19)
               .Attr("to", To(DataType::kFloat8E5M2))
               .Input<Float16>({3}, Halves<Float16>({0.48f, -kInf, 1e-7f}))
               .Run();
  EXPECT_EQ(Bytes(*h[0]), (std::vector<uint8_t>{0x38, 0xfb, 0x00}));
  // Rounded once from the double: 1.0625 + 2^-30 is just above the tie, so it goes up.
  auto d = NodeTest("Cast", 19)
               .Attr("to", To(DataType::kFloat8E4M3FN))
               .Input<double>({1}, {1.0625 + 0x1p-30})
               .Run();
  EXPECT_EQ(Bytes(*d[0]), (std::vector<uint8_t>{0x39}));
}

TEST(ElementwiseCastNarrow, Float8ToIntegersBoolAndHalf) {
  auto i8 = NodeTest("Cast", 19)
                .Attr("to", To(DataType::kInt8))
                .Input(Raw(DataType::kFloat8E4M3FN, {4}, {0x7e, 0xfe, 0x7f, 0x3f}))
                .Run();
  EXPECT_EQ(Values<int8_t>(*i8[0]), (std::vector<int8_t>{127, -128, 0, 1}));
  auto b = NodeTest("Cast", 19)
               .Attr("to", To(DataType::kBool))
               .Input(Raw(DataType::kFloat8E4M3FN, {3}, {0x80, 0x7f, 0x01}))
               .Run();
  EXPECT_EQ(Values<bool>(*b[0]), (std::vector<bool>{false, true, true}));
  auto h = NodeTest("Cast", 19)
               .Attr("to", To(DataType::kFloat16))
               .Input(Raw(DataType::kFloat8E5M2, {2}, {0x7b, 0x01}))
               .Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{57344.0f, 0x1p-16f}));
}

TEST(ElementwiseCastNarrow, Float8ToFloat8GoesThroughTheValue) {
  // 448 is exact in E5M2 (0x5f), 0.46875 ties and rounds to 0.5 (0x38), NaN stays NaN.
  auto out = NodeTest("Cast", 19)
                 .Attr("to", To(DataType::kFloat8E5M2))
                 .Input(Raw(DataType::kFloat8E4M3FN, {3}, {0x7e, 0x7f, 0x2f}))
                 .Run();
  EXPECT_EQ(Bytes(*out[0]), (std::vector<uint8_t>{0x5f, 0x7e, 0x38}));
  auto same = NodeTest("Cast", 19)
                  .Attr("to", To(DataType::kFloat8E4M3FN))
                  .Input(Raw(DataType::kFloat8E4M3FN, {3}, {0xff, 0x80, 0x12}))
                  .Run();
  EXPECT_EQ(Bytes(*same[0]), (std::vector<uint8_t>{0xff, 0x80, 0x12}));
}

TEST(ElementwiseCastNarrow, FloatToInt4KeepsLowBitsPacked) {
  std::vector<float> in;
  for (int v = -9; v <= 15; ++v) in.push_back(static_cast<float>(v));
  const std::vector<uint8_t> packed = {0x87, 0xa9, 0xcb, 0xed, 0x0f, 0x21, 0x43,
                                       0x65, 0x87, 0xa9, 0xcb, 0xed, 0x0f};
  EXPECT_EQ(FromFloats(DataType::kInt4, in), packed);
  EXPECT_EQ(FromFloats(DataType::kUint4, in), packed);
  EXPECT_EQ(FromFloats(DataType::kInt4, {2.9f, -2.9f, kNaN}), (std::vector<uint8_t>{0xe2, 0x00}));
  auto i8 = NodeTest("Cast", 21)
                .Attr("to", To(DataType::kInt8))
                .Input(Raw(DataType::kInt4, {25}, packed));
  EXPECT_EQ(Values<int8_t>(*i8.Run()[0]),
            (std::vector<int8_t>{7, -8, -7, -6, -5, -4, -3, -2, -1, 0,  1,  2, 3,
                                 4, 5,  6,  7,  -8, -7, -6, -5, -4, -3, -2, -1}));
  auto u8 = NodeTest("Cast", 21)
                .Attr("to", To(DataType::kUint8))
                .Input(Raw(DataType::kUint4, {3}, {0x87, 0x0f}))
                .Run();
  EXPECT_EQ(Values<uint8_t>(*u8[0]), (std::vector<uint8_t>{7, 8, 15}));
}

TEST(ElementwiseCastNarrow, IntegersToInt4AndInt2WrapAndPad) {
  auto u4 =
      NodeTest("Cast", 21).Attr("to", To(DataType::kUint4)).Input<int32_t>({3}, {-1, 16, 17}).Run();
  EXPECT_EQ(Bytes(*u4[0]), (std::vector<uint8_t>{0x0f, 0x01}));
  auto i2 = NodeTest("Cast", 25)
                .Attr("to", To(DataType::kInt2))
                .Input<float>({7}, {-3, -2, -1, 0, 1, 2, 3})
                .Run();
  EXPECT_EQ(Bytes(*i2[0]), (std::vector<uint8_t>{0x39, 0x39}));
  auto back = NodeTest("Cast", 25)
                  .Attr("to", To(DataType::kInt8))
                  .Input(Raw(DataType::kInt2, {7}, {0x39, 0x39}))
                  .Run();
  EXPECT_EQ(Values<int8_t>(*back[0]), (std::vector<int8_t>{1, -2, -1, 0, 1, -2, -1}));
  auto ub = NodeTest("Cast", 25)
                .Attr("to", To(DataType::kUint8))
                .Input(Raw(DataType::kUint2, {7}, {0x39, 0x39}))
                .Run();
  EXPECT_EQ(Values<uint8_t>(*ub[0]), (std::vector<uint8_t>{1, 2, 3, 0, 1, 2, 3}));
  auto f = NodeTest("Cast", 25)
               .Attr("to", To(DataType::kFloat))
               .Input(Raw(DataType::kUint2, {3}, {0x1b}))
               .Run();
  EXPECT_EQ(Values<float>(*f[0]), (std::vector<float>{3, 2, 1}));
}

TEST(ElementwiseCastNarrow, PackedOutputIsRightWithManyThreads) {
  std::vector<int32_t> in(20001);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(i % 7) - 3;
  auto out = NodeTest("Cast", 25)
                 .Attr("to", To(DataType::kInt2))
                 .Input<int32_t>({static_cast<int64_t>(in.size())}, in)
                 .Run(4);
  const std::vector<uint8_t> bytes = Bytes(*out[0]);
  ASSERT_EQ(bytes.size(), 5001u);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ((bytes[i / 4] >> (2 * (i % 4))) & 3, in[i] & 3) << i;
  }
  EXPECT_EQ(bytes[5000] >> 2, 0) << "padding bits are zero";
}

TEST(ElementwiseCastNarrow, Float4E2M1AlwaysSaturates) {
  // test_cast_FLOAT_to_FLOAT4E2M1: ties to even (0.25 to 0, -3.5 to -4), ±inf and beyond 6 to ±6,
  // NaN to 0x8.
  const std::vector<uint8_t> packed = {0x01, 0xe2, 0x7f, 0x07, 0x78, 0xf7, 0x0e, 0x08};
  EXPECT_EQ(FromFloats(DataType::kFloat4E2M1,
                       {0.48f, 0.25f, 1.05f, -3.5f, -8.0f, 9.0f, 1e6f, 1e-7f, kNaN, kInf, kInf,
                        -kInf, -4.0f, 0.01f, -0.0f},
                       0),
            packed);
  const std::vector<float> back = ToFloats(DataType::kFloat4E2M1, 15, packed);
  EXPECT_EQ(back, (std::vector<float>{0.5f, 0, 1, -4, -6, 6, 6, 0, -0.0f, 6, 6, -6, -4, 0, -0.0f}));
  EXPECT_TRUE(std::signbit(back[14]));
}

TEST(ElementwiseCastNarrow, Float8E8M0RoundModes) {
  const std::vector<float> in = {0.0f, 0.124f, 0.25f, 0.5f, 1.1f, 2.0f, 4.0f, 8.0f};
  EXPECT_EQ(FromFloats(DataType::kFloat8E8M0, in, 1, "up"),
            (std::vector<uint8_t>{0x00, 0x7c, 0x7d, 0x7e, 0x80, 0x80, 0x81, 0x82}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E8M0, in, 1, "down"),
            (std::vector<uint8_t>{0x00, 0x7b, 0x7d, 0x7e, 0x7f, 0x80, 0x81, 0x82}));
  // Nearest: from 1.5 (the tie) up; below it down.
  EXPECT_EQ(FromFloats(DataType::kFloat8E8M0, {1.4f, 1.5f, 0.124f, -3.0f}, 1, "nearest"),
            (std::vector<uint8_t>{0x7f, 0x80, 0x7c, 0x81}));
}

TEST(ElementwiseCastNarrow, Float8E8M0SpecialValuesAndSaturation) {
  const float huge = 0x1.8p127f;
  EXPECT_EQ(FromFloats(DataType::kFloat8E8M0, {kNaN, kInf, huge}, 1),
            (std::vector<uint8_t>{0xff, 0xfe, 0xfe}));
  EXPECT_EQ(FromFloats(DataType::kFloat8E8M0, {kNaN, kInf, huge}, 0),
            (std::vector<uint8_t>{0xff, 0xff, 0xff}));
  const std::vector<float> back = ToFloats(DataType::kFloat8E8M0, 4, {0x00, 0x7f, 0xfe, 0xff});
  EXPECT_EQ(back[0], 0x1p-127f);
  EXPECT_EQ(back[1], 1.0f);
  EXPECT_EQ(back[2], 0x1p127f);
  EXPECT_TRUE(std::isnan(back[3]));
}

TEST(ElementwiseCastNarrow, Strings) {
  auto f8 = NodeTest("Cast", 19)
                .Attr("to", To(DataType::kFloat8E4M3FN))
                .Input<std::string>({3}, {"0.48", "-INF", "NaN"})
                .Run();
  EXPECT_EQ(Bytes(*f8[0]), (std::vector<uint8_t>{0x2f, 0xfe, 0x7f}));
  auto i4 = NodeTest("Cast", 21)
                .Attr("to", To(DataType::kInt4))
                .Input<std::string>({2}, {"17", "-3"})
                .Run();
  EXPECT_EQ(Bytes(*i4[0]), (std::vector<uint8_t>{0xd1}));
  auto text = NodeTest("Cast", 21)
                  .Attr("to", To(DataType::kString))
                  .Input(Raw(DataType::kInt4, {2}, {0xd1}))
                  .Run();
  EXPECT_EQ(Values<std::string>(*text[0]), (std::vector<std::string>{"1", "-3"}));
  auto f8_text = NodeTest("Cast", 19)
                     .Attr("to", To(DataType::kString))
                     .Input(Raw(DataType::kFloat8E4M3FN, {3}, {0x2f, 0x7f, 0xfe}))
                     .Run();
  EXPECT_EQ(Values<std::string>(*f8_text[0]), (std::vector<std::string>{"0.46875", "NaN", "-448"}));
  ExpectError(
      [] {
        NodeTest("Cast", 21)
            .Attr("to", To(DataType::kInt4))
            .Input<std::string>({1}, {"four"})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"element 0", "four"});
}

TEST(ElementwiseCastNarrow, CastLikeTakesSaturateAndRoundMode) {
  auto f8 = NodeTest("CastLike", 19)
                .Attr("saturate", int64_t{0})
                .Input<float>({2}, {1e6f, 0.48f})
                .Input(Raw(DataType::kFloat8E5M2, {1}, {0}))
                .Run();
  EXPECT_EQ(Bytes(*f8[0]), (std::vector<uint8_t>{0x7c, 0x38}));
  auto e8 = NodeTest("CastLike", 24)
                .Attr("round_mode", "down")
                .Input<float>({1}, {1.1f})
                .Input(Raw(DataType::kFloat8E8M0, {1}, {0x7f}))
                .Run();
  EXPECT_EQ(Bytes(*e8[0]), (std::vector<uint8_t>{0x7f}));
  auto i4 = NodeTest("CastLike", 21)
                .Input(Raw(DataType::kInt4, {3}, {0x87, 0x0f}))
                .Input<int8_t>({}, {0})
                .Run();
  EXPECT_EQ(Values<int8_t>(*i4[0]), (std::vector<int8_t>{7, -8, -1}));
}

TEST(ElementwiseCastNarrow, EarlierOpsetsRefuseTheNarrowTypes) {
  const struct {
    DataType type;
    int64_t first;
  } cases[] = {{DataType::kFloat8E4M3FN, 19}, {DataType::kFloat8E5M2FNUZ, 19},
               {DataType::kInt4, 21},         {DataType::kUint4, 21},
               {DataType::kFloat4E2M1, 23},   {DataType::kFloat8E8M0, 24},
               {DataType::kInt2, 25},         {DataType::kUint2, 25}};
  for (const auto& c : cases) {
    const std::string name = DataTypeName(c.type);
    const std::string needs = "opset " + std::to_string(c.first);
    ExpectError(
        [&] { NodeTest("Cast", c.first - 1).Attr("to", To(c.type)).Input<float>({1}, {1}).Run(); },
        ErrorCode::kInvalidGraph, {"node 'test_node' (Cast)", "'to'", name.c_str(), needs.c_str()});
    ExpectError(
        [&] {
          NodeTest("Cast", c.first - 1)
              .Attr("to", To(DataType::kFloat))
              .Input(Tensor::Allocate(c.type, Shape({1}), CpuAllocator()))
              .Run();
        },
        ErrorCode::kInvalidArgument, {"'input'", name.c_str(), needs.c_str()});
    ExpectError(
        [&] {
          NodeTest("CastLike", c.first - 1)
              .Input<float>({1}, {1})
              .Input(Tensor::Allocate(c.type, Shape({1}), CpuAllocator()))
              .Run();
        },
        ErrorCode::kInvalidArgument, {"(CastLike)", "'target_type'", name.c_str(), needs.c_str()});
  }
}

TEST(ElementwiseCastNarrow, RoundModeIsCheckedFromOpset24) {
  ExpectError(
      [] {
        NodeTest("Cast", 24)
            .Attr("to", To(DataType::kFloat8E8M0))
            .Attr("round_mode", "even")
            .Input<float>({1}, {1})
            .Run();
      },
      ErrorCode::kInvalidGraph, {"'round_mode'", "even"});
  auto ignored = NodeTest("Cast", 23)
                     .Attr("to", To(DataType::kFloat8E4M3FN))
                     .Attr("round_mode", "even")
                     .Input<float>({1}, {1})
                     .Run();
  EXPECT_EQ(Bytes(*ignored[0]), (std::vector<uint8_t>{0x38}));
}

TEST(ElementwiseCastNarrow, ComplexIsNotImplemented) {
  ExpectError(
      [] {
        NodeTest("Cast", 25).Attr("to", To(DataType::kComplex64)).Input<float>({1}, {1}).Run();
      },
      ErrorCode::kNotImplemented, {"'to'", "complex64"});
}

}  // namespace
}  // namespace kiln::testing
