// Test helpers of the tensor family: error expectations.
#ifndef KILN_KERNELS_CPU_TENSOR_TENSOR_TEST_UTIL_H_
#define KILN_KERNELS_CPU_TENSOR_TENSOR_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "kernels/test_util.h"

namespace kiln::testing {

// Runs `test` and expects an Error with `code` whose message names the test node and contains
// `text`.
inline void ExpectError(NodeTest test, ErrorCode code, const std::string& text) {
  try {
    test.Run();
    ADD_FAILURE() << "expected an error containing '" << text << "'";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.code(), code) << what;
    EXPECT_NE(what.find("test_node"), std::string::npos) << what;
    EXPECT_NE(what.find(text), std::string::npos) << what;
  }
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_CPU_TENSOR_TENSOR_TEST_UTIL_H_
