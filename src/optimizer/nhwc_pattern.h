// Internal to src/optimizer: what the channels-last passes (nhwc_concat_split.cc,
// nhwc_scale_fusion.cc) need to know about the ai.kiln Nhwc* nodes nhwc_layout made, and the
// rewriting helpers nhwc_layout.cc and nhwc_video.cc share.
#ifndef KILN_OPTIMIZER_NHWC_PATTERN_H_
#define KILN_OPTIMIZER_NHWC_PATTERN_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "optimizer/pass.h"

namespace kiln::optimizer {

// Whether the node is the ai.kiln op `op` with its first input and output present.
bool IsKilnOp(const ir::Node* n, const char* op) noexcept;

// A Conv, or a com.microsoft FusedConv with its X and W: what nhwc_layout converts.
bool IsConvNode(const ir::Node* n) noexcept;

// An elementwise activation of one input (Sigmoid, Relu, Tanh, HardSigmoid, HardSwish).
bool IsUnary(const ir::Node* n) noexcept;

// The channels of an NHWC value, known from what made it: an NhwcConv (W's output channels), a
// pool or unary activation (its input's), a Transpose to NHWC (the NCHW input's dimension 1).
// Otherwise unknown.
std::optional<int64_t> Channels(const PassContext& ctx, const ir::Value* v);

// Whether the NhwcConv `n` reads `v` as X only and is a plain 1×1 product over whole channels:
// constant W [M, C, 1, 1], one group, unit strides, no padding, no input_channels or
// channel_scale yet, at most X, W, B and Z as inputs.
bool PointwiseReaderOf(const ir::Node* n, const ir::Value* v);

// A Transpose of `in` by `perm` writing `out` (a new value named from `in` when null).
ir::Value* AddTranspose(ir::Graph& g, ir::Value* in, std::span<const int64_t> perm,
                        ir::Value* out = nullptr);
// A Reshape of `in` to `dims` (a constant), writing a new value named `base`.
ir::Value* AddReshape(ir::Graph& g, ir::Value* in, const std::vector<int64_t>& dims,
                      const std::string& base);
// An int64 or int32 constant (as `like`'s type, int64 when `like` is null) of these values.
ir::Value* IntsConstant(ir::Graph& g, const std::string& name, const std::vector<int64_t>& v,
                        const Tensor* like);

// Channels-last with one channel axis at any rank r ≥ 3 ([N, D, H, W, C] for video): ToLastPerm
// takes [N, C, spatial...] to [N, spatial..., C] = (0, 2, ..., r - 1, 1), ToFirstPerm back =
// (0, r - 1, 1, ..., r - 2). At rank 4 they are NCHW→NHWC and back.
std::vector<int64_t> ToLastPerm(size_t rank);
std::vector<int64_t> ToFirstPerm(size_t rank);

// nhwc_video.cc, for nhwc_layout's first step: a 5-D convolution or pool whose window spans a
// frame (1, kh, kw) or time alone (kt, 1, 1), a separable 5-D pool, or a global pool, into
// ai.kiln Nhwc ops over reshapes of its channels-last input; false when it does not fit.
bool ConvertVideoNode(PassContext& ctx, ir::Node* n);
// Whether the graph has a 5-D convolution over a frame (1, kh, kw) or time (kt, 1, 1) with more
// than one tap: only then does nhwc_layout convert 5-D layers.
bool HasFactoredVideoConv(const ir::Graph& g);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_NHWC_PATTERN_H_
