// HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix: values from the definitions
// (MelWeightMatrix from the ONNX reference's numpy code), periodic and symmetric forms,
// output_datatype, and every error.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

void ExpectNear(const Tensor& t, const F& want) {
  const F got = Values<float>(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(SignalWindows, PeriodicAndSymmetric) {
  ExpectNear(*NodeTest("HannWindow", 17).Input<int32_t>({}, {4}).Run()[0], {0, 0.5f, 1, 0.5f});
  ExpectNear(
      *NodeTest("HannWindow", 17).Attr("periodic", int64_t{0}).Input<int64_t>({}, {4}).Run()[0],
      {0, 0.75f, 0.75f, 0});
  ExpectNear(*NodeTest("HammingWindow", 17).Input<int32_t>({}, {4}).Run()[0],
             {4.0f / 46, 25.0f / 46, 1, 25.0f / 46});
  ExpectNear(*NodeTest("BlackmanWindow", 17).Input<int32_t>({}, {4}).Run()[0],
             {0, 0.34f, 1, 0.34f});
  auto dbl =
      NodeTest("HannWindow", 17).Attr("output_datatype", int64_t{11}).Input<int32_t>({}, {2}).Run();
  EXPECT_EQ(Values<double>(*dbl[0]), (std::vector<double>{0, 1}));
  auto empty = NodeTest("HannWindow", 17).Input<int32_t>({}, {0}).Run();
  EXPECT_EQ(empty[0]->shape(), Shape({0}));
}

TEST(SignalWindows, Errors) {
  ExpectNodeError(NodeTest("HannWindow", 17).Input<int32_t>({}, {-1}), ErrorCode::kInvalidArgument,
                  "input 'size'");
  ExpectNodeError(NodeTest("HammingWindow", 17).Input<float>({}, {4}), ErrorCode::kInvalidArgument,
                  "input 'size'");
  ExpectNodeError(
      NodeTest("BlackmanWindow", 17).Attr("output_datatype", int64_t{8}).Input<int32_t>({}, {4}),
      ErrorCode::kInvalidArgument, "output_datatype");
}

NodeTest Mel(int32_t bins, float lower, float upper) {
  NodeTest t("MelWeightMatrix", 17);
  t.Input<int32_t>({}, {bins})
      .Input<int32_t>({}, {16})
      .Input<int32_t>({}, {8000})
      .Input<float>({}, {lower})
      .Input<float>({}, {upper});
  return t;
}

TEST(SignalMelWeightMatrix, MatchesReference) {
  auto out = Mel(3, 0, 4000).Run();
  EXPECT_EQ(out[0]->shape(), Shape({9, 3}));
  F want(27, 0.0f);
  want[0] = 1;
  want[4] = 1;
  want[7] = 0.5f;
  want[8] = 0.5f;
  want[11] = 1;
  want[14] = 0.5f;
  ExpectNear(*out[0], want);
}

TEST(SignalMelWeightMatrix, Errors) {
  ExpectNodeError(Mel(0, 0, 4000), ErrorCode::kInvalidArgument, "num_mel_bins");
  ExpectNodeError(Mel(3, 100, 50), ErrorCode::kInvalidArgument, "upper_edge_hertz");
  ExpectNodeError(Mel(3, 0, 40000), ErrorCode::kInvalidArgument, "spectrogram bin");
}

}  // namespace
}  // namespace kiln::testing
