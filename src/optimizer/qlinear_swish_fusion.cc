// Level 2, after qdq_ops_fusion: a quantized Swish (SiLU), x · sigmoid(x), as the QDQ fusion or
// ONNX Runtime's QOperator format leaves it,
//   QLinearMul(x, QLinearSigmoid(x))  (either operand order)
//                                           → ai.kiln QLinearSwish(x, x_scale, x_zero_point,
//                                              s_scale, s_zero_point, y_scale, y_zero_point)
// where the product reads x with the sigmoid's own scale and zero point and the sigmoid's output
// (s) with the ones it was quantized to, and nothing else reads that output. Each output byte
// then depends on one input byte only: the kernel computes the pair's 256 results once (the same
// arithmetic, so the same bytes) and looks them up, where the pair took a table lookup and a
// product per element (EfficientNet's activations).
#include <string>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"
#include "optimizer/qdq_util.h"

namespace kiln::optimizer {
namespace {

constexpr const char* kMs = "com.microsoft";

bool IsMsNode(const ir::Node* n, const char* op) {
  return n != nullptr && n->domain() == kMs && n->op_type() == op && !n->outputs().empty() &&
         n->outputs()[0] != nullptr;
}

// The scale and zero point at inputs `scale` and `scale + 1` of n, as constants of one value (a
// float scale, an 8-bit zero point or none).
bool ParamsAt(const ir::Node* n, size_t scale, QParams* out) {
  if (n->inputs().size() <= scale || n->inputs()[scale] == nullptr) return false;
  out->scale_value = n->inputs()[scale];
  out->scale = ConstantOf(out->scale_value);
  if (out->scale == nullptr || out->scale->type() != DataType::kFloat ||
      out->scale->element_count() != 1) {
    return false;
  }
  out->zero_value = n->inputs().size() > scale + 1 ? n->inputs()[scale + 1] : nullptr;
  out->zero = nullptr;
  if (out->zero_value != nullptr) {
    out->zero = ConstantOf(out->zero_value);
    if (out->zero == nullptr || !IsInt8Type(out->zero->type()) || out->zero->element_count() != 1) {
      return false;
    }
  }
  return true;
}

bool FuseSwish(PassContext& ctx, ir::Node* mul) {
  ir::Graph& g = ctx.graph;
  if (!IsMsNode(mul, "QLinearMul") || mul->inputs().size() < 7) return false;
  ir::Value* a = mul->inputs()[0];
  ir::Value* b = mul->inputs()[3];
  if (a == nullptr || b == nullptr) return false;
  // The sigmoid is the operand at `s_at` (0 or 3); x the other.
  for (size_t s_at : {size_t{3}, size_t{0}}) {
    ir::Value* s = mul->inputs()[s_at];
    ir::Value* x = s_at == 3 ? a : b;
    ir::Node* sig = s->producer();
    if (!IsMsNode(sig, "QLinearSigmoid") || sig->inputs().size() < 4 || sig->inputs()[0] != x ||
        OnlyConsumer(g, s) != mul) {
      continue;
    }
    QParams sx, sy, mx, ms, my;
    if (!ParamsAt(sig, 1, &sx) || !ParamsAt(sig, 3, &sy) ||
        !ParamsAt(mul, s_at == 3 ? 1 : 4, &mx) || !ParamsAt(mul, s_at == 3 ? 4 : 1, &ms) ||
        !ParamsAt(mul, 6, &my)) {
      continue;
    }
    const DataType type = ctx.Facts(x).type;
    if (!IsInt8Type(type)) continue;
    // The product must read x and s as the sigmoid reads and writes them; a zero point left out
    // is 0 of the data's type, so one given must be of that type too.
    auto typed = [&](const QParams& p) { return p.zero == nullptr || p.zero->type() == type; };
    if (!typed(sx) || !typed(sy) || !typed(mx) || !typed(ms) || !typed(my) ||
        sx.Scale() != mx.Scale() || sx.Zero() != mx.Zero() || sy.Scale() != ms.Scale() ||
        sy.Zero() != ms.Zero()) {
      continue;
    }
    const std::string base = mul->name().empty() ? "qswish" : mul->name();
    Replace(g, {mul, sig}, "QLinearSwish", kKilnDomain, 1,
            {x, sx.scale_value, ZeroValueOr(g, sx, type, base + "_x_zero"), sy.scale_value,
             ZeroValueOr(g, sy, type, base + "_s_zero"), my.scale_value,
             ZeroValueOr(g, my, type, base + "_y_zero")},
            {mul->outputs()[0]}, {});
    return true;
  }
  return false;
}

}  // namespace

size_t FuseQLinearSwish(PassContext& ctx) {
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseSwish(ctx, n); });
}

}  // namespace kiln::optimizer
