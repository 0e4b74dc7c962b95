// Factories of the linalg family (matrix products, softmax-like normalisations, layer
// normalisation), listed in linalg/kernels.cc.
#ifndef KILN_KERNELS_CPU_LINALG_LINALG_KERNELS_H_
#define KILN_KERNELS_CPU_LINALG_LINALG_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeMatMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGemm(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBlockedMatMul(const KernelInfo& info);  // ai.kiln
std::unique_ptr<Kernel> MakeEinsum(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSoftmax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLogSoftmax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeHardmax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRmsNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSimplifiedLayerNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeInverse(const KernelInfo& info);  // inverse.cc (com.microsoft)

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_LINALG_LINALG_KERNELS_H_
