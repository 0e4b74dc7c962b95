// GroupQueryAttention (com.microsoft): a first prompt, token generation over pasts of different
// lengths, a further prompt, each against a double-precision reference written from the op's
// description (grouped heads, rotary, local window, softcap, smooth softmax, packed QKV,
// position_ids, attention_bias, head_sink, output_qk as ONNX Runtime computes them), the present
// caches, and the errors.
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
  // position_ids [batch, pid_cols (0: seq)] (empty: none), attention_bias of bias_dims (empty:
  // none), head_sink, and attribute qk_output with output 3 (when want_qk).
  std::vector<int64_t> position_ids;
  int64_t pid_cols = 0;
  std::vector<int64_t> bias_dims;
  bool sink = false;
  int64_t qk_output = 0;
  bool want_qk = false;
};

struct Data {
  std::vector<float> q, k, v, past_k, past_v, cos, sin, bias, sink;
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
  if (!c.bias_dims.empty()) {
    int64_t n = 1;
    for (int64_t dim : c.bias_dims) n *= dim;
    d.bias = RandomFloats(static_cast<size_t>(n), seed + 5);
  }
  if (c.sink) d.sink = RandomFloats(static_cast<size_t>(c.heads), seed + 6, -1.0f, 3.0f);
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
  std::vector<double> y, present_k, present_v, qk;
};

// The rotary position of new token s of sequence b (past: its past), as ONNX Runtime takes
// position_ids: in a first prompt its first element + s, else its element b·S + s read flat.
int64_t Position(const Config& c, int64_t b, int64_t s, int64_t past) {
  if (c.position_ids.empty()) return past + s;
  if (c.seq == c.total) return c.position_ids[0] + s;
  return c.position_ids[static_cast<size_t>(b * c.seq + s)];
}

Expected Reference(const Config& c, const Data& d) {
  const int64_t rows = std::max(c.total, c.past_rows);
  const bool first_prompt = c.seq == c.total;
  Expected e;
  e.present_k.assign(static_cast<size_t>(c.batch * c.kv_heads * rows * c.head), 0.0);
  e.present_v = e.present_k;
  e.y.assign(static_cast<size_t>(c.batch * c.seq * c.heads * c.head), 0.0);
  e.qk.assign(static_cast<size_t>(c.batch * c.heads * c.seq * c.total), 0.0);
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
        const std::vector<double> k = Rotate(c, d, &d.k[in], Position(c, b, s, past));
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
        const std::vector<double> q =
            Rotate(c, d, &d.q[static_cast<size_t>(((b * c.seq + s) * c.heads + h) * c.head)],
                   Position(c, b, s, past));
        const int64_t length = past + s + 1;
        const int64_t first = c.window > 0 ? std::max<int64_t>(0, length - c.window) : 0;
        // attention_bias[b, h, s, :], its dimensions of 1 broadcast.
        const float* bias = nullptr;
        if (!c.bias_dims.empty()) {
          const int64_t bb = c.bias_dims[0] == 1 ? 0 : b;
          const int64_t bh = c.bias_dims[1] == 1 ? 0 : h;
          bias = &d.bias[static_cast<size_t>(((bb * c.bias_dims[1] + bh) * c.seq + s) * c.total)];
        }
        double* qk = &e.qk[static_cast<size_t>(((b * c.heads + h) * c.seq + s) * c.total)];
        std::vector<double> score;
        const bool sinks = c.smooth || c.sink;  // an extra logit: head_sink[h], else 0
        const double sink = c.sink ? d.sink[static_cast<size_t>(h)] : 0.0;
        double max = sinks ? sink : -1e300;
        for (int64_t j = first; j < length; ++j) {
          double dot = 0;
          for (int64_t i = 0; i < c.head; ++i)
            dot += q[static_cast<size_t>(i)] * kc[j * c.head + i];
          dot /= std::sqrt(static_cast<double>(c.head));
          if (c.softcap > 0) dot = c.softcap * std::tanh(dot / c.softcap);
          if (bias != nullptr) dot += bias[j];
          if (c.qk_output == 1 && j < c.total) qk[j] = dot;
          score.push_back(dot);
          max = std::max(max, dot);
        }
        double sum = sinks ? std::exp(sink - max) : 0.0;
        for (double& v : score) sum += (v = std::exp(v - max));
        for (int64_t j = first; j < length; ++j) {
          if (c.qk_output == 2 && j < c.total) qk[j] = score[static_cast<size_t>(j - first)] / sum;
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
  const bool extras = !c.position_ids.empty() || !c.bias_dims.empty() || c.sink;
  if (c.rotary_half > 0) {
    const auto positions = static_cast<int64_t>(d.cos.size()) / c.rotary_half;
    t.Input<float>({positions, c.rotary_half}, d.cos)
        .Input<float>({positions, c.rotary_half}, d.sin);
  } else if (extras) {
    t.MissingInput().MissingInput();
  }
  if (!c.position_ids.empty()) {
    t.Input<int64_t>({c.batch, c.pid_cols > 0 ? c.pid_cols : c.seq}, c.position_ids);
  } else if (!c.bias_dims.empty() || c.sink) {
    t.MissingInput();
  }
  if (!c.bias_dims.empty()) {
    t.Input<float>(c.bias_dims, d.bias);
  } else if (c.sink) {
    t.MissingInput();
  }
  if (c.sink) t.Input<float>({c.heads}, d.sink);
  if (c.qk_output != 0) t.Attr("qk_output", c.qk_output);
  t.Outputs(c.want_qk ? 4 : 3);
  return t;
}

void Check(const Config& c, uint32_t seed, const char* what) {
  const Data d = MakeData(c, seed);
  const Expected e = Reference(c, d);
  for (bool packed : {false, true}) {
    for (int threads : {1, 2}) {
      auto out = Gqa(c, d, packed).Run(threads);
      SCOPED_TRACE(::testing::Message()
                   << what << (packed ? " packed" : "") << " threads " << threads);
      EXPECT_EQ(out[0]->shape(), Shape({c.batch, c.seq, c.heads * c.head}));
      ExpectClose(*out[0], e.y, 1e-4, 1e-5);
      EXPECT_EQ(out[1]->shape(),
                Shape({c.batch, c.kv_heads, std::max(c.total, c.past_rows), c.head}));
      ExpectClose(*out[1], e.present_k, 1e-5, 1e-6);
      ExpectClose(*out[2], e.present_v, 1e-5, 1e-6);
      if (c.want_qk) {
        EXPECT_EQ(out[3]->shape(), Shape({c.batch, c.heads, c.seq, c.total}));
        ExpectClose(*out[3], e.qk, 1e-4, 1e-5);
      }
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
}

// position_ids replaces the rotary positions of the new tokens (the cache rows they fill stay
// past + s): a first prompt takes its first element + s in every sequence, token generation and a
// further prompt element b·S + s read flat.
TEST(ContribGroupQueryAttention, PositionIdsRotateTheNewTokens) {
  Config c;
  c.batch = 2, c.seq = 4, c.total = 4, c.heads = 4, c.kv_heads = 2, c.lens = {4, 4};
  c.rotary_half = 4, c.cos_rows = 8, c.position_ids = {3, 9, 1, 0, 7, 2, 5, 5};
  Check(c, 20, "first prompt from position 3");
  c.interleaved = true, c.window = 2;
  Check(c, 21, "first prompt, interleaved, window");
  Config t;
  t.batch = 3, t.seq = 1, t.past_rows = 6, t.heads = 4, t.kv_heads = 1, t.lens = {3, 7, 1};
  t.total = 7, t.rotary_half = 2, t.position_ids = {5, 0, 8};
  Check(t, 22, "token generation");
  t.pid_cols = 2, t.position_ids = {4, 1, 6, 2, 8, 0};  // [3, 2]: tokens take elements 0, 1, 2
  Check(t, 23, "token generation, position_ids wider than the sequence");
  Config f;
  f.batch = 1, f.seq = 3, f.past_rows = 4, f.lens = {6}, f.total = 6, f.rotary_half = 4;
  f.position_ids = {2, 7, 4};
  Check(f, 24, "further prompt");
  Config plain;
  plain.batch = 2, plain.seq = 1, plain.past_rows = 3, plain.lens = {2, 4}, plain.total = 4;
  plain.position_ids = {9, -5};  // without do_rotary only their shape is checked
  Check(plain, 25, "without rotary");
}

TEST(ContribGroupQueryAttention, AttentionBiasOfEachBroadcast) {
  Config c;
  c.batch = 2, c.seq = 5, c.total = 5, c.heads = 4, c.kv_heads = 2, c.lens = {5, 5};
  c.softcap = 2.0f, c.window = 3;
  Config t;
  t.batch = 3, t.seq = 1, t.past_rows = 6, t.heads = 4, t.kv_heads = 2, t.lens = {3, 7, 1};
  t.total = 7, t.rotary_half = 2;
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 4, 5, 5}, {1, 1, 5, 5}, {2, 1, 5, 5}, {1, 4, 5, 5}}) {
    c.bias_dims = dims;
    Check(c, 30, "first prompt, softcap, window");
    t.bias_dims = {dims[0] == 1 ? 1 : 3, dims[1], 1, 7};
    Check(t, 31, "token generation");
  }
  Config f;
  f.batch = 1, f.seq = 3, f.past_rows = 4, f.lens = {6}, f.total = 6;
  f.bias_dims = {1, 2, 3, 6};
  Check(f, 32, "further prompt");
}

TEST(ContribGroupQueryAttention, HeadSinkIsAnExtraLogitPerHead) {
  Config c;
  c.batch = 2, c.seq = 4, c.total = 4, c.heads = 4, c.kv_heads = 2, c.lens = {4, 4};
  c.sink = true;
  Check(c, 40, "first prompt");
  c.smooth = true;  // head_sink's logit, not smooth_softmax's 0
  Check(c, 41, "with smooth_softmax");
  c.window = 2, c.softcap = 3.0f, c.bias_dims = {1, 4, 4, 4};
  Check(c, 42, "with smooth_softmax, window, softcap, bias");
  Config t;
  t.batch = 3, t.seq = 1, t.past_rows = 6, t.heads = 4, t.kv_heads = 1, t.lens = {3, 7, 1};
  t.total = 7, t.sink = true, t.window = 2;
  Check(t, 43, "token generation, window");
}

// output_qk: the scores after bias (1) or the probabilities (2) at the keys a row attends to,
// zeros at the others, the keys of a shorter sequence's missing rows included.
TEST(ContribGroupQueryAttention, OutputQk) {
  for (int64_t mode : {1, 2}) {
    Config c;
    c.batch = 2, c.seq = 5, c.total = 5, c.heads = 4, c.kv_heads = 2, c.lens = {5, 5};
    c.qk_output = mode, c.want_qk = true;
    Check(c, 50, "first prompt");
    c.window = 2, c.softcap = 2.0f, c.bias_dims = {2, 1, 5, 5}, c.sink = true;
    c.rotary_half = 4;
    Check(c, 51, "first prompt, window, softcap, bias, sink, rotary");
    Config t;
    t.batch = 3, t.seq = 1, t.past_rows = 6, t.heads = 4, t.kv_heads = 2, t.lens = {3, 7, 1};
    t.total = 7, t.qk_output = mode, t.want_qk = true, t.window = 4;
    Check(t, 52, "token generation, window");
    Config f;
    f.batch = 1, f.seq = 3, f.past_rows = 4, f.lens = {6}, f.total = 6, f.smooth = true;
    f.qk_output = mode, f.want_qk = true;
    Check(f, 53, "further prompt, smooth softmax");
    Config past_t;  // total_sequence_length 3 below the length 5: keys 3 and 4 are not shown
    past_t.batch = 1, past_t.seq = 1, past_t.past_rows = 6, past_t.lens = {5}, past_t.total = 3;
    past_t.qk_output = mode, past_t.want_qk = true;
    Check(past_t, 54, "total_sequence_length below the length");
  }
  Config none;
  none.batch = 2, none.seq = 3, none.total = 3, none.lens = {3, 3}, none.want_qk = true;
  Check(none, 55, "qk_output 0: output 3 all zeros");
  Config unwanted;
  unwanted.batch = 2, unwanted.seq = 3, unwanted.total = 3, unwanted.lens = {3, 3};
  unwanted.qk_output = 2;
  Check(unwanted, 56, "qk_output 2 without output 3");
}

TEST(ContribGroupQueryAttention, ErrorsOfTheExtraInputs) {
  Config c;
  c.batch = 2, c.seq = 1, c.past_rows = 3, c.lens = {2, 4}, c.total = 4, c.rotary_half = 4;
  c.position_ids = {1, 2};
  const Data d = MakeData(c, 60);  // cos/sin caches of 6 positions
  const auto bad_ids = [&](std::vector<int64_t> ids, int64_t cols) {
    Config b = c;
    b.position_ids = std::move(ids), b.pid_cols = cols;
    return Gqa(b, d);
  };
  ExpectNodeError(bad_ids({1, 6}, 0), ErrorCode::kInvalidArgument,
                  "input 'position_ids' holds position 6 at flat index 1; it must be in [0, 6)");
  ExpectNodeError(bad_ids({-1, 0}, 0), ErrorCode::kInvalidArgument,
                  "input 'position_ids' holds position -1 at flat index 0");
  Config no_ids = c;
  no_ids.position_ids.clear();
  ExpectNodeError(Gqa(no_ids, d).Input<int64_t>({1, 1}, {1}), ErrorCode::kInvalidArgument,
                  "input 'position_ids' is int64 [1,1]; it must be int64 [2, at least 1] "
                  "(batch, sequence)");
  ExpectNodeError(Gqa(no_ids, d).Input<int32_t>({2, 1}, {1, 2}), ErrorCode::kInvalidArgument,
                  "input 'position_ids' is int32 [2,1]; it must be int64 [2, at least 1]");
  ExpectNodeError(Gqa(no_ids, d).Input<int64_t>({2}, {1, 2}), ErrorCode::kInvalidArgument,
                  "input 'position_ids' is int64 [2]; it must be int64 [2, at least 1]");
  Config prompt;
  prompt.batch = 1, prompt.seq = 3, prompt.total = 3, prompt.lens = {3}, prompt.rotary_half = 2;
  prompt.cos_rows = 5, prompt.position_ids = {3, 0, 0};
  ExpectNodeError(Gqa(prompt, MakeData(prompt, 61)), ErrorCode::kInvalidArgument,
                  "input 'position_ids' starts at 3: a first prompt's 3 tokens take the positions "
                  "from its first element on, which must be in [0, 2] for 5");
  Config further;
  further.batch = 1, further.seq = 3, further.past_rows = 4, further.lens = {6}, further.total = 6;
  further.position_ids = {1, 2}, further.pid_cols = 2;
  ExpectNodeError(Gqa(further, MakeData(further, 62)), ErrorCode::kInvalidArgument,
                  "input 'position_ids' is int64 [1,2]; it must be int64 [1, at least 3]");

  Config b = no_ids;
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{2, 1, 4},
                                           {2, 1, 1, 4, 1},
                                           {3, 1, 1, 4},
                                           {2, 3, 1, 4},
                                           {2, 1, 2, 4},
                                           {2, 1, 1, 5}}) {
    b.bias_dims = dims;
    ExpectNodeError(Gqa(b, MakeData(b, 63)), ErrorCode::kInvalidArgument,
                    "input 'attention_bias' is float " + Shape(dims).ToString() +
                        "; it must be [2 or 1, 2 or 1, 1, 4] (batch or 1, num_heads or 1, "
                        "sequence, total_sequence_length)");
  }
  Config shorter = no_ids;  // a sequence of total length 4 with total_sequence_length 3
  shorter.total = 3, shorter.past_rows = 5, shorter.bias_dims = {1, 1, 1, 3};
  ExpectNodeError(Gqa(shorter, MakeData(shorter, 64)), ErrorCode::kInvalidArgument,
                  "input 'attention_bias' covers total_sequence_length 3 keys, fewer than a "
                  "sequence's total length 4");
  ExpectNodeError(Gqa(no_ids, d).MissingInput().Input<int32_t>({1, 1, 1, 4}, {0, 0, 0, 0}),
                  ErrorCode::kNotImplemented,
                  "input 'attention_bias' is int32; only float is supported");

  ExpectNodeError(Gqa(no_ids, d).MissingInput().MissingInput().Input<float>({3}, {0, 0, 0}),
                  ErrorCode::kInvalidArgument,
                  "input 'head_sink' is float [3]; it must be [2] (one per query head)");
  ExpectNodeError(Gqa(no_ids, d).MissingInput().MissingInput().Input<float>({1, 2}, {0, 0}),
                  ErrorCode::kInvalidArgument, "input 'head_sink' is float [1,2]; it must be [2]");
  ExpectNodeError(Gqa(no_ids, d).Attr("qk_output", int64_t{3}), ErrorCode::kInvalidGraph,
                  "attribute 'qk_output' is 3; it must be 0 (none), 1 (before the softmax) or 2");
}

}  // namespace
}  // namespace kiln::testing
