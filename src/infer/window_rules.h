// Sliding-window helpers of the inference rules, shared by nn_rules.cc (Conv, pooling) and
// nhwc_rules.cc (the channels-last ops and FusedConv): output sizes exactly as
// kernels/cpu/nn/window.cc computes them.
#ifndef KILN_INFER_WINDOW_RULES_H_
#define KILN_INFER_WINDOW_RULES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "infer/infer.h"

namespace kiln::infer {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct WindowAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

// Reads and checks the window attributes as ReadWindowAttrs does; `dilations` and `ceil_mode` say
// whether the op at this opset has them.
WindowAttrs ReadWindow(const InferenceContext& ctx, bool dilations, bool ceil_mode);

// Fails unless each non-empty attribute has one value per spatial axis (pads: two).
void CheckSpatialRank(const InferenceContext& ctx, const WindowAttrs& a, size_t rank);

// Whether the window leaves the size of spatial axis d of `rank` as it is, whatever it is: stride
// 1 and SAME padding, or pads that add up to the kernel's extent less one (kernel size `k`).
bool KeepsSize(const WindowAttrs& a, size_t d, size_t rank, int64_t k);

// The number of window positions along spatial axis d of `rank` for input size `in` and kernel
// size `k` (either may be unknown, -1), as ResolveWindow computes it. A symbol (infer.h) for
// `in` is kept where the window keeps the size, else the result is unknown.
int64_t WindowOutput(const InferenceContext& ctx, const WindowAttrs& a, size_t d, size_t rank,
                     int64_t in, int64_t k, bool honour_ceil_mode);

// ONNX Conv's output dimensions from X, W and the attributes (nullopt: rank unknown), and its rule.
std::optional<std::vector<int64_t>> ConvOutputDims(const InferenceContext& ctx);
void ConvRule(InferenceContext& ctx);

}  // namespace kiln::infer

#endif  // KILN_INFER_WINDOW_RULES_H_
