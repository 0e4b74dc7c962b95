// The helpers the QDQ passes share (qdq_util.h).
#include "optimizer/qdq_util.h"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "core/allocator.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {

int32_t QParams::Zero() const {
  if (zero == nullptr) return 0;
  switch (zero->type()) {
    case DataType::kInt8:
      return *static_cast<const int8_t*>(zero->data());
    case DataType::kUint8:
      return *static_cast<const uint8_t*>(zero->data());
    case DataType::kInt16:
      return *static_cast<const int16_t*>(zero->data());
    case DataType::kUint16:
      return *static_cast<const uint16_t*>(zero->data());
    case DataType::kInt32:
      return *static_cast<const int32_t*>(zero->data());
    default:
      return 0;
  }
}

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

bool SameParams(const QParams& a, const QParams& b) {
  if (a.scale->element_count() != 1 || b.scale->element_count() != 1) return false;
  const DataType ta = a.zero != nullptr ? a.zero->type() : DataType::kUint8;
  const DataType tb = b.zero != nullptr ? b.zero->type() : DataType::kUint8;
  return a.Scale() == b.Scale() && a.Zero() == b.Zero() && ta == tb;
}

ir::Value* ZeroOf(ir::Graph& g, DataType type, const std::string& base) {
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, Shape(std::vector<int64_t>{}), CpuAllocator());
  return AddConstant(g, base, std::move(t));
}

ir::Value* ZeroValueOr(ir::Graph& g, const QParams& p, DataType type, const std::string& base) {
  return p.zero_value != nullptr ? p.zero_value : ZeroOf(g, type, base);
}

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

bool ImpliedBySaturation(const ir::Node* act, const QParams& qy, DataType y_type) {
  if (!IsInt8Type(y_type) || qy.scale->element_count() != 1) return false;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float lo = -kInf, hi = kInf;
  if (IsOp(act, "Relu")) {
    lo = 0.0f;
  } else if (IsOp(act, "Clip")) {
    if (act->opset() < 11) return false;  // bounds as attributes: not taken
    for (size_t i = 1; i < 3; ++i) {
      if (act->inputs().size() <= i || act->inputs()[i] == nullptr) continue;
      const std::optional<float> v = ScalarOf(act->inputs()[i]);
      if (!v) return false;
      (i == 1 ? lo : hi) = *v;
    }
  } else {
    return false;
  }
  const double qmin = y_type == DataType::kInt8 ? -128 : 0;
  const double qmax = y_type == DataType::kInt8 ? 127 : 255;
  const double zp = qy.Zero();
  const float s = qy.Scale();
  // As QuantizeLinear computes it: the division in float.
  auto quantized = [&](float v) { return std::nearbyint(static_cast<double>(v / s)) + zp; };
  return (lo == -kInf || quantized(lo) <= qmin) && (hi == kInf || quantized(hi) >= qmax);
}

}  // namespace kiln::optimizer
