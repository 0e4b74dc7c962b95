// The contrib family's entries in the kernel registry: the com.microsoft fused ops.
#include "kernels/cpu/families.h"

namespace kiln::cpu {

std::span<const KernelDef> ContribKernels() {
  return {};
}

}  // namespace kiln::cpu
