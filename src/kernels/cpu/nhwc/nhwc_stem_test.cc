// NhwcConv's few-input-channels path (nhwc_stem.cc: a network's first layer) against ONNX Conv
// (nhwc_conv_check.h), and its bits against the im2col product's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_check.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/cpu/vectorize.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nhwc_test::CheckCase;
using nhwc_test::ConvCase;
using nhwc_test::Random;
using V = std::vector<int64_t>;

// Layers over 1 to 4 input channels (a network's first layer) take nhwc_stem.cc's direct path
// on AVX-512 machines: 3×3 / 2 and 7×7 / 2 stems, 1 to 4 channels, output channel counts that
// make 1, 2, 3, 4 and 4 + 1 vectors of 16 (and part of one), rows of several tiles with a
// partial last one, dilation, asymmetric and no padding, batch 2, Z and activations.
TEST(NhwcConv, FewInputChannelsMatchConv) {
  // The path needs the vector clones (GCC's; not in the sanitizer and fuzz builds) and AVX-512.
  EXPECT_EQ(cpu::nhwc::StemFits(1, 3, false),
            KILN_HAS_VECTOR_CLONES != 0 && cpu::PackedKernelSupported(cpu::PackedKernel::kAvx512));
  EXPECT_FALSE(cpu::nhwc::StemFits(1, 5, false));
  EXPECT_FALSE(cpu::nhwc::StemFits(1, 3, true));
  EXPECT_FALSE(cpu::nhwc::StemFits(3, 3, false));
  const std::vector<ConvCase> cases = {
      {.name = "RGB 3x3/2 to 24",
       .h = 29,
       .w = 31,
       .c = 3,
       .m = 24,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .activation = "Relu"},
      {.name = "RGB 7x7/2 to 64",
       .n = 1,
       .h = 30,
       .w = 41,
       .c = 3,
       .m = 64,
       .kh = 7,
       .kw = 7,
       .strides = {2, 2},
       .pads = {3, 3, 3, 3},
       .z = true},
      {.name = "1 channel 5x5 dilated to 40",
       .h = 17,
       .w = 26,
       .c = 1,
       .m = 40,
       .kh = 5,
       .kw = 5,
       .dilations = {2, 2},
       .pads = {4, 3, 2, 4},
       .activation = "HardSwish"},
      {.name = "2 channels 3x2 to 8, no padding",
       .h = 9,
       .w = 14,
       .c = 2,
       .m = 8,
       .kw = 2,
       .bias = false},
      {.name = "4 channels 3x3 to 80, stride 1x3",
       .n = 1,
       .h = 11,
       .w = 50,
       .c = 4,
       .m = 80,
       .strides = {1, 3},
       .pads = {1, 1, 1, 1},
       .z = true,
       .activation = "Clip",
       .params = {-0.5f, 0.5f}},
      {.name = "RGB 3x3 to 16, one column", .h = 6, .w = 1, .c = 3, .m = 16, .pads = {1, 1, 1, 1}},
  };
  for (const ConvCase& k : cases) {
    CheckCase(k, 1);
    CheckCase(k, 2);
  }
}

// The few-input-channels path sums the same terms in the same order as the im2col product, in
// runs of packed::kSumDepth added to the output as the product does, so their bits agree: a layer
// over 1 or 3 channels (the direct path) against the same layer with zero channels appended to X
// and W up to 5 (the product, whose zero terms leave each sum unchanged), where both are one run
// (3×3 over 3 channels: 27 terms against 45; 5×5 over 1: 25 against 125), with the bias and a
// ReLU that the direct path applies as it stores each tile and the product after it. The 7×7
// stems' several runs are checked on the sweep's models against their float64 results.
TEST(NhwcConv, FewInputChannelsSameBitsAsTheProduct) {
  struct Case {
    int64_t c, extra, k, stride, m;
    bool relu;
  };
  for (const Case& k : {Case{3, 2, 3, 2, 16, false}, Case{3, 2, 3, 1, 40, true},
                        Case{1, 4, 5, 2, 24, true}, Case{3, 2, 3, 2, 24, false}}) {
    SCOPED_TRACE("c=" + std::to_string(k.c) + " k=" + std::to_string(k.k));
    const int64_t h = 23, w = 29, pad = k.k / 2;
    const auto run = [&](int64_t c) {
      std::vector<float> x(static_cast<size_t>(2 * h * w * c), 0.0f);
      std::vector<float> wt(static_cast<size_t>(k.m * c * k.k * k.k), 0.0f);
      const std::vector<float> xr = Random(static_cast<size_t>(2 * h * w * k.c), 31);
      const std::vector<float> wr = Random(static_cast<size_t>(k.m * k.c * k.k * k.k), 32);
      for (int64_t px = 0; px < 2 * h * w; ++px) {
        for (int64_t s = 0; s < k.c; ++s) {
          x[static_cast<size_t>(px * c + s)] = xr[static_cast<size_t>(px * k.c + s)];
        }
      }
      for (int64_t f = 0; f < k.m; ++f) {
        for (int64_t s = 0; s < k.c; ++s) {
          for (int64_t t = 0; t < k.k * k.k; ++t) {
            wt[static_cast<size_t>((f * c + s) * k.k * k.k + t)] =
                wr[static_cast<size_t>((f * k.c + s) * k.k * k.k + t)];
          }
        }
      }
      NodeTest t("NhwcConv", 1, "ai.kiln");
      t.Attr("pads", V{pad, pad, pad, pad}).Attr("strides", V{k.stride, k.stride});
      t.Input<float>({2, h, w, c}, x).Input<float>({k.m, c, k.k, k.k}, wt, /*constant=*/true);
      t.Input<float>({k.m}, Random(static_cast<size_t>(k.m), 33));
      if (k.relu) t.Attr("activation", "Relu");
      return Values<float>(*t.Run()[0]);
    };
    const std::vector<float> direct = run(k.c);
    const std::vector<float> product = run(k.c + k.extra);
    ASSERT_EQ(direct.size(), product.size());
    size_t differ = 0;
    for (size_t i = 0; i < direct.size(); ++i) differ += direct[i] != product[i] ? 1 : 0;
    EXPECT_EQ(differ, 0u);
  }
}

}  // namespace
}  // namespace kiln::testing
