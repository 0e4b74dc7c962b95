// LayerNormalization: the outputs Y, Mean and InvStdDev (reference values from the ONNX reference
// implementation's formula in numpy), axes, epsilon, Scale and B broadcasting per row and across
// rows, 16-bit floats, empty inputs and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/linalg_test_util.h"

namespace kiln::testing {
namespace {

std::vector<Float16> Halves(const std::vector<float>& values) {
  std::vector<Float16> out;
  out.reserve(values.size());
  for (float v : values) out.push_back(Float16::FromFloat(v));
  return out;
}

std::vector<double> PowRamp() {  // arange(12) ** 1.5, shaped [2,3,2]
  std::vector<double> v(12);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::pow(static_cast<double>(i), 1.5);
  return v;
}

TEST(LinalgLayerNormalization, LastAxisWithMeanAndInvStdDev) {
  auto out = NodeTest("LayerNormalization", 17)
                 .Input<float>({2, 4}, {1, 2, 3, 4, 2, 2, 2, 6})
                 .Input<float>({4}, {1, 0.5f, 2, -1})
                 .Input<float>({4}, {0, 1, 0, 0.5f})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 4}));
  ExpectNear<float>(*out[0],
                    {-1.34163542f, 0.77639410f, 0.89442361f, -0.84163542f, -0.57734931f,
                     0.71132535f, -1.15469861f, -1.23204792f},
                    1e-5);
  EXPECT_EQ(out[1]->shape(), Shape({2, 1}));
  EXPECT_EQ(out[1]->type(), DataType::kFloat);
  ExpectNear<float>(*out[1], {2.5f, 3.0f}, 1e-6);
  EXPECT_EQ(out[2]->shape(), Shape({2, 1}));
  ExpectNear<float>(*out[2], {0.89442361f, 0.57734931f}, 1e-6);
}

TEST(LinalgLayerNormalization, EarlierAxisAndEpsilon) {
  std::vector<double> scale = {0.5, 1, 1.5, 2, 2.5, 3};
  auto out = NodeTest("LayerNormalization", 17)
                 .Attr("axis", int64_t{1})
                 .Attr("epsilon", 0.1f)
                 .Input<double>({2, 3, 2}, PowRamp())
                 .Input<double>({3, 2}, scale)
                 .Outputs(3, {1})
                 .Run();
  ExpectNear<double>(
      *out[0],
      {-0.596960586005237, -0.939939697304124, -0.7133296196519926, 0.2516105662150601,
       2.094826564100816, 4.93703412100421, -0.7011407895116676, -0.8897925909588702,
       -0.5088858833710836, 0.4937128804747442, 2.1662670278177476, 4.55390452259537},
      1e-6);
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(out[2]->shape(), Shape({2, 1, 1}));
  ExpectNear<float>(*out[2], {0.25398147f, 0.13404290f}, 1e-6);
}

TEST(LinalgLayerNormalization, ScaleThatVariesAcrossRows) {
  // Scale [2,1,2] differs between the outer rows; B is a scalar.
  auto out = NodeTest("LayerNormalization", 23)
                 .Input<double>({2, 3, 2}, PowRamp())
                 .Input<double>({2, 1, 2}, {1, 2, 3, 4})
                 .Input<double>({}, {0.5})
                 .Run();
  ExpectNear<double>(
      *out[0],
      {-0.49998000059997993, 2.49996000119996, -0.4999964324912838, 2.499992864982568,
       -0.4999980226587092, 2.4999960453174204, -2.4999958954183596, 4.499994527224484,
       -2.4999968618446067, 4.499995815792816, -2.499997459840509, 4.499996613120667},
      1e-5);
}

TEST(LinalgLayerNormalization, HalfTypesAndEmptyRows) {
  std::vector<Float16> x = {Float16::FromFloat(1), Float16::FromFloat(3)};
  std::vector<Float16> s = {Float16::FromFloat(2), Float16::FromFloat(2)};
  auto out = NodeTest("LayerNormalization", 17)
                 .Attr("epsilon", 0.0f)
                 .Input<Float16>({1, 2}, x)
                 .Input<Float16>({2}, s)
                 .Run();
  const std::vector<Float16> y = Values<Float16>(*out[0]);
  EXPECT_EQ(y[0].ToFloat(), -2.0f);
  EXPECT_EQ(y[1].ToFloat(), 2.0f);

  auto empty = NodeTest("LayerNormalization", 17)
                   .Input<float>({0, 4}, {})
                   .Input<float>({4}, {1, 1, 1, 1})
                   .Outputs(2)
                   .Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0, 4}));
  EXPECT_EQ(empty[1]->shape(), Shape({0, 1}));
}

TEST(LinalgLayerNormalization, HalfSecondStageRoundsEachStep) {
  // As the ONNX reference: the normalised value is rounded to float16, then the product with
  // Scale, then the sum with B. Rounding once would give 0.378173828125, -2.283203125,
  // -6.4453125 and 7.48046875 for elements 1, 3, 4 and 5.
  auto out = NodeTest("LayerNormalization", 17)
                 .Input<Float16>({1, 6}, Halves({-0.65380859375f, -0.129638671875f, 0.7841796875f,
                                                 1.4931640625f, -1.2587890625f, 1.513671875f}))
                 .Input<Float16>({6}, Halves({4.0390625f, 2.34375f, 0.79345703125f, -0.94189453125f,
                                              4.375f, 5.87890625f}))
                 .Input<Float16>({6}, Halves({1.8017578125f, 1.3154296875f, 0.357421875f,
                                              -1.2080078125f, -0.00445556640625f, 0.65625f}))
                 .Run();
  std::vector<float> y;
  for (Float16 h : Values<Float16>(*out[0])) y.push_back(h.ToFloat());
  EXPECT_EQ(y, (std::vector<float>{-1.8232421875f, 0.3779296875f, 0.728515625f, -2.28125f,
                                   -6.44140625f, 7.4765625f}));
}

TEST(LinalgLayerNormalization, StashTypeBfloat16RoundsTheFirstStage) {
  // The function body in bfloat16: row 1 has mean 2.5, var 1.25, sqrt 1.1171875 (bfloat16), so
  // (X - mean) / it is ±1.34375, ±0.447265625 and InvStdDev 0.89453125; row 2 has mean 3, var 3,
  // sqrt 1.734375, InvStdDev 0.578125. Computed in float the first row would be ±1.3416355.
  auto out = NodeTest("LayerNormalization", 17)
                 .Attr("stash_type", int64_t{16})
                 .Input<float>({2, 4}, {1, 2, 3, 4, 2, 2, 2, 6})
                 .Input<float>({4}, {1, 0.5f, 2, -1})
                 .Input<float>({4}, {0, 1, 0, 0.5f})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]),
            (std::vector<float>{-1.34375f, 0.7763671875f, 0.89453125f, -0.84375f, -0.578125f,
                                0.7109375f, -1.15625f, -1.2265625f}));
  ASSERT_EQ(out[1]->type(), DataType::kBfloat16);
  ASSERT_EQ(out[2]->type(), DataType::kBfloat16);
  EXPECT_EQ(out[1]->shape(), Shape({2, 1}));
  const std::vector<BFloat16> mean = Values<BFloat16>(*out[1]);
  const std::vector<BFloat16> inv_std = Values<BFloat16>(*out[2]);
  EXPECT_EQ(mean[0].ToFloat(), 2.5f);
  EXPECT_EQ(mean[1].ToFloat(), 3.0f);
  EXPECT_EQ(inv_std[0].ToFloat(), 0.89453125f);
  EXPECT_EQ(inv_std[1].ToFloat(), 0.578125f);
}

TEST(LinalgLayerNormalization, EmptyInputWithHugeDimensions) {
  // 3^39 · 5 rows overflows size_t; the input is empty, so there is nothing to do.
  const int64_t big = 4052555153018976267;  // 3^39
  auto out =
      NodeTest("LayerNormalization", 17).Input<float>({big, 5, 0}, {}).Input<float>({1}, {1}).Run();
  EXPECT_EQ(out[0]->shape(), Shape({big, 5, 0}));
}

TEST(LinalgLayerNormalization, RejectsBadInputs) {
  ExpectError(NodeTest("LayerNormalization", 17)
                  .Input<float>({2, 2}, {1, 2, 3, 4})
                  .Input<double>({2}, {1, 1}),
              ErrorCode::kInvalidArgument, "LayerNormalization",
              "input 'Scale' is double but input 'X' is float");
  ExpectError(NodeTest("LayerNormalization", 17)
                  .Input<float>({2, 2}, {1, 2, 3, 4})
                  .Input<float>({2}, {1, 1})
                  .Input<float>({3}, {1, 1, 1}),
              ErrorCode::kInvalidArgument, "LayerNormalization",
              "input 'B' has shape [3], which does not broadcast to [2,2]");
  ExpectError(NodeTest("LayerNormalization", 17)
                  .Attr("axis", int64_t{-3})
                  .Input<float>({2, 2}, {1, 2, 3, 4})
                  .Input<float>({2}, {1, 1}),
              ErrorCode::kInvalidArgument, "LayerNormalization",
              "axis -3 is out of range for rank 2");
  for (int64_t stash : {0, 10, 11}) {
    ExpectError(NodeTest("LayerNormalization", 17)
                    .Attr("stash_type", stash)
                    .Input<float>({2}, {1, 2})
                    .Input<float>({2}, {1, 1}),
                ErrorCode::kInvalidGraph, "LayerNormalization",
                "attribute 'stash_type' is " + std::to_string(stash) +
                    "; it must be 1 (float) or 16 (bfloat16)");
  }
  ExpectError(
      NodeTest("LayerNormalization", 17).Input<int32_t>({2}, {1, 2}).Input<int32_t>({2}, {1, 1}),
      ErrorCode::kNotImplemented, "LayerNormalization", "int32");
}

}  // namespace
}  // namespace kiln::testing

namespace kiln::testing {
namespace {

// RMSNormalization: x / sqrt(mean(x²) + epsilon) · scale over the axes from `axis` on.
TEST(LinalgRmsNormalization, AxesEpsilonAndScale) {
  const std::vector<float> x = {1, -2, 3, 0.5f, 4, -1};
  const std::vector<float> scale = {2, 0.5f, 1};
  std::vector<float> want(6);
  for (size_t r = 0; r < 2; ++r) {
    double sq = 0;
    for (size_t i = 0; i < 3; ++i) sq += double{x[r * 3 + i]} * x[r * 3 + i];
    const double inv = 1.0 / std::sqrt(sq / 3 + 0.01);
    for (size_t i = 0; i < 3; ++i) {
      want[r * 3 + i] = static_cast<float>(x[r * 3 + i] * inv * scale[i]);
    }
  }
  auto out = NodeTest("RMSNormalization", 23)
                 .Attr("epsilon", 0.01f)
                 .Input<float>({2, 3}, x)
                 .Input<float>({3}, scale)
                 .Run(2);
  ExpectNear(*out[0], want, 1e-6);
  // axis 0 normalises over everything.
  double sq = 0;
  for (float v : x) sq += double{v} * v;
  const double inv = 1.0 / std::sqrt(sq / 6 + 1e-5);
  std::vector<float> all(6);
  for (size_t i = 0; i < 6; ++i) all[i] = static_cast<float>(x[i] * inv);
  auto whole = NodeTest("RMSNormalization", 23)
                   .Attr("axis", int64_t{0})
                   .Input<float>({2, 3}, x)
                   .Input<float>({1}, {1})
                   .Run();
  ExpectNear(*whole[0], all, 1e-6);
}

// ONNX Runtime's ONNX-domain forms, which its transformer optimizer writes into models of any
// opset: SimplifiedLayerNormalization is RMSNormalization with the inverse RMS as output 1.
TEST(LinalgRmsNormalization, OnnxRuntimeSimplifiedLayerNormalization) {
  const std::vector<float> x = {1, -2, 3, 0.5f, 4, -1};
  const std::vector<float> scale = {2, 0.5f, 1};
  std::vector<float> want(6);
  std::vector<float> inv_std(2);
  for (size_t r = 0; r < 2; ++r) {
    double sq = 0;
    for (size_t i = 0; i < 3; ++i) sq += double{x[r * 3 + i]} * x[r * 3 + i];
    const double inv = 1.0 / std::sqrt(sq / 3 + 0.01);
    inv_std[r] = static_cast<float>(inv);
    for (size_t i = 0; i < 3; ++i) {
      want[r * 3 + i] = static_cast<float>(x[r * 3 + i] * inv * scale[i]);
    }
  }
  for (int opset : {1, 12, 17, 23}) {
    auto out = NodeTest("SimplifiedLayerNormalization", opset)
                   .Attr("epsilon", 0.01f)
                   .Input<float>({2, 3}, x)
                   .Input<float>({3}, scale)
                   .Outputs(2)
                   .Run(2);
    SCOPED_TRACE(opset);
    ExpectNear(*out[0], want, 1e-6);
    EXPECT_EQ(out[1]->shape(), Shape({2, 1}));
    EXPECT_EQ(out[1]->type(), DataType::kFloat);
    ExpectNear(*out[1], inv_std, 1e-6);
  }
  auto only_y = NodeTest("SimplifiedLayerNormalization", 12)
                    .Attr("epsilon", 0.01f)
                    .Input<float>({2, 3}, x)
                    .Input<float>({3}, scale)
                    .Run();
  ExpectNear(*only_y[0], want, 1e-6);
}

// ONNX Runtime's LayerNormalization before opset 17 (from version 1) runs as opset 17's.
TEST(LinalgLayerNormalization, OnnxRuntimeFormBeforeOpset17) {
  const auto run = [](int opset) {
    return NodeTest("LayerNormalization", opset)
        .Attr("epsilon", 0.01f)
        .Input<float>({2, 4}, {1, 2, 3, 4, 2, 2, 2, 6})
        .Input<float>({4}, {1, 0.5f, 2, -1})
        .Input<float>({4}, {0, 1, 0, 0.5f})
        .Outputs(3)
        .Run();
  };
  const auto want = run(17);
  for (int opset : {1, 11, 16}) {
    const auto got = run(opset);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(got[i]->shape(), want[i]->shape()) << "opset " << opset << " output " << i;
      EXPECT_EQ(Values<float>(*got[i]), Values<float>(*want[i])) << "opset " << opset;
    }
  }
}

TEST(LinalgRmsNormalization, RejectsBadInputs) {
  ExpectError(NodeTest("RMSNormalization", 23)
                  .Input<float>({2, 2}, {1, 2, 3, 4})
                  .Input<float>({3}, {1, 1, 1}),
              ErrorCode::kInvalidArgument, "RMSNormalization", "input 'scale' has shape [3]");
  ExpectError(NodeTest("RMSNormalization", 23)
                  .Attr("axis", int64_t{2})
                  .Input<float>({2, 2}, {1, 2, 3, 4})
                  .Input<float>({2}, {1, 1}),
              ErrorCode::kInvalidArgument, "RMSNormalization", "axis 2 is out of range");
  ExpectError(NodeTest("RMSNormalization", 23)
                  .Attr("stash_type", int64_t{11})
                  .Input<float>({2}, {1, 2})
                  .Input<float>({2}, {1, 1}),
              ErrorCode::kInvalidGraph, "RMSNormalization", "'stash_type'");
}

}  // namespace
}  // namespace kiln::testing
