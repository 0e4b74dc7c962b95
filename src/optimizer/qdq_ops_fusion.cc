// Level 2, after qdq_fusion (which takes the convolutions and quantized matrix products): the
// other ops of a QDQ graph, as ONNX Runtime's quantize_static writes it, taken into ONNX
// Runtime's quantized ops or run on the quantized tensors themselves:
//   Q(Add|Mul(DQ(a), DQ(b)) [→ Relu|Clip])     → com.microsoft QLinearAdd | QLinearMul
//   Q(Sigmoid|LeakyRelu(DQ(x)))                  → QLinearSigmoid | QLinearLeakyRelu
//   Q(AveragePool|GlobalAveragePool(DQ(x)))      → QLinearAveragePool | QLinearGlobalAveragePool
//   Q(Concat(DQ(x1), ..., DQ(xk)))               → QLinearConcat
//   Gemm(DQ(a), DQ(b) [, DQ(c)]) [→ Q]           → QGemm, quantized with the Q, float without it
//   MatMul(DQ(a), DQ(b)) (left by qdq_fusion)    → MatMulIntegerToFloat
//   Q(op(DQ(x))) with one scale and zero point on both sides, `op` moving or selecting values
//   (MaxPool, Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Slice, nearest Resize, Identity;
//   Relu where the zero point is the type's least value, which makes it the identity)
//                                                → op(x) on the quantized tensor: exact.
// Every DQ and Q has constant parameters per tensor (a weight's DQ may be per column), and a
// node's data inputs and output share one 8-bit type. A Relu or Clip before the Q is taken in
// only where the Q's saturation implies it. The quantized ops compute within one quantization
// step of the float chain (which rounds each sum and product in float); the DequantizeLinear
// nodes others still read stay, the rest go with dead code. Runs before constant folding (the
// weights' DequantizeLinear must stay to be read).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "optimizer/pass.h"
#include "optimizer/pattern.h"
#include "optimizer/qdq_util.h"

namespace kiln::optimizer {
namespace {

constexpr const char* kMs = "com.microsoft";

// A DequantizeLinear with per-tensor constant parameters of an 8-bit tensor.
struct Dq {
  ir::Node* node = nullptr;
  ir::Value* x = nullptr;
  QParams p;
  DataType type = DataType::kUndefined;
};

std::optional<Dq> PerTensorDq(PassContext& ctx, ir::Value* v) {
  ir::Node* d = ProducerIs(v, "DequantizeLinear");
  if (d == nullptr) return std::nullopt;
  Dq dq{d, d->inputs()[0], {}, ctx.Facts(d->inputs()[0]).type};
  if (!ReadParams(d, 0, 1, &dq.p) || !IsInt8Type(dq.type) ||
      (dq.p.zero != nullptr && dq.p.zero->type() != dq.type)) {
    return std::nullopt;
  }
  return dq;
}

// A QuantizeLinear to an 8-bit type with per-tensor constant parameters.
struct Qy {
  QParams p;
  DataType type = DataType::kUndefined;
};

std::optional<Qy> PerTensorQ(const ir::Node* q) {
  if (!IsOp(q, "QuantizeLinear") || IntAttrOf(q, "output_dtype", 0) != 0) return std::nullopt;
  Qy y;
  if (!ReadParams(q, 0, 1, &y.p)) return std::nullopt;
  y.type = y.p.zero != nullptr ? y.p.zero->type() : DataType::kUint8;
  if (!IsInt8Type(y.type)) return std::nullopt;
  return y;
}

std::string BaseName(const ir::Node* n, const char* fallback) {
  return n->name().empty() ? fallback : n->name();
}

// The attributes of `n` named in `names`.
std::vector<ir::Attribute> KeepAttributes(const ir::Node* n,
                                          std::initializer_list<std::string_view> names) {
  std::vector<ir::Attribute> out;
  for (const ir::Attribute& a : n->attributes()) {
    if (std::find(names.begin(), names.end(), a.name) != names.end()) out.push_back(a);
  }
  return out;
}

// Q(Add|Mul(DQ(a), DQ(b)) [→ act]).
bool FuseBinary(PassContext& ctx, ir::Node* q, const Qy& y, ir::Node* op, ir::Node* act) {
  ir::Graph& g = ctx.graph;
  if (op->inputs().size() != 2 || OnlyConsumer(g, op->outputs()[0]) != (act ? act : q)) {
    return false;
  }
  if (act != nullptr && !ImpliedBySaturation(act, y.p, y.type)) return false;
  const std::optional<Dq> a = PerTensorDq(ctx, op->inputs()[0]);
  const std::optional<Dq> b = PerTensorDq(ctx, op->inputs()[1]);
  if (!a || !b || a->type != y.type || b->type != y.type) return false;
  const std::string base = BaseName(op, "qbinary");
  std::vector<ir::Node*> fused = {op};
  if (act != nullptr) fused.push_back(act);
  fused.push_back(q);
  Replace(g, fused, IsOp(op, "Add") ? "QLinearAdd" : "QLinearMul", kMs, 1,
          {a->x, a->p.scale_value, ZeroValueOr(g, a->p, y.type, base + "_a_zero"), b->x,
           b->p.scale_value, ZeroValueOr(g, b->p, y.type, base + "_b_zero"), y.p.scale_value,
           ZeroValueOr(g, y.p, y.type, base + "_y_zero")},
          {q->outputs()[0]}, {});
  return true;
}

// Q(op(DQ(x))) for the single-input quantized ops.
bool FuseUnary(PassContext& ctx, ir::Node* q, const Qy& y, ir::Node* op) {
  ir::Graph& g = ctx.graph;
  if (OnlyConsumer(g, op->outputs()[0]) != q) return false;
  const std::optional<Dq> x = PerTensorDq(ctx, op->inputs()[0]);
  if (!x || x->type != y.type) return false;
  std::string fused_op;
  std::vector<ir::Attribute> attrs;
  if (IsOp(op, "Sigmoid")) {
    fused_op = "QLinearSigmoid";
  } else if (IsOp(op, "LeakyRelu")) {
    fused_op = "QLinearLeakyRelu";
    attrs = KeepAttributes(op, {"alpha"});
  } else if (IsOp(op, "GlobalAveragePool")) {
    fused_op = "QLinearGlobalAveragePool";
  } else if (IsOp(op, "AveragePool")) {
    for (int64_t d : IntsAttrOf(op, "dilations", {})) {
      if (d != 1) return false;
    }
    fused_op = "QLinearAveragePool";
    attrs = KeepAttributes(
        op, {"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  } else {
    return false;
  }
  const std::string base = BaseName(op, "qunary");
  Replace(g, {op, q}, fused_op, kMs, 1,
          {x->x, x->p.scale_value, ZeroValueOr(g, x->p, y.type, base + "_x_zero"), y.p.scale_value,
           ZeroValueOr(g, y.p, y.type, base + "_y_zero")},
          {q->outputs()[0]}, std::move(attrs));
  return true;
}

// Q(Concat(DQ(x1), ..., DQ(xk))).
bool FuseConcat(PassContext& ctx, ir::Node* q, const Qy& y, ir::Node* cat) {
  ir::Graph& g = ctx.graph;
  if (OnlyConsumer(g, cat->outputs()[0]) != q || cat->inputs().empty()) return false;
  const std::string base = BaseName(cat, "qconcat");
  std::vector<Dq> xs;
  for (ir::Value* v : cat->inputs()) {
    const std::optional<Dq> x = v != nullptr ? PerTensorDq(ctx, v) : std::nullopt;
    if (!x || x->type != y.type) return false;
    xs.push_back(*x);
  }
  std::vector<ir::Value*> inputs = {y.p.scale_value, ZeroValueOr(g, y.p, y.type, base + "_y_zero")};
  for (size_t i = 0; i < xs.size(); ++i) {
    inputs.push_back(xs[i].x);
    inputs.push_back(xs[i].p.scale_value);
    inputs.push_back(ZeroValueOr(g, xs[i].p, y.type, base + "_x_zero_" + std::to_string(i)));
  }
  Replace(g, {cat, q}, "QLinearConcat", kMs, 1, std::move(inputs), {q->outputs()[0]},
          KeepAttributes(cat, {"axis"}));
  return true;
}

// Ops whose quantized form is the op itself when both sides share one scale and zero point.
bool MovesValues(const ir::Node* op) {
  for (const char* name : {"MaxPool", "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze",
                           "Slice", "Identity"}) {
    if (IsOp(op, name)) return true;
  }
  if (IsOp(op, "Resize")) {
    const ir::Attribute* mode = op->FindAttribute("mode");
    return mode == nullptr || mode->s == "nearest";
  }
  return false;
}

// Q(op(DQ(x))) with the same parameters on both sides → op(x).
bool CarryThrough(PassContext& ctx, ir::Node* q, const Qy& y, ir::Node* op) {
  ir::Graph& g = ctx.graph;
  if (OnlyConsumer(g, op->outputs()[0]) != q) return false;
  if (IsOp(op, "MaxPool") && op->outputs().size() > 1 && op->outputs()[1] != nullptr) {
    return false;  // Indices
  }
  const std::optional<Dq> x = PerTensorDq(ctx, op->inputs()[0]);
  if (!x || x->type != y.type || !SameParams(x->p, y.p)) return false;
  if (IsOp(op, "Relu")) {
    // DQ(x) >= 0 for every x only when the zero point is the least value: then Relu is the
    // identity.
    if (y.p.Zero() != (y.type == DataType::kInt8 ? -128 : 0)) return false;
    Replace(g, {op, q}, "Identity", "", 14, {x->x}, {q->outputs()[0]}, {});
    return true;
  }
  if (!MovesValues(op)) return false;
  std::vector<ir::Value*> inputs = op->inputs();
  inputs[0] = x->x;
  // MaxPool takes 8-bit integers from opset 12.
  const int64_t opset = IsOp(op, "MaxPool") ? std::max<int64_t>(op->opset(), 12) : op->opset();
  const std::string op_type = op->op_type();
  Replace(g, {op, q}, op_type, "", opset, std::move(inputs), {q->outputs()[0]}, op->attributes());
  return true;
}

// Gemm(DQ(a), DQ(b) [, DQ(c)]) [→ Q]: b a constant 2-D 8-bit weight per tensor or per column,
// c a constant int32 bias with scale a_scale · b_scale and zero point 0, beta 1.
bool FuseGemm(PassContext& ctx, ir::Node* gemm) {
  ir::Graph& g = ctx.graph;
  if (gemm->inputs().size() < 2) return false;
  const std::optional<Dq> a = PerTensorDq(ctx, gemm->inputs()[0]);
  ir::Node* db = ProducerIs(gemm->inputs()[1], "DequantizeLinear");
  if (!a || db == nullptr) return false;
  const Tensor* bq = ConstantOf(db->inputs()[0]);
  if (bq == nullptr || !IsInt8Type(bq->type()) || bq->shape().rank() != 2) return false;
  const bool trans_b = IntAttrOf(gemm, "transB", 0) != 0;
  const auto n = static_cast<size_t>(bq->shape().dims()[trans_b ? 0 : 1]);
  QParams pb;
  // Per column of B': axis 1 of B, or 0 under transB (negative axes too).
  const int64_t axis = trans_b ? 0 : 1;
  const int64_t b_axis = IntAttrOf(db, "axis", 1);
  if (!ReadParams(db, n, (b_axis < 0 ? b_axis + 2 : b_axis) == axis ? b_axis : axis, &pb) ||
      (pb.zero != nullptr && pb.zero->type() != bq->type())) {
    return false;
  }
  ir::Value* c = nullptr;
  if (gemm->inputs().size() > 2 && gemm->inputs()[2] != nullptr) {
    const ir::Attribute* beta = gemm->FindAttribute("beta");
    if (beta != nullptr && beta->f != 1.0f) return false;
    ir::Node* dc = ProducerIs(gemm->inputs()[2], "DequantizeLinear");
    if (dc == nullptr) return false;
    const Tensor* cq = ConstantOf(dc->inputs()[0]);
    const Tensor* cs = ConstantOf(dc->inputs()[1]);
    if (cq == nullptr || cq->type() != DataType::kInt32 || cq->shape().rank() > 1 ||
        (cq->element_count() != 1 && cq->element_count() != n) || cs == nullptr ||
        cs->type() != DataType::kFloat || !IsBiasScale(*cs, a->p.Scale(), *pb.scale)) {
      return false;
    }
    if (dc->inputs().size() > 2 && dc->inputs()[2] != nullptr) {
      QParams pc;
      if (!ReadParams(dc, n, 0, &pc) || pc.zero == nullptr) return false;
      const auto* z = static_cast<const int32_t*>(pc.zero->data());
      for (size_t i = 0; i < pc.zero->element_count(); ++i) {
        if (z[i] != 0) return false;
      }
    }
    c = dc->inputs()[0];
  }
  const std::string base = BaseName(gemm, "qgemm");
  std::vector<ir::Value*> inputs = {a->x,
                                    a->p.scale_value,
                                    ZeroValueOr(g, a->p, a->type, base + "_a_zero"),
                                    db->inputs()[0],
                                    pb.scale_value,
                                    ZeroValueOr(g, pb, bq->type(), base + "_b_zero"),
                                    c};
  std::vector<ir::Node*> fused = {gemm};
  ir::Value* out = gemm->outputs()[0];
  ir::Node* q = OnlyConsumer(g, out);
  const std::optional<Qy> y = q != nullptr ? PerTensorQ(q) : std::nullopt;
  // A quantized output of A's type (ONNX Runtime's QGemm pairs them).
  if (y && y->type == a->type) {
    inputs.push_back(y->p.scale_value);
    inputs.push_back(ZeroValueOr(g, y->p, y->type, base + "_y_zero"));
    fused.push_back(q);
    out = q->outputs()[0];
  }
  Replace(g, fused, "QGemm", kMs, 1, std::move(inputs), {out},
          KeepAttributes(gemm, {"alpha", "transA", "transB"}));
  return true;
}

// MatMul(DQ(a), DQ(b)) → MatMulIntegerToFloat: a per tensor; b per tensor, or a constant 2-D
// weight per column.
bool FuseMatMulToFloat(PassContext& ctx, ir::Node* mm) {
  ir::Graph& g = ctx.graph;
  if (mm->inputs().size() != 2) return false;
  const std::optional<Dq> a = PerTensorDq(ctx, mm->inputs()[0]);
  ir::Node* db = ProducerIs(mm->inputs()[1], "DequantizeLinear");
  if (!a || db == nullptr) return false;
  const DataType b_type = ctx.Facts(db->inputs()[0]).type;
  if (!IsInt8Type(b_type)) return false;
  QParams pb;
  const Tensor* bq = ConstantOf(db->inputs()[0]);
  const size_t n =
      bq != nullptr && bq->shape().rank() == 2 ? static_cast<size_t>(bq->shape().dims()[1]) : 0;
  const int64_t axis = IntAttrOf(db, "axis", 1) == -1 ? -1 : 1;
  if (!ReadParams(db, n, axis, &pb) || (pb.zero != nullptr && pb.zero->type() != b_type)) {
    return false;
  }
  const std::string base = BaseName(mm, "qmatmul");
  Replace(g, {mm}, "MatMulIntegerToFloat", kMs, 1,
          {a->x, db->inputs()[0], a->p.scale_value, pb.scale_value,
           ZeroValueOr(g, a->p, a->type, base + "_a_zero"),
           ZeroValueOr(g, pb, b_type, base + "_b_zero")},
          {mm->outputs()[0]}, {});
  return true;
}

bool FuseOne(PassContext& ctx, ir::Node* n) {
  if (IsOp(n, "Gemm")) return FuseGemm(ctx, n);
  if (IsOp(n, "MatMul")) return FuseMatMulToFloat(ctx, n);
  const std::optional<Qy> y = PerTensorQ(n);
  if (!y) return false;
  ir::Node* op = n->inputs()[0]->producer();
  if (op == nullptr) return false;
  if (IsOp(op, "Add") || IsOp(op, "Mul")) return FuseBinary(ctx, n, *y, op, nullptr);
  if (IsOp(op, "Relu") || IsOp(op, "Clip")) {
    ir::Node* inner = op->inputs()[0]->producer();
    if (inner != nullptr && (IsOp(inner, "Add") || IsOp(inner, "Mul")) &&
        OnlyConsumer(ctx.graph, op->outputs()[0]) == n && FuseBinary(ctx, n, *y, inner, op)) {
      return true;
    }
    return IsOp(op, "Relu") && CarryThrough(ctx, n, *y, op);
  }
  if (IsOp(op, "Concat")) return FuseConcat(ctx, n, *y, op);
  if (MovesValues(op)) return CarryThrough(ctx, n, *y, op);
  return FuseUnary(ctx, n, *y, op);
}

// Whether some node may match: a QuantizeLinear, or a Gemm or MatMul reading a DequantizeLinear.
bool AnyCandidate(const ir::Graph& g) {
  for (const auto& n : g.nodes()) {
    if (IsOp(n.get(), "QuantizeLinear")) return true;
    if ((IsOp(n.get(), "Gemm") || IsOp(n.get(), "MatMul")) &&
        ProducerIs(n->inputs()[0], "DequantizeLinear") != nullptr) {
      return true;
    }
  }
  return false;
}

}  // namespace

size_t FuseQdqOps(PassContext& ctx) {
  if (!AnyCandidate(ctx.graph) || !InferFactsAgain(ctx)) return 0;
  const size_t fused = RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
  if (fused > 0) EliminateDeadCode(ctx);
  return fused;
}

}  // namespace kiln::optimizer
