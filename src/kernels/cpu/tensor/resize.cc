// Resize 10–23 and Upsample 7–9, and Upsample 10+ (deprecated there, the same as Upsample 9).
//   Upsample 7 (`scales` attribute), Upsample 9+ and Resize 10 (scales input): modes nearest
//     (asymmetric coordinates; floor when growing, ceil when shrinking, as the ONNX tests of
//     Resize 10 expect) and linear (asymmetric).
//   Resize 11+: inputs roi, scales, sizes; modes nearest (every nearest_mode), n-D linear and
//     cubic (cubic_coeff_a, exclude_outside); every coordinate_transformation_mode
//     (tf_half_pixel_for_nn only at 11–12, half_pixel_symmetric from 19); extrapolation_value
//     for tf_crop_and_resize. 18+: axes, keep_aspect_ratio_policy and antialias (linear and
//     cubic, widened filters when downsampling, as the ONNX reference does).
// Output sizes from scales are floor(input * scale), as ONNX Runtime and the ONNX reference
// compute them. Nearest copies elements of the numeric types, bool and string; linear and cubic
// compute in double over the numeric types (integer results truncated toward zero, the exact
// integers among them kept, and saturated).
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

enum class Variant { kUpsample7, kScalesInput, kResize11 };
enum class Mode { kNearest, kLinear, kCubic };
enum class Coordinates {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
// kFloorUpCeilDown: before Resize 11, floor where the axis grows and ceil where it shrinks
// (what the ONNX tests of Resize 10 expect, and ONNX Runtime does).
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kFloorUpCeilDown };
enum class AspectPolicy { kStretch, kNotLarger, kNotSmaller };

// The input positions and weights each output index of one axis reads, in scratch memory.
struct AxisTaps {
  size_t taps = 1;             // per output index
  size_t most = 1;             // the most nonzero weights of any output index
  int64_t* index = nullptr;    // out * taps, clamped to the input
  double* weight = nullptr;    // out * taps
  uint8_t* outside = nullptr;  // per output index: tf_crop_and_resize extrapolates
};

// RunPlanes's sizes: [planes, in_h, in_w, inner] → [planes, out_h, out_w, inner].
struct PlaneShape {
  size_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t inner = 1;
};

// The taps of one axis in float, zero weights dropped: output o's are [end[o], end[o + 1]).
// For the columns, also the same taps as `fixed` (1, 2 or 4; 0: none) per output, padded with
// weight 0 on index 0: output j's at [j · fixed, (j + 1) · fixed) of fixed_weight and
// fixed_index, which a loop of fixed length vectorizes (the row reads become gathers).
struct PlaneTaps {
  float* weight = nullptr;
  size_t* index = nullptr;
  size_t* end = nullptr;
  size_t fixed = 0;
  float* fixed_weight = nullptr;
  int32_t* fixed_index = nullptr;
};

template <size_t K>
[[gnu::always_inline]] inline void ColumnsFixedK(const PlaneTaps& cols, const float* row,
                                                 float* out, size_t out_w) {
  const float* w = cols.fixed_weight;
  const int32_t* idx = cols.fixed_index;
  for (size_t j = 0; j < out_w; ++j) {
    float acc = 0;
    for (size_t k = 0; k < K; ++k) acc += w[j * K + k] * row[idx[j * K + k]];
    out[j] = acc;
  }
}

[[gnu::always_inline]] inline void ColumnsFixed(const PlaneTaps& cols, const float* row, float* out,
                                                size_t out_w) {
  switch (cols.fixed) {
    case 1:
      ColumnsFixedK<1>(cols, row, out, out_w);
      break;
    case 2:
      ColumnsFixedK<2>(cols, row, out, out_w);
      break;
    default:
      ColumnsFixedK<4>(cols, row, out, out_w);
      break;
  }
}

// Output rows [b, e) (row r: plane r / out_h, row r % out_h) of RunPlanes. `blend` holds
// in_w · inner floats. Cloned per target: the loops along a row are the vectorized ones.
KILN_VECTOR_CLONES void ResizeRows(const PlaneShape& s, const PlaneTaps& rows,
                                   const PlaneTaps& cols, const float* src, float* dst, size_t b,
                                   size_t e, float* blend) {
  const size_t row_in = s.in_w * s.inner;
  const size_t row_out = s.out_w * s.inner;
  const size_t c = s.inner;
  for (size_t r = b; r < e; ++r) {
    const size_t plane = r / s.out_h;
    const size_t o = r % s.out_h;
    const float* plane_src = src + plane * s.in_h * row_in;
    const float* row = nullptr;
    const size_t t0 = rows.end[o];
    const size_t t1 = rows.end[o + 1];
    if (t1 - t0 == 1 && rows.weight[t0] == 1.0f) {
      row = plane_src + rows.index[t0] * row_in;  // one source row, as it is
    } else {
      for (size_t t = t0; t < t1; ++t) {
        const float w = rows.weight[t];
        const float* sr = plane_src + rows.index[t] * row_in;
        if (t == t0) {
          for (size_t i = 0; i < row_in; ++i) blend[i] = w * sr[i];
        } else {
          for (size_t i = 0; i < row_in; ++i) blend[i] += w * sr[i];
        }
      }
      row = blend;
    }
    float* out = dst + r * row_out;
    if (t0 == t1) {  // no tap with weight (cannot happen: taps sum to 1)
      for (size_t i = 0; i < row_out; ++i) out[i] = 0.0f;
      continue;
    }
    if (c == 1 && cols.fixed != 0) {
      ColumnsFixed(cols, row, out, s.out_w);
      continue;
    }
    if (c == 1) {
      for (size_t j = 0; j < s.out_w; ++j) {
        float acc = 0;
        for (size_t t = cols.end[j]; t < cols.end[j + 1]; ++t) {
          acc += cols.weight[t] * row[cols.index[t]];
        }
        out[j] = acc;
      }
      continue;
    }
    for (size_t j = 0; j < s.out_w; ++j) {
      float* oj = out + j * c;
      for (size_t i = 0; i < c; ++i) oj[i] = 0.0f;
      for (size_t t = cols.end[j]; t < cols.end[j + 1]; ++t) {
        const float w = cols.weight[t];
        const float* sj = row + cols.index[t] * c;
        for (size_t i = 0; i < c; ++i) oj[i] += w * sj[i];
      }
    }
  }
}

double CubicWeight(double x, double a) {
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

class Resize final : public Kernel {
 public:
  Resize(const KernelInfo& info, Variant variant)
      : variant_(variant), upsample_only_(info.op_type() == "Upsample") {
    const std::string mode = info.GetString("mode", "nearest");
    if (mode == "nearest") {
      mode_ = Mode::kNearest;
    } else if (mode == "linear") {
      mode_ = Mode::kLinear;
    } else if (mode == "cubic" && variant == Variant::kResize11) {
      mode_ = Mode::kCubic;
    } else {
      info.Fail(ErrorCode::kInvalidArgument, "mode '" + mode + "' is not supported");
    }
    if (variant != Variant::kResize11) {
      coordinates_ = Coordinates::kAsymmetric;
      nearest_ = Nearest::kFloorUpCeilDown;
      if (variant == Variant::kUpsample7) {
        if (!info.HasAttribute("scales")) {
          info.Fail(ErrorCode::kInvalidGraph, "attribute 'scales' is required");
        }
        for (float s : info.GetFloats("scales")) upsample_scales_.push_back(s);
      }
      return;
    }
    const int64_t opset = info.opset();
    coordinates_ = ParseCoordinates(info, opset);
    nearest_ = ParseNearest(info);
    cubic_a_ = info.GetFloat("cubic_coeff_a", -0.75f);
    exclude_outside_ = info.GetInt("exclude_outside", 0) != 0;
    extrapolation_ = info.GetFloat("extrapolation_value", 0.0f);
    if (opset >= 18) {
      antialias_ = info.GetInt("antialias", 0) != 0;
      has_axes_ = info.HasAttribute("axes");
      axes_ = info.GetInts("axes");
      const std::string policy = info.GetString("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") {
        policy_ = AspectPolicy::kStretch;
      } else if (policy == "not_larger") {
        policy_ = AspectPolicy::kNotLarger;
      } else if (policy == "not_smaller") {
        policy_ = AspectPolicy::kNotSmaller;
      } else {
        info.Fail(ErrorCode::kInvalidArgument,
                  "keep_aspect_ratio_policy '" + policy + "' is not supported");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    SmallVector<double> scales(rank, 1.0);
    SmallVector<int64_t> out(in);
    SmallVector<double> roi_start(rank, 0.0);
    SmallVector<double> roi_end(rank, 1.0);
    Sizes(ctx, x, scales, out, roi_start, roi_end);
    Tensor& y = ctx.Output(0, x.type(), CheckedDims(info, x.type(), out.span(), "output shape"));
    if (y.element_count() == 0) return;
    if (x.element_count() == 0) {
      info.Fail(
          ErrorCode::kInvalidArgument,
          "cannot resize the empty input " + x.shape().ToString() + " to " + y.shape().ToString());
    }
    SmallVector<AxisTaps> axes(rank);
    for (size_t d = 0; d < rank; ++d) {
      axes[d] = Taps(ctx, in[d], out[d], scales[d], roi_start[d], roi_end[d]);
    }
    if (x.type() == DataType::kFloat) {
      const int64_t h = ResizedPair(in, out.span(), axes);
      if (h >= 0) {
        RunPlanes(ctx, x, y, axes, static_cast<size_t>(h));
        return;
      }
    }
    if (mode_ == Mode::kNearest) {
      Dispatch<KILN_NUMERIC_TYPES, bool, std::string>(x.type(), info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        Run<T>(ctx, x, y, axes);
      });
    } else {
      Dispatch<KILN_NUMERIC_TYPES>(x.type(), info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        Run<T>(ctx, x, y, axes);
      });
    }
  }

 private:
  static Coordinates ParseCoordinates(const KernelInfo& info, int64_t opset) {
    const std::string c = info.GetString("coordinate_transformation_mode", "half_pixel");
    if (c == "half_pixel") return Coordinates::kHalfPixel;
    if (c == "pytorch_half_pixel") return Coordinates::kPytorchHalfPixel;
    if (c == "align_corners") return Coordinates::kAlignCorners;
    if (c == "asymmetric") return Coordinates::kAsymmetric;
    if (c == "tf_crop_and_resize") return Coordinates::kTfCropAndResize;
    if (c == "tf_half_pixel_for_nn" && opset < 13) return Coordinates::kTfHalfPixelForNn;
    if (c == "half_pixel_symmetric" && opset >= 19) return Coordinates::kHalfPixelSymmetric;
    info.Fail(ErrorCode::kInvalidArgument, "coordinate_transformation_mode '" + c +
                                               "' is not supported at opset " +
                                               std::to_string(opset));
  }

  static Nearest ParseNearest(const KernelInfo& info) {
    const std::string n = info.GetString("nearest_mode", "round_prefer_floor");
    if (n == "round_prefer_floor") return Nearest::kRoundPreferFloor;
    if (n == "round_prefer_ceil") return Nearest::kRoundPreferCeil;
    if (n == "floor") return Nearest::kFloor;
    if (n == "ceil") return Nearest::kCeil;
    info.Fail(ErrorCode::kInvalidArgument, "nearest_mode '" + n + "' is not supported");
  }

  // Fills the per-axis scales and output sizes (and roi for tf_crop_and_resize) from the
  // attribute or inputs of this variant.
  void Sizes(KernelContext& ctx, const Tensor& x, SmallVector<double>& scales,
             SmallVector<int64_t>& out, SmallVector<double>& roi_start,
             SmallVector<double>& roi_end) const {
    const KernelInfo& info = ctx.info();
    const std::vector<int64_t>& in = x.shape().dims();
    const size_t rank = in.size();
    SmallVector<size_t> axes;
    if (has_axes_) {
      SmallVector<uint8_t> seen(rank, 0);
      for (int64_t a : axes_) {
        const size_t axis = NormalizeAxis(info, a, rank, "axes entry");
        if (seen[axis] != 0)
          info.Fail(ErrorCode::kInvalidArgument, "axes " + DimsText(axes_) + " repeat an axis");
        seen[axis] = 1;
        axes.push_back(axis);
      }
    } else {
      for (size_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    const Tensor* scales_input = nullptr;
    const Tensor* sizes_input = nullptr;
    if (variant_ == Variant::kScalesInput) {
      scales_input = &ctx.Input(1);
    } else if (variant_ == Variant::kResize11) {
      scales_input = ctx.OptionalInput(2);
      sizes_input = ctx.OptionalInput(3);
      if (scales_input != nullptr && scales_input->element_count() == 0) scales_input = nullptr;
      if (sizes_input != nullptr && sizes_input->element_count() == 0) sizes_input = nullptr;
      if ((scales_input == nullptr) == (sizes_input == nullptr)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "exactly one of the inputs 'scales' and 'sizes' must be given");
      }
      if (coordinates_ == Coordinates::kTfCropAndResize) ReadRoi(ctx, axes, roi_start, roi_end);
    }
    SmallVector<double, 16> given;
    if (variant_ == Variant::kUpsample7) {
      given.assign(upsample_scales_.begin(), upsample_scales_.end());
    } else if (scales_input != nullptr) {
      given = ReadFloats(info, *scales_input, "scales");
    }
    if (sizes_input == nullptr) {
      if (given.size() != axes.size()) {
        info.Fail(ErrorCode::kInvalidArgument, "scales has " + std::to_string(given.size()) +
                                                   " entries for " + std::to_string(axes.size()) +
                                                   " axes of input " + x.shape().ToString());
      }
      for (size_t i = 0; i < axes.size(); ++i) {
        const double s = given[i];
        if (!(s > 0) || !std::isfinite(s) || (upsample_only_ && s < 1)) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "scale " + std::to_string(s) + " for axis " + std::to_string(axes[i]) +
                        (upsample_only_ ? " must be >= 1" : " must be positive and finite"));
        }
        scales[axes[i]] = s;
        out[axes[i]] = OutputDim(info, static_cast<double>(in[axes[i]]) * s);
      }
      return;
    }
    const SmallVector<int64_t> sizes = ReadSmallInts(info, *sizes_input, "sizes");
    if (sizes.size() != axes.size()) {
      info.Fail(ErrorCode::kInvalidArgument, "sizes has " + std::to_string(sizes.size()) +
                                                 " entries for " + std::to_string(axes.size()) +
                                                 " axes of input " + x.shape().ToString());
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      if (sizes[i] < 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "sizes " + DimsText(sizes.span()) + " has a negative entry");
      }
      const auto d = static_cast<double>(in[axes[i]]);
      scales[axes[i]] = d > 0 ? static_cast<double>(sizes[i]) / d : 1.0;
      out[axes[i]] = sizes[i];
    }
    if (policy_ != AspectPolicy::kStretch && !axes.empty()) {
      double scale = scales[axes[0]];
      for (size_t axis : axes) {
        scale = policy_ == AspectPolicy::kNotLarger ? std::min(scale, scales[axis])
                                                    : std::max(scale, scales[axis]);
      }
      for (size_t axis : axes) {
        scales[axis] = scale;
        out[axis] = OutputDim(info, std::floor(scale * static_cast<double>(in[axis]) + 0.5));
      }
    }
  }

  static int64_t OutputDim(const KernelInfo& info, double v) {
    const double d = std::floor(v);
    if (!(d >= 0) || d > 4.0e18) {
      info.Fail(ErrorCode::kInvalidArgument,
                "an output dimension of " + std::to_string(v) + " is out of range");
    }
    return static_cast<int64_t>(d);
  }

  // The values of a 1-D float, double or float16 input (scales, roi: two entries an axis).
  static SmallVector<double, 16> ReadFloats(const KernelInfo& info, const Tensor& t,
                                            const char* what) {
    SmallVector<double, 16> v(t.element_count());
    if (t.shape().rank() != 1 && t.element_count() != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                std::string("input '") + what + "' must be 1-D, not shape " + t.shape().ToString());
    }
    if (t.type() != DataType::kFloat && t.type() != DataType::kDouble &&
        t.type() != DataType::kFloat16) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + what +
                                                 "' must be float, double or float16, not " +
                                                 DataTypeName(t.type()));
    }
    Dispatch<float, double, Float16>(t.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t i = 0; i < v.size(); ++i) {
        if constexpr (std::is_same_v<T, Float16>) {
          v[i] = DataAs<T>(t)[i].ToFloat();
        } else {
          v[i] = static_cast<double>(DataAs<T>(t)[i]);
        }
      }
    });
    return v;
  }

  void ReadRoi(KernelContext& ctx, const SmallVector<size_t>& axes, SmallVector<double>& start,
               SmallVector<double>& end) const {
    const Tensor* roi = ctx.OptionalInput(1);
    const SmallVector<double, 16> v =
        roi == nullptr ? SmallVector<double, 16>() : ReadFloats(ctx.info(), *roi, "roi");
    if (v.size() != 2 * axes.size()) {
      ctx.info().Fail(ErrorCode::kInvalidArgument, "tf_crop_and_resize needs input 'roi' with " +
                                                       std::to_string(2 * axes.size()) +
                                                       " entries, not " + std::to_string(v.size()));
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      start[axes[i]] = v[i];
      end[axes[i]] = v[i + axes.size()];
    }
  }

  // The input coordinate of output index xo. As in the ONNX reference (and its backend test
  // data, e.g. test_resize_downsample_scales_linear_align_corners), the resized length in these
  // formulas is scale * length_original, which may be fractional (ONNX issue 2462). Two modes
  // use the integer output length `out`: half_pixel_symmetric (by its definition), and
  // tf_crop_and_resize (below).
  double Original(int64_t xo, int64_t in, int64_t out, double scale, double start,
                  double end) const {
    const auto x = static_cast<double>(xo);
    const auto len_in = static_cast<double>(in);
    const double len_out = scale * len_in;
    switch (coordinates_) {
      case Coordinates::kHalfPixel:
        return (x + 0.5) / scale - 0.5;
      case Coordinates::kHalfPixelSymmetric: {
        const double adjustment = static_cast<double>(out) / len_out;
        const double offset = len_in / 2 * (1 - adjustment);
        return offset + (x + 0.5) / scale - 0.5;
      }
      case Coordinates::kPytorchHalfPixel:
        return len_out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
      case Coordinates::kAlignCorners:
        return len_out > 1 ? x * (len_in - 1) / (len_out - 1) : 0.0;
      case Coordinates::kAsymmetric:
        return x / scale;
      case Coordinates::kTfHalfPixelForNn:
        return (x + 0.5) / scale;
      case Coordinates::kTfCropAndResize: {
        // The crop's samples span the output's own length, as in TensorFlow's CropAndResize (the
        // mode's origin) and ONNX Runtime: with scales, out = floor(scale * in), not scale * in.
        const auto crop_len = static_cast<double>(out);
        return crop_len > 1
                   ? start * (len_in - 1) + x * (end - start) * (len_in - 1) / (crop_len - 1)
                   : 0.5 * (start + end) * (len_in - 1);
      }
    }
    return 0.0;
  }

  AxisTaps Taps(KernelContext& ctx, int64_t in, int64_t out, double scale, double start,
                double end) const {
    AxisTaps t;
    // Filter support: 1 (nearest), 2 (linear), 4 (cubic), wider when antialiasing a shrink.
    const double filter_scale = antialias_ ? std::min(scale, 1.0) : 1.0;
    int64_t first = 0;  // offset of the first tap from floor(x)
    if (mode_ == Mode::kLinear) {
      first = static_cast<int64_t>(std::floor(-1.0 / filter_scale)) + 1;
      t.taps = static_cast<size_t>(2 - 2 * first);
    } else if (mode_ == Mode::kCubic) {
      first = static_cast<int64_t>(std::floor(-2.0 / filter_scale)) + 1;
      t.taps = static_cast<size_t>(2 - 2 * first);
    }
    const auto n = static_cast<size_t>(out);
    t.index = ctx.Scratch<int64_t>(n * t.taps);
    t.weight = ctx.Scratch<double>(n * t.taps);
    t.outside = ctx.Scratch<uint8_t>(n);
    std::fill(t.outside, t.outside + n, uint8_t{0});
    const double limit = static_cast<double>(in) + static_cast<double>(t.taps) + 4;
    for (size_t o = 0; o < n; ++o) {
      double x = Original(static_cast<int64_t>(o), in, out, scale, start, end);
      if (coordinates_ == Coordinates::kTfCropAndResize &&
          (x < 0 || x > static_cast<double>(in - 1))) {
        t.outside[o] = 1;
      }
      // A NaN roi (or an inf - inf in it) gives no coordinate at all: refused, since the
      // conversion below has no value for it (the run-path fuzzer's finding).
      if (std::isnan(x)) {
        ctx.info().Fail(ErrorCode::kInvalidArgument,
                        "output index " + std::to_string(o) + " along an axis of " +
                            std::to_string(in) +
                            " maps to no input coordinate (NaN): check 'roi' and 'scales'");
      }
      x = std::clamp(x, -limit, limit);
      int64_t* idx = &t.index[o * t.taps];
      double* w = &t.weight[o * t.taps];
      auto floor_x = static_cast<int64_t>(std::floor(x));
      double ratio = x - static_cast<double>(floor_x);
      if (mode_ == Mode::kNearest) {
        int64_t i = floor_x;
        if (ratio != 0) {
          switch (nearest_) {
            case Nearest::kRoundPreferFloor:
              i += ratio <= 0.5 ? 0 : 1;
              break;
            case Nearest::kRoundPreferCeil:
              i += ratio < 0.5 ? 0 : 1;
              break;
            case Nearest::kFloor:
              break;
            case Nearest::kCeil:
              i += 1;
              break;
            case Nearest::kFloorUpCeilDown:
              i += scale < 1 ? 1 : 0;
              break;
          }
        }
        idx[0] = std::clamp<int64_t>(i, 0, in - 1);
        w[0] = 1.0;
        continue;
      }
      if (ratio == 0) {  // the reference takes the ratio in (0, 1]
        floor_x -= 1;
        ratio = 1;
      }
      double sum = 0;
      for (size_t k = 0; k < t.taps; ++k) {
        const int64_t offset = first + static_cast<int64_t>(k);
        const int64_t i = floor_x + offset;
        const double distance = static_cast<double>(offset) - ratio;
        double weight;
        if (mode_ == Mode::kLinear) {
          weight = antialias_ ? std::max(0.0, 1 - std::fabs(distance * filter_scale))
                              : (offset == 0 ? 1 - ratio : ratio);
        } else {
          weight = CubicWeight(distance * filter_scale, cubic_a_);
        }
        if (exclude_outside_ && (i < 0 || i >= in)) weight = 0;
        idx[k] = std::clamp<int64_t>(i, 0, in - 1);
        w[k] = weight;
        sum += weight;
      }
      if ((antialias_ || exclude_outside_) && sum != 0) {
        for (size_t k = 0; k < t.taps; ++k) w[k] /= sum;
      }
      const auto nonzero = std::count_if(w, w + t.taps, [](double v) { return v != 0; });
      t.most = std::max(t.most, static_cast<size_t>(nonzero));
    }
    return t;
  }

  // The first of two adjacent axes outside which every axis is left as it is (one tap of weight
  // 1 on its own index), when no output position extrapolates; -1 otherwise. The case of images
  // and feature maps, NCHW (the last two axes) and NHWC (the two before the last), which
  // RunPlanes takes.
  static int64_t ResizedPair(std::span<const int64_t> in, std::span<const int64_t> out,
                             const SmallVector<AxisTaps>& axes) {
    const size_t rank = in.size();
    if (rank < 2) return -1;
    const auto identity = [&](size_t d) {
      if (in[d] != out[d]) return false;
      const AxisTaps& a = axes[d];
      for (int64_t o = 0; o < out[d]; ++o) {
        for (size_t k = 0; k < a.taps; ++k) {
          const double w = a.weight[static_cast<size_t>(o) * a.taps + k];
          if (w != 0 && (w != 1 || a.index[static_cast<size_t>(o) * a.taps + k] != o)) {
            return false;
          }
        }
      }
      return true;
    };
    size_t first = rank;
    size_t last = 0;
    for (size_t d = 0; d < rank; ++d) {
      const AxisTaps& a = axes[d];
      for (int64_t o = 0; o < out[d]; ++o) {
        if (a.outside[o] != 0) return -1;
      }
      if (!identity(d)) {
        first = std::min(first, d);
        last = d;
      }
    }
    if (first == rank) return static_cast<int64_t>(rank) - 2;  // nothing resized: a copy
    if (last > first + 1) return -1;
    // One resized axis pairs with the axis before it (or after it, for axis 0).
    return static_cast<int64_t>(last == first && first > 0 ? first - 1 : first);
  }

  // Float resize of axes h and h + 1 (rows, columns) of [planes, H, W, inner] (inner: the
  // product of the axes after them, 1 for NCHW, C for NHWC), plane by plane: each output row
  // first blends its source rows into one row of W · inner floats (contiguous, vectorized), then
  // takes each output column from that row's taps (vectorized along inner). Threaded over
  // (plane, output row). Float arithmetic, as ONNX Runtime's; the generic Run accumulates in
  // double.
  static void RunPlanes(KernelContext& ctx, const Tensor& x, Tensor& y,
                        const SmallVector<AxisTaps>& axes, size_t h) {
    const std::vector<int64_t>& in = x.shape().dims();
    const std::vector<int64_t>& out = y.shape().dims();
    PlaneShape s;
    s.in_h = static_cast<size_t>(in[h]);
    s.in_w = static_cast<size_t>(in[h + 1]);
    s.out_h = static_cast<size_t>(out[h]);
    s.out_w = static_cast<size_t>(out[h + 1]);
    for (size_t d = h + 2; d < in.size(); ++d) s.inner *= static_cast<size_t>(in[d]);
    const AxisTaps& rows = axes[h];
    const AxisTaps& cols = axes[h + 1];
    // The taps in float, zero weights dropped: per output row (column) [end[o], end[o + 1]).
    const auto compact = [&](const AxisTaps& a, size_t count, PlaneTaps& t) {
      t.weight = ctx.Scratch<float>(count * a.taps);
      t.index = ctx.Scratch<size_t>(count * a.taps);
      t.end = ctx.Scratch<size_t>(count + 1);
      size_t n = 0;
      t.end[0] = 0;
      for (size_t o = 0; o < count; ++o) {
        for (size_t k = 0; k < a.taps; ++k) {
          const double w = a.weight[o * a.taps + k];
          if (w == 0) continue;
          t.weight[n] = static_cast<float>(w);
          t.index[n] = static_cast<size_t>(a.index[o * a.taps + k]);
          ++n;
        }
        t.end[o + 1] = n;
      }
    };
    PlaneTaps row_taps;
    PlaneTaps col_taps;
    compact(rows, s.out_h, row_taps);
    compact(cols, s.out_w, col_taps);
    size_t most = 0;
    for (size_t j = 0; j < s.out_w; ++j)
      most = std::max(most, col_taps.end[j + 1] - col_taps.end[j]);
    if (s.inner == 1 && most <= 4 && s.in_w <= static_cast<size_t>(INT32_MAX)) {
      col_taps.fixed = most <= 1 ? 1 : most <= 2 ? 2 : 4;
      const size_t k = col_taps.fixed;
      col_taps.fixed_weight = ctx.Scratch<float>(s.out_w * k);
      col_taps.fixed_index = ctx.Scratch<int32_t>(s.out_w * k);
      for (size_t j = 0; j < s.out_w; ++j) {
        const size_t t0 = col_taps.end[j];
        const size_t n = col_taps.end[j + 1] - t0;
        for (size_t t = 0; t < k; ++t) {
          col_taps.fixed_weight[j * k + t] = t < n ? col_taps.weight[t0 + t] : 0.0f;
          col_taps.fixed_index[j * k + t] =
              t < n ? static_cast<int32_t>(col_taps.index[t0 + t]) : 0;
        }
      }
    }
    const float* src = DataAs<float>(x);
    float* dst = DataAs<float>(y);
    const size_t planes = y.element_count() / (s.out_h * s.out_w * s.inner);
    const size_t row_in = s.in_w * s.inner;
    const size_t row_out = s.out_w * s.inner;
    ctx.threads().ParallelFor(planes * s.out_h, std::max<size_t>(1, 8192 / (row_in + row_out)),
                              [&](size_t b, size_t e) {
                                float* blend = ctx.Scratch<float>(row_in);
                                ResizeRows(s, row_taps, col_taps, src, dst, b, e, blend);
                              });
  }

  template <typename T>
  // `magnitude`: the sum of the magnitudes of the terms that made v (their rounding errors scale
  // with it, not with v: 30 · 2/3 - 63 · 1/3 is -1 a few errors of 20 off).
  static T FromDouble(double v, double magnitude = 0) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      return T::FromFloat(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<T>) {
      if (std::isnan(v)) return T(0);
      // A result that is an integer exactly (as interpolating integers at rational positions
      // often is) but came out a few rounding errors off it (125.99999999999999) is that
      // integer; the others truncate toward zero. Then saturated.
      const double nearest = std::nearbyint(v);
      const double scale = std::max({1.0, std::fabs(v), magnitude});
      if (std::fabs(v - nearest) <= 64 * std::numeric_limits<double>::epsilon() * scale) {
        v = nearest;
      }
      const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
      const double hi = static_cast<double>(std::numeric_limits<T>::max());
      if (v <= lo) return std::numeric_limits<T>::lowest();
      if (v >= hi) return std::numeric_limits<T>::max();
      return static_cast<T>(v);
    } else {
      return static_cast<T>(v);
    }
  }

  template <typename T>
  static double ToDouble(const T& v) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      return v.ToFloat();
    } else {
      return static_cast<double>(v);
    }
  }

  template <typename T>
  T Extrapolation() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::string();
    } else if constexpr (std::is_same_v<T, bool>) {
      return extrapolation_ != 0;
    } else {
      return FromDouble<T>(extrapolation_);
    }
  }

  template <typename T>
  void Run(KernelContext& ctx, const Tensor& x, Tensor& y,
           const SmallVector<AxisTaps>& axes) const {
    const std::vector<int64_t>& out = y.shape().dims();
    const size_t rank = out.size();
    const SmallVector<int64_t> strides = SignedStrides(x.shape().dims());
    const T* src = DataAs<T>(x);
    T* dst = DataAs<T>(y);
    const T extrapolation = Extrapolation<T>();
    if (rank == 0) {
      dst[0] = src[0];
      return;
    }
    const auto inner = static_cast<size_t>(out[rank - 1]);
    const size_t rows = y.element_count() / inner;
    const AxisTaps& last = axes[rank - 1];
    const int64_t last_stride = strides[rank - 1];
    // The most (offset, weight) pairs the outer axes of one row can read.
    size_t pairs = 1;
    for (size_t d = 0; d + 1 < rank; ++d) pairs *= axes[d].most;
    ctx.threads().ParallelFor(rows, std::max<size_t>(1, 4096 / inner), [&](size_t b, size_t e) {
      // The (offset, weight) pairs the outer axes of one row read, built axis by axis in two
      // buffers taken in turn.
      int64_t* offsets = ctx.Scratch<int64_t>(pairs);
      double* weights = ctx.Scratch<double>(pairs);
      int64_t* next_offsets = ctx.Scratch<int64_t>(pairs);
      double* next_weights = ctx.Scratch<double>(pairs);
      for (size_t row = b; row < e; ++row) {
        size_t count = 1;
        offsets[0] = 0;
        weights[0] = 1.0;
        bool outside = false;
        size_t rest = row;
        for (size_t d = rank - 1; d-- > 0;) {
          const size_t o = rest % static_cast<size_t>(out[d]);
          rest /= static_cast<size_t>(out[d]);
          const AxisTaps& a = axes[d];
          outside = outside || a.outside[o] != 0;
          size_t next = 0;
          for (size_t k = 0; k < a.taps; ++k) {
            const double w = a.weight[o * a.taps + k];
            if (w == 0) continue;
            for (size_t p = 0; p < count; ++p) {
              next_offsets[next] = offsets[p] + a.index[o * a.taps + k] * strides[d];
              next_weights[next] = weights[p] * w;
              ++next;
            }
          }
          std::swap(offsets, next_offsets);
          std::swap(weights, next_weights);
          count = next;
        }
        T* row_out = dst + row * inner;
        for (size_t j = 0; j < inner; ++j) {
          if (outside || last.outside[j] != 0) {
            row_out[j] = extrapolation;
            continue;
          }
          // Strings and bools always take the nearest value; numbers do in nearest mode.
          if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, bool>) {
            if (mode_ != Mode::kNearest) {
              double acc = 0;
              double magnitude = 0;
              for (size_t k = 0; k < last.taps; ++k) {
                const double w = last.weight[j * last.taps + k];
                if (w == 0) continue;
                const int64_t base = last.index[j * last.taps + k] * last_stride;
                for (size_t p = 0; p < count; ++p) {
                  const double term = weights[p] * w * ToDouble(src[offsets[p] + base]);
                  acc += term;
                  magnitude += std::fabs(term);
                }
              }
              row_out[j] = FromDouble<T>(acc, magnitude);
              continue;
            }
          }
          row_out[j] = src[offsets[0] + last.index[j] * last_stride];
        }
      }
    });
  }

  Variant variant_;
  bool upsample_only_;  // Upsample: scales >= 1
  Mode mode_ = Mode::kNearest;
  Coordinates coordinates_ = Coordinates::kHalfPixel;
  Nearest nearest_ = Nearest::kRoundPreferFloor;
  AspectPolicy policy_ = AspectPolicy::kStretch;
  double cubic_a_ = -0.75;
  bool exclude_outside_ = false;
  bool antialias_ = false;
  double extrapolation_ = 0.0;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
  std::vector<double> upsample_scales_;
};

}  // namespace

std::unique_ptr<Kernel> MakeUpsample(const KernelInfo& info) {
  return std::make_unique<Resize>(info,
                                  info.opset() < 9 ? Variant::kUpsample7 : Variant::kScalesInput);
}
std::unique_ptr<Kernel> MakeResize(const KernelInfo& info) {
  return std::make_unique<Resize>(info,
                                  info.opset() < 11 ? Variant::kScalesInput : Variant::kResize11);
}

}  // namespace kiln::cpu
