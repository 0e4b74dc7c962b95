// Test helper for NhwcConv's tests: a convolution case checked against the ONNX Conv kernel (X
// transposed to NCHW, Conv, the activation and Z in plain C++, transposed back).
//
//   nhwc_test::CheckCase({.name = "3x3 pad 1", .c = 5, .m = 7, .pads = {1, 1, 1, 1}},
//   /*threads=*/2);
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_CONV_CHECK_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_CONV_CHECK_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/test_util.h"

namespace kiln::nhwc_test {

using V = std::vector<int64_t>;

struct ConvCase {
  std::string name = {};
  int64_t n = 2, h = 9, w = 11, c = 4, m = 6, kh = 3, kw = 3, group = 1;
  V strides = {};
  V dilations = {};
  V pads = {};
  std::string auto_pad = {};
  bool bias = true;
  bool z = false;
  std::string activation = {};
  std::vector<float> params = {};
  V shape_hint = {};  // handed to the kernel as X's shape known at load (SpecializeForShapes)
  // W's values are uniform in ±w_scale: deep layers keep the sums near 1, where ExpectClose's
  // absolute tolerance applies.
  float w_scale = 1.0f;
  // Attribute bf16: on a machine with AVX-512 BF16 the reference then convolves X and W rounded
  // to bf16 (the products of bf16 operands are exact in float; only the order of the sums
  // differs).
  bool bf16 = false;
};

// Adds the window attributes (and group) that the case sets.
inline testing::NodeTest& WindowAttrs(testing::NodeTest& t, const ConvCase& k) {
  if (!k.strides.empty()) t.Attr("strides", k.strides);
  if (!k.dilations.empty()) t.Attr("dilations", k.dilations);
  if (!k.pads.empty()) t.Attr("pads", k.pads);
  if (!k.auto_pad.empty()) t.Attr("auto_pad", k.auto_pad);
  if (k.group != 1) t.Attr("group", k.group);
  return t;
}

// Returns NhwcConv's output.
inline std::vector<float> CheckCase(const ConvCase& k, int threads) {
  SCOPED_TRACE(k.name + " threads=" + std::to_string(threads));
  const auto seed = static_cast<unsigned>(k.name.size() * 131 + static_cast<size_t>(k.c));
  const std::vector<float> x = Random(static_cast<size_t>(k.n * k.h * k.w * k.c), seed);
  std::vector<float> w = Random(static_cast<size_t>(k.m * (k.c / k.group) * k.kh * k.kw), seed + 1);
  for (float& v : w) v *= k.w_scale;
  const std::vector<float> b = Random(static_cast<size_t>(k.m), seed + 2);
  const V w_shape = {k.m, k.c / k.group, k.kh, k.kw};
  const bool rounded = k.bf16 && cpu::Bf16GemmSupported();
  const auto operand = [&](std::vector<float> v) {
    if (rounded) {
      for (float& e : v) e = BFloat16::FromFloat(e).ToFloat();
    }
    return v;
  };

  // Reference: ONNX Conv on NCHW.
  testing::NodeTest ref("Conv", 22);
  WindowAttrs(ref, k);
  ref.Input<float>({k.n, k.c, k.h, k.w}, ToNchw(operand(x), k.n, k.h, k.w, k.c))
      .Input<float>(w_shape, operand(w));
  if (k.bias) ref.Input<float>({k.m}, b);
  const std::shared_ptr<Tensor> ref_y = ref.Run()[0];
  const auto& rd = ref_y->shape().dims();
  const int64_t oh = rd[2], ow = rd[3];
  std::vector<float> want = ToNhwc(testing::Values<float>(*ref_y), k.n, k.m, oh, ow);
  const std::vector<float> z = Random(want.size(), seed + 3);
  for (size_t i = 0; i < want.size(); ++i) {
    want[i] = Activate(k.activation, k.params, want[i] + (k.z ? z[i] : 0.0f));
  }

  testing::NodeTest t("NhwcConv", 1, "ai.kiln");
  WindowAttrs(t, k);
  if (!k.activation.empty()) t.Attr("activation", k.activation);
  if (!k.params.empty()) t.Attr("activation_params", k.params);
  if (k.bf16) t.Attr("bf16", int64_t{1});
  t.Input<float>({k.n, k.h, k.w, k.c}, x).Input<float>(w_shape, w, /*constant=*/true);
  if (k.bias) {
    t.Input<float>({k.m}, b);
  } else if (k.z) {
    t.MissingInput();
  }
  if (k.z) t.Input<float>({k.n, oh, ow, k.m}, z);
  if (!k.shape_hint.empty()) t.ShapeHint(0, Shape(k.shape_hint));
  const std::shared_ptr<Tensor> y = t.Run(threads)[0];
  EXPECT_EQ(y->shape(), Shape({k.n, oh, ow, k.m}));
  std::vector<float> got = testing::Values<float>(*y);
  ExpectClose(got, want, k.name);
  return got;
}

}  // namespace kiln::nhwc_test

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_CONV_CHECK_H_
