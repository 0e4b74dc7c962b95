// cpu::Gemm against a naive triple loop: every transpose combination, odd and empty sizes,
// padded leading dimensions, beta 0 over a C full of NaN, beta non-zero, alpha 0, thin shapes
// (the unpacked path) and shapes that cross every cache block, with and without a pool.
#include "kernels/cpu/linalg/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::cpu {
namespace {

struct Case {
  bool trans_a;
  bool trans_b;
  size_t m;
  size_t n;
  size_t k;
  size_t pad;  // extra elements at the end of each row of A, B and C
  double alpha;
  double beta;

  std::string Name() const {
    return "trans_a=" + std::to_string(trans_a) + " trans_b=" + std::to_string(trans_b) +
           " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
           " pad=" + std::to_string(pad) + " alpha=" + std::to_string(alpha) +
           " beta=" + std::to_string(beta);
  }
};

using testing::IntegerValues;

// Runs Gemm on case `c` and checks every element of C (and that padding is untouched).
template <typename T>
void Check(const Case& c, ThreadPool* pool, uint32_t seed = 1) {
  const size_t a_rows = c.trans_a ? c.k : c.m;
  const size_t a_cols = c.trans_a ? c.m : c.k;
  const size_t b_rows = c.trans_b ? c.n : c.k;
  const size_t b_cols = c.trans_b ? c.k : c.n;
  const size_t lda = a_cols + c.pad;
  const size_t ldb = b_cols + c.pad;
  const size_t ldc = c.n + c.pad;
  const std::vector<T> a = IntegerValues<T>(a_rows * lda, seed);
  const std::vector<T> b = IntegerValues<T>(b_rows * ldb, seed + 1);
  std::vector<T> out = IntegerValues<T>(c.m * ldc, seed + 2);
  const T kNaN = std::numeric_limits<T>::quiet_NaN();
  if (c.beta == 0) {
    for (size_t i = 0; i < c.m; ++i) {
      for (size_t j = 0; j < c.n; ++j) out[i * ldc + j] = kNaN;
    }
  }
  const std::vector<T> before = out;

  Gemm<T>(c.trans_a, c.trans_b, c.m, c.n, c.k, static_cast<T>(c.alpha), a.data(), lda, b.data(),
          ldb, static_cast<T>(c.beta), out.data(), ldc, pool);

  // The reference: op(A) and op(B) as dense double matrices, then an i-p-j triple loop.
  std::vector<double> opa(c.m * c.k), opb(c.k * c.n), ref(c.m * c.n, 0.0);
  for (size_t i = 0; i < c.m; ++i) {
    for (size_t p = 0; p < c.k; ++p) opa[i * c.k + p] = c.trans_a ? a[p * lda + i] : a[i * lda + p];
  }
  for (size_t p = 0; p < c.k; ++p) {
    for (size_t j = 0; j < c.n; ++j) opb[p * c.n + j] = c.trans_b ? b[j * ldb + p] : b[p * ldb + j];
  }
  for (size_t i = 0; i < c.m; ++i) {
    for (size_t p = 0; p < c.k; ++p) {
      for (size_t j = 0; j < c.n; ++j) ref[i * c.n + j] += opa[i * c.k + p] * opb[p * c.n + j];
    }
  }
  for (size_t i = 0; i < c.m; ++i) {
    for (size_t j = 0; j < c.n; ++j) {
      double expected = c.alpha * ref[i * c.n + j];
      if (c.beta != 0) expected += c.beta * before[i * ldc + j];
      ASSERT_EQ(out[i * ldc + j], static_cast<T>(expected)) << c.Name() << " at " << i << "," << j;
    }
    for (size_t j = c.n; j < ldc; ++j) {
      ASSERT_EQ(out[i * ldc + j], before[i * ldc + j]) << c.Name() << " wrote padding";
    }
  }
}

const size_t kOddSizes[] = {0, 1, 3, 17, 129};

TEST(LinalgGemmRoutine, FloatOddSizesEveryTransposeAndBeta) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (size_t m : kOddSizes) {
        for (size_t n : kOddSizes) {
          for (size_t k : kOddSizes) {
            Check<float>({ta, tb, m, n, k, 0, 1.0, 0.0}, nullptr);
            Check<float>({ta, tb, m, n, k, 3, 2.0, -0.5}, nullptr);
          }
        }
      }
    }
  }
}

TEST(LinalgGemmRoutine, DoubleOddSizesEveryTransposeAndBeta) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (size_t m : kOddSizes) {
        for (size_t n : kOddSizes) {
          for (size_t k : kOddSizes) {
            Check<double>({ta, tb, m, n, k, 5, 0.5, 0.0}, nullptr);
            Check<double>({ta, tb, m, n, k, 0, 1.0, 1.0}, nullptr);
          }
        }
      }
    }
  }
}

TEST(LinalgGemmRoutine, ThinShapesUseEveryLayout) {
  ThreadPool pool(3);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (size_t thin : {1, 2, 4, 5}) {
        Check<float>({ta, tb, thin, 1100, 300, 1, 1.0, 0.0}, &pool);
        Check<float>({ta, tb, 1100, thin, 300, 2, -1.0, 2.0}, &pool);
        Check<double>({ta, tb, thin, 700, 90, 0, 1.0, 0.5}, nullptr);
        Check<double>({ta, tb, 700, thin, 90, 0, 2.0, 0.0}, nullptr);
      }
    }
  }
}

TEST(LinalgGemmRoutine, CrossesEveryCacheBlockWithAndWithoutPool) {
  ThreadPool pool(4);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // 100 rows: a full row block and a short one; 1030 columns: past the column block;
      // 300 deep: a full depth block and a short one.
      Check<float>({ta, tb, 100, 1030, 300, 1, 1.0, 0.0}, &pool);
      Check<float>({ta, tb, 100, 1030, 300, 0, 1.0, 1.0}, nullptr);
      Check<float>({ta, tb, 97, 130, 257, 0, 0.5, -1.0}, nullptr);
      Check<double>({ta, tb, 150, 100, 520, 2, 1.0, 0.25}, &pool);
    }
  }
}

TEST(LinalgGemmRoutine, AlphaZeroScalesCWithoutReadingAOrB) {
  for (bool beta_zero : {false, true}) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> a(6, nan), b(6, nan), c = {1, 2, 3, 4};
    Gemm<float>(false, false, 2, 2, 3, 0.0f, a.data(), 3, b.data(), 2, beta_zero ? 0.0f : 2.0f,
                c.data(), 2, nullptr);
    EXPECT_EQ(c, beta_zero ? (std::vector<float>{0, 0, 0, 0}) : (std::vector<float>{2, 4, 6, 8}));
  }
}

TEST(LinalgGemmRoutine, PropagatesNaNFromTheOperands) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t m : {1, 8}) {
    std::vector<float> a(m * 2, 1.0f), b = {1, 2, 3, 4}, c(m * 2, 0.0f);
    a[1] = nan;  // row 0, column 1: reaches both outputs of row 0 only
    Gemm<float>(false, false, m, 2, 2, 1.0f, a.data(), 2, b.data(), 2, 0.0f, c.data(), 2, nullptr);
    EXPECT_TRUE(std::isnan(c[0]) && std::isnan(c[1])) << m;
    for (size_t i = 1; i < m; ++i) {
      EXPECT_EQ(c[i * 2], 4.0f) << m;
      EXPECT_EQ(c[i * 2 + 1], 6.0f) << m;
    }
  }
}

TEST(LinalgGemmRoutine, FractionalValuesWithinRounding) {
  const size_t m = 70, n = 90, k = 700;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.11f * static_cast<float>(i));
  ThreadPool pool(2);
  Gemm<float>(false, true, m, n, k, 0.3f, a.data(), k, b.data(), k, 0.0f, c.data(), n, &pool);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      double sum = 0;
      for (size_t p = 0; p < k; ++p) sum += double{a[i * k + p]} * double{b[j * k + p]};
      ASSERT_NEAR(c[i * n + j], 0.3 * sum, 2e-4) << i << "," << j;
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
