// Factories of the random family, listed in random/kernels.cc.
#ifndef KILN_KERNELS_CPU_RANDOM_RANDOM_KERNELS_H_
#define KILN_KERNELS_CPU_RANDOM_RANDOM_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeRandomUniform(const KernelInfo& info);  // random.cc
std::unique_ptr<Kernel> MakeRandomNormal(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRandomUniformLike(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRandomNormalLike(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBernoulli(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_RANDOM_RANDOM_KERNELS_H_
