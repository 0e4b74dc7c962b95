// Channels-last pooling (ai.kiln, opset 1), float (and 8-bit integers for NhwcMaxPool),
// vectorized along the channels:
//   NhwcMaxPool, NhwcAveragePool: X [N, H, W, C] → Y [N, OH, OW, C] with ONNX MaxPool/AveragePool
//     attributes (auto_pad, ceil_mode, dilations, kernel_shape, pads, strides, count_include_pad
//     for AveragePool); one output (no Indices). As in nn/pool.cc, MaxPool ignores NaN unless the
//     whole window is NaN, and a window entirely in the padding is an error for MaxPool and for
//     AveragePool without count_include_pad.
//   NhwcGlobalAveragePool, NhwcGlobalMaxPool: [N, H, W, C] → [N, 1, 1, C].
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "kernels/cpu/common.h"
#include "kernels/cpu/nhwc/nhwc_kernels.h"
#include "kernels/cpu/nhwc/nhwc_simd.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nhwc::TapRange;
using nhwc::Taps;
using nn::WindowGeometry;

struct PoolShape {
  int64_t in_h, in_w, out_h, out_w;
  size_t channels;
};

// The element loops, inlined into PoolRow's clone for each target. (Cloned functions of their own,
// each of a layer's taps paid for a call through the clone resolver: for 24 channels, 56×56
// outputs and a 3×3 window, 0.3 ms of calls for 0.02 ms of work.)

// acc = x where x is larger or acc is NaN: NaN is kept only when every element was NaN.
[[gnu::always_inline]] inline void MaxInto(float* acc, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] = (x[i] > acc[i] || acc[i] != acc[i]) ? x[i] : acc[i];
}

[[gnu::always_inline]] inline void AddInto(float* acc, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] += x[i];
}

[[gnu::always_inline]] inline void Scale(float* acc, float s, size_t n) {
  for (size_t i = 0; i < n; ++i) acc[i] *= s;
}

// acc = max (or sum) of acc and `rows` rows of n floats after it.
KILN_VECTOR_CLONES void PoolRows(bool max, float* acc, const float* rows, size_t count, size_t n) {
  for (size_t r = 0; r < count; ++r) {
    if (max) {
      MaxInto(acc, rows + r * n, n);
    } else {
      AddInto(acc, rows + r * n, n);
    }
  }
}

KILN_VECTOR_CLONES void ScaleRow(float* acc, float s, size_t n) {
  Scale(acc, s, n);
}

// One output row (image n, row oy). `count_padded` (AveragePool with count_include_pad) divides by
// the taps inside the padded input rather than inside the image.
template <bool kMax>
KILN_VECTOR_CLONES void PoolRow(const WindowGeometry& g, const PoolShape& s, const float* image,
                                int64_t oy, bool count_padded, float* y_row) {
  const size_t c = s.channels;
  const TapRange ry = Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], s.in_h, g.kernel[0]);
  const TapRange py =
      Taps(oy, g.stride[0], g.dilation[0], 0, g.pad_begin[0] + s.in_h + g.pad_end[0], g.kernel[0]);
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  for (int64_t ox = 0; ox < s.out_w; ++ox) {
    float* acc = y_row + static_cast<size_t>(ox) * c;
    const TapRange rx = Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], s.in_w, g.kernel[1]);
    const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
    bool first = true;
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
        const float* xp = image + static_cast<size_t>(iy * s.in_w + ix0 + kx * g.dilation[1]) * c;
        if (first) {
          for (size_t i = 0; i < c; ++i) acc[i] = xp[i];
          first = false;
        } else if (kMax) {
          MaxInto(acc, xp, c);
        } else {
          AddInto(acc, xp, c);
        }
      }
    }
    if (first) {  // only AveragePool with count_include_pad
      for (size_t i = 0; i < c; ++i) acc[i] = 0.0f;
    }
    if (!kMax) {
      int64_t count = (ry.hi - ry.lo) * (rx.hi - rx.lo);
      if (count_padded) {
        const TapRange px = Taps(ox, g.stride[1], g.dilation[1], 0,
                                 g.pad_begin[1] + s.in_w + g.pad_end[1], g.kernel[1]);
        count = (py.hi - py.lo) * (px.hi - px.lo);
      }
      Scale(acc, 1.0f / static_cast<float>(count), c);
    }
  }
}

#if KILN_HAS_VECTOR_CLONES
// Channels [f, f + kW) of one output pixel's max: the window's taps (rows ky in ry, columns kx
// in rx) of `base` (the image from channel f) folded into a vector that stays in a register, not
// stored and loaded again for each tap as PoolRow's loop over memory does. The first tap is taken
// twice (max(a, a) is a), which keeps the loop free of a test. (AVX-512 code of its own: the
// vector compare and select, inlined into a vector-cloned function, would have been lowered for
// the baseline first, lane by lane.)
template <int kW>
[[gnu::always_inline]] KILN_TARGET_AVX512 inline void MaxChunk(const float* base, size_t c,
                                                               int64_t in_w, TapRange ry,
                                                               TapRange rx, int64_t iy0,
                                                               int64_t ix0, int64_t dy, int64_t dx,
                                                               float* out) {
  using V = nhwc::Vec<kW>;
  const float* first = base + static_cast<size_t>((iy0 + ry.lo * dy) * in_w + ix0 + rx.lo * dx) * c;
  V acc = nhwc::LoadVec<kW>(first);
  for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
    const float* row = base + static_cast<size_t>((iy0 + ky * dy) * in_w + ix0) * c;
    for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
      const V x = nhwc::LoadVec<kW>(row + static_cast<size_t>(kx * dx) * c);
      // x where x is larger or acc is NaN (MaxInto's rule).
      const V larger = x > acc ? x : acc;
      acc = acc != acc ? x : larger;
    }
  }
  nhwc::StoreVec<kW>(out, acc);
}

// PoolRow<true> on AVX-512 machines: channels by 16 and 8 in registers, the last 1-7 as PoolRow
// takes them. ShuffleNet v2 x0.5's 3×3/2 pool over 112×112×24: 0.095 → 0.081 ms at one thread.
KILN_TARGET_AVX512 void MaxRowAvx512(const WindowGeometry& g, const PoolShape& s,
                                     const float* image, int64_t oy, float* y_row) {
  const size_t c = s.channels;
  const int64_t dy = g.dilation[0];
  const int64_t dx = g.dilation[1];
  const TapRange ry = Taps(oy, g.stride[0], dy, g.pad_begin[0], s.in_h, g.kernel[0]);
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  for (int64_t ox = 0; ox < s.out_w; ++ox) {
    float* out = y_row + static_cast<size_t>(ox) * c;
    const TapRange rx = Taps(ox, g.stride[1], dx, g.pad_begin[1], s.in_w, g.kernel[1]);
    const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
    size_t f = 0;
    for (; f + 16 <= c; f += 16) {
      MaxChunk<16>(image + f, c, s.in_w, ry, rx, iy0, ix0, dy, dx, out + f);
    }
    if (f + 8 <= c) {
      MaxChunk<8>(image + f, c, s.in_w, ry, rx, iy0, ix0, dy, dx, out + f);
      f += 8;
    }
    if (f == c) continue;
    // The last 1-7 channels in memory, the first tap taken twice as MaxChunk does.
    const float* first =
        image + static_cast<size_t>((iy0 + ry.lo * dy) * s.in_w + ix0 + rx.lo * dx) * c + f;
    for (size_t i = 0; i < c - f; ++i) out[f + i] = first[i];
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const float* row = image + static_cast<size_t>((iy0 + ky * dy) * s.in_w + ix0) * c + f;
      for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
        MaxInto(out + f, row + static_cast<size_t>(kx * dx) * c, c - f);
      }
    }
  }
}
#endif

// Whether MaxPool goes by MaxRowAvx512.
bool UseMaxRowAvx512() {
#if KILN_HAS_VECTOR_CLONES
  return UseVectorMathAvx512();
#else
  return false;
#endif
}

// dst[i] = max(dst[i], src[i]) for i < n.
template <typename T>
KILN_VECTOR_CLONES void MaxInto(const T* src, size_t n, T* dst) {
  for (size_t i = 0; i < n; ++i) dst[i] = std::max(dst[i], src[i]);
}

#if KILN_HAS_VECTOR_CLONES
// dst[i] = max over t < taps of srcs[t][i] for i < n (taps ≥ 1) on AVX-512: 64 bytes at a time
// with the maxima in a register across the taps (where a pass per tap over dst loaded and stored
// it each time: squeezenet's three 8-bit pools 0.124 → 0.05 ms), the last bytes one at a time.
// AVX-512 code of its own, as MaxChunk.
template <typename T>
struct Bytes64;  // 64 bytes of T as one vector
template <>
struct Bytes64<uint8_t> {
  using V = uint8_t __attribute__((vector_size(64)));
};
template <>
struct Bytes64<int8_t> {
  using V = int8_t __attribute__((vector_size(64)));
};

template <typename T>
KILN_TARGET_AVX512 void MaxOfTapsAvx512(const T* const* srcs, size_t taps, size_t n, T* dst) {
  using V = typename Bytes64<T>::V;
  size_t c = 0;
  for (; c + 64 <= n; c += 64) {
    V acc;
    __builtin_memcpy(&acc, srcs[0] + c, 64);
    for (size_t t = 1; t < taps; ++t) {
      V x;
      __builtin_memcpy(&x, srcs[t] + c, 64);
      acc = x > acc ? x : acc;
    }
    __builtin_memcpy(dst + c, &acc, 64);
  }
  for (; c < n; ++c) {
    T m = srcs[0][c];
    for (size_t t = 1; t < taps; ++t) m = srcs[t][c] > m ? srcs[t][c] : m;
    dst[c] = m;
  }
}
#endif

class NhwcPool final : public Kernel {
 public:
  NhwcPool(const KernelInfo& info, bool max)
      : attrs_(nn::ReadWindowAttrs(
            info, {.kernel_required = true, .dilations = true, .ceil_mode = true})),
        max_(max),
        count_include_pad_(!max && info.GetInt("count_include_pad", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    // NhwcMaxPool also takes 8-bit integers (a quantized network's pooling).
    const bool bytes = max_ && (x.type() == DataType::kUint8 || x.type() == DataType::kInt8);
    if (!bytes) nhwc::RequireFloat(info, "X", x);
    nhwc::RequireRank4(info, x);
    const WindowGeometry g = nhwc::ResolveNhwc(info, attrs_, x.shape(),
                                               std::span<const int64_t>(attrs_.kernel_shape), true);
    const auto& d = x.shape().dims();
    const PoolShape s = {d[1], d[2], g.out[0], g.out[1], static_cast<size_t>(d[3])};
    const std::array<int64_t, 4> y_dims = {d[0], s.out_h, s.out_w, d[3]};
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), std::span<const int64_t>(y_dims));
    if (y.element_count() == 0) return;
    if ((max_ || !count_include_pad_) && AnyEmptyWindow(g, s)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "a window lies entirely in the padding (attribute 'pads' or auto_pad, input 'X' " +
                    x.shape().ToString() + "): it has no element to pool");
    }
    if (bytes) {
      if (x.type() == DataType::kUint8) {
        MaxBytes<uint8_t>(ctx, g, s, static_cast<size_t>(d[0]), x, y);
      } else {
        MaxBytes<int8_t>(ctx, g, s, static_cast<size_t>(d[0]), x, y);
      }
      return;
    }
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    const size_t rows = static_cast<size_t>(d[0] * s.out_h);
    const size_t row_size = static_cast<size_t>(s.out_w) * s.channels;
    const size_t image_size = static_cast<size_t>(s.in_h * s.in_w) * s.channels;
    // One contiguous share of rows per thread, as the convolutions share theirs (their output
    // rows are then mostly in the cache of the thread that pools them); a small pool runs here.
    const size_t work = rows * row_size * g.kernel_size;
    const bool avx512 = max_ && UseMaxRowAvx512();
    const auto run = [&](size_t b, size_t e) {
      for (size_t r = b; r < e; ++r) {
        const float* image = xp + r / static_cast<size_t>(s.out_h) * image_size;
        const auto oy = static_cast<int64_t>(r % static_cast<size_t>(s.out_h));
        if (avx512) {
#if KILN_HAS_VECTOR_CLONES
          MaxRowAvx512(g, s, image, oy, yp + r * row_size);
#endif
        } else if (max_) {
          PoolRow<true>(g, s, image, oy, false, yp + r * row_size);
        } else {
          PoolRow<false>(g, s, image, oy, count_include_pad_, yp + r * row_size);
        }
      }
    };
    if (work < 32768) {
      run(0, rows);
    } else {
      ctx.threads().ParallelForShares(rows, run);
    }
  }

 private:
  // The window maxima of an 8-bit image, a row of outputs at a time, each pixel's channels a
  // vectorized run.
  template <typename T>
  static void MaxBytes(KernelContext& ctx, const WindowGeometry& g, const PoolShape& s,
                       size_t images, const Tensor& x, Tensor& y) {
    const auto* xp = static_cast<const T*>(x.data());
    auto* yp = static_cast<T*>(y.data());
    const size_t c = s.channels;
    const size_t rows = images * static_cast<size_t>(s.out_h);
    const size_t image_size = static_cast<size_t>(s.in_h * s.in_w) * c;
    [[maybe_unused]] const bool avx512 = UseMaxRowAvx512();  // unused without vector clones
    ctx.threads().ParallelFor(rows, 1, [&](size_t b, size_t e) {
      SmallVector<const T*, 49> srcs;  // a window's pixels (on the stack up to 7 × 7)
      for (size_t r = b; r < e; ++r) {
        const T* image = xp + r / static_cast<size_t>(s.out_h) * image_size;
        const auto oy = static_cast<int64_t>(r % static_cast<size_t>(s.out_h));
        const TapRange ty =
            Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], s.in_h, g.kernel[0]);
        for (int64_t ox = 0; ox < s.out_w; ++ox) {
          const TapRange tx =
              Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], s.in_w, g.kernel[1]);
          T* dst = yp + (r * static_cast<size_t>(s.out_w) + static_cast<size_t>(ox)) * c;
          srcs.clear();
          for (int64_t ky = ty.lo; ky < ty.hi; ++ky) {
            const int64_t iy = oy * g.stride[0] - g.pad_begin[0] + ky * g.dilation[0];
            for (int64_t kx = tx.lo; kx < tx.hi; ++kx) {
              const int64_t ix = ox * g.stride[1] - g.pad_begin[1] + kx * g.dilation[1];
              srcs.push_back(image + static_cast<size_t>(iy * s.in_w + ix) * c);
            }
          }
#if KILN_HAS_VECTOR_CLONES
          if (avx512) {
            MaxOfTapsAvx512(srcs.data(), srcs.size(), c, dst);
            continue;
          }
#endif
          std::copy(srcs[0], srcs[0] + c, dst);
          for (size_t t = 1; t < srcs.size(); ++t) MaxInto(srcs[t], c, dst);
        }
      }
    });
  }

  static bool AnyEmptyWindow(const WindowGeometry& g, const PoolShape& s) {
    for (int64_t o = 0; o < s.out_h; ++o) {
      const TapRange r = Taps(o, g.stride[0], g.dilation[0], g.pad_begin[0], s.in_h, g.kernel[0]);
      if (r.hi <= r.lo) return true;
    }
    for (int64_t o = 0; o < s.out_w; ++o) {
      const TapRange r = Taps(o, g.stride[1], g.dilation[1], g.pad_begin[1], s.in_w, g.kernel[1]);
      if (r.hi <= r.lo) return true;
    }
    return false;
  }

  nn::WindowAttrs attrs_;
  bool max_;
  bool count_include_pad_;
};

class NhwcGlobalPool final : public Kernel {
 public:
  NhwcGlobalPool(const KernelInfo& /*info*/, bool max) : max_(max) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    nhwc::RequireFloat(info, "X", x);
    nhwc::RequireRank4(info, x);
    const auto& d = x.shape().dims();
    const std::array<int64_t, 4> y_dims = {d[0], 1, 1, d[3]};
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, std::span<const int64_t>(y_dims));
    if (y.element_count() == 0) return;
    const auto c = static_cast<size_t>(d[3]);
    const auto pixels = static_cast<size_t>(d[1] * d[2]);
    if (pixels == 0) {
      // Nothing to pool: an error, as for a window entirely in the padding.
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + "; the image is empty");
    }
    const auto* xp = static_cast<const float*>(x.data());
    auto* yp = static_cast<float*>(y.data());
    // Each image's pixels are cut into parts that run in parallel, each pooling its contiguous
    // run of pixels over all channels into a row of partial results; the parts' rows are then
    // combined. (Splitting the channels instead reads each pixel's channels in short strided
    // pieces, and a few blocks of 64 channels share out unevenly.)
    // The parts depend on the image size alone (runs of at least 32 pixels, at most 8 parts), so
    // the sums are added in the same order whatever the thread count.
    const auto images = static_cast<size_t>(d[0]);
    const size_t parts = std::clamp<size_t>(pixels / 32, 1, 8);
    float* partial = ctx.Scratch<float>(images * parts * c);
    const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, pixels / parts * c));
    ctx.threads().ParallelFor(images * parts, grain, [&](size_t b, size_t e) {
      for (size_t t = b; t < e; ++t) {
        const size_t n = t / parts;
        const size_t first = PartStart(pixels, parts, t % parts);
        const size_t last = PartStart(pixels, parts, t % parts + 1);
        const float* image = xp + n * pixels * c;
        float* acc = partial + t * c;
        std::copy(image + first * c, image + (first + 1) * c, acc);
        PoolRows(max_, acc, image + (first + 1) * c, last - first - 1, c);
      }
    });
    for (size_t n = 0; n < images; ++n) {
      float* out = yp + n * c;
      const float* rows = partial + n * parts * c;
      std::copy(rows, rows + c, out);
      PoolRows(max_, out, rows + c, parts - 1, c);
      if (!max_) ScaleRow(out, 1.0f / static_cast<float>(pixels), c);
    }
  }

 private:
  bool max_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNhwcMaxPool(const KernelInfo& info) {
  return std::make_unique<NhwcPool>(info, true);
}
std::unique_ptr<Kernel> MakeNhwcAveragePool(const KernelInfo& info) {
  return std::make_unique<NhwcPool>(info, false);
}
std::unique_ptr<Kernel> MakeNhwcGlobalMaxPool(const KernelInfo& info) {
  return std::make_unique<NhwcGlobalPool>(info, true);
}
std::unique_ptr<Kernel> MakeNhwcGlobalAveragePool(const KernelInfo& info) {
  return std::make_unique<NhwcGlobalPool>(info, false);
}

}  // namespace kiln::cpu
