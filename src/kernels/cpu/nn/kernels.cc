// The nn family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/nn/nn_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "Conv", 1, kLatestOpset, MakeConv},
    {"", "ConvTranspose", 1, kLatestOpset, MakeConvTranspose},
};

}  // namespace

std::span<const KernelDef> NnKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
