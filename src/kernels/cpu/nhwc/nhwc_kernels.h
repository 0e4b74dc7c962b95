// Factories of the nhwc family (ai.kiln channels-last ops), listed in nhwc/kernels.cc.
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_KERNELS_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeNhwcConv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNhwcMaxPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNhwcAveragePool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNhwcGlobalMaxPool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNhwcGlobalAveragePool(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_KERNELS_H_
