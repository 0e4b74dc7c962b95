// Factories of the rnn family, listed in rnn/kernels.cc.
#ifndef KILN_KERNELS_CPU_RNN_RNN_KERNELS_H_
#define KILN_KERNELS_CPU_RNN_RNN_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeLstm(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGru(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRnn(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDynamicQuantizeLstm(const KernelInfo& info);  // com.microsoft

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_RNN_RNN_KERNELS_H_
