// com.microsoft Inverse: batches of random well-conditioned matrices (a pivot swap needed among
// them) times their computed inverse give the identity, in float, double and float16, 1 and 2
// threads; a known 2×2 inverse exactly; a singular matrix's non-finite result; the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/float16.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

const char* const kMs = "com.microsoft";

// n matrices m × m: random entries plus m on the diagonal (invertible, well conditioned), the
// first with a zero in its corner so that elimination must swap rows.
std::vector<double> Matrices(size_t n, size_t m) {
  std::vector<double> a(n * m * m);
  uint32_t seed = 12345;
  for (double& v : a) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<double>(seed >> 8) / 16777216.0 * 2.0 - 1.0;
  }
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < m; ++i) a[k * m * m + i * m + i] += static_cast<double>(m);
  }
  a[0] = 0.0;
  return a;
}

template <typename T>
void CheckIdentity(const std::vector<double>& a, const std::vector<double>& inv, size_t n, size_t m,
                   double tol) {
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < m; ++j) {
        double s = 0;
        for (size_t t = 0; t < m; ++t) s += a[k * m * m + i * m + t] * inv[k * m * m + t * m + j];
        ASSERT_NEAR(s, i == j ? 1.0 : 0.0, tol) << "matrix " << k << " at " << i << ", " << j;
      }
    }
  }
}

TEST(ContribInverse, TimesItsInverseIsTheIdentity) {
  const size_t n = 6, m = 5;
  const std::vector<double> a = Matrices(n, m);
  const std::vector<int64_t> shape = {2, 3, 5, 5};
  for (int threads : {1, 2}) {
    auto d = NodeTest("Inverse", 1, kMs).Input<double>(shape, a).Run(threads);
    EXPECT_EQ(d[0]->shape(), Shape(shape));
    CheckIdentity<double>(a, Values<double>(*d[0]), n, m, 1e-12);
    std::vector<float> af(a.begin(), a.end());
    auto f = NodeTest("Inverse", 1, kMs).Input<float>(shape, af).Run(threads);
    const std::vector<float> fv = Values<float>(*f[0]);
    CheckIdentity<float>(std::vector<double>(af.begin(), af.end()),
                         std::vector<double>(fv.begin(), fv.end()), n, m, 1e-5);
    std::vector<Float16> ah(a.size());
    for (size_t i = 0; i < a.size(); ++i) ah[i] = Float16::FromFloat(static_cast<float>(a[i]));
    auto h = NodeTest("Inverse", 1, kMs).Input<Float16>(shape, ah).Run(threads);
    const std::vector<Float16> hh = Values<Float16>(*h[0]);
    std::vector<double> hv(hh.size()), av(ah.size());
    for (size_t i = 0; i < hh.size(); ++i) hv[i] = hh[i].ToFloat();
    for (size_t i = 0; i < ah.size(); ++i) av[i] = ah[i].ToFloat();
    CheckIdentity<Float16>(av, hv, n, m, 1e-2);
  }
  // [[4, 7], [2, 6]]⁻¹ = [[0.6, -0.7], [-0.2, 0.4]].
  auto two = NodeTest("Inverse", 1, kMs).Input<double>({2, 2}, {4, 7, 2, 6}).Run();
  const std::vector<double> want = {0.6, -0.7, -0.2, 0.4};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(Values<double>(*two[0])[i], want[i], 1e-15);
}

TEST(ContribInverse, SingularGivesNonFiniteAndErrors) {
  auto s = NodeTest("Inverse", 1, kMs).Input<float>({2, 2}, {1, 2, 2, 4}).Run();
  bool finite = true;
  for (float v : Values<float>(*s[0])) finite = finite && std::isfinite(v);
  EXPECT_FALSE(finite);
  ExpectNodeError(NodeTest("Inverse", 1, kMs).Input<float>({2, 3}, std::vector<float>(6, 1.0f)),
                  ErrorCode::kInvalidArgument, "input 'X' has shape [2,3]; it must be [..., M, M]");
  ExpectNodeError(NodeTest("Inverse", 1, kMs).Input<int32_t>({1, 1}, {2}),
                  ErrorCode::kInvalidArgument, "input 'X' is int32");
  // Empty batches are fine.
  auto empty = NodeTest("Inverse", 1, kMs).Input<float>({0, 3, 3}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 3, 3}));
}

}  // namespace
}  // namespace kiln::testing
