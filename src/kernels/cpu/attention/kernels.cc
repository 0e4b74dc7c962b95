// The attention family's entries in the kernel registry.
#include "kernels/cpu/attention/attention_kernels.h"
#include "kernels/cpu/families.h"

namespace kiln::cpu {
namespace {

// Attention 24 only adds the input nonpad_kv_seqlen, which the kernel refuses below opset 24.
constexpr KernelDef kDefs[] = {
    {"", "Attention", 23, kLatestOpset, MakeAttention},
    {"", "RotaryEmbedding", 23, kLatestOpset, MakeRotaryEmbedding},
    {"com.microsoft", "RotaryEmbedding", 1, kLatestOpset, MakeMicrosoftRotaryEmbedding},
    {"", "TensorScatter", 24, kLatestOpset, MakeTensorScatter},
    {"", "CausalConvWithState", 27, kLatestOpset, MakeCausalConvWithState},
    {"", "LinearAttention", 27, kLatestOpset, MakeLinearAttention},
    {"ai.onnx.preview", "FlexAttention", 1, 1, MakeFlexAttention},
};

}  // namespace

std::span<const KernelDef> AttentionKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
