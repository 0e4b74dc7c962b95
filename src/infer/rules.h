// Internal to src/infer: each file of rules lists its entries; rules.cc gathers them.
#ifndef KILN_INFER_RULES_H_
#define KILN_INFER_RULES_H_

#include <span>

#include "infer/infer.h"

namespace kiln::infer {

struct RuleDef {
  const char* op_type;  // of the default ONNX domain
  Rule rule;
};

// Ops whose outputs have their first input's type and shape.
std::span<const RuleDef> SameAsInputRules() noexcept;

}  // namespace kiln::infer

#endif  // KILN_INFER_RULES_H_
