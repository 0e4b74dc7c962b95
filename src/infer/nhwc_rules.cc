// Rules for the ai.kiln channels-last ops (kernels/cpu/nhwc/).
#include "infer/rules.h"

namespace kiln::infer {

std::span<const RuleDef> NhwcRules() noexcept {
  return {};
}

}  // namespace kiln::infer
