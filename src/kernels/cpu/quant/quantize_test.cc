// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: rounding, per-axis and blocked
// scales, the narrow types, opset differences and every error. Expected values worked out by
// hand from the ONNX definitions (and checked with numpy's rint).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/allocator.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;

// A tensor of a type without a C++ element type, from its raw bytes.
std::shared_ptr<Tensor> RawTensor(DataType t, V shape, const std::vector<uint8_t>& bytes) {
  std::shared_ptr<Tensor> r = Tensor::Allocate(t, Shape(std::move(shape)), CpuAllocator());
  EXPECT_EQ(r->byte_size(), bytes.size());
  std::memcpy(r->data(), bytes.data(), bytes.size());
  return r;
}

std::vector<uint8_t> Bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  return std::vector<uint8_t>(p, p + t.byte_size());
}

TEST(QuantQuantizeLinear, PerTensorRoundsHalfToEvenAndSaturates) {
  auto out = NodeTest("QuantizeLinear", 10)
                 .Input<float>({7}, {0, 2, 3, 5, -2, 1000, 7})
                 .Input<float>({}, {2})
                 .Input<uint8_t>({}, {128})
                 .Run();
  // 3 / 2 = 1.5 and 5 / 2 = 2.5 both round to the even 2; 7 / 2 = 3.5 to 4; 500 saturates.
  EXPECT_EQ(Values<uint8_t>(*out[0]), (std::vector<uint8_t>{128, 129, 130, 130, 127, 255, 132}));
  auto s8 = NodeTest("QuantizeLinear", 13)
                .Input<float>({3}, {-1000, -3, 1000})
                .Input<float>({}, {1})
                .Input<int8_t>({}, {-1})
                .Run();
  EXPECT_EQ(Values<int8_t>(*s8[0]), (std::vector<int8_t>{-128, -4, 127}));
  // No zero point: uint8 and zero point 0.
  auto plain =
      NodeTest("QuantizeLinear", 13).Input<float>({2}, {-5, 7}).Input<float>({}, {1}).Run();
  EXPECT_EQ(Values<uint8_t>(*plain[0]), (std::vector<uint8_t>{0, 7}));
}

TEST(QuantQuantizeLinear, PerAxisAndBlocked) {
  auto axis = NodeTest("QuantizeLinear", 13)
                  .Attr("axis", int64_t{0})
                  .Input<float>({2, 2}, {2, 4, 2, 4})
                  .Input<float>({2}, {1, 2})
                  .Input<uint8_t>({2}, {0, 10})
                  .Run();
  EXPECT_EQ(Values<uint8_t>(*axis[0]), (std::vector<uint8_t>{2, 4, 11, 12}));
  // [2, 3] with blocks of 2 along axis 1: scales [2, 2].
  auto blocked = NodeTest("QuantizeLinear", 21)
                     .Attr("axis", int64_t{1})
                     .Attr("block_size", int64_t{2})
                     .Attr("output_dtype", int64_t{5})
                     .Input<float>({2, 3}, {2, 2, 2, 6, 6, 6})
                     .Input<float>({2, 2}, {1, 2, 3, 6})
                     .Run();
  EXPECT_EQ(Values<int16_t>(*blocked[0]), (std::vector<int16_t>{2, 2, 1, 2, 2, 1}));
}

TEST(QuantQuantizeLinear, NarrowTypes) {
  auto i4 = NodeTest("QuantizeLinear", 21)
                .Input<float>({3}, {-20, 3, 7})
                .Input<float>({}, {1})
                .Input(RawTensor(DataType::kInt4, {}, {0x01}))
                .Run();
  ASSERT_EQ(i4[0]->type(), DataType::kInt4);
  // -20 + 1 -> -8 (0x8), 4, 7 -> 7 (saturated): element 0 in the low nibble.
  EXPECT_EQ(Bytes(*i4[0]), (std::vector<uint8_t>{0x48, 0x07}));
  auto u2 = NodeTest("QuantizeLinear", 25)
                .Input<float>({4}, {0, 1, 2, 9})
                .Input<float>({}, {1})
                .Input(RawTensor(DataType::kUint2, {}, {0x00}))
                .Run();
  EXPECT_EQ(Bytes(*u2[0]), (std::vector<uint8_t>{0xe4}));  // 0, 1, 2, 3
  auto f8 = NodeTest("QuantizeLinear", 19)
                .Input<float>({3}, {0.96875f, 1000, -1000})
                .Input<float>({}, {2})
                .Input(RawTensor(DataType::kFloat8E4M3FN, {1}, {0}))
                .Run();
  // 0.484375 rounds to 0.5 (0x30); 500 saturates to 448 (0x7e).
  EXPECT_EQ(Bytes(*f8[0]), (std::vector<uint8_t>{0x30, 0x7e, 0xfe}));
  auto nosat = NodeTest("QuantizeLinear", 19)
                   .Attr("saturate", int64_t{0})
                   .Input<float>({1}, {1000})
                   .Input<float>({}, {1})
                   .Input(RawTensor(DataType::kFloat8E4M3FN, {1}, {0}))
                   .Run();
  EXPECT_EQ(Bytes(*nosat[0]), (std::vector<uint8_t>{0x7f}));  // NaN
}

TEST(QuantQuantizeLinear, Errors) {
  ExpectNodeError(NodeTest("QuantizeLinear", 10)
                      .Input<float>({2}, {1, 2})
                      .Input<float>({2}, {1, 2})
                      .Input<uint8_t>({2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "y_scale");
  ExpectNodeError(NodeTest("QuantizeLinear", 13)
                      .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                      .Input<float>({2}, {1, 2})
                      .Input<uint8_t>({2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "per-axis");
  ExpectNodeError(NodeTest("QuantizeLinear", 13)
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "y_zero_point");
  ExpectNodeError(NodeTest("QuantizeLinear", 13)
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1})
                      .Input<int16_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "y_zero_point");
  ExpectNodeError(NodeTest("QuantizeLinear", 21)
                      .Attr("block_size", int64_t{2})
                      .Input<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})
                      .Input<float>({2, 3}, {1, 1, 1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "block_size");
  ExpectNodeError(NodeTest("QuantizeLinear", 21)
                      .Attr("block_size", int64_t{-1})
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "block_size");
  ExpectNodeError(NodeTest("QuantizeLinear", 21)
                      .Attr("output_dtype", int64_t{3})
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1})
                      .Input<uint8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "output_dtype");
  ExpectNodeError(NodeTest("QuantizeLinear", 21)
                      .Attr("output_dtype", int64_t{1})
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1}),
                  ErrorCode::kNotImplemented, "output_dtype");
  ExpectNodeError(NodeTest("QuantizeLinear", 13).Input<int8_t>({2}, {1, 2}).Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "input 'x'");
  ExpectNodeError(NodeTest("QuantizeLinear", 13).Input<float>({2}, {1, 2}).Input<int32_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "y_scale");
  ExpectNodeError(NodeTest("QuantizeLinear", 13)
                      .Attr("axis", int64_t{3})
                      .Input<float>({2}, {1, 2})
                      .Input<float>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "axis");
  ExpectNodeError(NodeTest("QuantizeLinear", 25)
                      .Attr("precision", int64_t{6})
                      .Input<float>({2}, {1, 2})
                      .Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "precision");
}

TEST(QuantDequantizeLinear, PerTensorAxisBlockedAndNarrow) {
  auto out = NodeTest("DequantizeLinear", 10)
                 .Input<uint8_t>({3}, {0, 128, 255})
                 .Input<float>({}, {0.5f})
                 .Input<uint8_t>({}, {128})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{-64, 0, 63.5f}));
  auto axis = NodeTest("DequantizeLinear", 13)
                  .Attr("axis", int64_t{0})
                  .Input<int8_t>({2, 2}, {1, 2, 3, 4})
                  .Input<float>({2}, {1, 10})
                  .Input<int8_t>({2}, {0, 1})
                  .Run();
  EXPECT_EQ(Values<float>(*axis[0]), (std::vector<float>{1, 2, 20, 30}));
  auto blocked = NodeTest("DequantizeLinear", 21)
                     .Attr("axis", int64_t{0})
                     .Attr("block_size", int64_t{2})
                     .Input<int32_t>({3, 1}, {1, 2, 3})
                     .Input<double>({2, 1}, {2, 10})
                     .Run();
  EXPECT_EQ(Values<double>(*blocked[0]), (std::vector<double>{2, 4, 30}));
  auto i4 = NodeTest("DequantizeLinear", 21)
                .Input(RawTensor(DataType::kInt4, {3}, {0x8f, 0x07}))  // -1, -8, 7
                .Input<float>({}, {2})
                .Run();
  EXPECT_EQ(Values<float>(*i4[0]), (std::vector<float>{-2, -16, 14}));
  auto f8 = NodeTest("DequantizeLinear", 19)
                .Input(RawTensor(DataType::kFloat8E4M3FN, {2}, {0x30, 0xfe}))
                .Input<Float16>({}, {Float16::FromFloat(2)})
                .Run();
  ASSERT_EQ(f8[0]->type(), DataType::kFloat16);
  EXPECT_EQ(Values<Float16>(*f8[0])[0].ToFloat(), 1.0f);
  EXPECT_EQ(Values<Float16>(*f8[0])[1].ToFloat(), -896.0f);
  auto typed = NodeTest("DequantizeLinear", 23)
                   .Attr("output_dtype", int64_t{11})
                   .Input<uint8_t>({1}, {3})
                   .Input<float>({}, {0.5f})
                   .Run();
  EXPECT_EQ(Values<double>(*typed[0]), (std::vector<double>{1.5}));
}

TEST(QuantDequantizeLinear, Errors) {
  ExpectNodeError(NodeTest("DequantizeLinear", 19).Input<int16_t>({1}, {1}).Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "input 'x'");
  ExpectNodeError(NodeTest("DequantizeLinear", 21)
                      .Input(RawTensor(DataType::kInt2, {1}, {0}))
                      .Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "input 'x'");
  ExpectNodeError(NodeTest("DequantizeLinear", 13)
                      .Input<uint8_t>({1}, {1})
                      .Input<float>({}, {1})
                      .Input<int8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "x_zero_point");
  ExpectNodeError(NodeTest("DequantizeLinear", 13).Input<uint8_t>({1}, {1}).Input<uint8_t>({}, {1}),
                  ErrorCode::kInvalidArgument, "x_scale");
  ExpectNodeError(NodeTest("DequantizeLinear", 13)
                      .Input<uint8_t>({2, 2}, {1, 2, 3, 4})
                      .Input<float>({3}, {1, 1, 1}),
                  ErrorCode::kInvalidArgument, "x_scale");
  ExpectNodeError(NodeTest("DequantizeLinear", 23)
                      .Attr("output_dtype", int64_t{2})
                      .Input<uint8_t>({1}, {1})
                      .Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "output_dtype");
}

TEST(QuantDynamicQuantizeLinear, RangeIncludesZero) {
  auto out =
      NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({4}, {0, 2, -1, 1}).Run();
  // scale = 3 / 255, zero point = round(1 / scale) = 85.
  const float scale = 3.0f / 255.0f;
  EXPECT_EQ(Values<float>(*out[1]), (std::vector<float>{scale}));
  EXPECT_EQ(Values<uint8_t>(*out[2]), (std::vector<uint8_t>{85}));
  EXPECT_EQ(Values<uint8_t>(*out[0]), (std::vector<uint8_t>{85, 255, 0, 170}));
  auto zeros = NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({2}, {0, 0}).Run();
  EXPECT_EQ(Values<float>(*zeros[1]), (std::vector<float>{0}));
  EXPECT_EQ(Values<uint8_t>(*zeros[0]), (std::vector<uint8_t>{0, 0}));
  auto empty = NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({0}, {}).Run();
  EXPECT_EQ(empty[0]->element_count(), 0u);
}

TEST(QuantDynamicQuantizeLinear, Errors) {
  ExpectNodeError(NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<double>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'x'");
  ExpectNodeError(NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({1}, {NAN}),
                  ErrorCode::kInvalidArgument, "NaN");
}

}  // namespace
}  // namespace kiln::testing
