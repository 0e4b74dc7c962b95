#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

TEST(ElementwiseExpand, BroadcastsBothWays) {
  // [3,1] to [2,1,6]: the 1 in 'shape' keeps the input's 3.
  auto out =
      NodeTest("Expand", 13).Input<float>({3, 1}, {1, 2, 3}).Input<int64_t>({3}, {2, 1, 6}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3, 6}));
  const std::vector<float> y = Values<float>(*out[0]);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], static_cast<float>((i / 6) % 3 + 1)) << i;
}

TEST(ElementwiseExpand, ShorterShapeScalarsAndEmpty) {
  auto shorter =
      NodeTest("Expand", 8).Input<int32_t>({2, 2}, {1, 2, 3, 4}).Input<int64_t>({1}, {2}).Run();
  EXPECT_EQ(shorter[0]->shape(), Shape({2, 2}));
  EXPECT_EQ(Values<int32_t>(*shorter[0]), (std::vector<int32_t>{1, 2, 3, 4}));
  auto scalar = NodeTest("Expand", 13).Input<uint8_t>({}, {7}).Input<int64_t>({2}, {2, 2}).Run();
  EXPECT_EQ(Values<uint8_t>(*scalar[0]), (std::vector<uint8_t>{7, 7, 7, 7}));
  auto empty = NodeTest("Expand", 13).Input<float>({1}, {1}).Input<int64_t>({2}, {0, 1}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 1}));
  auto none = NodeTest("Expand", 13).Input<float>({2}, {1, 2}).Input<int64_t>({0}, {}).Run();
  EXPECT_EQ(none[0]->shape(), Shape({2}));
}

TEST(ElementwiseExpand, StringsBoolsAndHalves) {
  auto s =
      NodeTest("Expand", 13).Input<std::string>({2}, {"a", "b"}).Input<int64_t>({2}, {2, 1}).Run();
  EXPECT_EQ(Values<std::string>(*s[0]), (std::vector<std::string>{"a", "b", "a", "b"}));
  auto b = NodeTest("Expand", 13).Input<bool>({1}, {true}).Input<int32_t>({1}, {3}).Run();
  EXPECT_EQ(Values<bool>(*b[0]), (std::vector<bool>{true, true, true}));
  auto h = NodeTest("Expand", 13)
               .Input<Float16>({1}, Halves<Float16>({1.5f}))
               .Input<int64_t>({1}, {2})
               .Run();
  EXPECT_EQ(Floats<Float16>(*h[0]), (std::vector<float>{1.5f, 1.5f}));
}

TEST(ElementwiseExpand, Errors) {
  ExpectError(
      [] {
        NodeTest("Expand", 13).Input<float>({3}, {1, 2, 3}).Input<int64_t>({1}, {2}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Expand)", "'input'", "[3]", "[2]"});
  ExpectError(
      [] {
        NodeTest("Expand", 13).Input<float>({1}, {1}).Input<int64_t>({2}, {2, -1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'shape'", "-1", "index 1"});
  ExpectError(
      [] {
        NodeTest("Expand", 13).Input<float>({1}, {1}).Input<int64_t>({1, 1}, {2}).Run();
      },
      ErrorCode::kInvalidArgument, {"'shape'", "1-D", "[1,1]"});
  ExpectError([] { NodeTest("Expand", 13).Input<float>({1}, {1}).Input<float>({1}, {2}).Run(); },
              ErrorCode::kInvalidArgument, {"'shape'", "float"});
  ExpectError(
      [] {
        NodeTest("Expand", 13)
            .Input<float>({1}, {1})
            .Input<int64_t>({3}, {int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"overflow"});
}

}  // namespace
}  // namespace kiln::testing
