// PackedGemm against a naive triple loop, for every micro-kernel this machine runs: sizes that
// end inside a tile, a panel and a depth block, transposed packing, padded leading dimensions,
// column ranges, accumulation, an empty depth, the pool split, and the epilogue applied by the
// product.
#include "kernels/cpu/linalg/packed_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::cpu {
namespace {

std::vector<float> IntegerValues(size_t count, uint32_t seed) {
  return testing::IntegerValues<float>(count, seed);
}

const char* Name(PackedKernel kernel) {
  switch (kernel) {
    case PackedKernel::kAvx512:
      return "avx512";
    case PackedKernel::kAvx2:
      return "avx2";
    case PackedKernel::kPortable:
      return "portable";
  }
  return "?";
}

// Runs `body` once with each micro-kernel this machine supports, then restores the default.
template <typename Body>
void ForEachKernel(Body&& body) {
  size_t ran = 0;
  for (PackedKernel kernel :
       {PackedKernel::kAvx512, PackedKernel::kAvx2, PackedKernel::kPortable}) {
    if (!PackedKernelSupported(kernel)) continue;
    const PackedKernel previous = SetPackedKernelForTesting(kernel);
    SCOPED_TRACE(Name(kernel));
    body();
    SetPackedKernelForTesting(previous);
    ++ran;
  }
  EXPECT_GE(ran, 1u);  // the portable kernel at least
}

struct Case {
  size_t m, n, k;
  bool transposed;
  size_t pad;  // extra elements at the end of each row of A, B and C
};

// C = A·B through PackedGemm (whole, on `pool`), every element checked, padding untouched.
void Check(const Case& c, ThreadPool* pool) {
  SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
               " k=" + std::to_string(c.k) + " transposed=" + std::to_string(c.transposed) +
               " pad=" + std::to_string(c.pad));
  const size_t lda = c.k + c.pad;
  const size_t ldb = (c.transposed ? c.k : c.n) + c.pad;
  const size_t ldc = c.n + c.pad;
  const std::vector<float> a = IntegerValues(c.m * lda, 1);
  const std::vector<float> b = IntegerValues((c.transposed ? c.n : c.k) * ldb, 2);
  const PackedMatrix packed = PackedMatrix::Pack(b.data(), ldb, c.k, c.n, c.transposed);
  EXPECT_EQ(packed.k(), c.k);
  EXPECT_EQ(packed.n(), c.n);
  const float kNaN = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> out(c.m * ldc, kNaN);  // C is not read: NaN must not leak into it
  PackedGemm(c.m, a.data(), lda, packed, out.data(), ldc, pool);
  size_t wrong = 0;
  for (size_t i = 0; i < c.m; ++i) {
    for (size_t j = 0; j < c.n; ++j) {
      float want = 0;
      for (size_t p = 0; p < c.k; ++p) {
        want += a[i * lda + p] * (c.transposed ? b[j * ldb + p] : b[p * ldb + j]);
      }
      if (out[i * ldc + j] != want && wrong++ < 5) {
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << out[i * ldc + j] << ", want " << want;
      }
    }
    for (size_t j = c.n; j < ldc; ++j) EXPECT_TRUE(std::isnan(out[i * ldc + j])) << "padding";
  }
  EXPECT_EQ(wrong, 0u);
}

const Case kCases[] = {
    {1, 1, 1, false, 0},
    {12, 32, 8, false, 0},
    {13, 33, 7, false, 3},
    {5, 17, 300, false, 1},
    {25, 64, 257, true, 0},
    {7, 31, 513, true, 2},
    {100, 100, 100, false, 0},
    {197, 96, 64, true, 5},
    {3, 200, 2305, false, 0},  // three depth blocks, the last one shorter
    {250, 130, 40, false, 1},
    {11, 5, 1, true, 0},
    // Several depth blocks and a C wider than a column chunk: on one thread the columns go in
    // chunks (two for the first, three for the second).
    {70, 700, 1100, false, 1},
    {40, 1700, 1030, true, 0},
    // Rows of A a multiple of 4 KB apart: copied to rows a line further apart first (two row
    // blocks for the second).
    {30, 100, 1024, false, 0},
    {300, 70, 2048, true, 0},
};

TEST(PackedGemm, MatchesNaiveProductOnOneThread) {
  ForEachKernel([] {
    for (const Case& c : kCases) Check(c, nullptr);
  });
}

TEST(PackedGemm, MatchesNaiveProductOnThePool) {
  ThreadPool pool(2);
  ForEachKernel([&] {
    for (const Case& c : kCases) Check(c, &pool);
  });
}

TEST(PackedGemm, WritesOnlyTheColumnRangeAndAccumulates) {
  ForEachKernel([] {
    const size_t m = 14, n = 80, k = 33;
    const std::vector<float> a = IntegerValues(m * k, 3);
    const std::vector<float> b = IntegerValues(k * n, 4);
    const PackedMatrix packed = PackedMatrix::Pack(b.data(), n, k, n, false);
    std::vector<float> c(m * n, 1.0f);
    PackedGemm(m, a.data(), k, packed, 32, 70, c.data(), n, /*accumulate=*/true);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        float want = 1.0f;
        if (j >= 32 && j < 70) {
          for (size_t p = 0; p < k; ++p) want += a[i * k + p] * b[p * n + j];
        }
        ASSERT_EQ(c[i * n + j], want) << "C(" << i << ", " << j << ")";
      }
    }
  });
}

// The epilogue applied by the product (GemmEpilogue) against the same applied afterwards by a
// scalar loop as its comment says, bit for bit (NaN included): with and without a bias and a
// residual, none / ReLU / Clip, on one thread and the pool, over a column range and accumulating
// into C, for every case above (tiles, panels, depth blocks and runs, column chunks, copied
// rows of A). Row 1 of A holds a NaN, which the clamp must leave in place.
TEST(PackedGemm, EpilogueMatchesAPassAfterTheProduct) {
  ThreadPool pool(2);
  const float kInf = std::numeric_limits<float>::infinity();
  struct Act {
    bool clamp;
    float lo, hi;
  };
  const Act acts[] = {{false, 0, 0}, {true, 0.0f, kInf}, {true, -50.0f, 400.0f}};
  ForEachKernel([&] {
    for (const Case& c : kCases) {
      const size_t lda = c.k + c.pad;
      const size_t ldb = (c.transposed ? c.k : c.n) + c.pad;
      const size_t ldc = c.n + c.pad;
      std::vector<float> a = IntegerValues(c.m * lda, 11);
      if (c.m > 1) a[lda] = std::numeric_limits<float>::quiet_NaN();
      const std::vector<float> b = IntegerValues((c.transposed ? c.n : c.k) * ldb, 12);
      const std::vector<float> bias = IntegerValues(c.n, 13);
      const std::vector<float> z = IntegerValues(c.m * ldc, 14);
      const PackedMatrix packed = PackedMatrix::Pack(b.data(), ldb, c.k, c.n, c.transposed);
      const std::vector<float> start = IntegerValues(c.m * ldc, 15);
      // The product without the epilogue, once per way of computing it (the reference for every
      // epilogue below): how 0: whole, one thread; 1: whole, the pool; 2: columns from 32 on,
      // accumulating into C.
      std::vector<float> products[3];
      for (int how = 0; how < 3; ++how) {
        if (how == 2 && c.n <= 32) continue;
        products[how] = start;
        if (how == 2) {
          PackedGemm(c.m, a.data(), lda, packed, 32, c.n, products[how].data(), ldc, true);
        } else {
          PackedGemm(c.m, a.data(), lda, packed, products[how].data(), ldc,
                     how == 1 ? &pool : nullptr);
        }
      }
      for (const Act& act : acts) {
        for (int with = 0; with < 4; ++with) {
          for (int how = 0; how < 3; ++how) {
            if (products[how].empty()) continue;  // no columns from 32 on
            SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                         " k=" + std::to_string(c.k) + " clamp=" + std::to_string(act.clamp) +
                         " lo=" + std::to_string(act.lo) + " bias=" + std::to_string(with & 1) +
                         " z=" + std::to_string(with >> 1) + " how=" + std::to_string(how));
            GemmEpilogue ep;
            ep.bias = (with & 1) != 0 ? bias.data() : nullptr;
            ep.z = (with & 2) != 0 ? z.data() : nullptr;
            ep.ldz = ldc;
            ep.clamp = act.clamp;
            ep.lo = act.lo;
            ep.hi = act.hi;
            std::vector<float> want = products[how];
            std::vector<float> got = start;
            const size_t j0 = how == 2 ? 32 : 0;
            if (how == 2) {
              PackedGemm(c.m, a.data(), lda, packed, j0, c.n, got.data(), ldc, true, &ep);
            } else {
              ThreadPool* on = how == 1 ? &pool : nullptr;
              PackedGemm(c.m, a.data(), lda, packed, got.data(), ldc, on, false, &ep);
            }
            for (size_t i = 0; i < c.m; ++i) {
              for (size_t j = j0; j < c.n; ++j) {
                float& v = want[i * ldc + j];
                if (ep.bias != nullptr) v += ep.bias[j];
                if (ep.z != nullptr) v += ep.z[i * ldc + j];
                if (ep.clamp) v = std::min(std::max(v, ep.lo), ep.hi);
              }
            }
            size_t wrong = 0;
            for (size_t i = 0; i < c.m * ldc; ++i) {
              if (std::bit_cast<uint32_t>(want[i]) != std::bit_cast<uint32_t>(got[i]) &&
                  wrong++ < 3) {
                ADD_FAILURE() << "C(" << i / ldc << ", " << i % ldc << ") = " << got[i] << ", want "
                              << want[i];
              }
            }
            EXPECT_EQ(wrong, 0u);
          }
        }
      }
    }
  });
}

TEST(PackedGemm, PacksFromAnAccessor) {
  const size_t k = 5, n = 40;
  const std::vector<float> b = IntegerValues(k * n, 9);
  const PackedMatrix from_memory = PackedMatrix::Pack(b.data(), n, k, n, false);
  const PackedMatrix from_accessor =
      PackedMatrix::PackFrom(k, n, [&](size_t p, size_t j) { return b[p * n + j]; });
  ASSERT_EQ(from_accessor.panels(), 2u);
  for (size_t j = 0; j < 2; ++j) {
    for (size_t i = 0; i < k * kPackedPanel; ++i) {
      ASSERT_EQ(from_accessor.panel(j)[i], from_memory.panel(j)[i]) << "panel " << j << " " << i;
    }
  }
  // Past column n the last panel is zero.
  for (size_t p = 0; p < k; ++p) {
    for (size_t c = n - kPackedPanel; c < kPackedPanel; ++c) {
      EXPECT_EQ(from_accessor.panel(1)[p * kPackedPanel + c], 0.0f);
    }
  }
}

// Deep products of non-integer values: the rounding error against a float64 sum stays that of
// short sums (packed::kSumDepth steps in registers, then added to C). Summing all 2,048 products
// of a depth block in registers gives an RMS relative error near 5.7e-7; runs of 128, 2.2e-7.
TEST(PackedGemm, DeepSumsKeepTheErrorOfShortOnes) {
  const size_t m = 48, n = 64, k = 2048;
  std::vector<float> a(m * k), b(k * n);
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  };
  for (float& v : a) v = next();
  for (float& v : b) v = next();
  const PackedMatrix packed = PackedMatrix::Pack(b.data(), n, k, n, false);
  ForEachKernel([&] {
    std::vector<float> c(m * n);
    PackedGemm(m, a.data(), k, packed, c.data(), n, nullptr);
    double error = 0, norm = 0;
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double want = 0;
        for (size_t p = 0; p < k; ++p) want += double(a[i * k + p]) * b[p * n + j];
        error += (c[i * n + j] - want) * (c[i * n + j] - want);
        norm += want * want;
      }
    }
    EXPECT_LT(std::sqrt(error / norm), 3.5e-7);
  });
}

// A DepthSlice multiplies by rows [k0, k0 + k) of B without repacking: A's columns from k0 on
// against the slice equal the naive product over those depths, for slices inside one depth
// block and across two, accumulating into C.
TEST(PackedGemm, DepthSliceMultipliesByThoseRows) {
  const size_t m = 13, n = 70, k = 1500;
  const std::vector<float> a = IntegerValues(m * k, 5);
  const std::vector<float> b = IntegerValues(k * n, 6);
  const PackedMatrix packed = PackedMatrix::Pack(b.data(), n, k, n, false);
  ForEachKernel([&] {
    for (const auto& [k0, kc] : {std::pair<size_t, size_t>{0, 7}, {40, 100}, {900, 600}}) {
      SCOPED_TRACE("k0=" + std::to_string(k0) + " k=" + std::to_string(kc));
      const PackedMatrix slice = packed.DepthSlice(k0, kc);
      EXPECT_EQ(slice.k(), kc);
      EXPECT_EQ(slice.n(), n);
      std::vector<float> c(m * n, 1.0f);
      PackedGemm(m, a.data() + k0, k, slice, 0, n, c.data(), n, /*accumulate=*/true);
      size_t wrong = 0;
      for (size_t i = 0; i < m; ++i) {
        for (size_t j = 0; j < n; ++j) {
          float want = 1.0f;
          for (size_t p = k0; p < k0 + kc; ++p) want += a[i * k + p] * b[p * n + j];
          wrong += c[i * n + j] != want;
        }
      }
      EXPECT_EQ(wrong, 0u);
    }
  });
}

TEST(PackedGemm, EmptyDepthWritesZerosOrLeavesCAlone) {
  const PackedMatrix packed = PackedMatrix::Pack(nullptr, 5, 0, 5, false);
  EXPECT_TRUE(packed.empty());
  std::vector<float> c(15, 7.0f);
  PackedGemm(3, nullptr, 0, packed, 0, 5, c.data(), 5, /*accumulate=*/true);
  EXPECT_EQ(c, std::vector<float>(15, 7.0f));
  PackedGemm(3, nullptr, 0, packed, c.data(), 5, nullptr);
  EXPECT_EQ(c, std::vector<float>(15, 0.0f));
  // With an epilogue, the empty product's zeros (or C) still get it.
  const float bias[5] = {1, -2, 3, -4, 5};
  GemmEpilogue ep;
  ep.bias = bias;
  ep.clamp = true;
  ep.lo = 0.0f;
  ep.hi = 4.0f;
  PackedGemm(3, nullptr, 0, packed, c.data(), 5, nullptr, false, &ep);
  for (size_t i = 0; i < 15; ++i) EXPECT_EQ(c[i], std::min(std::max(bias[i % 5], 0.0f), 4.0f));
  std::fill(c.begin(), c.end(), 2.0f);
  PackedGemm(3, nullptr, 0, packed, 0, 5, c.data(), 5, /*accumulate=*/true, &ep);
  for (size_t i = 0; i < 15; ++i) EXPECT_EQ(c[i], std::min(std::max(2 + bias[i % 5], 0.0f), 4.0f));
}

TEST(PackedGemm, RefusesAKernelTheMachineLacks) {
  for (PackedKernel kernel : {PackedKernel::kAvx512, PackedKernel::kAvx2}) {
    if (PackedKernelSupported(kernel)) continue;
    EXPECT_THROW(SetPackedKernelForTesting(kernel), Error) << Name(kernel);
  }
  EXPECT_TRUE(PackedKernelSupported(PackedKernel::kPortable));
}

}  // namespace
}  // namespace kiln::cpu
