// Factories of the contrib family (ONNX Runtime's com.microsoft fused transformer ops), listed in
// contrib/kernels.cc.
//
//   {kMicrosoftDomain, "Gelu", 1, kLatestOpset, MakeContribGelu}
#ifndef KILN_KERNELS_CPU_CONTRIB_CONTRIB_KERNELS_H_
#define KILN_KERNELS_CPU_CONTRIB_CONTRIB_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeContribGelu(const KernelInfo& info);             // gelu.cc
std::unique_ptr<Kernel> MakeFastGelu(const KernelInfo& info);                // gelu.cc
std::unique_ptr<Kernel> MakeBiasGelu(const KernelInfo& info);                // gelu.cc
std::unique_ptr<Kernel> MakeSkipLayerNormalization(const KernelInfo& info);  // skip_layer_norm.cc
std::unique_ptr<Kernel> MakeSkipSimplifiedLayerNormalization(const KernelInfo& info);  // ditto
std::unique_ptr<Kernel> MakeQuickGelu(const KernelInfo& info);                         // gelu.cc
std::unique_ptr<Kernel> MakeEmbedLayerNormalization(const KernelInfo& info);  // embed_layer_norm.cc
std::unique_ptr<Kernel> MakeQEmbedLayerNormalization(const KernelInfo& info);  // ditto
std::unique_ptr<Kernel> MakeGroupQueryAttention(
    const KernelInfo& info);  // group_query_attention.cc
// ONNX's experimental ops of its first opsets, in the ONNX domain (experimental.cc).
std::unique_ptr<Kernel> MakeImageScaler(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCrop(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAffine(const KernelInfo& info);
std::unique_ptr<Kernel> MakeScaledTanh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeParametricSoftplus(const KernelInfo& info);
std::unique_ptr<Kernel> MakeScale(const KernelInfo& info);
std::unique_ptr<Kernel> MakeFusedGemm(const KernelInfo& info);           // fused_gemm.cc
std::unique_ptr<Kernel> MakeFusedMatMul(const KernelInfo& info);         // fused_matmul.cc
std::unique_ptr<Kernel> MakeMultiHeadAttention(const KernelInfo& info);  // multi_head_attention.cc
std::unique_ptr<Kernel> MakeContribAttention(const KernelInfo& info);    // attention_contrib.cc
std::unique_ptr<Kernel> MakeQAttention(const KernelInfo& info);          // attention_contrib.cc
std::unique_ptr<Kernel> MakeMoE(const KernelInfo& info);                 // moe.cc
std::unique_ptr<Kernel> MakeQMoE(const KernelInfo& info);                // moe.cc

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_CONTRIB_CONTRIB_KERNELS_H_
