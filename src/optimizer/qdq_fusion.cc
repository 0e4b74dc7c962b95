// Level 2: a convolution or a matrix product between DequantizeLinear and QuantizeLinear nodes
// (the QDQ format that ONNX Runtime's quantize_static writes) becomes QLinearConv or
// QLinearMatMul over the quantized tensors (qdq_ops_fusion.cc takes the other ops). The
// convolution:
//   xf = DequantizeLinear(xq, xs, xz)            one scale and zero point
//   wf = DequantizeLinear(wq, ws, wz)            wq a constant int8/uint8, ws/wz one or one per
//                                                output channel (axis 0)
//   bf = DequantizeLinear(bq, bs)                optional: bq a constant int32 [M], bs = xs · ws
//   yq = QuantizeLinear(Conv(xf, wf, bf) [→ Relu or Clip], ys, yz)
// → yq = QLinearConv(xq, xs, xz, wq, ws, wz, ys, yz, bq) with the Conv's attributes. A Relu or
// Clip between the Conv and the QuantizeLinear is taken in only when the quantization's
// saturation already clamps what it would (a Relu: yz the type's least value; ReLU6's Clip(0, 6)
// with yz least and 6 at or past the greatest). The result is the integer convolution,
// requantized once: within one quantization step of the float chain (which rounds each product
// and sum in float). The DequantizeLinear of x stays while other nodes read it (dead code
// removes it otherwise); missing zero points become constants 0 of the quantized type. The
// product: yq = QuantizeLinear(MatMul(DequantizeLinear(aq, as, az), DequantizeLinear(bq, bs, bz)),
// ys, yz) with bq a constant 2-D int8/uint8 [K, N] and bs/bz one value or one per column (axis
// 1) → QLinearMatMul(aq, as, az, bq, bs, bz, ys, yz). Runs
// first of all passes (at level 2 and up): constant folding would turn the weights'
// DequantizeLinear into float constants and lose the int8 weights.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"
#include "optimizer/qdq_util.h"

namespace kiln::optimizer {
namespace {

// The product's form (see the file comment): Q's parameters already read.
bool FuseMatMul(PassContext& ctx, ir::Node* q, const QParams& qy, DataType y_type, ir::Node* mm) {
  ir::Graph& g = ctx.graph;
  if (OnlyConsumer(g, mm->outputs()[0]) != q || mm->inputs().size() != 2) return false;
  ir::Node* da = ProducerIs(mm->inputs()[0], "DequantizeLinear");
  ir::Node* db = ProducerIs(mm->inputs()[1], "DequantizeLinear");
  if (da == nullptr || db == nullptr) return false;
  QParams pa;
  const DataType a_type = ctx.Facts(da->inputs()[0]).type;
  if (!ReadParams(da, 0, 1, &pa) || !IsInt8Type(a_type) ||
      (pa.zero != nullptr && pa.zero->type() != a_type)) {
    return false;
  }
  const Tensor* bq = ConstantOf(db->inputs()[0]);
  if (bq == nullptr || !IsInt8Type(bq->type()) || bq->shape().rank() != 2) return false;
  const auto n = static_cast<size_t>(bq->shape().dims()[1]);
  QParams pb;
  // Per column: axis 1 (or -1) of the 2-D B.
  const int64_t axis = IntAttrOf(db, "axis", 1) == -1 ? -1 : 1;
  if (!ReadParams(db, n, axis, &pb) || (pb.zero != nullptr && pb.zero->type() != bq->type())) {
    return false;
  }
  const std::string base = mm->name().empty() ? "qmatmul" : mm->name();
  ir::Value* az = pa.zero_value != nullptr ? pa.zero_value : ZeroOf(g, a_type, base + "_a_zero");
  ir::Value* bz =
      pb.zero_value != nullptr ? pb.zero_value : ZeroOf(g, bq->type(), base + "_b_zero");
  ir::Value* yz = qy.zero_value != nullptr ? qy.zero_value : ZeroOf(g, y_type, base + "_y_zero");
  Replace(g, {mm, q}, "QLinearMatMul", "", 10,
          {da->inputs()[0], pa.scale_value, az, db->inputs()[0], pb.scale_value, bz, qy.scale_value,
           yz},
          {q->outputs()[0]}, {});
  return true;
}

bool FuseOne(PassContext& ctx, ir::Node* q) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(q, "QuantizeLinear")) return false;
  QParams qy;
  if (!ReadParams(q, 0, 1, &qy)) return false;
  const DataType y_type = qy.zero != nullptr ? qy.zero->type() : DataType::kUint8;
  if (!IsInt8Type(y_type) || IntAttrOf(q, "output_dtype", 0) != 0) return false;
  if (ir::Node* mm = ProducerIs(q->inputs()[0], "MatMul"))
    return FuseMatMul(ctx, q, qy, y_type, mm);
  ir::Node* conv = ProducerIs(q->inputs()[0], "Conv");
  ir::Node* relu = nullptr;
  if (conv == nullptr) {
    relu = ProducerIs(q->inputs()[0], "Relu");
    if (relu == nullptr) relu = ProducerIs(q->inputs()[0], "Clip");
    if (relu == nullptr) return false;
    conv = ProducerIs(relu->inputs()[0], "Conv");
    if (conv == nullptr || OnlyConsumer(g, relu->outputs()[0]) != q) return false;
    // The activation is taken in only when the output's saturation implies it.
    if (!ImpliedBySaturation(relu, qy, y_type)) return false;
  }
  ir::Value* conv_out = conv->outputs()[0];
  if (OnlyConsumer(g, conv_out) != (relu != nullptr ? relu : q) || conv->inputs().size() < 2) {
    return false;
  }
  ir::Node* dx = ProducerIs(conv->inputs()[0], "DequantizeLinear");
  ir::Node* dw = ProducerIs(conv->inputs()[1], "DequantizeLinear");
  if (dx == nullptr || dw == nullptr) return false;
  QParams px;
  if (!ReadParams(dx, 0, 1, &px) || !IsInt8Type(ctx.Facts(dx->inputs()[0]).type)) return false;
  const Tensor* wq = ConstantOf(dw->inputs()[0]);
  if (wq == nullptr || !IsInt8Type(wq->type()) || wq->shape().rank() < 3) return false;
  const auto m = static_cast<size_t>(wq->shape().dims()[0]);
  QParams pw;
  if (!ReadParams(dw, m, 0, &pw)) return false;
  const DataType x_type = ctx.Facts(dx->inputs()[0]).type;
  if ((px.zero != nullptr && px.zero->type() != x_type) ||
      (pw.zero != nullptr && pw.zero->type() != wq->type())) {
    return false;
  }
  // The bias: DequantizeLinear of a constant int32 [M] with the scale xs · ws.
  ir::Value* bias = nullptr;
  if (conv->inputs().size() > 2 && conv->inputs()[2] != nullptr) {
    ir::Node* db = ProducerIs(conv->inputs()[2], "DequantizeLinear");
    if (db == nullptr || db->inputs().size() < 2) return false;
    const Tensor* bq = ConstantOf(db->inputs()[0]);
    const Tensor* bs = ConstantOf(db->inputs()[1]);
    if (bq == nullptr || bq->type() != DataType::kInt32 || bq->shape().rank() != 1 ||
        static_cast<size_t>(bq->shape().dims()[0]) != m || bs == nullptr ||
        bs->type() != DataType::kFloat ||
        !IsBiasScale(*bs, *static_cast<const float*>(px.scale->data()), *pw.scale)) {
      return false;
    }
    if (db->inputs().size() > 2 && db->inputs()[2] != nullptr) {
      const Tensor* bz = ConstantOf(db->inputs()[2]);
      if (bz == nullptr || bz->type() != DataType::kInt32) return false;
      const auto* z = static_cast<const int32_t*>(bz->data());
      for (size_t i = 0; i < bz->element_count(); ++i) {
        if (z[i] != 0) return false;
      }
    }
    bias = db->inputs()[0];
  }
  const std::string base = conv->name().empty() ? "qconv" : conv->name();
  ir::Value* xz = px.zero_value != nullptr ? px.zero_value : ZeroOf(g, x_type, base + "_x_zero");
  ir::Value* wz =
      pw.zero_value != nullptr ? pw.zero_value : ZeroOf(g, wq->type(), base + "_w_zero");
  ir::Value* yz = qy.zero_value != nullptr ? qy.zero_value : ZeroOf(g, y_type, base + "_y_zero");
  std::vector<ir::Node*> fused = {conv};
  if (relu != nullptr) fused.push_back(relu);
  fused.push_back(q);
  std::vector<ir::Value*> inputs = {
      dx->inputs()[0], px.scale_value, xz, dw->inputs()[0], pw.scale_value, wz, qy.scale_value, yz};
  if (bias != nullptr) inputs.push_back(bias);
  Replace(g, fused, "QLinearConv", "", 10, std::move(inputs), {q->outputs()[0]},
          conv->attributes());
  return true;
}

}  // namespace

size_t FuseQdq(PassContext& ctx) {
  // Cheap first: a QuantizeLinear of a Conv's, a Relu's, a Clip's or a MatMul's output. Then the
  // facts (this pass runs before constant folding, which would fold the weights' DequantizeLinear
  // away).
  bool candidate = false;
  for (const auto& n : ctx.graph.nodes()) {
    if (IsOp(n.get(), "QuantizeLinear") && (ProducerIs(n->inputs()[0], "Conv") != nullptr ||
                                            ProducerIs(n->inputs()[0], "Relu") != nullptr ||
                                            ProducerIs(n->inputs()[0], "Clip") != nullptr ||
                                            ProducerIs(n->inputs()[0], "MatMul") != nullptr)) {
      candidate = true;
      break;
    }
  }
  if (!candidate || !InferFactsAgain(ctx)) return 0;
  const size_t fused = RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx, n); });
  // The DequantizeLinear nodes of weights, biases and inputs that no one reads now.
  if (fused > 0) EliminateDeadCode(ctx);
  return fused;
}

}  // namespace kiln::optimizer
