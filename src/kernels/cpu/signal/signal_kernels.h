// Factories of the signal family (DFT, STFT, the windows, MelWeightMatrix) and Det, listed in
// signal/kernels.cc.
#ifndef KILN_KERNELS_CPU_SIGNAL_SIGNAL_KERNELS_H_
#define KILN_KERNELS_CPU_SIGNAL_SIGNAL_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeDft(const KernelInfo& info);
std::unique_ptr<Kernel> MakeStft(const KernelInfo& info);
std::unique_ptr<Kernel> MakeHannWindow(const KernelInfo& info);
std::unique_ptr<Kernel> MakeHammingWindow(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBlackmanWindow(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMelWeightMatrix(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDet(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_SIGNAL_SIGNAL_KERNELS_H_
