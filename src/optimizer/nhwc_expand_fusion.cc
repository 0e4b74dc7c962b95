// Level 3, after nhwc_scale_fusion: an inverted-residual block's 1×1 expansion (a pointwise
// NhwcConv without Z, read only by the next node) goes into the depthwise NhwcConv that reads it
// (attribute expand; WE and BE as inputs 4 and 5, the expansion's activation as
// expand_activation(_params)), when that layer is one the depthwise fast path runs (3×3 or 5×5,
// one channel per group, a multiple of 16 channels, horizontal stride 1 or 2, no dilation) and the
// expanded map is at least kMinExpandedBytes an image. The kernel then expands a few rows at a
// time into scratch that stays in L2 (MobileNetV2's and EfficientNet-B0's 112×112 and 56×56
// blocks: 1.2–4.8 MB an image that the two layers would write and read back).
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// Smaller expanded maps (28×28 and below in MobileNetV2) stay in L2 between the two layers.
constexpr int64_t kMinExpandedBytes = int64_t{1} << 20;

// Whether the ints attribute `name` is absent or has two entries, both 1, or for strides a
// positive vertical one and a horizontal one of 1 or 2.
bool IntsAre(const ir::Node* n, const char* name, bool strides) {
  const ir::Attribute* a = n->FindAttribute(name);
  if (a == nullptr) return true;
  if (a->ints.size() != 2) return false;
  if (strides) return a->ints[0] > 0 && (a->ints[1] == 1 || a->ints[1] == 2);
  return a->ints[0] == 1 && a->ints[1] == 1;
}

// The expanding NhwcConv whose output the depthwise NhwcConv `dw` reads as X, when the two can
// be fused; else nullptr.
ir::Node* ExpansionOf(const ir::Graph& g, const ir::Node* dw) {
  if (!IsKilnOp(dw, "NhwcConv") || dw->inputs().size() < 2 || dw->inputs().size() > 4 ||
      dw->outputs().size() != 1 || dw->FindAttribute("input_channels") != nullptr ||
      dw->FindAttribute("channel_scale") != nullptr || dw->FindAttribute("expand") != nullptr ||
      !IntsAre(dw, "strides", true) || !IntsAre(dw, "dilations", false)) {
    return nullptr;
  }
  const Tensor* w = ConstantOf(dw->inputs()[1]);
  if (w == nullptr || w->shape().rank() != 4) return nullptr;
  const std::vector<int64_t>& d = w->shape().dims();
  const int64_t m = d[0];
  if (d[1] != 1 || d[2] != d[3] || (d[2] != 3 && d[2] != 5) || m % 16 != 0 ||
      IntAttrOf(dw, "group", 1) != m) {
    return nullptr;
  }
  ir::Value* x = dw->inputs()[0];
  for (size_t i = 1; i < dw->inputs().size(); ++i) {
    if (dw->inputs()[i] == x) return nullptr;
  }
  ir::Node* e = x->producer();
  if (e == nullptr || OnlyConsumer(g, x) != dw || e->outputs().size() != 1 ||
      !PointwiseReaderOf(e, e->inputs()[0]) ||
      (e->inputs().size() > 3 && e->inputs()[3] != nullptr)) {
    return nullptr;
  }
  const Tensor* we = ConstantOf(e->inputs()[1]);
  return we->shape().dims()[0] == m ? e : nullptr;
}

bool HasCandidate(const ir::Graph& g) {
  for (const auto& n : g.nodes()) {
    if (ExpansionOf(g, n.get()) != nullptr) return true;
  }
  return false;
}

bool FuseExpansion(PassContext& ctx, ir::Node* dw) {
  ir::Graph& g = ctx.graph;
  ir::Node* e = ExpansionOf(g, dw);
  if (e == nullptr) return false;
  // The expanded map's size an image, from its shape [N, H, W, M].
  const infer::TensorFacts& f = ctx.Facts(dw->inputs()[0]);
  if (!f.shape || f.shape->rank() != 4) return false;
  const std::vector<int64_t>& s = f.shape->dims();
  int64_t floats = 0;
  if (s[1] <= 0 || s[2] <= 0 || s[3] <= 0 || __builtin_mul_overflow(s[1], s[2], &floats) ||
      __builtin_mul_overflow(floats, s[3], &floats) ||
      floats < kMinExpandedBytes / static_cast<int64_t>(sizeof(float))) {
    return false;
  }
  std::vector<ir::Value*> inputs = dw->inputs();
  inputs.resize(4, nullptr);
  inputs[0] = e->inputs()[0];
  inputs.push_back(e->inputs()[1]);
  if (e->inputs().size() > 2 && e->inputs()[2] != nullptr) inputs.push_back(e->inputs()[2]);
  std::vector<ir::Attribute> attrs = dw->attributes();
  attrs.push_back(IntAttr("expand", 1));
  for (const char* name : {"activation", "activation_params"}) {
    const ir::Attribute* a = e->FindAttribute(name);
    if (a == nullptr) continue;
    ir::Attribute renamed = *a;
    renamed.name = std::string("expand_") + name;
    attrs.push_back(std::move(renamed));
  }
  Replace(g, {e, dw}, dw->op_type(), dw->domain(), dw->opset(), std::move(inputs), dw->outputs(),
          std::move(attrs));
  return true;
}

}  // namespace

size_t FuseNhwcExpansion(PassContext& ctx) {
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv") || !HasCandidate(ctx.graph)) return 0;
  if (!InferFactsAgain(ctx)) return 0;
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseExpansion(ctx, n); });
}

}  // namespace kiln::optimizer
