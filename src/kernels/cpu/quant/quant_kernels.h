// Factories of the quant family (quantization and integer matrix products), listed in
// quant/kernels.cc.
#ifndef KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_
#define KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeQuantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDequantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDynamicQuantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearMatMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeConvInteger(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearConv(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_
