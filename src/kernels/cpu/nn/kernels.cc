// The nn family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/nn/nn_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "Conv", 1, kLatestOpset, MakeConv},
    {"", "ConvTranspose", 1, kLatestOpset, MakeConvTranspose},
    {"", "MaxPool", 1, kLatestOpset, MakeMaxPool},
    {"", "AveragePool", 1, kLatestOpset, MakeAveragePool},
    {"", "LpPool", 1, kLatestOpset, MakeLpPool},
    {"", "GlobalAveragePool", 1, kLatestOpset, MakeGlobalAveragePool},
    {"", "GlobalMaxPool", 1, kLatestOpset, MakeGlobalMaxPool},
    {"", "GlobalLpPool", 1, kLatestOpset, MakeGlobalLpPool},
    {"", "BatchNormalization", 1, kLatestOpset, MakeBatchNormalization},
    {"", "InstanceNormalization", 1, kLatestOpset, MakeInstanceNormalization},
    {"", "LRN", 1, kLatestOpset, MakeLrn},
    {"", "LpNormalization", 1, kLatestOpset, MakeLpNormalization},
    {"", "NegativeLogLikelihoodLoss", 12, kLatestOpset, MakeNegativeLogLikelihoodLoss},
    {"", "SoftmaxCrossEntropyLoss", 12, kLatestOpset, MakeSoftmaxCrossEntropyLoss},
    {"", "MeanVarianceNormalization", 9, kLatestOpset, MakeMeanVarianceNormalization},
    {"", "MeanVarianceNormalization", 1, 8, MakeMeanVarianceNormalization},  // experimental
    {"", "GroupNormalization", 18, kLatestOpset, MakeGroupNormalization},
};

}  // namespace

std::span<const KernelDef> NnKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
