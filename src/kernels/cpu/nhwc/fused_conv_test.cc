// com.microsoft FusedConv against ONNX Conv followed by Z and the activation in plain C++, on 1-D,
// 2-D and 3-D inputs, the GEMM and depthwise paths.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nhwc_test::Activate;
using nhwc_test::ExpectClose;
using nhwc_test::Random;
using V = std::vector<int64_t>;

size_t Count(const V& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

struct FusedCase {
  std::string name = {};
  V x = {};
  V w = {};
  int64_t group = 1;
  V pads = {};
  bool bias = true;
  bool z = false;
  std::string activation = {};
  std::vector<float> params = {};
};

void CheckFused(const FusedCase& k, int threads) {
  SCOPED_TRACE(k.name + " " + k.activation + " threads=" + std::to_string(threads));
  const auto seed = static_cast<unsigned>(k.name.size());
  const std::vector<float> x = Random(Count(k.x), seed);
  const std::vector<float> w = Random(Count(k.w), seed + 1);
  const std::vector<float> b = Random(static_cast<size_t>(k.w[0]), seed + 2);
  const auto build = [&](NodeTest t) {
    if (k.group != 1) t.Attr("group", k.group);
    if (!k.pads.empty()) t.Attr("pads", k.pads);
    t.Input<float>(k.x, x).Input<float>(k.w, w);
    if (k.bias) t.Input<float>({k.w[0]}, b);
    return t;
  };
  const auto ref = build(NodeTest("Conv", 22)).Run();
  std::vector<float> want = Values<float>(*ref[0]);
  const std::vector<float> z = Random(want.size(), seed + 3);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = Activate(k.activation, k.params, want[i] + (k.z ? z[i] : 0.0f));
  }
  NodeTest t = build(NodeTest("FusedConv", 1, "com.microsoft"));
  if (!k.activation.empty()) t.Attr("activation", k.activation);
  if (!k.params.empty()) t.Attr("activation_params", k.params);
  if (k.z) {
    if (!k.bias) t.MissingInput();
    t.Input<float>(ref[0]->shape().dims(), z);
  }
  const auto y = t.Run(threads);
  EXPECT_EQ(y[0]->shape(), ref[0]->shape());
  ExpectClose(Values<float>(*y[0]), want, k.name);
}

TEST(FusedConv, MatchesConvPlusEpilogue) {
  const std::vector<FusedCase> cases = {
      {.name = "2-D", .x = {2, 4, 9, 8}, .w = {6, 4, 3, 3}, .pads = {1, 1, 1, 1}, .z = true},
      {.name = "2-D no bias", .x = {2, 4, 9, 8}, .w = {6, 4, 3, 3}, .bias = false, .z = true},
      {.name = "2-D no bias no Z", .x = {1, 3, 7, 8}, .w = {5, 3, 2, 2}, .bias = false},
      {.name = "1x1", .x = {2, 8, 5, 5}, .w = {4, 8, 1, 1}, .z = true},
      {.name = "1-D", .x = {2, 3, 17}, .w = {4, 3, 5}, .pads = {2, 1}},
      {.name = "3-D", .x = {1, 2, 5, 6, 4}, .w = {3, 2, 3, 3, 2}, .z = true},
      {.name = "depthwise",
       .x = {2, 6, 8, 7},
       .w = {6, 1, 3, 3},
       .group = 6,
       .pads = {1, 1, 1, 1},
       .z = true},
      {.name = "grouped", .x = {2, 6, 8, 7}, .w = {4, 3, 3, 3}, .group = 2},
      // A (3, 1, 1) kernel: input frames packed once, Z and the activation per output frame.
      {.name = "3-D temporal",
       .x = {2, 6, 5, 8, 9},
       .w = {4, 6, 3, 1, 1},
       .pads = {1, 0, 0, 1, 0, 0},
       .z = true},
      // Deep enough that the output is made in strips of 96 positions, each given Z and the
      // activation on its own.
      {.name = "3-D in strips",
       .x = {2, 200, 4, 6, 13},
       .w = {5, 200, 3, 3, 3},
       .pads = {1, 1, 1, 1, 1, 1},
       .z = true},
  };
  const std::vector<std::pair<std::string, std::vector<float>>> acts = {
      {"", {}},        {"Relu", {}}, {"LeakyRelu", {0.2f}}, {"Clip", {-0.3f, 0.3f}},
      {"Sigmoid", {}}, {"Tanh", {}}, {"HardSigmoid", {}},   {"HardSwish", {}},
      {"Swish", {}}};
  for (FusedCase k : cases) {
    for (const auto& [name, params] : acts) {
      k.activation = name;
      k.params = params;
      CheckFused(k, 1);
    }
    CheckFused(k, 2);
  }
}

TEST(FusedConv, Errors) {
  const auto basic = [] {
    NodeTest t("FusedConv", 1, "com.microsoft");
    t.Input<float>({1, 2, 4, 4}, Random(32, 1)).Input<float>({3, 2, 3, 3}, Random(54, 2));
    return t;
  };
  ExpectNodeError(basic().MissingInput().Input<float>({1, 3, 4, 4}, Random(48, 3)),
                  ErrorCode::kInvalidArgument, "input 'Z' has shape [1,3,4,4]");
  ExpectNodeError(basic().Attr("activation", "Softplus"), ErrorCode::kInvalidGraph,
                  "attribute 'activation'");
  ExpectNodeError(
      basic().Attr("activation", "HardSigmoid").Attr("activation_params", std::vector<float>{0.5f}),
      ErrorCode::kInvalidGraph, "attribute 'activation_params'");
  ExpectNodeError(basic()
                      .Attr("activation", "LeakyRelu")
                      .Attr("activation_params", std::vector<float>{0.1f, 0.2f}),
                  ErrorCode::kInvalidGraph, "attribute 'activation_params'");
  ExpectNodeError(NodeTest("FusedConv", 1, "com.microsoft")
                      .Input<double>({1, 1, 2, 2}, {1, 2, 3, 4})
                      .Input<double>({1, 1, 1, 1}, {1}),
                  ErrorCode::kNotImplemented, "double");
  ExpectNodeError(NodeTest("FusedConv", 1, "com.microsoft")
                      .Input<float>({1, 2, 4, 4}, Random(32, 1))
                      .Input<float>({3, 3, 3, 3}, Random(81, 2)),
                  ErrorCode::kInvalidArgument, "input 'W'");
}

}  // namespace
}  // namespace kiln::testing
