#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/cpu/rnn/rnn_test_util.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

// Reference values from a numpy implementation of the ONNX equations, which agrees with
// torch.nn.LSTM (weights reordered from i,f,g,o to i,o,f,c) to 1e-16 on a bidirectional case.
TEST(RnnLstm, ForwardWithAllOptionalInputs) {
  const std::vector<float> x = {0.305f, -1.04f,  0.75f,   0.941f,  -1.951f, -1.302f,
                                0.128f, -0.316f, -0.017f, -0.853f, 0.879f,  0.778f,
                                0.066f, 1.127f,  0.468f,  -0.859f, 0.369f,  -0.959f};
  const std::vector<float> w = {0.439f,  -0.025f, -0.092f, -0.34f,  0.611f, -0.077f,
                                -0.214f, -0.176f, 0.266f,  0.183f,  0.206f, 0.215f,
                                1.071f,  -0.203f, -0.256f, -0.407f, 0.308f, 0.564f,
                                -0.057f, -0.42f,  -0.412f, 0.325f,  0.372f, 0.272f};
  const std::vector<float> r = {-0.333f, 0.116f,  0.058f,  0.109f, 0.436f,  0.112f,
                                0.339f,  0.034f,  0.145f,  0.316f, -0.729f, -0.16f,
                                -0.235f, -0.319f, -0.138f, 0.747f};
  const std::vector<float> b = {-0.26f,  0.29f,  -0.505f, -0.1f,   0.049f, 0.176f,
                                0.213f,  0.238f, -0.105f, -0.139f, 0.257f, -0.057f,
                                -0.383f, -0.34f, -0.276f, 0.149f};
  const std::vector<float> h0 = {0.142f, 0.69f, -0.427f, 0.159f};
  const std::vector<float> c0 = {0.626f, -0.309f, 0.457f, -0.662f};
  const std::vector<float> p = {-0.182f, -0.191f, -0.598f, 0.243f, -0.235f, 0.006f};
  NodeTest t("LSTM", 7);
  t.Input<float>({3, 2, 3}, x).Input<float>({1, 8, 3}, w).Input<float>({1, 8, 2}, r);
  t.Input<float>({1, 16}, b);
  t.MissingInput();
  t.Input<float>({1, 2, 2}, h0);
  t.Input<float>({1, 2, 2}, c0);
  t.Input<float>({1, 6}, p);
  t.Outputs(3);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {3, 1, 2, 2},
      {0.1240116f, 0.061069273f, 0.16886095f, -0.047993729f, 0.053580511f, 0.095035495f,
       -0.02201716f, 0.14300473f, -0.095386956f, 0.33505599f, 0.020968874f, 0.072118029f},
      1e-5f);
  ExpectTensorNear(*out[1], {1, 2, 2}, {-0.095386956f, 0.33505599f, 0.020968874f, 0.072118029f},
                   1e-5f);
  ExpectTensorNear(*out[2], {1, 2, 2}, {-0.21215599f, 0.64380951f, 0.052589683f, 0.18198423f},
                   1e-5f);
}

TEST(RnnLstm, BidirectionalWithSequenceLengths) {
  const std::vector<float> x = {0.481f,  0.447f,  0.665f,  -0.098f, -0.423f, -0.08f,
                                -1.687f, -1.447f, -1.323f, -0.997f, 0.4f,    -0.905f,
                                -0.378f, 1.299f,  -0.356f, 0.738f,  -0.934f, -0.205f};
  const std::vector<float> w = {-0.475f, -0.17f,  0.42f,   -0.864f, 0.217f,  0.119f, -0.297f,
                                -0.723f, 0.036f,  -0.265f, 0.116f,  0.011f,  0.801f, -0.12f,
                                -0.512f, 0.09f,   0.11f,   0.68f,   0.418f,  0.178f, 0.732f,
                                -0.594f, -0.32f,  -0.463f, -0.195f, -0.688f, 0.318f, -0.111f,
                                -0.735f, -0.508f, 0.157f,  0.419f};
  const std::vector<float> r = {0.998f,  1.457f,  0.207f,  -0.495f, -1.066f, 0.134f,  -0.406f,
                                -0.208f, -0.306f, -0.07f,  0.533f,  0.079f,  -0.079f, -0.518f,
                                -0.837f, -0.243f, -0.027f, 0.884f,  0.065f,  0.491f,  -0.25f,
                                -0.592f, -0.483f, -0.363f, 1.064f,  -0.411f, 0.419f,  -0.451f,
                                0.466f,  0.192f,  -0.078f, -0.02f};
  const std::vector<float> b = {-0.196f, 0.134f,  -0.136f, -0.368f, -0.383f, 0.052f,  0.474f,
                                0.048f,  -0.036f, 0.086f,  0.392f,  0.066f,  -0.123f, 0.332f,
                                0.129f,  0.461f,  0.055f,  -0.367f, -0.41f,  0.495f,  0.517f,
                                -0.054f, -0.115f, 0.438f,  -0.332f, -0.268f, 0.193f,  -0.118f,
                                -0.002f, -0.049f, 0.101f,  0.422f};
  const std::vector<float> h0 = {0.091f,  0.644f,  -2.05f, -0.049f, -0.843f, -1.219f,
                                 -0.878f, -0.334f, 0.916f, -1.326f, 0.031f,  -0.484f};
  const std::vector<float> c0 = {-0.328f, 1.003f, 0.538f, 1.337f,  -0.155f, -0.696f,
                                 -0.224f, 0.242f, 0.177f, -1.084f, 0.09f,   0.228f};
  NodeTest t("LSTM", 14);
  t.Attr("direction", "bidirectional");
  t.Attr("hidden_size", int64_t{2});
  t.Input<float>({3, 3, 2}, x).Input<float>({2, 8, 2}, w).Input<float>({2, 8, 2}, r);
  t.Input<float>({2, 16}, b);
  t.Input<int32_t>({3}, {3, 1, 0});
  t.Input<float>({2, 3, 2}, h0);
  t.Input<float>({2, 3, 2}, c0);
  t.Outputs(3);
  auto out = t.Run(2);
  ExpectTensorNear(*out[0], {3, 2, 3, 2},
                   {0.12997794f,   0.1635467f,  0.31235913f,  0.45439785f,  0.0f, 0.0f,
                    -0.16398124f,  0.19217047f, 0.073422582f, -0.30923248f, 0.0f, 0.0f,
                    -0.13519522f,  0.54861834f, 0.0f,         0.0f,         0.0f, 0.0f,
                    -0.055915147f, 0.10393763f, 0.0f,         0.0f,         0.0f, 0.0f,
                    -0.11321604f,  0.13566181f, 0.0f,         0.0f,         0.0f, 0.0f,
                    -0.12831894f,  0.21317186f, 0.0f,         0.0f,         0.0f, 0.0f},
                   1e-5f);
  ExpectTensorNear(*out[1], {2, 3, 2},
                   {-0.11321604f, 0.13566181f, 0.31235913f, 0.45439785f, 0.0f, 0.0f, -0.16398124f,
                    0.19217047f, 0.073422582f, -0.30923248f, 0.0f, 0.0f},
                   1e-5f);
  ExpectTensorNear(*out[2], {2, 3, 2},
                   {-0.1807278f, 0.6636118f, 0.34994695f, 0.98402502f, 0.0f, 0.0f, -0.37677782f,
                    0.40393007f, 0.10413067f, -0.61899566f, 0.0f, 0.0f},
                   1e-5f);
}

TEST(RnnLstm, ReverseClipInputForgetActivationsLayout1) {
  const std::vector<float> x = {2.517f,  1.877f,  -0.853f, -0.287f, -1.463f, -0.591f,
                                0.316f,  1.206f,  -0.729f, -0.654f, -2.147f, -0.163f,
                                -1.062f, -0.529f, -0.877f, -0.094f, -1.758f, -1.467f,
                                2.129f,  -1.287f, -1.097f, 1.837f,  2.905f,  -1.172f};
  const std::vector<float> w = {
      -0.184f, 0.171f,  0.864f,  -0.493f, -0.123f, 0.389f, 0.217f, -0.188f, -0.067f,
      -0.687f, -0.119f, -0.133f, 0.116f,  -0.278f, 0.236f, 0.506f, 0.078f,  0.176f,
      0.027f,  0.0f,    -0.361f, 0.158f,  -0.049f, 1.047f, 0.787f, 0.193f,  -0.382f,
      -0.556f, 0.596f,  0.131f,  0.24f,   -0.872f, 0.464f, 0.227f, -0.555f, -0.236f};
  const std::vector<float> r = {
      0.132f,  0.026f,  -0.146f, -0.052f, -0.126f, 0.076f, 0.736f,  -1.283f, -0.118f,
      0.088f,  0.148f,  -0.186f, -0.878f, 0.164f,  0.864f, -0.767f, 0.432f,  -0.164f,
      -0.031f, -0.526f, -0.167f, 0.65f,   0.291f,  0.866f, 0.589f,  0.22f,   0.872f,
      0.219f,  0.414f,  -0.148f, 0.033f,  -0.349f, 0.495f, -0.589f, 0.391f,  -0.095f};
  const std::vector<float> b = {0.351f,  0.225f,  0.546f,  0.219f, -0.472f, -0.02f,
                                -0.352f, -0.155f, 0.453f,  0.191f, -0.21f,  -0.304f,
                                0.01f,   -0.365f, -0.201f, 0.094f, 0.347f,  0.183f,
                                -0.687f, 0.091f,  0.022f,  0.124f, 0.485f,  -0.619f};
  const std::vector<float> h0 = {-0.591f, 0.591f, -1.582f, 1.476f, 0.368f, 0.847f};
  NodeTest t("LSTM", 14);
  t.Attr("direction", "reverse");
  t.Attr("layout", int64_t{1});
  t.Attr("clip", 0.7f);
  t.Attr("input_forget", int64_t{1});
  t.Attr("activations", std::vector<std::string>{"HardSigmoid", "Elu", "Softsign"});
  t.Attr("activation_alpha", std::vector<float>{0.3f, 0.8f});
  t.Attr("activation_beta", std::vector<float>{0.4f});
  t.Input<float>({2, 4, 3}, x).Input<float>({1, 12, 3}, w).Input<float>({1, 12, 3}, r);
  t.Input<float>({1, 24}, b);
  t.MissingInput();
  t.Input<float>({2, 1, 3}, h0);
  t.Outputs(3);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {2, 4, 1, 3},
      {0.0064449001f, 0.042971921f, -0.11879035f,  0.030284249f,   0.1135051f,    -0.016146378f,
       0.06753402f,   0.041406124f, -0.028491945f, -0.047561958f,  0.069321388f,  0.09618987f,
       0.077658524f,  0.048633353f, 0.0012078625f, -0.0069794675f, 0.082544403f,  0.073907263f,
       0.0141032f,    0.028978956f, 0.10995423f,   0.030798242f,   -0.013505211f, -0.078935009f},
      1e-5f);
  ExpectTensorNear(
      *out[1], {2, 1, 3},
      {0.0064449001f, 0.042971921f, -0.11879035f, 0.077658524f, 0.048633353f, 0.0012078625f},
      1e-5f);
  ExpectTensorNear(
      *out[2], {2, 1, 3},
      {0.035111529f, 0.23404176f, -0.24183229f, 0.14588103f, 0.17124879f, 0.0051080223f}, 1e-5f);
}

TEST(RnnLstm, Opset1NoBiasOnlyYh) {
  const std::vector<float> x = {-0.571f, 0.814f, 1.068f, 0.233f};
  const std::vector<float> w = {0.117f, 0.135f,  -0.432f, -0.074f, -0.076f, 0.192f,
                                0.5f,   -0.529f, -0.063f, 0.741f,  -0.372f, -0.411f,
                                0.101f, 0.422f,  0.006f,  0.664f,  0.428f,  0.421f,
                                0.277f, 1.164f,  -0.103f, -1.002f, 0.802f,  -0.229f};
  const std::vector<float> r = {
      0.054f,  0.655f,  -0.801f, -0.626f, -0.801f, -0.397f, 0.22f,  0.262f,  0.138f,
      -0.706f, -1.155f, 0.027f,  -0.236f, 0.23f,   0.351f,  0.069f, 0.38f,   0.115f,
      0.265f,  -0.352f, -0.09f,  0.098f,  0.41f,   -0.197f, 0.261f, -0.133f, -0.059f,
      0.415f,  -0.997f, -0.648f, -0.741f, -1.167f, -0.339f, 0.375f, -0.142f, 0.099f};
  NodeTest t("LSTM", 1);
  t.Attr("output_sequence", int64_t{0});
  t.Input<float>({2, 1, 2}, x).Input<float>({1, 12, 2}, w).Input<float>({1, 12, 3}, r);
  t.Outputs(3, {0, 2});
  auto out = t.Run(1);
  EXPECT_EQ(out[0], nullptr);
  ExpectTensorNear(*out[1], {1, 1, 3}, {0.33691867f, -0.11360212f, 0.046046233f}, 1e-5f);
  EXPECT_EQ(out[2], nullptr);
}

TEST(RnnLstm, Float16ComputesInFloat) {
  const std::vector<float> x = {
      1.0888672f,   1.328125f,   -0.068969727f, 1.3535156f,   0.09197998f,  -0.83691406f,
      -0.59423828f, -1.4814453f, -0.88818359f,  -0.35791016f, 0.80419922f,  1.7207031f,
      -1.3818359f,  0.39306641f, -1.0410156f,   0.47509766f,  -0.13098145f, -1.8310547f};
  const std::vector<float> w = {
      0.46411133f,   -0.30297852f, -0.26708984f, -0.53515625f, -0.3269043f,   0.21398926f,
      -0.094970703f, 0.16394043f,  0.18103027f,  0.66015625f,  -0.17102051f,  -0.73779297f,
      0.53417969f,   -0.16601562f, 0.55712891f,  0.1920166f,   -0.065979004f, 0.1739502f,
      0.97607422f,   1.0380859f,   0.035003662f, 0.08001709f,  0.53808594f,   -0.4230957f};
  const std::vector<float> r = {0.16699219f,  -0.013000488f, 0.15698242f,  -0.41699219f,
                                -0.79492188f, -1.0361328f,   -0.55908203f, -0.22900391f,
                                -0.14697266f, 0.96923828f,   0.55322266f,  -0.48095703f,
                                0.1739502f,   -0.20397949f,  -0.14196777f, 0.093017578f};
  const std::vector<float> b = {0.18603516f,   -0.10198975f, 0.3190918f,    -0.34301758f,
                                0.0020008087f, 0.77880859f,  0.067016602f,  0.42993164f,
                                0.026992798f,  0.1739502f,   -0.016998291f, -0.050994873f,
                                -0.23400879f,  0.12902832f,  -0.25488281f,  0.19995117f};
  const std::vector<float> h0 = {1.0849609f, 0.36694336f, -0.28588867f, 0.45410156f};
  const std::vector<float> c0 = {-0.30908203f, 0.93603516f, -1.8310547f, -0.3359375f};
  NodeTest t("LSTM", 14);
  t.Input<Float16>({3, 2, 3}, ToHalf(x))
      .Input<Float16>({1, 8, 3}, ToHalf(w))
      .Input<Float16>({1, 8, 2}, ToHalf(r));
  t.Input<Float16>({1, 16}, ToHalf(b));
  t.MissingInput();
  t.Input<Float16>({1, 2, 2}, ToHalf(h0));
  t.Input<Float16>({1, 2, 2}, ToHalf(c0));
  t.Outputs(3);
  auto out = t.Run(1);
  ExpectTensorNear(
      *out[0], {3, 1, 2, 2},
      {0.12421379f, 0.28025999f, -0.22962834f, -0.0070151479f, -0.17635779f, 0.32177541f,
       -0.17032756f, 0.02342225f, -0.23051368f, 0.25762261f, -0.019183171f, 0.32919465f},
      2e-3f);
  ExpectTensorNear(*out[1], {1, 2, 2}, {-0.23051368f, 0.25762261f, -0.019183171f, 0.32919465f},
                   2e-3f);
  ExpectTensorNear(*out[2], {1, 2, 2}, {-0.46698475f, 0.90345417f, -0.038096286f, 0.43775156f},
                   2e-3f);
}
// A forward LSTM with hidden size 1 on [seq 2, batch 1, input 1]: small enough to build wrong
// inputs around.
NodeTest SmallLstm(int64_t opset = 14) {
  NodeTest t("LSTM", opset);
  t.Input<float>({2, 1, 1}, {1, 2})
      .Input<float>({1, 4, 1}, {1, 1, 1, 1})
      .Input<float>({1, 4, 1}, {1, 1, 1, 1});
  return t;
}

TEST(RnnLstmErrors, InputShapes) {
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Input<float>({2, 1}, {1, 2})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'X' must have rank 3");
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 3, 1}, {1, 1, 1})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'W' has shape [1,3,1] but must be [1,4,1]");
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1})
                      .Input<float>({4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'R' must have rank 3");
  ExpectNodeError(SmallLstm().Input<float>({1, 4}, {0, 0, 0, 0}), ErrorCode::kInvalidArgument,
                  "input 'B' has shape [1,4] but must be [1,8]");
  ExpectNodeError(SmallLstm().MissingInput().MissingInput().Input<float>({1, 2, 1}, {0, 0}),
                  ErrorCode::kInvalidArgument, "input 'initial_h' has shape [1,2,1]");
  ExpectNodeError(
      SmallLstm().MissingInput().MissingInput().MissingInput().Input<float>({2, 1, 1}, {0, 0}),
      ErrorCode::kInvalidArgument, "input 'initial_c'");
  ExpectNodeError(
      SmallLstm().MissingInput().MissingInput().MissingInput().MissingInput().Input<float>({1, 2},
                                                                                           {0, 0}),
      ErrorCode::kInvalidArgument, "input 'P' has shape [1,2] but must be [1,3]");
  ExpectNodeError(SmallLstm().Attr("hidden_size", int64_t{2}), ErrorCode::kInvalidArgument,
                  "input 'W' has shape [1,4,1] but must be [1,8,1]");
}

TEST(RnnLstmErrors, TypesAndSequenceLengths) {
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Input<float>({2, 1, 1}, {1, 2})
                      .Input<double>({1, 4, 1}, {1, 1, 1, 1})
                      .Input<float>({1, 4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kInvalidArgument, "input 'W' has type double but X has float");
  ExpectNodeError(SmallLstm().MissingInput().Input<int32_t>({1}, {3}), ErrorCode::kInvalidArgument,
                  "input 'sequence_lens' holds 3, outside [0, 2]");
  ExpectNodeError(SmallLstm().MissingInput().Input<int32_t>({2}, {1, 1}),
                  ErrorCode::kInvalidArgument, "input 'sequence_lens' has shape [2]");
  ExpectNodeError(SmallLstm().MissingInput().Input<float>({1}, {1}), ErrorCode::kInvalidArgument,
                  "input 'sequence_lens' must be int32");
  ExpectNodeError(NodeTest("LSTM", 14)
                      .Input<int32_t>({2, 1, 1}, {1, 2})
                      .Input<int32_t>({1, 4, 1}, {1, 1, 1, 1})
                      .Input<int32_t>({1, 4, 1}, {1, 1, 1, 1}),
                  ErrorCode::kNotImplemented, "element type int32");
}

TEST(RnnLstmErrors, Attributes) {
  ExpectNodeError(SmallLstm().Attr("direction", "sideways"), ErrorCode::kInvalidGraph,
                  "attribute 'direction' must be forward, reverse or bidirectional");
  ExpectNodeError(SmallLstm().Attr("activations", std::vector<std::string>{"Sigmoid", "Tanh"}),
                  ErrorCode::kInvalidGraph, "attribute 'activations' has 2 entries");
  ExpectNodeError(
      SmallLstm().Attr("activations", std::vector<std::string>{"Sigmoid", "Gelu", "Tanh"}),
      ErrorCode::kInvalidGraph, "'Gelu' is not one of");
  ExpectNodeError(SmallLstm().Attr("clip", -1.0f), ErrorCode::kInvalidGraph,
                  "attribute 'clip' must be positive");
  ExpectNodeError(SmallLstm().Attr("layout", int64_t{2}), ErrorCode::kInvalidGraph,
                  "attribute 'layout' must be 0 or 1");
  ExpectNodeError(SmallLstm().Attr("hidden_size", int64_t{0}), ErrorCode::kInvalidGraph,
                  "attribute 'hidden_size' must be positive");
}

TEST(RnnLstm, ActivationNamesIgnoreCaseAndOpset1SpellsForwardFoward) {
  auto lower = SmallLstm(1)
                   .Attr("direction", "foward")
                   .Attr("activations", std::vector<std::string>{"sigmoid", "TANH", "tanh"})
                   .Outputs(2, {0})
                   .Run();
  auto plain = SmallLstm(7).Outputs(2, {0}).Run();
  EXPECT_EQ(Values<float>(*lower[1]), Values<float>(*plain[1]));
}

TEST(RnnLstm, ThreadCountDoesNotChangeResults) {
  const int64_t seq = 5, batch = 40, input = 7, hidden = 64;
  auto values = [](size_t n, double phase) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(0.3 * std::sin(0.7 * i + phase));
    return v;
  };
  auto run = [&](int threads) {
    return NodeTest("LSTM", 14)
        .Attr("direction", "bidirectional")
        .Input<float>({seq, batch, input}, values(seq * batch * input, 0.1))
        .Input<float>({2, 4 * hidden, input}, values(2 * 4 * hidden * input, 0.2))
        .Input<float>({2, 4 * hidden, hidden}, values(2 * 4 * hidden * hidden, 0.3))
        .Input<float>({2, 8 * hidden}, values(2 * 8 * hidden, 0.4))
        .Outputs(3)
        .Run(threads);
  };
  auto one = run(1);
  auto four = run(4);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Values<float>(*one[i]), Values<float>(*four[i]));
}

TEST(RnnLstm, EmptyBatch) {
  auto out = NodeTest("LSTM", 14)
                 .Input<float>({2, 0, 1}, {})
                 .Input<float>({1, 4, 1}, {1, 1, 1, 1})
                 .Input<float>({1, 4, 1}, {1, 1, 1, 1})
                 .Outputs(3)
                 .Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 1, 0, 1}));
  EXPECT_EQ(out[2]->shape(), Shape({1, 0, 1}));
}

}  // namespace
}  // namespace kiln::testing
