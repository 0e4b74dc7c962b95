// com.microsoft MatMulNBits against its definition in double: 2, 4 and 8 bits, block sizes 16
// and 32 with K not a multiple of the block, zero points packed (uint8), typed (float) and
// absent (2^(bits-1)), a bias, g_idx, float and float16 A with batch dimensions, few rows (one
// column at a time) and many (blocks of columns on the GEMM), constant weights and not, 1 and 2
// threads, the AVX-512 4-bit paths and the portable ones; and each error naming its input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

uint32_t Next(uint32_t& seed) {
  seed = seed * 1664525u + 1013904223u;
  return seed >> 8;
}

enum class Zp { kNone, kPacked, kTyped };

struct Case {
  std::vector<int64_t> a_batch;  // A's dimensions before K
  int64_t k, n, bits, block;
  Zp zp;
  bool bias, g_idx, half, constant;
};

// Writes value v (< 2^bits) as element i of a packed run of `bits`-bit values.
void Put(std::vector<uint8_t>& bytes, size_t base, size_t i, unsigned bits, unsigned v) {
  const size_t bit = i * bits;
  bytes[base + bit / 8] = static_cast<uint8_t>(bytes[base + bit / 8] | (v << (bit % 8)));
}

void Check(const Case& c, int threads) {
  uint32_t seed = static_cast<uint32_t>(c.k * 31 + c.n * 7 + c.bits);
  const auto k = static_cast<size_t>(c.k), n = static_cast<size_t>(c.n);
  const size_t blocks = (k + static_cast<size_t>(c.block) - 1) / static_cast<size_t>(c.block);
  const size_t blob = static_cast<size_t>(c.block * c.bits / 8);
  const unsigned levels = 1u << c.bits;
  size_t m = 1;
  for (int64_t d : c.a_batch) m *= static_cast<size_t>(d);
  std::vector<float> a(m * k);
  for (float& v : a) v = static_cast<float>(Next(seed) % 2001) / 1000.0f - 1.0f;
  if (c.half) {
    for (float& v : a) v = Float16::FromFloat(v).ToFloat();
  }
  // q(n, k) and the block of each depth.
  std::vector<unsigned> q(n * k);
  for (unsigned& v : q) v = Next(seed) % levels;
  std::vector<int32_t> g(k);
  for (size_t i = 0; i < k; ++i) {
    g[i] = static_cast<int32_t>(c.g_idx ? (i * 7 + 3) % blocks : i / static_cast<size_t>(c.block));
  }
  std::vector<uint8_t> b(n * blocks * blob, 0);
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < k; ++i) {
      Put(b, (j * blocks + i / static_cast<size_t>(c.block)) * blob,
          i % static_cast<size_t>(c.block), static_cast<unsigned>(c.bits), q[j * k + i]);
    }
  }
  std::vector<float> scales(n * blocks), zf(n * blocks), bias(n);
  const size_t zp_stride = (blocks * static_cast<size_t>(c.bits) + 7) / 8;
  std::vector<uint8_t> zp_packed(n * zp_stride, 0);
  for (size_t i = 0; i < n * blocks; ++i) {
    scales[i] = 0.01f + static_cast<float>(Next(seed) % 100) / 2000.0f;
    if (c.half) scales[i] = Float16::FromFloat(scales[i]).ToFloat();
    const unsigned z = Next(seed) % levels;
    zf[i] = c.zp == Zp::kNone ? static_cast<float>(levels / 2) : static_cast<float>(z);
    if (c.zp == Zp::kTyped) zf[i] += 0.5f;  // a typed zero point need not be an integer
    if (c.zp == Zp::kPacked) Put(zp_packed, (i / blocks) * zp_stride, i % blocks, c.bits, z);
  }
  for (float& v : bias) v = static_cast<float>(Next(seed) % 200) / 100.0f - 1.0f;
  // The definition.
  std::vector<double> want(m * n);
  for (size_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < n; ++j) {
      double s = c.bias ? bias[j] : 0.0;
      for (size_t i = 0; i < k; ++i) {
        const size_t blk = j * blocks + static_cast<size_t>(g[i]);
        s += static_cast<double>(a[r * k + i]) *
             ((static_cast<double>(q[j * k + i]) - zf[blk]) * scales[blk]);
      }
      want[r * n + j] = s;
    }
  }
  NodeTest t("MatMulNBits", 1, kMs);
  t.Attr("K", c.k).Attr("N", c.n).Attr("bits", c.bits).Attr("block_size", c.block);
  V a_dims = c.a_batch;
  a_dims.push_back(c.k);
  auto halves = [](const std::vector<float>& v) {
    std::vector<Float16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = Float16::FromFloat(v[i]);
    return h;
  };
  if (c.half) {
    t.Input<Float16>(a_dims, halves(a));
  } else {
    t.Input<float>(a_dims, a);
  }
  t.Input<uint8_t>({c.n, static_cast<int64_t>(blocks), static_cast<int64_t>(blob)}, b, c.constant);
  const V s_dims = {static_cast<int64_t>(n * blocks)};
  if (c.half) {
    t.Input<Float16>(s_dims, halves(scales), c.constant);
  } else {
    t.Input<float>(s_dims, scales, c.constant);
  }
  if (c.zp == Zp::kPacked) {
    t.Input<uint8_t>({static_cast<int64_t>(n * zp_stride)}, zp_packed, c.constant);
  } else if (c.zp == Zp::kTyped) {
    t.Input<float>(s_dims, zf, c.constant);
  } else {
    t.MissingInput();
  }
  if (c.g_idx) {
    t.Input<int32_t>({c.k}, g, true);
  } else {
    t.MissingInput();
  }
  if (c.bias) {
    if (c.half) {
      t.Input<Float16>({c.n}, halves(bias), true);
    } else {
      t.Input<float>({c.n}, bias, true);
    }
  }
  auto out = t.Run(threads);
  V y_dims = c.a_batch;
  y_dims.push_back(c.n);
  ASSERT_EQ(out[0]->shape(), Shape(y_dims));
  std::vector<float> got(m * n);
  if (c.half) {
    const auto h = Values<Float16>(*out[0]);
    for (size_t i = 0; i < h.size(); ++i) got[i] = h[i].ToFloat();
  } else {
    got = Values<float>(*out[0]);
  }
  const double tol = c.half ? 2e-3 : 2e-5;
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > tol * (1.0 + std::abs(want[i])) && wrong++ < 5) {
      ADD_FAILURE() << "bits " << c.bits << " k " << c.k << " n " << c.n << " m " << m
                    << ": element " << i << " " << got[i] << " vs " << want[i];
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(QuantMatMulNBits, MatchesTheDefinition) {
  const Case cases[] = {
      {{1}, 64, 40, 4, 32, Zp::kPacked, false, false, false, true},     // a decoder's token
      {{3}, 96, 41, 4, 32, Zp::kTyped, true, false, false, true},       // pairs and a last column
      {{4}, 128, 33, 4, 64, Zp::kPacked, false, false, false, true},    // blocks of two chunks
      {{3}, 100, 70, 4, 16, Zp::kNone, true, false, false, true},       // K past the last block
      {{9}, 96, 130, 4, 32, Zp::kTyped, true, false, false, true},      // the GEMM path
      {{2, 3}, 50, 65, 4, 16, Zp::kPacked, true, false, false, false},  // batch, per-run weights
      {{2}, 48, 17, 8, 16, Zp::kPacked, false, false, false, true},     // 8 bits
      {{5}, 64, 33, 2, 32, Zp::kPacked, true, false, false, true},      // 2 bits
      {{1}, 64, 20, 4, 16, Zp::kPacked, false, true, false, true},      // g_idx
      {{7}, 64, 20, 4, 16, Zp::kNone, true, true, false, true},         // g_idx, many rows
      {{2}, 64, 24, 4, 32, Zp::kPacked, true, false, true, true},       // float16
      {{1, 6}, 96, 70, 4, 32, Zp::kTyped, false, false, true, false},   // float16, GEMM path
  };
  // The AVX-512 4-bit paths where the machine has them, and the portable ones.
  for (bool avx512 : {true, false}) {
    const bool before = cpu::AllowVectorMathAvx512ForTesting(avx512);
    for (const Case& c : cases) {
      for (int threads : {1, 2}) Check(c, threads);
    }
    cpu::AllowVectorMathAvx512ForTesting(before);
  }
}

TEST(QuantMatMulNBits, Errors) {
  auto node = [](int64_t k, int64_t bits, int64_t block) {
    NodeTest t("MatMulNBits", 1, kMs);
    t.Attr("K", k).Attr("N", int64_t{2}).Attr("bits", bits).Attr("block_size", block);
    return t;
  };
  const std::vector<uint8_t> b(2 * 2 * 8, 0x11);
  const std::vector<float> s(4, 0.1f);
  ExpectNodeError(std::move(node(32, 4, 16)
                                .Input<float>({1, 31}, std::vector<float>(31, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({4}, s)),
                  ErrorCode::kInvalidArgument, "input 'A'");
  ExpectNodeError(std::move(node(32, 4, 16)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 8}, std::vector<uint8_t>(16, 1))
                                .Input<float>({4}, s)),
                  ErrorCode::kInvalidArgument, "input 'B'");
  ExpectNodeError(std::move(node(32, 4, 16)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({3}, std::vector<float>(3, 0.1f))),
                  ErrorCode::kInvalidArgument, "input 'scales'");
  ExpectNodeError(std::move(node(32, 4, 16)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({4}, s)
                                .Input<uint8_t>({5}, std::vector<uint8_t>(5, 0))),
                  ErrorCode::kInvalidArgument, "input 'zero_points'");
  ExpectNodeError(std::move(node(32, 4, 16)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({4}, s)
                                .MissingInput()
                                .Input<int32_t>({32}, std::vector<int32_t>(32, 2))),
                  ErrorCode::kInvalidArgument, "input 'g_idx'");
  ExpectNodeError(std::move(node(32, 3, 16)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({4}, s)),
                  ErrorCode::kInvalidArgument, "'bits'");
  ExpectNodeError(std::move(node(32, 4, 24)
                                .Input<float>({1, 32}, std::vector<float>(32, 1.0f))
                                .Input<uint8_t>({2, 2, 8}, b)
                                .Input<float>({4}, s)),
                  ErrorCode::kInvalidArgument, "'block_size'");
}

}  // namespace
}  // namespace kiln::testing
