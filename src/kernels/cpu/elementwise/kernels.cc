// The elementwise family's entries in the kernel registry.
#include "kernels/cpu/families.h"

namespace kiln::cpu {

std::span<const KernelDef> ElementwiseKernels() {
  return {};
}

}  // namespace kiln::cpu
