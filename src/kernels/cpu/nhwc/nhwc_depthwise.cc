// NhwcConv's depthwise paths (see nhwc_conv.cc's file comment): a direct loop vectorized along
// the channels; the register-tiled fast path with the epilogue on the sums for multiplier 1 and
// square 3×3 / 5×5 / 7×7 kernels (nhwc_depthwise_fast.h, instantiated in nhwc_depthwise_k*.cc);
// and the same fed by the band-by-band 1×1 expansion of attribute expand (RunExpandDepthwise).
#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_depthwise_fast.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {
namespace {

using nn::WindowGeometry;

// Channels [c0, c0 + kWidth) of one depthwise output pixel (multiplier 1), summed in registers.
template <size_t kWidth>
[[gnu::always_inline]] inline void ChunkSum(const Problem& p, const float* x_image, const float* w,
                                            TapRange ry, TapRange rx, int64_t iy0, int64_t ix0,
                                            size_t c0, float* acc) {
  const WindowGeometry& g = p.g;
  float sum[kWidth] = {};
  for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
    const int64_t iy = iy0 + ky * g.dilation[0];
    for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
      const int64_t ix = ix0 + kx * g.dilation[1];
      const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * p.channels + c0;
      const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * p.features + c0;
      for (size_t j = 0; j < kWidth; ++j) sum[j] += wp[j] * xp[j];
    }
  }
  for (size_t j = 0; j < kWidth; ++j) acc[c0 + j] = sum[j];
}

// The taps along the row of output column ox; the columns [inner.lo, inner.hi) have all of them
// (no divisions there: they would cost as much as the arithmetic of a narrow layer).
[[gnu::always_inline]] inline TapRange ColumnTaps(const Problem& p, TapRange inner, int64_t ox) {
  const WindowGeometry& g = p.g;
  return ox >= inner.lo && ox < inner.hi
             ? TapRange{0, g.kernel[1]}
             : Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], p.in_w, g.kernel[1]);
}

// Channels [c0, c0 + kWidth) of a whole output row (multiplier 1): the chunk's weights stay in
// L1 across the row, its sums in registers across the taps.
template <size_t kWidth>
[[gnu::always_inline]] inline void RowChunk(const Problem& p, const float* x_image, const float* w,
                                            TapRange ry, TapRange inner, int64_t iy0, size_t c0,
                                            int64_t ox_begin, int64_t ox_end, float* y_row) {
  const WindowGeometry& g = p.g;
  const int64_t sx = g.stride[1];
  const auto column = [&](int64_t ox) {
    ChunkSum<kWidth>(p, x_image, w, ry, ColumnTaps(p, inner, ox), iy0, ox * sx - g.pad_begin[1], c0,
                     y_row + static_cast<size_t>(ox) * p.features);
  };
  int64_t ox = ox_begin;
  for (; ox < std::min(inner.lo, ox_end); ++ox) column(ox);
  // Two inner columns at once: twice the independent sums (FMA latency), one weight load for two.
  const auto x_step = static_cast<size_t>(sx) * p.channels;
  for (; ox + 2 <= std::min(inner.hi, ox_end); ox += 2) {
    float sum0[kWidth] = {};
    float sum1[kWidth] = {};
    const int64_t ix0 = ox * sx - g.pad_begin[1];
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
        const int64_t ix = ix0 + kx * g.dilation[1];
        const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * p.channels + c0;
        const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * p.features + c0;
        for (size_t j = 0; j < kWidth; ++j) {
          sum0[j] += wp[j] * xp[j];
          sum1[j] += wp[j] * xp[x_step + j];
        }
      }
    }
    float* y0 = y_row + static_cast<size_t>(ox) * p.features + c0;
    for (size_t j = 0; j < kWidth; ++j) {
      y0[j] = sum0[j];
      y0[p.features + j] = sum1[j];
    }
  }
  for (; ox < ox_end; ++ox) column(ox);
}

// The fast row function for p and the activation (nullptr where the fast path does not apply),
// the bounds of its Clip, and whether the activation still has to be applied after it. fn takes
// channels [0, end16) in chunks of its width; tail, 8 floats wide, the chunk of 8 after them
// [end16, end) (channel counts 24, 40, 72, 120, ... of MobileNets and MnasNets: end = C / 8 · 8),
// where fn is 16 wide; where fn is 8 wide it takes all of [0, end) itself.
struct FastRow {
  DwRowFn fn = nullptr;
  DwRowFn tail = nullptr;
  size_t end16 = 0;
  size_t end = 0;
  float lo = 0.0f, hi = 0.0f;
  bool activation_after = false;
};

// 16-float vectors where the machine has AVX-512 (and the tests have not turned it off), 8 else.
int FastWidth() {
#if KILN_HAS_VECTOR_CLONES
  if (UseVectorMathAvx512()) return 16;
#endif
  return 8;
}

FastRow PickFastRow(const Problem& p, const nn::Epilogue& e) {
  const WindowGeometry& g = p.g;
  FastRow f;
  // Horizontal dilation only with horizontal stride 1 (DwTile's columns d apart).
  if (p.features != p.channels || g.kernel[0] != g.kernel[1] ||
      (g.dilation[1] != 1 && g.stride[1] != 1) || p.channels < 16) {
    return f;
  }
  const int width = FastWidth();
  DwAct a = DwAct::kNone;
  if (kDwClipInRegisters &&
      (e.activation == nn::Activation::kClip || e.activation == nn::Activation::kRelu)) {
    a = DwAct::kClip;
    const bool relu = e.activation == nn::Activation::kRelu;
    f.lo = relu ? 0.0f : e.alpha;
    f.hi = relu ? std::numeric_limits<float>::infinity() : e.beta;
  } else {
    f.activation_after = e.activation != nn::Activation::kNone;
  }
  f.fn = DepthwiseFastRow(g.kernel[0], g.stride[1], a, width);
  if (f.fn == nullptr) return f;
  f.end = p.channels / 8 * 8;
  f.end16 = width == 16 ? p.channels / 16 * 16 : f.end;
  if (f.end16 < f.end) {
    f.tail = DepthwiseFastRow(g.kernel[0], g.stride[1], a, 8);
    if (f.tail == nullptr) f.end = f.end16;
  }
  return f;
}

// One output row (image n, row oy) of a depthwise convolution, before the epilogue: w is
// [kH·kW, M] and output channel m reads input channel m / (M / C). With multiplier 1, channels
// [c_begin, c_end) only; otherwise all of them. The path for what the fast one does not cover.
KILN_VECTOR_CLONES void DepthwiseRow(const Problem& p, const float* x_image, const float* w,
                                     int64_t oy, size_t c_begin, size_t c_end, float* y_row) {
  const WindowGeometry& g = p.g;
  const size_t c_in = p.channels;
  const size_t m_out = p.features;
  const size_t mult = m_out / c_in;
  const TapRange ry = Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]);
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  const int64_t sx = g.stride[1];
  const TapRange inner = InnerColumns(p);
  if (mult == 1) {
    // Blocks of 8 columns (their input stays in L1 for a few hundred channels), and in each
    // chunks of 64 channels, then 16, 8, 1 (a chunk's weights stay in L1 for any C).
    for (int64_t b = 0; b < p.out_w; b += 8) {
      const int64_t e = std::min(p.out_w, b + 8);
      size_t c0 = c_begin;
      for (; c0 + 64 <= c_end; c0 += 64)
        RowChunk<64>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 16 <= c_end; c0 += 16)
        RowChunk<16>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 8 <= c_end; c0 += 8) RowChunk<8>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 < c_end; ++c0) RowChunk<1>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
    }
    return;
  }
  for (int64_t ox = 0; ox < p.out_w; ++ox) {
    float* acc = y_row + static_cast<size_t>(ox) * m_out;
    const TapRange rx = ColumnTaps(p, inner, ox);
    const int64_t ix0 = ox * sx - g.pad_begin[1];
    std::fill(acc, acc + m_out, 0.0f);
    for (int64_t ky = ry.lo; ky < ry.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      for (int64_t kx = rx.lo; kx < rx.hi; ++kx) {
        const int64_t ix = ix0 + kx * g.dilation[1];
        const float* xp = x_image + static_cast<size_t>(iy * p.in_w + ix) * c_in;
        const float* wp = w + static_cast<size_t>(ky * g.kernel[1] + kx) * m_out;
        for (size_t c = 0; c < c_in; ++c) {
          for (size_t j = 0; j < mult; ++j) acc[c * mult + j] += wp[c * mult + j] * xp[c];
        }
      }
    }
  }
}

}  // namespace

DwRowFn DepthwiseFastRow(int64_t kernel, int64_t stride, DwAct a, int width) {
  switch (kernel) {
    case 3:
      return DepthwiseFastRow3(stride, a, width);
    case 5:
      return DepthwiseFastRow5(stride, a, width);
    case 7:
      return DepthwiseFastRow7(stride, a, width);
    default:
      return nullptr;
  }
}

void RunDepthwise(const Problem& p, const Operands& o, const nn::Epilogue& e, ThreadPool& pool) {
  const WindowGeometry& g = p.g;
  const size_t rows = p.batch * static_cast<size_t>(p.out_h);
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const FastRow fast = PickFastRow(p, e);
  // The fast path takes whole chunks of 16 channels and a last chunk of 8; the rest (C mod 8 of
  // them) go the general way.
  const size_t fast_end = fast.fn != nullptr ? fast.end : 0;
  const TapRange inner = InnerColumns(p);
  // With fewer rows than about four per thread (a 7×7 or 14×14 image), the rows are also split
  // along the channels, in multiples of 16, so that the threads get even shares.
  const size_t units = (p.features + 15) / 16;
  size_t parts = 1;
  if (p.features == p.channels) {
    const size_t want = 4 * static_cast<size_t>(pool.size());
    parts = std::clamp<size_t>((want + rows - 1) / rows, 1, std::max<size_t>(1, units / 4));
  }
  // One contiguous share of rows per thread (ParallelForShares): the rows the previous layer's
  // thread wrote stay with it. A small layer runs on this thread alone.
  const size_t work = rows * row_size * g.kernel_size;
  const auto run = [&](size_t begin, size_t end) {
    for (size_t item = begin; item < end; ++item) {
      const size_t r = item / parts;
      const size_t part = item % parts;
      const size_t c_begin = std::min(p.features, part * units / parts * 16);
      const size_t c_end = std::min(p.features, (part + 1) * units / parts * 16);
      const size_t n = r / static_cast<size_t>(p.out_h);
      const auto oy = static_cast<int64_t>(r % static_cast<size_t>(p.out_h));
      const float* x_image = o.x + n * static_cast<size_t>(p.in_h * p.in_w) * p.channels;
      float* y_row = o.y + r * row_size;
      const float* z_row = o.z != nullptr ? o.z + r * row_size : nullptr;
      if (c_begin < std::min(c_end, fast_end)) {
        const DwRow dr = {x_image,
                          g.dilation[0] * p.in_w * static_cast<int64_t>(p.channels),
                          Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]),
                          oy * g.stride[0] - g.pad_begin[0],
                          z_row,
                          y_row,
                          fast.lo,
                          fast.hi};
        const size_t fast_stop = std::min(c_end, fast_end);
        const size_t wide_stop = std::min(fast_stop, fast.end16);
        if (c_begin < wide_stop) fast.fn(p, dr, o.w, o.bias, inner, c_begin, wide_stop);
        if (wide_stop < fast_stop) {
          fast.tail(p, dr, o.w, o.bias, inner, std::max(c_begin, wide_stop), fast_stop);
        }
        if (fast.activation_after) {
          // B and Z are in the sums already.
          nn::ApplyEpilogueRows(e, y_row + c_begin, static_cast<size_t>(p.out_w),
                                fast_stop - c_begin, p.features, nullptr, nullptr, p.features);
        }
      }
      const size_t rest = std::max(c_begin, fast_end);
      if (rest < c_end) {
        DepthwiseRow(p, x_image, o.w, oy, rest, c_end, y_row);
        nn::ApplyEpilogueRows(e, y_row + rest, static_cast<size_t>(p.out_w), c_end - rest,
                              p.features, o.bias != nullptr ? o.bias + rest : nullptr,
                              z_row != nullptr ? z_row + rest : nullptr, p.features);
      }
    }
  };
  if (work < 32768) {
    run(0, rows * parts);
  } else {
    pool.ParallelForShares(rows * parts, run);
  }
}

namespace {

// Floats of expanded rows a thread keeps: 384 KB, in L2 with the depthwise layer's weights and
// output rows.
constexpr size_t kExpandedFloats = size_t{96} << 10;

}  // namespace

// The depthwise convolution of the expansion of X (the fast path's conditions hold: the
// constructor checked them), band by band: each thread expands the input rows the next few output
// rows read into its scratch, keeping those the band before already expanded, and convolves them
// there. The expanded tensor ([N, H, W, M], M several times c) is never written whole: for an
// inverted-residual block at 112×112 it is 4.8 MB an image, which the separate layers write to
// L3 (or, several images at once, to memory) and read back.
void RunExpandDepthwise(const Problem& p, const Operands& o, const Expansion& x,
                        const nn::Epilogue& e, KernelContext& ctx) {
  const WindowGeometry& g = p.g;
  const FastRow fast = PickFastRow(p, e);
  if (fast.fn == nullptr || p.channels % 16 != 0) {
    ctx.info().Fail(ErrorCode::kEngineError,
                    "the expanded depthwise path has no fast row function");
  }
  const TapRange inner = InnerColumns(p);
  const size_t row_floats = static_cast<size_t>(p.in_w) * p.features;  // one expanded row
  const int64_t sy = g.stride[0];
  const int64_t span = (g.kernel[0] - 1) * g.dilation[0] + 1;  // input rows an output row reads
  const int64_t cap = std::max<int64_t>(span, static_cast<int64_t>(kExpandedFloats / row_floats));
  const int64_t band = (cap - span) / sy + 1;  // output rows per band
  const auto cap_rows = static_cast<size_t>((band - 1) * sy + span);
  const auto out_h = static_cast<size_t>(p.out_h);
  const size_t rows = p.batch * out_h;
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const size_t in_plane = static_cast<size_t>(p.in_h * p.in_w);
  const auto run = [&](size_t begin, size_t end) {
    float* buf = ctx.Scratch<float>(cap_rows * row_floats);
    size_t image = p.batch;  // buf holds expanded rows [lo, hi) of this image (none yet)
    int64_t lo = 0;
    int64_t hi = 0;
    for (size_t r = begin; r < end;) {
      const size_t n = r / out_h;
      const auto o0 = static_cast<int64_t>(r % out_h);
      const int64_t o1 = std::min({o0 + band, p.out_h, o0 + static_cast<int64_t>(end - r)});
      const int64_t need_lo = std::clamp<int64_t>(o0 * sy - g.pad_begin[0], 0, p.in_h);
      const int64_t need_hi =
          std::clamp<int64_t>((o1 - 1) * sy - g.pad_begin[0] + span, need_lo, p.in_h);
      if (image == n && need_lo >= lo && need_lo <= hi) {
        // The rows this band shares with the last one move to the front.
        if (need_lo > lo) {
          std::memmove(buf, buf + static_cast<size_t>(need_lo - lo) * row_floats,
                       static_cast<size_t>(hi - need_lo) * row_floats * sizeof(float));
        }
        lo = need_lo;
      } else {
        image = n;
        lo = hi = need_lo;
      }
      if (static_cast<size_t>(need_hi - lo) > cap_rows) {
        ctx.info().Fail(ErrorCode::kEngineError,
                        "an expanded band needs " + std::to_string(need_hi - lo) +
                            " rows; the scratch holds " + std::to_string(cap_rows));
      }
      if (need_hi > hi) {
        const size_t m = static_cast<size_t>(need_hi - hi) * static_cast<size_t>(p.in_w);
        float* dst = buf + static_cast<size_t>(hi - lo) * row_floats;
        const float* src = o.x + (n * in_plane + static_cast<size_t>(hi * p.in_w)) * x.channels;
        // The expansion's bias and activation applied by the product where it can.
        GemmEpilogue ge;
        if (nn::InProduct(*x.e, x.bias, nullptr, 0, &ge)) {
          PackedGemm(m, src, x.channels, *x.w, 0, p.features, dst, p.features, false, &ge);
        } else {
          PackedGemm(m, src, x.channels, *x.w, 0, p.features, dst, p.features, false);
          nn::ApplyEpilogueRows(*x.e, dst, m, p.features, p.features, x.bias, nullptr, p.features);
        }
        hi = need_hi;
      }
      for (int64_t oy = o0; oy < o1; ++oy, ++r) {
        float* y_row = o.y + r * row_size;
        const DwRow dr = {buf,
                          g.dilation[0] * p.in_w * static_cast<int64_t>(p.channels),
                          Taps(oy, sy, g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]),
                          oy * sy - g.pad_begin[0] - lo,  // rows of buf, not of the image
                          o.z != nullptr ? o.z + r * row_size : nullptr,
                          y_row,
                          fast.lo,
                          fast.hi};
        fast.fn(p, dr, o.w, o.bias, inner, 0, p.features);
        if (fast.activation_after) {
          nn::ApplyEpilogueRows(e, y_row, static_cast<size_t>(p.out_w), p.features, p.features,
                                nullptr, nullptr, p.features);
        }
      }
    }
  };
  const size_t work = rows * row_size * (g.kernel_size + x.channels);
  if (work < 32768) {
    run(0, rows);
  } else {
    ctx.threads().ParallelForShares(rows, run);
  }
}

}  // namespace kiln::cpu::nhwc
