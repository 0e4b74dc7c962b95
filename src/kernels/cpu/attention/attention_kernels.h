// The attention family's kernel factories (one per op), gathered by kernels.cc.
#ifndef KILN_KERNELS_CPU_ATTENTION_ATTENTION_KERNELS_H_
#define KILN_KERNELS_CPU_ATTENTION_ATTENTION_KERNELS_H_

#include <memory>

#include "kernels/kernel.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeAttention(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRotaryEmbedding(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMicrosoftRotaryEmbedding(const KernelInfo& info);  // com.microsoft
std::unique_ptr<Kernel> MakeTensorScatter(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCausalConvWithState(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLinearAttention(const KernelInfo& info);
std::unique_ptr<Kernel> MakeFlexAttention(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ATTENTION_ATTENTION_KERNELS_H_
