// Helpers for the nhwc family's tests: random data, NCHW <-> NHWC transposes, the activations in
// plain C++ and a float comparison with relative and absolute tolerance.
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_TEST_UTIL_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace kiln::nhwc_test {

// n values uniform in [-1, 1) from a fixed seed, on a grid of 2^-23: the top 24 bits of each draw
// scaled, the same on every standard library (std::uniform_real_distribution is not), and without
// its per-value logarithm, which made the largest cases' inputs cost seconds in the -O0 ASan build.
inline std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(gen() >> 8) * (2.0f / 16777216.0f) - 1.0f;
  return v;
}

// [N, H, W, C] → [N, C, H, W].
template <typename T>
std::vector<T> ToNchw(const std::vector<T>& v, int64_t n, int64_t h, int64_t w, int64_t c) {
  std::vector<T> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          r[static_cast<size_t>(((i * c + k) * h + y) * w + x)] =
              v[static_cast<size_t>(((i * h + y) * w + x) * c + k)];
  return r;
}

// [N, C, H, W] → [N, H, W, C].
template <typename T>
std::vector<T> ToNhwc(const std::vector<T>& v, int64_t n, int64_t c, int64_t h, int64_t w) {
  std::vector<T> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          r[static_cast<size_t>(((i * h + y) * w + x) * c + k)] =
              v[static_cast<size_t>(((i * c + k) * h + y) * w + x)];
  return r;
}

// The fused activation, computed plainly (std::exp, std::tanh).
inline float Activate(const std::string& name, const std::vector<float>& params, float x) {
  const auto sigmoid = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
  if (name.empty()) return x;
  if (name == "Relu") return std::max(x, 0.0f);
  if (name == "LeakyRelu") return x >= 0 ? x : (params.empty() ? 0.01f : params[0]) * x;
  if (name == "Clip") return std::min(std::max(x, params[0]), params[1]);
  if (name == "Sigmoid") return sigmoid(x);
  if (name == "Tanh") return std::tanh(x);
  if (name == "HardSigmoid") {
    const float a = params.empty() ? 0.2f : params[0];
    const float b = params.empty() ? 0.5f : params[1];
    return std::max(0.0f, std::min(1.0f, a * x + b));
  }
  if (name == "HardSwish") return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
  if (name == "Swish") return x * sigmoid(x);
  ADD_FAILURE() << "unknown activation " << name;
  return x;
}

// |got - want| <= 1e-5 + 1e-4 |want| everywhere; reports the first few differences.
inline void ExpectClose(const std::vector<float>& got, const std::vector<float>& want,
                        const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = 1e-5 + 1e-4 * std::fabs(want[i]);
    if (!(std::fabs(static_cast<double>(got[i]) - want[i]) <= tol) && reported++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
    }
  }
}

}  // namespace kiln::nhwc_test

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_TEST_UTIL_H_
