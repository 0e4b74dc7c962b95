// QMoE (com.microsoft): random quantized weights, dequantized here by an independent reference of
// ONNX Runtime's format (the bits-wide field of byte c / pack at bit (c % pack)·bits, scale ·
// (q - zero point), zero point 2^(bits-1) when none is given, zero points packed along the rows or
// the blocks), and the output compared with MoE's on those weights, normalized (QMoE's routing,
// the softmax of the k largest logits, is MoE's normalized one): 2, 4 and 8 bits, per-row and
// block-wise scales, zero points, biases, swiglu, constant and fed weights, 1 and 2 threads, and
// the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/contrib/contrib_test_util.h"
#include "kernels/test_errors.h"

namespace kiln::testing {
namespace {

struct Config {
  std::vector<int64_t> x_dims{6, 32};
  int64_t experts = 4;
  int64_t inter = 16;
  int64_t k = 2;
  int64_t bits = 4;
  int64_t block = 0;  // 0: per row
  std::string activation = "relu";
  bool biases = false;
  bool zero_points = false;
  bool constant = false;
};

// One fc's quantized weights [E, rows, cols / pack], scales, zero points and the float weights
// [E, rows, cols] they stand for.
struct Quantized {
  std::vector<int64_t> q_dims, s_dims, z_dims;
  std::vector<uint8_t> q, z;
  std::vector<float> s, w;
};

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  const std::vector<float> f = RandomFloats(n, seed, 0.0f, 255.99f);
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(f[i]);
  return b;
}

Quantized Quantize(const Config& c, int64_t rows, int64_t cols, uint32_t seed) {
  const int64_t pack = 8 / c.bits;
  const int64_t E = c.experts;
  const int64_t nb = c.block > 0 ? (cols + c.block - 1) / c.block : 1;
  Quantized out;
  out.q_dims = {E, rows, cols / pack};
  out.s_dims = c.block > 0 ? std::vector<int64_t>{E, rows, nb} : std::vector<int64_t>{E, rows};
  out.z_dims = nb > 1 ? std::vector<int64_t>{E, rows, (nb + pack - 1) / pack}
                      : std::vector<int64_t>{E, (rows + pack - 1) / pack};
  out.q = RandomBytes(static_cast<size_t>(E * rows * cols / pack), seed);
  const float top = 2.0f / static_cast<float>(cols << (c.bits - 1));
  out.s = RandomFloats(static_cast<size_t>(E * rows * nb), seed + 1, top * 0.1f, top);
  size_t zn = 1;
  for (int64_t d : out.z_dims) zn *= static_cast<size_t>(d);
  out.z = RandomBytes(zn, seed + 2);
  out.w.resize(static_cast<size_t>(E * rows * cols));
  const int mask = (1 << c.bits) - 1;
  for (int64_t e = 0; e < E; ++e) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t col = 0; col < cols; ++col) {
        const int64_t byte = (e * rows + r) * (cols / pack) + col / pack;
        const int q = (out.q[static_cast<size_t>(byte)] >> (col % pack * c.bits)) & mask;
        const int64_t b = c.block > 0 ? col / c.block : 0;
        int zero = 1 << (c.bits - 1);
        if (c.zero_points) {
          // Per row: zero point (e, r) is field r % pack of byte e·ceil(rows / pack) + r / pack;
          // per block (more than one a row): field b % pack of byte (e·rows + r)·ceil(nb / pack)
          // + b / pack.
          const bool blocks = nb > 1;
          const int64_t unit = blocks ? b : r;
          const int64_t zb = blocks ? (e * rows + r) * ((nb + pack - 1) / pack) + b / pack
                                    : e * ((rows + pack - 1) / pack) + r / pack;
          zero = (out.z[static_cast<size_t>(zb)] >> (unit % pack * c.bits)) & mask;
        }
        const float scale = out.s[static_cast<size_t>((e * rows + r) * nb + b)];
        out.w[static_cast<size_t>((e * rows + r) * cols + col)] =
            scale * static_cast<float>(q - zero);
      }
    }
  }
  return out;
}

std::vector<double> Values(const Tensor& t) {
  const auto* p = static_cast<const float*>(t.data());
  return std::vector<double>(p, p + t.element_count());
}

struct Case {
  Config c;
  std::vector<float> x, logits, b1, b2;
  Quantized fc1, fc2;
};

int64_t Rows(const Config& c) {
  return c.x_dims.size() == 2 ? c.x_dims[0] : c.x_dims[0] * c.x_dims[1];
}

Case Make(const Config& c, uint32_t seed) {
  Case k;
  k.c = c;
  const int64_t H = c.x_dims.back();
  const int64_t F = c.activation == "swiglu" ? 2 * c.inter : c.inter;
  k.x = RandomFloats(static_cast<size_t>(Rows(c) * H), seed, -1.5f, 1.5f);
  k.logits = RandomFloats(static_cast<size_t>(Rows(c) * c.experts), seed + 1, -3.0f, 3.0f);
  k.b1 = RandomFloats(static_cast<size_t>(c.experts * F), seed + 2, -0.5f, 0.5f);
  k.b2 = RandomFloats(static_cast<size_t>(c.experts * H), seed + 3, -0.5f, 0.5f);
  k.fc1 = Quantize(c, F, H, seed + 10);
  k.fc2 = Quantize(c, H, c.inter, seed + 20);
  return k;
}

void Attrs(NodeTest& t, const Config& c) {
  t.Attr("k", c.k).Attr("activation_type", c.activation);
  if (c.activation == "swiglu") {
    t.Attr("swiglu_fusion", int64_t{1}).Attr("activation_alpha", 1.702f);
    t.Attr("activation_beta", 1.0f).Attr("swiglu_limit", 7.0f);
  }
}

NodeTest BuildQ(const Case& k) {
  const Config& c = k.c;
  NodeTest t("QMoE", 1, kMs);
  Attrs(t, c);
  t.Attr("expert_weight_bits", c.bits);
  if (c.block > 0) t.Attr("block_size", c.block);
  const int64_t F = k.fc1.q_dims[1];
  t.Input<float>(c.x_dims, k.x).Input<float>({Rows(c), c.experts}, k.logits);
  t.Input<uint8_t>(k.fc1.q_dims, k.fc1.q, c.constant)
      .Input<float>(k.fc1.s_dims, k.fc1.s, c.constant);
  if (c.biases) {
    t.Input<float>({c.experts, F}, k.b1);
  } else {
    t.MissingInput();
  }
  t.Input<uint8_t>(k.fc2.q_dims, k.fc2.q, c.constant)
      .Input<float>(k.fc2.s_dims, k.fc2.s, c.constant);
  if (c.biases) {
    t.Input<float>({c.experts, c.x_dims.back()}, k.b2);
  } else if (c.zero_points) {
    t.MissingInput();
  }
  if (c.zero_points) {
    t.MissingInput().MissingInput().MissingInput();
    t.Input<uint8_t>(k.fc1.z_dims, k.fc1.z, c.constant);
    t.Input<uint8_t>(k.fc2.z_dims, k.fc2.z, c.constant);
  }
  return t;
}

// MoE on the reference's float weights.
NodeTest BuildFloat(const Case& k) {
  const Config& c = k.c;
  NodeTest t("MoE", 1, kMs);
  Attrs(t, c);
  t.Attr("normalize_routing_weights", int64_t{1});
  const int64_t F = k.fc1.q_dims[1];
  const int64_t H = c.x_dims.back();
  t.Input<float>(c.x_dims, k.x).Input<float>({Rows(c), c.experts}, k.logits);
  t.Input<float>({c.experts, F, H}, k.fc1.w);
  if (c.biases) {
    t.Input<float>({c.experts, F}, k.b1);
  } else {
    t.MissingInput();
  }
  t.Input<float>({c.experts, H, c.inter}, k.fc2.w);
  if (c.biases) t.Input<float>({c.experts, H}, k.b2);
  return t;
}

void Check(const Config& c, uint32_t seed, const std::string& what) {
  SCOPED_TRACE(what);
  const Case k = Make(c, seed);
  auto want = BuildFloat(k).Run();
  const std::vector<double> ref = Values(*want[0]);
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    auto out = BuildQ(k).Run(threads);
    EXPECT_EQ(out[0]->shape().dims(), want[0]->shape().dims());
    ExpectClose(*out[0], ref, 1e-5, 1e-5);
  }
}

TEST(ContribQMoE, BitsScalesZeroPointsBiases) {
  uint32_t seed = 10;
  for (int64_t bits : {2, 4, 8}) {
    for (int64_t block : {0, 16}) {
      for (bool zp : {false, true}) {
        for (bool biases : {false, true}) {
          Config c;
          c.bits = bits;
          c.block = block;
          c.zero_points = zp;
          c.biases = biases;
          c.constant = (seed % 2) == 0;
          Check(c, seed++,
                "bits " + std::to_string(bits) + " block " + std::to_string(block) + " zp " +
                    std::to_string(zp) + " biases " + std::to_string(biases));
        }
      }
    }
  }
}

TEST(ContribQMoE, SwiGluActivationsAndShapes) {
  uint32_t seed = 100;
  for (bool constant : {false, true}) {
    for (const char* act : {"swiglu", "gelu", "silu", "identity"}) {
      Config c;
      c.activation = act;
      c.bits = act[0] == 's' ? 4 : 8;
      c.block = 32;
      c.zero_points = constant;
      c.biases = true;
      c.constant = constant;
      Check(c, seed++, std::string(act) + (constant ? " constant" : " fed"));
    }
  }
  Config c;
  c.x_dims = {2, 3, 32};
  c.experts = 6;
  c.k = 3;
  c.block = 32;  // fc2's inter 16 < 32: one block, read per row
  c.zero_points = true;
  Check(c, 200, "3-D, one block for fc2");
  c.x_dims = {0, 32};
  Check(c, 201, "no rows");
  c.x_dims = {40, 64};
  c.k = 1;
  c.inter = 48;
  c.block = 0;
  c.constant = true;
  Check(c, 202, "40 rows, k 1");
}

// Ties go to the higher expert; equal logits share the weight.
TEST(ContribQMoE, Ties) {
  Config c;
  c.x_dims = {2, 32};
  Case k = Make(c, 300);
  k.logits = {1, 1, 1, 0, 0, 2, 2, 2};
  auto out = BuildQ(k).Run();
  auto want = BuildFloat(k).Run();
  ExpectClose(*out[0], Values(*want[0]), 1e-5, 1e-5);
}

TEST(ContribQMoE, Errors) {
  Config c;
  const Case k = Make(c, 400);
  auto with = [&](int64_t bits, int64_t top) {
    Case bad = k;
    bad.c.bits = bits;
    bad.c.k = top;
    return BuildQ(bad);
  };
  ExpectNodeError(with(3, 2), ErrorCode::kInvalidGraph, "'expert_weight_bits' is 3");
  ExpectNodeError(BuildQ(k).Attr("block_size", int64_t{24}), ErrorCode::kInvalidGraph,
                  "'block_size' is 24");
  ExpectNodeError(BuildQ(k).Attr("quant_type", "fp4"), ErrorCode::kNotImplemented, "quant_type");
  ExpectNodeError(with(4, 5), ErrorCode::kInvalidArgument, "'k' is 5");
  // 8 bits: the 4-bit weights are half the width they must be (and fc2 gives inter 8).
  ExpectNodeError(with(8, 2), ErrorCode::kInvalidArgument,
                  "input 'fc1_experts_weights' has shape [4,16,16]; it must be [4,8,32]");
  // block_size 16 with per-row scales.
  ExpectNodeError(BuildQ(k).Attr("block_size", int64_t{16}), ErrorCode::kInvalidArgument,
                  "input 'fc1_scales' has shape [4,16]; it must be [4,16,2]");
  {
    Case bad = k;
    bad.fc2.s_dims = {4, 16};
    bad.fc2.s.resize(64);
    ExpectNodeError(BuildQ(bad), ErrorCode::kInvalidArgument,
                    "input 'fc2_scales' has shape [4,16]; it must be [4,32]");
  }
  {
    Config zc = c;
    zc.zero_points = true;
    Case bad = Make(zc, 401);
    bad.fc1.z_dims = {4, 16};
    bad.fc1.z.resize(64);
    ExpectNodeError(BuildQ(bad), ErrorCode::kInvalidArgument,
                    "input 'fc1_zero_points' has shape [4,16]; it must be [4,8]");
    bad = Make(zc, 402);
    bad.fc2.z = std::vector<uint8_t>(bad.fc2.z.size());
    NodeTest t = BuildQ(bad);
    t.MissingInput().Input<float>({6, 4}, std::vector<float>(24, 0.0f));
    ExpectNodeError(std::move(t), ErrorCode::kNotImplemented, "input 'router_weights' is given");
  }
  {
    NodeTest t("QMoE", 1, kMs);
    t.Input<float>(c.x_dims, k.x).Input<float>({6, 4}, k.logits);
    t.Input<uint8_t>(k.fc1.q_dims, k.fc1.q).Input<float>(k.fc1.s_dims, k.fc1.s).MissingInput();
    t.Input<uint8_t>(k.fc2.q_dims, k.fc2.q).Input<float>(k.fc2.s_dims, k.fc2.s);
    t.Input<float>({4, 31}, std::vector<float>(size_t{4} * 31));
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument,
                    "input 'fc2_experts_bias' has shape [4,31]; it must be [4,32]");
  }
  {
    NodeTest t("QMoE", 1, kMs);
    t.Input<float>(c.x_dims, k.x).Input<float>({6, 4}, k.logits);
    t.Input<float>(k.fc1.q_dims, std::vector<float>(k.fc1.q.size()));
    t.Input<float>(k.fc1.s_dims, k.fc1.s).MissingInput();
    t.Input<uint8_t>(k.fc2.q_dims, k.fc2.q).Input<float>(k.fc2.s_dims, k.fc2.s);
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument,
                    "input 'fc1_experts_weights' is float; it must be uint8");
  }
  {
    NodeTest t("QMoE", 1, kMs);
    t.Input<float>(c.x_dims, k.x).Input<float>({6, 4}, k.logits);
    t.Input<uint8_t>(k.fc1.q_dims, k.fc1.q).MissingInput().MissingInput();
    t.Input<uint8_t>(k.fc2.q_dims, k.fc2.q).Input<float>(k.fc2.s_dims, k.fc2.s);
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument, "input 'fc1_scales' is required");
  }
  {
    NodeTest t("QMoE", 1, kMs);
    t.Input<float>({6, 31}, std::vector<float>(size_t{6} * 31)).Input<float>({6, 4}, k.logits);
    t.Input<uint8_t>(k.fc1.q_dims, k.fc1.q).Input<float>(k.fc1.s_dims, k.fc1.s).MissingInput();
    t.Input<uint8_t>(k.fc2.q_dims, k.fc2.q).Input<float>(k.fc2.s_dims, k.fc2.s);
    ExpectNodeError(std::move(t), ErrorCode::kInvalidArgument, "a multiple of 2");
  }
  {
    Config g = c;
    g.activation = "swiglu";
    Case sw = Make(g, 403);
    NodeTest t = BuildQ(sw);
    t.MissingInput().Input<uint8_t>({4, 16, 16}, std::vector<uint8_t>(1024));
    ExpectNodeError(std::move(t), ErrorCode::kNotImplemented, "fc3_experts_weights");
  }
}

}  // namespace
}  // namespace kiln::testing
