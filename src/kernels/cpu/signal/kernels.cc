// The signal family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/signal/signal_kernels.h"

namespace kiln::cpu {
namespace {

// DFT-17 takes `axis` as an attribute, DFT-20 as an input; the kernel branches on the opset.
constexpr KernelDef kDefs[] = {
    {"", "DFT", 17, kLatestOpset, MakeDft},
    {"", "STFT", 17, kLatestOpset, MakeStft},
    {"", "HannWindow", 17, kLatestOpset, MakeHannWindow},
    {"", "HammingWindow", 17, kLatestOpset, MakeHammingWindow},
    {"", "BlackmanWindow", 17, kLatestOpset, MakeBlackmanWindow},
    {"", "MelWeightMatrix", 17, kLatestOpset, MakeMelWeightMatrix},
    {"", "Det", 11, kLatestOpset, MakeDet},
};

}  // namespace

std::span<const KernelDef> SignalKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
