// Factories of the reduce family, listed in reduce/kernels.cc.
#ifndef KILN_KERNELS_CPU_REDUCE_REDUCE_KERNELS_H_
#define KILN_KERNELS_CPU_REDUCE_REDUCE_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeReduceSum(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceMean(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceMax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceMin(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceProd(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceL1(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceL2(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceLogSum(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceLogSumExp(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReduceSumSquare(const KernelInfo& info);
std::unique_ptr<Kernel> MakeArgMax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeArgMin(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTopK(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCumSum(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCumProd(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_REDUCE_REDUCE_KERNELS_H_
