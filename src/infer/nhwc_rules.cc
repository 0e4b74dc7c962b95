// Rules for the ai.kiln channels-last ops (kernels/cpu/nhwc/) and com.microsoft FusedConv:
//   NhwcConv: X [N, H, W, C], W [M, C/group, kH, kW] → Y [N, OH, OW, M] (Z, when known, must
//     have Y's shape; with input_channels, C is their sum and input 0 holds the first part; with
//     expand, X has WE's (input 4's) input channels and C is its output channels);
//   NhwcMaxPool (also com.microsoft's, for 8-bit data), NhwcAveragePool: [N, H, W, C] →
//     [N, OH, OW, C];
//   NhwcGlobalMaxPool, NhwcGlobalAveragePool: [N, H, W, C] → [N, 1, 1, C];
//   FusedConv: ONNX Conv's rule, and Z, when known, must have Y's shape.
// Window sizes as window_rules.h computes them for the NCHW ops.
#include <optional>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "infer/window_rules.h"

namespace kiln::infer {
namespace {

// Fails when input 'Z' (index 3) has a known shape that contradicts the output's.
void CheckZ(const InferenceContext& ctx, const std::optional<std::vector<int64_t>>& y) {
  const std::optional<std::vector<int64_t>> z = InputDims(ctx, 3);
  if (!z || !y) return;
  bool ok = z->size() == y->size();
  for (size_t i = 0; ok && i < z->size(); ++i) {
    ok = !IsKnownDim((*z)[i]) || !IsKnownDim((*y)[i]) || (*z)[i] == (*y)[i];
  }
  if (!ok) {
    ctx.Fail("input 'Z' has shape " + DimsText(*z) + "; it must have the output's shape " +
             DimsText(*y));
  }
}

// Input 'X' (symbols kept); fails unless it has rank 4 when known.
std::optional<std::vector<int64_t>> Nhwc4(const InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (x && x->size() != 4) {
    ctx.Fail("input 'X' has shape " + DimsText(*x) + "; it needs rank 4 (N, H, W, C)");
  }
  return x;
}

void NhwcConv(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const WindowAttrs a = ReadWindow(ctx, true, false);
  CheckSpatialRank(ctx, a, 2);
  const int64_t group = ctx.info().GetInt("group", 1);
  if (group < 1)
    ctx.Fail("attribute 'group' is " + std::to_string(group) + "; it must be positive");
  const std::optional<std::vector<int64_t>> x = Nhwc4(ctx);
  const std::optional<std::vector<int64_t>> w = InputDims(ctx, 1);
  if (w && w->size() != 4) {
    ctx.Fail("input 'W' has shape " + DimsText(*w) + "; it needs rank 4 (M, C/group, kH, kW)");
  }
  int64_t c = x ? (*x)[3] : kUnknownDim;
  // X in parts along the channels (attribute input_channels; inputs 0, 4, 5, ...): the channels
  // are the parts' sum.
  const std::vector<int64_t> parts = ctx.info().GetInts("input_channels");
  if (!parts.empty()) {
    if (IsKnownDim(c) && c != parts[0]) {
      ctx.Fail("input 'X' has shape " + DimsText(*x) + "; attribute 'input_channels' gives it " +
               std::to_string(parts[0]) + " channels");
    }
    int64_t sum = 0;
    for (int64_t p : parts) sum += p;
    if (w && IsKnownDim((*w)[1]) && sum != MulDims((*w)[1], group)) {
      ctx.Fail("attribute 'input_channels' adds up to " + std::to_string(sum) +
               " channels, but input 'W' " + DimsText(*w) + " has " + std::to_string((*w)[1]) +
               " input channels per group in " + std::to_string(group) + " groups");
    }
    c = kUnknownDim;  // checked above
  }
  // Attribute expand: X [N, H, W, c] is first multiplied by input 4, WE [M', c, 1, 1]; the
  // convolution reads its M' channels.
  if (ctx.info().GetInt("expand", 0) == 1) {
    const std::optional<std::vector<int64_t>> we = InputDims(ctx, 4);
    if (we && (we->size() != 4 || (*we)[2] != 1 || (*we)[3] != 1)) {
      ctx.Fail("input 4 (WE) has shape " + DimsText(*we) + "; it must be [M, C, 1, 1]");
    }
    if (we && IsKnownDim(c) && IsKnownDim((*we)[1]) && c != (*we)[1]) {
      ctx.Fail("input 'X' has shape " + DimsText(*x) + " with " + std::to_string(c) +
               " channels, but input 4 (WE) " + DimsText(*we) + " expands " +
               std::to_string((*we)[1]));
    }
    if (we && w && IsKnownDim((*we)[0]) && IsKnownDim((*w)[1]) &&
        (*we)[0] != MulDims((*w)[1], group)) {
      ctx.Fail("input 4 (WE) " + DimsText(*we) + " expands to " + std::to_string((*we)[0]) +
               " channels, but input 'W' " + DimsText(*w) + " has " + std::to_string((*w)[1]) +
               " input channels per group in " + std::to_string(group) + " groups");
    }
    c = kUnknownDim;  // checked above
  }
  const int64_t m = w ? (*w)[0] : kUnknownDim;
  if (IsKnownDim(c) && w && IsKnownDim((*w)[1]) && c != MulDims((*w)[1], group)) {
    ctx.Fail("input 'X' has shape " + DimsText(*x) + " with " + std::to_string(c) +
             " channels, but input 'W' " + DimsText(*w) + " has " + std::to_string((*w)[1]) +
             " input channels per group in " + std::to_string(group) + " groups");
  }
  if (IsKnownDim(m) && m % group != 0) {
    ctx.Fail("input 'W' has " + std::to_string(m) + " output channels, which attribute 'group' " +
             std::to_string(group) + " does not divide");
  }
  std::vector<int64_t> y = {x ? (*x)[0] : kUnknownDim};
  for (size_t d = 0; d < 2; ++d) {
    int64_t k = a.kernel_shape.empty() ? kUnknownDim : a.kernel_shape[d];
    if (w && IsKnownDim((*w)[d + 2])) {
      if ((*w)[d + 2] == 0)
        ctx.Fail("input 'W' has shape " + DimsText(*w) + "; kernel sizes must be positive");
      if (IsKnownDim(k) && k != (*w)[d + 2]) {
        ctx.Fail("attribute 'kernel_shape' does not match input 'W' " + DimsText(*w));
      }
      k = (*w)[d + 2];
    }
    y.push_back(WindowOutput(ctx, a, d, 2, x ? (*x)[d + 1] : kUnknownDim, k, false));
  }
  y.push_back(m);
  CheckZ(ctx, y);
  SetOutputDims(ctx, 0, type, y);
}

void NhwcPool(InferenceContext& ctx) {
  const WindowAttrs a = ReadWindow(ctx, true, true);
  if (a.kernel_shape.empty()) ctx.Fail("attribute 'kernel_shape' is required");
  CheckSpatialRank(ctx, a, 2);
  const std::optional<std::vector<int64_t>> x = Nhwc4(ctx);
  std::vector<int64_t> y(4, kUnknownDim);
  if (x) {
    y = {(*x)[0], WindowOutput(ctx, a, 0, 2, (*x)[1], a.kernel_shape[0], true),
         WindowOutput(ctx, a, 1, 2, (*x)[2], a.kernel_shape[1], true), (*x)[3]};
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), y);
}

void NhwcGlobalPool(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = Nhwc4(ctx);
  SetOutputDims(ctx, 0, InputType(ctx, 0),
                std::vector<int64_t>{x ? (*x)[0] : kUnknownDim, 1, 1, x ? (*x)[3] : kUnknownDim});
}

void FusedConv(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> y = ConvOutputDims(ctx);
  CheckZ(ctx, y);
  SetOutputDims(ctx, 0, InputType(ctx, 0), y);
}

constexpr RuleDef kRules[] = {
    {"NhwcConv", NhwcConv, "ai.kiln"},
    {"NhwcMaxPool", NhwcPool, "ai.kiln"},
    {"NhwcMaxPool", NhwcPool, "com.microsoft"},
    {"NhwcAveragePool", NhwcPool, "ai.kiln"},
    {"NhwcGlobalMaxPool", NhwcGlobalPool, "ai.kiln"},
    {"NhwcGlobalAveragePool", NhwcGlobalPool, "ai.kiln"},
    {"FusedConv", FusedConv, "com.microsoft"},
};

}  // namespace

std::span<const RuleDef> NhwcRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
