// MultiHeadAttention (com.microsoft): random data against a plain double reference (per batch and
// head: scale·(Q+bq)(K+bk)ᵀ + attention_bias, causal limit, softmax, ·(V+bv)), S ≠ L, batches of
// 1 and 2, 1/4/12 heads, head sizes 1 to 80, value head size ≠ query head size, each
// attention_bias broadcast form, unidirectional, bias present or absent, scale, 1 and 2 threads,
// bf16 products on request, and the errors and unsupported forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/float16.h"
#include "kernels/cpu/contrib/attention_avx512.h"
#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

struct Config {
  int64_t batch, s, l, heads, hd, hdv;
  std::vector<int64_t> attention_bias;  // empty: none
  bool causal;
  bool bias;
  float scale;  // 0: default
};

// With `bf16`, as the node's bf16 products compute it: Q + bq, K + bk and V + bv rounded to
// bf16 before the products, and each exponential rounded before it weighs V (their sum not).
std::vector<double> Reference(const Config& c, const std::vector<float>& q,
                              const std::vector<float>& k, const std::vector<float>& v,
                              const std::vector<float>& bias, const std::vector<float>& ab,
                              bool bf16 = false) {
  const auto r = [bf16](double x) {
    return bf16 ? static_cast<double>(BFloat16::FromFloat(static_cast<float>(x)).ToFloat()) : x;
  };
  const int64_t d = c.heads * c.hd;
  const int64_t dv = c.heads * c.hdv;
  const double scale = c.scale != 0.0f ? c.scale : 1.0 / std::sqrt(static_cast<double>(c.hd));
  std::vector<double> out(static_cast<size_t>(c.batch * c.s * dv));
  const auto at = [](const std::vector<float>& t, int64_t i) {
    return static_cast<double>(t[static_cast<size_t>(i)]);
  };
  const auto bias_at = [&](int64_t i) { return bias.empty() ? 0.0 : at(bias, i); };
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.heads; ++h) {
      for (int64_t i = 0; i < c.s; ++i) {
        std::vector<double> p(static_cast<size_t>(c.l));
        for (int64_t j = 0; j < c.l; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < c.hd; ++e) {
            const int64_t col = h * c.hd + e;
            // (The sums with the bias are made in float, as the node makes them.)
            const auto qv = static_cast<float>(at(q, (b * c.s + i) * d + col) + bias_at(col));
            const auto kv = static_cast<float>(at(k, (b * c.l + j) * d + col) + bias_at(d + col));
            dot += bf16 ? r(qv) * r(kv)
                        : (at(q, (b * c.s + i) * d + col) + bias_at(col)) *
                              (at(k, (b * c.l + j) * d + col) + bias_at(d + col));
          }
          double score = scale * dot;
          if (!c.attention_bias.empty()) {
            const int64_t ab_b = c.attention_bias[0] == 1 ? 0 : b;
            const int64_t ab_h = c.attention_bias[1] == 1 ? 0 : h;
            score += at(ab, ((ab_b * c.attention_bias[1] + ab_h) * c.s + i) * c.l + j);
          }
          // ONNX Runtime's causal mask: mask_filter_value added past i + L - S.
          if (c.causal && j > i + c.l - c.s) score += -10000.0;
          p[static_cast<size_t>(j)] = score;
        }
        double max = p[0];
        for (double x : p) max = std::max(max, x);
        double sum = 0;
        for (double& x : p) {
          x = std::exp(x - max);
          sum += x;
        }
        for (int64_t e = 0; e < c.hdv; ++e) {
          const int64_t col = h * c.hdv + e;
          double acc = 0;
          for (int64_t j = 0; j < c.l; ++j) {
            if (bf16) {
              const auto vv =
                  static_cast<float>(at(v, (b * c.l + j) * dv + col) + bias_at(2 * d + col));
              acc += r(p[static_cast<size_t>(j)]) * r(vv) / sum;
            } else {
              acc += p[static_cast<size_t>(j)] / sum *
                     (at(v, (b * c.l + j) * dv + col) + bias_at(2 * d + col));
            }
          }
          out[static_cast<size_t>((b * c.s + i) * dv + col)] = acc;
        }
      }
    }
  }
  return out;
}

size_t Count(const std::vector<int64_t>& dims) {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

// Returns the node's output at the last thread count.
std::vector<float> Check(const Config& c, uint32_t seed, bool bf16 = false) {
  const int64_t d = c.heads * c.hd;
  const int64_t dv = c.heads * c.hdv;
  const std::vector<int64_t> qd = {c.batch, c.s, d};
  const std::vector<int64_t> kd = {c.batch, c.l, d};
  const std::vector<int64_t> vd = {c.batch, c.l, dv};
  const std::vector<float> q = RandomFloats(Count(qd), seed);
  const std::vector<float> k = RandomFloats(Count(kd), seed + 1);
  const std::vector<float> v = RandomFloats(Count(vd), seed + 2);
  const std::vector<float> bias =
      c.bias ? RandomFloats(static_cast<size_t>(2 * d + dv), seed + 3) : std::vector<float>{};
  const std::vector<float> ab = c.attention_bias.empty()
                                    ? std::vector<float>{}
                                    : RandomFloats(Count(c.attention_bias), seed + 4, -3.0f, 3.0f);
  const bool rounded = bf16 && cpu::Bf16GemmSupported();
  const std::vector<double> want = Reference(c, q, k, v, bias, ab, rounded);
  std::vector<float> last;
  for (int threads : {1, 2}) {
    NodeTest t("MultiHeadAttention", 1, kMs);
    t.Attr("num_heads", c.heads);
    if (bf16) t.Attr("bf16", int64_t{1});
    if (c.causal) t.Attr("unidirectional", int64_t{1});
    if (c.scale != 0.0f) t.Attr("scale", c.scale);
    t.Input<float>(qd, q).Input<float>(kd, k).Input<float>(vd, v);
    if (c.bias) {
      t.Input<float>({2 * d + dv}, bias, true);
    } else {
      t.MissingInput();
    }
    if (!c.attention_bias.empty()) t.MissingInput().Input<float>(c.attention_bias, ab);
    SCOPED_TRACE(::testing::Message()
                 << "B=" << c.batch << " S=" << c.s << " L=" << c.l << " heads=" << c.heads
                 << " hd=" << c.hd << " hdv=" << c.hdv << " attention_bias "
                 << Shape(c.attention_bias).ToString() << " causal " << c.causal << " bias "
                 << c.bias << " threads " << threads);
    auto out = t.Run(threads);
    EXPECT_EQ(out[0]->shape(), Shape({c.batch, c.s, dv}));
    ExpectClose(*out[0], want);
    last = Values<float>(*out[0]);
  }
  return last;
}

TEST(ContribMultiHeadAttention, MatchesReference) {
  const std::vector<Config> configs = {
      {1, 4, 4, 1, 8, 8, {}, false, false, 0},
      {2, 5, 7, 4, 5, 5, {}, false, true, 0},
      {2, 7, 5, 4, 5, 3, {}, false, false, 0.3f},
      {1, 16, 16, 12, 64, 64, {}, false, true, 0},
      {2, 6, 9, 4, 8, 8, {1, 1, 6, 9}, false, false, 0},
      {2, 6, 9, 4, 8, 8, {2, 1, 6, 9}, false, true, 0},
      {2, 6, 9, 4, 8, 8, {2, 4, 6, 9}, false, true, 0},
      {2, 6, 9, 4, 8, 8, {1, 4, 6, 9}, false, false, 0},
      {1, 8, 8, 4, 5, 5, {}, true, false, 0},
      {2, 5, 9, 4, 5, 6, {2, 4, 5, 9}, true, true, 0},
      {2, 9, 5, 1, 5, 5, {}, true, true, 0},  // S > L: early rows have no allowed key
      {1, 1, 12, 12, 64, 64, {1, 12, 1, 12}, true, true, 0},
      {2, 33, 40, 12, 5, 7, {2, 1, 33, 40}, false, true, 0.5f},
      // The AVX-512 head (attention_avx512.cc): key panels of 16 in register tiles of 1 to 4,
      // blocks of 6 query rows with a short last one, value columns in tiles of up to 64 with a
      // masked last vector, and causal rows attending to different numbers of keys.
      {1, 197, 197, 2, 64, 64, {}, false, true, 0},
      {1, 13, 50, 2, 16, 80, {1, 2, 13, 50}, true, true, 0},
      {2, 20, 35, 3, 24, 70, {}, false, false, 0},
      {1, 7, 20, 2, 3, 40, {}, true, true, 0},
      {1, 12, 64, 2, 1, 16, {}, false, false, 0},
      {2, 7, 33, 2, 8, 30, {2, 1, 7, 33}, false, true, 0},  // two value vectors, the last partial
      {1, 8, 21, 2, 16, 60, {}, true, false, 0},            // four, the last partial
      {2, 5, 1, 2, 8, 8, {}, true, true, 0},                // one key
      // One (batch, head) pair: at 2 threads the products run over the pool instead of the head
      // kernel, with the AVX-512 exponentials too.
      {1, 9, 5, 1, 5, 5, {1, 1, 9, 5}, true, true, 0},
      {1, 6, 11, 1, 16, 24, {}, false, true, 0.4f},
  };
  // The softmax's exponentials in AVX-512 intrinsics (where the machine runs them) and not.
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 rows" : "vector-cloned rows");
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    uint32_t seed = 100;
    for (const Config& c : configs) {
      Check(c, seed);
      seed += 10;
    }
  }
}

// Attribute bf16 (session config kiln.compute.bf16): on machines with AVX-512 BF16 the two
// products run on bf16 operands (the reference rounds them the same way; the output then differs
// from the float one), elsewhere the float products; each head on its task or, with one head,
// in turn.
TEST(ContribMultiHeadAttention, Bf16ProductsOnRequest) {
  const std::vector<Config> configs = {
      {2, 5, 7, 4, 5, 5, {}, false, true, 0},
      {1, 16, 16, 12, 64, 64, {1, 12, 16, 16}, true, true, 0},
      {2, 33, 40, 3, 24, 70, {2, 1, 33, 40}, false, false, 0.5f},
      {1, 9, 5, 1, 5, 5, {1, 1, 9, 5}, true, true, 0},  // one head: the tasks in turn
  };
  uint32_t seed = 500;
  for (const Config& c : configs) {
    const std::vector<float> plain = Check(c, seed);
    const std::vector<float> half = Check(c, seed, true);
    if (cpu::Bf16GemmSupported()) {
      EXPECT_NE(plain, half) << "the bf16 products did not run";
    } else {
      EXPECT_EQ(plain, half);
    }
    seed += 10;
  }
}

// The AVX-512 head kernel called directly (the node tests above reach it only where the machine
// runs AVX-512, and otherwise pass on the other path): one head against the node's reference, with
// 13, 16 and 9 query rows so that the last block takes each of the short tiles (2, 4 and 6 rows for
// 1, 4 and 3 rows left).
TEST(ContribMultiHeadAttention, Avx512HeadKernel) {
  if (!cpu::UseVectorMathAvx512()) GTEST_SKIP() << "this machine does not run AVX-512";
  for (int64_t s : {13, 16, 9}) {
    SCOPED_TRACE(::testing::Message() << "S=" << s);
    const Config c{1, s, 37, 1, 20, 40, {1, 1, s, 37}, true, true, 0.3f};
    const auto rows = static_cast<size_t>(s);
    const std::vector<float> q = RandomFloats(rows * 20, 1);
    const std::vector<float> k = RandomFloats(size_t{37} * 20, 2);
    const std::vector<float> v = RandomFloats(size_t{37} * 40, 3);
    const std::vector<float> bias = RandomFloats(size_t{2} * 20 + 40, 4);
    const std::vector<float> ab = RandomFloats(rows * 37, 5, -3.0f, 3.0f);
    const std::vector<double> want = Reference(c, q, k, v, bias, ab);
    // The output rows 50 apart, with sentinels between them and in two rows past the last that
    // must stay.
    const size_t ldo = 50;
    std::vector<float> out((rows + 2) * ldo, -7.0f);
    std::vector<float> scratch(cpu::AttentionHeadScratchFloats(37, 20, 40) + 16);
    float* aligned = scratch.data();
    while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0) ++aligned;
    cpu::AttentionHead h;
    h.q = q.data();
    h.ldq = 20;
    h.k = k.data();
    h.ldk = 20;
    h.v = v.data();
    h.ldv = 40;
    h.q_bias = bias.data();
    h.k_bias = bias.data() + 20;
    h.v_bias = bias.data() + 40;
    h.scores_bias = ab.data();
    h.out = out.data();
    h.ldo = ldo;
    h.s = rows;
    h.l = 37;
    h.hd = 20;
    h.hdv = 40;
    h.scale = c.scale;
    h.causal = true;
    cpu::AttentionHeadAvx512(h, aligned);
    for (size_t i = 0; i < rows + 2; ++i) {
      for (size_t e = 0; e < ldo; ++e) {
        const float got = out[i * ldo + e];
        if (i >= rows || e >= 40) {
          EXPECT_EQ(got, -7.0f) << "row " << i << " column " << e;
        } else {
          EXPECT_NEAR(got, want[i * 40 + e], 1e-5 + 1e-4 * std::abs(want[i * 40 + e]))
              << "row " << i << " column " << e;
        }
      }
    }
  }
}

TEST(ContribMultiHeadAttention, BertBaseShape) {
  Check({1, 128, 128, 12, 64, 64, {1, 1, 128, 128}, false, true, 0}, 7);
}

// Scores far below their row's maximum (a -10000 mask): e^x is 0 in float on both variants, so
// the masked keys get no weight and the rest still sum to one. (The AVX-512 rows' flush of
// subnormal results is checked in vector_math_avx512_test.cc.)
TEST(ContribMultiHeadAttention, MaskedKeysGetNoWeight) {
  const int64_t s = 3, l = 40, heads = 1, d = 16;
  std::vector<float> bias(static_cast<size_t>(s * l), 0.0f);
  for (size_t i = 0; i < bias.size(); ++i) {
    if (i % static_cast<size_t>(l) % 3 == 0) bias[i] = -10000.0f;  // keys 0, 3, 6, ...
  }
  std::vector<float> v(static_cast<size_t>(l * d));
  for (size_t i = 0; i < v.size(); ++i) v[i] = i / d % 3 == 0 ? 1000.0f : 1.0f;
  for (bool avx512 : {true, false}) {
    SCOPED_TRACE(avx512 ? "AVX-512 rows" : "vector-cloned rows");
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    auto out = NodeTest("MultiHeadAttention", 1, kMs)
                   .Attr("num_heads", heads)
                   .Input<float>({1, s, d}, RandomFloats(static_cast<size_t>(s * d), 1))
                   .Input<float>({1, l, d}, RandomFloats(static_cast<size_t>(l * d), 2))
                   .Input<float>({1, l, d}, v)
                   .MissingInput()
                   .MissingInput()
                   .Input<float>({1, 1, s, l}, bias)
                   .Run();
    // Each output is a weighted mean of the unmasked values (all 1): exactly 1 within rounding.
    for (float y : Values<float>(*out[0])) EXPECT_NEAR(y, 1.0f, 1e-5f);
  }
}

// One key far above the others (a score 300 higher, where e^300 overflows float): the softmax
// must shift by the row's true maximum wherever that key sits (each lane of a vector, each panel)
// and give it all the weight, so each output row is that key's value row.
// key_padding_mask, [B] key lengths or [B, L] with 0 hiding a key, with an attention_bias: each
// sequence's output is the output of attention over its visible keys alone (and their bias).
TEST(ContribMultiHeadAttention, KeyPaddingMaskHidesKeys) {
  const int64_t B = 2, S = 3, L = 5, N = 2, hd = 4, d = N * hd;
  const std::vector<float> q = RandomFloats(size_t{B * S * d}, 61);
  const std::vector<float> k = RandomFloats(size_t{B * L * d}, 62);
  const std::vector<float> v = RandomFloats(size_t{B * L * d}, 63);
  const std::vector<float> ab = RandomFloats(size_t{N * S * L}, 64, -2.0f, 2.0f);  // [1, N, S, L]
  const std::vector<int32_t> lengths = {5, 2};
  const std::vector<int32_t> raw = {1, 0, 1, 1, -1, 0, 1, 2, 0, 1};  // 0 or less hides a key
  for (bool by_length : {true, false}) {
    NodeTest t("MultiHeadAttention", 1, kMs);
    t.Attr("num_heads", N).Input<float>({B, S, d}, q).Input<float>({B, L, d}, k);
    t.Input<float>({B, L, d}, v).MissingInput();
    if (by_length) {
      t.Input<int32_t>({B}, lengths);
    } else {
      t.Input<int32_t>({B, L}, raw);
    }
    t.Input<float>({1, N, S, L}, ab);
    const std::vector<float> got = Values<float>(*t.Run(2)[0]);
    for (int64_t b = 0; b < B; ++b) {
      std::vector<int64_t> visible;
      for (int64_t l = 0; l < L; ++l) {
        if (by_length ? l < lengths[static_cast<size_t>(b)]
                      : raw[static_cast<size_t>(b * L + l)] > 0) {
          visible.push_back(l);
        }
      }
      const auto n = static_cast<int64_t>(visible.size());
      std::vector<float> kb, vb, abb;
      for (int64_t l : visible) {
        kb.insert(kb.end(), k.begin() + (b * L + l) * d, k.begin() + (b * L + l + 1) * d);
        vb.insert(vb.end(), v.begin() + (b * L + l) * d, v.begin() + (b * L + l + 1) * d);
      }
      for (int64_t h = 0; h < N; ++h) {
        for (int64_t i = 0; i < S; ++i) {
          for (int64_t l : visible) abb.push_back(ab[static_cast<size_t>((h * S + i) * L + l)]);
        }
      }
      NodeTest alone("MultiHeadAttention", 1, kMs);
      alone.Attr("num_heads", N)
          .Input<float>({1, S, d},
                        std::vector<float>(q.begin() + b * S * d, q.begin() + (b + 1) * S * d))
          .Input<float>({1, n, d}, kb)
          .Input<float>({1, n, d}, vb)
          .MissingInput()
          .MissingInput()
          .Input<float>({1, N, S, n}, abb);
      const std::vector<float> want = Values<float>(*alone.Run()[0]);
      SCOPED_TRACE(::testing::Message() << (by_length ? "lengths" : "raw mask") << " batch " << b);
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(got[static_cast<size_t>(b * S * d) + i], want[i], 1e-5) << i;
      }
    }
  }
}

TEST(ContribMultiHeadAttention, DominantKeyAtEveryPosition) {
  const int64_t s = 3, l = 40, d = 16;
  std::vector<float> v(static_cast<size_t>(l * d));
  for (size_t i = 0; i < v.size(); ++i) {
    const size_t key =
        i / static_cast<size_t>(d);  // each key's row: its index, plus 0.01 per column
    v[i] = static_cast<float>(key) + 0.01f * static_cast<float>(i % static_cast<size_t>(d));
  }
  const std::vector<float> q(static_cast<size_t>(s * d), 1.0f);
  for (bool avx512 : {true, false}) {
    const cpu::ScopedVectorMathAvx512 scoped(avx512);
    for (int64_t top = 0; top < l; ++top) {
      SCOPED_TRACE(::testing::Message()
                   << (avx512 ? "AVX-512" : "vector-cloned") << ", key " << top);
      std::vector<float> k(static_cast<size_t>(l * d), 0.0f);
      for (int64_t e = 0; e < d; ++e) k[static_cast<size_t>(top * d + e)] = 75.0f;  // score 300
      auto out = NodeTest("MultiHeadAttention", 1, kMs)
                     .Attr("num_heads", int64_t{1})
                     .Input<float>({1, s, d}, q)
                     .Input<float>({1, l, d}, k)
                     .Input<float>({1, l, d}, v)
                     .Run();
      const std::vector<float> y = Values<float>(*out[0]);
      for (size_t i = 0; i < y.size(); ++i) {
        ASSERT_NEAR(y[i], v[static_cast<size_t>(top * d) + i % d], 1e-5f) << "output " << i;
      }
    }
  }
}

NodeTest Mha(const std::vector<int64_t>& q, const std::vector<int64_t>& k,
             const std::vector<int64_t>& v, int64_t heads = 2) {
  NodeTest t("MultiHeadAttention", 1, kMs);
  t.Attr("num_heads", heads)
      .Input<float>(q, RandomFloats(Count(q), 1))
      .Input<float>(k, RandomFloats(Count(k), 2))
      .Input<float>(v, RandomFloats(Count(v), 3));
  return t;
}

TEST(ContribMultiHeadAttention, ShapeErrors) {
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 6}, {2, 4, 8}), ErrorCode::kInvalidArgument,
                  "input 'key' has shape [2,4,6]");
  ExpectNodeError(Mha({2, 3, 8}, {1, 4, 8}, {1, 4, 8}), ErrorCode::kInvalidArgument,
                  "input 'key' has shape [1,4,8]");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 5, 8}), ErrorCode::kInvalidArgument,
                  "input 'value' has shape [2,5,8]");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 5}), ErrorCode::kInvalidArgument,
                  "input 'value' has shape [2,5]; it must be 3-D");
  ExpectNodeError(Mha({3, 8}, {2, 4, 8}, {2, 4, 8}), ErrorCode::kInvalidArgument,
                  "input 'query' has shape [3,8]; it must be 3-D");
  ExpectNodeError(Mha({2, 3, 9}, {2, 4, 9}, {2, 4, 8}, 2), ErrorCode::kInvalidArgument,
                  "attribute 'num_heads' (2) does not divide the hidden size 9 of input 'query'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 6}, 4), ErrorCode::kInvalidArgument,
                  "attribute 'num_heads' (4) does not divide the hidden size 6 of input 'value'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}).Input<float>({23}, RandomFloats(23, 4)),
                  ErrorCode::kInvalidArgument, "input 'bias' has shape [23]; it must be [24]");
  for (const std::vector<int64_t>& ab : std::vector<std::vector<int64_t>>{
           {2, 2, 3, 5}, {3, 2, 3, 4}, {2, 3, 3, 4}, {2, 2, 4, 4}, {2, 3, 4}}) {
    ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8})
                        .MissingInput()
                        .MissingInput()
                        .Input<float>(ab, RandomFloats(Count(ab), 5)),
                    ErrorCode::kInvalidArgument,
                    "input 'attention_bias' has shape " + Shape(ab).ToString());
  }
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}, 0), ErrorCode::kInvalidGraph,
                  "attribute 'num_heads' is 0");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}).Attr("unidirectional", int64_t{2}),
                  ErrorCode::kInvalidGraph, "attribute 'unidirectional' is 2");
  NodeTest no_heads("MultiHeadAttention", 1, kMs);
  no_heads.Input<float>({1, 1, 2}, {1, 2})
      .Input<float>({1, 1, 2}, {1, 2})
      .Input<float>({1, 1, 2}, {1, 2});
  ExpectNodeError(no_heads, ErrorCode::kInvalidGraph, "attribute 'num_heads' is required");
  NodeTest doubles("MultiHeadAttention", 1, kMs);
  doubles.Attr("num_heads", int64_t{1})
      .Input<double>({1, 1, 2}, {1, 2})
      .Input<double>({1, 1, 2}, {1, 2})
      .Input<double>({1, 1, 2}, {1, 2});
  ExpectNodeError(doubles, ErrorCode::kNotImplemented, "input 'query' is double");
}

TEST(ContribMultiHeadAttention, UnsupportedForms) {
  const std::vector<float> m = RandomFloats(size_t{8}, 9);
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8})
                      .MissingInput()
                      .Input<int32_t>({8}, std::vector<int32_t>(8, 1)),
                  ErrorCode::kNotImplemented, "input 'key_padding_mask' is int32 [8]; supported");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8})
                      .MissingInput()
                      .MissingInput()
                      .MissingInput()
                      .Input<float>({2, 2, 1, 2}, m),
                  ErrorCode::kNotImplemented, "input 'past_key'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8})
                      .MissingInput()
                      .MissingInput()
                      .MissingInput()
                      .MissingInput()
                      .Input<float>({2, 2, 1, 2}, m),
                  ErrorCode::kNotImplemented, "input 'past_value'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}).Outputs(2), ErrorCode::kNotImplemented,
                  "output 'present_key'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}).Outputs(3, {1}), ErrorCode::kNotImplemented,
                  "output 'present_value'");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 8}, {2, 4, 8}).Outputs(4, {1, 2}),
                  ErrorCode::kNotImplemented, "output 'qk'");
  NodeTest packed("MultiHeadAttention", 1, kMs);
  packed.Attr("num_heads", int64_t{2}).Input<float>({1, 2, 2, 3, 4}, RandomFloats(48, 1));
  ExpectNodeError(packed, ErrorCode::kNotImplemented, "packed QKV");
  ExpectNodeError(Mha({2, 3, 8}, {2, 2, 4, 4}, {2, 2, 4, 4}), ErrorCode::kNotImplemented,
                  "input 'key' has shape [2,2,4,4]");
  ExpectNodeError(Mha({2, 3, 8}, {2, 4, 2, 2, 4}, {2, 4, 8}), ErrorCode::kNotImplemented,
                  "packed KV");
}

TEST(ContribMultiHeadAttention, EmptyDimensions) {
  auto no_keys = Mha({1, 2, 4}, {1, 0, 4}, {1, 0, 6}).Run();
  EXPECT_EQ(no_keys[0]->shape(), Shape({1, 2, 6}));
  ExpectClose(*no_keys[0], std::vector<double>(12, 0.0));
  auto no_queries = Mha({2, 0, 4}, {2, 3, 4}, {2, 3, 4}).Run();
  EXPECT_EQ(no_queries[0]->shape(), Shape({2, 0, 4}));
}

}  // namespace
}  // namespace kiln::testing
