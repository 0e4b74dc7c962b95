// The channels-last pooling ops against the ONNX MaxPool, AveragePool, GlobalMaxPool and
// GlobalAveragePool kernels on transposed inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/nhwc/nhwc_test_util.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using nhwc_test::ExpectClose;
using nhwc_test::Random;
using nhwc_test::ToNchw;
using nhwc_test::ToNhwc;
using V = std::vector<int64_t>;

struct PoolCase {
  std::string name = {};
  int64_t n = 2, h = 9, w = 11, c = 5;
  V kernel = {3, 3};
  V strides = {};
  V dilations = {};
  V pads = {};
  std::string auto_pad = {};
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// The case's window attributes (count_include_pad too for an average pool).
void PoolAttrs(NodeTest& t, const PoolCase& k, bool average) {
  t.Attr("kernel_shape", k.kernel);
  if (!k.strides.empty()) t.Attr("strides", k.strides);
  if (!k.dilations.empty()) t.Attr("dilations", k.dilations);
  if (!k.pads.empty()) t.Attr("pads", k.pads);
  if (!k.auto_pad.empty()) t.Attr("auto_pad", k.auto_pad);
  if (k.ceil_mode) t.Attr("ceil_mode", int64_t{1});
  if (average && k.count_include_pad) t.Attr("count_include_pad", int64_t{1});
}

void CheckPool(const std::string& op, const PoolCase& k, int threads) {
  SCOPED_TRACE(op + " " + k.name + " threads=" + std::to_string(threads));
  const std::vector<float> x =
      Random(static_cast<size_t>(k.n * k.h * k.w * k.c), static_cast<unsigned>(k.name.size()));
  const auto attrs = [&](NodeTest& t) { PoolAttrs(t, k, op == "AveragePool"); };
  NodeTest ref(op, 22);
  attrs(ref);
  const auto ref_y = ref.Input<float>({k.n, k.c, k.h, k.w}, ToNchw(x, k.n, k.h, k.w, k.c)).Run();
  const auto& rd = ref_y[0]->shape().dims();
  const std::vector<float> want = ToNhwc(Values<float>(*ref_y[0]), k.n, k.c, rd[2], rd[3]);
  NodeTest t("Nhwc" + op, 1, "ai.kiln");
  attrs(t);
  const auto y = t.Input<float>({k.n, k.h, k.w, k.c}, x).Run(threads);
  EXPECT_EQ(y[0]->shape(), Shape({k.n, rd[2], rd[3], k.c}));
  ExpectClose(Values<float>(*y[0]), want, op + " " + k.name);
}

std::vector<PoolCase> PoolCases() {
  return {
      {.name = "3x3/2 pad 1", .c = 70, .strides = {2, 2}, .pads = {1, 1, 1, 1}},
      {.name = "2x2/2", .h = 8, .w = 10, .kernel = {2, 2}, .strides = {2, 2}},
      {.name = "ceil_mode",
       .h = 8,
       .w = 10,
       .kernel = {3, 3},
       .strides = {2, 2},
       .ceil_mode = true},
      {.name = "dilations", .h = 12, .w = 11, .kernel = {2, 3}, .dilations = {2, 2}},
      {.name = "asymmetric pads", .kernel = {3, 2}, .strides = {2, 1}, .pads = {0, 1, 2, 1}},
      {.name = "SAME_UPPER", .h = 10, .w = 9, .strides = {2, 2}, .auto_pad = "SAME_UPPER"},
      {.name = "SAME_LOWER",
       .h = 10,
       .w = 9,
       .kernel = {4, 4},
       .strides = {3, 2},
       .auto_pad = "SAME_LOWER"},
      {.name = "count_include_pad",
       .c = 3,
       .strides = {2, 2},
       .pads = {1, 2, 1, 2},
       .count_include_pad = true},
      {.name = "count_include_pad ceil",
       .h = 8,
       .w = 10,
       .strides = {2, 2},
       .pads = {1, 1, 1, 1},
       .ceil_mode = true,
       .count_include_pad = true},
      {.name = "large", .n = 1, .h = 56, .w = 56, .c = 64, .strides = {2, 2}, .pads = {1, 1, 1, 1}},
      // Channels by 16 and 8 on AVX-512 machines (MaxRowAvx512), and 16 + 8 + a tail of 5.
      {.name = "24 channels", .h = 15, .w = 13, .c = 24, .strides = {2, 2}, .pads = {1, 1, 1, 1}},
      {.name = "29 channels", .c = 29, .kernel = {2, 3}, .pads = {1, 0, 0, 1}},
  };
}

TEST(NhwcPool, MaxPoolMatchesMaxPool) {
  // Each way the machine allows: the AVX-512 rows and the vector-cloned loop.
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 allowed" : "AVX-512 off");
    const cpu::ScopedVectorMathAvx512 allow(avx512);
    for (const PoolCase& k : PoolCases()) {
      CheckPool("MaxPool", k, 1);
      CheckPool("MaxPool", k, 2);
    }
  }
}

// NhwcMaxPool over uint8 and int8 (quantized chains) against ONNX MaxPool on the transposed
// bytes, exactly: every case above, channels 64 at a time in a register on AVX-512 machines
// (70 channels: a vector and a tail of 6) and the portable loop.
// `domain`: ai.kiln's op, or com.microsoft's (what ONNX Runtime's NHWC transformer writes).
template <typename T>
void CheckBytePool(const PoolCase& k, int threads, const char* domain = "ai.kiln") {
  SCOPED_TRACE(k.name + (std::is_signed_v<T> ? " int8" : " uint8") +
               " threads=" + std::to_string(threads) + " " + domain);
  const auto x = RandomInts<T>(static_cast<size_t>(k.n * k.h * k.w * k.c), 17);
  const auto attrs = [&](NodeTest& t) { PoolAttrs(t, k, false); };
  NodeTest ref("MaxPool", 22);
  attrs(ref);
  const auto ref_y = ref.Input<T>({k.n, k.c, k.h, k.w}, ToNchw(x, k.n, k.h, k.w, k.c)).Run();
  const auto& rd = ref_y[0]->shape().dims();
  NodeTest t("NhwcMaxPool", 1, domain);
  attrs(t);
  const auto y = t.Input<T>({k.n, k.h, k.w, k.c}, x).Run(threads);
  ASSERT_EQ(y[0]->shape(), Shape(std::vector<int64_t>{k.n, rd[2], rd[3], k.c}));
  EXPECT_EQ(Values<T>(*y[0]), ToNhwc(Values<T>(*ref_y[0]), k.n, k.c, rd[2], rd[3]));
}

TEST(NhwcPool, BytesMaxPoolMatchesMaxPool) {
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 allowed" : "AVX-512 off");
    const cpu::ScopedVectorMathAvx512 allow(avx512);
    for (const PoolCase& k : PoolCases()) {
      for (int threads : {1, 2}) {
        CheckBytePool<uint8_t>(k, threads);
        CheckBytePool<int8_t>(k, threads);
      }
    }
  }
  for (const PoolCase& k : PoolCases()) {
    CheckBytePool<uint8_t>(k, 2, "com.microsoft");
    CheckBytePool<int8_t>(k, 1, "com.microsoft");
  }
}

TEST(NhwcPool, AveragePoolMatchesAveragePool) {
  for (const PoolCase& k : PoolCases()) {
    CheckPool("AveragePool", k, 1);
    CheckPool("AveragePool", k, 2);
  }
}

TEST(NhwcPool, MaxPoolIgnoresNaNUnlessAllNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // [1, 2, 2, 2]: channel 0 has one NaN, channel 1 is all NaN.
  auto y = NodeTest("NhwcMaxPool", 1, "ai.kiln")
               .Attr("kernel_shape", V{2, 2})
               .Input<float>({1, 2, 2, 2}, {nan, nan, 3.0f, nan, -1.0f, nan, 2.0f, nan})
               .Run();
  const std::vector<float> v = Values<float>(*y[0]);
  EXPECT_EQ(v[0], 3.0f);
  EXPECT_TRUE(std::isnan(v[1]));
  // 29 channels (vectors of 16 and 8, then one at a time) over a 2x2 window: channel f has NaN
  // at the taps of bits set in f % 16 (all four at 15), else the value f·tap − 10.
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 allowed" : "AVX-512 off");
    const cpu::ScopedVectorMathAvx512 allow(avx512);
    std::vector<float> x(4 * 29);
    for (size_t tap = 0; tap < 4; ++tap) {
      for (size_t f = 0; f < 29; ++f) {
        x[tap * 29 + f] = (f % 16 >> tap & 1) != 0 ? nan : static_cast<float>(f * tap) - 10.0f;
      }
    }
    auto many = NodeTest("NhwcMaxPool", 1, "ai.kiln")
                    .Attr("kernel_shape", V{2, 2})
                    .Input<float>({1, 2, 2, 29}, x)
                    .Run();
    const std::vector<float> m = Values<float>(*many[0]);
    ASSERT_EQ(m.size(), 29u);
    for (size_t f = 0; f < 29; ++f) {
      float want = nan;
      for (size_t tap = 0; tap < 4; ++tap) {
        if ((f % 16 >> tap & 1) == 0) want = static_cast<float>(f * tap) - 10.0f;  // rising
      }
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(m[f])) << "channel " << f;
      } else {
        EXPECT_EQ(m[f], want) << "channel " << f;
      }
    }
  }
}

TEST(NhwcPool, GlobalPoolsMatch) {
  for (const std::string op : {"GlobalMaxPool", "GlobalAveragePool"}) {
    // The pixels of an image are pooled in up to 8 parts of at least 32 pixels each.
    for (const V& s :
         {V{2, 7, 5, 3}, V{1, 9, 9, 130}, V{3, 1, 1, 64}, V{1, 40, 40, 20}, V{2, 30, 31, 5}}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(op + " threads=" + std::to_string(threads));
        const auto n = static_cast<size_t>(s[0] * s[1] * s[2] * s[3]);
        const std::vector<float> x = Random(n, static_cast<unsigned>(s[3]));
        const auto ref =
            NodeTest(op, 22)
                .Input<float>({s[0], s[3], s[1], s[2]}, ToNchw(x, s[0], s[1], s[2], s[3]))
                .Run();
        const auto y = NodeTest("Nhwc" + op, 1, "ai.kiln").Input<float>(s, x).Run(threads);
        EXPECT_EQ(y[0]->shape(), Shape({s[0], 1, 1, s[3]}));
        ExpectClose(Values<float>(*y[0]), Values<float>(*ref[0]), op);
      }
    }
  }
}

// A global max pool over parts: a part whose pixels are all NaN in a channel does not hide the
// other parts' values (as when the pixels are taken in one pass); an all-NaN channel stays NaN.
// The parts do not depend on the thread count: the same bits at 1, 2 and 3 threads.
TEST(NhwcPool, GlobalAveragePoolIsTheSameAtAnyThreadCount) {
  const std::vector<float> x = Random(size_t{40} * 40 * 20, 7);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    results.push_back(Values<float>(*NodeTest("NhwcGlobalAveragePool", 1, "ai.kiln")
                                         .Input<float>({1, 40, 40, 20}, x)
                                         .Run(threads)[0]));
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

TEST(NhwcPool, GlobalMaxPoolIgnoresNaNAcrossParts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(size_t{2} * 128);  // [1, 128, 1, 2]
  for (size_t i = 0; i < 128; ++i) {
    x[2 * i] = i < 64 ? nan : static_cast<float>(i % 50);
    x[2 * i + 1] = nan;
  }
  for (int threads : {1, 2}) {
    auto y =
        NodeTest("NhwcGlobalMaxPool", 1, "ai.kiln").Input<float>({1, 128, 1, 2}, x).Run(threads);
    const std::vector<float> v = Values<float>(*y[0]);
    EXPECT_EQ(v[0], 49.0f);
    EXPECT_TRUE(std::isnan(v[1]));
  }
}

TEST(NhwcPool, Errors) {
  ExpectNodeError(NodeTest("NhwcMaxPool", 1, "ai.kiln")
                      .Attr("kernel_shape", V{2, 2})
                      .Input<float>({1, 4, 4}, Random(16, 1)),
                  ErrorCode::kInvalidArgument, "input 'X' has shape [1,4,4]");
  ExpectNodeError(
      NodeTest("NhwcAveragePool", 1, "ai.kiln").Input<float>({1, 4, 4, 1}, Random(16, 1)),
      ErrorCode::kInvalidGraph, "kernel_shape");
  ExpectNodeError(NodeTest("NhwcMaxPool", 1, "ai.kiln")
                      .Attr("kernel_shape", V{2, 2, 2})
                      .Input<float>({1, 4, 4, 1}, Random(16, 1)),
                  ErrorCode::kInvalidArgument, "attribute 'kernel_shape'");
  ExpectNodeError(NodeTest("NhwcMaxPool", 1, "ai.kiln")
                      .Attr("kernel_shape", V{5, 5})
                      .Input<float>({1, 4, 4, 1}, Random(16, 1)),
                  ErrorCode::kInvalidArgument, "input 'X'");
  ExpectNodeError(NodeTest("NhwcMaxPool", 1, "ai.kiln")
                      .Attr("kernel_shape", V{2, 2})
                      .Input<double>({1, 2, 2, 1}, {1, 2, 3, 4}),
                  ErrorCode::kNotImplemented, "double");
  ExpectNodeError(
      NodeTest("NhwcGlobalAveragePool", 1, "ai.kiln").Input<float>({2, 3}, Random(6, 1)),
      ErrorCode::kInvalidArgument, "input 'X' has shape [2,3]");
  ExpectNodeError(NodeTest("NhwcGlobalMaxPool", 1, "ai.kiln").Input<double>({1, 1, 1, 1}, {1.0}),
                  ErrorCode::kNotImplemented, "double");
}

}  // namespace
}  // namespace kiln::testing
