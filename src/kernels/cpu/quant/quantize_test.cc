// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: rounding, per-axis and blocked
// scales, the narrow types, opset differences and every error. Expected values worked out by
// hand from the ONNX definitions (and checked with numpy's rint).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
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

// The vectorized, threaded float paths against the elementwise definitions, value for value:
// QuantizeLinear and DequantizeLinear per tensor, along a middle axis and along the last axis,
// on 1 and 2 threads, over tensors large enough to be split (ties, NaN, ±inf, -0, huge values
// among random ones), and DynamicQuantizeLinear the same way (and its NaN error naming the
// element, far into a large input).
std::vector<float> FastPathInputs(size_t n, float scale) {
  std::vector<float> x(n);
  uint32_t state = 2024;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float u = static_cast<float>(state >> 8) / 16777216.0f;  // [0, 1)
    x[i] = (u - 0.5f) * 600.0f * scale;
    if (i % 7 == 0) x[i] = (std::floor(x[i] / scale) + 0.5f) * scale;  // near a tie
  }
  const float specials[] = {NAN,    INFINITY,     -INFINITY,     -0.0f,          1e30f,
                            -1e30f, 2.5f * scale, -2.5f * scale, 127.5f * scale, -128.5f * scale};
  for (size_t k = 0; k < std::size(specials); ++k) x[(k * 7919) % n] = specials[k];
  return x;
}

template <typename T>
T QuantizeDefinition(float x, float s, double z) {
  const double q = static_cast<double>(x / s);
  if (std::isnan(q)) return T{0};
  const double lo = std::numeric_limits<T>::lowest();
  const double hi = std::numeric_limits<T>::max();
  return static_cast<T>(std::clamp(std::nearbyint(q) + z, lo, hi));
}

template <typename T>
void CheckQuantizeFast(const V& shape, int64_t axis, const std::vector<float>& scales,
                       const std::vector<T>& zps) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  const std::vector<float> x = FastPathInputs(n, scales[0]);
  const size_t rank = shape.size();
  const size_t ax = static_cast<size_t>(axis);
  size_t inner = 1;
  for (size_t d = ax + 1; d < rank; ++d) inner *= static_cast<size_t>(shape[d]);
  const bool per_tensor = scales.size() == 1;
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads) + " axis " + std::to_string(axis) +
                 " scales " + std::to_string(scales.size()));
    V sshape = per_tensor ? V{} : V{static_cast<int64_t>(scales.size())};
    NodeTest q("QuantizeLinear", 13);
    q.Attr("axis", axis).Input<float>(shape, x).Input<float>(sshape, scales);
    if (!zps.empty()) q.Input<T>(sshape, zps);
    const std::vector<T> got = Values<T>(*q.Run(threads)[0]);
    ASSERT_EQ(got.size(), n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t a = per_tensor ? 0 : (i / inner) % scales.size();
      const double z = zps.empty() ? 0.0 : static_cast<double>(zps[a]);
      const T want = QuantizeDefinition<T>(x[i], scales[a], z);
      if (got[i] != want && wrong++ < 5) {
        ADD_FAILURE() << "y[" << i << "] = " << +got[i] << " for x " << x[i] << ", want " << +want;
      }
    }
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(QuantFastPaths, QuantizeLinearMatchesTheDefinition) {
  CheckQuantizeFast<uint8_t>({100003}, 1, {0.37f}, {128});
  CheckQuantizeFast<uint8_t>({100003}, 1, {0.37f}, {});
  CheckQuantizeFast<int8_t>({100003}, 1, {0.05f}, {-3});
  CheckQuantizeFast<int8_t>({2, 5, 97, 101}, 1, {0.1f, 0.2f, 0.3f, 0.05f, 1.0f}, {0, 1, -2, 5, -7});
  CheckQuantizeFast<uint8_t>({3, 211, 64}, 2, std::vector<float>(64, 0.25f),
                             std::vector<uint8_t>(64, 9));
  std::vector<float> s(37);
  std::vector<int8_t> z(37);
  for (size_t i = 0; i < 37; ++i) {
    s[i] = 0.01f * static_cast<float>(i + 1);
    z[i] = static_cast<int8_t>(static_cast<int>(i) - 18);
  }
  CheckQuantizeFast<int8_t>({2001, 37}, 1, s, z);
}

template <typename T>
void CheckDequantizeFast(const V& shape, int64_t axis, const std::vector<float>& scales,
                         const std::vector<T>& zps) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  std::vector<T> x(n);
  uint32_t state = 77;
  for (T& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<T>(state >> (sizeof(T) == 4 ? 0 : 24));
  }
  size_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) {
    inner *= static_cast<size_t>(shape[d]);
  }
  const bool per_tensor = scales.size() == 1;
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads) + " axis " + std::to_string(axis));
    V sshape = per_tensor ? V{} : V{static_cast<int64_t>(scales.size())};
    NodeTest d("DequantizeLinear", 13);
    d.Attr("axis", axis).Input<T>(shape, x);
    d.Input<float>(sshape, scales);
    if (!zps.empty()) d.Input<T>(sshape, zps);
    const std::vector<float> got = Values<float>(*d.Run(threads)[0]);
    ASSERT_EQ(got.size(), n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t a = per_tensor ? 0 : (i / inner) % scales.size();
      const float z = zps.empty() ? 0.0f : static_cast<float>(zps[a]);
      const float want = (static_cast<float>(x[i]) - z) * scales[a];
      if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want) && wrong++ < 5) {
        ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", want " << want;
      }
    }
    EXPECT_EQ(wrong, 0u);
  }
}

TEST(QuantFastPaths, DequantizeLinearMatchesTheDefinition) {
  CheckDequantizeFast<uint8_t>({100003}, 1, {0.37f}, {128});
  CheckDequantizeFast<int8_t>({100003}, 1, {0.05f}, {});
  CheckDequantizeFast<int32_t>({70001}, 1, {1.0e-4f}, {0});
  CheckDequantizeFast<int8_t>({2, 5, 97, 101}, 1, {0.1f, 0.2f, 0.3f, 0.05f, 1.0f},
                              {0, 1, -2, 5, -7});
  CheckDequantizeFast<uint8_t>({2001, 3}, 1, {0.5f, 0.25f, 3.0f}, {1, 2, 3});
  CheckDequantizeFast<int32_t>({999, 7}, 1, {1, 2, 3, 4, 5, 6, 7}, {});
}

TEST(QuantFastPaths, DynamicQuantizeLinearMatchesTheDefinition) {
  std::vector<float> x = FastPathInputs(100003, 0.1f);
  for (float& v : x) {
    if (!std::isfinite(v) || std::fabs(v) > 1e3f) v = 1.5f;  // a finite range
  }
  for (int threads : {1, 2}) {
    auto out =
        NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({100003}, x).Run(threads);
    float lo = 0;
    float hi = 0;
    for (float v : x) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const float scale = (hi - lo) / 255.0f;
    const float zero = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
    ASSERT_EQ(Values<float>(*out[1]), (std::vector<float>{scale}));
    ASSERT_EQ(Values<uint8_t>(*out[2]), (std::vector<uint8_t>{static_cast<uint8_t>(zero)}));
    const std::vector<uint8_t> got = Values<uint8_t>(*out[0]);
    size_t wrong = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const auto want = static_cast<uint8_t>(
          std::clamp(std::nearbyint(static_cast<double>(x[i] / scale)) + zero, 0.0, 255.0));
      wrong += got[i] != want;
    }
    EXPECT_EQ(wrong, 0u);
  }
  x[87654] = NAN;
  ExpectNodeError(NodeTest("DynamicQuantizeLinear", 11).Outputs(3).Input<float>({100003}, x),
                  ErrorCode::kInvalidArgument, "element 87654 is NaN");
}

}  // namespace
}  // namespace kiln::testing
