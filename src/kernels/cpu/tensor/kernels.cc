// The tensor family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/tensor/tensor_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "Identity", 1, kLatestOpset, MakeIdentity},
};

}  // namespace

std::span<const KernelDef> TensorKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
