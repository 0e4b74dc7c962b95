// Level 3, after nhwc_concat_split: a squeeze-and-excitation block's Mul(x, s), where s holds one
// value per image and channel computed from x itself (a global pool of x, then 1×1 NhwcConvs and
// unary activations) and the product is read only by a pointwise NhwcConv, goes into that
// convolution (attribute channel_scale, S as input 4): each block of x is scaled into the
// scratch the product reads, and the scaled x is never written (EfficientNet's SE blocks).
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

}  // namespace

size_t FuseNhwcChannelScale(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv")) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseScale(ctx, n); });
}

}  // namespace kiln::optimizer
