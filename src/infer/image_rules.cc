// Rules for the image family (kernels/cpu/image/ and image_decoder/), deriving sizes as those
// kernels do:
//   GridSample (and com.microsoft's) [N, C, grid's middle dims], AffineGrid [N, (D,) H, W, 2 or 3]
//   from a known size, NonMaxSuppression int64 [-1, 3] (the row count depends on the data),
//   RoiAlign [num_rois, C, output_height, output_width], Col2Im [N, C, image_shape], CenterCropPad
//   (the target sizes along axes), DeformConv [N, M, out H, out W], MaxUnpool (output_shape, else
//   (in - 1) * stride + kernel - pads), ImageDecoder uint8 [-1, -1, 1 or 3].
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "infer/rule_util.h"
#include "infer/rules.h"

namespace kiln::infer {
namespace {

int64_t DimAt(const std::optional<std::vector<int64_t>>& d, size_t i) {
  return d && i < d->size() ? (*d)[i] : kUnknownDim;
}

void GridSample(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const auto x = InputDims(ctx, 0);
  const auto grid = InputDims(ctx, 1);
  if (x && grid && x->size() != grid->size()) {
    ctx.Fail("input 'grid' has shape " + DimsText(*grid) + "; its rank must be that of 'X' " +
             DimsText(*x));
  }
  if (!x && !grid) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const size_t rank = x ? x->size() : grid->size();
  if (rank < 3) ctx.Fail("input 'X' must have rank 3 or more, got " + std::to_string(rank));
  std::vector<int64_t> out{DimAt(x, 0), DimAt(x, 1)};
  if (!IsKnownDim(out[0])) out[0] = DimAt(grid, 0);
  for (size_t i = 1; i + 1 < rank; ++i) out.push_back(DimAt(grid, i));
  SetOutputDims(ctx, 0, type, out);
}

void AffineGrid(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const auto size = ConstantInts(ctx, 1);
  const auto theta = InputDims(ctx, 0);
  if (size) {
    if (size->size() != 4 && size->size() != 5) {
      ctx.Fail("input 'size' holds " + std::to_string(size->size()) +
               " values; it must hold 4 (N, C, H, W) or 5 (N, C, D, H, W)");
    }
    std::vector<int64_t> out{(*size)[0]};
    for (size_t i = 2; i < size->size(); ++i) out.push_back((*size)[i]);
    out.push_back(static_cast<int64_t>(size->size() - 2));
    SetOutputDims(ctx, 0, type, out);
    return;
  }
  if (theta && theta->size() == 3 && IsKnownDim((*theta)[1])) {
    std::vector<int64_t> out((*theta)[1] == 2 ? 4 : 5, kUnknownDim);
    out[0] = (*theta)[0];
    out.back() = (*theta)[1];
    SetOutputDims(ctx, 0, type, out);
    return;
  }
  SetOutputDims(ctx, 0, type, std::nullopt);
}

void NonMaxSuppression(InferenceContext& ctx) {
  SetOutputDims(ctx, 0, DataType::kInt64, std::vector<int64_t>{kUnknownDim, 3});
}

void RoiAlign(InferenceContext& ctx) {
  const auto x = InputDims(ctx, 0);
  const auto rois = InputDims(ctx, 1);
  if (x && x->size() != 4) ctx.Fail("input 'X' has shape " + DimsText(*x) + "; expected rank 4");
  if (rois && (rois->size() != 2 || (IsKnownDim((*rois)[1]) && (*rois)[1] != 4))) {
    ctx.Fail("input 'rois' has shape " + DimsText(*rois) + "; expected [num_rois, 4]");
  }
  const KernelInfo& info = ctx.info();
  SetOutputDims(ctx, 0, InputType(ctx, 0),
                std::vector<int64_t>{DimAt(rois, 0), DimAt(x, 1), info.GetInt("output_height", 1),
                                     info.GetInt("output_width", 1)});
}

void Col2Im(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const auto in = InputDims(ctx, 0);
  const auto image = ConstantInts(ctx, 1);
  const auto block = ConstantInts(ctx, 2);
  if (in && in->size() != 3)
    ctx.Fail("input 'input' has shape " + DimsText(*in) + "; expected rank 3");
  if (!image) {
    const auto image_dims = InputDims(ctx, 1);
    if (image_dims && image_dims->size() == 1 && IsKnownDim((*image_dims)[0])) {
      std::vector<int64_t> out(static_cast<size_t>((*image_dims)[0]) + 2, kUnknownDim);
      out[0] = DimAt(in, 0);
      SetOutputDims(ctx, 0, type, out);
    } else {
      SetOutputDims(ctx, 0, type, std::nullopt);
    }
    return;
  }
  int64_t channels = kUnknownDim;
  if (block && IsKnownDim(DimAt(in, 1))) {
    const int64_t per = ProductOfDims(*block, 0, block->size());
    if (per > 0 && (*in)[1] % per == 0) channels = (*in)[1] / per;
  }
  std::vector<int64_t> out{DimAt(in, 0), channels};
  out.insert(out.end(), image->begin(), image->end());
  SetOutputDims(ctx, 0, type, out);
}

void CenterCropPad(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  auto x = InputDims(ctx, 0);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const auto shape = ConstantInts(ctx, 1);
  std::vector<int64_t> axes = ctx.info().GetInts("axes");
  if (axes.empty()) {
    for (size_t i = 0; i < x->size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (shape && shape->size() != axes.size()) {
    ctx.Fail("input 'shape' holds " + std::to_string(shape->size()) + " values; expected " +
             std::to_string(axes.size()));
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = RequireAxis(ctx, axes[i], x->size(), "attribute 'axes' value", "input_data");
    (*x)[a] = shape ? (*shape)[i] : kUnknownDim;
  }
  SetOutputDims(ctx, 0, type, x);
}

void DeformConv(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  const auto x = InputDims(ctx, 0);
  const auto w = InputDims(ctx, 1);
  if (x && x->size() != 4) ctx.Fail("input 'X' has shape " + DimsText(*x) + "; expected rank 4");
  if (w && w->size() != 4) ctx.Fail("input 'W' has shape " + DimsText(*w) + "; expected rank 4");
  const KernelInfo& info = ctx.info();
  const std::vector<int64_t> kernel = info.GetInts("kernel_shape");
  const std::vector<int64_t> dil = info.GetInts("dilations", {1, 1});
  const std::vector<int64_t> pads = info.GetInts("pads", {0, 0, 0, 0});
  const std::vector<int64_t> strides = info.GetInts("strides", {1, 1});
  std::vector<int64_t> out{DimAt(x, 0), DimAt(w, 0), kUnknownDim, kUnknownDim};
  if (dil.size() == 2 && pads.size() == 4 && strides.size() == 2) {
    for (size_t a = 0; a < 2; ++a) {
      const int64_t k = kernel.size() == 2 ? kernel[a] : DimAt(w, 2 + a);
      const int64_t in = DimAt(x, 2 + a);
      if (!IsKnownDim(k) || !IsKnownDim(in) || strides[a] < 1 || dil[a] < 1 || k < 1) continue;
      const int64_t extent = dil[a] * (k - 1) + 1;
      const int64_t padded = in + pads[a] + pads[a + 2];
      if (padded < extent) {
        ctx.Fail("input 'X' has shape " + DimsText(*x) +
                 "; the padded image is smaller than "
                 "the kernel extent " +
                 std::to_string(extent));
      }
      out[2 + a] = (padded - extent) / strides[a] + 1;
    }
  }
  SetOutputDims(ctx, 0, type, out);
}

void MaxUnpool(InferenceContext& ctx) {
  const DataType type = InputType(ctx, 0);
  if (!IsMissing(ctx, 2)) {
    const auto shape = ConstantInts(ctx, 2);
    SetOutputDims(ctx, 0, type, shape);
    if (!shape) {
      const auto x = InputDims(ctx, 0);
      if (x) SetOutputDims(ctx, 0, type, std::vector<int64_t>(x->size(), kUnknownDim));
    }
    return;
  }
  const auto x = InputDims(ctx, 0);
  if (!x) {
    SetOutputDims(ctx, 0, type, std::nullopt);
    return;
  }
  const KernelInfo& info = ctx.info();
  const std::vector<int64_t> kernel = info.GetInts("kernel_shape");
  const size_t r = kernel.size();
  if (x->size() != r + 2) {
    ctx.Fail("input 'X' has shape " + DimsText(*x) + "; 'kernel_shape' has " + std::to_string(r) +
             " axes");
  }
  std::vector<int64_t> pads = info.GetInts("pads", std::vector<int64_t>(2 * r, 0));
  std::vector<int64_t> strides = info.GetInts("strides", std::vector<int64_t>(r, 1));
  std::vector<int64_t> out{(*x)[0], (*x)[1]};
  for (size_t a = 0; a < r; ++a) {
    const int64_t in = (*x)[a + 2];
    if (!IsKnownDim(in) || pads.size() != 2 * r || strides.size() != r) {
      out.push_back(kUnknownDim);
      continue;
    }
    // The kernel refuses a negative size; leave it unknown here.
    const int64_t m = MulDims(in - 1, strides[a]);
    int64_t v = kUnknownDim;
    if (in == 0) {
      v = 0;
    } else if (int64_t sum = 0; IsKnownDim(m) && !__builtin_add_overflow(
                                                     m, kernel[a] - pads[a] - pads[a + r], &sum)) {
      v = std::max<int64_t>(sum, kUnknownDim);
    }
    out.push_back(v);
  }
  SetOutputDims(ctx, 0, type, out);
}

// The height and width depend on the encoded data; the channels on pixel_format (the kernel
// checks its value).
void ImageDecoder(InferenceContext& ctx) {
  const int64_t channels = ctx.info().GetString("pixel_format", "RGB") == "Grayscale" ? 1 : 3;
  SetOutputDims(ctx, 0, DataType::kUint8, std::vector<int64_t>{kUnknownDim, kUnknownDim, channels});
}

constexpr RuleDef kRules[] = {
    {"GridSample", GridSample},       {"GridSample", GridSample, "com.microsoft"},
    {"AffineGrid", AffineGrid},       {"NonMaxSuppression", NonMaxSuppression},
    {"RoiAlign", RoiAlign},           {"Col2Im", Col2Im},
    {"CenterCropPad", CenterCropPad}, {"DeformConv", DeformConv},
    {"MaxUnpool", MaxUnpool},         {"ImageDecoder", ImageDecoder},
};

}  // namespace

std::span<const RuleDef> ImageRules() noexcept {
  return kRules;
}

}  // namespace kiln::infer
