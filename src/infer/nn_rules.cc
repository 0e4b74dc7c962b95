// Rules for the convolution, pooling and batch normalisation ops, computing output sizes exactly
// as kernels/cpu/nn/window.cc and conv_transpose.cc do:
//   Conv (kernel from W, else kernel_shape; group), ConvTranspose (output_shape, output_padding,
//   auto_pad), MaxPool (and its int64 Indices), AveragePool, LpPool (dilations and ceil_mode only
//   from the opsets that define them), GlobalAveragePool, GlobalMaxPool, GlobalLpPool,
//   BatchNormalization (Y; the training statistics [C] where the opset defines them),
//   RNN, GRU, LSTM (Y [seq, directions, batch, hidden], Y_h and Y_c [directions, batch, hidden];
//   batch first with layout = 1 from opset 14; hidden_size from the attribute, else from R),
//   com.microsoft DynamicQuantizeLSTM (the same, seq first; R is [directions, hidden, 4·hidden]).
#include <algorithm>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"
#include "infer/window_rules.h"

namespace kiln::infer {
namespace {

int64_t At(const std::vector<int64_t>& v, size_t i, int64_t fallback) {
  return v.empty() ? fallback : v[i];
}

}  // namespace

// Reads and checks the window attributes as ReadWindowAttrs does; `dilations` and `ceil_mode` say
// whether the op at this opset has them.
WindowAttrs ReadWindow(const InferenceContext& ctx, bool dilations, bool ceil_mode) {
  const KernelInfo& info = ctx.info();
  WindowAttrs a;
  a.kernel_shape = info.GetInts("kernel_shape");
  a.strides = info.GetInts("strides");
  if (dilations) a.dilations = info.GetInts("dilations");
  a.pads = info.GetInts("pads");
  if (ceil_mode) a.ceil_mode = info.GetInt("ceil_mode", 0) != 0;
  const std::string pad = info.GetString("auto_pad", "NOTSET");
  if (pad == "SAME_UPPER") {
    a.auto_pad = AutoPad::kSameUpper;
  } else if (pad == "SAME_LOWER") {
    a.auto_pad = AutoPad::kSameLower;
  } else if (pad == "VALID") {
    a.auto_pad = AutoPad::kValid;
  } else if (pad != "NOTSET" && !pad.empty()) {
    ctx.Fail("attribute 'auto_pad' is '" + pad +
             "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  const auto check = [&](const char* name, const std::vector<int64_t>& v, int64_t minimum) {
    for (int64_t x : v) {
      if (x < minimum) {
        ctx.Fail(std::string("attribute '") + name + "' is " + DimsText(v) + ": value " +
                 std::to_string(x) + " must be " + (minimum > 0 ? "positive" : "non-negative"));
      }
    }
  };
  check("kernel_shape", a.kernel_shape, 1);
  check("strides", a.strides, 1);
  check("dilations", a.dilations, 1);
  check("pads", a.pads, 0);
  if (a.auto_pad != AutoPad::kNotSet &&
      std::any_of(a.pads.begin(), a.pads.end(), [](int64_t p) { return p != 0; })) {
    ctx.Fail("attribute 'pads' " + DimsText(a.pads) + " cannot be combined with auto_pad '" + pad +
             "'");
  }
  return a;
}

// Fails unless each non-empty attribute has `per_axis` values per spatial axis.
void CheckSpatialRank(const InferenceContext& ctx, const WindowAttrs& a, size_t rank) {
  const auto check = [&](const char* name, size_t size, size_t per_axis) {
    if (size != 0 && size != per_axis * rank) {
      ctx.Fail(std::string("attribute '") + name + "' has " + std::to_string(size) +
               " values but input 'X' has " + std::to_string(rank) + " spatial axes");
    }
  };
  check("kernel_shape", a.kernel_shape.size(), 1);
  check("strides", a.strides.size(), 1);
  check("dilations", a.dilations.size(), 1);
  check("pads", a.pads.size(), 2);
}

// The number of window positions along spatial axis d of `rank` for input size `in` and kernel
// size `k` (either may be unknown), as ResolveWindow computes it.
int64_t WindowOutput(const InferenceContext& ctx, const WindowAttrs& a, size_t d, size_t rank,
                     int64_t in, int64_t k, bool honour_ceil_mode) {
  const int64_t s = At(a.strides, d, 1);
  if (IsSymbolicDim(in)) return KeepsSize(a, d, rank, k) ? in : kUnknownDim;
  if (a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower) {
    return IsKnownDim(in) ? in / s + (in % s != 0 ? 1 : 0) : kUnknownDim;
  }
  if (!IsKnownDim(in) || !IsKnownDim(k)) return kUnknownDim;
  const int64_t extent = AddDims(MulDims(k - 1, At(a.dilations, d, 1)), 1);
  int64_t begin = 0;
  int64_t end = 0;
  if (a.auto_pad == AutoPad::kNotSet && !a.pads.empty()) {
    begin = a.pads[d];
    end = a.pads[d + rank];
  }
  const int64_t padded = AddDims(AddDims(in, begin), end);
  if (!IsKnownDim(extent) || !IsKnownDim(padded)) return kUnknownDim;
  if (padded < extent) {
    ctx.Fail("the kernel extent " + std::to_string(extent) + " along spatial axis " +
             std::to_string(d) + " is larger than the padded input (" + std::to_string(padded) +
             ") of input 'X'");
  }
  const bool ceil = honour_ceil_mode && a.ceil_mode;
  const int64_t span = AddDims(padded - extent, ceil ? s - 1 : 0);
  if (!IsKnownDim(span)) return kUnknownDim;
  int64_t out = span / s + 1;
  if (ceil && (out - 1) * s >= in + begin) --out;
  return out;
}

bool KeepsSize(const WindowAttrs& a, size_t d, size_t rank, int64_t k) {
  if (At(a.strides, d, 1) != 1) return false;
  if (a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower) return true;
  if (!IsKnownDim(k)) return false;
  const int64_t pads =
      a.auto_pad == AutoPad::kNotSet && !a.pads.empty() ? AddDims(a.pads[d], a.pads[d + rank]) : 0;
  return IsKnownDim(pads) && pads == MulDims(k - 1, At(a.dilations, d, 1));
}

std::optional<std::vector<int64_t>> ConvOutputDims(const InferenceContext& ctx) {
  const WindowAttrs a = ReadWindow(ctx, true, false);
  const int64_t group = ctx.info().GetInt("group", 1);
  if (group < 1)
    ctx.Fail("attribute 'group' is " + std::to_string(group) + "; it must be positive");
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  const std::optional<std::vector<int64_t>> w = InputDims(ctx, 1);
  if (x && x->size() < 3) {
    ctx.Fail("input 'X' has shape " + DimsText(*x) +
             "; it needs rank 3 or more (N, C, spatial...)");
  }
  if (x && w && w->size() != x->size()) {
    ctx.Fail("input 'W' has shape " + DimsText(*w) + " but input 'X' has shape " + DimsText(*x) +
             "; W needs the same rank (M, C/group, kernel...)");
  }
  size_t rank = 0;  // spatial
  if (x) {
    rank = x->size() - 2;
  } else if (w && w->size() >= 3) {
    rank = w->size() - 2;
  } else if (!a.kernel_shape.empty()) {
    rank = a.kernel_shape.size();
  } else {
    return std::nullopt;
  }
  CheckSpatialRank(ctx, a, rank);
  const int64_t c = x ? (*x)[1] : kUnknownDim;
  const int64_t m = w && w->size() == rank + 2 ? (*w)[0] : kUnknownDim;
  if (IsKnownDim(c) && c % group != 0) {
    ctx.Fail("input 'X' has " + std::to_string(c) + " channels, which attribute 'group' " +
             std::to_string(group) + " does not divide");
  }
  if (IsKnownDim(c) && w && w->size() == rank + 2 && IsKnownDim((*w)[1]) && (*w)[1] != c / group) {
    ctx.Fail("input 'W' has shape " + DimsText(*w) + " with " + std::to_string((*w)[1]) +
             " input channels per group, but input 'X' " + DimsText(*x) + " has " +
             std::to_string(c) + " channels in " + std::to_string(group) + " groups");
  }
  if (IsKnownDim(m) && m % group != 0) {
    ctx.Fail("input 'W' has " + std::to_string(m) + " output channels, which attribute 'group' " +
             std::to_string(group) + " does not divide");
  }
  std::vector<int64_t> out = {x ? (*x)[0] : kUnknownDim, m};
  for (size_t d = 0; d < rank; ++d) {
    int64_t k = a.kernel_shape.empty() ? kUnknownDim : a.kernel_shape[d];
    if (w && w->size() == rank + 2 && IsKnownDim((*w)[d + 2])) {
      const int64_t wk = (*w)[d + 2];
      if (wk == 0)
        ctx.Fail("input 'W' has shape " + DimsText(*w) + "; kernel sizes must be positive");
      if (IsKnownDim(k) && k != wk) {
        ctx.Fail("attribute 'kernel_shape' does not match input 'W' " + DimsText(*w));
      }
      k = wk;
    }
    out.push_back(WindowOutput(ctx, a, d, rank, x ? (*x)[d + 2] : kUnknownDim, k, false));
  }
  return out;
}

void ConvRule(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, InputType(ctx, 0), ConvOutputDims(ctx));
}

namespace {

void ConvTranspose(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const WindowAttrs a = ReadWindow(ctx, true, false);
  const int64_t group = ctx.info().GetInt("group", 1);
  if (group < 1)
    ctx.Fail("attribute 'group' is " + std::to_string(group) + "; it must be positive");
  const std::vector<int64_t> output_padding = ctx.info().GetInts("output_padding");
  const std::vector<int64_t> output_shape = ctx.info().GetInts("output_shape");
  for (int64_t v : output_padding) {
    if (v < 0)
      ctx.Fail("attribute 'output_padding' has " + std::to_string(v) + "; it must be >= 0");
  }
  for (int64_t v : output_shape) {
    if (v < 1)
      ctx.Fail("attribute 'output_shape' has " + std::to_string(v) + "; sizes must be positive");
  }
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> w = InputDims(ctx, 1);
  if (x && x->size() < 3) {
    ctx.Fail("input 'X' has shape " + DimsText(*x) +
             "; it needs rank 3 or more (N, C, spatial...)");
  }
  if (x && w && w->size() != x->size()) {
    ctx.Fail("input 'W' has shape " + DimsText(*w) + " but input 'X' has shape " + DimsText(*x) +
             "; W needs the same rank (C, M/group, kernel...)");
  }
  if (!x) {
    SetOutputDims(ctx, 0, type,
                  w && w->size() >= 3 ? std::optional(std::vector<int64_t>(w->size(), kUnknownDim))
                                      : std::nullopt);
    return;
  }
  const size_t rank = x->size() - 2;
  CheckSpatialRank(ctx, a, rank);
  if (!output_padding.empty() && output_padding.size() != rank) {
    ctx.Fail("attribute 'output_padding' has " + std::to_string(output_padding.size()) +
             " values but input 'X' has " + std::to_string(rank) + " spatial axes");
  }
  if (!output_shape.empty() && output_shape.size() != rank && output_shape.size() != rank + 2) {
    ctx.Fail("attribute 'output_shape' has " + std::to_string(output_shape.size()) +
             " values but input 'X' has " + std::to_string(rank) + " spatial axes");
  }
  const int64_t c = (*x)[1];
  if (IsKnownDim(c) && c % group != 0) {
    ctx.Fail("input 'X' has " + std::to_string(c) + " channels, which attribute 'group' " +
             std::to_string(group) + " does not divide");
  }
  if (w && IsKnownDim((*w)[0]) && IsKnownDim(c) && (*w)[0] != c) {
    ctx.Fail("input 'W' has shape " + DimsText(*w) + " with " + std::to_string((*w)[0]) +
             " input channels, but input 'X' " + DimsText(*x) + " has " + std::to_string(c));
  }
  std::vector<int64_t> out = {(*x)[0], w ? MulDims((*w)[1], group) : kUnknownDim};
  const bool same = a.auto_pad == AutoPad::kSameUpper || a.auto_pad == AutoPad::kSameLower;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t s = At(a.strides, d, 1);
    const int64_t dilation = At(a.dilations, d, 1);
    const int64_t adj = At(output_padding, d, 0);
    if (adj >= std::max(s, dilation)) {
      ctx.Fail("attribute 'output_padding' has " + std::to_string(adj) + " at axis " +
               std::to_string(d) + "; it must be less than the stride or the dilation");
    }
    const int64_t in = (*x)[d + 2];
    int64_t k = a.kernel_shape.empty() ? kUnknownDim : a.kernel_shape[d];
    if (w && IsKnownDim((*w)[d + 2])) k = (*w)[d + 2];
    if (!output_shape.empty()) {
      out.push_back(output_shape[output_shape.size() - rank + d]);
      continue;
    }
    if (same) {
      out.push_back(MulDims(in, s));
      continue;
    }
    if (!IsKnownDim(in) || !IsKnownDim(k) || k == 0) {
      out.push_back(kUnknownDim);
      continue;
    }
    const int64_t full = AddDims(MulDims(s, in - 1 < 0 ? kUnknownDim : in - 1),
                                 AddDims(MulDims(k - 1, dilation), adj + 1));
    int64_t padding = 0;
    if (a.auto_pad == AutoPad::kNotSet && !a.pads.empty()) {
      padding = AddDims(a.pads[d], a.pads[d + rank]);
    }
    if (!IsKnownDim(full) || !IsKnownDim(padding)) {
      out.push_back(kUnknownDim);
      continue;
    }
    if (full <= padding) {
      ctx.Fail("attribute 'pads' leaves no output along spatial axis " + std::to_string(d) +
               " (full size " + std::to_string(full) + ", padding " + std::to_string(padding) +
               ") for input 'X' " + DimsText(*x));
    }
    out.push_back(full - padding);
  }
  SetOutputDims(ctx, 0, type, out);
}

enum class PoolKind { kMax, kAverage, kLp };

template <PoolKind kKind>
void Pool(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const int64_t opset = ctx.opset();
  bool dilations = false;
  bool ceil_mode = false;
  switch (kKind) {
    case PoolKind::kMax:
      dilations = ceil_mode = opset >= 10;
      break;
    case PoolKind::kAverage:
      dilations = opset >= 19;
      ceil_mode = opset >= 10;
      break;
    case PoolKind::kLp:
      dilations = ceil_mode = opset >= 18;
      break;
  }
  const WindowAttrs a = ReadWindow(ctx, dilations, ceil_mode);
  if (a.kernel_shape.empty()) ctx.Fail("attribute 'kernel_shape' is required");
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  std::optional<std::vector<int64_t>> out;
  if (x) {
    if (x->size() < 3) {
      ctx.Fail("input 'X' has shape " + DimsText(*x) +
               "; it needs rank 3 or more (N, C, spatial...)");
    }
    const size_t rank = x->size() - 2;
    CheckSpatialRank(ctx, a, rank);
    out = std::vector<int64_t>{(*x)[0], (*x)[1]};
    for (size_t d = 0; d < rank; ++d) {
      out->push_back(WindowOutput(ctx, a, d, rank, (*x)[d + 2], a.kernel_shape[d], true));
    }
  } else {
    out = std::vector<int64_t>(a.kernel_shape.size() + 2, kUnknownDim);
  }
  SetOutputDims(ctx, 0, type, out);
  if (kKind == PoolKind::kMax && ctx.WantsOutput(1)) SetOutputDims(ctx, 1, DataType::kInt64, out);
}

void GlobalPool(InferenceContext& ctx) {
  std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  if (x) {
    if (x->size() < 2) {
      ctx.Fail("input 'X' has shape " + DimsText(*x) + "; it needs rank 2 or more (N, C, ...)");
    }
    std::fill(x->begin() + 2, x->end(), 1);
  }
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
}

void BatchNormalization(InferenceContext& ctx) {
  const std::optional<std::vector<int64_t>> x = InputNamedDims(ctx, 0);
  SetOutputDims(ctx, 0, InputType(ctx, 0), x);
  const int64_t c = x && x->size() >= 2 ? (*x)[1] : kUnknownDim;
  const std::vector<int64_t> per_channel = {c};
  if (ctx.opset() >= 14) {
    // running_mean and running_var, with training_mode = 1: the type of input 'mean'.
    for (size_t i : {size_t{1}, size_t{2}}) {
      if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, InputType(ctx, 3), per_channel);
    }
    return;
  }
  // mean, var, saved_mean, saved_var: one per channel when spatial (always from opset 9).
  const bool spatial = ctx.opset() >= 9 || ctx.info().GetInt("spatial", 1) != 0;
  for (size_t i = 1; i < 5; ++i) {
    if (ctx.WantsOutput(i)) {
      SetOutputDims(ctx, i, InputType(ctx, 0), spatial ? std::optional(per_channel) : std::nullopt);
    }
  }
}

void Recurrent(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::string direction = ctx.info().GetString("direction", "forward");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const bool batch_major = ctx.opset() >= 14 && ctx.info().GetInt("layout", 0) == 1;
  const std::optional<std::vector<int64_t>> x = InputDims(ctx, 0);
  const std::optional<std::vector<int64_t>> r = InputDims(ctx, 2);
  if (x && x->size() != 3) ctx.Fail("input 'X' has shape " + DimsText(*x) + "; it must be 3-D");
  int64_t hidden = ctx.info().GetInt("hidden_size", kUnknownDim);
  if (!ctx.info().HasAttribute("hidden_size")) {
    // R is [dirs, gates·hidden, hidden]; DynamicQuantizeLSTM's [dirs, hidden, 4·hidden].
    const size_t axis = ctx.info().op_type() == "DynamicQuantizeLSTM" ? 1 : 2;
    hidden = r && r->size() == 3 ? (*r)[axis] : kUnknownDim;
  }
  const int64_t seq = x ? (*x)[batch_major ? 1 : 0] : kUnknownDim;
  const int64_t batch = x ? (*x)[batch_major ? 0 : 1] : kUnknownDim;
  if (ctx.WantsOutput(0)) {
    SetOutputDims(ctx, 0, type,
                  batch_major ? std::vector<int64_t>{batch, seq, dirs, hidden}
                              : std::vector<int64_t>{seq, dirs, batch, hidden});
  }
  const std::vector<int64_t> state = batch_major ? std::vector<int64_t>{batch, dirs, hidden}
                                                 : std::vector<int64_t>{dirs, batch, hidden};
  for (size_t i = 1; i < ctx.output_count() && i < 3; ++i) {
    if (ctx.WantsOutput(i)) SetOutputDims(ctx, i, type, state);
  }
}

constexpr RuleDef kRules[] = {
    {"Conv", ConvRule},
    {"ConvTranspose", ConvTranspose},
    {"MaxPool", Pool<PoolKind::kMax>},
    {"AveragePool", Pool<PoolKind::kAverage>},
    {"LpPool", Pool<PoolKind::kLp>},
    {"GlobalAveragePool", GlobalPool},
    {"GlobalMaxPool", GlobalPool},
    {"GlobalLpPool", GlobalPool},
    {"BatchNormalization", BatchNormalization},
    {"RNN", Recurrent},
    {"GRU", Recurrent},
    {"LSTM", Recurrent},
    {"DynamicQuantizeLSTM", Recurrent, "com.microsoft"},
};

}  // namespace

std::span<const RuleDef> NnRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
