// Test helpers for the linalg kernels: checking that a run fails with a given code and a message
// that names the node and the argument at fault, and comparing float results.
#ifndef KILN_KERNELS_CPU_LINALG_LINALG_TEST_UTIL_H_
#define KILN_KERNELS_CPU_LINALG_LINALG_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/test_util.h"

namespace kiln::testing {

// count small integers in [-3, 3] from `seed`: every product and sum of a test-sized matrix
// product is exact in float and double, so results compare exactly.
template <typename T>
std::vector<T> IntegerValues(size_t count, uint32_t seed) {
  std::vector<T> v(count);
  uint32_t s = seed;
  for (T& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<T>(static_cast<int>((s >> 16) % 7) - 3);
  }
  return v;
}

// Runs `test` and expects an Error with `code` whose message names the test node with its op type
// and contains `fragment`.
inline void ExpectError(NodeTest test, ErrorCode code, const std::string& op,
                        const std::string& fragment) {
  try {
    test.Run();
    ADD_FAILURE() << "expected an error containing \"" << fragment << "\"";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), code) << message;
    EXPECT_NE(message.find("node 'test_node' (" + op + ")"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

template <typename T>
void ExpectNear(const Tensor& t, const std::vector<T>& expected, double tolerance) {
  const std::vector<T> got = Values<T>(t);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], tolerance) << "element " << i;
  }
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_LINALG_LINALG_TEST_UTIL_H_
