// Internal to src/optimizer: what the channels-last passes (nhwc_concat_split.cc,
// nhwc_scale_fusion.cc) need to know about the ai.kiln Nhwc* nodes nhwc_layout made.
#ifndef KILN_OPTIMIZER_NHWC_PATTERN_H_
#define KILN_OPTIMIZER_NHWC_PATTERN_H_

#include <cstdint>
#include <optional>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace kiln::optimizer {

// Whether the node is the ai.kiln op `op` with its first input and output present.
bool IsKilnOp(const ir::Node* n, const char* op) noexcept;

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

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_NHWC_PATTERN_H_
