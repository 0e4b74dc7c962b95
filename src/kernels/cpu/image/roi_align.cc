// RoiAlign (versions 10, 16 (coordinate_transformation_mode), 22 (bfloat16)): for each region
// of interest rois[r] = (x1, y1, x2, y2) on image batch_indices[r], an output_height x
// output_width map per channel; each bin averages (mode avg) or takes the largest weighted tap
// of (mode max) a sampling_ratio x sampling_ratio grid of bilinear samples (adaptive
// ceil(roi size / bins) when sampling_ratio is 0).
//   coordinate_transformation_mode half_pixel (16's default) shifts the scaled roi by -0.5;
//   output_half_pixel (what version 10 does) does not, and makes rois at least 1 x 1.
// Samples more than one pixel outside the image count as 0; nearer ones are clamped to it.
// Types: float, double, float16 and bfloat16 (computed in double).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/image/image_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// One bilinear sample: four pixel offsets in a plane and their weights.
struct Sample {
  std::array<size_t, 4> at;
  std::array<double, 4> w;
};

Sample Bilinear(double y, double x, int64_t height, int64_t width) {
  Sample s{};
  if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 &&
        x <= static_cast<double>(width))) {
    return s;  // weights 0
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto y_low = static_cast<int64_t>(y);
  auto x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1;
  int64_t x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  }
  const double ly = y - static_cast<double>(y_low);
  const double lx = x - static_cast<double>(x_low);
  const double hy = 1 - ly;
  const double hx = 1 - lx;
  const auto w = static_cast<size_t>(width);
  s.at = {static_cast<size_t>(y_low) * w + static_cast<size_t>(x_low),
          static_cast<size_t>(y_low) * w + static_cast<size_t>(x_high),
          static_cast<size_t>(y_high) * w + static_cast<size_t>(x_low),
          static_cast<size_t>(y_high) * w + static_cast<size_t>(x_high)};
  s.w = {hy * hx, hy * lx, ly * hx, ly * lx};
  return s;
}

// Samples computed at a time (then applied to every channel).
constexpr size_t kBlock = 1024;

class RoiAlign final : public Kernel {
 public:
  explicit RoiAlign(const KernelInfo& info)
      : output_height_(info.GetInt("output_height", 1)),
        output_width_(info.GetInt("output_width", 1)),
        sampling_ratio_(info.GetInt("sampling_ratio", 0)),
        spatial_scale_(static_cast<double>(info.GetFloat("spatial_scale", 1.0f))) {
    const std::string mode = info.GetString("mode", "avg");
    if (mode != "avg" && mode != "max") {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'mode' is '" + mode + "'; it must be avg or max");
    }
    max_ = mode == "max";
    if (info.opset() >= 16) {
      const std::string ctm = info.GetString("coordinate_transformation_mode", "half_pixel");
      if (ctm != "half_pixel" && ctm != "output_half_pixel") {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'coordinate_transformation_mode' is '" +
                                                ctm +
                                                "'; it must be half_pixel or output_half_pixel");
      }
      half_pixel_ = ctm == "half_pixel";
    }
    if (output_height_ < 1 || output_width_ < 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'output_height' and 'output_width' are " +
                                              std::to_string(output_height_) + " and " +
                                              std::to_string(output_width_) +
                                              "; both must be at least 1");
    }
    if (sampling_ratio_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'sampling_ratio' is " +
                                              std::to_string(sampling_ratio_) +
                                              "; it must be 0 (adaptive) or more");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& rois = ctx.Input(1);
    const Tensor& indices = ctx.Input(2);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    nn::RequireSameType(info, "rois", rois, x.type());
    RequireIntType(info, indices, "batch_indices");
    const auto& xd = x.shape().dims();
    if (xd.size() != 4) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; expected (N, C, H, W)");
    }
    const auto& rd = rois.shape().dims();
    if (rd.size() != 2 || rd[1] != 4) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'rois' has shape " + rois.shape().ToString() + "; expected [num_rois, 4]");
    }
    if (indices.shape().rank() != 1 || indices.shape().dims()[0] != rd[0]) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'batch_indices' has shape " +
                                                 indices.shape().ToString() + "; expected [" +
                                                 std::to_string(rd[0]) + "] (one per roi)");
    }
    const auto count = static_cast<size_t>(rd[0]);
    for (size_t r = 0; r < count; ++r) {
      const int64_t b = IntAt(indices, r);
      if (b < 0 || b >= xd[0]) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'batch_indices' holds " + std::to_string(b) +
                                                   " at " + std::to_string(r) + "; 'X' has " +
                                                   std::to_string(xd[0]) + " images");
      }
    }
    const std::array<int64_t, 4> yd{rd[0], xd[1], output_height_, output_width_};
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), yd);
    if (y.element_count() == 0) return;
    if (xd[2] == 0 || xd[3] == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; it has no pixels to sample");
    }
    double* roi = ctx.Scratch<double>(rois.element_count());
    nn::ReadAsDouble(info, rois, "rois", roi);
    const auto channels = static_cast<size_t>(xd[1]);
    const int64_t height = xd[2];
    const int64_t width = xd[3];
    const size_t plane = static_cast<size_t>(height * width);
    const size_t bins = static_cast<size_t>(output_height_ * output_width_);
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      ctx.threads().ParallelFor(count, 1, [&](size_t begin, size_t end) {
        // The samples of a roi's bins, computed once for all its channels: kBlock at a time (an
        // adaptive grid of a huge roi may have millions a bin), with each channel's sums kept in
        // acc in between. Where all the roi's samples fit at once, each channel's plane is read
        // for all its bins in a row, while the part around the roi is in L1.
        Sample* block = ctx.Scratch<Sample>(kBlock);
        double* acc = ctx.Scratch<double>(channels);
        for (size_t r = begin; r < end; ++r) {
          const Roi g = Geometry(roi + r * 4);
          const size_t per_bin = g.grid_h * g.grid_w;
          const auto samples = static_cast<double>(std::max<size_t>(per_bin, 1));
          const T* image = src + static_cast<size_t>(IntAt(indices, r)) * channels * plane;
          T* out = dst + r * channels * bins;
          const auto store = [&](size_t c, size_t bin, double a) {
            out[c * bins + bin] = nn::Store<T>(static_cast<nn::AccOf<T>>(max_ ? a : a / samples));
          };
          if (per_bin <= kBlock / bins) {  // (bins >= 1; a product could overflow)
            for (size_t bin = 0; bin < bins; ++bin) {
              for (size_t i = 0; i < per_bin; ++i) {
                block[bin * per_bin + i] = SampleAt(g, bin, i, height, width);
              }
            }
            for (size_t c = 0; c < channels; ++c) {
              const T* in = image + c * plane;
              for (size_t bin = 0; bin < bins; ++bin) {
                store(c, bin, Accumulate(in, block + bin * per_bin, per_bin, true, 0.0));
              }
            }
            continue;
          }
          for (size_t bin = 0; bin < bins; ++bin) {
            std::fill(acc, acc + channels, 0.0);
            for (size_t first = 0; first < per_bin; first += kBlock) {
              const size_t n = std::min(kBlock, per_bin - first);
              for (size_t i = 0; i < n; ++i) block[i] = SampleAt(g, bin, first + i, height, width);
              for (size_t c = 0; c < channels; ++c) {
                acc[c] = Accumulate(image + c * plane, block, n, first == 0, acc[c]);
              }
            }
            for (size_t c = 0; c < channels; ++c) store(c, bin, acc[c]);
          }
        }
      });
    });
  }

 private:
  // A roi on the feature map: where its bins start, their size, and samples per bin axis.
  struct Roi {
    double start_h, start_w, bin_h, bin_w;
    size_t grid_h, grid_w;
  };

  Roi Geometry(const double* box) const {
    const double offset = half_pixel_ ? 0.5 : 0;
    Roi g{};
    g.start_w = box[0] * spatial_scale_ - offset;
    g.start_h = box[1] * spatial_scale_ - offset;
    double roi_w = box[2] * spatial_scale_ - offset - g.start_w;
    double roi_h = box[3] * spatial_scale_ - offset - g.start_h;
    if (!half_pixel_) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    g.bin_h = roi_h / static_cast<double>(output_height_);
    g.bin_w = roi_w / static_cast<double>(output_width_);
    g.grid_h = static_cast<size_t>(GridSize(g.bin_h));
    g.grid_w = static_cast<size_t>(GridSize(g.bin_w));
    return g;
  }

  // Sample i (row-major in the bin's grid) of bin `bin`.
  Sample SampleAt(const Roi& g, size_t bin, size_t i, int64_t height, int64_t width) const {
    const size_t row = bin / static_cast<size_t>(output_width_);
    const auto ph = static_cast<double>(row);
    const auto pw = static_cast<double>(bin - row * static_cast<size_t>(output_width_));
    const auto iy = static_cast<double>(i / g.grid_w);
    const auto ix = static_cast<double>(i % g.grid_w);
    const double yy =
        g.start_h + ph * g.bin_h + (iy + 0.5) * g.bin_h / static_cast<double>(g.grid_h);
    const double xx =
        g.start_w + pw * g.bin_w + (ix + 0.5) * g.bin_w / static_cast<double>(g.grid_w);
    return Bilinear(yy, xx, height, width);
  }

  // a combined with the n samples of one plane: their weighted taps summed (avg), or the largest
  // weighted tap (max; with `first`, a is not one yet).
  template <typename T>
  double Accumulate(const T* in, const Sample* s, size_t n, bool first, double a) const {
    for (size_t i = 0; i < n; ++i) {
      const Sample& sm = s[i];
      if (max_) {
        double v = sm.w[0] * static_cast<double>(nn::Load(in[sm.at[0]]));
        for (size_t k = 1; k < 4; ++k) {
          v = std::max(v, sm.w[k] * static_cast<double>(nn::Load(in[sm.at[k]])));
        }
        a = first && i == 0 ? v : std::max(a, v);
      } else {
        a += sm.w[0] * static_cast<double>(nn::Load(in[sm.at[0]])) +
             sm.w[1] * static_cast<double>(nn::Load(in[sm.at[1]])) +
             sm.w[2] * static_cast<double>(nn::Load(in[sm.at[2]])) +
             sm.w[3] * static_cast<double>(nn::Load(in[sm.at[3]]));
      }
    }
    return a;
  }

  // Samples along one axis of a bin: sampling_ratio, or adaptive (bounded so that a huge roi
  // cannot make the loop run forever).
  int64_t GridSize(double bin) const {
    if (sampling_ratio_ > 0) return sampling_ratio_;
    const double n = std::ceil(bin);
    if (!(n >= 1)) return 0;  // an empty (or NaN) roi takes no samples: its bins are 0
    return static_cast<int64_t>(std::min(n, 65536.0));
  }

  int64_t output_height_;
  int64_t output_width_;
  int64_t sampling_ratio_;
  double spatial_scale_;
  bool max_ = false;
  bool half_pixel_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeRoiAlign(const KernelInfo& info) {
  return std::make_unique<RoiAlign>(info);
}

}  // namespace kiln::cpu
