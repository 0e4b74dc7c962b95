// The nhwc family's entries in the kernel registry: the ai.kiln channels-last ops.
#include "kernels/cpu/families.h"

namespace kiln::cpu {

std::span<const KernelDef> NhwcKernels() {
  return {};
}

}  // namespace kiln::cpu
