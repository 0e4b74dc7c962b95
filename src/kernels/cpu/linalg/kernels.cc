// The linalg family's entries in the kernel registry.
#include "kernels/cpu/families.h"

namespace kiln::cpu {

std::span<const KernelDef> LinalgKernels() {
  return {};
}

}  // namespace kiln::cpu
