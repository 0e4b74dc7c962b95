// Test helpers for the contrib kernels: seeded random data and a float comparison with relative
// and absolute tolerances.
//
//   std::vector<float> x = RandomFloats(24, /*seed=*/1);
//   ExpectClose(*out[0], reference);
#ifndef KILN_KERNELS_CPU_CONTRIB_CONTRIB_TEST_UTIL_H_
#define KILN_KERNELS_CPU_CONTRIB_CONTRIB_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/test_util.h"

namespace kiln::testing {

inline constexpr char kMs[] = "com.microsoft";

// `n` floats uniform in [lo, hi) from a fixed seed.
inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// |got - want| <= atol + rtol·max(|want|, magnitude) for every element, and the same element
// count. `magnitude` (empty: none) is, per element, the sum of the absolute values of the terms
// a sum adds: a float dot product that cancels to near 0 is only as exact as its terms' size.
inline void ExpectClose(const Tensor& t, const std::vector<double>& want, double rtol = 1e-4,
                        double atol = 1e-5, const std::vector<double>& magnitude = {}) {
  const std::vector<float> got = Values<float>(t);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_TRUE(magnitude.empty() || magnitude.size() == want.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double size = std::max(std::fabs(want[i]), magnitude.empty() ? 0.0 : magnitude[i]);
    if (!(std::fabs(got[i] - want[i]) <= atol + rtol * size)) {
      if (++bad <= 5)
        ADD_FAILURE() << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << got.size() << " elements";
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_CONTRIB_CONTRIB_TEST_UTIL_H_
