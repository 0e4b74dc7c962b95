// Factories of the image family (sampling, detection and patch ops), listed in image/kernels.cc.
#ifndef KILN_KERNELS_CPU_IMAGE_IMAGE_KERNELS_H_
#define KILN_KERNELS_CPU_IMAGE_IMAGE_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeGridSample(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAffineGrid(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNonMaxSuppression(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRoiAlign(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCol2Im(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCenterCropPad(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDeformConv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMaxUnpool(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_IMAGE_IMAGE_KERNELS_H_
