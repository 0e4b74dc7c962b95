// Attention: numbers against a naive reference computed here (4D and 3D, GQA, masks, causal,
// past/present, softcap, the qk_matmul_output modes, nonpad_kv_seqlen, two threads), fully masked
// rows, empty inputs and every error the kernel raises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

F Ramp(int64_t n, float step, float offset = 0.0f) {
  F v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * step + offset);
  return v;
}

// The problem in 4D [B, H, S, D] layout.
struct Case {
  int64_t b = 2, hq = 4, hkv = 2, sq = 3, skv = 5, past = 0, dk = 4, dv = 6;
  bool causal = false;
  float softcap = 0.0f;
  std::optional<float> scale;
  std::vector<int64_t> mask_dims;  // empty: no mask; a float mask
  std::vector<int64_t> nonpad;     // empty: none
  F Q() const { return Ramp((b * hq * sq * dk), 0.37f); }
  F K() const { return Ramp((b * hkv * skv * dk), 0.53f, 1.0f); }
  F V() const { return Ramp((b * hkv * skv * dv), 0.29f, 2.0f); }
  F PK() const { return Ramp((b * hkv * past * dk), 0.41f, 3.0f); }
  F PV() const { return Ramp((b * hkv * past * dv), 0.31f, 4.0f); }
  F Mask() const {
    size_t n = 1;
    for (int64_t d : mask_dims) n *= static_cast<size_t>(d);
    F m = Ramp(static_cast<int64_t>(n), 0.77f, 5.0f);
    m[0] = -kInf;
    return m;
  }
};

// Y [B, Hq, Sq, Dv] and the scores at every stage (mode 0..3), [B, Hq, Sq, T] each.
struct Expected {
  F y;
  F stages[4];
};

Expected Reference(const Case& c) {
  const int64_t t = c.past + c.skv;
  const F q = c.Q(), k = c.K(), v = c.V(), pk = c.PK(), pv = c.PV(), mask = c.Mask();
  auto key = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.past ? pk[((b * c.hkv + h) * c.past + j) * c.dk + d]
                      : k[((b * c.hkv + h) * c.skv + (j - c.past)) * c.dk + d];
  };
  auto value = [&](int64_t b, int64_t h, int64_t j, int64_t d) {
    return j < c.past ? pv[((b * c.hkv + h) * c.past + j) * c.dv + d]
                      : v[((b * c.hkv + h) * c.skv + (j - c.past)) * c.dv + d];
  };
  const float scale = c.scale ? *c.scale : 1.0f / std::sqrt(static_cast<float>(c.dk));
  Expected e;
  e.y.assign(static_cast<size_t>(c.b * c.hq * c.sq * c.dv), 0.0f);
  for (F& s : e.stages) s.assign(static_cast<size_t>(c.b * c.hq * c.sq * t), 0.0f);
  for (int64_t b = 0; b < c.b; ++b) {
    for (int64_t h = 0; h < c.hq; ++h) {
      const int64_t kh = h / (c.hq / c.hkv);
      for (int64_t i = 0; i < c.sq; ++i) {
        std::vector<double> row(static_cast<size_t>(t));
        const size_t base = static_cast<size_t>(((b * c.hq + h) * c.sq + i) * t);
        for (int64_t j = 0; j < t; ++j) {
          double s = 0;
          for (int64_t d = 0; d < c.dk; ++d) {
            s += q[((b * c.hq + h) * c.sq + i) * c.dk + d] * key(b, kh, j, d);
          }
          s *= scale;
          e.stages[0][base + j] = static_cast<float>(s);
          if (c.softcap > 0) s = c.softcap * std::tanh(s / c.softcap);
          e.stages[1][base + j] = static_cast<float>(s);
          if (!c.mask_dims.empty()) {
            // Broadcast [.., L] right-aligned onto [B, Hq, Sq, L].
            const size_t r = c.mask_dims.size();
            const int64_t idx4[4] = {b, h, i, j};
            int64_t off = 0;
            bool in = true;
            for (size_t a = 0; a < r; ++a) {
              const int64_t dim = c.mask_dims[a];
              const int64_t x = idx4[4 - r + a];
              if (a + 1 == r && x >= dim) in = false;
              off = off * dim + (dim == 1 ? 0 : x);
            }
            if (in) {
              s += mask[static_cast<size_t>(off)];
            } else {
              s = -kInfD;  // a key past the mask's length
            }
          }
          int64_t offset = c.past;
          if (c.past == 0 && !c.nonpad.empty()) offset = c.nonpad[b] - c.sq;
          if (c.causal && j > i + offset) s = -kInfD;
          if (!c.nonpad.empty() && j >= c.nonpad[b]) s = -kInfD;
          e.stages[2][base + j] = static_cast<float>(s);
          row[j] = s;
        }
        double mx = -kInfD;
        for (double s : row) mx = std::max(mx, s);
        double sum = 0;
        for (double& s : row) {
          s = mx == -kInfD ? 0.0 : std::exp(s - mx);
          sum += s;
        }
        for (int64_t j = 0; j < t; ++j) {
          const double p = sum > 0 ? row[j] / sum : 0.0;
          e.stages[3][base + j] = static_cast<float>(p);
          for (int64_t d = 0; d < c.dv; ++d) {
            e.y[((b * c.hq + h) * c.sq + i) * c.dv + d] +=
                static_cast<float>(p * value(b, kh, j, d));
          }
        }
      }
    }
  }
  return e;
}

void ExpectNear(const F& got, const F& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol) << i;
    }
  }
}

NodeTest Make4D(const Case& c, int64_t mode = 0, int64_t opset = 23) {
  NodeTest t("Attention", opset);
  t.Input<float>({c.b, c.hq, c.sq, c.dk}, c.Q())
      .Input<float>({c.b, c.hkv, c.skv, c.dk}, c.K())
      .Input<float>({c.b, c.hkv, c.skv, c.dv}, c.V());
  if (c.mask_dims.empty()) {
    t.MissingInput();
  } else {
    t.Input<float>(c.mask_dims, c.Mask());
  }
  if (c.past > 0) {
    t.Input<float>({c.b, c.hkv, c.past, c.dk}, c.PK())
        .Input<float>({c.b, c.hkv, c.past, c.dv}, c.PV());
  } else {
    t.MissingInput().MissingInput();
  }
  if (!c.nonpad.empty()) t.Input<int64_t>({c.b}, c.nonpad);
  if (c.causal) t.Attr("is_causal", int64_t{1});
  if (c.softcap > 0) t.Attr("softcap", c.softcap);
  if (c.scale) t.Attr("scale", *c.scale);
  t.Attr("qk_matmul_output_mode", mode).Outputs(4);
  return t;
}

void Check(const Case& c, int threads = 1) {
  const Expected e = Reference(c);
  for (int64_t mode = 0; mode < 4; ++mode) {
    auto out = Make4D(c, mode, c.nonpad.empty() ? 23 : 24).Run(threads);
    ExpectNear(Values<float>(*out[0]), e.y);
    ExpectNear(Values<float>(*out[3]), e.stages[mode]);
    EXPECT_EQ(out[1]->shape().dims(), (std::vector<int64_t>{c.b, c.hkv, c.past + c.skv, c.dk}));
    EXPECT_EQ(out[2]->shape().dims(), (std::vector<int64_t>{c.b, c.hkv, c.past + c.skv, c.dv}));
  }
}

TEST(Attention, PlainGqaAgainstReference) {
  Check(Case{});
}

TEST(Attention, MaskCausalSoftcapScaleAgainstReference) {
  Case c;
  c.mask_dims = {2, 1, 3, 4};  // shorter than the keys: the last one is masked
  c.causal = true;
  c.softcap = 0.5f;
  c.scale = 0.3f;
  Check(c);
  c.mask_dims = {3, 5};
  Check(c, 2);
}

TEST(Attention, PastAndPresentAgainstReference) {
  Case c;
  c.past = 3;
  c.causal = true;
  c.mask_dims = {1, 4, 1, 8};
  Check(c, 2);
  auto out = Make4D(c).Run();
  // present_key is past_key followed by K, head by head.
  const F pk = c.PK(), k = c.K(), got = Values<float>(*out[1]);
  EXPECT_EQ(got[0], pk[0]);
  EXPECT_EQ(got[static_cast<size_t>(c.past * c.dk)], k[0]);
}

TEST(Attention, NonpadKvSeqlenAgainstReference) {
  Case c;
  c.nonpad = {2, 5};
  c.causal = true;
  Check(c);
  c.causal = false;
  c.nonpad = {0, 4};  // batch 0 sees no key: its outputs are 0
  Check(c);
}

TEST(Attention, FullyMaskedBoolRowGivesZeros) {
  auto out = NodeTest("Attention", 23)
                 .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                 .Input<float>({1, 1, 2, 2}, {1, 0, 0, 1})
                 .Input<float>({1, 1, 2, 2}, {5, 6, 7, 8})
                 .Input<bool>({2, 2}, {false, false, true, false})
                 .Attr("qk_matmul_output_mode", int64_t{3})
                 .Outputs(4, {1, 2})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{0, 0, 5, 6}));
  EXPECT_EQ(Values<float>(*out[3]), (F{0, 0, 1, 0}));
}

TEST(Attention, ThreeDMatchesFourD) {
  // 3D [B, S, H·D] is the 4D problem with heads and sequence swapped.
  Case c;
  c.causal = true;
  const Expected e = Reference(c);
  auto to3d = [](const F& x, int64_t b, int64_t h, int64_t s, int64_t d) {
    F y(x.size());
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < h; ++j)
        for (int64_t k = 0; k < s; ++k)
          for (int64_t l = 0; l < d; ++l) {
            y[((i * s + k) * h + j) * d + l] = x[((i * h + j) * s + k) * d + l];
          }
    return y;
  };
  auto out = NodeTest("Attention", 23)
                 .Input<float>({c.b, c.sq, c.hq * c.dk}, to3d(c.Q(), c.b, c.hq, c.sq, c.dk))
                 .Input<float>({c.b, c.skv, c.hkv * c.dk}, to3d(c.K(), c.b, c.hkv, c.skv, c.dk))
                 .Input<float>({c.b, c.skv, c.hkv * c.dv}, to3d(c.V(), c.b, c.hkv, c.skv, c.dv))
                 .Attr("q_num_heads", c.hq)
                 .Attr("kv_num_heads", c.hkv)
                 .Attr("is_causal", int64_t{1})
                 .Run(2);
  EXPECT_EQ(out[0]->shape().dims(), (std::vector<int64_t>{c.b, c.sq, c.hq * c.dv}));
  ExpectNear(Values<float>(*out[0]), to3d(e.y, c.b, c.hq, c.sq, c.dv));
}

TEST(Attention, Float16ComputesInFloat) {
  const std::vector<Float16> q = {Float16::FromFloat(1), Float16::FromFloat(0)};
  const std::vector<Float16> k = {Float16::FromFloat(1), Float16::FromFloat(0),
                                  Float16::FromFloat(0), Float16::FromFloat(1)};
  const std::vector<Float16> v = {Float16::FromFloat(2), Float16::FromFloat(4)};
  auto out = NodeTest("Attention", 23)
                 .Input<Float16>({1, 1, 1, 2}, q)
                 .Input<Float16>({1, 1, 2, 2}, k)
                 .Input<Float16>({1, 1, 2, 1}, v)
                 .Attr("scale", 1.0f)
                 .Run();
  // softmax([1, 0]) · [2, 4] = 2 + 2 / (1 + e)
  const float want = 2.0f + 2.0f / (1.0f + std::exp(1.0f));
  EXPECT_NEAR(Values<Float16>(*out[0])[0].ToFloat(), want, 2e-3f);
}

TEST(Attention, EmptyInputs) {
  auto no_queries = NodeTest("Attention", 23)
                        .Input<float>({1, 1, 0, 2}, {})
                        .Input<float>({1, 1, 2, 2}, {1, 2, 3, 4})
                        .Input<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})
                        .Run();
  EXPECT_EQ(no_queries[0]->shape().dims(), (std::vector<int64_t>{1, 1, 0, 3}));
  auto no_keys = NodeTest("Attention", 23)
                     .Input<float>({1, 1, 1, 2}, {1, 2})
                     .Input<float>({1, 1, 0, 2}, {})
                     .Input<float>({1, 1, 0, 3}, {})
                     .Run();
  EXPECT_EQ(Values<float>(*no_keys[0]), (F{0, 0, 0}));
}

NodeTest Small(int64_t opset = 23) {
  NodeTest t("Attention", opset);
  t.Input<float>({1, 2, 2, 2}, F(8, 1.0f))
      .Input<float>({1, 1, 3, 2}, F(6, 1.0f))
      .Input<float>({1, 1, 3, 2}, F(6, 1.0f));
  return t;
}

TEST(Attention, Errors) {
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({2, 2}, F(4))
                      .Input<float>({2, 2}, F(4))
                      .Input<float>({2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "input 'Q' has shape [2,2]");
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({1, 2, 2, 2}, F(8))
                      .Input<float>({1, 2, 2}, F(4))
                      .Input<float>({1, 1, 2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "input 'K' has shape [1,2,2]");
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({1, 2, 2, 2}, F(8))
                      .Input<float>({1, 1, 2, 3}, F(6))
                      .Input<float>({1, 1, 2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "different head sizes");
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({1, 3, 2, 2}, F(12))
                      .Input<float>({1, 2, 2, 2}, F(8))
                      .Input<float>({1, 2, 2, 2}, F(8)),
                  ErrorCode::kInvalidArgument, "not a multiple");
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 4}, F(8)),
                  ErrorCode::kInvalidArgument, "'q_num_heads'");
  ExpectNodeError(NodeTest("Attention", 23)
                      .Input<float>({1, 2, 2, 2}, F(8))
                      .Input<double>({1, 1, 3, 2}, std::vector<double>(6))
                      .Input<float>({1, 1, 3, 2}, F(6)),
                  ErrorCode::kInvalidArgument, "input 'K' is double");
  ExpectNodeError(Small().Input<float>({3, 3}, F(9)), ErrorCode::kInvalidArgument,
                  "input 'attn_mask' has shape [3,3]");
  ExpectNodeError(Small().Input<float>({1, 3, 2, 3}, F(18)), ErrorCode::kInvalidArgument,
                  "input 'attn_mask' has shape [1,3,2,3]");
  ExpectNodeError(Small().MissingInput().Input<float>({1, 1, 1, 2}, F(2)),
                  ErrorCode::kInvalidArgument, "'past_key' and 'past_value'");
  ExpectNodeError(
      Small().MissingInput().Input<float>({1, 2, 1, 2}, F(4)).Input<float>({1, 2, 1, 2}, F(4)),
      ErrorCode::kInvalidArgument, "input 'past_key' has shape [1,2,1,2]");
  ExpectNodeError(
      Small().MissingInput().Input<float>({1, 1, 1, 2}, F(2)).Input<float>({1, 1, 2, 2}, F(4)),
      ErrorCode::kInvalidArgument, "input 'past_value' has shape [1,1,2,2]");
  ExpectNodeError(Small(24).MissingInput().MissingInput().MissingInput().Input<int64_t>({1}, {4}),
                  ErrorCode::kInvalidArgument, "input 'nonpad_kv_seqlen' holds 4");
  ExpectNodeError(Small(24).MissingInput().MissingInput().MissingInput().Input<int32_t>({1}, {1}),
                  ErrorCode::kInvalidArgument, "input 'nonpad_kv_seqlen' is int32");
  ExpectNodeError(Small(23).MissingInput().MissingInput().MissingInput().Input<int64_t>({1}, {1}),
                  ErrorCode::kInvalidGraph, "needs opset 24");
  ExpectNodeError(Small().Attr("qk_matmul_output_mode", int64_t{4}), ErrorCode::kInvalidGraph,
                  "attribute 'qk_matmul_output_mode' is 4");
  ExpectNodeError(Small().Attr("is_causal", int64_t{2}), ErrorCode::kInvalidGraph,
                  "attribute 'is_causal' is 2");
  ExpectNodeError(Small().Attr("softcap", -1.0f), ErrorCode::kInvalidGraph, "attribute 'softcap'");
  ExpectNodeError(Small().Attr("softmax_precision", int64_t{6}), ErrorCode::kInvalidGraph,
                  "attribute 'softmax_precision' is 6");
}

}  // namespace
}  // namespace kiln::testing
