#include <gtest/gtest.h>

#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

TEST(RandomOps, SeedGivesTheSameValuesInRange) {
  auto run = [](float seed) {
    return NodeTest("RandomUniform", 22)
        .Attr("shape", std::vector<int64_t>{100})
        .Attr("low", -2.0f)
        .Attr("high", 3.0f)
        .Attr("seed", seed)
        .Run();
  };
  const std::vector<float> a = Values<float>(*run(1.0f)[0]);
  EXPECT_EQ(a, Values<float>(*run(1.0f)[0]));
  EXPECT_NE(a, Values<float>(*run(2.0f)[0]));
  for (float v : a) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 3.0f);
  }
}

TEST(RandomOps, LikeTakesShapeAndTypeOrDtype) {
  auto like = NodeTest("RandomNormalLike", 22)
                  .Attr("mean", 10.0f)
                  .Attr("scale", 0.001f)
                  .Input<double>({2, 3}, {0, 0, 0, 0, 0, 0})
                  .Run();
  EXPECT_EQ(like[0]->type(), DataType::kDouble);
  EXPECT_EQ(like[0]->shape(), Shape({2, 3}));
  for (double v : Values<double>(*like[0])) EXPECT_NEAR(v, 10.0, 0.1);
  auto dtype = NodeTest("RandomUniformLike", 22)
                   .Attr("dtype", int64_t{1})
                   .Input<int32_t>({4}, {0, 0, 0, 0})
                   .Run();
  EXPECT_EQ(dtype[0]->type(), DataType::kFloat);
}

TEST(RandomOps, BernoulliFollowsTheProbabilities) {
  auto out = NodeTest("Bernoulli", 15)
                 .Attr("seed", 3.0f)
                 .Input<float>({4}, {0.0f, 1.0f, 0.0f, 1.0f})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (std::vector<float>{0, 1, 0, 1}));
  auto ints =
      NodeTest("Bernoulli", 22).Attr("dtype", int64_t{7}).Input<double>({2}, {1.0, 0.0}).Run();
  EXPECT_EQ(Values<int64_t>(*ints[0]), (std::vector<int64_t>{1, 0}));
}

TEST(RandomOps, Errors) {
  ExpectNodeError(NodeTest("RandomUniform", 22), ErrorCode::kInvalidGraph, "'shape'");
  ExpectNodeError(NodeTest("RandomUniform", 22).Attr("shape", std::vector<int64_t>{-1}),
                  ErrorCode::kInvalidGraph, "'shape'");
  ExpectNodeError(NodeTest("RandomUniform", 22)
                      .Attr("shape", std::vector<int64_t>{1})
                      .Attr("low", 2.0f)
                      .Attr("high", 1.0f),
                  ErrorCode::kInvalidGraph, "'low'");
  ExpectNodeError(
      NodeTest("RandomNormal", 22).Attr("shape", std::vector<int64_t>{1}).Attr("dtype", int64_t{6}),
      ErrorCode::kInvalidGraph, "'dtype'");
  ExpectNodeError(NodeTest("RandomUniformLike", 22).Input<int32_t>({1}, {0}),
                  ErrorCode::kInvalidArgument, "output type");
  ExpectNodeError(NodeTest("Bernoulli", 22).Input<int32_t>({1}, {0}), ErrorCode::kNotImplemented,
                  "int32");
}

}  // namespace
}  // namespace kiln::testing
