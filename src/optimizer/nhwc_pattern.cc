#include "optimizer/nhwc_pattern.h"

#include <vector>

#include "kernels/domains.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {

bool IsKilnOp(const ir::Node* n, const char* op) noexcept {
  return n != nullptr && n->domain() == kKilnDomain && n->op_type() == op &&
         HasRequiredInputs(n, 1);
}

bool IsUnary(const ir::Node* n) noexcept {
  for (const char* op : {"Sigmoid", "Relu", "Tanh", "HardSigmoid", "HardSwish"}) {
    if (IsOp(n, op)) return n->inputs().size() == 1;
  }
  return false;
}

std::optional<int64_t> Channels(const PassContext& ctx, const ir::Value* v) {
  const ir::Node* p = v != nullptr ? v->producer() : nullptr;
  if (p == nullptr || p->outputs().empty() || p->outputs()[0] != v) return std::nullopt;
  if (IsKilnOp(p, "NhwcConv")) {
    const Tensor* w = p->inputs().size() > 1 ? ConstantOf(p->inputs()[1]) : nullptr;
    if (w == nullptr || w->shape().rank() != 4) return std::nullopt;
    return w->shape().dims()[0];
  }
  if (IsKilnOp(p, "NhwcMaxPool") || IsKilnOp(p, "NhwcAveragePool") ||
      IsKilnOp(p, "NhwcGlobalAveragePool") || IsKilnOp(p, "NhwcGlobalMaxPool") || IsUnary(p)) {
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

}  // namespace kiln::optimizer
