// BatchNormalization (inference): values computed with numpy from nn_test::Pattern inputs.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/nn/nn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nn_test::ExpectError;
using nn_test::ExpectNear;
using nn_test::Pattern;
using nn_test::Vec;

constexpr float kScale[] = {0.5f, -1.0f, 2.0f};
constexpr float kBias[] = {0.25f, 0.0f, -0.5f};
constexpr float kMean[] = {0.125f, -0.25f, 0.0f};
constexpr float kVar[] = {0.5f, 1.0f, 0.25f};
constexpr float kWant[] = {-0.5454872f, 0.07322507f,  0.6919373f, -0.1919373f,  -0.6249969f,
                           0.6249969f,  -0.2499988f,  -1.124994f, -1.99997f,    1.49996f,
                           -3.49994f,   -9.9997e-06f, 0.8687122f, -0.01516239f, 0.6035499f,
                           -0.2803248f, -0.4999975f,  0.7499963f, -0.1249994f,  -0.999995f,
                           -2.49996f,   0.99997f,     -3.99993f,  -0.5f};

NodeTest Spatial(int64_t opset) {
  NodeTest t("BatchNormalization", opset);
  t.Input<float>({2, 3, 2, 2}, Pattern(24))
      .Input<float>({3}, Vec(kScale), true)
      .Input<float>({3}, Vec(kBias), true)
      .Input<float>({3}, Vec(kMean), true)
      .Input<float>({3}, Vec(kVar), true);
  return t;
}

TEST(NnBatchNormalization, EveryVersionInInferenceMode) {
  for (int64_t opset : {6, 7, 9, 14, 15}) {
    SCOPED_TRACE(opset);
    ExpectNear(Values<float>(*Spatial(opset).Run()[0]), Vec(kWant), 1e-5);
  }
  auto v1 = Spatial(1)
                .Attr("consumed_inputs", std::vector<int64_t>{0, 0, 0, 1, 1})
                .Attr("is_test", int64_t{1});
  ExpectNear(Values<float>(*v1.Run()[0]), Vec(kWant), 1e-5);
  ExpectNear(Values<float>(*Spatial(15).Attr("training_mode", int64_t{0}).Run(2)[0]), Vec(kWant),
             1e-5);
}

TEST(NnBatchNormalization, Epsilon) {
  auto out = NodeTest("BatchNormalization", 15)
                 .Attr("epsilon", 0.5f)
                 .Input<float>({1, 1, 2}, {1.0f, 3.0f})
                 .Input<float>({1}, {1.0f})
                 .Input<float>({1}, {0.0f})
                 .Input<float>({1}, {1.0f})
                 .Input<float>({1}, {1.5f})
                 .Run();
  ExpectNear(Values<float>(*out[0]), {0.0f, 1.4142135f}, 1e-6);
}

TEST(NnBatchNormalization, NonSpatialTakesParametersPerElement) {
  const std::vector<float> scale = {-1.0f,   -0.625f, -0.25f,  0.125f, 0.5f,   0.875f,
                                    -0.875f, -0.5f,   -0.125f, 0.25f,  0.625f, 1.0f};
  const std::vector<float> bias = {-0.5f,   -0.1875f, 0.125f,  0.4375f, -0.3125f, 0.0f,
                                   0.3125f, -0.4375f, -0.125f, 0.1875f, 0.5f,     -0.25f};
  const std::vector<float> mean = {-0.25f,   0.09375f, -0.09375f, 0.25f,   0.0625f, -0.125f,
                                   0.21875f, 0.03125f, -0.15625f, 0.1875f, 0.0f,    -0.1875f};
  const std::vector<float> var = {0.5f,  2.125f, 1.625f, 1.125f, 0.625f, 2.25f,
                                  1.75f, 1.25f,  0.75f,  2.375f, 1.875f, 1.375f};
  for (int64_t opset : {1, 6, 7}) {
    auto out = NodeTest("BatchNormalization", opset)
                   .Attr("spatial", int64_t{0})
                   .Input<float>({2, 3, 2, 2}, Pattern(24))
                   .Input<float>({3, 2, 2}, scale)
                   .Input<float>({3, 2, 2}, bias)
                   .Input<float>({3, 2, 2}, mean)
                   .Input<float>({3, 2, 2}, var)
                   .Run();
    ExpectNear(Values<float>(*out[0]),
               {0.5606496f, -0.09371193f, -0.04047248f, 0.349112f,  -0.1148592f, -0.437499f,
                0.4571891f, -0.814835f,   -0.09342637f, 0.2381941f, 0.1576743f,  0.01649993f,
                -2.267749f, -0.04011875f, -0.01595804f, 0.3343807f, -0.1939155f, -0.5104155f,
                0.5398686f, -0.7589335f,  -0.07538429f, 0.2179165f, 0.10062f,    -0.09010004f},
               1e-5);
  }
  // From opset 9 spatial is gone: the same node needs per-channel parameters.
  ExpectError(
      [&] {
        NodeTest("BatchNormalization", 9)
            .Input<float>({2, 3, 2, 2}, Pattern(24))
            .Input<float>({3, 2, 2}, scale)
            .Input<float>({3, 2, 2}, bias)
            .Input<float>({3, 2, 2}, mean)
            .Input<float>({3, 2, 2}, var)
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'scale'", "[3,2,2]", "expected [3]"});
}

TEST(NnBatchNormalization, MixedParameterTypes) {
  auto v15 = NodeTest("BatchNormalization", 15)
                 .Input<float>({2, 3, 2, 2}, Pattern(24))
                 .Input<double>({3}, {0.5, -1.0, 2.0})
                 .Input<double>({3}, {0.25, 0.0, -0.5})
                 .Input<Float16>({3}, {Float16::FromFloat(0.125f), Float16::FromFloat(-0.25f),
                                       Float16::FromFloat(0.0f)})
                 .Input<Float16>({3}, {Float16::FromFloat(0.5f), Float16::FromFloat(1.0f),
                                       Float16::FromFloat(0.25f)})
                 .Run();
  ExpectNear(Values<float>(*v15[0]), Vec(kWant), 1e-5);
  auto v14 = NodeTest("BatchNormalization", 14)
                 .Input<float>({2, 3, 2, 2}, Pattern(24))
                 .Input<float>({3}, Vec(kScale))
                 .Input<float>({3}, Vec(kBias))
                 .Input<double>({3}, {0.125, -0.25, 0.0})
                 .Input<double>({3}, {0.5, 1.0, 0.25})
                 .Run();
  ExpectNear(Values<float>(*v14[0]), Vec(kWant), 1e-5);
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 14)
            .Input<float>({2, 3, 2, 2}, Pattern(24))
            .Input<double>({3}, {0.5, -1.0, 2.0})
            .Input<float>({3}, Vec(kBias))
            .Input<float>({3}, Vec(kMean))
            .Input<float>({3}, Vec(kVar))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'scale'", "double", "'X'"});
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 15)
            .Input<float>({2, 3, 2, 2}, Pattern(24))
            .Input<float>({3}, Vec(kScale))
            .Input<float>({3}, Vec(kBias))
            .Input<float>({3}, Vec(kMean))
            .Input<double>({3}, {0.5, 1.0, 0.25})
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'var'", "double", "'mean'"});
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 9)
            .Input<float>({2, 3, 2, 2}, Pattern(24))
            .Input<float>({3}, Vec(kScale))
            .Input<float>({3}, Vec(kBias))
            .Input<double>({3}, {0.125, -0.25, 0.0})
            .Input<float>({3}, Vec(kVar))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'mean'", "double", "'X'"});
}

TEST(NnBatchNormalization, Float16DoubleAndBFloat16) {
  const std::vector<Float16> xh = nn_test::Cast<Float16>(Pattern(24));
  const auto h = [](const std::vector<float>& v) { return nn_test::Cast<Float16>(v); };
  auto out = NodeTest("BatchNormalization", 9)
                 .Input<Float16>({2, 3, 2, 2}, xh)
                 .Input<Float16>({3}, h(Vec(kScale)))
                 .Input<Float16>({3}, h(Vec(kBias)))
                 .Input<Float16>({3}, h(Vec(kMean)))
                 .Input<Float16>({3}, h(Vec(kVar)))
                 .Run();
  const std::vector<float> got = nn_test::ToFloat(Values<Float16>(*out[0]));
  ExpectNear(got, Vec(kWant), 4e-3);

  const auto d = [](const std::vector<float>& v) { return nn_test::Cast<double>(v); };
  auto dd = NodeTest("BatchNormalization", 7)
                .Input<double>({2, 3, 2, 2}, d(Pattern(24)))
                .Input<double>({3}, d(Vec(kScale)))
                .Input<double>({3}, d(Vec(kBias)))
                .Input<double>({3}, d(Vec(kMean)))
                .Input<double>({3}, d(Vec(kVar)))
                .Run();
  ExpectNear(Values<double>(*dd[0]), d(Vec(kWant)), 1e-6);

  const std::vector<BFloat16> xb = nn_test::Cast<BFloat16>(Pattern(24));
  auto bf = NodeTest("BatchNormalization", 15)
                .Input<BFloat16>({2, 3, 2, 2}, xb)
                .Input<float>({3}, Vec(kScale))
                .Input<float>({3}, Vec(kBias))
                .Input<float>({3}, Vec(kMean))
                .Input<float>({3}, Vec(kVar))
                .Run();
  EXPECT_NEAR(Values<BFloat16>(*bf[0])[0].ToFloat(), kWant[0], 1e-2);
  ExpectError(
      [&] {
        NodeTest("BatchNormalization", 9)
            .Input<BFloat16>({2, 3, 2, 2}, xb)
            .Input<BFloat16>({3}, std::vector<BFloat16>(3))
            .Input<BFloat16>({3}, std::vector<BFloat16>(3))
            .Input<BFloat16>({3}, std::vector<BFloat16>(3))
            .Input<BFloat16>({3}, std::vector<BFloat16>(3))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "bfloat16", "opset 14"});
}

TEST(NnBatchNormalization, TrainingIsNotImplemented) {
  ExpectError([] { Spatial(14).Attr("training_mode", int64_t{1}).Run(); },
              ErrorCode::kNotImplemented, {"training_mode"});
  ExpectError([] { Spatial(15).Attr("training_mode", int64_t{1}).Outputs(3).Run(); },
              ErrorCode::kNotImplemented, {"training_mode"});
  ExpectError([] { Spatial(9).Outputs(5).Run(); }, ErrorCode::kNotImplemented, {"training"});
  ExpectError([] { Spatial(7).Outputs(3, {1}).Run(); }, ErrorCode::kNotImplemented, {"training"});
  ExpectError([] { Spatial(6).Outputs(5).Run(); }, ErrorCode::kNotImplemented, {"training"});
  // Test mode has only Y.
  ExpectError([] { Spatial(6).Attr("is_test", int64_t{1}).Outputs(5).Run(); },
              ErrorCode::kInvalidArgument, {"is_test=1"});
  ExpectError([] { Spatial(15).Outputs(3).Run(); }, ErrorCode::kInvalidArgument,
              {"'running_mean'", "training_mode=1"});
  // Outputs declared but left out do not ask for training.
  ExpectNear(Values<float>(*Spatial(9).Outputs(5, {1, 2, 3, 4}).Run()[0]), Vec(kWant), 1e-5);
}

TEST(NnBatchNormalization, RejectsBadShapes) {
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 15)
            .Input<float>({2, 3, 2, 2}, Pattern(24))
            .Input<float>({3}, Vec(kScale))
            .Input<float>({2}, {0.0f, 0.0f})
            .Input<float>({3}, Vec(kMean))
            .Input<float>({3}, Vec(kVar))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'B'", "[2]", "expected [3]"});
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 15)
            .Input<float>({3}, {1, 2, 3})
            .Input<float>({3}, Vec(kScale))
            .Input<float>({3}, Vec(kBias))
            .Input<float>({3}, Vec(kMean))
            .Input<float>({3}, Vec(kVar))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "rank 2"});
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 15)
            .Input<float>({1, 3}, {1, 2, 3})
            .Input<float>({3}, Vec(kScale))
            .Input<float>({3}, Vec(kBias))
            .Input<float>({3}, Vec(kMean))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"input 4"});
}

TEST(NnBatchNormalization, RankTwoAndEmptyBatch) {
  auto out = NodeTest("BatchNormalization", 15)
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 6})
                 .Input<float>({3}, {1, 1, 1})
                 .Input<float>({3}, {0, 1, 2})
                 .Input<float>({3}, {0, 0, 0})
                 .Input<float>({3}, {1, 1, 1})
                 .Run();
  ExpectNear(Values<float>(*out[0]), {1.0f, 3.0f, 5.0f, 4.0f, 6.0f, 8.0f}, 1e-4);
  auto empty = NodeTest("BatchNormalization", 15)
                   .Input<float>({0, 3, 2}, {})
                   .Input<float>({3}, Vec(kScale))
                   .Input<float>({3}, Vec(kBias))
                   .Input<float>({3}, Vec(kMean))
                   .Input<float>({3}, Vec(kVar))
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 3, 2}));
}

}  // namespace
}  // namespace kiln::testing
