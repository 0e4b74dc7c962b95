#include <gtest/gtest.h>

#include "kernels/cpu/tensor/tensor_test_util.h"

namespace kiln::testing {
namespace {

TEST(TensorIdentity, CopiesValuesTypeAndShape) {
  auto out = NodeTest("Identity", 16).Input<int64_t>({2, 2}, {1, 2, 3, 4}).Run();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int64_t>(*out[0]), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(TensorIdentity, CopiesStrings) {
  auto out = NodeTest("Identity", 1).Input<std::string>({2}, {"a", "bc"}).Run();
  EXPECT_EQ(Values<std::string>(*out[0]), (std::vector<std::string>{"a", "bc"}));
}

}  // namespace
}  // namespace kiln::testing
