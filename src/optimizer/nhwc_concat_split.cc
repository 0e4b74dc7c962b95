// Level 3, after nhwc_layout: channel Concats that only 1×1 convolutions read are never written.
//
// A 1×1 convolution of a channel concatenation is the sum of the parts' products with the
// matching rows of W: NhwcConv(Concat(X_0, X_1, ...), W) = Σ X_i·W_i. So a Concat on the channel
// axis (3) of NHWC values, read only as input X of pointwise NhwcConvs (1×1 kernel, one group,
// stride 1, no padding), goes: each reader takes the parts instead (inputs 0, 4, 5, ...) with
// attribute input_channels. SqueezeNet's fire modules end in such a Concat.
//
// Before that, a channel Concat read only by an NhwcMaxPool or NhwcAveragePool is moved after
// it (pooling acts on each channel alone: Pool(Concat(a, b)) = Concat(Pool(a), Pool(b))), so the
// Concat meets the convolution after the pool and goes too.
//
// nhwc_scale_fusion (the second pass here): a squeeze-and-excitation block's Mul(x, s), where s
// holds one value per image and channel computed from x itself (a global pool of x, then 1×1
// convolutions and unary activations) and the product is read only by a pointwise NhwcConv, goes
// into that convolution (attribute channel_scale, S as input 4): the scaled x is never written.
#include <optional>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool IsKilnOp(const ir::Node* n, const char* op) {
  return n != nullptr && n->domain() == kKilnDomain && n->op_type() == op;
}

// A Concat along the last of four axes (axis 3 or -1) with at least two inputs.
bool IsChannelConcat(const ir::Node* n) {
  if (!IsOp(n, "Concat") || n->inputs().size() < 2 || n->outputs().size() != 1) return false;
  const int64_t axis = IntAttrOf(n, "axis", 0);
  for (const ir::Value* in : n->inputs()) {
    if (in == nullptr) return false;
  }
  return axis == 3 || axis == -1;
}

// An elementwise activation of one input.
bool IsUnary(const ir::Node* n) {
  for (const char* op : {"Sigmoid", "Relu", "Tanh", "HardSigmoid", "HardSwish"}) {
    if (IsOp(n, op)) return n->inputs().size() == 1;
  }
  return false;
}

// The channels of an NHWC value, known from what made it: an NhwcConv (W's output channels), a
// pool (its input's), a Transpose to NHWC (the NCHW input's dimension 1). Otherwise unknown.
std::optional<int64_t> Channels(const PassContext& ctx, const ir::Value* v) {
  const ir::Node* p = v->producer();
  if (p == nullptr || p->outputs().empty() || p->outputs()[0] != v) return std::nullopt;
  if (IsKilnOp(p, "NhwcConv") && p->inputs().size() > 1) {
    const Tensor* w = ConstantOf(p->inputs()[1]);
    if (w == nullptr || w->shape().rank() != 4) return std::nullopt;
    return w->shape().dims()[0];
  }
  if ((IsKilnOp(p, "NhwcMaxPool") || IsKilnOp(p, "NhwcAveragePool") ||
       IsKilnOp(p, "NhwcGlobalAveragePool") || IsKilnOp(p, "NhwcGlobalMaxPool") || IsUnary(p)) &&
      !p->inputs().empty()) {
    return Channels(ctx, p->inputs()[0]);
  }
  if (IsOp(p, "Transpose")) {
    const ir::Attribute* perm = p->FindAttribute("perm");
    const infer::TensorFacts& f = ctx.Facts(p->inputs()[0]);
    if (perm == nullptr || perm->ints != std::vector<int64_t>{0, 2, 3, 1} || !f.shape ||
        f.shape->rank() != 4 || f.shape->dims()[1] < 0) {
      return std::nullopt;
    }
    return f.shape->dims()[1];
  }
  return std::nullopt;
}

// Pool(Concat(parts)) → Concat(Pool(part) for each part), for a Concat nothing else reads.
bool PoolFirst(ir::Graph& g, ir::Node* pool) {
  if (!IsKilnOp(pool, "NhwcMaxPool") && !IsKilnOp(pool, "NhwcAveragePool")) return false;
  if (pool->inputs().size() != 1 || pool->outputs().size() != 1 || pool->outputs()[0] == nullptr)
    return false;
  ir::Node* concat = ProducerIs(pool->inputs()[0], "Concat");
  if (!IsChannelConcat(concat) || OnlyConsumer(g, concat->outputs()[0]) != pool) return false;
  std::vector<ir::Value*> pooled;
  for (ir::Value* part : concat->inputs()) {
    ir::Value* out = g.AddValue(g.UniqueName(part->name() + "_pooled"));
    ir::Node* p = g.AddNode(g.UniqueName(pool->name() + "/part"), pool->op_type(), kKilnDomain);
    p->set_opset(pool->opset());
    p->attributes() = pool->attributes();
    g.Connect(p, {part}, {out});
    pooled.push_back(out);
  }
  Replace(g, {concat, pool}, "Concat", "", concat->opset(), std::move(pooled), {pool->outputs()[0]},
          {IntAttr("axis", 3)});
  return true;
}

// Whether the NhwcConv reads `v` as X only and is a 1×1 product over whole channels: constant
// W [M, C, 1, 1], one group, unit strides, no padding, not already split.
bool PointwiseReaderOf(const ir::Node* n, const ir::Value* v) {
  if (!IsKilnOp(n, "NhwcConv") || n->inputs().size() < 2 || n->inputs().size() > 4 ||
      n->inputs()[0] != v || n->FindAttribute("input_channels") != nullptr ||
      n->FindAttribute("channel_scale") != nullptr) {
    return false;
  }
  for (size_t i = 1; i < n->inputs().size(); ++i) {
    if (n->inputs()[i] == v) return false;
  }
  const Tensor* w = ConstantOf(n->inputs()[1]);
  if (w == nullptr || w->shape().rank() != 4 || w->shape().dims()[2] != 1 ||
      w->shape().dims()[3] != 1 || IntAttrOf(n, "group", 1) != 1) {
    return false;
  }
  const ir::Attribute* auto_pad = n->FindAttribute("auto_pad");
  if (auto_pad != nullptr && auto_pad->s != "NOTSET" && auto_pad->s != "VALID") return false;
  for (const char* name : {"strides", "pads"}) {
    const ir::Attribute* a = n->FindAttribute(name);
    if (a == nullptr) continue;
    for (int64_t x : a->ints) {
      if (x != (name[0] == 's' ? 1 : 0)) return false;
    }
  }
  return true;
}

// Concat(parts) read only by pointwise NhwcConvs → each reads the parts itself.
bool SplitConcat(PassContext& ctx, ir::Node* concat) {
  ir::Graph& g = ctx.graph;
  if (!IsChannelConcat(concat)) return false;
  ir::Value* joined = concat->outputs()[0];
  const std::vector<ir::Node*> readers = joined->consumers();
  if (readers.empty() || !OnlyReadBy(g, joined, {readers.begin(), readers.end()})) return false;
  for (const ir::Node* r : readers) {
    if (!PointwiseReaderOf(r, joined)) return false;
    for (const ir::Value* in : r->implicit_inputs()) {
      if (in == joined) return false;
    }
  }
  std::vector<int64_t> channels;
  for (const ir::Value* part : concat->inputs()) {
    const std::optional<int64_t> c = Channels(ctx, part);
    if (!c || *c <= 0) return false;
    channels.push_back(*c);
  }
  for (ir::Node* r : readers) {
    std::vector<ir::Value*> inputs = r->inputs();
    inputs.resize(4, nullptr);  // B and Z stay where they were, absent ones empty
    inputs[0] = concat->inputs()[0];
    for (size_t i = 1; i < concat->inputs().size(); ++i) inputs.push_back(concat->inputs()[i]);
    std::vector<ir::Attribute> attrs = r->attributes();
    attrs.push_back(IntsAttr("input_channels", channels));
    Replace(g, {r}, r->op_type(), r->domain(), r->opset(), std::move(inputs), r->outputs(),
            std::move(attrs));
  }
  g.RemoveNode(concat);
  return true;
}

// When v holds one value per image and channel of `x` ([N, 1, 1, C] for x [N, H, W, C]): a global
// pool of x, then any pointwise NhwcConvs (without Z) and unary activations of that.
bool PerChannelOf(const ir::Value* v, const ir::Value* x, int depth = 0) {
  const ir::Node* p = v->producer();
  if (depth > 16 || p == nullptr || p->inputs().empty() || p->outputs().size() != 1) return false;
  if (IsKilnOp(p, "NhwcGlobalAveragePool") || IsKilnOp(p, "NhwcGlobalMaxPool")) {
    return p->inputs()[0] == x;
  }
  if (IsKilnOp(p, "NhwcConv")) {
    const bool no_z = p->inputs().size() < 4 || p->inputs()[3] == nullptr;
    return no_z && PointwiseReaderOf(p, p->inputs()[0]) &&
           PerChannelOf(p->inputs()[0], x, depth + 1);
  }
  return IsUnary(p) && PerChannelOf(p->inputs()[0], x, depth + 1);
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

}  // namespace

size_t FuseNhwcChannelScale(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseScale(ctx, n); });
}

size_t SplitNhwcConcats(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv")) return 0;
  RewriteAll(g, [&](ir::Node* n) { return PoolFirst(g, n); });
  const size_t split = RewriteAll(g, [&](ir::Node* n) { return SplitConcat(ctx, n); });
  EliminateDeadCode(ctx);
  return split;
}

}  // namespace kiln::optimizer
