// RotaryEmbedding, TensorScatter, CausalConvWithState and LinearAttention: numbers against
// references computed here, edge cases and every error the kernels raise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/test_errors.h"
#include "kernels/test_util.h"

namespace kiln::testing {
namespace {

using F = std::vector<float>;

F Ramp(int64_t n, float step, float offset = 0.0f) {
  F v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i) * step + offset);
  return v;
}

void ExpectNear(const F& got, const F& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << i;
}

// ---- RotaryEmbedding ----

// x [B, H, S, D] rotated over its first `rot` features, caches indexed by position.
F RotaryReference(const F& x, const F& cos, const F& sin, const std::vector<int64_t>& pos,
                  int64_t b, int64_t h, int64_t s, int64_t d, int64_t rot, bool interleaved) {
  F y = x;
  const int64_t half = rot / 2;
  for (int64_t i = 0; i < b; ++i)
    for (int64_t j = 0; j < h; ++j)
      for (int64_t k = 0; k < s; ++k) {
        const int64_t p = pos[i * s + k];
        const int64_t off = ((i * h + j) * s + k) * d;
        for (int64_t r = 0; r < half; ++r) {
          const int64_t a = interleaved ? 2 * r : r;
          const int64_t c = interleaved ? 2 * r + 1 : r + half;
          y[off + a] = cos[p * half + r] * x[off + a] - sin[p * half + r] * x[off + c];
          y[off + c] = sin[p * half + r] * x[off + a] + cos[p * half + r] * x[off + c];
        }
      }
  return y;
}

TEST(RotaryEmbedding, FourDAgainstReference) {
  const F x = Ramp(int64_t{2} * 3 * 4 * 8, 0.3f);
  const F cos = Ramp(int64_t{10} * 2, 0.7f, 1.0f);
  const F sin = Ramp(int64_t{10} * 2, 0.9f, 2.0f);
  const std::vector<int64_t> pos = {0, 3, 9, 1, 2, 4, 5, 6};
  for (int64_t interleaved : {0, 1}) {
    auto out = NodeTest("RotaryEmbedding", 23)
                   .Input<float>({2, 3, 4, 8}, x)
                   .Input<float>({10, 2}, cos)
                   .Input<float>({10, 2}, sin)
                   .Input<int64_t>({2, 4}, pos)
                   .Attr("interleaved", interleaved)
                   .Attr("rotary_embedding_dim", int64_t{4})
                   .Run();
    ExpectNear(Values<float>(*out[0]),
               RotaryReference(x, cos, sin, pos, 2, 3, 4, 8, 4, interleaved != 0));
  }
}

TEST(RotaryEmbedding, ThreeDWithoutPositionIds) {
  // [B=1, S=2, H=2·D=2]: caches [B, S, 1]; rotating (1, 0) by 90° gives (0, 1).
  auto out = NodeTest("RotaryEmbedding", 23)
                 .Input<float>({1, 2, 4}, {1, 0, 2, 3, 1, 0, 1, 1})
                 .Input<float>({1, 2, 1}, {0, 1})
                 .Input<float>({1, 2, 1}, {1, 0})
                 .Attr("num_heads", int64_t{2})
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{0, 1, -3, 2, 1, 0, 1, 1}));
}

// com.microsoft RotaryEmbedding: inputs (input, position_ids, cos_cache, sin_cache); position_ids
// [B, S], or [1] holding the first position; a 3-D input without num_heads takes its head size
// from the caches.
TEST(RotaryEmbedding, MicrosoftForm) {
  const F x = Ramp(int64_t{2} * 3 * 4 * 8, 0.3f);
  const F cos = Ramp(int64_t{10} * 4, 0.7f, 1.0f);
  const F sin = Ramp(int64_t{10} * 4, 0.9f, 2.0f);
  const std::vector<int64_t> pos = {0, 3, 9, 1, 2, 4, 5, 6};
  auto by_ids = NodeTest("RotaryEmbedding", 1, "com.microsoft")
                    .Input<float>({2, 3, 4, 8}, x)
                    .Input<int64_t>({2, 4}, pos)
                    .Input<float>({10, 4}, cos)
                    .Input<float>({10, 4}, sin)
                    .Run();
  ExpectNear(Values<float>(*by_ids[0]), RotaryReference(x, cos, sin, pos, 2, 3, 4, 8, 8, false));
  auto from_offset = NodeTest("RotaryEmbedding", 1, "com.microsoft")
                         .Input<float>({2, 3, 4, 8}, x)
                         .Input<int64_t>({1}, {5})
                         .Input<float>({10, 4}, cos)
                         .Input<float>({10, 4}, sin)
                         .Attr("interleaved", int64_t{1})
                         .Run();
  ExpectNear(Values<float>(*from_offset[0]),
             RotaryReference(x, cos, sin, {5, 6, 7, 8, 5, 6, 7, 8}, 2, 3, 4, 8, 8, true));
  // 3-D [B=1, S=2, 2 heads of 2]: the head size 2 comes from the caches [P, 1].
  auto three_d = NodeTest("RotaryEmbedding", 1, "com.microsoft")
                     .Input<float>({1, 2, 4}, {1, 0, 2, 3, 1, 0, 1, 1})
                     .Input<int64_t>({1}, {0})
                     .Input<float>({2, 1}, {0, 1})
                     .Input<float>({2, 1}, {1, 0})
                     .Run();
  EXPECT_EQ(Values<float>(*three_d[0]), (F{0, 1, -3, 2, 1, 0, 1, 1}));
  ExpectNodeError(NodeTest("RotaryEmbedding", 1, "com.microsoft")
                      .Input<float>({2, 3, 4, 8}, x)
                      .Input<int64_t>({1}, {7})
                      .Input<float>({10, 4}, cos)
                      .Input<float>({10, 4}, sin),
                  ErrorCode::kInvalidArgument,
                  "starts at 7; 4 positions from it must be in [0, 10)");
  ExpectNodeError(NodeTest("RotaryEmbedding", 1, "com.microsoft")
                      .Input<float>({2, 3, 4, 8}, x)
                      .Input<int64_t>({1}, {std::numeric_limits<int64_t>::max() - 1})
                      .Input<float>({10, 4}, cos)
                      .Input<float>({10, 4}, sin),
                  ErrorCode::kInvalidArgument, "4 positions from it must be in [0, 10)");
}

TEST(RotaryEmbedding, Errors) {
  auto base = [] {
    NodeTest t("RotaryEmbedding", 23);
    t.Input<float>({1, 1, 2, 4}, F(8, 1.0f));
    return t;
  };
  ExpectNodeError(
      base().Input<float>({4, 2}, F(8)).Input<float>({4, 2}, F(8)).Input<int64_t>({1, 2}, {0, 4}),
      ErrorCode::kInvalidArgument, "input 'position_ids' holds 4");
  ExpectNodeError(
      base().Input<float>({4, 2}, F(8)).Input<float>({4, 2}, F(8)).Input<int64_t>({2, 1}, {0, 1}),
      ErrorCode::kInvalidArgument, "input 'position_ids' has shape [2,1]");
  ExpectNodeError(
      base().Input<float>({4, 3}, F(12)).Input<float>({4, 3}, F(12)).Input<int64_t>({1, 2}, {0, 1}),
      ErrorCode::kInvalidArgument, "input 'cos_cache' has shape [4,3]");
  ExpectNodeError(base().Input<float>({4, 2}, F(8)).Input<float>({2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "have different shapes");
  ExpectNodeError(NodeTest("RotaryEmbedding", 23)
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 2}, F(4))
                      .Input<float>({1, 2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "'num_heads'");
  ExpectNodeError(NodeTest("RotaryEmbedding", 23)
                      .Input<float>({4}, F(4))
                      .Input<float>({1, 2}, F(2))
                      .Input<float>({1, 2}, F(2)),
                  ErrorCode::kInvalidArgument, "input 'input' has shape [4]");
  ExpectNodeError(base().Attr("rotary_embedding_dim", int64_t{3}), ErrorCode::kInvalidGraph,
                  "attribute 'rotary_embedding_dim' is 3");
  ExpectNodeError(base()
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 4}, F(8))
                      .Attr("rotary_embedding_dim", int64_t{8}),
                  ErrorCode::kInvalidArgument, "attribute 'rotary_embedding_dim' 8");
  ExpectNodeError(base().Attr("interleaved", int64_t{2}), ErrorCode::kInvalidGraph,
                  "attribute 'interleaved' is 2");
}

// ---- TensorScatter ----

TEST(TensorScatter, LinearAndCircular) {
  // cache [B=2, L=3, 1], update of length 2.
  const F cache = {1, 2, 3, 4, 5, 6};
  const F update = {10, 11, 20, 21};
  auto linear = NodeTest("TensorScatter", 24)
                    .Input<float>({2, 3, 1}, cache)
                    .Input<float>({2, 2, 1}, update)
                    .Input<int64_t>({2}, {1, 0})
                    .Run();
  EXPECT_EQ(Values<float>(*linear[0]), (F{1, 10, 11, 20, 21, 6}));
  auto circular = NodeTest("TensorScatter", 24)
                      .Input<float>({2, 3, 1}, cache)
                      .Input<float>({2, 2, 1}, update)
                      .Input<int64_t>({2}, {2, 0})
                      .Attr("mode", "circular")
                      .Run();
  EXPECT_EQ(Values<float>(*circular[0]), (F{11, 2, 10, 20, 21, 6}));
  auto no_indices = NodeTest("TensorScatter", 24)
                        .Input<int32_t>({1, 2, 2}, {1, 2, 3, 4})
                        .Input<int32_t>({1, 1, 2}, {7, 8})
                        .Run();
  EXPECT_EQ(Values<int32_t>(*no_indices[0]), (std::vector<int32_t>{7, 8, 3, 4}));
  auto empty = NodeTest("TensorScatter", 24)
                   .Input<float>({1, 2, 1}, {1, 2})
                   .Input<float>({1, 0, 1}, {})
                   .Run();
  EXPECT_EQ(Values<float>(*empty[0]), (F{1, 2}));
}

TEST(TensorScatter, Errors) {
  auto base = [] {
    NodeTest t("TensorScatter", 24);
    t.Input<float>({2, 3, 1}, F(6));
    return t;
  };
  ExpectNodeError(base().Input<float>({2, 4, 1}, F(8)), ErrorCode::kInvalidArgument,
                  "input 'update' has shape [2,4,1]");
  ExpectNodeError(base().Input<float>({2, 2, 1}, F(4)).Input<int64_t>({2}, {2, 0}),
                  ErrorCode::kInvalidArgument, "input 'write_indices' holds 2");
  ExpectNodeError(base().Input<float>({2, 2, 1}, F(4)).Input<int64_t>({3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument, "input 'write_indices' has shape [3]");
  ExpectNodeError(
      base().Input<float>({2, 2, 1}, F(4)).Input<int64_t>({2}, {3, 0}).Attr("mode", "circular"),
      ErrorCode::kInvalidArgument, "input 'write_indices' holds 3");
  ExpectNodeError(base().Input<float>({2, 2, 1}, F(4)).Attr("axis", int64_t{0}),
                  ErrorCode::kInvalidArgument, "attribute 'axis'");
  ExpectNodeError(base().Input<float>({2, 2, 1}, F(4)).Attr("mode", "ring"),
                  ErrorCode::kInvalidGraph, "attribute 'mode' is 'ring'");
  ExpectNodeError(base().Input<double>({2, 2, 1}, std::vector<double>(4)),
                  ErrorCode::kInvalidArgument, "input 'update' is double");
}

// ---- CausalConvWithState ----

TEST(CausalConvWithState, AgainstReferenceWithStateBiasAndSilu) {
  // B=1, C=2, L=3, K=3.
  const F x = {1, 2, 3, 4, 5, 6};
  const F w = {1, 0.5f, -1, 2, 0, 1};
  const F past = {7, 8, -1, -2};
  const F bias = {0.25f, -0.5f};
  F want(6);
  for (size_t c = 0; c < 2; ++c) {
    const F padded = {past[c * 2], past[c * 2 + 1], x[c * 3], x[c * 3 + 1], x[c * 3 + 2]};
    for (size_t t = 0; t < 3; ++t) {
      float acc = bias[c];
      for (size_t j = 0; j < 3; ++j) acc += w[c * 3 + j] * padded[t + j];
      want[c * 3 + t] = acc / (1.0f + std::exp(-acc));
    }
  }
  auto out = NodeTest("CausalConvWithState", 27)
                 .Input<float>({1, 2, 3}, x)
                 .Input<float>({2, 1, 3}, w)
                 .Input<float>({2}, bias)
                 .Input<float>({1, 2, 2}, past)
                 .Attr("activation", "silu")
                 .Outputs(2)
                 .Run();
  ExpectNear(Values<float>(*out[0]), want);
  EXPECT_EQ(Values<float>(*out[1]), (F{2, 3, 5, 6}));
  // Without a past state the history is zeros; a short input keeps part of it.
  auto short_input = NodeTest("CausalConvWithState", 27)
                         .Input<float>({1, 1, 1}, {3})
                         .Input<float>({1, 1, 3}, {1, 1, 1})
                         .Outputs(2)
                         .Run();
  EXPECT_EQ(Values<float>(*short_input[0]), (F{3}));
  EXPECT_EQ(Values<float>(*short_input[1]), (F{0, 3}));
}

TEST(CausalConvWithState, Errors) {
  auto base = [] {
    NodeTest t("CausalConvWithState", 27);
    t.Input<float>({1, 2, 3}, F(6));
    return t;
  };
  ExpectNodeError(base().Input<float>({3, 1, 2}, F(6)), ErrorCode::kInvalidArgument,
                  "input 'weight' has shape [3,1,2]");
  ExpectNodeError(base().Input<float>({2, 2}, F(4)), ErrorCode::kInvalidArgument,
                  "input 'weight' has shape [2,2]");
  ExpectNodeError(base().Input<float>({2, 1, 2}, F(4)).Input<float>({3}, F(3)),
                  ErrorCode::kInvalidArgument, "input 'bias' has shape [3]");
  ExpectNodeError(base().Input<float>({2, 1, 2}, F(4)).MissingInput().Input<float>({1, 2, 2}, F(4)),
                  ErrorCode::kInvalidArgument, "input 'past_state' has shape [1,2,2]");
  ExpectNodeError(base().Input<float>({2, 1, 2}, F(4)).Attr("activation", "relu"),
                  ErrorCode::kInvalidGraph, "attribute 'activation' is 'relu'");
  ExpectNodeError(
      NodeTest("CausalConvWithState", 27).Input<float>({2, 3}, F(6)).Input<float>({2, 1, 2}, F(4)),
      ErrorCode::kInvalidArgument, "input 'input' has shape [2,3]");
}

// ---- LinearAttention ----

TEST(LinearAttention, GatedDeltaGqaAgainstReference) {
  // B=1, T=3, Hq=2, Hkv=1, Dk=2, Dv=3, per-key decay, shared beta, a past state.
  const int64_t t_len = 3, dk = 2, dv = 3;
  const F q = Ramp(t_len * 2 * dk, 0.4f);
  const F k = Ramp(t_len * dk, 0.6f, 1.0f);
  const F v = Ramp(t_len * dv, 0.5f, 2.0f);
  const F decay = Ramp(t_len * dk, 0.3f, 3.0f);
  const F beta = {0.5f, 0.25f, 0.75f};
  F state = Ramp(dk * dv, 0.8f, 4.0f);
  const F past = state;
  F want(t_len * 2 * dv);
  const float scale = 1.0f / std::sqrt(2.0f);
  for (int64_t t = 0; t < t_len; ++t) {
    for (int64_t d = 0; d < dk; ++d)
      for (int64_t m = 0; m < dv; ++m) state[d * dv + m] *= std::exp(decay[t * dk + d]);
    F w(dv);
    for (int64_t m = 0; m < dv; ++m) {
      float r = 0;
      for (int64_t d = 0; d < dk; ++d) r += state[d * dv + m] * k[t * dk + d];
      w[m] = beta[t] * (v[t * dv + m] - r);
    }
    for (int64_t d = 0; d < dk; ++d)
      for (int64_t m = 0; m < dv; ++m) state[d * dv + m] += k[t * dk + d] * w[m];
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t m = 0; m < dv; ++m) {
        float acc = 0;
        for (int64_t d = 0; d < dk; ++d) acc += q[(t * 2 + h) * dk + d] * state[d * dv + m];
        want[(t * 2 + h) * dv + m] = scale * acc;
      }
  }
  auto out = NodeTest("LinearAttention", 27)
                 .Input<float>({1, t_len, 2 * dk}, q)
                 .Input<float>({1, t_len, dk}, k)
                 .Input<float>({1, t_len, dv}, v)
                 .Input<float>({1, 1, dk, dv}, past)
                 .Input<float>({1, t_len, dk}, decay)
                 .Input<float>({1, t_len, 1}, beta)
                 .Attr("q_num_heads", int64_t{2})
                 .Attr("kv_num_heads", int64_t{1})
                 .Outputs(2)
                 .Run();
  ExpectNear(Values<float>(*out[0]), want);
  ExpectNear(Values<float>(*out[1]), state);
}

TEST(LinearAttention, LinearRuleSumsOuterProducts) {
  // One head, Dk = Dv = 1: state is the running sum of k·v, out = scale · q · state.
  auto out = NodeTest("LinearAttention", 27)
                 .Input<float>({1, 2, 1}, {1, 2})
                 .Input<float>({1, 2, 1}, {3, 4})
                 .Input<float>({1, 2, 1}, {5, 6})
                 .Attr("q_num_heads", int64_t{1})
                 .Attr("kv_num_heads", int64_t{1})
                 .Attr("update_rule", "linear")
                 .Attr("scale", 0.5f)
                 .Outputs(2)
                 .Run();
  EXPECT_EQ(Values<float>(*out[0]), (F{7.5f, 39}));
  EXPECT_EQ(Values<float>(*out[1]), (F{39}));
}

TEST(LinearAttention, Errors) {
  auto base = [](const char* rule, int64_t kv_heads = 2) {
    NodeTest t("LinearAttention", 27);
    t.Input<float>({1, 2, 4}, F(8))
        .Input<float>({1, 2, 4}, F(8))
        .Input<float>({1, 2, 4}, F(8))
        .Attr("q_num_heads", int64_t{2})
        .Attr("kv_num_heads", kv_heads)
        .Attr("update_rule", rule);
    return t;
  };
  ExpectNodeError(base("gated"), ErrorCode::kInvalidGraph, "needs input 'decay'");
  ExpectNodeError(base("linear").MissingInput().Input<float>({1, 2, 2}, F(4)),
                  ErrorCode::kInvalidGraph, "does not take input 'decay'");
  ExpectNodeError(base("delta"), ErrorCode::kInvalidGraph, "needs input 'beta'");
  ExpectNodeError(base("fast"), ErrorCode::kInvalidGraph, "attribute 'update_rule' is 'fast'");
  ExpectNodeError(base("linear", 3), ErrorCode::kInvalidGraph, "positive multiple");
  ExpectNodeError(base("linear").Input<float>({1, 2, 3, 2}, F(12)), ErrorCode::kInvalidArgument,
                  "input 'past_state' has shape [1,2,3,2]");
  ExpectNodeError(base("gated").MissingInput().Input<float>({1, 2, 3}, F(6)),
                  ErrorCode::kInvalidArgument, "input 'decay' has shape [1,2,3]");
  ExpectNodeError(base("delta").MissingInput().MissingInput().Input<float>({1, 2, 3}, F(6)),
                  ErrorCode::kInvalidArgument, "input 'beta' has shape [1,2,3]");
  ExpectNodeError(NodeTest("LinearAttention", 27)
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 6}, F(12))
                      .Input<float>({1, 2, 4}, F(8))
                      .Attr("q_num_heads", int64_t{2})
                      .Attr("kv_num_heads", int64_t{2})
                      .Attr("update_rule", "linear"),
                  ErrorCode::kInvalidArgument, "do not agree");
  ExpectNodeError(NodeTest("LinearAttention", 27)
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 4}, F(8))
                      .Input<float>({1, 2, 4}, F(8))
                      .Attr("kv_num_heads", int64_t{2}),
                  ErrorCode::kInvalidGraph, "attribute 'q_num_heads' is required");
}

}  // namespace
}  // namespace kiln::testing
