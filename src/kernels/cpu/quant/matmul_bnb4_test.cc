// com.microsoft MatMulBnb4: the codes' order (high nibble first) and both maps checked on a
// hand-made weight; random FP4 and NF4 weights (an odd N·K, a short last block) against the
// product written out in double, with constant weights (dequantized at creation) and not, 1 and
// 2 threads; and each error naming its input or attribute.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

NodeTest Bnb4(int64_t k, int64_t n, int64_t block, int64_t type) {
  NodeTest t("MatMulBnb4", 1, kMs);
  t.Attr("K", k).Attr("N", n).Attr("block_size", block).Attr("quant_type", type);
  return t;
}

TEST(QuantMatMulBnb4, CodesAndMaps) {
  // W [2, 16], one block of 32 with absmax 2: row 0 the codes 0..15, row 1 the codes 15..0, so
  // byte j holds elements 2j (high nibble) and 2j + 1 (low nibble).
  std::vector<uint8_t> b(16);
  for (unsigned j = 0; j < 8; ++j) {
    b[j] = static_cast<uint8_t>((2 * j) << 4 | (2 * j + 1));
    b[8 + j] = static_cast<uint8_t>((15 - 2 * j) << 4 | (14 - 2 * j));
  }
  // A picks single columns: row r of A is the unit vector e_r, so Y[r, n] = W[n, r].
  std::vector<float> a(size_t{16} * 16, 0.0f);
  for (size_t r = 0; r < 16; ++r) a[r * 16 + r] = 1.0f;
  for (int64_t type : {0, 1}) {
    auto y = Bnb4(16, 2, 32, type)
                 .Input<float>({16, 16}, a)
                 .Input<uint8_t>({16}, b)
                 .Input<float>({1}, {2.0f})
                 .Run();
    const std::vector<float> v = Values<float>(*y[0]);
    // NF4: code 0 is -1, code 7 is 0, code 15 is 1; FP4: code 3 is 1, code 11 is -1, code 1 the
    // subnormal 1/192.
    if (type == 1) {
      EXPECT_FLOAT_EQ(v[0 * 2 + 0], -2.0f);
      EXPECT_FLOAT_EQ(v[7 * 2 + 0], 0.0f);
      EXPECT_FLOAT_EQ(v[15 * 2 + 0], 2.0f);
      EXPECT_FLOAT_EQ(v[0 * 2 + 1], 2.0f);
      EXPECT_FLOAT_EQ(v[8 * 2 + 0], 2.0f * 0.07958029955625534f);
    } else {
      EXPECT_FLOAT_EQ(v[3 * 2 + 0], 2.0f);
      EXPECT_FLOAT_EQ(v[11 * 2 + 0], -2.0f);
      EXPECT_FLOAT_EQ(v[1 * 2 + 0], 2.0f / 192.0f);
      EXPECT_FLOAT_EQ(v[4 * 2 + 1], -2.0f);  // row 1, element 4: code 15 - 4 = 11
      EXPECT_FLOAT_EQ(v[12 * 2 + 1], 2.0f);  // code 3
    }
  }
}

// Random codes and maxima, N·K odd and the last block short: the product against W as the kernel
// reads it (A = I gives Wᵀ), written out in double; batch dimensions; constant weights and not.
TEST(QuantMatMulBnb4, ProductOfRandomWeights) {
  const int64_t k = 37, n = 5, block = 16;  // N·K = 185: 12 blocks, the last of 9
  const std::vector<uint8_t> b = RandomInts<uint8_t>(93, 7);
  std::vector<float> absmax(12);
  for (size_t i = 0; i < absmax.size(); ++i) absmax[i] = 0.25f + 0.1f * static_cast<float>(i);
  std::vector<float> eye(static_cast<size_t>(k * k), 0.0f);
  for (int64_t i = 0; i < k; ++i) eye[static_cast<size_t>(i * k + i)] = 1.0f;
  const std::vector<int8_t> codes = RandomInts<int8_t>(size_t{3} * 2 * k, 11);
  std::vector<float> a(codes.size());
  for (size_t i = 0; i < codes.size(); ++i) a[i] = static_cast<float>(codes[i]) / 32.0f;
  for (int64_t type : {0, 1}) {
    const std::vector<float> wt = Values<float>(*Bnb4(k, n, block, type)
                                                     .Input<float>({k, k}, eye)
                                                     .Input<uint8_t>({93}, b)
                                                     .Input<float>({12}, absmax)
                                                     .Run()[0]);  // [K, N]
    std::vector<double> want;
    for (size_t r = 0; r < 6; ++r) {
      for (size_t j = 0; j < static_cast<size_t>(n); ++j) {
        double s = 0;
        for (size_t t = 0; t < static_cast<size_t>(k); ++t) {
          s += double{a[r * k + t]} * wt[t * n + j];
        }
        want.push_back(s);
      }
    }
    for (bool constant : {true, false}) {
      for (int threads : {1, 2}) {
        auto y = Bnb4(k, n, block, type)
                     .Input<float>({3, 2, k}, a)
                     .Input<uint8_t>({93}, b, constant)
                     .Input<float>({12}, absmax, constant)
                     .Run(threads);
        ASSERT_EQ(y[0]->shape(), Shape({3, 2, n}));
        const std::vector<float> got = Values<float>(*y[0]);
        for (size_t i = 0; i < want.size(); ++i) {
          EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i])))
              << "type " << type << " constant " << constant << " at " << i;
        }
      }
    }
  }
}

TEST(QuantMatMulBnb4, Errors) {
  const std::vector<uint8_t> b(8, 0x77);
  ExpectNodeError(Bnb4(4, 4, 16, 1)
                      .Input<float>({2, 3}, std::vector<float>(6, 1.0f))
                      .Input<uint8_t>({8}, b)
                      .Input<float>({1}, {1.0f}),
                  ErrorCode::kInvalidArgument,
                  "input 'A' has shape [2,3]; its last dimension must be K = 4");
  ExpectNodeError(Bnb4(4, 4, 16, 1)
                      .Input<float>({1, 4}, std::vector<float>(4, 1.0f))
                      .Input<uint8_t>({7}, std::vector<uint8_t>(7, 0))
                      .Input<float>({1}, {1.0f}),
                  ErrorCode::kInvalidArgument, "input 'B' is uint8 [7]; it must be uint8 of");
  ExpectNodeError(Bnb4(4, 4, 16, 1)
                      .Input<float>({1, 4}, std::vector<float>(4, 1.0f))
                      .Input<uint8_t>({8}, b)
                      .Input<float>({2}, {1.0f, 1.0f}),
                  ErrorCode::kInvalidArgument, "input 'absmax' is float [2]; it must be float of");
  ExpectNodeError(Bnb4(4, 4, 24, 1)
                      .Input<float>({1, 4}, std::vector<float>(4, 1.0f))
                      .Input<uint8_t>({8}, b)
                      .Input<float>({1}, {1.0f}),
                  ErrorCode::kInvalidGraph, "attribute 'block_size' is 24");
  ExpectNodeError(Bnb4(4, 4, 16, 2)
                      .Input<float>({1, 4}, std::vector<float>(4, 1.0f))
                      .Input<uint8_t>({8}, b)
                      .Input<float>({1}, {1.0f}),
                  ErrorCode::kInvalidGraph, "attribute 'quant_type' is 2");
  ExpectNodeError(NodeTest(Bnb4(4, 4, 16, 1))
                      .Attr("transB", int64_t{0})
                      .Input<float>({1, 4}, std::vector<float>(4, 1.0f))
                      .Input<uint8_t>({8}, b)
                      .Input<float>({1}, {1.0f}),
                  ErrorCode::kNotImplemented, "attribute 'transB' 0 is not implemented");
}

}  // namespace
}  // namespace kiln::testing
