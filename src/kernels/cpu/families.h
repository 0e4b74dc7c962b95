// The CPU kernel families. Each family keeps its KernelDef list in its own folder; cpu_kernels.cc
// gathers them into the registry.
#ifndef KILN_KERNELS_CPU_FAMILIES_H_
#define KILN_KERNELS_CPU_FAMILIES_H_

#include <span>

#include "kernels/registry.h"

namespace kiln::cpu {

std::span<const KernelDef> ElementwiseKernels();  // elementwise/: math, activations, logic, Cast
std::span<const KernelDef> LinalgKernels();  // linalg/: MatMul, Gemm, Einsum, Softmax, LayerNorm
std::span<const KernelDef> NnKernels();      // nn/: Conv, pooling, BatchNorm, InstanceNorm
std::span<const KernelDef> TensorKernels();  // tensor/: shape and data movement
std::span<const KernelDef> ReduceKernels();  // reduce/: Reduce*, ArgMax/Min, TopK, CumSum
std::span<const KernelDef> RnnKernels();     // rnn/: LSTM, GRU, RNN, DynamicQuantizeLSTM
std::span<const KernelDef> ControlFlowKernels();  // controlflow/: If, Loop, Scan
std::span<const KernelDef> SequenceKernels();     // sequence/: Sequence*, *FromSequence, Optional*
std::span<const KernelDef> NhwcKernels();         // nhwc/: ai.kiln channels-last Conv and pooling
std::span<const KernelDef> ContribKernels();      // contrib/: com.microsoft fused ops
std::span<const KernelDef> AttentionKernels();    // attention/: Attention, RotaryEmbedding, caches
std::span<const KernelDef> QuantKernels();   // quant/: (De)QuantizeLinear, integer MatMul and Conv
std::span<const KernelDef> SignalKernels();  // signal/: DFT, STFT, windows, MelWeightMatrix, Det
std::span<const KernelDef> ImageKernels();   // image/: GridSample, NMS, RoiAlign, Col2Im, ...
std::span<const KernelDef> TrainingKernels();  // training/: ai.onnx.preview.training optimizers
std::span<const KernelDef> TextKernels();      // text/: string ops, TfIdfVectorizer
std::span<const KernelDef> MlKernels();        // ml/: ai.onnx.ml LabelEncoder, TreeEnsemble, ...
std::span<const KernelDef> RandomKernels();    // random/: Random*, Bernoulli
std::span<const KernelDef> ImageDecoderKernels();  // image_decoder/: ImageDecoder and its codecs

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_FAMILIES_H_
