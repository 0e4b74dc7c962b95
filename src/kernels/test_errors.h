// The kernel tests' error check: runs a NodeTest that must fail and checks the error's code and
// that its message names the node and contains `needle`.
#ifndef KILN_KERNELS_TEST_ERRORS_H_
#define KILN_KERNELS_TEST_ERRORS_H_

#include <gtest/gtest.h>

#include <string>

#include "kernels/test_util.h"

namespace kiln::testing {

inline void ExpectNodeError(NodeTest t, ErrorCode code, const std::string& needle) {
  try {
    t.RunValues();
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find("test_node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace kiln::testing

#endif  // KILN_KERNELS_TEST_ERRORS_H_
