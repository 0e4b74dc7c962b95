// Factories of the ai.onnx.ml family, listed in ml/kernels.cc.
#ifndef KILN_KERNELS_CPU_ML_ML_KERNELS_H_
#define KILN_KERNELS_CPU_ML_ML_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeBinarizer(const KernelInfo& info);  // simple.cc
std::unique_ptr<Kernel> MakeArrayFeatureExtractor(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLabelEncoder(const KernelInfo& info);  // label_encoder.cc
std::unique_ptr<Kernel> MakeTreeEnsemble(const KernelInfo& info);  // tree_ensemble.cc

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ML_ML_KERNELS_H_
