// Rules for the signal ops and Det:
//   DFT (the axis (DFT-17 attribute, DFT-20 constant input) becomes dft_length (a constant input,
//   else the axis' length; 2 * (n - 1) for the inverse real transform), or dft_length / 2 + 1 when
//   onesided; the last dimension 2, or 1 for the inverse real transform; the input's type),
//   STFT ([batch, frames, bins, 2] from constant frame_step and frame_length or a known window
//   length), the windows ([size] for a constant size; output_datatype, default float),
//   MelWeightMatrix ([dft_length / 2 + 1, num_mel_bins] for constants), Det (the leading
//   dimensions). Unknown pieces stay unknown.
#include <optional>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

DataType OutputDatatype(const InferenceContext& ctx) {
  const int64_t v = ctx.info().GetInt("output_datatype", 1);
  return v > 0 && v <= kMaxDataType ? static_cast<DataType>(v) : DataType::kUndefined;
}

void Dft(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  std::optional<std::vector<int64_t>> dims = InputDims(ctx, 0);
  if (!dims) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const size_t rank = dims->size();
  if (rank < 2)
    ctx.Fail("input 'input' has shape " + DimsText(*dims) + "; it needs rank 2 or more");
  std::optional<int64_t> axis;
  if (ctx.opset() < 20) {
    axis = ctx.info().GetInt("axis", 1);
  } else if (IsMissing(ctx, 2)) {
    axis = -2;
  } else {
    axis = ConstantScalarInt(ctx, 2);
  }
  const bool inverse = ctx.info().GetInt("inverse", 0) != 0;
  const bool onesided = ctx.info().GetInt("onesided", 0) != 0;
  const bool irfft = inverse && onesided;
  dims->back() = irfft ? 1 : 2;
  if (!axis) {  // the transformed axis is not known: only the rank is
    for (size_t d = 0; d + 1 < rank; ++d) (*dims)[d] = kUnknownDim;
    SetOutputDims(ctx, 0, type, dims);
    return;
  }
  const size_t ax = RequireAxis(ctx, *axis, rank, "axis", "input");
  if (ax == rank - 1)
    ctx.Fail("axis is the last dimension of input 'input', which holds the parts");
  int64_t n = (*dims)[ax];
  if (irfft && IsKnownDim(n)) n = 2 * (n - 1);
  if (!IsMissing(ctx, 1)) n = ConstantScalarInt(ctx, 1).value_or(kUnknownDim);
  if (onesided && !irfft && IsKnownDim(n)) n = n / 2 + 1;
  (*dims)[ax] = n;
  SetOutputDims(ctx, 0, type, dims);
}

void Stft(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const std::optional<std::vector<int64_t>> dims = InputDims(ctx, 0);
  int64_t batch = kUnknownDim, length = kUnknownDim;
  if (dims) {
    if (dims->size() != 3) {
      ctx.Fail("input 'signal' has shape " + DimsText(*dims) +
               "; expected [batch, length, 1 or 2]");
    }
    batch = (*dims)[0];
    length = (*dims)[1];
  }
  int64_t frame = kUnknownDim;
  if (!IsMissing(ctx, 3)) {
    frame = ConstantScalarInt(ctx, 3).value_or(kUnknownDim);
  } else if (const std::optional<std::vector<int64_t>> w = InputDims(ctx, 2); w && w->size() == 1) {
    frame = (*w)[0];
  }
  const std::optional<int64_t> step = ConstantScalarInt(ctx, 1);
  int64_t frames = kUnknownDim;
  if (step && *step > 0 && IsKnownDim(frame) && IsKnownDim(length) && frame <= length) {
    frames = (length - frame) / *step + 1;
  }
  const bool onesided = ctx.info().GetInt("onesided", 1) != 0;
  const int64_t bins = IsKnownDim(frame) ? (onesided ? frame / 2 + 1 : frame) : kUnknownDim;
  SetOutputDims(ctx, 0, type, std::vector<int64_t>{batch, frames, bins, 2});
}

void Window(InferenceContext& ctx) {
  const std::optional<int64_t> size = ConstantScalarInt(ctx, 0);
  SetOutputDims(ctx, 0, OutputDatatype(ctx),
                std::vector<int64_t>{size && *size >= 0 ? *size : kUnknownDim});
}

void MelWeightMatrix(InferenceContext& ctx) {
  const std::optional<int64_t> bins = ConstantScalarInt(ctx, 0);
  const std::optional<int64_t> length = ConstantScalarInt(ctx, 1);
  SetOutputDims(ctx, 0, OutputDatatype(ctx),
                std::vector<int64_t>{length && *length > 0 ? *length / 2 + 1 : kUnknownDim,
                                     bins && *bins > 0 ? *bins : kUnknownDim});
}

void Det(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  std::optional<std::vector<int64_t>> dims = InputDims(ctx, 0);
  if (dims) {
    const size_t rank = dims->size();
    if (rank < 2) ctx.Fail("input 'X' has shape " + DimsText(*dims) + "; it needs rank 2 or more");
    const int64_t a = (*dims)[rank - 2], b = (*dims)[rank - 1];
    if (IsKnownDim(a) && IsKnownDim(b) && a != b) {
      ctx.Fail("input 'X' has shape " + DimsText(*dims) + "; its matrices are not square");
    }
    dims->resize(rank - 2);
  }
  SetOutputDims(ctx, 0, type, dims);
}

constexpr RuleDef kRules[] = {
    {"DFT", Dft},
    {"STFT", Stft},
    {"HannWindow", Window},
    {"HammingWindow", Window},
    {"BlackmanWindow", Window},
    {"MelWeightMatrix", MelWeightMatrix},
    {"Det", Det},
};

}  // namespace

std::span<const RuleDef> SignalRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
