// Assertions shared by the elementwise unit tests (test-only).
//
//   ExpectError([] { NodeTest("Div", 14).Input<int32_t>({1}, {1}).Input<int32_t>({1}, {0}).Run();
//   },
//               kiln::ErrorCode::kInvalidArgument, {"node 'test_node' (Div)", "'B'"});
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_TEST_HELPERS_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_TEST_HELPERS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/float16.h"
#include "core/tensor.h"
#include "kernels/test_util.h"

namespace kiln::testing {

// Runs fn and expects a kiln::Error with `code` whose message contains every one of `parts`.
template <typename F>
void ExpectError(F&& fn, ErrorCode code, std::initializer_list<const char*> parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const char* part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message \"" << e.what() << "\" lacks \"" << part << "\"";
    }
  }
}

// Elementwise EXPECT_NEAR with a tolerance relative to the expected magnitude (at least `tol`);
// NaN matches NaN and infinities must match exactly.
template <typename T>
void ExpectAllNear(const std::vector<T>& actual, const std::vector<double>& expected,
                   double tol = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto a = static_cast<double>(actual[i]);
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(a)) << "at " << i << ": " << a;
    } else if (std::isinf(expected[i])) {
      EXPECT_EQ(a, expected[i]) << "at " << i;
    } else {
      EXPECT_NEAR(a, expected[i], tol * std::max(1.0, std::fabs(expected[i]))) << "at " << i;
    }
  }
}

template <typename H>
std::vector<H> Halves(const std::vector<float>& values) {
  std::vector<H> out;
  out.reserve(values.size());
  for (float v : values) out.push_back(H::FromFloat(v));
  return out;
}

template <typename H>
std::vector<float> Floats(const Tensor& t) {
  std::vector<float> out;
  out.reserve(t.element_count());
  for (H h : Values<H>(t)) out.push_back(h.ToFloat());
  return out;
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_TEST_HELPERS_H_
