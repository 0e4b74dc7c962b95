// Factories of the training family (ai.onnx.preview.training), listed in training/kernels.cc.
#ifndef KILN_KERNELS_CPU_TRAINING_TRAINING_KERNELS_H_
#define KILN_KERNELS_CPU_TRAINING_TRAINING_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeAdagrad(const KernelInfo& info);  // optimizers.cc
std::unique_ptr<Kernel> MakeAdam(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMomentum(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TRAINING_TRAINING_KERNELS_H_
