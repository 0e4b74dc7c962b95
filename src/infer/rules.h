// Internal to src/infer: each file of rules lists its entries; rules.cc gathers them.
#ifndef KILN_INFER_RULES_H_
#define KILN_INFER_RULES_H_

#include <span>

#include "infer/infer.h"

namespace kiln::infer {

struct RuleDef {
  const char* op_type;
  Rule rule;
  const char* domain = "";  // "" for the default ONNX domain
};

std::span<const RuleDef> ElementwiseRules() noexcept;  // elementwise_rules.cc
std::span<const RuleDef> LinalgRules() noexcept;       // linalg_rules.cc
std::span<const RuleDef> NnRules() noexcept;           // nn_rules.cc
std::span<const RuleDef> ReduceRules() noexcept;       // reduce_rules.cc
std::span<const RuleDef> ShapeRules() noexcept;        // shape_rules.cc
std::span<const RuleDef> TensorRules() noexcept;       // tensor_rules.cc
std::span<const RuleDef> NhwcRules() noexcept;         // nhwc_rules.cc: ai.kiln channels-last ops
std::span<const RuleDef> ContribRules() noexcept;      // contrib_rules.cc: com.microsoft fused ops
std::span<const RuleDef> LossNormRules() noexcept;   // loss_norm_rules.cc: losses, RMS/MVN, BitCast
std::span<const RuleDef> AttentionRules() noexcept;  // attention_rules.cc
std::span<const RuleDef> QuantRules() noexcept;      // quant_rules.cc
std::span<const RuleDef> SignalRules() noexcept;     // signal_rules.cc: DFT, STFT, windows, Det
std::span<const RuleDef> ImageRules() noexcept;  // image_rules.cc: GridSample, NMS, RoiAlign, ...
std::span<const RuleDef> DataRules() noexcept;   // data_rules.cc: Unique, string ops, optimizers

}  // namespace kiln::infer

#endif  // KILN_INFER_RULES_H_
