#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/rnn/rnn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

TEST(RnnSimple, ForwardTanh) {
  const std::vector<float> x = {-0.203f, -1.082f, -0.151f, -0.746f, -1.25f, 0.511f,
                                0.391f,  -1.787f, -0.123f, 0.996f,  1.059f, 1.026f,
                                0.039f,  -0.845f, -1.084f, 0.345f,  0.379f, 1.287f};
  const std::vector<float> w = {0.55f,   -0.066f, -0.622f, -0.16f,  0.109f, -0.101f,
                                -0.289f, 0.126f,  -0.252f, -0.314f, 0.156f, -0.201f};
  const std::vector<float> r = {0.122f,  0.137f,  -0.57f, -0.241f, 0.719f,  -0.581f,
                                -1.058f, -0.931f, 0.015f, 0.015f,  -0.059f, 0.607f,
                                -1.336f, 0.198f,  0.781f, -0.564f};
  const std::vector<float> b = {-0.114f, -0.226f, -0.268f, -0.098f,
                                0.428f,  0.551f,  -0.101f, 0.572f};
  const std::vector<float> h0 = {0.036f, 1.754f, -0.093f, 0.131f, 0.365f, 3.179f, 0.851f, -0.707f};
  NodeTest t("RNN", 7);
  t.Input<float>({3, 2, 3}, x).Input<float>({1, 4, 3}, w).Input<float>({1, 4, 4}, r);
  t.Input<float>({1, 8}, b);
  t.MissingInput();
  t.Input<float>({1, 2, 4}, h0);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {3, 1, 2, 4},
      {0.56067216f,  -0.64223229f, -0.28834388f, 0.50200272f,  -0.16475649f, -0.91705849f,
       -0.69927278f, 0.92399999f,  0.63352795f,  0.60057335f,  -0.34138595f, -0.85843593f,
       0.18185281f,  0.43931578f,  -0.19358989f, -0.72041006f, 0.92556296f,  0.92213426f,
       -0.60181651f, 0.03785557f,  0.044529962f, 0.73159638f,  -0.82163361f, 0.25920297f},
      1e-5f);
  ExpectTensorNear(*out[1], {1, 2, 4},
                   {0.92556296f, 0.92213426f, -0.60181651f, 0.03785557f, 0.044529962f, 0.73159638f,
                    -0.82163361f, 0.25920297f},
                   1e-5f);
}

TEST(RnnSimple, BidirectionalReluLeakyReluWithLengths) {
  const std::vector<float> x = {0.969f, -0.362f, -0.49f, 0.909f,  0.031f, 0.279f,
                                0.014f, 0.337f,  0.425f, -1.937f, 0.667f, -0.982f};
  const std::vector<float> w = {-0.721f, -0.029f, 0.042f,  -0.347f, 0.416f,  -0.671f,
                                -0.203f, -0.292f, -0.023f, 0.139f,  -0.504f, 0.362f};
  const std::vector<float> r = {0.032f,  -0.946f, -0.979f, -0.006f, -0.11f,  -0.052f,
                                -0.014f, 0.113f,  0.474f,  -0.556f, -0.586f, -0.547f,
                                0.144f,  0.622f,  -0.216f, -1.251f, -0.852f, -0.417f};
  const std::vector<float> b = {-0.167f, -0.123f, 0.012f,  -0.094f, 0.315f, -0.203f,
                                -0.259f, 0.144f,  -0.461f, 0.117f,  0.031f, -0.044f};
  NodeTest t("RNN", 14);
  t.Attr("direction", "bidirectional");
  t.Attr("activations", std::vector<std::string>{"Relu", "LeakyRelu"});
  t.Attr("activation_alpha", std::vector<float>{0.2f});
  t.Input<float>({3, 2, 2}, x).Input<float>({2, 3, 2}, w).Input<float>({2, 3, 3}, r);
  t.Input<float>({2, 6}, b);
  t.Input<int32_t>({2}, {3, 2});
  t.Outputs(2);
  auto out = t.Run(2);
  ExpectTensorNear(
      *out[0], {3, 2, 2, 3},
      {0.0f,          0.35831199f,   0.455006f,    0.065929023f,  0.0f,         0.0f,
       -0.061951078f, 0.31853777f,   -0.25345559f, -0.073609513f, 0.46025224f,  -0.0048653136f,
       0.0f,          0.033414357f,  0.0f,         0.0f,          0.075253415f, 0.0f,
       -0.049946783f, 0.31006455f,   -0.14108781f, -0.048649201f, 0.22152099f,  -0.078012399f,
       0.0f,          0.87831343f,   1.2893029f,   0.0f,          0.0f,         0.0f,
       0.337329f,     -0.020803602f, -0.2840788f,  0.0f,          0.0f,         0.0f},
      1e-5f);
  ExpectTensorNear(*out[1], {2, 2, 3},
                   {0.0f, 0.87831343f, 1.2893029f, 0.0f, 0.075253415f, 0.0f, -0.061951078f,
                    0.31853777f, -0.25345559f, -0.073609513f, 0.46025224f, -0.0048653136f},
                   1e-5f);
}

TEST(RnnSimple, Layout1OtherActivations) {
  const std::vector<float> x = {1.588f,  -0.622f, 2.06f,  -0.225f, -1.277f, 0.07f,
                                -1.076f, -0.752f, 0.397f, 0.556f,  -0.622f, 0.987f};
  const std::vector<float> w = {0.579f, 0.718f, 0.265f, 0.682f};
  const std::vector<float> r = {-0.94f, -0.159f, -0.434f, 0.06f};
  const std::vector<float> b = {-0.171f, -0.05f, 0.565f, -0.051f};
  const std::vector<float> h0 = {0.414f, -0.232f, 0.076f, 0.006f, 0.448f, 1.165f};
  NodeTest t("RNN", 14);
  t.Attr("layout", int64_t{1});
  t.Attr("activations", std::vector<std::string>{"Softplus"});
  t.Input<float>({3, 2, 2}, x).Input<float>({1, 2, 2}, w).Input<float>({1, 2, 2}, r);
  t.Input<float>({1, 4}, b);
  t.MissingInput();
  t.Input<float>({3, 1, 2}, h0);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(*out[0], {3, 2, 1, 2},
                   {0.98317991f, 0.55521538f, 0.92065094f, 0.64347693f, 0.52617811f, 0.50333855f,
                    0.231834f, 0.28804411f, 0.92305644f, 0.83093277f, 0.57276584f, 0.72182365f},
                   1e-5f);
  ExpectTensorNear(*out[1], {3, 1, 2},
                   {0.92065094f, 0.64347693f, 0.231834f, 0.28804411f, 0.57276584f, 0.72182365f},
                   1e-5f);
}

TEST(RnnSimple, ThresholdedReluAndSigmoidBidirectional) {
  const std::vector<float> x = {1.647f, 0.31f, 0.59f, -1.151f};
  const std::vector<float> w = {-0.044f, 0.47f, 0.433f, 0.106f, 0.443f, 0.245f, 0.6f, 0.145f};
  const std::vector<float> r = {-0.178f, 0.168f, -1.465f, 0.191f, -1.824f, -0.862f, 0.226f, 0.239f};
  const std::vector<float> b = {-0.349f, -0.214f, 0.411f, -0.145f, 0.673f, -0.001f, 0.122f, 0.485f};
  NodeTest t("RNN", 7);
  t.Attr("direction", "bidirectional");
  t.Attr("activations", std::vector<std::string>{"ThresholdedRelu", "Sigmoid"});
  t.Attr("activation_alpha", std::vector<float>{0.1f});
  t.Input<float>({2, 1, 2}, x).Input<float>({2, 2, 2}, w).Input<float>({2, 2, 2}, r);
  t.Input<float>({2, 4}, b);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {2, 2, 1, 2},
      {0.13523201f, 0.38701098f, 0.44563454f, 0.86176147f, 0.0f, 0.0f, 0.68446652f, 0.66175055f},
      1e-5f);
  ExpectTensorNear(*out[1], {2, 1, 2}, {0.0f, 0.0f, 0.44563454f, 0.86176147f}, 1e-5f);
}
TEST(RnnSimpleErrors, ActivationsPerDirection) {
  ExpectNodeError(NodeTest("RNN", 14)
                      .Attr("direction", "bidirectional")
                      .Attr("activations", std::vector<std::string>{"Tanh"})
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({2, 1, 1}, {1, 1})
                      .Input<float>({2, 1, 1}, {1, 1}),
                  ErrorCode::kInvalidGraph, "bidirectional needs 2");
}

TEST(RnnSimple, DoubleAndSequenceLengthZero) {
  // h = tanh(x + h) per step, second batch entry of length 0 gives zeros.
  auto out = NodeTest("RNN", 14)
                 .Input<double>({2, 2, 1}, {0.5, 9, 0.25, 9})
                 .Input<double>({1, 1, 1}, {1})
                 .Input<double>({1, 1, 1}, {1})
                 .MissingInput()
                 .Input<int64_t>({2}, {2, 0})
                 .Outputs(2)
                 .Run();
  const double h1 = std::tanh(0.5);
  const double h2 = std::tanh(0.25 + h1);
  const std::vector<double> y = Values<double>(*out[0]);
  const std::vector<double> y_h = Values<double>(*out[1]);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_NEAR(y[0], h1, 1e-12);
  EXPECT_EQ(y[1], 0.0);
  EXPECT_NEAR(y[2], h2, 1e-12);
  EXPECT_EQ(y[3], 0.0);
  EXPECT_NEAR(y_h[0], h2, 1e-12);
  EXPECT_EQ(y_h[1], 0.0);
}

}  // namespace
}  // namespace kiln::testing
