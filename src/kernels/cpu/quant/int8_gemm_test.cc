// Int8Gemm against a naive loop, for every kernel this machine runs: each pairing of int8 and
// uint8 operands, zero points per tensor and per row / column, sizes that end inside a group of
// four depths, a tile and a panel, padded row strides, extreme values (no saturation: VNNI's
// vpdpbusd adds exactly), the pool split, and the column sums of a packed B.
#include "kernels/cpu/quant/int8_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/cpu/quant/int_conv.h"
#include "kernels/cpu/vector_math_avx512.h"

namespace kiln::cpu {
namespace {

const char* Name(Int8Kernel kernel) {
  switch (kernel) {
    case Int8Kernel::kVnni:
      return "vnni";
    case Int8Kernel::kAvx2:
      return "avx2";
    case Int8Kernel::kGeneric:
      return "generic";
  }
  return "?";
}

template <typename Body>
void ForEachKernel(Body&& body) {
  size_t ran = 0;
  for (Int8Kernel kernel : {Int8Kernel::kVnni, Int8Kernel::kAvx2, Int8Kernel::kGeneric}) {
    if (!Int8KernelSupported(kernel)) continue;
    const Int8Kernel previous = SetInt8KernelForTesting(kernel);
    SCOPED_TRACE(Name(kernel));
    body();
    SetInt8KernelForTesting(previous);
    ++ran;
  }
  EXPECT_GE(ran, 1u);
}

// Bytes from a seeded generator; every 11th a byte at either end of its range.
std::vector<uint8_t> RandomBytes(size_t count, uint32_t seed) {
  std::vector<uint8_t> v(count);
  uint32_t state = seed;
  for (size_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(state >> 24);
    if (i % 11 == 0) v[i] = (i / 11) % 2 == 0 ? 0x80 : 0x7f;
    if (i % 13 == 0) v[i] = (i / 13) % 2 == 0 ? 0xff : 0x00;
  }
  return v;
}

int32_t Value(uint8_t byte, bool is_signed) {
  return is_signed ? static_cast<int8_t>(byte) : byte;
}

struct Case {
  size_t m, k, n, pad;
};

void Check(const Case& t, bool a_signed, bool b_signed, bool per_index, ThreadPool* pool) {
  SCOPED_TRACE("m=" + std::to_string(t.m) + " k=" + std::to_string(t.k) +
               " n=" + std::to_string(t.n) + " a_signed=" + std::to_string(a_signed) +
               " b_signed=" + std::to_string(b_signed) + " per_index=" + std::to_string(per_index));
  const size_t lda = t.k + t.pad;
  const size_t ldb = t.n + t.pad;
  const size_t ldc = t.n + t.pad;
  const std::vector<uint8_t> a = RandomBytes(t.m * lda, 1 + static_cast<uint32_t>(t.k));
  const std::vector<uint8_t> b = RandomBytes(t.k * ldb, 7 + static_cast<uint32_t>(t.n));
  std::vector<int32_t> za(per_index ? t.m : 1);
  std::vector<int32_t> zb(per_index ? t.n : 1);
  for (size_t i = 0; i < za.size(); ++i) za[i] = Value(static_cast<uint8_t>(i * 37 + 3), a_signed);
  for (size_t j = 0; j < zb.size(); ++j) zb[j] = Value(static_cast<uint8_t>(j * 53 + 9), b_signed);
  const Int8PackedB packed = Int8PackedB::Pack(b.data(), b_signed, ldb, t.k, t.n);
  ASSERT_EQ(packed.k(), t.k);
  ASSERT_EQ(packed.n(), t.n);
  for (size_t j = 0; j < t.n; ++j) {
    int32_t sum = 0;
    for (size_t p = 0; p < t.k; ++p) sum += Value(b[p * ldb + j], b_signed) - (b_signed ? 0 : 128);
    ASSERT_EQ(packed.column_sums()[j], sum) << "column " << j;
  }
  std::vector<int32_t> c(t.m * ldc, 0x5a5a5a5a);  // the padding must stay
  Int8Gemm(t.m, a.data(), a_signed, lda, packed, za, zb, c.data(), ldc, pool);
  // The reference reads A and B minus their zero points from int32 copies through raw pointers:
  // in the -O0 ASan build a call per element (Value, std::vector's operator[]) made this loop
  // most of the test's time.
  std::vector<int32_t> av(t.m * t.k);
  std::vector<int32_t> bv(t.n * t.k);  // transposed: column j of B is row j
  for (size_t i = 0; i < t.m; ++i) {
    for (size_t p = 0; p < t.k; ++p) {
      av[i * t.k + p] = Value(a[i * lda + p], a_signed) - za[per_index ? i : 0];
    }
  }
  for (size_t p = 0; p < t.k; ++p) {
    for (size_t j = 0; j < t.n; ++j) {
      bv[j * t.k + p] = Value(b[p * ldb + j], b_signed) - zb[per_index ? j : 0];
    }
  }
  size_t wrong = 0;
  for (size_t i = 0; i < t.m; ++i) {
    for (size_t j = 0; j < t.n; ++j) {
      int64_t want = 0;
      const int32_t* ar = av.data() + i * t.k;
      const int32_t* br = bv.data() + j * t.k;
      for (size_t p = 0; p < t.k; ++p) want += int64_t{ar[p]} * br[p];
      if (c[i * ldc + j] != static_cast<int32_t>(want) && wrong++ < 5) {
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << c[i * ldc + j] << ", want " << want;
      }
    }
    for (size_t j = t.n; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], 0x5a5a5a5a) << "padding";
  }
  EXPECT_EQ(wrong, 0u);
}

const Case kCases[] = {
    {1, 1, 1, 0},      {5, 3, 7, 1},     {12, 4, 32, 0},   {13, 17, 33, 3},   {25, 64, 48, 0},
    {100, 255, 70, 2}, {7, 1000, 16, 0}, {200, 33, 97, 1}, {97, 768, 130, 0}, {3, 6, 500, 5},
};

TEST(Int8Gemm, MatchesNaiveProductForEveryOperandPairing) {
  ForEachKernel([] {
    for (const Case& c : kCases) {
      for (int signs = 0; signs < 4; ++signs) {
        for (bool per_index : {false, true}) {
          Check(c, (signs & 1) != 0, (signs & 2) != 0, per_index, nullptr);
        }
      }
    }
  });
}

TEST(Int8Gemm, MatchesNaiveProductOnThePool) {
  ThreadPool pool(2);
  ForEachKernel([&] {
    for (const Case& c : kCases) Check(c, false, true, true, &pool);
    Check({301, 129, 65, 0}, true, false, false, &pool);
    // Few rows and a wide B: the threads share B's panels.
    Check({20, 64, 600, 3}, false, true, true, &pool);
    Check({37, 100, 1000, 0}, true, false, false, &pool);
  });
}

// B's zero point 0 on its signed form (symmetric int8 weights) with an unsigned A whose depth
// fills whole groups of four, or whose rows are that far apart: A is read in place, without row
// sums (and with A's zero point 0 nothing is subtracted at all); the product is the same.
TEST(Int8Gemm, ReadsAnUnsignedAInPlaceWhenBsZeroPointIsZero) {
  ThreadPool pool(2);
  ForEachKernel([&] {
    // k 5 and 27: rows read past k, to the group's end, over bytes of the next row's start
    // (they meet B's zero padding).
    for (size_t k : {size_t{4}, size_t{5}, size_t{27}, size_t{64}, size_t{100}}) {
      for (int32_t za : {0, 7}) {
        const size_t m = 29, n = 45, lda = k + 3;  // a row stride that is not a multiple of 4
        const std::vector<uint8_t> a = RandomBytes(m * lda, 5 + static_cast<uint32_t>(k));
        const std::vector<uint8_t> b = RandomBytes(k * n, 9);
        const Int8PackedB packed = Int8PackedB::Pack(b.data(), true, n, k, n);
        const std::vector<int32_t> zas = {za}, zbs = {0};
        std::vector<int32_t> c(m * n);
        Int8Gemm(m, a.data(), false, lda, packed, zas, zbs, c.data(), n, &pool);
        size_t wrong = 0;
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < n; ++j) {
            int64_t want = 0;
            for (size_t p = 0; p < k; ++p)
              want += int64_t{Value(a[i * lda + p], false) - za} * Value(b[p * n + j], true);
            if (c[i * n + j] != static_cast<int32_t>(want) && wrong++ < 3) {
              ADD_FAILURE() << "k " << k << " za " << za << ": C(" << i << ", " << j
                            << ") = " << c[i * n + j] << ", want " << want;
            }
          }
        }
        EXPECT_EQ(wrong, 0u);
      }
    }
  });
}

// Without C, the product hands each block of finished rows to the epilogue (from the thread that
// made it): gathered, they are the product written to C, every row exactly once.
TEST(Int8Gemm, EpilogueGetsEveryRowOnceWithoutC) {
  ThreadPool pool(2);
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    for (const Case& t : {Case{301, 129, 65, 0}, Case{5, 3, 7, 0}, Case{200, 64, 40, 0}}) {
      const std::vector<uint8_t> a = RandomBytes(t.m * t.k, 3);
      const std::vector<uint8_t> b = RandomBytes(t.k * t.n, 5);
      const Int8PackedB packed = Int8PackedB::Pack(b.data(), true, t.n, t.k, t.n);
      const std::vector<int32_t> za = {7}, zb = {-3};
      std::vector<int32_t> want(t.m * t.n);
      Int8Gemm(t.m, a.data(), false, t.k, packed, za, zb, want.data(), t.n, p);
      std::vector<int32_t> got(t.m * t.n, 0x5a5a5a5a);
      std::vector<std::atomic<int>> seen(t.m);
      auto gather = [&](size_t first, size_t count, const int32_t* c, size_t ldc) {
        for (size_t r = 0; r < count; ++r) {
          seen[first + r].fetch_add(1);
          std::copy(c + r * ldc, c + r * ldc + t.n, got.data() + (first + r) * t.n);
        }
      };
      Int8Gemm(t.m, a.data(), false, t.k, packed, za, zb, nullptr, 0, p, Int8Epilogue::Of(gather));
      EXPECT_EQ(got, want) << "m=" << t.m;
      for (size_t r = 0; r < t.m; ++r) EXPECT_EQ(seen[r].load(), 1) << "row " << r;
    }
  }
}

// With a requantization in the epilogue, the VNNI kernel requantizes its tiles in registers (the
// epilogue's function is then never called) and every other way calls the function; either way
// the bytes are the double loop's — with multipliers of a half and a float unit either side of
// it, so that many tiles hold exact halves and are redone — for both output types, with and
// without a bias, over tails of rows and columns, on 1 and 2 threads, AVX-512 on and off.
TEST(Int8Gemm, RequantizesItsTilesAsTheRowsWould) {
  ThreadPool pool(2);
  for (const Case& t : {Case{50, 37, 45, 0}, Case{301, 64, 96, 0}, Case{7, 4, 16, 0}}) {
    // Small values (A within 3 of its zero point 7, B within 2 of 0), so that the sums, times
    // about a half, fall inside the bytes' range, where the ties are.
    std::vector<uint8_t> a = RandomBytes(t.m * t.k, 11);
    std::vector<uint8_t> b = RandomBytes(t.k * t.n, 13);
    for (uint8_t& v : a) v = static_cast<uint8_t>(4 + v % 7);
    for (uint8_t& v : b) v = static_cast<uint8_t>(static_cast<int8_t>(v % 5) - 2);
    const Int8PackedB packed = Int8PackedB::Pack(b.data(), true, t.n, t.k, t.n);
    const std::vector<int32_t> za = {7}, zb = {0};
    std::vector<int32_t> sums(t.m * t.n);
    Int8Gemm(t.m, a.data(), false, t.k, packed, za, zb, sums.data(), t.n, nullptr);
    std::vector<float> mult(t.n);
    std::vector<int32_t> bias(t.n);
    for (size_t j = 0; j < t.n; ++j) {
      const float kinds[] = {0.5f, std::nextafter(0.5f, 1.0f), std::nextafter(0.5f, 0.0f),
                             0.0037f * static_cast<float>(j + 1)};
      mult[j] = kinds[j % 4];
      bias[j] = static_cast<int32_t>(j * 37 % 101) - 50;
    }
    for (bool y_signed : {false, true}) {
      for (bool with_bias : {false, true}) {
        for (bool avx512 : {true, false}) {
          for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
            SCOPED_TRACE("m=" + std::to_string(t.m) + " signed " + std::to_string(y_signed) +
                         " bias " + std::to_string(with_bias) + " avx512 " +
                         std::to_string(avx512));
            const bool before = AllowVectorMathAvx512ForTesting(avx512);
            const int32_t zp = y_signed ? -3 : 120;
            const int32_t* bp = with_bias ? bias.data() : nullptr;
            std::vector<uint8_t> want(t.m * t.n), got(t.m * t.n, 0x5a);
            for (size_t i = 0; i < t.m; ++i) {
              if (y_signed) {
                RequantizeChannels(sums.data() + i * t.n, t.n, bp, mult.data(), zp,
                                   reinterpret_cast<int8_t*>(want.data() + i * t.n));
              } else {
                RequantizeChannels(sums.data() + i * t.n, t.n, bp, mult.data(), zp,
                                   want.data() + i * t.n);
              }
            }
            const Int8Requant rq{bp, mult.data(), zp, y_signed, got.data(), t.n};
            std::atomic<int> calls{0};
            auto rows = [&](size_t first, size_t count, const int32_t* c, size_t ldc) {
              calls.fetch_add(1);
              uint8_t* y = got.data() + first * t.n;
              if (y_signed) {
                RequantizeRows(c, ldc, count, t.n, bp, mult.data(), zp,
                               reinterpret_cast<int8_t*>(y), t.n);
              } else {
                RequantizeRows(c, ldc, count, t.n, bp, mult.data(), zp, y, t.n);
              }
            };
            for (Int8Kernel kernel : {Int8Kernel::kVnni, Int8Kernel::kAvx2, Int8Kernel::kGeneric}) {
              if (!Int8KernelSupported(kernel)) continue;
              SCOPED_TRACE(Name(kernel));
              const Int8Kernel previous = SetInt8KernelForTesting(kernel);
              std::fill(got.begin(), got.end(), 0x5a);
              calls = 0;
              Int8Epilogue epilogue = Int8Epilogue::Of(rows);
              epilogue.requant = &rq;
              Int8Gemm(t.m, a.data(), false, t.k, packed, za, zb, nullptr, 0, p, epilogue);
              SetInt8KernelForTesting(previous);
              EXPECT_EQ(got, want);
              const bool fused = avx512 && kernel == Int8Kernel::kVnni;
              EXPECT_EQ(calls.load() == 0, fused) << "the epilogue's function ran " << calls.load();
            }
            AllowVectorMathAvx512ForTesting(before);
          }
        }
      }
    }
  }
}

// Sums past 2^24 whose float product with the multiplier lands a little past a half, on the
// other side from double's (pairs found by search): the tile must be redone, not rounded in
// float. Each column's sum built of q terms 255·127, then a1·127 and r2·1 for the rest.
TEST(Int8Gemm, RequantizedTilesNearAHalfAreRedone) {
  const std::pair<int64_t, float> cases[] = {{1499599170, 0x1.1b8b2ap-25f},
                                             {629956773, -0x1.458db8p-23f},
                                             {272325555, -0x1.a1f17ap-24f},
                                             {841638242, -0x1.2fa27ap-24f}};
  // Each column's terms in a stretch of depths of its own (B zero elsewhere in the column).
  const size_t n = 4, m = 3;
  size_t k = 0;
  for (const auto& c : cases) k += static_cast<size_t>(c.first / 32385) + 2;
  std::vector<uint8_t> a(m * k, 0);
  std::vector<uint8_t> b(k * n, 0);
  size_t offset = 0;
  for (size_t j = 0; j < n; ++j) {
    const int64_t target = cases[j].first;
    const auto q = static_cast<size_t>(target / 32385);
    const int64_t rest = target - static_cast<int64_t>(q) * 32385;
    for (size_t p = 0; p < q; ++p) {
      for (size_t i = 0; i < m; ++i) a[i * k + offset + p] = 255;
      b[(offset + p) * n + j] = 127;
    }
    for (size_t i = 0; i < m; ++i) {
      a[i * k + offset + q] = static_cast<uint8_t>(rest / 127);
      a[i * k + offset + q + 1] = static_cast<uint8_t>(rest % 127);
    }
    b[(offset + q) * n + j] = 127;
    b[(offset + q + 1) * n + j] = 1;
    offset += q + 2;
  }
  const Int8PackedB packed = Int8PackedB::Pack(b.data(), true, n, k, n);
  const std::vector<int32_t> za = {0}, zb = {0};
  std::vector<int32_t> sums(m * n);
  Int8Gemm(m, a.data(), false, k, packed, za, zb, sums.data(), n, nullptr);
  std::vector<float> mult(n);
  for (size_t j = 0; j < n; ++j) {
    ASSERT_EQ(sums[j], cases[j].first) << "column " << j;
    mult[j] = cases[j].second;
  }
  std::vector<int8_t> want(m * n);
  for (size_t i = 0; i < m; ++i) {
    RequantizeChannels(sums.data() + i * n, n, nullptr, mult.data(), 0, want.data() + i * n);
  }
  std::vector<uint8_t> got(m * n, 0x5a);
  const Int8Requant rq{nullptr, mult.data(), 0, true, got.data(), n};
  auto rows = [&](size_t first, size_t count, const int32_t* c, size_t ldc) {
    RequantizeRows(c, ldc, count, n, nullptr, mult.data(), 0,
                   reinterpret_cast<int8_t*>(got.data() + first * n), n);
  };
  for (Int8Kernel kernel : {Int8Kernel::kVnni, Int8Kernel::kAvx2, Int8Kernel::kGeneric}) {
    if (!Int8KernelSupported(kernel)) continue;
    SCOPED_TRACE(Name(kernel));
    const Int8Kernel previous = SetInt8KernelForTesting(kernel);
    Int8Epilogue epilogue = Int8Epilogue::Of(rows);
    epilogue.requant = &rq;
    Int8Gemm(m, a.data(), false, k, packed, za, zb, nullptr, 0, nullptr, epilogue);
    SetInt8KernelForTesting(previous);
    EXPECT_EQ(std::vector<int8_t>(got.begin(), got.end()), want);
  }
}

TEST(Int8Gemm, RefusesAKernelTheMachineLacks) {
  for (Int8Kernel kernel : {Int8Kernel::kVnni, Int8Kernel::kAvx2}) {
    if (!Int8KernelSupported(kernel)) {
      EXPECT_THROW(SetInt8KernelForTesting(kernel), Error);
    }
  }
  EXPECT_TRUE(Int8KernelSupported(Int8Kernel::kGeneric));
}

}  // namespace
}  // namespace kiln::cpu
