#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/cpu/rnn/rnn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

TEST(RnnGru, ForwardDefaultResetPlacement) {
  const std::vector<float> x = {-1.991f, -1.495f, 1.364f, 0.895f,  -0.719f, -1.503f,
                                -2.965f, -0.543f, 2.42f,  0.435f,  -0.56f,  0.465f,
                                -1.561f, -0.297f, 0.099f, -0.086f, 0.791f,  0.345f};
  const std::vector<float> w = {0.334f, -0.344f, 0.449f,  0.814f,  -0.485f, -0.444f,
                                0.668f, -0.096f, 0.702f,  -0.221f, 0.728f,  0.066f,
                                0.129f, 0.782f,  -0.181f, -0.471f, -0.224f, 0.226f};
  const std::vector<float> r = {-0.783f, 0.319f,  -0.269f, 0.574f, -1.197f, -0.393f,
                                -0.843f, -0.413f, 0.124f,  -0.09f, -0.127f, -0.08f};
  const std::vector<float> b = {0.061f, -0.303f, 0.212f,  0.199f,  0.116f,  0.167f,
                                0.089f, 0.611f,  -0.026f, -0.092f, -0.226f, -0.31f};
  const std::vector<float> h0 = {-1.244f, -0.889f, -0.071f, 0.334f};
  NodeTest t("GRU", 7);
  t.Input<float>({3, 2, 3}, x).Input<float>({1, 6, 3}, w).Input<float>({1, 6, 2}, r);
  t.Input<float>({1, 12}, b);
  t.MissingInput();
  t.Input<float>({1, 2, 2}, h0);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {3, 1, 2, 2},
      {-1.1816601f, 0.55737808f, -0.17023932f, 0.24284364f, -1.1328747f, 0.92632449f, -0.27579211f,
       0.14191877f, -0.98590613f, 0.76645894f, 0.010364072f, -0.03335385f},
      1e-5f);
  ExpectTensorNear(*out[1], {1, 2, 2}, {-0.98590613f, 0.76645894f, 0.010364072f, -0.03335385f},
                   1e-5f);
}

TEST(RnnGru, LinearBeforeResetBidirectionalWithLengths) {
  const std::vector<float> x = {0.051f, -0.766f, 0.9f,    0.739f,  -0.16f,  -0.653f,
                                0.548f, 0.188f,  -1.448f, -0.068f, 0.262f,  -0.9f,
                                0.19f,  -1.455f, 1.336f,  1.248f,  -0.253f, 0.363f};
  const std::vector<float> w = {-1.205f, -0.578f, -0.147f, -0.536f, 0.357f,  0.999f,
                                -0.588f, -0.419f, 0.118f,  0.806f,  -0.611f, 0.125f,
                                0.911f,  -0.826f, -0.641f, -0.212f, -0.26f,  0.406f,
                                0.121f,  -0.887f, 0.258f,  -0.289f, 0.637f,  -0.314f};
  const std::vector<float> r = {-0.318f, 0.271f, 0.381f,  0.224f,  -0.843f, 0.269f,
                                -0.517f, 0.118f, -0.712f, 0.223f,  -0.403f, -0.641f,
                                0.357f,  0.121f, -0.307f, 0.726f,  -0.22f,  0.016f,
                                0.134f,  -0.31f, 0.236f,  -0.267f, -0.206f, 0.681f};
  const std::vector<float> b = {-0.312f, -0.724f, 0.483f,  0.765f,  -0.122f, -0.581f,
                                -0.093f, -0.086f, -0.057f, -0.334f, 0.174f,  0.157f,
                                -0.448f, 0.21f,   0.616f,  0.052f,  -0.101f, -0.043f,
                                0.185f,  -0.519f, 0.049f,  -0.117f, 0.554f,  -0.052f};
  const std::vector<float> h0 = {1.668f, -1.104f, 0.587f,  0.319f,  -0.869f, 0.177f,
                                 1.213f, -0.324f, -1.692f, -0.018f, -0.902f, -0.342f};
  NodeTest t("GRU", 14);
  t.Attr("direction", "bidirectional");
  t.Attr("linear_before_reset", int64_t{1});
  t.Input<float>({3, 3, 2}, x).Input<float>({2, 6, 2}, w).Input<float>({2, 6, 2}, r);
  t.Input<float>({2, 12}, b);
  t.Input<int32_t>({3}, {2, 3, 0});
  t.Input<float>({2, 3, 2}, h0);
  t.Outputs(2);
  auto out = t.Run(2);
  ExpectTensorNear(*out[0], {3, 2, 3, 2},
                   {0.0027732739f, -0.82659916f,  0.44197673f,  -0.51775303f, 0.0f, 0.0f,
                    0.79493734f,   -0.020179228f, 0.011194887f, 0.23100075f,  0.0f, 0.0f,
                    0.069582681f,  -0.58385808f,  0.2291958f,   0.10559572f,  0.0f, 0.0f,
                    0.93234922f,   -0.090174841f, -0.25414341f, 0.053857704f, 0.0f, 0.0f,
                    0.0f,          0.0f,          0.75736719f,  -0.68140131f, 0.0f, 0.0f,
                    0.0f,          0.0f,          -0.56418711f, 0.31451467f,  0.0f, 0.0f},
                   1e-5f);
  ExpectTensorNear(*out[1], {2, 3, 2},
                   {0.069582681f, -0.58385808f, 0.75736719f, -0.68140131f, 0.0f, 0.0f, 0.79493734f,
                    -0.020179228f, 0.011194887f, 0.23100075f, 0.0f, 0.0f},
                   1e-5f);
}

TEST(RnnGru, ReverseLayout1ClipAndActivations) {
  const std::vector<float> x = {-0.082f, -1.706f, -1.616f, 0.482f,  -0.523f, -2.565f,
                                0.785f,  0.272f,  -0.714f, -1.317f, 0.836f,  0.349f};
  const std::vector<float> w = {1.191f,  0.21f,   0.194f,  -0.083f, 0.408f, 0.313f,
                                0.626f,  -0.261f, -0.218f, -0.24f,  0.395f, 0.749f,
                                -0.229f, -0.212f, 0.157f,  -0.123f, 0.476f, -1.126f};
  const std::vector<float> r = {-0.413f, -0.391f, -1.16f,  -0.482f, -0.458f, -0.101f, 0.556f,
                                -0.123f, -0.515f, -0.028f, 0.525f,  -0.488f, -0.455f, 0.279f,
                                -0.111f, 0.324f,  -0.007f, 0.351f,  -0.518f, -0.006f, -0.105f,
                                -0.608f, -0.782f, 0.343f,  -0.175f, -0.511f, -0.048f};
  const std::vector<float> b = {0.338f,  -0.684f, -0.449f, -0.277f, 0.438f, 0.085f,
                                0.23f,   -0.342f, -0.336f, 0.134f,  0.017f, 0.165f,
                                -0.056f, 0.083f,  0.047f,  0.233f,  0.242f, -0.486f};
  NodeTest t("GRU", 14);
  t.Attr("direction", "reverse");
  t.Attr("layout", int64_t{1});
  t.Attr("clip", 0.5f);
  t.Attr("activations", std::vector<std::string>{"ScaledTanh", "Affine"});
  t.Attr("activation_alpha", std::vector<float>{0.9f, 1.5f});
  t.Attr("activation_beta", std::vector<float>{1.2f, -0.1f});
  t.Input<float>({2, 3, 2}, x).Input<float>({1, 9, 2}, w).Input<float>({1, 9, 3}, r);
  t.Input<float>({1, 18}, b);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(*out[0], {2, 3, 1, 3},
                   {0.57660204f, 0.67198868f, -0.18198861f, 0.49814569f, -0.22146306f, -1.7268712f,
                    0.964174f, 0.1484472f, 0.964174f, 0.28569092f, 0.26818647f, -1.0619798f,
                    0.54356853f, 0.25657334f, 0.9717118f, 0.10144631f, -0.17431154f, -0.69930933f},
                   1e-5f);
  ExpectTensorNear(*out[1], {2, 1, 3},
                   {0.57660204f, 0.67198868f, -0.18198861f, 0.28569092f, 0.26818647f, -1.0619798f},
                   1e-5f);
}

TEST(RnnGru, Opset1IgnoresLinearBeforeReset) {
  const std::vector<float> x = {-2.247f, 1.002f, 1.188f, -1.021f, -1.86f, 0.099f, 0.931f, 1.798f};
  const std::vector<float> w = {0.258f, -0.186f, -0.447f, 0.006f, -0.15f, -0.508f,
                                1.024f, 0.893f,  0.568f,  -0.46f, 0.428f, 0.32f};
  const std::vector<float> r = {0.221f,  0.625f, 0.318f,  0.37f,  0.318f, 0.17f,
                                -0.892f, 0.042f, -0.278f, -0.64f, 0.841f, 0.864f};
  const std::vector<float> b = {0.408f, 0.077f, 0.405f,  0.004f,  0.061f,  -0.328f,
                                0.119f, 0.018f, -0.391f, -0.015f, -0.024f, 0.539f};
  const std::vector<float> h0 = {0.894f, 0.011f, 0.249f, 0.044f};
  NodeTest t("GRU", 1);
  t.Attr("linear_before_reset", int64_t{1});
  t.Input<float>({2, 2, 2}, x).Input<float>({1, 6, 2}, w).Input<float>({1, 6, 2}, r);
  t.Input<float>({1, 12}, b);
  t.MissingInput();
  t.Input<float>({1, 2, 2}, h0);
  t.Outputs(2);
  auto out = t.Run(1);
  ExpectTensorNear(*out[0], {2, 1, 2, 2},
                   {-0.044038391f, 0.0030196832f, 0.38828322f, 0.30697227f, -0.41069482f,
                    -0.14608474f, 0.11584616f, 0.61893151f},
                   1e-5f);
  ExpectTensorNear(*out[1], {1, 2, 2}, {-0.41069482f, -0.14608474f, 0.11584616f, 0.61893151f},
                   1e-5f);
}
TEST(RnnGruErrors, ShapesUseThreeGates) {
  ExpectNodeError(NodeTest("GRU", 14)
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'W' has shape [1,4,1] but must be [1,3,1]");
  ExpectNodeError(NodeTest("GRU", 14)
                      .Attr("direction", "bidirectional")
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 3, 1}, {1, 1, 1})
                      .Input<float>({1, 3, 1}, {1, 1, 1}),
                  ErrorCode::kInvalidArgument, "must be [2,3,1]");
}

}  // namespace
}  // namespace kiln::testing
