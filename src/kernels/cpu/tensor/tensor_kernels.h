// Factories of the tensor family (shape and data movement), listed in tensor/kernels.cc.
#ifndef KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_
#define KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_
