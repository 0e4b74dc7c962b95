// com.microsoft DynamicQuantizeLSTM: values ONNX Runtime 1.30 computes, a reference of its
// quantized arithmetic in double precision (the quantization itself in float, as ONNX Runtime
// defines it) over forward, reverse and bidirectional cases with each optional input, and the
// errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/rnn/rnn_test_util.h"
#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

constexpr const char* kMs = "com.microsoft";

// Adds an int8 (or uint8) input holding `v`.
void AddBytes(NodeTest& t, std::vector<int64_t> shape, const std::vector<int32_t>& v, bool int8,
              bool constant = false) {
  if (int8) {
    t.Input<int8_t>(std::move(shape), std::vector<int8_t>(v.begin(), v.end()), constant);
  } else {
    t.Input<uint8_t>(std::move(shape), std::vector<uint8_t>(v.begin(), v.end()), constant);
  }
}

// ---- ONNX Runtime's values

// A bidirectional case with every optional input, uint8 weights (W's scales and zero points per
// column, R's per direction) and a batch of sequences of lengths 3, 1 and 2. ONNX Runtime 1.30
// (onnxruntime-node, one thread) computed the outputs below, with Y and without it: a sequence
// that has ended is 0 in the next step's quantized state when Y is made, its last state when not.
NodeTest OrtCase() {
  const std::vector<float> x = {0.25f,   0.794f, 0.551f, -0.55f,  -0.4f,   0.747f,
                                -0.989f, 0.642f, 0.594f, -0.064f, -0.394f, -0.443f,
                                -0.49f,  -0.11f, 0.009f, 0.107f,  0.991f,  0.585f};
  const std::vector<int32_t> w = {179, 159, 87, 253, 119, 55,  216, 41,  219, 156, 29,
                                  11,  113, 9,  36,  131, 248, 119, 206, 234, 210, 161,
                                  112, 131, 68, 127, 97,  63,  254, 3,   24,  49};
  const std::vector<int32_t> r = {248, 177, 225, 51,  184, 94,  125, 0,   158, 212, 169,
                                  39,  136, 68,  247, 225, 47,  130, 240, 216, 181, 163,
                                  10,  189, 121, 23,  62,  138, 186, 129, 156, 223};
  const std::vector<float> b = {-0.139f, 0.098f,  -0.441f, -0.112f, -0.177f, -0.35f,  0.316f,
                                -0.121f, 0.479f,  0.09f,   0.105f,  0.138f,  0.176f,  -0.349f,
                                -0.06f,  -0.26f,  -0.098f, -0.403f, 0.468f,  -0.285f, 0.172f,
                                -0.2f,   0.374f,  0.162f,  -0.368f, 0.345f,  0.445f,  0.404f,
                                0.07f,   -0.355f, -0.308f, 0.428f};
  const std::vector<float> h0 = {0.105f,  -0.639f, 0.768f,  0.283f, 0.139f,  -0.247f,
                                 -0.178f, -0.521f, -0.924f, 0.752f, -0.065f, 0.095f};
  const std::vector<float> c0 = {-0.356f, 0.503f, -0.95f,  -0.256f, -0.939f, -0.754f,
                                 0.934f,  0.316f, -0.144f, 0.047f,  0.746f,  -0.312f};
  const std::vector<float> p = {0.09f,   0.184f, -0.145f, 0.019f, 0.265f, 0.409f,
                                -0.349f, 0.433f, -0.495f, 0.253f, 0.311f, -0.363f};
  const std::vector<float> w_scale = {0.0037f, 0.0053f, 0.0021f, 0.0045f, 0.0052f, 0.0041f,
                                      0.0049f, 0.0029f, 0.0028f, 0.0035f, 0.0027f, 0.0034f,
                                      0.0058f, 0.0043f, 0.0034f, 0.0031f};
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Attr("direction", "bidirectional").Attr("hidden_size", int64_t{2});
  t.Input<float>({3, 3, 2}, x);
  AddBytes(t, {2, 2, 8}, w, false);
  AddBytes(t, {2, 2, 8}, r, false);
  t.Input<float>({2, 16}, b).Input<int32_t>({3}, {3, 1, 2});
  t.Input<float>({2, 3, 2}, h0).Input<float>({2, 3, 2}, c0).Input<float>({2, 6}, p);
  t.Input<float>({2, 8}, w_scale).Input<uint8_t>({2, 8}, std::vector<uint8_t>(16, 128));
  t.Input<float>({2}, {0.0058f, 0.0038f}).Input<uint8_t>({2}, {120, 135});
  return t;
}

// Within float rounding of ONNX Runtime's (the two runs below differ by 4e-5).
constexpr float kOrtTolerance = 2e-6f;

TEST(DynamicQuantizeLstm, MatchesOnnxRuntimeWithY) {
  auto out = OrtCase().Outputs(3).Run();
  ExpectTensorNear(
      *out[0], {3, 2, 3, 2},
      {-0.147560835f,  -0.109960906f,  0.0141720967f, -0.2619811f,  -0.239599258f,  -0.144478604f,
       0.0780707896f,  0.163467556f,   0.14979656f,   0.158421233f, 0.155448258f,   0.12368983f,
       -0.172153145f,  -0.0369221084f, 0.0f,          0.0f,         -0.0865858346f, -0.136276871f,
       0.175772637f,   0.144513994f,   0.0f,          0.0f,         0.273750097f,   0.0715194046f,
       -0.0752193332f, -0.0580580011f, 0.0f,          0.0f,         0.0f,           0.0f,
       0.320769668f,   0.15691258f,    0.0f,          0.0f,         0.0f,           0.0f},
      kOrtTolerance);
  ExpectTensorNear(
      *out[1], {2, 3, 2},
      {-0.0752193332f, -0.0580580011f, 0.0141720967f, -0.2619811f, -0.0865858346f, -0.136276871f,
       0.0780707896f, 0.163467556f, 0.14979656f, 0.158421233f, 0.155448258f, 0.12368983f},
      kOrtTolerance);
  ExpectTensorNear(
      *out[2], {2, 3, 2},
      {-0.185101181f, -0.123354897f, 0.0249465406f, -0.524815917f, -0.214606404f, -0.253729761f,
       0.111102335f, 0.311334133f, 0.258960903f, 0.291451246f, 0.233833313f, 0.258104026f},
      kOrtTolerance);
}

TEST(DynamicQuantizeLstm, MatchesOnnxRuntimeWithoutY) {
  auto out = OrtCase().Outputs(3, {0}).Run();
  EXPECT_EQ(out[0], nullptr);
  ExpectTensorNear(
      *out[1], {2, 3, 2},
      {-0.0751761794f, -0.0580072291f, 0.0141720967f, -0.2619811f, -0.0865858346f, -0.136276871f,
       0.0780707896f, 0.163467556f, 0.14979656f, 0.158421233f, 0.155448258f, 0.12368983f},
      kOrtTolerance);
  ExpectTensorNear(
      *out[2], {2, 3, 2},
      {-0.184987038f, -0.123254418f, 0.0249465406f, -0.524815917f, -0.214606404f, -0.253729761f,
       0.111102335f, 0.311334133f, 0.258960903f, 0.291451246f, 0.233833313f, 0.258104026f},
      kOrtTolerance);
}

// A case where Kiln's own Sigmoid and Tanh (within 2e-6 of the exact values) move one hidden
// value across a rounding point of the state's quantization, and with it batch entry 11's Y_h by
// 4e-4: ONNX Runtime's activation functions (MLAS's, as on x86-64 with FMA3) give its values.
TEST(DynamicQuantizeLstm, ActivationsAreOnnxRuntimes) {
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Attr("hidden_size", int64_t{2});
  t.Input<float>({3, 12, 1}, {-0.67f, 0.29f, 0.77f, 0.07f,  0.54f,  -0.33f, 0.12f,  -0.3f,  -0.44f,
                              0.53f,  0.95f, 0.41f, -0.14f, 0.29f,  0.41f,  0.38f,  0.84f,  -0.32f,
                              0.79f,  0.72f, 0.04f, 0.19f,  -0.87f, -0.76f, -0.93f, -0.67f, -0.55f,
                              -0.34f, 0.08f, 0.66f, -0.02f, -0.93f, 0.29f,  -0.74f, -0.19f, 0.19f});
  t.Input<int8_t>({1, 1, 8}, {7, 18, 10, -57, -102, 99, -50, -123});
  t.Input<int8_t>({1, 2, 8},
                  {3, -88, 117, 0, 109, 22, -116, -28, -127, 115, 124, 90, 77, -81, -4, 127});
  t.MissingInput().MissingInput().MissingInput().MissingInput().MissingInput();
  t.Input<float>({1}, {0.0092f}).Input<int8_t>({1}, {0});
  t.Input<float>({1}, {0.0108f}).Input<int8_t>({1}, {0});
  auto out = t.Outputs(2, {0}).Run();
  ExpectTensorNear(*out[1], {1, 12, 2},
                   {0.110535681f,   0.31418395f,    0.0588944964f,   0.0710388646f,  0.0460362621f,
                    -0.029877061f,  0.0283519085f,  0.00425372785f,  -0.0142143378f, -0.200126782f,
                    -0.0737934038f, -0.0438079685f, -0.00392667344f, -0.136513337f,  0.064014174f,
                    0.151188433f,   -0.0337072946f, -0.00965833012f, 0.0673697442f,  0.0708220825f,
                    0.0457606167f,  0.120706357f,   -0.00377562433f, 0.032702513f},
                   kOrtTolerance);
}

// ---- Against a reference

// One case: sizes, the weights' type and quantization, which optional inputs it has.
struct Spec {
  std::string direction = "forward";
  int64_t seq = 3, batch = 2, input = 3, hidden = 2;
  bool int8 = true;
  bool w_per_column = false, r_per_column = false;            // scales [D, 4H], else [D]
  bool w_zero_per_column = false, r_zero_per_column = false;  // zero points [D, 4H], else [D]
  int32_t w_zero = 0, r_zero = 0;  // direction d's zero point: this + 3·d (one value per column)
  bool bias = false, h0 = false, c0 = false, peep = false;
  std::vector<int32_t> lens;  // sequence_lens; empty: left out
  float clip = 0;             // 0: no clip attribute
  bool input_forget = false;
  std::vector<std::string> activations;  // empty: the defaults
  bool want_y = true;
  bool constant = false;  // W and R initializers
  uint32_t seed = 1;

  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
};

// The inputs' values, drawn from the spec's seed.
struct Data {
  std::vector<float> x, b, h0, c0, p, w_scale, r_scale;
  std::vector<int32_t> w, r, w_zero, r_zero;
};

Data MakeData(const Spec& s) {
  std::mt19937 gen(s.seed);
  auto floats = [&](int64_t n, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& f : v) f = u(gen);
    return v;
  };
  auto bytes = [&](int64_t n) {
    std::uniform_int_distribution<int32_t> u(s.int8 ? -128 : 0, s.int8 ? 127 : 255);
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& i : v) i = u(gen);
    return v;
  };
  const int64_t d = s.dirs(), h4 = 4 * s.hidden;
  auto zeros = [&](bool per_column, int32_t base) {
    std::vector<int32_t> v;
    for (int64_t dir = 0; dir < d; ++dir) {
      const int32_t z = per_column ? base : base + static_cast<int32_t>(3 * dir);
      v.insert(v.end(), static_cast<size_t>(per_column ? h4 : 1), z);
    }
    return v;
  };
  Data data;
  data.x = floats(s.seq * s.batch * s.input, -1, 1);
  data.w = bytes(d * s.input * h4);
  data.r = bytes(d * s.hidden * h4);
  data.w_scale = floats(s.w_per_column ? d * h4 : d, 0.002f, 0.006f);
  data.r_scale = floats(s.r_per_column ? d * h4 : d, 0.002f, 0.006f);
  data.w_zero = zeros(s.w_zero_per_column, s.w_zero);
  data.r_zero = zeros(s.r_zero_per_column, s.r_zero);
  if (s.bias) data.b = floats(d * 2 * h4, -0.5f, 0.5f);
  if (s.h0) data.h0 = floats(d * s.batch * s.hidden, -1, 1);
  if (s.c0) data.c0 = floats(d * s.batch * s.hidden, -1, 1);
  if (s.peep) data.p = floats(d * 3 * s.hidden, -0.5f, 0.5f);
  return data;
}

NodeTest MakeNode(const Spec& s, const Data& data) {
  const int64_t d = s.dirs(), h4 = 4 * s.hidden;
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Attr("direction", s.direction).Attr("hidden_size", s.hidden);
  if (s.clip > 0) t.Attr("clip", s.clip);
  if (s.input_forget) t.Attr("input_forget", int64_t{1});
  if (!s.activations.empty()) t.Attr("activations", s.activations);
  t.Input<float>({s.seq, s.batch, s.input}, data.x);
  AddBytes(t, {d, s.input, h4}, data.w, s.int8, s.constant);
  AddBytes(t, {d, s.hidden, h4}, data.r, s.int8, s.constant);
  auto optional = [&](const std::vector<float>& v, std::vector<int64_t> shape) {
    if (v.empty()) {
      t.MissingInput();
    } else {
      t.Input<float>(std::move(shape), v);
    }
  };
  optional(data.b, {d, 2 * h4});
  if (s.lens.empty()) {
    t.MissingInput();
  } else {
    t.Input<int32_t>({s.batch}, s.lens);
  }
  optional(data.h0, {d, s.batch, s.hidden});
  optional(data.c0, {d, s.batch, s.hidden});
  optional(data.p, {d, 3 * s.hidden});
  auto shape = [&](bool per_column) {
    return per_column ? std::vector<int64_t>{d, h4} : std::vector<int64_t>{d};
  };
  t.Input<float>(shape(s.w_per_column), data.w_scale);
  AddBytes(t, shape(s.w_zero_per_column), data.w_zero, s.int8);
  t.Input<float>(shape(s.r_per_column), data.r_scale);
  AddBytes(t, shape(s.r_zero_per_column), data.r_zero, s.int8);
  if (s.want_y) {
    t.Outputs(3);
  } else {
    t.Outputs(3, {0});
  }
  return t;
}

// x quantized to uint8 as ONNX Runtime quantizes a product's left side, in float: the range
// with 0, scale (max - min) / 255 (1 for all zeros), zero point and values rounded to even.
struct Quantized {
  float scale = 1;
  int32_t zero = 0;
  std::vector<int32_t> q;
};

Quantized Quantize(const std::vector<float>& x) {
  float lo = 0, hi = 0;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  Quantized out;
  if (hi > lo) {
    out.scale = (hi - lo) / 255.0f;
    out.zero = static_cast<int32_t>(std::nearbyint(std::clamp(-lo / out.scale, 0.0f, 255.0f)));
  }
  for (float v : x) {
    const float q = std::nearbyint(v / out.scale) + static_cast<float>(out.zero);
    out.q.push_back(static_cast<int32_t>(std::clamp(q, 0.0f, 255.0f)));
  }
  return out;
}

double Activate(const std::string& name, double x) {
  if (name == "Tanh") return std::tanh(x);
  if (name == "HardSigmoid") return std::clamp(0.2 * x + 0.5, 0.0, 1.0);
  if (name == "Softsign") return x / (1 + std::abs(x));
  if (name == "Relu") return std::max(x, 0.0);
  return 1 / (1 + std::exp(-x));  // Sigmoid
}

struct Expected {
  std::vector<float> y, y_h, y_c;
};

// ONNX Runtime's arithmetic (one thread) in double: the integer products exact, the scales'
// products in float as it forms them, the rest in double.
Expected Reference(const Spec& s, const Data& data) {
  const auto d = static_cast<size_t>(s.dirs()), seq = static_cast<size_t>(s.seq),
             batch = static_cast<size_t>(s.batch), input = static_cast<size_t>(s.input),
             h = static_cast<size_t>(s.hidden), h4 = 4 * h;
  std::vector<int64_t> lens(batch, s.seq);
  if (!s.lens.empty()) lens.assign(s.lens.begin(), s.lens.end());
  const size_t steps = static_cast<size_t>(*std::max_element(lens.begin(), lens.end()));
  std::vector<double> y(seq * d * batch * h), y_h(d * batch * h), y_c(d * batch * h);
  std::vector<std::string> act = s.activations;
  if (act.empty()) {
    for (size_t dir = 0; dir < d; ++dir) act.insert(act.end(), {"Sigmoid", "Tanh", "Tanh"});
  }
  const Quantized qx = Quantize(std::vector<float>(
      data.x.begin(), data.x.begin() + static_cast<std::ptrdiff_t>(steps * batch * input)));
  for (size_t dir = 0; dir < d && steps > 0; ++dir) {
    const bool reverse = dir == 1 || s.direction == "reverse";
    auto w_scale = [&](size_t j) { return data.w_scale[s.w_per_column ? dir * h4 + j : dir]; };
    auto r_scale = [&](size_t j) { return data.r_scale[s.r_per_column ? dir * h4 + j : dir]; };
    const int32_t wz = data.w_zero[s.w_zero_per_column ? dir * h4 : dir];
    const int32_t rz = data.r_zero[s.r_zero_per_column ? dir * h4 : dir];
    // X·W for the first `steps` steps.
    std::vector<double> gx(steps * batch * h4);
    for (size_t row = 0; row < steps * batch; ++row) {
      for (size_t j = 0; j < h4; ++j) {
        int64_t acc = 0;
        for (size_t k = 0; k < input; ++k) {
          acc +=
              int64_t{qx.q[row * input + k] - qx.zero} * (data.w[(dir * input + k) * h4 + j] - wz);
        }
        gx[row * h4 + j] = static_cast<double>(acc) * (qx.scale * w_scale(j));
      }
    }
    std::vector<double> hs(batch * h, 0.0), cs(batch * h, 0.0);
    if (s.h0) std::copy_n(data.h0.data() + dir * batch * h, batch * h, hs.begin());
    if (s.c0) std::copy_n(data.c0.data() + dir * batch * h, batch * h, cs.begin());
    for (size_t step = 0; step < steps; ++step) {
      const Quantized qh = Quantize(std::vector<float>(hs.begin(), hs.end()));
      std::vector<double> next = hs;
      for (size_t n = 0; n < batch; ++n) {
        const int64_t len = lens[n];
        if (static_cast<int64_t>(step) >= len) {
          if (s.want_y || len == 0) std::fill_n(next.data() + n * h, h, 0.0);
          continue;
        }
        const size_t t = reverse ? static_cast<size_t>(len) - 1 - step : step;
        std::vector<double> g(h4);
        for (size_t j = 0; j < h4; ++j) {
          int64_t acc = 0;
          for (size_t k = 0; k < h; ++k) {
            acc += int64_t{qh.q[n * h + k] - qh.zero} * (data.r[(dir * h + k) * h4 + j] - rz);
          }
          g[j] = gx[(t * batch + n) * h4 + j] + static_cast<double>(acc) * (qh.scale * r_scale(j));
        }
        double* c = &cs[n * h];
        auto gate = [&](size_t gi, size_t j, int peep_at, double cell) {
          double v = g[gi * h + j];
          if (s.peep && peep_at >= 0) {  // the cell gate (-1) has no peephole
            v += data.p[dir * 3 * h + static_cast<size_t>(peep_at) * h + j] * cell;
          }
          if (s.bias)
            v += double{data.b[dir * 2 * h4 + gi * h + j]} + data.b[dir * 2 * h4 + h4 + gi * h + j];
          if (s.clip > 0) v = std::clamp(v, -double{s.clip}, double{s.clip});
          return v;
        };
        for (size_t j = 0; j < h; ++j) {
          const double i_gate = Activate(act[3 * dir], gate(0, j, 0, c[j]));
          const double f_gate =
              s.input_forget ? 1 - i_gate : Activate(act[3 * dir], gate(2, j, 2, c[j]));
          const double c_gate = Activate(act[3 * dir + 1], gate(3, j, -1, 0.0));
          c[j] = f_gate * c[j] + i_gate * c_gate;
          const double o_gate = Activate(act[3 * dir], gate(1, j, 1, c[j]));
          const double hv = o_gate * Activate(act[3 * dir + 2], c[j]);
          next[n * h + j] = hv;
          y[((t * d + dir) * batch + n) * h + j] = hv;
          if (static_cast<int64_t>(step) + 1 == len) {
            y_h[(dir * batch + n) * h + j] = hv;
            y_c[(dir * batch + n) * h + j] = c[j];
          }
        }
      }
      hs = next;
    }
  }
  auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  return {floats(y), floats(y_h), floats(y_c)};
}

// Float rounding against the double reference (the quantized states agree: the cases' values
// fall clear of the rounding ties).
constexpr float kTolerance = 2e-5f;

void ExpectMatchesReference(const Spec& s, const Data& data, int threads = 1) {
  SCOPED_TRACE(s.direction + (s.int8 ? " int8" : " uint8"));
  const Expected want = Reference(s, data);
  auto out = MakeNode(s, data).Run(threads);
  const int64_t d = s.dirs();
  if (s.want_y) {
    ExpectTensorNear(*out[0], {s.seq, d, s.batch, s.hidden}, want.y, kTolerance);
  } else {
    EXPECT_EQ(out[0], nullptr);
  }
  ExpectTensorNear(*out[1], {d, s.batch, s.hidden}, want.y_h, kTolerance);
  ExpectTensorNear(*out[2], {d, s.batch, s.hidden}, want.y_c, kTolerance);
}

void ExpectMatchesReference(const Spec& s, int threads = 1) {
  ExpectMatchesReference(s, MakeData(s), threads);
}

TEST(DynamicQuantizeLstm, ForwardInt8PerDirection) {
  Spec s;
  s.seed = 11;
  ExpectMatchesReference(s);
  s.w_zero = -5;  // int8 zero points per direction need not be 0
  s.r_zero = 4;
  ExpectMatchesReference(s);
}

TEST(DynamicQuantizeLstm, ReverseUint8PerColumnWithEveryOptionalInput) {
  Spec s;
  s.direction = "reverse";
  s.int8 = false;
  s.seq = 4;
  s.batch = 3;
  s.w_per_column = s.r_per_column = true;
  s.w_zero_per_column = s.r_zero_per_column = true;
  s.w_zero = 131;
  s.r_zero = 126;
  s.bias = s.h0 = s.c0 = s.peep = true;
  s.lens = {4, 2, 3};
  s.seed = 12;
  ExpectMatchesReference(s);
}

TEST(DynamicQuantizeLstm, BidirectionalMixedScalesAndZeroPointShapes) {
  Spec s;
  s.direction = "bidirectional";
  s.seq = 5;
  s.batch = 3;
  s.input = 4;
  s.hidden = 3;
  s.w_per_column = true;       // scales per column, zero points per direction
  s.r_zero_per_column = true;  // scales per direction, zero points per column (all 0)
  s.bias = s.peep = s.h0 = true;
  s.lens = {5, 1, 3};
  s.seed = 13;
  ExpectMatchesReference(s);
  s.int8 = false;
  s.w_zero = 120;
  s.r_zero = 140;
  ExpectMatchesReference(s);
}

// Without Y, a sequence that has ended keeps its last state in the batch's quantized state (with
// Y it is 0 there): different results, each the reference's.
TEST(DynamicQuantizeLstm, EndedSequencesWithAndWithoutY) {
  Spec s;
  s.direction = "bidirectional";
  s.seq = 4;
  s.batch = 3;
  s.h0 = s.c0 = s.bias = true;
  s.lens = {1, 4, 2};
  s.seed = 14;
  ExpectMatchesReference(s);
  s.want_y = false;
  ExpectMatchesReference(s);
  const Data data = MakeData(s);
  s.want_y = true;
  const auto with_y = MakeNode(s, data).Run();
  s.want_y = false;
  const auto without_y = MakeNode(s, data).Run();
  EXPECT_NE(Values<float>(*with_y[1]), Values<float>(*without_y[1]));
}

TEST(DynamicQuantizeLstm, EmptySequences) {
  Spec s;
  s.batch = 3;
  s.h0 = s.c0 = true;
  s.lens = {0, 3, 1};
  s.seed = 15;
  ExpectMatchesReference(s);
  s.want_y = false;
  ExpectMatchesReference(s);
  s.want_y = true;
  s.lens = {0, 0, 0};  // all outputs 0
  const Data data = MakeData(s);
  auto out = MakeNode(s, data).Run();
  for (const auto& o : out) {
    for (float v : Values<float>(*o)) EXPECT_EQ(v, 0.0f);
  }
}

// X's range is its first L steps', L the longest sequence: the steps after them (here far larger)
// are left out, as ONNX Runtime's product of all steps leaves them out.
TEST(DynamicQuantizeLstm, StepsPastTheLongestSequenceAreOutOfXsRange) {
  Spec s;
  s.direction = "bidirectional";
  s.seq = 4;
  s.batch = 2;
  s.lens = {2, 1};
  s.seed = 19;
  Data data = MakeData(s);
  std::fill(data.x.begin() + 2 * s.batch * s.input, data.x.end(), 5.0f);
  ExpectMatchesReference(s, data);
}

TEST(DynamicQuantizeLstm, ClipInputForgetAndActivations) {
  Spec s;
  s.direction = "bidirectional";
  s.clip = 0.4f;
  s.input_forget = true;
  s.activations = {"HardSigmoid", "Softsign", "Tanh", "Sigmoid", "Tanh", "Softsign"};
  s.bias = s.peep = true;
  s.seed = 16;
  ExpectMatchesReference(s);
}

// Sizes past the product's panels of 32 columns and groups of 4 depths, a batch split over the
// threads, and weights packed once (initializers) or per run: the same results.
TEST(DynamicQuantizeLstm, LargerSizesThreadsAndConstantWeights) {
  Spec s;
  s.direction = "bidirectional";
  s.seq = 3;
  s.batch = 9;
  s.input = 37;
  s.hidden = 9;
  s.int8 = false;
  s.r_per_column = s.r_zero_per_column = true;
  s.w_zero = 100;
  s.r_zero = 128;
  s.bias = s.h0 = s.c0 = true;
  s.lens = {3, 2, 3, 1, 3, 3, 2, 3, 3};
  s.seed = 17;
  ExpectMatchesReference(s, 1);
  ExpectMatchesReference(s, 2);
  const Data data = MakeData(s);
  const auto one = MakeNode(s, data).Run(1);
  s.constant = true;
  const auto two = MakeNode(s, data).Run(2);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Values<float>(*one[i]), Values<float>(*two[i]));
}

TEST(DynamicQuantizeLstm, EmptyBatch) {
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Attr("hidden_size", int64_t{1});
  t.Input<float>({2, 0, 1}, {});
  t.Input<int8_t>({1, 1, 4}, {1, 2, 3, 4}).Input<int8_t>({1, 1, 4}, {1, 2, 3, 4});
  t.MissingInput().MissingInput().MissingInput().MissingInput().MissingInput();
  t.Input<float>({1}, {0.01f}).Input<int8_t>({1}, {0});
  t.Input<float>({1}, {0.01f}).Input<int8_t>({1}, {0});
  auto out = t.Outputs(3).Run();
  EXPECT_EQ(out[0]->shape(), Shape({2, 1, 0, 1}));
  EXPECT_EQ(out[2]->shape(), Shape({1, 0, 1}));
}

TEST(DynamicQuantizeLstm, HiddenSizeFromR) {
  Spec s;
  s.seed = 18;
  const Data data = MakeData(s);
  NodeTest with_attr = MakeNode(s, data);
  auto want = with_attr.Run();
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Input<float>({s.seq, s.batch, s.input}, data.x);
  AddBytes(t, {1, s.input, 4 * s.hidden}, data.w, true);
  AddBytes(t, {1, s.hidden, 4 * s.hidden}, data.r, true);
  t.MissingInput().MissingInput().MissingInput().MissingInput().MissingInput();
  t.Input<float>({1}, data.w_scale).Input<int8_t>({1}, {0});
  t.Input<float>({1}, data.r_scale).Input<int8_t>({1}, {0});
  t.Outputs(3);
  auto got = t.Run();
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Values<float>(*got[i]), Values<float>(*want[i]));
}

// ---- Errors

// A forward case of hidden size 2 on [seq 2, batch 1, input 1], with its inputs' shapes and types
// open to change.
struct Small {
  std::vector<int64_t> x{2, 1, 1}, w{1, 1, 8}, r{1, 2, 8};
  bool x_double = false, w_float = false, r_uint8 = false;
  std::vector<int64_t> b;  // empty: left out
  std::vector<int64_t> w_scale{1}, w_zero{1}, r_scale{1}, r_zero{1};
  bool w_zero_uint8 = false, r_scale_int = false;
  std::vector<int32_t> w_zero_values;  // empty: zeros
  size_t inputs = 12;                  // fewer: the last ones left off

  NodeTest Build() const {
    auto count = [](const std::vector<int64_t>& s) {
      int64_t n = 1;
      for (int64_t v : s) n *= v;
      return static_cast<size_t>(n);
    };
    NodeTest t("DynamicQuantizeLSTM", 1, kMs);
    t.Attr("hidden_size", int64_t{2});
    if (x_double) {
      t.Input<double>(x, std::vector<double>(count(x), 0.5));
    } else {
      t.Input<float>(x, std::vector<float>(count(x), 0.5f));
    }
    if (w_float) {
      t.Input<float>(w, std::vector<float>(count(w), 1.0f));
    } else {
      t.Input<int8_t>(w, std::vector<int8_t>(count(w), 3));
    }
    AddBytes(t, r, std::vector<int32_t>(count(r), 3), !r_uint8);
    if (b.empty()) {
      t.MissingInput();
    } else {
      t.Input<float>(b, std::vector<float>(count(b), 0.0f));
    }
    t.MissingInput().MissingInput().MissingInput().MissingInput();
    if (inputs > 8) t.Input<float>(w_scale, std::vector<float>(count(w_scale), 0.01f));
    if (inputs > 9) {
      std::vector<int32_t> z = w_zero_values;
      z.resize(count(w_zero), 0);
      AddBytes(t, w_zero, z, !w_zero_uint8);
    }
    if (inputs > 10) {
      if (r_scale_int) {
        t.Input<int32_t>(r_scale, std::vector<int32_t>(count(r_scale), 1));
      } else {
        t.Input<float>(r_scale, std::vector<float>(count(r_scale), 0.01f));
      }
    }
    if (inputs > 11) AddBytes(t, r_zero, std::vector<int32_t>(count(r_zero), 0), true);
    t.Outputs(3);
    return t;
  }
};

TEST(DynamicQuantizeLstmErrors, TheSmallCaseRuns) {
  EXPECT_NO_THROW(Small().Build().Run());
}

TEST(DynamicQuantizeLstmErrors, WeightShapesAndTypes) {
  Small s;
  s.w = {1, 8, 1};  // LSTM's layout
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'W' has shape [1,8,1] but must be [1,1,8]");
  s = Small();
  s.r = {1, 8, 2};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'R' has shape [1,8,2] but must be [1,2,8]");
  s = Small();
  s.w = {1, 8};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument, "input 'W' must have rank 3");
  s = Small();
  s.w_float = true;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'W' has type float; it must be int8 or uint8");
  s = Small();
  s.r_uint8 = true;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'R' has type uint8 but W has int8");
  s = Small();
  s.x_double = true;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'X' has type double; it must be float");
  s = Small();
  s.b = {1, 8};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'B' has shape [1,8] but must be [1,16]");
}

TEST(DynamicQuantizeLstmErrors, ScalesAndZeroPoints) {
  Small s;
  s.w_scale = {2};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'W_scale' has shape [2]; it must be [1] (per direction) or [1,8] (per "
                  "column)");
  s = Small();
  s.r_zero = {1, 4};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument, "input 'R_zero_point' has shape [1,4]");
  s = Small();
  s.w_zero_uint8 = true;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'W_zero_point' has type uint8 but W has int8");
  s = Small();
  s.r_scale_int = true;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'R_scale' has type int32; it must be float");
  s = Small();
  s.w_zero = {1, 8};
  s.w_zero_values = {0, 0, 0, 0, 0, 3, 0, 0};
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument,
                  "input 'W_zero_point' holds 3 at 5; per column it must hold 0");
  s = Small();
  s.w_zero = {1};
  s.w_zero_values = {3};  // per direction: any value
  EXPECT_NO_THROW(s.Build().Run());
  s = Small();
  s.inputs = 8;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument, "input 'W_scale' is required");
  s = Small();
  s.inputs = 11;
  ExpectNodeError(s.Build(), ErrorCode::kInvalidArgument, "input 'R_zero_point' is required");
}

// X's range needs numbers: a NaN fails, naming X, before any output is made.
TEST(DynamicQuantizeLstmErrors, NaNInX) {
  Spec s;
  Data data = MakeData(s);
  data.x[4] = std::nanf("");
  ExpectNodeError(MakeNode(s, data), ErrorCode::kInvalidArgument, "input 'X' element 4 is NaN");
}

TEST(DynamicQuantizeLstmErrors, PerColumnUint8ZeroPointsMustBeOneValue) {
  NodeTest t("DynamicQuantizeLSTM", 1, kMs);
  t.Attr("hidden_size", int64_t{1});
  t.Input<float>({1, 1, 1}, {0.5f});
  t.Input<uint8_t>({1, 1, 4}, {1, 2, 3, 4}).Input<uint8_t>({1, 1, 4}, {1, 2, 3, 4});
  t.MissingInput().MissingInput().MissingInput().MissingInput().MissingInput();
  t.Input<float>({1}, {0.01f}).Input<uint8_t>({1, 4}, {128, 128, 129, 128});
  t.Input<float>({1}, {0.01f}).Input<uint8_t>({1}, {128});
  ExpectNodeError(t, ErrorCode::kInvalidArgument,
                  "input 'W_zero_point' holds 129 at 2; per column it must hold one value (128 "
                  "first)");
}

}  // namespace
}  // namespace kiln::testing
