#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise/test_helpers.h"

namespace kiln::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(ElementwiseClip, AttributeBoundsBeforeOpset11) {
  auto out = NodeTest("Clip", 6)
                 .Attr("min", -1.0f)
                 .Attr("max", 2.0f)
                 .Input<float>({4}, {-3, 0.5f, 5, kNaN})
                 .Run();
  const std::vector<float> y = Values<float>(*out[0]);
  EXPECT_EQ(y[0], -1);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 2);
  EXPECT_TRUE(std::isnan(y[3]));
  auto only_max = NodeTest("Clip", 1)
                      .Attr("max", 0.0f)
                      .Attr("consumed_inputs", std::vector<int64_t>{0})
                      .Input<double>({2}, {-1e300, 1e300})
                      .Run();
  EXPECT_EQ(Values<double>(*only_max[0]), (std::vector<double>{-1e300, 0}));
}

TEST(ElementwiseClip, InputBoundsFromOpset11) {
  auto both = NodeTest("Clip", 11)
                  .Input<float>({3}, {-3, 0.5f, 5})
                  .Input<float>({}, {0})
                  .Input<float>({}, {1})
                  .Run();
  EXPECT_EQ(Values<float>(*both[0]), (std::vector<float>{0, 0.5f, 1}));
  auto only_max =
      NodeTest("Clip", 13).Input<float>({2}, {-3, 5}).MissingInput().Input<float>({1}, {4}).Run();
  EXPECT_EQ(Values<float>(*only_max[0]), (std::vector<float>{-3, 4}));
  auto none = NodeTest("Clip", 13).Input<float>({2}, {-3, 5}).Run();
  EXPECT_EQ(Values<float>(*none[0]), (std::vector<float>{-3, 5}));
  // Attributes are not read from opset 11 on.
  auto ignored = NodeTest("Clip", 11).Attr("min", 0.0f).Input<float>({1}, {-3}).Run();
  EXPECT_EQ(Values<float>(*ignored[0]), (std::vector<float>{-3}));
}

TEST(ElementwiseClip, IntegersAndMinAboveMax) {
  auto ints = NodeTest("Clip", 12)
                  .Input<int32_t>({4}, {-100, -5, 5, 100})
                  .Input<int32_t>({}, {-10})
                  .Input<int32_t>({}, {10})
                  .Run();
  EXPECT_EQ(Values<int32_t>(*ints[0]), (std::vector<int32_t>{-10, -5, 5, 10}));
  auto crossed = NodeTest("Clip", 13)
                     .Input<float>({3}, {-1, 5, 10})
                     .Input<float>({}, {6})
                     .Input<float>({}, {2})
                     .Run();
  EXPECT_EQ(Values<float>(*crossed[0]), (std::vector<float>{2, 2, 2}));
}

TEST(ElementwiseClip, BoundErrors) {
  ExpectError(
      [] {
        NodeTest("Clip", 13).Input<float>({2}, {1, 2}).Input<float>({2}, {0, 1}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Clip)", "'min'", "[2]"});
  ExpectError(
      [] {
        NodeTest("Clip", 13).Input<float>({1}, {1}).MissingInput().Input<double>({}, {1}).Run();
      },
      ErrorCode::kInvalidArgument, {"'max'", "double"});
}

TEST(ElementwiseMax, BroadcastsAllInputsFromOpset8) {
  auto out = NodeTest("Max", 13)
                 .Input<float>({2, 1}, {1, 5})
                 .Input<float>({3}, {2, 3, 4})
                 .Input<float>({}, {3.5f})
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 3}));
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{3.5f, 3.5f, 4, 5, 5, 5}));
}

TEST(ElementwiseMax, PropagatesNaNAndHandlesIntegers) {
  auto f = NodeTest("Max", 12).Input<float>({2}, {kNaN, 1}).Input<float>({2}, {1, kNaN}).Run();
  const std::vector<float> y = Values<float>(*f[0]);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  auto i = NodeTest("Max", 12).Input<uint64_t>({2}, {1, 9}).Input<uint64_t>({2}, {3, 2}).Run();
  EXPECT_EQ(Values<uint64_t>(*i[0]), (std::vector<uint64_t>{3, 9}));
}

TEST(ElementwiseMin, ValuesNaNAndSingleInput) {
  auto out = NodeTest("Min", 8).Input<double>({3}, {1, 5, 2}).Input<double>({1}, {3}).Run();
  EXPECT_EQ(Values<double>(*out[0]), (std::vector<double>{1, 3, 2}));
  auto nan = NodeTest("Min", 13).Input<float>({1}, {0}).Input<float>({1}, {kNaN}).Run();
  EXPECT_TRUE(std::isnan(Values<float>(*nan[0])[0]));
  auto single = NodeTest("Min", 13).Input<int8_t>({2}, {4, -4}).Run();
  EXPECT_EQ(Values<int8_t>(*single[0]), (std::vector<int8_t>{4, -4}));
}

TEST(ElementwiseSum, ThreeInputsAndLegacyShapeCheck) {
  auto out = NodeTest("Sum", 13)
                 .Input<float>({2}, {1, 2})
                 .Input<float>({2}, {10, 20})
                 .Input<float>({2, 1}, {100, 200})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{111, 122, 211, 222}));
  auto old = NodeTest("Sum", 1)
                 .Attr("consumed_inputs", std::vector<int64_t>{0, 0})
                 .Input<float>({2}, {1, 2})
                 .Input<float>({2}, {3, 4})
                 .Run();
  EXPECT_EQ(Values<float>(*old[0]), (std::vector<float>{4, 6}));
  ExpectError(
      [] {
        NodeTest("Sum", 6).Input<float>({2}, {1, 2}).Input<float>({1}, {3}).Run();
      },
      ErrorCode::kInvalidArgument, {"node 'test_node' (Sum)", "'data_1'", "opset 8"});
}

TEST(ElementwiseMean, DividesByInputCount) {
  auto out = NodeTest("Mean", 13)
                 .Input<float>({2}, {1, 2})
                 .Input<float>({2}, {3, 5})
                 .Input<float>({}, {5})
                 .Run();
  ExpectAllNear(Values<float>(*out[0]), {3, 4});
  auto half = NodeTest("Mean", 13)
                  .Input<Float16>({1}, Halves<Float16>({1}))
                  .Input<Float16>({1}, Halves<Float16>({2}))
                  .Run();
  EXPECT_EQ(Floats<Float16>(*half[0]), (std::vector<float>{1.5f}));
  auto single = NodeTest("Mean", 8).Input<double>({2}, {1, 2}).Run();
  EXPECT_EQ(Values<double>(*single[0]), (std::vector<double>{1, 2}));
}

TEST(ElementwiseVariadic, Errors) {
  ExpectError([] { NodeTest("Max", 13).Input<float>({1}, {1}).Input<int32_t>({1}, {1}).Run(); },
              ErrorCode::kInvalidArgument, {"node 'test_node' (Max)", "'data_1'", "int32"});
  ExpectError(
      [] {
        NodeTest("Min", 13).Input<float>({2}, {1, 2}).Input<float>({3}, {1, 2, 3}).Run();
      },
      ErrorCode::kInvalidArgument, {"'data_1'", "[3]", "[2]"});
  ExpectError([] { NodeTest("Sum", 13).Input<int32_t>({1}, {1}).Run(); },
              ErrorCode::kNotImplemented, {"node 'test_node' (Sum)", "int32"});
}

}  // namespace
}  // namespace kiln::testing
