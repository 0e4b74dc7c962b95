// Rules for the com.microsoft fused ops (kernels/cpu/contrib/).
#include "infer/rules.h"

namespace kiln::infer {

std::span<const RuleDef> ContribRules() noexcept {
  return {};
}

}  // namespace kiln::infer
