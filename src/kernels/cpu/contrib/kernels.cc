// The contrib family's entries in the kernel registry: the com.microsoft fused ops (opset 1 of
// that domain, unchanged since), and ONNX's early experimental ops that ONNX Runtime still runs.
#include "kernels/cpu/contrib/contrib_kernels.h"
#include "kernels/cpu/families.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"com.microsoft", "Gelu", 1, kLatestOpset, MakeContribGelu},
    {"com.microsoft", "FastGelu", 1, kLatestOpset, MakeFastGelu},
    {"com.microsoft", "BiasGelu", 1, kLatestOpset, MakeBiasGelu},
    {"com.microsoft", "QuickGelu", 1, kLatestOpset, MakeQuickGelu},
    {"com.microsoft", "EmbedLayerNormalization", 1, kLatestOpset, MakeEmbedLayerNormalization},
    {"com.microsoft", "QEmbedLayerNormalization", 1, kLatestOpset, MakeQEmbedLayerNormalization},
    {"com.microsoft", "GroupQueryAttention", 1, kLatestOpset, MakeGroupQueryAttention},
    {"com.microsoft", "SkipLayerNormalization", 1, kLatestOpset, MakeSkipLayerNormalization},
    {"com.microsoft", "SkipSimplifiedLayerNormalization", 1, kLatestOpset,
     MakeSkipSimplifiedLayerNormalization},
    {"com.microsoft", "FusedGemm", 1, kLatestOpset, MakeFusedGemm},
    {"com.microsoft", "FusedMatMul", 1, kLatestOpset, MakeFusedMatMul},
    {"com.microsoft", "MultiHeadAttention", 1, kLatestOpset, MakeMultiHeadAttention},
    {"com.microsoft", "Attention", 1, kLatestOpset, MakeContribAttention},
    {"com.microsoft", "QAttention", 1, kLatestOpset, MakeQAttention},
    {"com.microsoft", "MoE", 1, kLatestOpset, MakeMoE},
    {"com.microsoft", "QMoE", 1, kLatestOpset, MakeQMoE},
    // ONNX's experimental ops (ONNX domain, opset 1 on; ONNX later dropped them, and ONNX Runtime
    // still runs them): older converters' models need them.
    {"", "ImageScaler", 1, kLatestOpset, MakeImageScaler},
    {"", "Crop", 1, kLatestOpset, MakeCrop},
    {"", "Affine", 1, kLatestOpset, MakeAffine},
    {"", "ScaledTanh", 1, kLatestOpset, MakeScaledTanh},
    {"", "ParametricSoftplus", 1, kLatestOpset, MakeParametricSoftplus},
    {"", "Scale", 1, kLatestOpset, MakeScale},
};

}  // namespace

std::span<const KernelDef> ContribKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
