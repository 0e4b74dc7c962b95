// The random family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/random/random_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "RandomUniform", 1, kLatestOpset, MakeRandomUniform},
    {"", "RandomNormal", 1, kLatestOpset, MakeRandomNormal},
    {"", "RandomUniformLike", 1, kLatestOpset, MakeRandomUniformLike},
    {"", "RandomNormalLike", 1, kLatestOpset, MakeRandomNormalLike},
    {"", "Bernoulli", 15, kLatestOpset, MakeBernoulli},
};

}  // namespace

std::span<const KernelDef> RandomKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
