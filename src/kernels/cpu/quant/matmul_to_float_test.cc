// MatMulIntegerToFloat and DynamicQuantizeMatMul (com.microsoft) against their definitions, value
// for value: every operand pairing, scales and zero points per tensor and per column, a bias,
// batch dimensions of A, B constant (packed at creation) and not, 1 and 2 threads; and every
// error naming its input.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

std::vector<float> RandomFloats(size_t n, uint32_t seed, float scale) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (static_cast<float>(seed >> 8) / 16777216.0f - 0.4f) * scale;
  }
  return v;
}

// float((A - za)(B - zb)) · (a_scale · b_scale[j]) + bias[j], A m × k, B k × n.
template <typename TA, typename TB>
std::vector<float> Definition(const std::vector<TA>& a, const std::vector<TB>& b, size_t m,
                              size_t k, size_t n, int32_t za, const std::vector<int32_t>& zb,
                              float a_scale, const std::vector<float>& b_scale,
                              const std::vector<float>& bias) {
  std::vector<float> y(m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      const int32_t z = zb.size() == 1 ? zb[0] : zb[j];
      for (size_t p = 0; p < k; ++p)
        acc += (int32_t{a[i * k + p]} - za) * (int32_t{b[p * n + j]} - z);
      float v =
          static_cast<float>(acc) * (a_scale * (b_scale.size() == 1 ? b_scale[0] : b_scale[j]));
      if (!bias.empty()) v = v + bias[j];
      y[i * n + j] = v;
    }
  }
  return y;
}

void ExpectSameBits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i]) && wrong++ < 5) {
      ADD_FAILURE() << "y[" << i << "] = " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0u);
}

template <typename TA, typename TB>
void CheckToFloat(bool per_column, bool with_bias, bool constant_b) {
  SCOPED_TRACE(std::string("per_column ") + std::to_string(per_column) + " bias " +
               std::to_string(with_bias) + " constant " + std::to_string(constant_b));
  const size_t batch = 3, m = 7, k = 37, n = 45;
  const std::vector<TA> a = RandomInts<TA>(batch * m * k, 5);
  const std::vector<TB> b = RandomInts<TB>(k * n, 9);
  const auto za = static_cast<TA>(std::is_signed_v<TA> ? -3 : 131);
  std::vector<TB> zb = per_column ? RandomInts<TB>(n, 13) : std::vector<TB>{static_cast<TB>(7)};
  const std::vector<float> bs =
      per_column ? RandomFloats(n, 17, 0.01f) : std::vector<float>{0.013f};
  const std::vector<float> bias = with_bias ? RandomFloats(n, 19, 3.0f) : std::vector<float>{};
  const V zshape = per_column ? V{static_cast<int64_t>(n)} : V{};
  for (int threads : {1, 2}) {
    NodeTest t("MatMulIntegerToFloat", 1, kMs);
    t.Input<TA>({static_cast<int64_t>(batch), static_cast<int64_t>(m), static_cast<int64_t>(k)}, a);
    t.Input<TB>({static_cast<int64_t>(k), static_cast<int64_t>(n)}, b, constant_b);
    t.Input<float>({}, {0.07f});
    t.Input<float>(zshape, bs);
    t.Input<TA>({}, {za});
    t.Input<TB>(zshape, zb);
    if (with_bias) t.Input<float>({static_cast<int64_t>(n)}, bias);
    const std::vector<float> got = Values<float>(*t.Run(threads)[0]);
    std::vector<int32_t> zb32(zb.begin(), zb.end());
    ExpectSameBits(got, Definition(a, b, batch * m, k, n, za, zb32, 0.07f, bs, bias));
  }
}

TEST(QuantMatMulIntegerToFloat, MatchesTheDefinition) {
  for (bool per_column : {false, true}) {
    for (bool bias : {false, true}) {
      for (bool constant : {false, true}) {
        CheckToFloat<uint8_t, int8_t>(per_column, bias, constant);
        CheckToFloat<int8_t, uint8_t>(per_column, bias, constant);
      }
    }
  }
  CheckToFloat<uint8_t, uint8_t>(true, true, true);
  CheckToFloat<int8_t, int8_t>(false, false, false);
}

void CheckDynamic(size_t n);

// DynamicQuantizeLinear's arithmetic on A, then the product as above (symmetric B: on VNNI
// machines the kernel converts its tiles to float itself, and with a wide B at two threads the
// threads share B's columns) — and with the AVX-512 paths off, the same bits.
TEST(QuantDynamicQuantizeMatMul, MatchesTheChainItReplaces) {
  for (size_t n : {size_t{33}, size_t{600}}) {
    for (bool avx512 : {true, false}) {
      SCOPED_TRACE("n " + std::to_string(n) + " avx512 " + std::to_string(avx512));
      const cpu::ScopedVectorMathAvx512 scoped(avx512);
      CheckDynamic(n);
    }
  }
}

void CheckDynamic(size_t n) {
  const size_t m = 19, k = 70;
  std::vector<float> a = RandomFloats(m * k, 23, 4.0f);
  const std::vector<int8_t> b = RandomInts<int8_t>(k * n, 29);
  const std::vector<float> bs = RandomFloats(n, 31, 0.02f);
  const std::vector<float> bias = RandomFloats(n, 37, 1.0f);
  float lo = 0, hi = 0;
  for (float v : a) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float scale = (hi - lo) / 255.0f;
  const float zero = std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
  std::vector<uint8_t> q(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    q[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(a[i] / scale) + zero, 0.0f, 255.0f));
  }
  const std::vector<float> want =
      Definition(q, b, m, k, n, static_cast<int32_t>(zero), {0}, scale, bs, bias);
  for (bool constant : {false, true}) {
    for (int threads : {1, 2}) {
      auto out = NodeTest("DynamicQuantizeMatMul", 1, kMs)
                     .Input<float>({static_cast<int64_t>(m), static_cast<int64_t>(k)}, a)
                     .Input<int8_t>({static_cast<int64_t>(k), static_cast<int64_t>(n)}, b, constant)
                     .Input<float>({static_cast<int64_t>(n)}, bs)
                     .MissingInput()
                     .Input<float>({static_cast<int64_t>(n)}, bias)
                     .Run(threads);
      ExpectSameBits(Values<float>(*out[0]), want);
    }
  }
  if (n != 33) return;
  a[1234] = NAN;
  ExpectNodeError(NodeTest("DynamicQuantizeMatMul", 1, kMs)
                      .Input<float>({static_cast<int64_t>(m), static_cast<int64_t>(k)}, a)
                      .Input<int8_t>({static_cast<int64_t>(k), static_cast<int64_t>(n)}, b)
                      .Input<float>({}, {0.1f}),
                  ErrorCode::kInvalidArgument, "input 'A' element 1234 is NaN");
}

TEST(QuantMatMulIntegerToFloat, Errors) {
  const auto base = [](const V& a_shape, const V& b_shape) {
    NodeTest t("MatMulIntegerToFloat", 1, kMs);
    size_t na = 1, nb = 1;
    for (int64_t d : a_shape) na *= static_cast<size_t>(d);
    for (int64_t d : b_shape) nb *= static_cast<size_t>(d);
    t.Input<uint8_t>(a_shape, std::vector<uint8_t>(na, 1));
    t.Input<int8_t>(b_shape, std::vector<int8_t>(nb, 1));
    return t;
  };
  ExpectNodeError(base({2, 3}, {4, 5}).Input<float>({}, {1}).Input<float>({}, {1}),
                  ErrorCode::kInvalidArgument, "A's last dimension must be B's first");
  ExpectNodeError(base({2, 3}, {2, 3, 5}).Input<float>({}, {1}).Input<float>({}, {1}),
                  ErrorCode::kNotImplemented, "only a 2-D B");
  ExpectNodeError(base({2, 3}, {3, 5}).Input<float>({2}, {1, 1}).Input<float>({}, {1}),
                  ErrorCode::kNotImplemented, "input 'a_scale'");
  ExpectNodeError(base({2, 3}, {3, 5}).Input<float>({}, {1}).Input<float>({4}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'b_scale'");
  ExpectNodeError(
      base({2, 3}, {3, 5}).Input<float>({}, {1}).Input<float>({}, {1}).Input<int8_t>({}, {0}),
      ErrorCode::kInvalidArgument, "input 'a_zero_point' has element type int8");
  ExpectNodeError(base({2, 3}, {3, 5})
                      .Input<float>({}, {1})
                      .Input<float>({}, {1})
                      .MissingInput()
                      .Input<uint8_t>({}, {0}),
                  ErrorCode::kInvalidArgument, "input 'b_zero_point'");
  ExpectNodeError(base({2, 3}, {3, 5})
                      .Input<float>({}, {1})
                      .Input<float>({}, {1})
                      .MissingInput()
                      .MissingInput()
                      .Input<float>({4}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'bias'");
  NodeTest wrong_a("MatMulIntegerToFloat", 1, kMs);
  wrong_a.Input<float>({1, 3}, {1, 2, 3}).Input<int8_t>({3, 1}, {1, 2, 3});
  ExpectNodeError(wrong_a.Input<float>({}, {1}).Input<float>({}, {1}), ErrorCode::kInvalidArgument,
                  "input 'A' has element type float");
}

}  // namespace
}  // namespace kiln::testing
