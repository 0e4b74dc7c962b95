// BatchNormalization (inference and training): values computed with numpy (the ONNX reference
// formulas) from nn_test::Pattern inputs.
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

// Training on Spatial(): the batch statistics (numpy mean and var over N, H, W) are
// mean {-0.015625, 0.03125, -0.1875} and var {0.458740234, 0.413085938, 0.23046875}.
constexpr float kTrainY[] = {-0.4766787f, 0.1692579f,  0.8151945f, -0.1075721f, -0.5348318f,
                             1.410011f,   0.04862108f, -1.312769f, -1.281117f,  2.364094f,
                             -2.84335f,   0.8018609f,  0.9997479f, 0.07698126f, 0.7229179f,
                             -0.1998487f, -0.3403475f, 1.604495f,  0.2431054f,  -1.118285f,
                             -1.801861f,  1.84335f,    -3.364094f, 0.2811165f};
// mean * 0.9 + batch * 0.1 (default momentum).
constexpr float kRunningMean[] = {0.110937497f, -0.221874994f, -0.01875f};
constexpr float kRunningVar[] = {0.495874012f, 0.94130857f, 0.248046869f};

TEST(NnBatchNormalization, TrainingModeAtOpsets14And15) {
  for (int64_t opset : {14, 15}) {
    SCOPED_TRACE(opset);
    auto out = Spatial(opset).Attr("training_mode", int64_t{1}).Outputs(3).Run();
    ExpectNear(Values<float>(*out[0]), Vec(kTrainY), 1e-5);
    EXPECT_EQ(out[1]->shape(), Shape({3}));
    ExpectNear(Values<float>(*out[1]), Vec(kRunningMean), 1e-6);
    ExpectNear(Values<float>(*out[2]), Vec(kRunningVar), 1e-6);
  }
  // The running outputs are optional; Y still uses the batch statistics.
  auto y_only = Spatial(15).Attr("training_mode", int64_t{1}).Run(3);
  ExpectNear(Values<float>(*y_only[0]), Vec(kTrainY), 1e-5);
  auto momentum =
      Spatial(15).Attr("training_mode", int64_t{1}).Attr("momentum", 0.5f).Outputs(3, {2}).Run();
  ExpectNear(Values<float>(*momentum[1]), {0.0546875f, -0.109375f, -0.09375f}, 1e-6);
  EXPECT_EQ(momentum[2], nullptr);
}

TEST(NnBatchNormalization, TrainingOutputsTakeTheTypeOfMean) {
  // Opset 15: X float16, mean and var double; rank 2 (no spatial dimensions).
  auto out = NodeTest("BatchNormalization", 15)
                 .Attr("training_mode", int64_t{1})
                 .Input<Float16>(
                     {2, 3}, {Float16::FromFloat(1), Float16::FromFloat(2), Float16::FromFloat(3),
                              Float16::FromFloat(4), Float16::FromFloat(5), Float16::FromFloat(7)})
                 .Input<float>({3}, {1, 1, 1})
                 .Input<float>({3}, {0, 0, 0})
                 .Input<double>({3}, {0, 0, 0})
                 .Input<double>({3}, {1, 1, 1})
                 .Outputs(3)
                 .Run();
  ASSERT_EQ(out[0]->type(), DataType::kFloat16);
  std::vector<float> y;
  for (Float16 h : Values<Float16>(*out[0])) y.push_back(h.ToFloat());
  ExpectNear(y, {-1, -1, -1, 1, 1, 1}, 1e-3);
  ASSERT_EQ(out[1]->type(), DataType::kDouble);
  ASSERT_EQ(out[2]->type(), DataType::kDouble);
  // momentum is the float 0.9f, so 1 - momentum is 0.10000002384185791 in double.
  const double rest = 1.0 - static_cast<double>(0.9f);
  const std::vector<double> mean = Values<double>(*out[1]);
  const std::vector<double> var = Values<double>(*out[2]);
  const double want_mean[] = {2.5 * rest, 3.5 * rest, 5.0 * rest};
  const double want_var[] = {0.9f + 2.25 * rest, 0.9f + 2.25 * rest, 0.9f + 4.0 * rest};
  ASSERT_EQ(mean.size(), 3u);
  ASSERT_EQ(var.size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(mean[c], want_mean[c], 1e-15) << c;
    EXPECT_NEAR(var[c], want_var[c], 1e-15) << c;
  }
}

TEST(NnBatchNormalization, TrainingOutputsBeforeOpset14) {
  // Outputs mean and var are the running statistics, saved_mean and saved_var the batch's.
  for (int64_t opset : {6, 7, 9}) {
    SCOPED_TRACE(opset);
    auto out = Spatial(opset).Outputs(5).Run();
    ExpectNear(Values<float>(*out[0]), Vec(kTrainY), 1e-5);
    ExpectNear(Values<float>(*out[1]), Vec(kRunningMean), 1e-6);
    ExpectNear(Values<float>(*out[2]), Vec(kRunningVar), 1e-6);
    ExpectNear(Values<float>(*out[3]), {-0.015625f, 0.03125f, -0.1875f}, 1e-7);
    ExpectNear(Values<float>(*out[4]), {0.458740234f, 0.413085938f, 0.23046875f}, 1e-7);
  }
  // Any one of them asks for training; opset 1 with is_test = 0 too.
  auto saved_mean_only = Spatial(7).Outputs(4, {1, 2}).Run();
  ExpectNear(Values<float>(*saved_mean_only[0]), Vec(kTrainY), 1e-5);
  ExpectNear(Values<float>(*saved_mean_only[3]), {-0.015625f, 0.03125f, -0.1875f}, 1e-7);
  auto v1 =
      Spatial(1).Attr("consumed_inputs", std::vector<int64_t>{0, 0, 0, 1, 1}).Outputs(3).Run();
  ExpectNear(Values<float>(*v1[1]), Vec(kRunningMean), 1e-6);
}

TEST(NnBatchNormalization, TrainingNonSpatialPerElement) {
  // spatial = 0 (opset 7): statistics per element of [C] over N; X [2, 3] = {1,2,3; 4,5,7}.
  auto out = NodeTest("BatchNormalization", 7)
                 .Attr("spatial", int64_t{0})
                 .Input<float>({2, 3}, {1, 2, 3, 4, 5, 7})
                 .Input<float>({3}, {1, 1, 1})
                 .Input<float>({3}, {0, 0, 0})
                 .Input<float>({3}, {0, 0, 0})
                 .Input<float>({3}, {1, 1, 1})
                 .Outputs(5)
                 .Run();
  ExpectNear(Values<float>(*out[0]), {-1, -1, -1, 1, 1, 1}, 1e-5);
  ExpectNear(Values<float>(*out[3]), {2.5f, 3.5f, 5.0f}, 1e-7);
  ExpectNear(Values<float>(*out[4]), {2.25f, 2.25f, 4.0f}, 1e-7);
}

TEST(NnBatchNormalization, TrainingErrors) {
  // Test mode has only Y.
  ExpectError([] { Spatial(6).Attr("is_test", int64_t{1}).Outputs(5).Run(); },
              ErrorCode::kInvalidArgument, {"is_test=1"});
  ExpectError([] { Spatial(15).Outputs(3).Run(); }, ErrorCode::kInvalidArgument,
              {"'running_mean'", "training_mode=1"});
  ExpectError(
      [] {
        NodeTest("BatchNormalization", 15)
            .Attr("training_mode", int64_t{1})
            .Input<float>({0, 3}, {})
            .Input<float>({3}, Vec(kScale))
            .Input<float>({3}, Vec(kBias))
            .Input<float>({3}, Vec(kMean))
            .Input<float>({3}, Vec(kVar))
            .Run();
      },
      ErrorCode::kInvalidArgument, {"'X'", "[0,3]", "at least one value per channel"});
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
