// The nhwc family's entries in the kernel registry: the ai.kiln channels-last ops, and
// com.microsoft FusedConv (NCHW, implemented by nn/conv.cc), which the same layout pass emits.
#include "kernels/cpu/families.h"
#include "kernels/cpu/nhwc/nhwc_kernels.h"
#include "kernels/cpu/nn/nn_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"ai.kiln", "NhwcConv", 1, kLatestOpset, MakeNhwcConv},
    {"ai.kiln", "NhwcMaxPool", 1, kLatestOpset, MakeNhwcMaxPool},
    // ONNX Runtime's NHWC transformer (level all) writes it for 8-bit MaxPool: the same op.
    {"com.microsoft", "NhwcMaxPool", 1, kLatestOpset, MakeNhwcMaxPool},
    {"ai.kiln", "NhwcAveragePool", 1, kLatestOpset, MakeNhwcAveragePool},
    {"ai.kiln", "NhwcGlobalMaxPool", 1, kLatestOpset, MakeNhwcGlobalMaxPool},
    {"ai.kiln", "NhwcGlobalAveragePool", 1, kLatestOpset, MakeNhwcGlobalAveragePool},
    {"com.microsoft", "FusedConv", 1, kLatestOpset, MakeFusedConv},
};

}  // namespace

std::span<const KernelDef> NhwcKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
