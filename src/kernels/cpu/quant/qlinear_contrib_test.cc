// com.microsoft's quantized ops (QGemm, QLinearAdd, QLinearMul, QLinearSigmoid,
// QLinearLeakyRelu, QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat, QLinearSoftmax,
// QLinearWhere, ai.kiln's QLinearSwish, and the domain's
// QuantizeLinear / DequantizeLinear) against their definitions computed here in double: within
// one quantization step where ONNX Runtime computes in float (the sums and products), exactly
// where the table of 256 results is the definition itself; int8 and uint8, broadcasting,
// channels last, parameters constant (made at creation) and not, 1 and 2 threads; and every
// error naming its input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

template <typename T>
double Quantize(double v, double scale, int zp) {
  const double q = std::nearbyint(v / scale) + zp;
  return std::clamp(q, static_cast<double>(std::numeric_limits<T>::lowest()),
                    static_cast<double>(std::numeric_limits<T>::max()));
}

// Every value of `got` within `tolerance` steps of `want`; returns the number outside.
template <typename T>
size_t CountOff(const std::vector<T>& got, const std::vector<double>& want, double tolerance) {
  EXPECT_EQ(got.size(), want.size());
  size_t off = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    if (std::abs(static_cast<double>(got[i]) - want[i]) > tolerance) {
      if (off++ < 5) ADD_FAILURE() << "element " << i << ": " << +got[i] << " vs " << want[i];
    }
  }
  return off;
}

template <typename T>
NodeTest& QParam(NodeTest& t, float scale, int zp, bool constant = true) {
  return t.Input<float>({}, {scale}, constant)
      .template Input<T>({}, {static_cast<T>(zp)}, constant);
}

// ---- QLinearAdd, QLinearMul ----

template <typename T>
void CheckBinary(const char* op, V a_shape, V b_shape, V out_shape, int threads) {
  size_t an = 1, bn = 1, on = 1;
  for (int64_t d : a_shape) an *= static_cast<size_t>(d);
  for (int64_t d : b_shape) bn *= static_cast<size_t>(d);
  for (int64_t d : out_shape) on *= static_cast<size_t>(d);
  const auto a = RandomInts<T>(an, 3), b = RandomInts<T>(bn, 5);
  const bool s8 = std::is_same_v<T, int8_t>;
  const float sa = 0.031f, sb = 0.017f, sc = std::string(op) == "QLinearAdd" ? 0.045f : 0.27f;
  const int za = s8 ? -3 : 121, zb = s8 ? 7 : 130, zc = s8 ? 2 : 126;
  NodeTest t(op, 1, kMs);
  t.Input<T>(a_shape, a);
  QParam<T>(t, sa, za);
  t.Input<T>(b_shape, b);
  QParam<T>(t, sb, zb);
  QParam<T>(t, sc, zc);
  auto out = t.Run(threads);
  ASSERT_EQ(out[0]->shape(), Shape(out_shape));
  ASSERT_EQ(out[0]->type(), s8 ? DataType::kInt8 : DataType::kUint8);
  // The reference walks the broadcast by index (shapes right-aligned).
  std::vector<double> want(on);
  const size_t rank = out_shape.size();
  for (size_t i = 0; i < on; ++i) {
    size_t rest = i, ai = 0, bi = 0, as = 1, bs = 1;
    for (size_t d = rank; d-- > 0;) {
      const auto idx = static_cast<size_t>(rest % static_cast<size_t>(out_shape[d]));
      rest /= static_cast<size_t>(out_shape[d]);
      const size_t ad = d + a_shape.size() >= rank ? d + a_shape.size() - rank : SIZE_MAX;
      const size_t bd = d + b_shape.size() >= rank ? d + b_shape.size() - rank : SIZE_MAX;
      if (ad != SIZE_MAX) {
        if (a_shape[ad] != 1) ai += idx * as;
        as *= static_cast<size_t>(a_shape[ad]);
      }
      if (bd != SIZE_MAX) {
        if (b_shape[bd] != 1) bi += idx * bs;
        bs *= static_cast<size_t>(b_shape[bd]);
      }
    }
    const double x = sa * (static_cast<double>(a[ai]) - za),
                 y = sb * (static_cast<double>(b[bi]) - zb);
    want[i] = Quantize<T>(std::string(op) == "QLinearAdd" ? x + y : x * y, sc, zc);
  }
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 1.0), 0u) << op;
}

TEST(QuantContribBinary, AddAndMulMatchTheDefinition) {
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    for (int threads : {1, 2}) {
      CheckBinary<uint8_t>(op, {2, 3, 40}, {2, 3, 40}, {2, 3, 40}, threads);
      CheckBinary<int8_t>(op, {2, 3, 40}, {40}, {2, 3, 40}, threads);
      CheckBinary<uint8_t>(op, {2, 1, 5}, {3, 1}, {2, 3, 5}, threads);
      CheckBinary<int8_t>(op, {}, {4, 7}, {4, 7}, threads);
    }
  }
  // QLinearAdd of one shape runs whole vectors on AVX-512 machines: the same bytes as the
  // portable loop, int8 and uint8, a length that ends inside a vector, and ties (the scales'
  // ratios 0.5 and 0.25 put many sums on halves).
  for (bool is_signed : {false, true}) {
    const size_t n = 1000 + 7;
    auto run = [&](bool avx512) {
      const cpu::ScopedVectorMathAvx512 scoped(avx512);
      NodeTest t("QLinearAdd", 1, kMs);
      const int64_t len = static_cast<int64_t>(n);
      if (is_signed) {
        t.Input<int8_t>({len}, RandomInts<int8_t>(n, 21));
        QParam<int8_t>(t, 0.5f, -3);
        t.Input<int8_t>({len}, RandomInts<int8_t>(n, 22));
        QParam<int8_t>(t, 0.25f, 5);
        QParam<int8_t>(t, 1.0f, 1);
        return Values<int8_t>(*t.Run()[0]);
      }
      t.Input<uint8_t>({len}, RandomInts<uint8_t>(n, 21));
      QParam<uint8_t>(t, 0.5f, 120);
      t.Input<uint8_t>({len}, RandomInts<uint8_t>(n, 22));
      QParam<uint8_t>(t, 0.25f, 131);
      QParam<uint8_t>(t, 1.0f, 128);
      const auto u = Values<uint8_t>(*t.Run()[0]);
      return std::vector<int8_t>(u.begin(), u.end());
    };
    EXPECT_EQ(run(true), run(false)) << (is_signed ? "int8" : "uint8");
  }
  // By hand: 0.5·(10 - 2) + 0.25·(4 - 0) = 5 → 5 / 0.5 + 1 = 11; the product 4 → 8 + 1 = 9.
  auto sum = NodeTest("QLinearAdd", 1, kMs)
                 .Input<uint8_t>({1}, {10})
                 .Input<float>({}, {0.5f})
                 .Input<uint8_t>({}, {2})
                 .Input<uint8_t>({1}, {4})
                 .Input<float>({}, {0.25f})
                 .MissingInput()
                 .Input<float>({}, {0.5f})
                 .Input<uint8_t>({}, {1})
                 .Run();
  EXPECT_EQ(Values<uint8_t>(*sum[0]), (std::vector<uint8_t>{11}));
  auto product = NodeTest("QLinearMul", 1, kMs)
                     .Input<uint8_t>({1}, {10})
                     .Input<float>({}, {0.5f})
                     .Input<uint8_t>({}, {2})
                     .Input<uint8_t>({1}, {4})
                     .Input<float>({}, {0.25f})
                     .MissingInput()
                     .Input<float>({}, {0.5f})
                     .Input<uint8_t>({}, {1})
                     .Run();
  EXPECT_EQ(Values<uint8_t>(*product[0]), (std::vector<uint8_t>{9}));
}

// ---- QLinearSigmoid, QLinearLeakyRelu: every byte ----

template <typename T>
void CheckLookup(const char* op, bool constant) {
  std::vector<T> x(256);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<T>(i);
  const bool s8 = std::is_same_v<T, int8_t>;
  const bool sigmoid = std::string(op) == "QLinearSigmoid";
  const float sx = 0.05f, sy = sigmoid ? 1.0f / 256 : 0.037f;  // no exact ties
  const int zx = s8 ? 5 : 133, zy = sigmoid ? (s8 ? -128 : 0) : (s8 ? 10 : 140);
  NodeTest t(op, 1, kMs);
  t.Input<T>({16, 16}, x);
  QParam<T>(t, sx, zx, constant);
  QParam<T>(t, sy, zy, constant);
  if (!sigmoid) t.Attr("alpha", 0.2f);
  auto out = t.Run();
  ASSERT_EQ(out[0]->shape(), Shape({16, 16}));
  std::vector<double> want(256);
  for (size_t i = 0; i < 256; ++i) {
    const double v = sx * (static_cast<double>(x[i]) - zx);
    want[i] = Quantize<T>(sigmoid ? 1.0 / (1.0 + std::exp(-v)) : (v >= 0 ? v : 0.2 * v), sy, zy);
  }
  // The table is the definition, in float: a value may differ only where the exact result sits
  // on a rounding boundary (none of these does by more than float's error).
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 0.0), 0u) << op << (constant ? " constant" : "");
}

TEST(QuantContribLookup, SigmoidAndLeakyReluOverEveryByte) {
  // The AVX-512 VBMI lookup where the machine has it, and the byte loop.
  for (bool avx512 : {true, false}) {
    const bool before = cpu::AllowVectorMathAvx512ForTesting(avx512);
    for (const char* op : {"QLinearSigmoid", "QLinearLeakyRelu"}) {
      for (bool constant : {true, false}) {
        CheckLookup<int8_t>(op, constant);
        CheckLookup<uint8_t>(op, constant);
      }
    }
    // A run that ends inside a vector: 100 bytes, each the table's.
    std::vector<uint8_t> x(100);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 53 % 256);
    NodeTest t("QLinearLeakyRelu", 1, kMs);
    t.Input<uint8_t>({100}, x);
    QParam<uint8_t>(t, 0.05f, 128);
    QParam<uint8_t>(t, 0.037f, 128);  // no exact ties
    const auto y = Values<uint8_t>(*t.Attr("alpha", 0.3f).Run()[0]);
    for (size_t i = 0; i < x.size(); ++i) {
      const double v = 0.05 * (static_cast<double>(x[i]) - 128);
      EXPECT_EQ(static_cast<double>(y[i]), Quantize<uint8_t>(v >= 0 ? v : 0.3 * v, 0.037, 128))
          << i;
    }
    cpu::AllowVectorMathAvx512ForTesting(before);
  }
}

// ---- ai.kiln QLinearSwish: QLinearMul(x, QLinearSigmoid(x)), byte for byte ----

template <typename T>
void CheckSwish(bool constant) {
  std::vector<T> x(256);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(i)] = static_cast<T>(i);
  const bool s8 = std::is_same_v<T, int8_t>;
  const float sx = 0.047f, ss = 1.0f / 256, sy = 0.021f;
  const int zx = s8 ? 7 : 135, zs = s8 ? -128 : 0, zy = s8 ? -100 : 28;
  NodeTest sig("QLinearSigmoid", 1, kMs);
  sig.Input<T>({256}, x);
  QParam<T>(sig, sx, zx);
  QParam<T>(sig, ss, zs);
  const auto s = Values<T>(*sig.Run()[0]);
  NodeTest mul("QLinearMul", 1, kMs);
  mul.Input<T>({256}, x);
  QParam<T>(mul, sx, zx);
  mul.Input<T>({256}, s);
  QParam<T>(mul, ss, zs);
  QParam<T>(mul, sy, zy);
  const auto want = Values<T>(*mul.Run()[0]);
  NodeTest swish("QLinearSwish", 1, "ai.kiln");
  swish.Input<T>({16, 16}, x);
  QParam<T>(swish, sx, zx, constant);
  QParam<T>(swish, ss, zs, constant);
  QParam<T>(swish, sy, zy, constant);
  auto out = swish.Run();
  ASSERT_EQ(out[0]->shape(), Shape({16, 16}));
  EXPECT_EQ(Values<T>(*out[0]), want) << (s8 ? "int8" : "uint8") << (constant ? " constant" : "");
}

TEST(QuantContribLookup, SwishIsTheSigmoidAndProductBytes) {
  for (bool constant : {true, false}) {
    CheckSwish<int8_t>(constant);
    CheckSwish<uint8_t>(constant);
  }
  // A zero point of another type than X's names the input.
  NodeTest t("QLinearSwish", 1, "ai.kiln");
  t.Input<uint8_t>({4}, {1, 2, 3, 4});
  QParam<uint8_t>(t, 0.05f, 128);
  t.Input<float>({}, {1.0f / 256}).Input<int8_t>({}, {0});
  QParam<uint8_t>(t, 0.02f, 10);
  ExpectNodeError(t, ErrorCode::kInvalidArgument, "S_zero_point");
}

// ---- QLinearGlobalAveragePool ----

template <typename T>
void CheckGlobalAverage(bool channels_last, int threads, size_t c = 5) {
  const size_t n = 2, h = 7, w = 3, image = h * w;
  const auto x = RandomInts<T>(n * c * image, 11);
  const bool s8 = std::is_same_v<T, int8_t>;
  const float sx = 0.02f, sy = 0.013f;
  const int zx = s8 ? -9 : 117, zy = s8 ? 4 : 131;
  NodeTest t("QLinearGlobalAveragePool", 1, kMs);
  const auto ci = static_cast<int64_t>(c);
  const V shape = channels_last ? V{2, 7, 3, ci} : V{2, ci, 7, 3};
  t.Input<T>(shape, x);
  QParam<T>(t, sx, zx);
  QParam<T>(t, sy, zy);
  t.Attr("channels_last", int64_t{channels_last});
  auto out = t.Run(threads);
  ASSERT_EQ(out[0]->shape(), Shape(channels_last ? V{2, 1, 1, ci} : V{2, ci, 1, 1}));
  std::vector<double> want(n * c);
  for (size_t b = 0; b < n; ++b) {
    for (size_t ch = 0; ch < c; ++ch) {
      double sum = 0;
      for (size_t i = 0; i < image; ++i) {
        sum += static_cast<double>(
            x[channels_last ? (b * image + i) * c + ch : (b * c + ch) * image + i]);
      }
      want[b * c + ch] = Quantize<T>(sx * (sum / image - zx), sy, zy);
    }
  }
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 1.0), 0u);
}

TEST(QuantContribPool, GlobalAverageMatchesTheDefinition) {
  for (bool last : {false, true}) {
    for (int threads : {1, 2}) {
      CheckGlobalAverage<int8_t>(last, threads);
      CheckGlobalAverage<uint8_t>(last, threads);
      CheckGlobalAverage<uint8_t>(last, threads, 70);  // two blocks of channels
    }
  }
}

// ---- QLinearAveragePool ----

struct PoolCase {
  V kernel, strides, pads;
  bool count_include_pad, ceil_mode, channels_last;
};

template <typename T>
void CheckAveragePool(const PoolCase& pc, int threads) {
  const int64_t n = 1, c = 3, h = 9, w = 8;
  const auto x = RandomInts<T>(static_cast<size_t>(n * c * h * w), 17);
  const bool s8 = std::is_same_v<T, int8_t>;
  const float sx = 0.03f, sy = 0.025f;
  const int zx = s8 ? 3 : 128, zy = s8 ? -2 : 120;
  NodeTest t("QLinearAveragePool", 1, kMs);
  t.Input<T>(pc.channels_last ? V{n, h, w, c} : V{n, c, h, w}, x);
  QParam<T>(t, sx, zx);
  QParam<T>(t, sy, zy);
  t.Attr("kernel_shape", pc.kernel).Attr("strides", pc.strides).Attr("pads", pc.pads);
  t.Attr("count_include_pad", int64_t{pc.count_include_pad});
  t.Attr("ceil_mode", int64_t{pc.ceil_mode});
  t.Attr("channels_last", int64_t{pc.channels_last});
  auto out = t.Run(threads);
  auto size = [&](int64_t in, size_t d) {
    const int64_t span = in + pc.pads[d] + pc.pads[d + 2] - pc.kernel[d];
    int64_t o =
        (pc.ceil_mode ? (span + pc.strides[d] - 1) / pc.strides[d] : span / pc.strides[d]) + 1;
    if (pc.ceil_mode && (o - 1) * pc.strides[d] >= in + pc.pads[d]) --o;
    return o;
  };
  const int64_t oh = size(h, 0), ow = size(w, 1);
  ASSERT_EQ(out[0]->shape(), Shape(pc.channels_last ? V{n, oh, ow, c} : V{n, c, oh, ow}));
  std::vector<double> want(static_cast<size_t>(n * c * oh * ow));
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        double sum = 0;
        int64_t inside = 0, padded = 0;
        for (int64_t ki = 0; ki < pc.kernel[0]; ++ki) {
          for (int64_t kj = 0; kj < pc.kernel[1]; ++kj) {
            const int64_t y = i * pc.strides[0] - pc.pads[0] + ki;
            const int64_t xx = j * pc.strides[1] - pc.pads[1] + kj;
            if (y < h + pc.pads[2] && xx < w + pc.pads[3]) ++padded;
            if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
            const int64_t at = pc.channels_last ? (y * w + xx) * c + ch : (ch * h + y) * w + xx;
            sum += sx * (static_cast<double>(x[static_cast<size_t>(at)]) - zx);
            ++inside;
          }
        }
        const int64_t o = pc.channels_last ? (i * ow + j) * c + ch : (ch * oh + i) * ow + j;
        want[static_cast<size_t>(o)] =
            Quantize<T>(sum / static_cast<double>(pc.count_include_pad ? padded : inside), sy, zy);
      }
    }
  }
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 1.0), 0u);
}

TEST(QuantContribPool, AverageMatchesTheDefinition) {
  const PoolCase cases[] = {
      {{3, 3}, {1, 1}, {1, 1, 1, 1}, false, false, false},
      {{3, 3}, {2, 2}, {1, 1, 1, 1}, true, false, false},
      {{2, 3}, {2, 2}, {0, 1, 0, 1}, false, true, false},
      {{3, 3}, {2, 1}, {1, 0, 1, 0}, false, false, true},
      {{2, 2}, {2, 2}, {0, 0, 0, 0}, true, true, true},
  };
  for (const PoolCase& pc : cases) {
    for (int threads : {1, 2}) {
      CheckAveragePool<int8_t>(pc, threads);
      CheckAveragePool<uint8_t>(pc, threads);
    }
  }
}

// ---- QLinearConcat ----

template <typename T>
void CheckConcat(int64_t axis, bool constant) {
  const bool s8 = std::is_same_v<T, int8_t>;
  const auto x0 = RandomInts<T>(2 * 3 * 4, 21), x1 = RandomInts<T>(2 * 1 * 4, 23),
             x2 = RandomInts<T>(2 * 2 * 4, 25);
  const float sy = 0.05f, s0 = 0.05f, s1 = 0.02f, s2 = 0.11f;
  const int zy = s8 ? 1 : 128, z0 = zy, z1 = s8 ? -20 : 100, z2 = s8 ? 5 : 140;
  NodeTest t("QLinearConcat", 1, kMs);
  t.Attr("axis", axis);
  QParam<T>(t, sy, zy, constant);
  t.Input<T>({2, 3, 4}, x0);
  QParam<T>(t, s0, z0, constant);
  t.Input<T>({2, 1, 4}, x1);
  QParam<T>(t, s1, z1, constant);
  t.Input<T>({2, 2, 4}, x2);
  QParam<T>(t, s2, z2, constant);
  auto out = t.Run(2);
  ASSERT_EQ(out[0]->shape(), Shape({2, 6, 4}));
  std::vector<double> want;
  for (int b = 0; b < 2; ++b) {
    for (size_t i = 0; i < 12; ++i) want.push_back(static_cast<double>(x0[b * 12 + i]));  // copied
    for (size_t i = 0; i < 4; ++i)
      want.push_back(Quantize<T>(s1 * (static_cast<double>(x1[b * 4 + i]) - z1), sy, zy));
    for (size_t i = 0; i < 8; ++i)
      want.push_back(Quantize<T>(s2 * (static_cast<double>(x2[b * 8 + i]) - z2), sy, zy));
  }
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 0.0), 0u);
}

TEST(QuantContribConcat, RequantizesEachInputToTheOutputs) {
  for (bool avx512 : {true, false}) {  // the VBMI lookups where the machine has them, and not
    const bool before = cpu::AllowVectorMathAvx512ForTesting(avx512);
    for (bool constant : {true, false}) {
      CheckConcat<int8_t>(1, constant);
      CheckConcat<uint8_t>(-2, constant);
    }
    cpu::AllowVectorMathAvx512ForTesting(before);
  }
}

// ---- QGemm ----

struct GemmCase {
  bool trans_a, trans_b, constant_b, per_column, quantized;
  V c_shape;  // empty: no C
  float alpha;
};

template <typename TA, typename TB>
void CheckQGemm(const GemmCase& g, int threads) {
  const size_t m = 7, k = 37, n = 19;
  const auto a = RandomInts<TA>(m * k, 31);
  const auto b = RandomInts<TB>(k * n, 37);
  const float sa = 0.02f;
  const int za = std::is_same_v<TA, int8_t> ? -4 : 125;
  std::vector<float> sb(g.per_column ? n : 1);
  std::vector<TB> zb(sb.size());
  for (size_t j = 0; j < sb.size(); ++j) {
    sb[j] = 0.01f + 0.001f * static_cast<float>(j);
    zb[j] = static_cast<TB>(std::is_same_v<TB, int8_t> ? 0 : 120 + static_cast<int>(j % 5));
  }
  size_t c_count = 1;
  for (int64_t d : g.c_shape) c_count *= static_cast<size_t>(d);
  std::vector<int32_t> c(c_count);
  // Large enough to move the quantized output by many steps.
  for (size_t i = 0; i < c_count; ++i) c[i] = (static_cast<int32_t>(i * 37 % 200) - 100) * 1000;
  // A and B as the node sees them (transposed storage under transA / transB).
  std::vector<TA> a_in(m * k);
  std::vector<TB> b_in(k * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t p = 0; p < k; ++p) a_in[g.trans_a ? p * m + i : i * k + p] = a[i * k + p];
  }
  for (size_t p = 0; p < k; ++p) {
    for (size_t j = 0; j < n; ++j) b_in[g.trans_b ? j * k + p : p * n + j] = b[p * n + j];
  }
  const float sy = 0.9f;
  const int zy = 7;
  NodeTest t("QGemm", 1, kMs);
  t.Attr("transA", int64_t{g.trans_a}).Attr("transB", int64_t{g.trans_b}).Attr("alpha", g.alpha);
  t.Input<TA>(g.trans_a ? V{int64_t(k), int64_t(m)} : V{int64_t(m), int64_t(k)}, a_in);
  QParam<TA>(t, sa, za);
  t.Input<TB>(g.trans_b ? V{int64_t(n), int64_t(k)} : V{int64_t(k), int64_t(n)}, b_in,
              g.constant_b);
  const V ps = g.per_column ? V{int64_t(n)} : V{};
  t.Input<float>(ps, sb, true).template Input<TB>(ps, zb, true);
  if (g.c_shape.empty()) {
    t.MissingInput();
  } else {
    t.Input<int32_t>(g.c_shape, c, true);
  }
  if (g.quantized) t.Input<float>({}, {sy}).Input<TA>({}, {static_cast<TA>(zy)});
  auto out = t.Run(threads);
  ASSERT_EQ(out[0]->shape(), Shape({int64_t(m), int64_t(n)}));
  std::vector<double> want(m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const size_t cj = g.per_column ? j : 0;
      int64_t acc = 0;
      for (size_t p = 0; p < k; ++p)
        acc += (int64_t{a[i * k + p]} - za) * (int64_t{b[p * n + j]} - int64_t{zb[cj]});
      if (!g.c_shape.empty()) {
        const bool row = g.c_shape.size() == 2 && g.c_shape[0] != 1;
        const bool col = c_count != 1 && (g.c_shape.size() == 1 || g.c_shape[1] != 1);
        acc += c[(row ? i * (col ? n : 1) : 0) + (col ? j : 0)];
      }
      const double v = static_cast<double>(acc) * g.alpha * sa * sb[cj];
      want[i * n + j] = g.quantized ? Quantize<TA>(v, sy, zy) : v;
    }
  }
  if (g.quantized) {
    EXPECT_EQ(CountOff(Values<TA>(*out[0]), want, 1.0), 0u);
  } else {
    const auto got = Values<float>(*out[0]);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5 * std::abs(want[i]) + 1e-6) << "element " << i;
    }
  }
}

TEST(QuantContribQGemm, MatchesTheDefinition) {
  const GemmCase cases[] = {
      {false, false, true, false, true, {}, 1.0f},
      {true, false, true, true, true, {19}, 1.0f},
      {false, true, true, true, true, {7, 1}, 0.5f},
      {true, true, false, false, true, {7, 19}, 1.0f},
      {false, true, false, true, false, {1, 19}, 1.0f},
      {false, false, true, false, false, {}, 2.0f},
      {true, false, false, true, false, {}, 1.0f},
  };
  for (const GemmCase& g : cases) {
    for (int threads : {1, 2}) {
      CheckQGemm<uint8_t, int8_t>(g, threads);
      CheckQGemm<uint8_t, uint8_t>(g, threads);
      CheckQGemm<int8_t, int8_t>(g, threads);
    }
  }
}

// ---- com.microsoft QuantizeLinear / DequantizeLinear ----

TEST(QuantContribQdq, DomainOpsFollowOpset21) {
  // Per axis (axis 0) with int16, which ONNX's opset-10 form would refuse.
  auto q = NodeTest("QuantizeLinear", 1, kMs)
               .Attr("axis", int64_t{0})
               .Input<float>({2, 2}, {1.0f, -2.0f, 300.0f, 2.5f})
               .Input<float>({2}, {0.5f, 0.01f})
               .Input<int16_t>({2}, {1, -3})
               .Run();
  EXPECT_EQ(Values<int16_t>(*q[0]), (std::vector<int16_t>{3, -3, 29997, 247}));
  auto dq = NodeTest("DequantizeLinear", 1, kMs)
                .Attr("axis", int64_t{1})
                .Input<uint8_t>({2, 2}, {10, 20, 30, 40})
                .Input<float>({2}, {0.5f, 2.0f})
                .Input<uint8_t>({2}, {10, 0})
                .Run();
  EXPECT_EQ(Values<float>(*dq[0]), (std::vector<float>{0.0f, 40.0f, 10.0f, 80.0f}));
}

// ---- QLinearSoftmax, QLinearWhere ----

template <typename T>
void CheckSoftmax(int64_t opset, int64_t axis, bool constant) {
  const V shape = {2, 3, 5};
  const auto x = RandomInts<T>(30, 41);
  const bool s8 = std::is_same_v<T, int8_t>;
  const float sx = 0.05f, sy = 1.0f / 256;
  const int zx = s8 ? 3 : 130, zy = s8 ? -128 : 0;
  NodeTest t("QLinearSoftmax", 1, kMs);
  t.Attr("opset", opset).Attr("axis", axis);
  t.Input<T>(shape, x);
  QParam<T>(t, sx, zx, constant);
  QParam<T>(t, sy, zy, constant);
  auto out = t.Run(2);
  ASSERT_EQ(out[0]->shape(), Shape(shape));
  // Rows: opset < 13 flattens from the axis on; 13 takes the one axis.
  const int64_t a = axis < 0 ? axis + 3 : axis;
  std::vector<double> want(30);
  for (int64_t i = 0; i < 30; ++i) {
    const int64_t idx[3] = {i / 15, i / 5 % 3, i % 5};
    double m = -1e300, sum = 0;
    std::vector<int64_t> row;
    for (int64_t j = 0; j < 30; ++j) {
      const int64_t jdx[3] = {j / 15, j / 5 % 3, j % 5};
      bool same = true;
      for (int64_t d = 0; d < 3; ++d) {
        const bool reduced = opset < 13 ? d >= a : d == a;
        if (!reduced && idx[d] != jdx[d]) same = false;
      }
      if (same) row.push_back(j);
    }
    for (int64_t j : row) m = std::max(m, sx * (static_cast<double>(x[j]) - zx));
    for (int64_t j : row) sum += std::exp(sx * (static_cast<double>(x[j]) - zx) - m);
    const double p = std::exp(sx * (static_cast<double>(x[i]) - zx) - m) / sum;
    want[static_cast<size_t>(i)] = Quantize<T>(p * std::floor(1.0 / sy) * sy, sy, zy);
  }
  EXPECT_EQ(CountOff(Values<T>(*out[0]), want, 1.0), 0u) << "opset " << opset << " axis " << axis;
}

TEST(QuantContribSoftmax, MatchesTheDefinitionForEitherAxisRule) {
  for (bool constant : {true, false}) {
    CheckSoftmax<uint8_t>(12, 1, constant);
    CheckSoftmax<int8_t>(13, -1, constant);
    CheckSoftmax<uint8_t>(13, 1, constant);
  }
}

TEST(QuantContribWhere, SelectsAndRequantizesWithBroadcasting) {
  const std::vector<uint8_t> x = {10, 200, 30, 40, 250, 60};
  const std::vector<uint8_t> y = {7, 255};
  NodeTest t("QLinearWhere", 1, kMs);
  t.Input<bool>({2, 1, 3}, {true, false, true, false, true, false});
  t.Input<uint8_t>({2, 1, 3}, x);
  QParam<uint8_t>(t, 0.1f, 100);
  t.Input<uint8_t>({2, 1}, y);
  QParam<uint8_t>(t, 0.2f, 5);
  QParam<uint8_t>(t, 0.1f, 100);
  auto out = t.Run(2);
  ASSERT_EQ(out[0]->shape(), Shape({2, 2, 3}));
  std::vector<double> want;
  for (int b = 0; b < 2; ++b) {
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 3; ++c) {
        const bool cond = (b * 3 + c) % 2 == 0;
        const double v = cond ? 0.1 * (x[static_cast<size_t>(b * 3 + c)] - 100.0)
                              : 0.2 * (y[static_cast<size_t>(r)] - 5.0);
        want.push_back(Quantize<uint8_t>(v, 0.1, 100));
      }
    }
  }
  EXPECT_EQ(CountOff(Values<uint8_t>(*out[0]), want, 0.0), 0u);
  // The same parameters as Z's: copied.
  NodeTest same("QLinearWhere", 1, kMs);
  same.Input<bool>({2}, {true, false}).Input<int8_t>({2}, {-7, 9});
  QParam<int8_t>(same, 0.5f, 1).Input<int8_t>({2}, {100, -100});
  QParam<int8_t>(same, 0.5f, 1);
  QParam<int8_t>(same, 0.5f, 1);
  EXPECT_EQ(Values<int8_t>(*same.Run()[0]), (std::vector<int8_t>{-7, -100}));
  NodeTest few("QLinearWhere", 1, kMs);
  few.Input<bool>({1}, {true}).Input<uint8_t>({1}, {1});
  ExpectNodeError(few, ErrorCode::kInvalidArgument, "expected 9");
}

// ---- errors ----

TEST(QuantContribErrors, NameTheInput) {
  auto add = [] {
    NodeTest t("QLinearAdd", 1, kMs);
    return t;
  };
  {
    NodeTest t = add();
    t.Input<float>({1}, {1.0f});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({1}, {1});
    QParam<uint8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "input 'A'");
  }
  {
    NodeTest t = add();
    t.Input<uint8_t>({1}, {1});
    QParam<uint8_t>(t, 0.1f, 0).Input<int8_t>({1}, {1});
    QParam<int8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "input 'B'");
  }
  {
    NodeTest t = add();
    t.Input<uint8_t>({1}, {1}).Input<float>({2}, {0.1f, 0.2f}).Input<uint8_t>({}, {0});
    t.Input<uint8_t>({1}, {1});
    QParam<uint8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "A_scale");
  }
  {
    NodeTest t = add();
    t.Input<uint8_t>({1}, {1});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({1}, {1});
    QParam<uint8_t>(t, 0.1f, 0);
    t.Input<float>({}, {0.1f}).Input<int8_t>({}, {0});
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "C_zero_point");
  }
  {
    NodeTest t = add();
    t.Input<uint8_t>({2}, {1, 2});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({3}, {1, 2, 3});
    QParam<uint8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "B");
  }
  {
    NodeTest t("QLinearSigmoid", 1, kMs);
    t.Input<uint8_t>({1}, {1}).Input<float>({}, {-1.0f}).Input<uint8_t>({}, {0});
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "X_scale");
  }
  {
    NodeTest t("QLinearGlobalAveragePool", 1, kMs);
    t.Input<uint8_t>({2, 2}, {1, 2, 3, 4});
    QParam<uint8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "rank 3");
  }
  {
    NodeTest t("QLinearAveragePool", 1, kMs);
    t.Attr("kernel_shape", V{2, 2}).Attr("pads", V{2, 2, 2, 2});
    t.Input<uint8_t>({1, 1, 2, 2}, {1, 2, 3, 4});
    QParam<uint8_t>(t, 0.1f, 0);
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "padding");
  }
  {
    NodeTest t("QLinearConcat", 1, kMs);
    t.Attr("axis", int64_t{0});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({1}, {1}).Input<float>({}, {0.1f});
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "2 + 3k inputs");
  }
  {
    NodeTest t("QLinearConcat", 1, kMs);
    t.Attr("axis", int64_t{0});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({1, 2}, {1, 2});
    QParam<uint8_t>(t, 0.1f, 0).Input<uint8_t>({1, 3}, {1, 2, 3});
    QParam<uint8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "input 5 (X 1)");
  }
  {
    NodeTest t("QGemm", 1, kMs);
    t.Input<uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    QParam<uint8_t>(t, 0.1f, 0).Input<int8_t>({2, 2}, {1, 2, 3, 4});
    QParam<int8_t>(t, 0.1f, 0);
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "inner");
  }
  {
    NodeTest t("QGemm", 1, kMs);
    t.Input<uint8_t>({1, 2}, {1, 2});
    QParam<uint8_t>(t, 0.1f, 0).Input<int8_t>({2, 2}, {1, 2, 3, 4});
    QParam<int8_t>(t, 0.1f, 0).Input<int32_t>({3}, {1, 2, 3});
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "input 'C'");
  }
  {
    NodeTest t("QGemm", 1, kMs);
    t.Input<uint8_t>({1, 2}, {1, 2});
    QParam<uint8_t>(t, 0.1f, 0).Input<int8_t>({2, 2}, {1, 2, 3, 4});
    QParam<int8_t>(t, 0.1f, 0).MissingInput().MissingInput().Input<uint8_t>({}, {0});
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "y_scale");
  }
  {
    NodeTest t("QGemm", 1, kMs);
    t.Input<uint8_t>({1, 2}, {1, 2});
    QParam<uint8_t>(t, 0.1f, 0).Input<int8_t>({2, 2}, {1, 2, 3, 4});
    t.Input<float>({3}, {0.1f, 0.1f, 0.1f}).Input<int8_t>({}, {0});
    ExpectNodeError(t, ErrorCode::kInvalidArgument, "b_scale");
  }
}

}  // namespace
}  // namespace kiln::testing
