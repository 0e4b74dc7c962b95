// ONNX Runtime's NCHWc layout as a load-time rewrite: a model ONNX Runtime saved optimized at its
// level "all" (its default) holds its CPU kernels' channel-blocked layout in domain
// com.microsoft.nchwc (ReorderInput, ReorderOutput, Conv, MaxPool, AveragePool, GlobalMaxPool,
// GlobalAveragePool, Upsample). Every such node of the graph (and of its If/Loop/Scan bodies) is
// replaced by standard ops on NCHW data whose channel axis is zero-padded to the block multiple,
// which compute the same values, so no kernel of that domain is needed. The session runs it before
// the optimizer at every level (level 0 too); Kiln's own passes then fuse and lay out the result.
//
//   kiln::optimizer::LegalizeNchwc(*model.graph, kernels, {.onnx_opset = 17});
//
// The layout, as ONNX Runtime's NchwcTransformer writes it and MLAS's kernels read it:
//  - A blocked tensor has the logical shape [N, Cp, H, W], Cp the channel count rounded up to the
//    block size B, held as [N, Cp / B, H, W, B]; the padded channels are zeros where ReorderInput
//    made them and whatever the ops computed elsewhere (nothing reads them but ops that ignore
//    them: filters with zero weights there, ReorderOutput, per-channel pools). Ops ONNX Runtime
//    leaves in the default domain between nchwc nodes (Add, Sum, Mul, Concat of whole blocks,
//    activations, a Reshape to [N, Cp / B, H, W, B] and back) are elementwise or a round trip, so
//    they read the NCHW form the same way. The rewrite therefore keeps every value, as [N, Cp, H,
//    W] in NCHW order.
//  - ReorderInput(X; channels_last): X [N, C, H, W] (or [N, H, W, C]) to blocked, the channels
//    zero-padded to Cp: here a Transpose (channels_last) and a Pad of the channel axis (its amount
//    computed at run time when C is not known at load time).
//  - ReorderOutput(X; channels, channels_last): the first `channels` channels, in NCHW (or NHWC):
//    a Slice (and a Transpose).
//  - Conv(X, W, B, Sum; auto_pad, dilations, group, kernel_shape, pads, strides, activation,
//    activation_params): Y = act(conv(X, W) + B + Sum), W [Op, Ig, KH, KW] (Op = output channels
//    padded to the block, zeros beyond; B padded likewise). MLAS picks the algorithm, and so the
//    filter's element order, from Ig (input channels per group) and Og = Op / group:
//      Ig >= B: X blocked, W in OIHWBiBo order: for each block of B output channels, each block
//        of B input channels, each kernel tap, each input channel of the block, the B output
//        channels of the block;
//      Ig == 1 and Og == 1 (depthwise): X blocked, W in OIHWBo order: for each block of B output
//        channels, each input channel, each tap, the B output channels of the block;
//      otherwise: X plain NCHW (not reordered), W in OIHWBo order.
//    Rewritten as a Conv with W in OIHW order (a com.microsoft FusedConv, whose epilogue is the
//    same, when there is a Sum or an activation: Relu, Tanh, Sigmoid, HardSwish, LeakyRelu(alpha),
//    Clip(min, max), HardSigmoid(alpha, beta), Silu as Swish).
//  - MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool: the ONNX ops, same attributes.
//  - Upsample(X; scales (integers, [1, 1, sh, sw]), mode, coordinate_transformation_mode): nearest
//    repeats each pixel (Resize nearest, asymmetric, floor); linear interpolates as Resize linear
//    with align_corners, half_pixel or asymmetric (the only modes it is written with).
//
// The block size B is MLAS's (MlasNchwcGetBlockSize) on the machine that saved the model, which
// the model does not record: 16 on x86-64 with AVX-512F, 8 with AVX2 only, 16 on arm64 (its NEON
// kernels). It is taken as ONNX Runtime would on this machine (or `options.block_size`) unless the
// shapes prove the other: padded channel counts must be multiples of B, a ReorderOutput must drop
// fewer than B channels, a filter with Ig >= B must read a blocked input and one with fewer a plain
// one, a ReorderInput pads to the next multiple of B. A model the machine's size does not fit but
// the other does is read with the other; one neither fits is refused (kInvalidGraph) naming the
// node and what contradicts the machine's size. Where both fit (every padded count a multiple of
// 16, every filter's input channels either at least 16 or fewer than 8), the shapes cannot tell:
// the machine's size is taken, right when the model was saved on a machine like this one.
#ifndef KILN_OPTIMIZER_NCHWC_LEGALIZATION_H_
#define KILN_OPTIMIZER_NCHWC_LEGALIZATION_H_

#include <cstddef>
#include <cstdint>

#include "ir/graph.h"
#include "kernels/registry.h"

namespace kiln::optimizer {

struct NchwcOptions {
  // The model's default-domain (ONNX) opset: new nodes are made at it where it has them with the
  // needed inputs, else at the first version that does. 0: unknown (the first such version).
  int64_t onnx_opset = 0;
  // The block size to take unless the shapes prove the other: 8 or 16; 0 for this machine's.
  int64_t block_size = 0;
};

// MLAS's NCHWc block size on this machine, as ONNX Runtime's would be.
int64_t MachineNchwcBlockSize() noexcept;

// Rewrites every com.microsoft.nchwc node of `graph` and of its subgraphs into standard ops;
// returns how many. A node whose op `registry` has a kernel for (a custom op library registered
// for that domain) is left alone. Throws kInvalidGraph naming the node for a malformed one (a
// filter that is not a constant float 4-D tensor, attributes out of range, shapes that fit
// neither block size) and kNotImplemented for an op or mode of the domain with no equivalent here.
size_t LegalizeNchwc(ir::Graph& graph, const KernelRegistry& registry,
                     const NchwcOptions& options = {});

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_NCHWC_LEGALIZATION_H_
