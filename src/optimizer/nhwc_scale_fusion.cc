// Level 3, after nhwc_concat_split: a squeeze-and-excitation block's Mul(x, s), where s holds one
// value per image and channel computed from x itself (a global pool of x, then 1×1 NhwcConvs and
// unary activations) and the product is read only by a pointwise NhwcConv, goes into that
// convolution (attribute channel_scale, S as input 4): each block of x is scaled into the
// scratch the product reads, and the scaled x is never written (EfficientNet's SE blocks).
//
// And a per-channel affine map of constants with a ReLU after it, Relu(Add(Mul(x, S), T)) with
// any one or two of the three left out (but not the Relu alone), each read only by the next and
// the last only by a pointwise NhwcConv, goes into that convolution too (channel_scale with S, or
// ones; channel_shift with T; channel_relu): DenseNet's inference BatchNormalization and ReLU
// before each 1×1 convolution (the layout pass makes the normalization a Mul and an Add), three
// passes over a large concatenation, become part of the product's copy of X.
#include <algorithm>
#include <optional>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// When v holds one value per image and channel of `x` ([N, 1, 1, C] for x [N, H, W, C]): a global
// pool of x, then any pointwise NhwcConvs (without Z) and unary activations of that. (The pool
// must be of x itself, so that the batch sizes agree.)
bool PerChannelOf(const ir::Value* v, const ir::Value* x, int depth = 0) {
  const ir::Node* p = v != nullptr ? v->producer() : nullptr;
  if (depth > 16 || p == nullptr || p->outputs().size() != 1) return false;
  if (IsKilnOp(p, "NhwcGlobalAveragePool") || IsKilnOp(p, "NhwcGlobalMaxPool")) {
    return p->inputs()[0] == x;
  }
  if (IsKilnOp(p, "NhwcConv")) {
    const bool no_z = p->inputs().size() < 4 || p->inputs()[3] == nullptr;
    return no_z && PointwiseReaderOf(p, p->inputs()[0]) &&
           PerChannelOf(p->inputs()[0], x, depth + 1);
  }
  return IsUnary(p) && HasRequiredInputs(p, 1) && PerChannelOf(p->inputs()[0], x, depth + 1);
}

// Mul(x, s) with s per channel of x, read only by a pointwise NhwcConv → that NhwcConv with
// channel_scale and S = s.
bool FuseScale(PassContext& ctx, ir::Node* mul) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(mul, "Mul") || mul->inputs().size() != 2 || mul->outputs().size() != 1) return false;
  ir::Value* product = mul->outputs()[0];
  ir::Node* reader = OnlyConsumer(g, product);
  if (!PointwiseReaderOf(reader, product)) return false;
  const int64_t c = ConstantOf(reader->inputs()[1])->shape().dims()[1];
  for (int side = 0; side < 2; ++side) {
    ir::Value* x = mul->inputs()[side];
    ir::Value* s = mul->inputs()[1 - side];
    if (x == nullptr || s == nullptr || !PerChannelOf(s, x)) continue;
    if (Channels(ctx, x) != c || Channels(ctx, s) != c) return false;
    std::vector<ir::Value*> inputs = reader->inputs();
    inputs.resize(4, nullptr);
    inputs[0] = x;
    inputs.push_back(s);
    std::vector<ir::Attribute> attrs = reader->attributes();
    attrs.push_back(IntAttr("channel_scale", 1));
    Replace(g, {mul, reader}, reader->op_type(), reader->domain(), reader->opset(),
            std::move(inputs), reader->outputs(), std::move(attrs));
    return true;
  }
  return false;
}

// The c values of a float constant of shape [c] or [1, ..., 1, c]: one per channel of an NHWC
// tensor, by broadcasting.
std::optional<std::vector<float>> PerChannelConstant(const ir::Value* v, int64_t c) {
  const Tensor* t = ConstantOf(v);
  if (t == nullptr || t->type() != DataType::kFloat || t->shape().rank() == 0) {
    return std::nullopt;
  }
  const std::vector<int64_t>& d = t->shape().dims();
  if (d.back() != c) return std::nullopt;
  for (size_t i = 0; i + 1 < d.size(); ++i) {
    if (d[i] != 1) return std::nullopt;
  }
  return FloatsOf(v);
}

// For a binary node `n` (Mul or Add) of x and a per-channel constant: x, with the constant's
// values in `values`; nullptr otherwise.
ir::Value* PerChannelOperand(const ir::Node* n, int64_t c,
                             std::optional<std::vector<float>>* values) {
  if (n->inputs().size() != 2 || n->outputs().size() != 1) return nullptr;
  for (int side = 0; side < 2; ++side) {
    ir::Value* x = n->inputs()[side];
    if (x == nullptr || ConstantOf(x) != nullptr) continue;
    *values = PerChannelConstant(n->inputs()[1 - side], c);
    if (*values) return x;
  }
  return nullptr;
}

// [Mul(x, S)] → [Add(·, T)] → [Relu] → pointwise NhwcConv (at least the Mul or the Add) → that
// NhwcConv with channel_scale (S, or ones), channel_shift (T) and channel_relu.
bool FuseAffine(PassContext& ctx, ir::Node* reader) {
  ir::Graph& g = ctx.graph;
  if (!IsKilnOp(reader, "NhwcConv") || reader->inputs().empty()) return false;
  ir::Value* v = reader->inputs()[0];
  if (!PointwiseReaderOf(reader, v)) return false;
  const int64_t c = ConstantOf(reader->inputs()[1])->shape().dims()[1];
  std::vector<ir::Node*> chain;  // from the reader back
  const ir::Node* next = reader;
  // Steps back over v's producer when it is `op` and v is read only by `next`.
  const auto producer = [&](std::string_view op) -> ir::Node* {
    ir::Node* p = v != nullptr ? v->producer() : nullptr;
    if (!IsOp(p, op) || OnlyConsumer(g, v) != next || p->outputs().size() != 1) {
      return nullptr;
    }
    return p;
  };
  bool relu = false;
  if (ir::Node* p = producer("Relu"); p != nullptr && p->inputs().size() == 1) {
    relu = true;
    chain.push_back(p);
    v = p->inputs()[0];
    next = p;
  }
  // Steps back over an `op` of v and a per-channel constant, whose values go to `values`.
  const auto absorb = [&](std::string_view op, std::optional<std::vector<float>>* values) {
    ir::Node* p = producer(op);
    ir::Value* x = p != nullptr ? PerChannelOperand(p, c, values) : nullptr;
    if (x == nullptr) return;
    chain.push_back(p);
    v = x;
    next = p;
  };
  std::optional<std::vector<float>> shift;
  absorb("Add", &shift);
  std::optional<std::vector<float>> scale;
  absorb("Mul", &scale);
  if (!scale && !shift) return false;
  // x itself has the c channels (the constants broadcast over nothing else).
  const infer::TensorFacts& f = ctx.Facts(v);
  if (v == nullptr || !f.shape || f.shape->rank() != 4 || f.shape->dims()[3] != c ||
      f.type != DataType::kFloat) {
    return false;
  }
  std::vector<ir::Value*> inputs = reader->inputs();
  inputs.resize(4, nullptr);
  inputs[0] = v;
  const auto uc = static_cast<size_t>(c);
  inputs.push_back(
      AddConstant(g, reader->name() + "_channel_scale",
                  FloatTensor({1, 1, 1, c}, scale ? *scale : std::vector<float>(uc, 1.0f))));
  std::vector<ir::Attribute> attrs = reader->attributes();
  attrs.push_back(IntAttr("channel_scale", 1));
  if (shift) {
    inputs.push_back(
        AddConstant(g, reader->name() + "_channel_shift", FloatTensor({1, 1, 1, c}, *shift)));
    attrs.push_back(IntAttr("channel_shift", 1));
  }
  if (relu) attrs.push_back(IntAttr("channel_relu", 1));
  chain.insert(chain.begin(), reader);
  Replace(g, chain, reader->op_type(), reader->domain(), reader->opset(), std::move(inputs),
          reader->outputs(), std::move(attrs));
  return true;
}

}  // namespace

size_t FuseNhwcChannelScale(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv")) return 0;
  size_t count = RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseScale(ctx, n); });
  // The affine form needs X's shape: the layout pass made the NHWC values after the last
  // inference, so infer again, but only when some pointwise NhwcConv reads a Relu, Add or Mul.
  const std::vector<ir::Node*> order = ctx.graph.TopologicalOrder();
  const bool candidate = std::any_of(order.begin(), order.end(), [](const ir::Node* n) {
    if (!IsKilnOp(n, "NhwcConv") || n->inputs().empty() || !PointwiseReaderOf(n, n->inputs()[0])) {
      return false;
    }
    const ir::Value* x = n->inputs()[0];
    return ProducerIs(x, "Relu") != nullptr || ProducerIs(x, "Add") != nullptr ||
           ProducerIs(x, "Mul") != nullptr;
  });
  if (candidate && InferFactsAgain(ctx)) {
    count += RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseAffine(ctx, n); });
  }
  return count;
}

}  // namespace kiln::optimizer
