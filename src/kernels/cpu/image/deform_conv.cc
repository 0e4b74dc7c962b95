// DeformConv (versions 19, 22 (bfloat16)): a 2-D convolution whose kernel taps are moved by
// learned offsets. For output pixel (oh, ow) and tap (i, j) of offset group g, the input is
// sampled bilinearly at
//   (oh * stride_h - pad_top + i * dilation_h + dy, ow * stride_w - pad_left + j * dilation_w + dx)
// with (dy, dx) = offset[n, g * 2 * kH * kW + 2 * (i * kW + j) + (0, 1), oh, ow], scaled by
// mask[n, g * kH * kW + i * kW + j, oh, ow] when the mask is given; points outside the image
// read 0 (each of the four neighbours outside reads 0). Channels split into `group` groups for
// the weights and `offset_group` groups for the offsets. The samples are gathered into columns
// (scratch) and multiplied by the weights.
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

template <typename T>
double Sample(const T* plane, int64_t height, int64_t width, double y, double x) {
  if (!(y > -1 && y < static_cast<double>(height) && x > -1 && x < static_cast<double>(width))) {
    return 0;
  }
  const double fy = std::floor(y);
  const double fx = std::floor(x);
  const auto y0 = static_cast<int64_t>(fy);
  const auto x0 = static_cast<int64_t>(fx);
  const double ly = y - fy;
  const double lx = x - fx;
  double v = 0;
  for (int64_t dy = 0; dy < 2; ++dy) {
    for (int64_t dx = 0; dx < 2; ++dx) {
      const int64_t yy = y0 + dy;
      const int64_t xx = x0 + dx;
      if (yy < 0 || yy >= height || xx < 0 || xx >= width) continue;
      const double w = (dy != 0 ? ly : 1 - ly) * (dx != 0 ? lx : 1 - lx);
      v += w * static_cast<double>(nn::Load(plane[yy * width + xx]));
    }
  }
  return v;
}

bool SameDims(const std::vector<int64_t>& a, const std::array<int64_t, 4>& b) {
  return a.size() == 4 && std::equal(b.begin(), b.end(), a.begin());
}

class DeformConv final : public Kernel {
 public:
  explicit DeformConv(const KernelInfo& info)
      : kernel_(info.GetInts("kernel_shape")),
        dilations_(info.GetInts("dilations", {1, 1})),
        pads_(info.GetInts("pads", {0, 0, 0, 0})),
        strides_(info.GetInts("strides", {1, 1})),
        group_(info.GetInt("group", 1)),
        offset_group_(info.GetInt("offset_group", 1)) {
    if ((!kernel_.empty() && kernel_.size() != 2) || dilations_.size() != 2 || pads_.size() != 4 ||
        strides_.size() != 2) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attributes 'kernel_shape', 'dilations', 'pads' and 'strides' must have 2, 2, 4 "
                "and 2 values (2-D convolution only)");
    }
    for (size_t a = 0; a < 2; ++a) {
      if (dilations_[a] < 1 || strides_[a] < 1 || pads_[a] < 0 || pads_[a + 2] < 0 ||
          (!kernel_.empty() && kernel_[a] < 1)) {
        info.Fail(ErrorCode::kInvalidGraph,
                  "attributes 'dilations', 'strides' and 'kernel_shape' must be >= 1 and 'pads' "
                  ">= 0");
      }
    }
    if (group_ < 1 || offset_group_ < 1) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'group' (" + std::to_string(group_) +
                                              ") and 'offset_group' (" +
                                              std::to_string(offset_group_) + ") must be >= 1");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    const Tensor& offset = ctx.Input(2);
    const Tensor* bias = ctx.OptionalInput(3);
    const Tensor* mask = ctx.OptionalInput(4);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    nn::RequireSameType(info, "W", w, x.type());
    nn::RequireSameType(info, "offset", offset, x.type());
    const auto& xd = x.shape().dims();
    const auto& wd = w.shape().dims();
    if (xd.size() != 4) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                 "; expected (N, C, H, W) (2-D only)");
    }
    const int64_t channels = xd[1];
    if (channels % group_ != 0 || channels % offset_group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has " + std::to_string(channels) + " channels; attributes 'group' (" +
                    std::to_string(group_) + ") and 'offset_group' (" +
                    std::to_string(offset_group_) + ") must divide it");
    }
    if (wd.size() != 4 || wd[1] != channels / group_ || wd[0] % group_ != 0 ||
        (!kernel_.empty() && (wd[2] != kernel_[0] || wd[3] != kernel_[1]))) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + w.shape().ToString() + "; expected [M, " +
                    std::to_string(channels / group_) +
                    ", kH, kW] with M divisible by 'group' and kH, kW matching 'kernel_shape'");
    }
    const int64_t kh = wd[2];
    const int64_t kw = wd[3];
    std::array<int64_t, 2> out_hw{};
    for (size_t a = 0; a < 2; ++a) {
      const int64_t extent = dilations_[a] * (wd[2 + a] - 1) + 1;
      const int64_t padded = xd[2 + a] + pads_[a] + pads_[a + 2];
      if (padded < extent) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                   "; the padded image is smaller "
                                                   "than the kernel extent " +
                                                   std::to_string(extent) + " on axis " +
                                                   std::to_string(a + 2));
      }
      out_hw[a] = (padded - extent) / strides_[a] + 1;
    }
    const int64_t taps = kh * kw;
    const std::array<int64_t, 4> od{xd[0], offset_group_ * 2 * taps, out_hw[0], out_hw[1]};
    if (!SameDims(offset.shape().dims(), od)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'offset' has shape " +
                                                 offset.shape().ToString() + "; expected " +
                                                 Shape({od.begin(), od.end()}).ToString());
    }
    if (mask != nullptr) {
      nn::RequireSameType(info, "mask", *mask, x.type());
      const std::array<int64_t, 4> md{xd[0], offset_group_ * taps, out_hw[0], out_hw[1]};
      if (!SameDims(mask->shape().dims(), md)) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'mask' has shape " +
                                                   mask->shape().ToString() + "; expected " +
                                                   Shape({md.begin(), md.end()}).ToString());
      }
    }
    const int64_t m = wd[0];
    if (bias != nullptr) {
      nn::RequireSameType(info, "B", *bias, x.type());
      if (bias->shape().rank() != 1 || bias->shape().dims()[0] != m) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + bias->shape().ToString() +
                                                   "; expected [" + std::to_string(m) + "]");
      }
    }
    const std::array<int64_t, 4> yd{xd[0], m, out_hw[0], out_hw[1]};
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), yd);
    if (y.element_count() == 0) return;
    const auto batch = static_cast<size_t>(xd[0]);
    const auto c = static_cast<size_t>(channels);
    const auto height = xd[2];
    const auto width = xd[3];
    const auto plane = static_cast<size_t>(height * width);
    const auto ntaps = static_cast<size_t>(taps);
    const auto opix = static_cast<size_t>(out_hw[0] * out_hw[1]);
    const size_t c_per_og = c / static_cast<size_t>(offset_group_);
    const size_t c_per_g = c / static_cast<size_t>(group_);
    const size_t m_per_g = static_cast<size_t>(m) / static_cast<size_t>(group_);
    // Columns: [C * taps, out pixels] for one image.
    double* cols = ctx.Scratch<double>(c * ntaps * opix);
    double* bias_values = ctx.Scratch<double>(static_cast<size_t>(m));
    if (bias != nullptr) {
      nn::ReadAsDouble(info, *bias, "B", bias_values);
    } else {
      for (size_t i = 0; i < static_cast<size_t>(m); ++i) bias_values[i] = 0;
    }
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      const T* off = static_cast<const T*>(offset.data());
      const T* msk = mask != nullptr ? static_cast<const T*>(mask->data()) : nullptr;
      const T* wt = static_cast<const T*>(w.data());
      T* dst = static_cast<T*>(y.data());
      for (size_t n = 0; n < batch; ++n) {
        ctx.threads().ParallelFor(c * ntaps, 1, [&](size_t begin, size_t end) {
          for (size_t row = begin; row < end; ++row) {
            const size_t ch = row / ntaps;
            const size_t tap = row % ntaps;
            const size_t og = ch / c_per_og;
            const auto i = static_cast<int64_t>(tap / static_cast<size_t>(kw));
            const auto j = static_cast<int64_t>(tap % static_cast<size_t>(kw));
            const T* in = src + (n * c + ch) * plane;
            const T* dy =
                off + ((n * static_cast<size_t>(offset_group_) + og) * 2 * ntaps + 2 * tap) * opix;
            const T* dx = dy + opix;
            const T* mk =
                msk != nullptr
                    ? msk + ((n * static_cast<size_t>(offset_group_) + og) * ntaps + tap) * opix
                    : nullptr;
            double* col = cols + row * opix;
            for (size_t p = 0; p < opix; ++p) {
              const auto oh = static_cast<int64_t>(p / static_cast<size_t>(out_hw[1]));
              const auto ow = static_cast<int64_t>(p % static_cast<size_t>(out_hw[1]));
              const double yy =
                  static_cast<double>(oh * strides_[0] - pads_[0] + i * dilations_[0]) +
                  static_cast<double>(nn::Load(dy[p]));
              const double xx =
                  static_cast<double>(ow * strides_[1] - pads_[1] + j * dilations_[1]) +
                  static_cast<double>(nn::Load(dx[p]));
              double v = Sample(in, height, width, yy, xx);
              if (mk != nullptr) v *= static_cast<double>(nn::Load(mk[p]));
              col[p] = v;
            }
          }
        });
        // Y[n, o, p] = B[o] + sum over the group's (channel, tap) rows of W[o, row] * col[row, p].
        const size_t k = c_per_g * ntaps;
        ctx.threads().ParallelFor(static_cast<size_t>(m), 1, [&](size_t begin, size_t end) {
          for (size_t o = begin; o < end; ++o) {
            const size_t g = o / m_per_g;
            const T* wrow = wt + o * k;
            const double* gcols = cols + g * k * opix;
            T* out = dst + (n * static_cast<size_t>(m) + o) * opix;
            for (size_t p = 0; p < opix; ++p) {
              double acc = bias_values[o];
              for (size_t q = 0; q < k; ++q) {
                acc += static_cast<double>(nn::Load(wrow[q])) * gcols[q * opix + p];
              }
              out[p] = nn::Store<T>(static_cast<nn::AccOf<T>>(acc));
            }
          }
        });
      }
    });
  }

 private:
  std::vector<int64_t> kernel_;
  std::vector<int64_t> dilations_;
  std::vector<int64_t> pads_;
  std::vector<int64_t> strides_;
  int64_t group_;
  int64_t offset_group_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDeformConv(const KernelInfo& info) {
  return std::make_unique<DeformConv>(info);
}

}  // namespace kiln::cpu
