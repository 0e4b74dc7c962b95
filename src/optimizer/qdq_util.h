// Internal to src/optimizer: what the QDQ passes (qdq_fusion.cc, qdq_ops_fusion.cc) share —
// reading a DequantizeLinear's or QuantizeLinear's constant scale and zero point, a zero point
// made where one is left out, and whether a Relu or Clip before a QuantizeLinear changes
// nothing its saturation would not.
#ifndef KILN_OPTIMIZER_QDQ_UTIL_H_
#define KILN_OPTIMIZER_QDQ_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/tensor.h"
#include "ir/graph.h"

namespace kiln::optimizer {

inline bool IsInt8Type(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}

// The parts of a DequantizeLinear or QuantizeLinear node: its constant float scale and its
// constant zero point (null when absent), as tensors and as the graph's values.
struct QParams {
  const Tensor* scale = nullptr;
  ir::Value* scale_value = nullptr;
  ir::Value* zero_value = nullptr;
  const Tensor* zero = nullptr;

  float Scale() const { return *static_cast<const float*>(scale->data()); }
  // The (first) zero point's integer value; 0 when absent.
  int32_t Zero() const;
};

// Reads (De)QuantizeLinear `n`'s scale and zero point when both are constants of the kinds the
// quantized kernels take: a float scale of one value, or of `per` values along `axis` when
// `per` > 0; a zero point of the same count (any integer type: the caller checks it). No blocks.
bool ReadParams(const ir::Node* n, size_t per, int64_t axis, QParams* out);

// Whether the two read the same one scale and zero point (the values, not the graph's values).
bool SameParams(const QParams& a, const QParams& b);

// A new constant 0 of `type` (one value).
ir::Value* ZeroOf(ir::Graph& g, DataType type, const std::string& base);

// `p`'s zero point value, or a new constant 0 of `type` where it has none.
ir::Value* ZeroValueOr(ir::Graph& g, const QParams& p, DataType type, const std::string& base);

// Whether the float values of t are xs · ws[m] for every m, computed as the quantizer does.
bool IsBiasScale(const Tensor& t, float xs, const Tensor& ws);

// Whether `act` (a Relu, or a Clip with constant bounds) before a QuantizeLinear with `qy` to
// `y_type` is implied by that quantization's saturation: every value it would clamp quantizes
// to the type's least or greatest value anyway (a Relu needs the zero point at the least value).
bool ImpliedBySaturation(const ir::Node* act, const QParams& qy, DataType y_type);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_QDQ_UTIL_H_
