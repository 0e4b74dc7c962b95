// GroupQueryAttention (com.microsoft): a first prompt, token generation over pasts of different
// lengths, a further prompt, each against a double-precision reference written from the op's
// description (grouped heads, rotary, local window, softcap, smooth softmax, packed QKV), the
// present caches, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

struct Config {
  int64_t batch = 1, seq = 1, heads = 2, kv_heads = 1, head = 8, past_rows = 0, total = 1;
  std::vector<int32_t> lens;  // each sequence's total length
  int64_t window = -1;
  float softcap = 0;
  bool smooth = false;
  int64_t rotary_half = 0;  // cos/sin caches [positions, rotary_half]
  int64_t cos_rows = 0;     // the caches' positions (0: a few more than needed)
  bool interleaved = false;
};

struct Data {
  std::vector<float> q, k, v, past_k, past_v, cos, sin;
};

Data MakeData(const Config& c, uint32_t seed) {
  Data d;
  d.q = RandomFloats(static_cast<size_t>(c.batch * c.seq * c.heads * c.head), seed);
  d.k = RandomFloats(static_cast<size_t>(c.batch * c.seq * c.kv_heads * c.head), seed + 1);
  d.v = RandomFloats(static_cast<size_t>(c.batch * c.seq * c.kv_heads * c.head), seed + 2);
  d.past_k =
      RandomFloats(static_cast<size_t>(c.batch * c.kv_heads * c.past_rows * c.head), seed + 3);
  d.past_v =
      RandomFloats(static_cast<size_t>(c.batch * c.kv_heads * c.past_rows * c.head), seed + 4);
  const int64_t positions = c.cos_rows > 0 ? c.cos_rows : std::max(c.total, c.past_rows) + 2;
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t i = 0; i < c.rotary_half; ++i) {
      const double angle = static_cast<double>(p) * std::pow(100.0, -static_cast<double>(i) / 8);
      d.cos.push_back(static_cast<float>(std::cos(angle)));
      d.sin.push_back(static_cast<float>(std::sin(angle)));
    }
  }
  return d;
}

// Rotates one head vector at `position` (the first 2·half features).
std::vector<double> Rotate(const Config& c, const Data& d, const float* x, int64_t position) {
  std::vector<double> out(x, x + c.head);
  for (int64_t i = 0; i < c.rotary_half; ++i) {
    const int64_t a = c.interleaved ? 2 * i : i;
    const int64_t b = c.interleaved ? 2 * i + 1 : i + c.rotary_half;
    const double co = d.cos[static_cast<size_t>(position * c.rotary_half + i)];
    const double si = d.sin[static_cast<size_t>(position * c.rotary_half + i)];
    out[static_cast<size_t>(a)] = co * x[a] - si * x[b];
    out[static_cast<size_t>(b)] = si * x[a] + co * x[b];
  }
  return out;
}

struct Expected {
  std::vector<double> y, present_k, present_v;
};

Expected Reference(const Config& c, const Data& d) {
  const int64_t rows = std::max(c.total, c.past_rows);
  const bool first_prompt = c.seq == c.total;
  Expected e;
  e.present_k.assign(static_cast<size_t>(c.batch * c.kv_heads * rows * c.head), 0.0);
  e.present_v = e.present_k;
  e.y.assign(static_cast<size_t>(c.batch * c.seq * c.heads * c.head), 0.0);
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t past = first_prompt ? 0 : c.lens[static_cast<size_t>(b)] - c.seq;
    for (int64_t h = 0; h < c.kv_heads; ++h) {
      double* kc = &e.present_k[static_cast<size_t>((b * c.kv_heads + h) * rows * c.head)];
      double* vc = &e.present_v[static_cast<size_t>((b * c.kv_heads + h) * rows * c.head)];
      for (int64_t r = 0; r < past * c.head; ++r) {
        kc[r] = d.past_k[static_cast<size_t>((b * c.kv_heads + h) * c.past_rows * c.head + r)];
        vc[r] = d.past_v[static_cast<size_t>((b * c.kv_heads + h) * c.past_rows * c.head + r)];
      }
      for (int64_t s = 0; s < c.seq; ++s) {
        const size_t in = static_cast<size_t>(((b * c.seq + s) * c.kv_heads + h) * c.head);
        const std::vector<double> k = Rotate(c, d, &d.k[in], past + s);
        for (int64_t i = 0; i < c.head; ++i) {
          kc[(past + s) * c.head + i] = k[static_cast<size_t>(i)];
          vc[(past + s) * c.head + i] = d.v[in + static_cast<size_t>(i)];
        }
      }
    }
    for (int64_t h = 0; h < c.heads; ++h) {
      const int64_t g = h / (c.heads / c.kv_heads);
      const double* kc = &e.present_k[static_cast<size_t>((b * c.kv_heads + g) * rows * c.head)];
      const double* vc = &e.present_v[static_cast<size_t>((b * c.kv_heads + g) * rows * c.head)];
      for (int64_t s = 0; s < c.seq; ++s) {
        const std::vector<double> q = Rotate(
            c, d, &d.q[static_cast<size_t>(((b * c.seq + s) * c.heads + h) * c.head)], past + s);
        const int64_t length = past + s + 1;
        const int64_t first = c.window > 0 ? std::max<int64_t>(0, length - c.window) : 0;
        std::vector<double> score;
        double max = c.smooth ? 0.0 : -1e300;
        for (int64_t j = first; j < length; ++j) {
          double dot = 0;
          for (int64_t i = 0; i < c.head; ++i)
            dot += q[static_cast<size_t>(i)] * kc[j * c.head + i];
          dot /= std::sqrt(static_cast<double>(c.head));
          if (c.softcap > 0) dot = c.softcap * std::tanh(dot / c.softcap);
          score.push_back(dot);
          max = std::max(max, dot);
        }
        double sum = c.smooth ? std::exp(-max) : 0.0;
        for (double& v : score) sum += (v = std::exp(v - max));
        for (int64_t j = first; j < length; ++j) {
          for (int64_t i = 0; i < c.head; ++i) {
            e.y[static_cast<size_t>(((b * c.seq + s) * c.heads + h) * c.head + i)] +=
                score[static_cast<size_t>(j - first)] / sum * vc[j * c.head + i];
          }
        }
      }
    }
  }
  return e;
}

NodeTest Gqa(const Config& c, const Data& d, bool packed = false) {
  NodeTest t("GroupQueryAttention", 1, kMs);
  t.Attr("num_heads", c.heads).Attr("kv_num_heads", c.kv_heads);
  if (c.window > 0) t.Attr("local_window_size", c.window);
  if (c.softcap > 0) t.Attr("softcap", c.softcap);
  if (c.smooth) t.Attr("smooth_softmax", int64_t{1});
  if (c.rotary_half > 0) {
    t.Attr("do_rotary", int64_t{1}).Attr("rotary_interleaved", int64_t{c.interleaved ? 1 : 0});
  }
  if (packed) {  // [B, S, (N + 2·Nk)·H]: each token's Q heads, then its K, then its V
    std::vector<float> qkv;
    const int64_t qn = c.heads * c.head;
    const int64_t kn = c.kv_heads * c.head;
    for (int64_t token = 0; token < c.batch * c.seq; ++token) {
      qkv.insert(qkv.end(), d.q.begin() + token * qn, d.q.begin() + (token + 1) * qn);
      qkv.insert(qkv.end(), d.k.begin() + token * kn, d.k.begin() + (token + 1) * kn);
      qkv.insert(qkv.end(), d.v.begin() + token * kn, d.v.begin() + (token + 1) * kn);
    }
    t.Input<float>({c.batch, c.seq, (c.heads + 2 * c.kv_heads) * c.head}, qkv)
        .MissingInput()
        .MissingInput();
  } else {
    t.Input<float>({c.batch, c.seq, c.heads * c.head}, d.q)
        .Input<float>({c.batch, c.seq, c.kv_heads * c.head}, d.k)
        .Input<float>({c.batch, c.seq, c.kv_heads * c.head}, d.v);
  }
  if (c.past_rows > 0) {
    t.Input<float>({c.batch, c.kv_heads, c.past_rows, c.head}, d.past_k)
        .Input<float>({c.batch, c.kv_heads, c.past_rows, c.head}, d.past_v);
  } else {
    t.MissingInput().MissingInput();
  }
  std::vector<int32_t> seqlens;
  for (int32_t len : c.lens) seqlens.push_back(len - 1);
  t.Input<int32_t>({c.batch}, seqlens).Input<int32_t>({1}, {static_cast<int32_t>(c.total)});
  if (c.rotary_half > 0) {
    const auto positions = static_cast<int64_t>(d.cos.size()) / c.rotary_half;
    t.Input<float>({positions, c.rotary_half}, d.cos)
        .Input<float>({positions, c.rotary_half}, d.sin);
  }
  return t;
}

void Check(const Config& c, uint32_t seed, const char* what) {
  const Data d = MakeData(c, seed);
  const Expected e = Reference(c, d);
  for (bool packed : {false, true}) {
    for (int threads : {1, 2}) {
      auto out = Gqa(c, d, packed).Outputs(3).Run(threads);
      SCOPED_TRACE(::testing::Message()
                   << what << (packed ? " packed" : "") << " threads " << threads);
      EXPECT_EQ(out[0]->shape(), Shape({c.batch, c.seq, c.heads * c.head}));
      ExpectClose(*out[0], e.y, 1e-4, 1e-5);
      EXPECT_EQ(out[1]->shape(),
                Shape({c.batch, c.kv_heads, std::max(c.total, c.past_rows), c.head}));
      ExpectClose(*out[1], e.present_k, 1e-5, 1e-6);
      ExpectClose(*out[2], e.present_v, 1e-5, 1e-6);
    }
  }
}

TEST(ContribGroupQueryAttention, FirstPrompt) {
  Config c;
  c.batch = 2, c.seq = 5, c.total = 5, c.heads = 4, c.kv_heads = 2, c.lens = {5, 5};
  Check(c, 1, "plain");
  c.rotary_half = 4;
  Check(c, 2, "rotary");
  c.interleaved = true, c.window = 2, c.softcap = 2.0f, c.smooth = true;
  Check(c, 3, "interleaved rotary, window, softcap, smooth softmax");
}

TEST(ContribGroupQueryAttention, TokenGenerationOverPastsOfDifferentLengths) {
  Config c;
  c.batch = 3, c.seq = 1, c.past_rows = 6, c.heads = 4, c.kv_heads = 1, c.lens = {3, 7, 1};
  c.total = 7;
  Check(c, 4, "plain");
  c.rotary_half = 2, c.window = 3;
  Check(c, 5, "rotary, window");
}

// A past buffer longer than the caches (a shared max-length cache): only the positions read,
// below the longest total length, must be in them.
TEST(ContribGroupQueryAttention, CachesCoverThePositionsRead) {
  Config c;
  c.batch = 2, c.seq = 1, c.past_rows = 9, c.lens = {3, 4}, c.total = 4;
  c.rotary_half = 2, c.cos_rows = 4;
  Check(c, 12, "caches of 4 positions, a past buffer of 9");
}

TEST(ContribGroupQueryAttention, FurtherPromptAfterAPast) {
  Config c;
  c.batch = 1, c.seq = 3, c.past_rows = 4, c.lens = {6}, c.total = 6;
  Check(c, 6, "plain");
  c.rotary_half = 4, c.softcap = 5.0f;
  Check(c, 7, "rotary, softcap");
}

TEST(ContribGroupQueryAttention, Errors) {
  Config c;
  c.batch = 2, c.seq = 1, c.past_rows = 3, c.lens = {2, 5}, c.total = 5;
  const Data d = MakeData(c, 8);
  ExpectNodeError(Gqa(c, d), ErrorCode::kInvalidArgument,
                  "seqlens_k[1] is 4: a total length of 5 does not fit 1 new tokens after a past "
                  "of at most 3");
  Config none = c;
  none.total = 0, none.lens = {1, 1};
  ExpectNodeError(Gqa(none, d), ErrorCode::kInvalidArgument,
                  "input 'total_sequence_length' is 0; it must be >= 1");
  Config bad = c;
  bad.heads = 3, bad.kv_heads = 2, bad.lens = {2, 3};
  ExpectNodeError(Gqa(bad, MakeData(bad, 11)), ErrorCode::kInvalidGraph,
                  "num_heads a multiple of kv_num_heads");
  c.seq = 2, c.total = 4, c.lens = {4, 4};
  const Data two = MakeData(c, 9);
  ExpectNodeError(Gqa(c, two), ErrorCode::kInvalidArgument, "needs batch 1, not 2");
  Config p;
  p.lens = {1};
  const Data one = MakeData(p, 10);
  ExpectNodeError(Gqa(p, one).Attr("do_rotary", int64_t{1}), ErrorCode::kInvalidArgument,
                  "do_rotary needs inputs 'cos_cache' and 'sin_cache'");
  ExpectNodeError(Gqa(p, one)
                      .MissingInput()
                      .MissingInput()
                      .Input<int64_t>({1, 1}, {0})
                      .Input<float>({1, 2, 1, 1}, {0, 0}),
                  ErrorCode::kNotImplemented, "input 9 (position_ids");
}

}  // namespace
}  // namespace kiln::testing
