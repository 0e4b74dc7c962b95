// MoE (com.microsoft): random data against a double reference of ONNX Runtime's CPU kernel
// (softmax routing, top k with ties to the higher expert, optional normalization), every
// activation_type, k 1 and 2, with and without biases, the fc3 gate, swiglu's alpha / beta /
// limit, 3-D input, ONNX Runtime's legacy weight shapes, 1 and 2 threads, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

struct Config {
  std::vector<int64_t> x_dims{5, 4};  // [rows, hidden] or [B, S, hidden]
  int64_t experts = 4;
  int64_t inter = 6;
  int64_t k = 2;
  std::string activation = "relu";
  bool normalize = false;
  bool bias1 = false;
  bool bias2 = false;
  bool fc3 = false;
  bool bias3 = false;
  float alpha = 1.0f;
  float beta = 0.0f;
  float limit = std::numeric_limits<float>::infinity();
  bool swiglu_attrs = false;  // write alpha, beta and limit
};

struct Data {
  std::vector<float> x, logits, w1, b1, w2, b2, w3, b3;
};

int64_t Rows(const Config& c) {
  return c.x_dims.size() == 2 ? c.x_dims[0] : c.x_dims[0] * c.x_dims[1];
}

int64_t F1(const Config& c) {
  return c.activation == "swiglu" ? 2 * c.inter : c.inter;
}

Data MakeData(const Config& c, uint32_t seed) {
  const auto R = static_cast<size_t>(Rows(c));
  const auto E = static_cast<size_t>(c.experts);
  const auto H = static_cast<size_t>(c.x_dims.back());
  const auto I = static_cast<size_t>(c.inter);
  const auto F = static_cast<size_t>(F1(c));
  Data d;
  d.x = RandomFloats(R * H, seed, -1.5f, 1.5f);
  d.logits = RandomFloats(R * E, seed + 1, -3.0f, 3.0f);
  d.w1 = RandomFloats(E * F * H, seed + 2, -1.0f, 1.0f);
  d.b1 = RandomFloats(E * F, seed + 3, -0.5f, 0.5f);
  d.w2 = RandomFloats(E * H * I, seed + 4, -1.0f, 1.0f);
  d.b2 = RandomFloats(E * H, seed + 5, -0.5f, 0.5f);
  d.w3 = RandomFloats(E * I * H, seed + 6, -1.0f, 1.0f);
  d.b3 = RandomFloats(E * I, seed + 7, -0.5f, 0.5f);
  return d;
}

double Act(const std::string& a, double v) {
  if (a == "relu") return std::max(0.0, v);
  if (a == "gelu") return 0.5 * v * (1.0 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
  if (a == "silu") return v / (1.0 + std::exp(-v));
  return v;  // identity
}

// The output, written out in double.
std::vector<double> Reference(const Config& c, const Data& d) {
  const auto R = static_cast<size_t>(Rows(c));
  const auto E = static_cast<size_t>(c.experts);
  const auto H = static_cast<size_t>(c.x_dims.back());
  const auto I = static_cast<size_t>(c.inter);
  const auto F = static_cast<size_t>(F1(c));
  const auto K = static_cast<size_t>(c.k);
  std::vector<double> y(R * H, 0.0);
  for (size_t r = 0; r < R; ++r) {
    std::vector<double> p(E);
    double max = -std::numeric_limits<double>::infinity();
    for (size_t e = 0; e < E; ++e) max = std::max(max, double{d.logits[r * E + e]});
    double sum = 0.0;
    for (size_t e = 0; e < E; ++e) sum += p[e] = std::exp(d.logits[r * E + e] - max);
    for (double& v : p) v /= sum;
    std::vector<size_t> idx(E);
    for (size_t e = 0; e < E; ++e) idx[e] = e;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return p[a] > p[b] || (p[a] == p[b] && a > b); });
    double top = 0.0;
    for (size_t j = 0; j < K; ++j) top += p[idx[j]];
    for (size_t j = 0; j < K; ++j) {
      const size_t e = idx[j];
      const double w = c.normalize ? p[e] / top : p[e];
      std::vector<double> h(F);
      for (size_t f = 0; f < F; ++f) {
        double s = c.bias1 ? d.b1[e * F + f] : 0.0;
        for (size_t i = 0; i < H; ++i) s += double{d.w1[(e * F + f) * H + i]} * d.x[r * H + i];
        h[f] = s;
      }
      std::vector<double> z(I);
      for (size_t i = 0; i < I; ++i) {
        if (c.activation == "swiglu") {
          const double g = std::min(h[2 * i], double{c.limit});
          const double l = std::clamp(h[2 * i + 1], -double{c.limit}, double{c.limit});
          z[i] = g / (1.0 + std::exp(-c.alpha * g)) * (l + c.beta);
        } else {
          z[i] = Act(c.activation, h[i]);
          if (c.fc3) {
            double s = c.bias3 ? d.b3[e * I + i] : 0.0;
            for (size_t q = 0; q < H; ++q) {
              s += double{d.w3[(e * I + i) * H + q]} * d.x[r * H + q];
            }
            z[i] *= s;
          }
        }
      }
      for (size_t o = 0; o < H; ++o) {
        double s = c.bias2 ? d.b2[e * H + o] : 0.0;
        for (size_t i = 0; i < I; ++i) s += double{d.w2[(e * H + o) * I + i]} * z[i];
        y[r * H + o] += w * s;
      }
    }
  }
  return y;
}

NodeTest Build(const Config& c, const Data& d) {
  const int64_t E = c.experts;
  const int64_t H = c.x_dims.back();
  NodeTest t("MoE", 1, kMs);
  t.Attr("k", c.k).Attr("activation_type", c.activation);
  if (c.normalize) t.Attr("normalize_routing_weights", int64_t{1});
  if (c.activation == "swiglu") t.Attr("swiglu_fusion", int64_t{1});
  if (c.swiglu_attrs) {
    t.Attr("activation_alpha", c.alpha).Attr("activation_beta", c.beta);
    t.Attr("swiglu_limit", c.limit);
  }
  t.Input<float>(c.x_dims, d.x).Input<float>({Rows(c), E}, d.logits);
  t.Input<float>({E, F1(c), H}, d.w1, true);
  if (c.bias1) {
    t.Input<float>({E, F1(c)}, d.b1, true);
  } else {
    t.MissingInput();
  }
  t.Input<float>({E, H, c.inter}, d.w2, true);
  if (c.bias2 || c.fc3) {
    if (c.bias2) {
      t.Input<float>({E, H}, d.b2);
    } else {
      t.MissingInput();
    }
  }
  if (c.fc3) {
    t.Input<float>({E, c.inter, H}, d.w3);
    if (c.bias3) t.Input<float>({E, c.inter}, d.b3);
  }
  return t;
}

void Check(const Config& c, uint32_t seed, const std::string& what) {
  SCOPED_TRACE(what);
  const Data d = MakeData(c, seed);
  const std::vector<double> want = Reference(c, d);
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    auto out = Build(c, d).Run(threads);
    EXPECT_EQ(out[0]->shape().dims().size(), c.x_dims.size());
    ExpectClose(*out[0], want, 1e-4, 1e-4);
  }
}

TEST(ContribMoE, ActivationsKAndNormalization) {
  uint32_t seed = 10;
  for (const char* act : {"relu", "gelu", "silu", "identity"}) {
    for (int64_t k : {1, 2}) {
      for (bool normalize : {false, true}) {
        for (int biases = 0; biases < 3; ++biases) {
          Config c;
          c.activation = act;
          c.k = k;
          c.normalize = normalize;
          c.bias1 = biases >= 1;
          c.bias2 = biases >= 2;
          Check(c, seed++,
                std::string(act) + " k=" + std::to_string(k) + " normalize=" +
                    std::to_string(normalize) + " biases=" + std::to_string(biases));
        }
      }
    }
  }
}

TEST(ContribMoE, SwiGlu) {
  Config c;
  c.activation = "swiglu";
  Check(c, 100, "defaults");
  c.bias1 = c.bias2 = true;
  c.swiglu_attrs = true;
  c.alpha = 1.702f;
  c.beta = 1.0f;
  c.limit = 0.75f;  // clamps many of the gate and linear values
  Check(c, 101, "gpt-oss form");
  c.k = 1;
  c.normalize = true;
  c.limit = 7.0f;
  Check(c, 102, "k=1 normalized");
}

TEST(ContribMoE, Fc3Gate) {
  Config c;
  c.fc3 = true;
  c.activation = "silu";
  Check(c, 200, "silu, no biases");
  c.bias1 = c.bias3 = true;
  Check(c, 201, "fc1 and fc3 biases, no fc2 bias");
  c.bias2 = true;
  c.activation = "gelu";
  c.k = 1;
  Check(c, 202, "gelu, every bias");
}

TEST(ContribMoE, ThreeDimensionalAndLarger) {
  Config c;
  c.x_dims = {2, 3, 8};
  c.experts = 8;
  c.inter = 16;
  c.k = 2;
  c.bias1 = c.bias2 = true;
  Check(c, 300, "3-D");
  c.x_dims = {70, 16};  // enough rows for every expert, spread over threads
  c.experts = 6;
  c.k = 3;
  c.activation = "silu";
  Check(c, 301, "70 rows");
  c.x_dims = {1, 4};
  c.experts = 1;
  c.k = 1;
  Check(c, 302, "one expert");
  c.x_dims = {0, 4};
  Check(c, 303, "no rows");
}

// Ties go to the higher expert index; a NaN logit leaves the row 0 (every weight NaN).
TEST(ContribMoE, TiesAndNaN) {
  Config c;
  c.x_dims = {3, 4};
  c.activation = "identity";
  Data d = MakeData(c, 400);
  d.logits = {0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0};
  std::vector<double> want = Reference(c, d);
  ExpectClose(*Build(c, d).Run()[0], want, 1e-4, 1e-4);
  d.logits[5] = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 4; i < 8; ++i) want[i] = 0.0;
  ExpectClose(*Build(c, d).Run()[0], want, 1e-4, 1e-4);
}

// ONNX Runtime's legacy shapes ([E, hidden, F] and [E, inter, hidden]): accepted, and the data
// read as [E, F, hidden] and [E, hidden, inter].
TEST(ContribMoE, LegacyShapesReadAsUsual) {
  Config c;
  const Data d = MakeData(c, 500);
  const std::vector<double> want = Reference(c, d);
  const int64_t E = c.experts;
  const int64_t H = c.x_dims.back();
  auto out = NodeTest("MoE", 1, kMs)
                 .Attr("k", c.k)
                 .Attr("activation_type", "relu")
                 .Input<float>(c.x_dims, d.x)
                 .Input<float>({Rows(c), E}, d.logits)
                 .Input<float>({E, H, c.inter}, d.w1)
                 .MissingInput()
                 .Input<float>({E, c.inter, H}, d.w2)
                 .Run();
  ExpectClose(*out[0], want, 1e-4, 1e-4);
}

TEST(ContribMoE, Defaults) {  // k 1, relu
  Config c;
  c.k = 1;
  const Data d = MakeData(c, 600);
  const int64_t E = c.experts;
  const int64_t H = c.x_dims.back();
  auto out = NodeTest("MoE", 1, kMs)
                 .Input<float>(c.x_dims, d.x)
                 .Input<float>({Rows(c), E}, d.logits)
                 .Input<float>({E, c.inter, H}, d.w1)
                 .MissingInput()
                 .Input<float>({E, H, c.inter}, d.w2)
                 .Run();
  ExpectClose(*out[0], Reference(c, d), 1e-4, 1e-4);
}

TEST(ContribMoE, Errors) {
  Config c;
  const Data d = MakeData(c, 700);
  auto base = [&](const Config& cc) { return Build(cc, MakeData(cc, 700)); };
  {
    Config bad = c;
    bad.k = 5;
    ExpectNodeError(base(bad), ErrorCode::kInvalidArgument, "'k' is 5");
    bad.k = 0;
    ExpectNodeError(base(bad), ErrorCode::kInvalidGraph, "'k' is 0");
  }
  {
    Config bad = c;
    bad.activation = "tanh";
    ExpectNodeError(base(bad), ErrorCode::kInvalidGraph, "activation_type");
  }
  {
    Config one = c;
    one.k = 1;
    ExpectNodeError(base(one).Attr("use_sparse_mixer", int64_t{1}), ErrorCode::kInvalidGraph,
                    "use_sparse_mixer");
  }
  {
    Config sw = c;
    sw.activation = "swiglu";
    const Data ds = MakeData(sw, 701);
    NodeTest t("MoE", 1, kMs);
    t.Attr("k", int64_t{2}).Attr("activation_type", "swiglu").Attr("swiglu_fusion", int64_t{2});
    t.Input<float>(sw.x_dims, ds.x).Input<float>({5, 4}, ds.logits);
    t.Input<float>({4, 12, 4}, ds.w1).MissingInput().Input<float>({4, 4, 6}, ds.w2);
    ExpectNodeError(std::move(t), ErrorCode::kNotImplemented, "swiglu_fusion");
    Config gated = sw;
    gated.fc3 = true;
    ExpectNodeError(base(gated), ErrorCode::kNotImplemented, "fc3_experts_weights");
  }
  auto with = [&](const std::vector<int64_t>& x, const std::vector<int64_t>& r,
                  const std::vector<int64_t>& w1, const std::vector<int64_t>& w2) {
    auto count = [](const std::vector<int64_t>& s) {
      size_t n = 1;
      for (int64_t v : s) n *= static_cast<size_t>(v);
      return n;
    };
    NodeTest t("MoE", 1, kMs);
    t.Attr("k", int64_t{1});
    t.Input<float>(x, std::vector<float>(count(x), 0.5f));
    t.Input<float>(r, std::vector<float>(count(r), 0.5f));
    t.Input<float>(w1, std::vector<float>(count(w1), 0.5f)).MissingInput();
    t.Input<float>(w2, std::vector<float>(count(w2), 0.5f));
    return t;
  };
  ExpectNodeError(with({4}, {1, 4}, {4, 6, 4}, {4, 4, 6}), ErrorCode::kInvalidArgument,
                  "input 'input' has shape [4]");
  ExpectNodeError(with({5, 4}, {5, 4, 1}, {4, 6, 4}, {4, 4, 6}), ErrorCode::kInvalidArgument,
                  "input 'router_probs'");
  ExpectNodeError(with({5, 4}, {5, 4}, {3, 6, 4}, {4, 4, 6}), ErrorCode::kInvalidArgument,
                  "input 'fc1_experts_weights' has shape [3,6,4]; it must be [4,6,4]");
  ExpectNodeError(with({5, 4}, {5, 4}, {4, 6, 4}, {4, 4, 5}), ErrorCode::kInvalidArgument,
                  "inter size 5");
  ExpectNodeError(with({5, 4}, {6, 4}, {4, 6, 4}, {4, 4, 6}), ErrorCode::kInvalidArgument,
                  "input 'router_probs' has shape [6,4]; it must be [5,4]");
  ExpectNodeError(with({5, 0}, {5, 4}, {4, 6, 0}, {4, 0, 6}), ErrorCode::kInvalidArgument,
                  "last dimension");
  ExpectNodeError(
      with({5, 4}, {5, 4}, {4, 6, 4}, {4, 4, 6}).Input<float>({4, 5}, std::vector<float>(20, 0.0f)),
      ErrorCode::kInvalidArgument, "input 'fc2_experts_bias' has shape [4,5]");
  {
    NodeTest t("MoE", 1, kMs);
    t.Attr("k", int64_t{1});
    t.Input<float>({5, 4}, d.x).Input<float>({5, 4}, d.logits).Input<float>({4, 6, 4}, d.w1);
    t.Input<float>({4, 7}, std::vector<float>(28, 0.0f)).Input<float>({4, 4, 6}, d.w2);
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument, "input 'fc1_experts_bias'");
  }
  {
    NodeTest t("MoE", 1, kMs);
    t.Attr("k", int64_t{1});
    t.Input<float>({5, 4}, d.x).Input<float>({5, 4}, d.logits).Input<float>({4, 6, 4}, d.w1);
    t.MissingInput().Input<float>({4, 4, 6}, d.w2).MissingInput().MissingInput();
    t.Input<float>({4, 6}, std::vector<float>(24, 0.0f));
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument, "without fc3_experts_weights");
  }
  {
    NodeTest t("MoE", 1, kMs);
    t.Attr("k", int64_t{1});
    t.Input<double>({5, 4}, std::vector<double>(20, 0.0)).Input<float>({5, 4}, d.logits);
    t.Input<float>({4, 6, 4}, d.w1).MissingInput().Input<float>({4, 4, 6}, d.w2);
    ExpectNodeError(std::move(t), ErrorCode::kNotImplemented, "only float");
  }
}

}  // namespace
}  // namespace kiln::testing
