// com.microsoft Attention and QAttention against their definition in double: every mask_index
// form, the causal limit, past and present, attention_bias, a scale, unequal Q/V hidden sizes;
// QAttention's projection over uint8 × int8 with zero points and per-column weight scales; 1 and
// 2 threads; and the errors naming their input or attribute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using V = std::vector<int64_t>;
const char* const kMs = "com.microsoft";

std::vector<float> Floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f) * scale;
  }
  return v;
}

struct Case {
  int64_t b = 2, s = 4, d_in = 12, heads = 2, dq = 8, dv = 8, past = 0;
  std::string mask;  // "", "ends", "ends_starts", "keys", "query_keys", "megatron"
  bool unidirectional = false, attention_bias = false, present = false;
  float scale = 0.0f;
  bool quantized = false;
  bool constant_weight = true;  // QAttention's weight packed at creation, or per run
};

// The projection [B·S, 2·dq + dv] in double, and the reference output and present.
struct Reference {
  std::vector<double> out, present;
};

Reference Definition(const Case& c, const std::vector<double>& qkv, const std::vector<float>& past,
                     const std::vector<int32_t>& mask, const std::vector<float>& ab) {
  const int64_t hk = c.dq / c.heads, hv = c.dv / c.heads, t = c.past + c.s;
  const int64_t cols = 2 * c.dq + c.dv;
  const int64_t mega = 8;
  const double scale = c.scale != 0.0f ? c.scale : 1.0 / std::sqrt(static_cast<double>(hk));
  Reference r;
  r.out.assign(static_cast<size_t>(c.b * c.s * c.dv), 0.0);
  r.present.assign(static_cast<size_t>(2 * c.b * c.heads * t * hk), 0.0);
  for (int64_t b = 0; b < c.b; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      std::vector<double> k(static_cast<size_t>(t * hk)), v(static_cast<size_t>(t * hv));
      for (int64_t j = 0; j < t; ++j) {
        for (int64_t e = 0; e < hk; ++e) {
          k[static_cast<size_t>(j * hk + e)] =
              j < c.past
                  ? past[static_cast<size_t>(((0 * c.b + b) * c.heads + h) * c.past * hk + j * hk +
                                             e)]
                  : qkv[static_cast<size_t>((b * c.s + j - c.past) * cols + c.dq + h * hk + e)];
        }
        for (int64_t e = 0; e < hv; ++e) {
          v[static_cast<size_t>(j * hv + e)] =
              j < c.past
                  ? past[static_cast<size_t>(((1 * c.b + b) * c.heads + h) * c.past * hv + j * hv +
                                             e)]
                  : qkv[static_cast<size_t>((b * c.s + j - c.past) * cols + 2 * c.dq + h * hv + e)];
        }
      }
      if (hk == hv) {  // present has one head size
        for (size_t i = 0; i < k.size(); ++i)
          r.present[static_cast<size_t>((0 * c.b + b) * c.heads + h) * k.size() + i] = k[i];
        for (size_t i = 0; i < v.size(); ++i)
          r.present[static_cast<size_t>((1 * c.b + b) * c.heads + h) * v.size() + i] = v[i];
      }
      for (int64_t i = 0; i < c.s; ++i) {
        std::vector<double> sc(static_cast<size_t>(t));
        for (int64_t j = 0; j < t; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < hk; ++e) {
            dot += qkv[static_cast<size_t>((b * c.s + i) * cols + h * hk + e)] *
                   k[static_cast<size_t>(j * hk + e)];
          }
          double x = dot * scale;
          if (c.attention_bias) x += ab[static_cast<size_t>(((0 * c.heads + h) * c.s + i) * t + j)];
          bool hidden = false;
          if (c.mask == "ends") hidden = j >= mask[static_cast<size_t>(b)];
          if (c.mask == "ends_starts") {
            hidden = j >= mask[static_cast<size_t>(b)] || j < mask[static_cast<size_t>(c.b + b)];
          }
          if (c.mask == "keys") hidden = mask[static_cast<size_t>(b * t + j)] == 0;
          if (c.mask == "query_keys")
            hidden = mask[static_cast<size_t>((b * c.s + i) * t + j)] == 0;
          if (c.mask == "megatron") {
            hidden = mask[static_cast<size_t>((b * mega + c.past + i) * mega + j)] == 0;
          }
          if (hidden) x += -10000.0;
          if (c.unidirectional && j > c.past + i) x += -10000.0;
          sc[static_cast<size_t>(j)] = x;
        }
        const double m = *std::max_element(sc.begin(), sc.end());
        double sum = 0;
        for (double& x : sc) sum += (x = std::exp(x - m));
        for (int64_t e = 0; e < hv; ++e) {
          double o = 0;
          for (int64_t j = 0; j < t; ++j)
            o += sc[static_cast<size_t>(j)] / sum * v[static_cast<size_t>(j * hv + e)];
          r.out[static_cast<size_t>((b * c.s + i) * c.dv + h * hv + e)] = o;
        }
      }
    }
  }
  return r;
}

void Check(const Case& c, int threads) {
  const int64_t cols = 2 * c.dq + c.dv, t = c.past + c.s;
  const size_t rows = static_cast<size_t>(c.b * c.s);
  const auto bias = Floats(static_cast<size_t>(cols), 5, 0.5f);
  std::vector<double> qkv(rows * static_cast<size_t>(cols));
  NodeTest node(c.quantized ? "QAttention" : "Attention", 1, kMs);
  node.Attr("num_heads", c.heads);
  if (c.unidirectional) node.Attr("unidirectional", int64_t{1});
  if (c.scale != 0.0f) node.Attr("scale", c.scale);
  if (!c.quantized && c.dq != c.dv) node.Attr("qkv_hidden_sizes", V{c.dq, c.dq, c.dv});
  if (!c.quantized) {
    const auto x = Floats(rows * static_cast<size_t>(c.d_in), 1);
    const auto w = Floats(static_cast<size_t>(c.d_in * cols), 3);
    for (size_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        double s = bias[static_cast<size_t>(j)];
        for (int64_t p = 0; p < c.d_in; ++p)
          s += static_cast<double>(x[r * static_cast<size_t>(c.d_in) + static_cast<size_t>(p)]) *
               w[static_cast<size_t>(p * cols + j)];
        qkv[r * static_cast<size_t>(cols) + static_cast<size_t>(j)] = s;
      }
    }
    node.Input<float>({c.b, c.s, c.d_in}, x).Input<float>({c.d_in, cols}, w, true);
    node.Input<float>({cols}, bias, true);
  } else {
    std::vector<uint8_t> x(rows * static_cast<size_t>(c.d_in));
    std::vector<int8_t> w(static_cast<size_t>(c.d_in * cols));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>((i * 53 + 7) % 255 - 127);
    std::vector<float> ws(static_cast<size_t>(cols));
    std::vector<int8_t> wz(static_cast<size_t>(cols));
    for (size_t j = 0; j < ws.size(); ++j) {
      ws[j] = 0.001f + 0.0001f * static_cast<float>(j % 9);
      wz[j] = static_cast<int8_t>(j % 5) - 2;
    }
    const float xs = 0.02f;
    const uint8_t xz = 120;
    for (size_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < c.d_in; ++p) {
          acc += (int64_t{x[r * static_cast<size_t>(c.d_in) + static_cast<size_t>(p)]} - xz) *
                 (int64_t{w[static_cast<size_t>(p * cols + j)]} - wz[static_cast<size_t>(j)]);
        }
        qkv[r * static_cast<size_t>(cols) + static_cast<size_t>(j)] =
            static_cast<double>(acc) * xs * ws[static_cast<size_t>(j)] +
            bias[static_cast<size_t>(j)];
      }
    }
    node.Input<uint8_t>({c.b, c.s, c.d_in}, x).Input<int8_t>({c.d_in, cols}, w, c.constant_weight);
    node.Input<float>({cols}, bias, true).Input<float>({}, {xs}).Input<float>({cols}, ws, true);
  }
  // mask_index
  std::vector<int32_t> mask;
  V mask_dims;
  if (c.mask == "ends") {
    mask = {static_cast<int32_t>(t - 1), static_cast<int32_t>(t)};
    mask_dims = {c.b};
  } else if (c.mask == "ends_starts") {
    mask = {static_cast<int32_t>(t), static_cast<int32_t>(t - 1), 1, 0};
    mask_dims = {2 * c.b};
  } else if (c.mask == "keys") {
    for (int64_t i = 0; i < c.b * t; ++i) mask.push_back(i % 3 == 1 ? 0 : 1);
    mask_dims = {c.b, t};
  } else if (c.mask == "query_keys") {
    for (int64_t i = 0; i < c.b * c.s * t; ++i) mask.push_back(i % 4 == 2 ? 0 : 1);
    mask_dims = {c.b, c.s, t};
  } else if (c.mask == "megatron") {
    for (int64_t i = 0; i < c.b * 64; ++i) mask.push_back((i / 8) >= (i % 8) ? 1 : 0);
    mask_dims = {c.b, 1, 8, 8};
  }
  if (mask.empty()) {
    node.MissingInput();
  } else {
    node.Input<int32_t>(mask_dims, mask);
  }
  if (c.quantized) {
    node.Input<uint8_t>({}, {120});
    std::vector<int8_t> wz(static_cast<size_t>(cols));
    for (size_t j = 0; j < wz.size(); ++j) wz[j] = static_cast<int8_t>(j % 5) - 2;
    node.Input<int8_t>({cols}, wz, true);
  }
  const int64_t hk = c.dq / c.heads;
  const auto past = Floats(static_cast<size_t>(2 * c.b * c.heads * c.past * hk), 9);
  if (c.past > 0) {
    node.Input<float>({2, c.b, c.heads, c.past, hk}, past);
  } else if (c.attention_bias) {
    node.MissingInput();
  }
  const auto ab = Floats(static_cast<size_t>(c.heads * c.s * t), 13, 2.0f);
  if (c.attention_bias) node.Input<float>({1, c.heads, c.s, t}, ab);
  node.Outputs(2, c.present ? std::vector<size_t>{} : std::vector<size_t>{1});
  auto out = node.Run(threads);
  const Reference want = Definition(c, qkv, past, mask, ab);
  ASSERT_EQ(out[0]->shape(), Shape({c.b, c.s, c.dv}));
  const auto got = Values<float>(*out[0]);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want.out[i], 2e-5 * (1.0 + std::abs(want.out[i])))
        << "mask '" << c.mask << "' past " << c.past << " element " << i;
  }
  if (c.present) {
    ASSERT_EQ(out[1]->shape(), Shape({2, c.b, c.heads, t, hk}));
    const auto p = Values<float>(*out[1]);
    for (size_t i = 0; i < p.size(); ++i) {
      ASSERT_NEAR(p[i], want.present[i], 2e-5 * (1.0 + std::abs(want.present[i]))) << i;
    }
  }
}

TEST(ContribAttention, MatchesTheDefinition) {
  std::vector<Case> cases;
  cases.push_back({});
  Case c;
  c.mask = "ends";
  c.unidirectional = true;
  cases.push_back(c);
  c = {};
  c.mask = "ends_starts";
  cases.push_back(c);
  c = {};
  c.mask = "keys";
  c.past = 3;
  c.present = true;
  cases.push_back(c);
  c = {};
  c.mask = "query_keys";
  c.unidirectional = true;
  c.past = 2;
  cases.push_back(c);
  c = {};
  c.mask = "megatron";
  c.past = 1;
  cases.push_back(c);
  c = {};
  c.attention_bias = true;
  c.scale = 0.3f;
  cases.push_back(c);
  c = {};
  c.dv = 12;
  c.heads = 4;
  cases.push_back(c);
  c = {};
  c.quantized = true;
  c.mask = "keys";
  c.past = 2;
  c.present = true;
  cases.push_back(c);
  c = {};
  c.quantized = true;
  c.unidirectional = true;
  cases.push_back(c);
  c.constant_weight = false;
  cases.push_back(c);
  for (const Case& k : cases) {
    for (int threads : {1, 2}) Check(k, threads);
  }
}

TEST(ContribAttention, Errors) {
  const std::vector<float> x(2 * 3 * 4, 0.5f), w(4 * 12, 0.1f), bias(12, 0.0f);
  auto node = [&](int64_t heads) {
    NodeTest t("Attention", 1, kMs);
    t.Attr("num_heads", heads).Input<float>({2, 3, 4}, x).Input<float>({4, 12}, w);
    return t;
  };
  ExpectNodeError(node(3), ErrorCode::kInvalidArgument, "num_heads");
  ExpectNodeError(std::move(node(2).Input<float>({12}, bias).Input<int32_t>({5}, {1, 2, 3, 4, 5})),
                  ErrorCode::kInvalidArgument, "mask_index");
  ExpectNodeError(std::move(node(2).Input<float>({11}, std::vector<float>(11, 0.0f))),
                  ErrorCode::kInvalidArgument, "input 'bias'");
  ExpectNodeError(std::move(node(2).Attr("do_rotary", int64_t{1})), ErrorCode::kNotImplemented,
                  "do_rotary");
  ExpectNodeError(std::move(NodeTest("Attention", 1, kMs)
                                .Attr("num_heads", int64_t{2})
                                .Input<float>({2, 3, 4}, x)
                                .Input<float>({5, 12}, std::vector<float>(60, 0.1f))),
                  ErrorCode::kInvalidArgument, "weights");
  ExpectNodeError(std::move(NodeTest("Attention", 1, kMs)
                                .Attr("num_heads", int64_t{2})
                                .Attr("qkv_hidden_sizes", V{4, 4, 8})
                                .Input<float>({2, 3, 4}, x)
                                .Input<float>({4, 16}, std::vector<float>(64, 0.1f))
                                .Outputs(2)),
                  ErrorCode::kInvalidArgument, "present");
  ExpectNodeError(std::move(NodeTest("QAttention", 1, kMs)
                                .Attr("num_heads", int64_t{2})
                                .Input<uint8_t>({2, 3, 4}, std::vector<uint8_t>(24, 1))
                                .Input<int8_t>({4, 12}, std::vector<int8_t>(48, 1))
                                .Input<float>({12}, bias)
                                .Input<float>({2}, {0.1f, 0.2f})
                                .Input<float>({}, {0.1f})),
                  ErrorCode::kInvalidArgument, "input_scale");
}

}  // namespace
}  // namespace kiln::testing
