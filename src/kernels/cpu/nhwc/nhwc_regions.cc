// NhwcConv's regional-taps path (see nhwc_conv_parts.h): a layer whose taps read only padding
// over bands of its output runs region by region, each region's product over its live taps only.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"

namespace kiln::cpu::nhwc {
namespace {

using nn::WindowGeometry;

// The bands of one axis (at most kMaxBands; false when there are more), and the sum over its
// output coordinates of their live taps.
bool AxisBands(int64_t out, int64_t s, int64_t d, int64_t pad, int64_t in, int64_t k,
               std::array<Band, kMaxBands>& bands, size_t& count, int64_t& live) {
  count = 0;
  live = 0;
  for (int64_t o = 0; o < out; ++o) {
    const TapRange t = Taps(o, s, d, pad, in, k);
    live += t.hi - t.lo;
    if (count > 0 && bands[count - 1].taps.lo == t.lo && bands[count - 1].taps.hi == t.hi) {
      bands[count - 1].end = o + 1;
      continue;
    }
    if (count == kMaxBands) return false;
    bands[count++] = {o, o + 1, t};
  }
  return true;
}

// The im2col rows of `count` output pixels of output row oy from column ox on (image at `image`),
// live taps only: kernel rows ty.lo .. ty.hi − 1 by columns tx.lo .. tx.hi − 1, tap t's C values
// at col[t·C] as Im2ColBlock lays them out. The other taps' columns are not written: the product
// does not read them.
void Im2ColLive(const Problem& p, const float* image, int64_t oy, int64_t ox, size_t count,
                TapRange ty, TapRange tx, float* col, size_t ldcol) {
  const WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  for (size_t i = 0; i < count; ++i, ++ox) {
    float* dst = col + i * ldcol;
    const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
    for (int64_t ky = ty.lo; ky < ty.hi; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      // The pixel index of the row's first column, which may lie in the padding (negative): only
      // the live taps' pixels, inside the image, become pointers.
      const int64_t row = iy * p.in_w + ix0;
      for (int64_t kx = tx.lo; kx < tx.hi; ++kx) {
        std::memcpy(dst + static_cast<size_t>(ky * g.kernel[1] + kx) * c,
                    image + static_cast<size_t>(row + kx * g.dilation[1]) * c, c * sizeof(float));
      }
    }
  }
}

}  // namespace

bool SplitIntoRegions(const Problem& p, Regions& r) {
  const WindowGeometry& g = p.g;
  if (p.groups != 1 || g.IsPointwise()) return false;
  int64_t live_rows = 0;
  int64_t live_cols = 0;
  if (!AxisBands(p.out_h, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0], r.rows,
                 r.row_count, live_rows) ||
      !AxisBands(p.out_w, g.stride[1], g.dilation[1], g.pad_begin[1], p.in_w, g.kernel[1], r.cols,
                 r.col_count, live_cols)) {
    return false;
  }
  // live / all taps of every pixel ≤ 3/4, and out_h·out_w / regions ≥ 32.
  const double live = static_cast<double>(live_rows) * static_cast<double>(live_cols);
  const double all =
      static_cast<double>(p.out_h * g.kernel[0]) * static_cast<double>(p.out_w * g.kernel[1]);
  return 4 * live <= 3 * all &&
         static_cast<size_t>(p.out_h * p.out_w) >= 32 * r.row_count * r.col_count;
}

void RunRegions(const Problem& p, const Operands& o, const Regions& r, const nn::Epilogue& e,
                KernelContext& ctx) {
  const WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const size_t m = p.features;
  const size_t k = g.kernel_size * c;
  const size_t ldcol = ColStride(k);
  const PackedMatrix& w = (*o.gw)[0];
  const size_t regions = r.row_count * r.col_count;
  // Blocks of at most `block` pixels of one region of one image, each a run of whole or partial
  // rows of the region; block b of region q of image n is item (n·regions + q)·per + b, where
  // per is the most blocks a region has (items past a smaller region's last block are empty).
  const size_t block = std::clamp<size_t>(kBlockFloats / (k + m), kReuseBlockPixels, 1024);
  size_t per = 1;
  for (size_t q = 0; q < regions; ++q) {
    const Band& by = r.rows[q / r.col_count];
    const Band& bx = r.cols[q % r.col_count];
    const auto pixels = static_cast<size_t>((by.end - by.start) * (bx.end - bx.start));
    per = std::max(per, (pixels + block - 1) / block);
  }
  const size_t items = p.batch * regions * per;
  const size_t image_floats = static_cast<size_t>(p.in_h * p.in_w) * c;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  // Regions differ in cost (pixels × live taps): each thread takes the next item until none is
  // left, with its scratch taken once.
  const auto threads = static_cast<size_t>(ctx.threads().size());
  std::atomic<size_t> next{0};
  ctx.threads().ParallelFor(std::min(threads, items), 1, [&](size_t, size_t) {
    float* col = ctx.Scratch<float>(block * ldcol);
    float* out = ctx.Scratch<float>(block * m);
    for (size_t item = next++; item < items; item = next++) {
      const size_t n = item / (regions * per);
      const size_t q = item / per % regions;
      const Band& by = r.rows[q / r.col_count];
      const Band& bx = r.cols[q % r.col_count];
      const auto width = static_cast<size_t>(bx.end - bx.start);
      const size_t pixels = static_cast<size_t>(by.end - by.start) * width;
      const size_t begin = item % per * block;
      if (begin >= pixels) continue;
      const size_t rows = std::min(block, pixels - begin);
      const float* image = o.x + n * image_floats;
      // Unfold the block's live taps, a row segment of the region at a time.
      for (size_t i = begin; i < begin + rows;) {
        const size_t len = std::min(width - i % width, begin + rows - i);
        Im2ColLive(p, image, by.start + static_cast<int64_t>(i / width),
                   bx.start + static_cast<int64_t>(i % width), len, by.taps, bx.taps,
                   col + (i - begin) * ldcol, ldcol);
        i += len;
      }
      // The product over the live taps: per live kernel row, its live columns are one run of
      // the depth (all the rows' runs one run when every column is live).
      const auto kw = static_cast<size_t>(g.kernel[1]);
      const auto tx0 = static_cast<size_t>(bx.taps.lo);
      const auto tx1 = static_cast<size_t>(bx.taps.hi);
      bool first_run = true;
      for (auto ky = static_cast<size_t>(by.taps.lo); ky < static_cast<size_t>(by.taps.hi);) {
        size_t t0 = ky * kw + tx0;
        size_t t1 = ky * kw + tx1;
        ++ky;
        if (tx0 == 0 && tx1 == kw) {  // whole kernel rows: all of them in one run
          t1 = static_cast<size_t>(by.taps.hi) * kw;
          ky = static_cast<size_t>(by.taps.hi);
        }
        if (t1 == t0) continue;
        PackedGemm(rows, col + t0 * c, ldcol, w.DepthSlice(t0 * c, (t1 - t0) * c), 0, m, out, m,
                   !first_run);
        first_run = false;
      }
      if (first_run) std::fill(out, out + rows * m, 0.0f);  // no tap reaches the image
      // Back to Y, a row segment at a time, with the epilogue.
      for (size_t i = begin; i < begin + rows;) {
        const size_t len = std::min(width - i % width, begin + rows - i);
        const size_t pix = n * plane +
                           static_cast<size_t>(by.start + static_cast<int64_t>(i / width)) *
                               static_cast<size_t>(p.out_w) +
                           static_cast<size_t>(bx.start) + i % width;
        float* y = o.y + pix * m;
        std::memcpy(y, out + (i - begin) * m, len * m * sizeof(float));
        nn::ApplyEpilogueRows(e, y, len, m, m, o.bias, o.z != nullptr ? o.z + pix * m : nullptr, m);
        i += len;
      }
    }
  });
}

}  // namespace kiln::cpu::nhwc
