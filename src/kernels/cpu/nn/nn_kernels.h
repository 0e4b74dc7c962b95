// Factories of the nn family (convolution, pooling, normalization), listed in nn/kernels.cc.
#ifndef KILN_KERNELS_CPU_NN_NN_KERNELS_H_
#define KILN_KERNELS_CPU_NN_NN_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeConv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeFusedConv(
    const KernelInfo& info);  // com.microsoft, registered by nhwc/
std::unique_ptr<Kernel> MakeConvTranspose(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMaxPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAveragePool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLpPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGlobalAveragePool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGlobalMaxPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGlobalLpPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeInstanceNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLrn(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLpNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNegativeLogLikelihoodLoss(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSoftmaxCrossEntropyLoss(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMeanVarianceNormalization(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGroupNormalization(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_NN_NN_KERNELS_H_
