// Level 2: a convolution or a matrix product between DequantizeLinear and QuantizeLinear nodes
// (the QDQ format that ONNX Runtime's quantize_static writes) becomes QLinearConv or
// QLinearMatMul over the quantized tensors. The convolution:
//   xf = DequantizeLinear(xq, xs, xz)            one scale and zero point
//   wf = DequantizeLinear(wq, ws, wz)            wq a constant int8/uint8, ws/wz one or one per
//                                                output channel (axis 0)
//   bf = DequantizeLinear(bq, bs)                optional: bq a constant int32 [M], bs = xs · ws
//   yq = QuantizeLinear(Conv(xf, wf, bf) [→ Relu], ys, yz)
// → yq = QLinearConv(xq, xs, xz, wq, ws, wz, ys, yz, bq) with the Conv's attributes. A Relu
// between the Conv and the QuantizeLinear is taken in only when yz is the type's least value
// (then saturation already clamps what the Relu would). The result is the integer convolution,
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

namespace kiln::optimizer {
namespace {

bool IsInt8Type(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

// The parts of a DequantizeLinear or QuantizeLinear node: its quantized side (input or output),
// its constant float scale and its constant zero point (null when absent).
struct QParams {
  const Tensor* scale = nullptr;
  ir::Value* scale_value = nullptr;
  ir::Value* zero_value = nullptr;
  const Tensor* zero = nullptr;
};

// Reads (De)QuantizeLinear `n`'s scale and zero point when both are constants of the kinds
// QLinearConv takes: a float scale of one value, or of `per` values along `axis` when `per` > 0;
// a zero point of the same count and an 8-bit type (or int32 for a bias). No blocks.
bool ReadParams(const ir::Node* n, size_t per, int64_t axis, QParams* out) {
  if (n->inputs().size() < 2 || IntAttrOf(n, "block_size", 0) != 0) return false;
  const Tensor* s = ConstantOf(n->inputs()[1]);
  if (s == nullptr || s->type() != DataType::kFloat || s->shape().rank() > 1) return false;
  const size_t count = s->element_count();
  if (count != 1 && (per == 0 || count != per || IntAttrOf(n, "axis", 1) != axis)) return false;
  out->scale = s;
  out->scale_value = n->inputs()[1];
  if (n->inputs().size() > 2 && n->inputs()[2] != nullptr) {
    const Tensor* z = ConstantOf(n->inputs()[2]);
    if (z == nullptr || z->element_count() != count || z->shape().rank() > 1) return false;
    out->zero = z;
    out->zero_value = n->inputs()[2];
  }
  return true;
}

// A constant 0 of `type` (one value).
ir::Value* ZeroOf(ir::Graph& g, DataType type, const std::string& base) {
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, Shape(std::vector<int64_t>{}), CpuAllocator());
  return AddConstant(g, base, std::move(t));
}

// Whether the float values of t are xs · ws[m] for every m, computed as the quantizer does.
bool IsBiasScale(const Tensor& t, float xs, const Tensor& ws) {
  const auto* b = static_cast<const float*>(t.data());
  const auto* w = static_cast<const float*>(ws.data());
  const size_t count = ws.element_count();
  if (t.element_count() != count && t.element_count() != 1) return false;
  for (size_t m = 0; m < count; ++m) {
    if (b[t.element_count() == 1 ? 0 : m] != xs * w[m]) return false;
  }
  return true;
}

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
    if (relu == nullptr) return false;
    conv = ProducerIs(relu->inputs()[0], "Conv");
    if (conv == nullptr || OnlyConsumer(g, relu->outputs()[0]) != q) return false;
    // The Relu is implied only when the output's zero point is its type's least value.
    int64_t yz = 0;
    if (qy.zero != nullptr) {
      yz = y_type == DataType::kInt8 ? *static_cast<const int8_t*>(qy.zero->data())
                                     : *static_cast<const uint8_t*>(qy.zero->data());
    }
    if (yz != (y_type == DataType::kInt8 ? -128 : 0)) return false;
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
  // Cheap first: a QuantizeLinear of a Conv's, a Relu's or a MatMul's output. Then the facts
  // (this pass runs before constant folding, which would fold the weights' DequantizeLinear away).
  bool candidate = false;
  for (const auto& n : ctx.graph.nodes()) {
    if (IsOp(n.get(), "QuantizeLinear") && (ProducerIs(n->inputs()[0], "Conv") != nullptr ||
                                            ProducerIs(n->inputs()[0], "Relu") != nullptr ||
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
