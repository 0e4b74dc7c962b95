// Helpers for the nn kernel tests: deterministic input patterns, element-wise float comparison and
// error assertions.
//
//   std::vector<float> x = nn_test::Pattern(2 * 3 * 4);
//   nn_test::ExpectNear(Values<float>(*out[0]), {1.5f, 2.0f}, 1e-5);
//   nn_test::ExpectError([&] { test.Run(); }, ErrorCode::kInvalidArgument, {"'W'", "group"});
#ifndef KILN_KERNELS_CPU_NN_NN_TEST_UTIL_H_
#define KILN_KERNELS_CPU_NN_NN_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "core/float16.h"

namespace kiln::nn_test {

// n values in [-1, 1) that are exact in float16: ((i * step) % 17) / 8 - 1. The reference values
// in the tests were computed from the same pattern.
inline std::vector<float> Pattern(size_t n, size_t step = 7) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * step) % 17) / 8.0f - 1.0f;
  return v;
}

// The values of a constant array as a vector.
template <size_t N>
std::vector<float> Vec(const float (&values)[N]) {
  return std::vector<float>(values, values + N);
}

// Float values as T (Float16, BFloat16 or a built-in arithmetic type).
template <typename T>
std::vector<T> Cast(const std::vector<float>& v) {
  std::vector<T> r;
  r.reserve(v.size());
  for (float f : v) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      r.push_back(T::FromFloat(f));
    } else {
      r.push_back(static_cast<T>(f));
    }
  }
  return r;
}

// Float16 or BFloat16 values as float.
template <typename T>
std::vector<float> ToFloat(const std::vector<T>& v) {
  std::vector<float> r;
  r.reserve(v.size());
  for (T h : v) r.push_back(h.ToFloat());
  return r;
}

template <typename T>
void ExpectNear(const std::vector<T>& got, const std::vector<T>& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tolerance) << "at element " << i;
  }
}

// Runs fn, which must throw kiln::Error with `code` and a message naming the test node and
// containing each of `parts`.
template <typename F>
void ExpectError(F&& fn, ErrorCode code, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find("node 'test_node'"), std::string::npos) << what;
    for (const std::string& part : parts) {
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' not in: " << what;
    }
  }
}

}  // namespace kiln::nn_test

#endif  // KILN_KERNELS_CPU_NN_NN_TEST_UTIL_H_
