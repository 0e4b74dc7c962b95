// The operator domains of the ops the optimizer makes (DESIGN.md §4). Models may use them too.
#ifndef KILN_KERNELS_DOMAINS_H_
#define KILN_KERNELS_DOMAINS_H_

namespace kiln {

// ONNX Runtime's contrib domain: fused ops with ONNX Runtime's names and semantics (Gelu,
// FastGelu, BiasGelu, SkipLayerNormalization, FusedConv, FusedGemm, FusedMatMul,
// MultiHeadAttention), so a model ONNX Runtime saved after optimizing also runs here.
inline constexpr char kMicrosoftDomain[] = "com.microsoft";
// Kiln's own ops: the channels-last (NHWC) forms of convolution and pooling that the layout pass
// (level 3) puts on convolution chains.
inline constexpr char kKilnDomain[] = "ai.kiln";

}  // namespace kiln

#endif  // KILN_KERNELS_DOMAINS_H_
