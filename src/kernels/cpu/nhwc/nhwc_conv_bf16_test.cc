// NhwcConv with attribute bf16 (session config kiln.compute.bf16) against the ONNX Conv kernel on
// bf16-rounded operands (nhwc_conv_check.h's CheckCase with ConvCase::bf16).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_check.h"

namespace kiln::testing {
namespace {

using nhwc_test::CheckCase;
using nhwc_test::ConvCase;

// Attribute bf16 (session config kiln.compute.bf16): the product path's convolutions — 1×1, a
// 3×3 that would otherwise run as Winograd, strided with Z, 5×5, grouped, with an activation —
// give the convolution of bf16-rounded operands with float sums (on machines with AVX-512 BF16,
// where the result then differs from the float one; elsewhere the float one), on the blocked
// path and, at two threads on a small image, the whole-image one.
TEST(NhwcConv, Bf16ProductsConvolveRoundedOperands) {
  std::vector<ConvCase> cases;
  cases.push_back({.name = "1x1", .c = 16, .m = 24, .kh = 1, .kw = 1});
  cases.push_back({.name = "3x3 winograd shape",
                   .h = 12,
                   .w = 10,
                   .c = 16,
                   .m = 32,
                   .pads = {1, 1, 1, 1},
                   .activation = "Relu"});
  cases.push_back({.name = "3x3/2 with Z",
                   .h = 11,
                   .w = 13,
                   .c = 8,
                   .m = 20,
                   .strides = {2, 2},
                   .pads = {1, 1, 1, 1},
                   .z = true});
  cases.push_back({.name = "5x5", .h = 12, .w = 9, .c = 6, .m = 40, .kh = 5, .kw = 5});
  cases.push_back({.name = "grouped 2 x 24",
                   .h = 8,
                   .w = 7,
                   .c = 48,
                   .m = 48,
                   .group = 2,
                   .pads = {1, 1, 1, 1}});
  cases.push_back(
      {.name = "large image", .n = 1, .h = 64, .w = 60, .c = 16, .m = 16, .pads = {1, 1, 1, 1}});
  for (ConvCase k : cases) {
    for (int threads : {1, 2}) {
      const std::vector<float> plain = CheckCase(k, threads);
      k.bf16 = true;
      const std::vector<float> half = CheckCase(k, threads);
      k.bf16 = false;
      if (cpu::Bf16GemmSupported()) {
        EXPECT_NE(plain, half) << k.name << ": the bf16 products did not run";
      } else {
        EXPECT_EQ(plain, half) << k.name;
      }
    }
  }
}

}  // namespace
}  // namespace kiln::testing
