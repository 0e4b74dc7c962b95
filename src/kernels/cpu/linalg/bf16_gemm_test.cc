// Bf16Gemm against the product of the bf16-rounded operands in double (float sums: within float
// rounding of the terms' magnitudes), over sizes that end inside a pair of depths, a tile and a
// panel, and column ranges; skipped (as ctest's skip) on machines without AVX-512 BF16.
#include "kernels/cpu/linalg/bf16_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/float16.h"

namespace kiln::cpu {
namespace {

float Round(float v) {
  return BFloat16::FromFloat(v).ToFloat();
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f * 4.0f - 2.0f;
  }
  return v;
}

TEST(Bf16Gemm, MatchesTheRoundedOperandsProduct) {
  if (!Bf16GemmSupported()) GTEST_SKIP() << "no AVX-512 BF16 on this machine";
  struct Case {
    size_t m, k, n, col_begin, col_end;
  };
  const Case cases[] = {{1, 1, 1, 0, 1},      {5, 3, 17, 0, 17},     {12, 64, 32, 0, 32},
                        {13, 31, 33, 0, 33},  {40, 100, 70, 32, 70}, {7, 2, 16, 0, 16},
                        {97, 128, 96, 0, 64}, {3, 768, 40, 0, 40}};
  for (const Case& t : cases) {
    SCOPED_TRACE("m " + std::to_string(t.m) + " k " + std::to_string(t.k) + " n " +
                 std::to_string(t.n));
    const size_t lda = t.k + 3, ldc = t.n + 5;
    const std::vector<float> a = Random(t.m * lda, 1 + static_cast<uint32_t>(t.k));
    const std::vector<float> b = Random(t.k * t.n, 7 + static_cast<uint32_t>(t.n));
    const Bf16PackedB packed =
        Bf16PackedB::Pack(t.k, t.n, [&](size_t p, size_t j) { return b[p * t.n + j]; });
    std::vector<float> c(t.m * ldc, 12345.0f);  // what is outside the range must stay
    Bf16Gemm(t.m, a.data(), lda, packed, t.col_begin, t.col_end, c.data(), ldc);
    size_t wrong = 0;
    for (size_t i = 0; i < t.m; ++i) {
      for (size_t j = 0; j < ldc; ++j) {
        const float got = c[i * ldc + j];
        if (j < t.col_begin || j >= t.col_end) {
          EXPECT_EQ(got, 12345.0f) << "outside the range: " << i << ", " << j;
          continue;
        }
        double want = 0, mag = 0;
        for (size_t p = 0; p < t.k; ++p) {
          const double term = static_cast<double>(Round(a[i * lda + p])) * Round(b[p * t.n + j]);
          want += term;
          mag += std::abs(term);
        }
        if (std::abs(got - want) > 1e-6 * mag + 1e-6 && wrong++ < 5) {
          ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got << ", want " << want;
        }
      }
    }
    EXPECT_EQ(wrong, 0u);
  }
}

}  // namespace
}  // namespace kiln::cpu

namespace kiln::cpu {
namespace {

// PackFloatsInto's vector packing (a B that changes per run: attention's Kᵀ and V) gives PackInto's
// panels bit for bit, row-major and transposed, for odd depths (a last pair half zero), widths
// that end inside a panel's first and second vector, and row strides past the width; the padding
// stays zero even over storage that held other bytes.
TEST(Bf16Gemm, VectorPackingMatchesThePerElementOne) {
  if (!Bf16GemmSupported()) GTEST_SKIP() << "no AVX-512 BF16 on this machine";
  for (size_t k : {size_t{1}, size_t{7}, size_t{64}, size_t{65}}) {
    for (size_t n : {size_t{1}, size_t{16}, size_t{21}, size_t{40}, size_t{64}}) {
      for (bool transposed : {false, true}) {
        const size_t ld = (transposed ? k : n) + 3;
        std::vector<float> b((transposed ? n : k) * ld);
        for (size_t i = 0; i < b.size(); ++i) b[i] = std::sin(static_cast<float>(i) * 0.7f) * 3.0f;
        const auto value = [&](size_t p, size_t j) {
          return transposed ? b[j * ld + p] : b[p * ld + j];
        };
        const size_t count = Bf16PackedB::PanelElements(k, n);
        std::vector<uint16_t> want(count, 0xabcd), got(count, 0xabcd);
        std::vector<uint32_t> column((k + 1) / 2);
        const Bf16PackedB w = Bf16PackedB::PackInto(want.data(), k, n, value);
        const Bf16PackedB g =
            Bf16PackedB::PackFloatsInto(got.data(), b.data(), ld, k, n, transposed, column.data());
        EXPECT_EQ(g.k(), k);
        EXPECT_EQ(g.n(), n);
        EXPECT_EQ(got, want) << "k " << k << " n " << n << " transposed " << transposed;
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
