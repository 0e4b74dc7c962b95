// Helpers of the channels-last kernels: the 2-D window resolved for an [N, H, W, C] input, and the
// range of kernel taps that fall inside the image for one output coordinate.
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_WINDOW_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_WINDOW_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "kernels/cpu/nn/window.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nhwc {

// Fails with kInvalidArgument unless input 'X' is [N, H, W, C].
inline void RequireRank4(const KernelInfo& info, const Tensor& x) {
  if (x.shape().rank() != 4) {
    info.Fail(ErrorCode::kInvalidArgument,
              "input 'X' has shape " + x.shape().ToString() + "; it needs rank 4 (N, H, W, C)");
  }
}

// Fails with kNotImplemented unless input `name` is float.
inline void RequireFloat(const KernelInfo& info, const char* name, const Tensor& t) {
  if (t.type() != DataType::kFloat) {
    info.Fail(ErrorCode::kNotImplemented, std::string("input '") + name + "' has element type " +
                                              DataTypeName(t.type()) + "; only float is supported");
  }
}

// The window of an [N, H, W, C] input, resolved as ONNX does for [N, C, H, W].
inline nn::WindowGeometry ResolveNhwc(const KernelInfo& info, const nn::WindowAttrs& attrs,
                                      std::span<const int64_t> d, std::span<const int64_t> kernel,
                                      bool honour_ceil_mode) {
  const std::array<int64_t, 4> nchw = {d[0], d[3], d[1], d[2]};
  return nn::ResolveWindow(info, attrs, std::span<const int64_t>(nchw), kernel, honour_ceil_mode);
}

// The same from a Shape.
inline nn::WindowGeometry ResolveNhwc(const KernelInfo& info, const nn::WindowAttrs& attrs,
                                      const Shape& x, std::span<const int64_t> kernel,
                                      bool honour_ceil_mode) {
  return ResolveNhwc(info, attrs, std::span<const int64_t>(x.dims()), kernel, honour_ceil_mode);
}

// The taps [lo, hi) along one axis whose input coordinate o * s + k * d - pad is in [0, in); with
// count_include_pad counts in the padded input: Taps(o, s, d, 0, pad + in + pad_end, k).
struct TapRange {
  int64_t lo;
  int64_t hi;
};

inline TapRange Taps(int64_t o, int64_t s, int64_t d, int64_t pad, int64_t in, int64_t k) {
  const int64_t start = o * s - pad;  // input coordinate of tap 0
  const int64_t lo = start >= 0 ? 0 : nn::CeilDiv(-start, d);
  const int64_t hi = in - start <= 0 ? 0 : nn::CeilDiv(in - start, d);
  return {std::min(lo, k), std::max(std::min(lo, k), std::min(hi, k))};
}

// Whether more than 3/4 of a dilated 3×3, stride-1 layer's taps (attrs.dilations has 2 entries),
// summed over its output, read an input of in_h × in_w rather than padding (false when the
// attributes do not fit it: the kernel reports that when it runs). NhwcConv runs such a layer as
// Winograd then, and its live taps region by region otherwise.
inline bool DilatedTapsMostlyLive(const nn::WindowAttrs& attrs, int64_t in_h, int64_t in_w) {
  double live = 1;
  double all = 1;
  for (size_t axis = 0; axis < 2; ++axis) {
    const int64_t in = axis == 0 ? in_h : in_w;
    const int64_t d = attrs.dilations[axis];
    int64_t begin = 0;
    int64_t end = 0;
    if (attrs.auto_pad == nn::AutoPad::kSameUpper || attrs.auto_pad == nn::AutoPad::kSameLower) {
      begin = end = d;  // stride 1: 2·d in all, split evenly
    } else if (attrs.auto_pad == nn::AutoPad::kNotSet && attrs.pads.size() == 4) {
      begin = attrs.pads[axis];
      end = attrs.pads[axis + 2];
    }
    const int64_t out = in + begin + end - 2 * d;
    if (out <= 0 || begin < 0 || end < 0) return false;
    int64_t taps = 0;
    for (int64_t k = 0; k < 3; ++k) {
      // Outputs o with 0 ≤ o − begin + k·d < in.
      const int64_t lo = std::max<int64_t>(0, begin - k * d);
      const int64_t hi = std::min(out, in + begin - k * d);
      taps += std::max<int64_t>(0, hi - lo);
    }
    live *= static_cast<double>(taps);
    all *= static_cast<double>(3 * out);
  }
  return 4 * live > 3 * all;
}

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_WINDOW_H_
