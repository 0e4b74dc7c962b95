// Det: determinants worked out by hand (one needing a row swap), batches, empty batches, and
// every error.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

TEST(SignalDet, SingleAndBatched) {
  auto one = NodeTest("Det", 11).Input<float>({2, 2}, {1, 2, 3, 4}).Run();
  EXPECT_EQ(one[0]->shape(), Shape(std::vector<int64_t>{}));
  EXPECT_NEAR(Values<float>(*one[0])[0], -2.0f, 1e-6);
  auto batch = NodeTest("Det", 22)
                   .Input<double>({3, 3, 3}, {2, 0, 0, 0, 3, 0, 0, 0, 4,  //
                                              0, 1, 0, 1, 0, 0, 0, 0, 1,  //
                                              1, 2, 3, 2, 4, 6, 0, 1, 1})
                   .Run();
  EXPECT_EQ(Values<double>(*batch[0]), (std::vector<double>{24, -1, 0}));
  auto empty = NodeTest("Det", 11).Input<float>({0, 2, 2}, {}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0}));
}

TEST(SignalDet, Errors) {
  ExpectNodeError(NodeTest("Det", 11).Input<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                  ErrorCode::kInvalidArgument, "input 'X'");
  ExpectNodeError(NodeTest("Det", 11).Input<float>({2}, {1, 2}), ErrorCode::kInvalidArgument,
                  "input 'X'");
  ExpectNodeError(NodeTest("Det", 11).Input<int32_t>({1, 1}, {1}), ErrorCode::kInvalidArgument,
                  "input 'X'");
}

}  // namespace
}  // namespace kiln::testing
