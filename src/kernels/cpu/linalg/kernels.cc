// The linalg family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/linalg/linalg_kernels.h"

namespace kiln::cpu {
namespace {

// Each kernel branches on the opset where the versions in its range differ.
constexpr KernelDef kDefs[] = {
    {"", "MatMul", 1, kLatestOpset, MakeMatMul},
    {"", "Gemm", 1, kLatestOpset, MakeGemm},
    {"ai.kiln", "BlockedMatMul", 1, kLatestOpset, MakeBlockedMatMul},
    {"", "Einsum", 12, kLatestOpset, MakeEinsum},
    {"", "Softmax", 1, kLatestOpset, MakeSoftmax},
    {"", "LogSoftmax", 1, kLatestOpset, MakeLogSoftmax},
    {"", "Hardmax", 1, kLatestOpset, MakeHardmax},
    {"", "LayerNormalization", 17, kLatestOpset, MakeLayerNormalization},
    {"", "RMSNormalization", 23, kLatestOpset, MakeRmsNormalization},
    // ONNX Runtime's own ONNX-domain ops, which its transformer optimizer writes into models of
    // any opset: LayerNormalization before ONNX defined it, and SimplifiedLayerNormalization.
    {"", "LayerNormalization", 1, 16, MakeLayerNormalization},
    {"", "SimplifiedLayerNormalization", 1, kLatestOpset, MakeSimplifiedLayerNormalization},
    // What ONNX Runtime's PyTorch-export helper writes for torch.inverse.
    {"com.microsoft", "Inverse", 1, kLatestOpset, MakeInverse},
};

}  // namespace

std::span<const KernelDef> LinalgKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
