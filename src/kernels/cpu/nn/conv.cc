// Conv (opsets 1–23: versions 1, 11 and 22, which differ only in documentation and, from 22, the
// bfloat16 type): 1-D, 2-D, 3-D (any spatial rank), group, dilations, strides, pads, auto_pad,
// optional bias, kernel_shape inferred from W. float in strips of output positions unfolded into
// PackedGemm's panels (StripConv), double through a whole-image im2col + cpu::Gemm, with a direct
// path for depthwise convolution; float16 and bfloat16 through float.
// FusedConv (com.microsoft, opset 1; ONNX Runtime's op): the same for float, plus input Z (3) and
// an activation (conv_epilogue.h), folded into the pass that adds the bias.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nn::WindowGeometry;

// The sizes of one Conv call.
struct ConvProblem {
  size_t batch = 0;
  size_t channels = 0;  // C
  size_t features = 0;  // M
  size_t groups = 1;
  size_t group_channels = 0;  // C / group
  size_t group_features = 0;  // M / group
  WindowGeometry window;
};

// Direct convolution where each group has one input channel: output feature m reads input channel
// m / (M / C).
// One output plane of a depthwise convolution: dst = bias + Σ_tap w[tap] · (image under the tap).
// The whole plane is one vector-cloned function, so short rows pay no per-row dispatch.
template <typename T>
KILN_VECTOR_CLONES void DepthwisePlane(const WindowGeometry& g, const T* src, const T* w, T bias,
                                       T* dst) {
  const int64_t s = g.stride.back();
  std::fill(dst, dst + g.out_size, bias);
  if (g.rank() == 2) {
    nn::ForEachTapRow2D(
        g, [&](size_t out_offset, size_t tap, int64_t in_base, int64_t lo, int64_t hi) {
          T* row = dst + out_offset;
          const T* in = src + in_base;
          const T wv = w[tap];
          for (int64_t o = lo; o < hi; ++o) row[o] += wv * in[o * s];
        });
    return;
  }
  for (size_t tap = 0; tap < g.kernel_size; ++tap) {
    const T wv = w[tap];
    nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
      T* row = dst + out_offset;
      const T* in = src + in_base;
      for (int64_t o = lo; o < hi; ++o) row[o] += wv * in[o * s];
    });
  }
}

template <typename T>
void DepthwiseConv(const ConvProblem& p, const T* x, const T* w, const T* b, T* y,
                   ThreadPool& pool) {
  const WindowGeometry& g = p.window;
  const size_t planes = p.batch * p.features;
  const size_t grain = std::max<size_t>(1, 4096 / std::max<size_t>(1, g.out_size * g.kernel_size));
  pool.ParallelFor(planes, grain, [&](size_t begin, size_t end) {
    for (size_t plane = begin; plane < end; ++plane) {
      const size_t n = plane / p.features;
      const size_t m = plane % p.features;
      DepthwisePlane(g, x + (n * p.channels + m / p.group_features) * g.in_size,
                     w + m * g.kernel_size, b != nullptr ? b[m] : T(0), y + plane * g.out_size);
    }
  });
}

// The im2col matrix's element count for one group, or 0 when im2col is the identity.
size_t ColumnSize(const KernelInfo& info, const ConvProblem& p) {
  const WindowGeometry& g = p.window;
  if (g.out_size == 0 || p.batch == 0 || p.features == 0) return 0;
  if ((p.groups > 1 && p.group_channels == 1) || g.IsPointwise()) return 0;
  size_t col_size;
  if (__builtin_mul_overflow(p.group_channels * g.kernel_size, g.out_size, &col_size)) {
    info.Fail(ErrorCode::kInvalidArgument, "the im2col buffer size overflows size_t");
  }
  return col_size;
}

// FusedConv's epilogue for one call: `z` (shaped like Y) may be nullptr.
struct Fused {
  const nn::Epilogue* epilogue = nullptr;
  const float* z = nullptr;
};

// Y = act(Y + B + Z) plane by plane (FusedConv); `b` may be nullptr.
void ApplyFused(const ConvProblem& p, const Fused& f, const float* b, float* y, ThreadPool& pool) {
  const size_t plane_size = p.window.out_size;
  pool.ParallelFor(p.batch * p.features, 16, [&](size_t begin, size_t end) {
    for (size_t plane = begin; plane < end; ++plane) {
      nn::ApplyEpiloguePlane(*f.epilogue, y + plane * plane_size, plane_size,
                             b != nullptr ? b[plane % p.features] : 0.0f,
                             f.z != nullptr ? f.z + plane * plane_size : nullptr);
    }
  });
}

// ---- float: strips of output positions ----
//
// A float convolution that is not depthwise runs strip by strip: a strip is `width` consecutive
// output positions (row-major over the output grid) of one image and one group; its im2col
// columns are written straight into PackedGemm's panel layout in a per-thread buffer (2 MB, in
// the core's caches rather than memory), multiplied by the group's weights into Y, and given the
// bias or FusedConv's epilogue while Y's block is still in cache. The whole-image im2col
// (C·kernel·positions floats: 347 MB for a 64-channel 3×3×3 layer on 16×56×56) is never written,
// nor packed a second time. Strips are shared out among the threads; each strip's arithmetic is
// that of the whole product (the same depth order), so the result does not depend on the strip
// width or the thread count.

// Floats of one strip's panels (depth × width), 2 MB: on 3-D ResNet layers (64-256 channels,
// 3×3×3) strips of 0.4-6 MB ran 10-20% faster than strips of 64-384 KB, which re-read the
// weights once per strip more often (bench/RESULTS.md).
constexpr size_t kStripFloats = size_t{512} * 1024;
// The widest strip, in output positions.
constexpr size_t kMaxStripWidth = 1024;

// Output positions per strip for im2col depth `depth`: whole panels, at least one.
size_t StripWidth(size_t depth) {
  const size_t width = kStripFloats / std::max<size_t>(depth, 1) / kPackedPanel * kPackedPanel;
  return std::clamp(width, kPackedPanel, kMaxStripWidth);
}

// The width of the parts that `total` positions are cut into (whole panels, at most `widest`,
// as equal as whole panels allow) so that `other` times their count, the work items, is a
// multiple of `threads`: the last round of items then keeps every thread busy (R(2+1)D's
// (1, 3, 3) layers on 4×28×28 were 7 strips, 4 against 3 on two threads). The arithmetic of an
// output does not depend on the width.
size_t BalancedWidth(size_t total, size_t widest, size_t other, size_t threads) {
  size_t parts = (total + widest - 1) / widest;
  if (threads > 1) {
    const size_t items = (parts * other + threads - 1) / threads * threads;
    parts = (items + other - 1) / other;
  }
  const size_t width = ((total + parts - 1) / parts + kPackedPanel - 1) / kPackedPanel;
  return std::max<size_t>(width, 1) * kPackedPanel;
}

// table[i · kernel_size + tap] = the image offset of the row that tap reads for output row
// row0 + i (a row: positions differing only along the last axis), or -1 when that row lies in
// the padding, for `rows` output rows.
void FillRowTable(const WindowGeometry& g, size_t row0, size_t rows, int64_t* table) {
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  SmallVector<int64_t> o(rank, 0);
  size_t r = row0;
  for (size_t d = last; d-- > 0;) {
    o[d] = static_cast<int64_t>(r % static_cast<size_t>(g.out[d]));
    r /= static_cast<size_t>(g.out[d]);
  }
  SmallVector<int64_t> k(rank, 0);
  for (size_t i = 0; i < rows; ++i) {
    std::fill(k.begin(), k.end(), 0);
    for (size_t tap = 0; tap < g.kernel_size; ++tap) {
      int64_t in_row = 0;
      for (size_t d = 0; d < last; ++d) {
        const int64_t x = o[d] * g.stride[d] + k[d] * g.dilation[d] - g.pad_begin[d];
        if (x < 0 || x >= g.in[d]) {
          in_row = -1;
          break;
        }
        in_row += x * static_cast<int64_t>(g.in_strides[d]);
      }
      table[i * g.kernel_size + tap] = in_row;
      for (size_t d = rank; d-- > 0;) {
        if (++k[d] < g.kernel[d]) break;
        k[d] = 0;
      }
    }
    for (size_t d = last; d-- > 0;) {
      if (++o[d] < g.out[d]) break;
      o[d] = 0;
    }
  }
}

// Writes the im2col columns [q0, q1) of `channels` image planes (channel_stride apart; depth row
// c · kernel_size + tap, as nn::Im2Col orders them) into `panels` in PackedGemm's layout: column
// q - q0 of depth row r at panels[(q - q0) / 32 · panel_stride + r · 32 + (q - q0) % 32], and
// zeros past q1 in the last panel. panel_stride is depth · 32 for panels of this depth alone, more
// where they are rows of deeper ones. `spans` holds nn::LastAxisSpan of every tap's last-axis
// column, `table` FillRowTable of the strip's rows.
KILN_VECTOR_CLONES void Im2ColPanels(const float* image, size_t channels, size_t channel_stride,
                                     const WindowGeometry& g, const nn::RowSpan* spans,
                                     const int64_t* table, size_t q0, size_t q1,
                                     size_t panel_stride, float* panels) {
  constexpr size_t kW = kPackedPanel;
  const size_t ks = g.kernel_size;
  const size_t depth = channels * ks;
  const auto out_last = static_cast<size_t>(g.out.back());
  const int64_t s = g.stride.back();
  const size_t row0 = q0 / out_last;
  for (size_t c = 0; c < channels; ++c) {
    const float* src = image + c * channel_stride;
    for (size_t tap = 0; tap < ks; ++tap) {
      const size_t r = c * ks + tap;
      const nn::RowSpan& sp = spans[tap];
      for (size_t row = row0; row * out_last < q1; ++row) {
        const size_t rs = row * out_last;
        const size_t a = std::max(q0, rs) - rs;
        const size_t b = std::min(q1, rs + out_last) - rs;
        const int64_t in_row = table[(row - row0) * ks + tap];
        size_t lo = b, hi = b;
        if (in_row >= 0) {
          lo = std::clamp(static_cast<size_t>(sp.lo), a, b);
          hi = std::clamp(static_cast<size_t>(sp.hi), lo, b);
        }
        const int64_t base = in_row + sp.first;
        // Positions [a, b) of this row, a panel's run of 32 lanes at a time.
        for (size_t o = a; o < b;) {
          const size_t t = rs + o - q0;
          const size_t lane = t % kW;
          const size_t end = std::min(b, o + (kW - lane));
          float* d = panels + (t / kW) * panel_stride + r * kW + lane;
          const size_t z0 = std::min(std::max(lo, o), end);
          const size_t z1 = std::min(std::max(hi, z0), end);
          for (size_t i = o; i < z0; ++i) d[i - o] = 0.0f;
          if (s == 1 && z1 > z0) {
            const float* in = src + base + static_cast<int64_t>(z0);
            for (size_t i = z0; i < z1; ++i) d[i - o] = in[i - z0];
          } else if (s == 2 && z1 > z0) {
            // A constant stride, which the compiler gathers with vector permutes.
            const float* in = src + base + static_cast<int64_t>(z0) * 2;
            float* out = d + (z0 - o);
            for (size_t i = 0; i < z1 - z0; ++i) out[i] = in[2 * i];
          } else {
            for (size_t i = z0; i < z1; ++i) d[i - o] = src[base + static_cast<int64_t>(i) * s];
          }
          for (size_t i = z1; i < end; ++i) d[i - o] = 0.0f;
          o = end;
        }
      }
    }
  }
  // The last panel's lanes past q1 are multiplied but never stored: zeros keep whatever the
  // buffer held before (denormals, NaN) out of the arithmetic.
  const size_t tail = (q1 - q0) % kW;
  if (tail != 0) {
    float* last_panel = panels + (q1 - q0) / kW * panel_stride;
    for (size_t r = 0; r < depth; ++r)
      std::fill(last_panel + r * kW + tail, last_panel + (r + 1) * kW, 0.0f);
  }
}

// Whether the strip path runs this float convolution: every one that is not depthwise, unless
// there are too few strips to keep the pool's threads busy (a small output grid; the whole
// product is then split by rows as well).
bool UseStrips(const ConvProblem& p, size_t threads) {
  const size_t width = StripWidth(p.group_channels * p.window.kernel_size);
  const size_t strips = p.batch * p.groups * ((p.window.out_size + width - 1) / width);
  return threads == 1 || strips >= 2 * threads;
}

// Bias and FusedConv's epilogue on a block of a group's output while it is in cache: `cols`
// positions of each of the group's channels from `block` (channel m0's row; the rows out_size
// apart), Z read at the same offsets from Y (`y`) as the block.
void FinishBlock(const ConvProblem& p, const Fused& fused, const float* b, size_t m0,
                 const float* y, float* block, size_t cols) {
  for (size_t m = 0; m < p.group_features; ++m) {
    float* row = block + m * p.window.out_size;
    const float bias = b != nullptr ? b[m0 + m] : 0.0f;
    if (fused.epilogue != nullptr) {
      const float* z = fused.z != nullptr ? fused.z + (row - y) : nullptr;
      nn::ApplyEpiloguePlane(*fused.epilogue, row, cols, bias, z);
    } else if (b != nullptr) {
      for (size_t i = 0; i < cols; ++i) row[i] += bias;
    }
  }
}

void StripConv(const ConvProblem& p, const float* x, const float* w, const float* b, float* y,
               KernelContext& ctx, const Fused& fused) {
  const WindowGeometry& g = p.window;
  const size_t ks = g.kernel_size;
  const size_t depth = p.group_channels * ks;
  ThreadPool& pool = ctx.threads();
  const auto threads = static_cast<size_t>(pool.size());
  const size_t width = BalancedWidth(g.out_size, StripWidth(depth), p.batch * p.groups, threads);
  const size_t per_group = (g.out_size + width - 1) / width;
  const size_t items = p.batch * p.groups * per_group;
  const auto out_last = static_cast<size_t>(g.out.back());
  // A strip meets at most this many output rows.
  const size_t max_rows = (width + out_last - 1) / out_last + 1;
  auto* spans = ctx.Scratch<nn::RowSpan>(ks);
  const auto kernel_last = static_cast<size_t>(g.kernel.back());
  for (size_t tap = 0; tap < ks; ++tap) {
    spans[tap] = nn::LastAxisSpan(g, static_cast<int64_t>(tap % kernel_last));
  }
  std::atomic<size_t> next{0};
  pool.ParallelFor(std::min(threads, items), 1, [&](size_t, size_t) {
    float* panels = ctx.Scratch<float>(PackedMatrix::PanelFloats(depth, width));
    auto* table = ctx.Scratch<int64_t>(max_rows * ks);
    for (size_t item = next++; item < items; item = next++) {
      const size_t n = item / (p.groups * per_group);
      const size_t grp = item / per_group % p.groups;
      const size_t q0 = item % per_group * width;
      const size_t q1 = std::min(g.out_size, q0 + width);
      const float* xg = x + (n * p.channels + grp * p.group_channels) * g.in_size;
      const size_t m0 = grp * p.group_features;
      float* yg = y + (n * p.features + m0) * g.out_size;
      const size_t row0 = q0 / out_last;
      FillRowTable(g, row0, (q1 - 1) / out_last - row0 + 1, table);
      Im2ColPanels(xg, p.group_channels, g.in_size, g, spans, table, q0, q1, depth * kPackedPanel,
                   panels);
      const PackedMatrix bm = PackedMatrix::View(panels, depth, q1 - q0);
      PackedGemm(p.group_features, w + m0 * depth, depth, bm, 0, q1 - q0, yg + q0, g.out_size,
                 false);
      FinishBlock(p, fused, b, m0, y, yg + q0, q1 - q0);
    }
  });
}

// ---- float: frames unfolded once ----
//
// A convolution over frames (the first spatial axis: time in a video network) with a kernel of kt
// ≥ 2 frames reads every input frame kt times, once for each output frame whose window covers it,
// through the same window over the other axes each time. The strip path unfolds each output
// position's whole window, so every frame's unfolding is written kt times over (a 3×3×3 layer's
// im2col was a quarter of R3D's time). Here each input frame's unfolding over the other axes
// (depth C/group · k₁·k₂…, for one block of output plane positions) is written once, in
// frame-major depth order (zero rows for the padding frames), and output frame t is one product
// of the reordered weights W'[m, (dt · C/group + c) · k₁k₂… + tap] = W[m, c, dt, tap] with the
// contiguous depth slice of frames [t · stride, t · stride + kt). Frames are unfolded just before
// the first output frame that reads them, so the kt frames a product reads are in the core's
// caches; the block's width is chosen for that.

// Floats of one thread's unfolded frames (all the frames of one block of positions) at most.
constexpr size_t kFrameFloats = size_t{4} * 1024 * 1024;
// Floats of the kt unfolded frames that one product reads: 512 KB, half of a Zen 5 core's L2.
// Against 1 and 2 MB (one-node, 1 thread, ms): R3D's 64-channel 3×3×3 layer 26.5 / 25.6 / 28.2,
// its (3, 7, 7) stem 6.8 / 7.4 / 7.0, S3D's (7, 1, 1) 30.7 / 32.0 / 31.0, (3, 1, 1) 24.4 /
// 24.9 / 26.0.
constexpr size_t kFrameLiveFloats = size_t{128} * 1024;

// The frames path's block width (output plane positions, whole panels), or 0 where it does not
// run: 3-D or more (a 2-D layer, whose frames would be rows, takes the channels-last path at
// level 3), kernel (kt ≥ 2, …) undilated along the frames, at least two output frames, planes of
// at least two panels, and all the unfolded frames of a block within kFrameFloats; blocks
// balanced over `threads` (BalancedWidth).
size_t FrameWidth(const ConvProblem& p, size_t threads) {
  const WindowGeometry& g = p.window;
  if (g.rank() < 3 || g.kernel[0] < 2 || g.dilation[0] != 1 || g.out[0] < 2) return 0;
  const size_t plane = g.out_size / static_cast<size_t>(g.out[0]);
  if (plane < 2 * kPackedPanel) return 0;
  const auto kt = static_cast<size_t>(g.kernel[0]);
  const size_t frame_depth = p.group_channels * (g.kernel_size / kt);
  const size_t frames = static_cast<size_t>(g.out[0] - 1) * static_cast<size_t>(g.stride[0]) + kt;
  size_t width = kFrameLiveFloats / (kt * frame_depth) / kPackedPanel * kPackedPanel;
  width = std::clamp(width, kPackedPanel, kMaxStripWidth);
  width = std::min(width, kFrameFloats / (frames * frame_depth) / kPackedPanel * kPackedPanel);
  if (width == 0) return 0;
  return BalancedWidth(plane, width, p.batch * p.groups, threads);
}

void FrameConv(const ConvProblem& p, size_t width, const float* x, const float* w, const float* b,
               float* y, KernelContext& ctx, const Fused& fused) {
  const WindowGeometry& g = p.window;
  const size_t cg = p.group_channels;
  const auto kt = static_cast<size_t>(g.kernel[0]);
  const auto st = static_cast<size_t>(g.stride[0]);
  const auto pb = static_cast<size_t>(g.pad_begin[0]);
  const auto t_in = static_cast<size_t>(g.in[0]);
  const auto t_out = static_cast<size_t>(g.out[0]);
  const size_t in_plane = g.in_size / t_in;
  const size_t plane = g.out_size / t_out;
  // The window over the other axes, within one frame.
  WindowGeometry f2;
  for (size_t d = 1; d < g.rank(); ++d) {
    f2.in.push_back(g.in[d]);
    f2.out.push_back(g.out[d]);
    f2.kernel.push_back(g.kernel[d]);
    f2.stride.push_back(g.stride[d]);
    f2.dilation.push_back(g.dilation[d]);
    f2.pad_begin.push_back(g.pad_begin[d]);
    f2.pad_end.push_back(g.pad_end[d]);
  }
  f2.Finish();
  const size_t ks = f2.kernel_size;
  const bool pointwise = f2.IsPointwise();
  const size_t frame_depth = cg * ks;
  const size_t frames = (t_out - 1) * st + kt;  // the padded frames some output frame reads
  const size_t rows = frames * frame_depth;     // unfolded depth
  const size_t depth = kt * frame_depth;        // one product's depth
  const size_t panel_stride = rows * kPackedPanel;
  const size_t blocks = (plane + width - 1) / width;
  const size_t per_image = p.groups * blocks;
  ThreadPool& pool = ctx.threads();
  const auto threads = static_cast<size_t>(pool.size());
  // Runs of output frames, so that a few blocks still keep every thread busy (each run unfolds
  // only the frames it reads).
  const size_t runs =
      threads == 1
          ? 1
          : std::min(t_out, (2 * threads + p.batch * per_image - 1) / (p.batch * per_image));
  const size_t items = p.batch * per_image * runs;
  // W' = W with each filter's (c, dt, tap) order turned to (dt, c, tap).
  float* wt = ctx.Scratch<float>(p.features * depth);
  for (size_t m = 0; m < p.features; ++m) {
    for (size_t c = 0; c < cg; ++c) {
      for (size_t dt = 0; dt < kt; ++dt) {
        std::memcpy(wt + m * depth + (dt * cg + c) * ks, w + ((m * cg + c) * kt + dt) * ks,
                    ks * sizeof(float));
      }
    }
  }
  auto* spans = ctx.Scratch<nn::RowSpan>(ks);
  const auto kernel_last = static_cast<size_t>(f2.kernel.back());
  for (size_t tap = 0; tap < ks; ++tap) {
    spans[tap] = nn::LastAxisSpan(f2, static_cast<int64_t>(tap % kernel_last));
  }
  const auto out_last = static_cast<size_t>(f2.out.back());
  const size_t max_rows = (width + out_last - 1) / out_last + 1;
  std::atomic<size_t> next{0};
  pool.ParallelFor(std::min(threads, items), 1, [&](size_t, size_t) {
    float* panels = ctx.Scratch<float>(PackedMatrix::PanelFloats(rows, width));
    auto* table = ctx.Scratch<int64_t>(max_rows * ks);
    for (size_t item = next++; item < items; item = next++) {
      const size_t run = item % runs;
      const size_t block = item / runs % blocks;
      const size_t grp = item / (runs * blocks) % p.groups;
      const size_t n = item / (runs * per_image);
      const size_t t0 = run * t_out / runs;
      const size_t t1 = (run + 1) * t_out / runs;
      const size_t j0 = block * width;
      if (j0 >= plane || t0 >= t1) continue;
      const size_t j1 = std::min(plane, j0 + width);
      const float* xg = x + (n * p.channels + grp * cg) * g.in_size;
      const size_t row0 = j0 / out_last;
      FillRowTable(f2, row0, (j1 - 1) / out_last - row0 + 1, table);
      const PackedMatrix all = PackedMatrix::View(panels, rows, j1 - j0);
      const size_t m0 = grp * p.group_features;
      size_t unfolded = t0 * st;  // frames [t0 · st, unfolded) are in the buffer
      for (size_t t = t0; t < t1; ++t) {
        for (; unfolded < t * st + kt; ++unfolded) {
          float* dst = panels + unfolded * frame_depth * kPackedPanel;
          if (unfolded >= pb && unfolded - pb < t_in && pointwise) {
            // A (kt, 1, 1) kernel: the frame's block itself, 32 positions a panel row.
            const float* src = xg + (unfolded - pb) * in_plane + j0;
            for (size_t c = 0; c < cg; ++c) {
              for (size_t q = 0; q < j1 - j0; q += kPackedPanel) {
                float* d = dst + q / kPackedPanel * panel_stride + c * kPackedPanel;
                const size_t n_copy = std::min(kPackedPanel, j1 - j0 - q);
                std::memcpy(d, src + c * g.in_size + q, n_copy * sizeof(float));
                std::fill(d + n_copy, d + kPackedPanel, 0.0f);
              }
            }
          } else if (unfolded >= pb && unfolded - pb < t_in) {
            Im2ColPanels(xg + (unfolded - pb) * in_plane, cg, g.in_size, f2, spans, table, j0, j1,
                         panel_stride, dst);
          } else {
            for (size_t q = 0; q < j1 - j0; q += kPackedPanel) {
              std::fill_n(dst + q / kPackedPanel * panel_stride, frame_depth * kPackedPanel, 0.0f);
            }
          }
        }
        float* yt = y + (n * p.features + m0) * g.out_size + t * plane + j0;
        PackedGemm(p.group_features, wt + m0 * depth, depth,
                   all.DepthSlice(t * st * frame_depth, depth), 0, j1 - j0, yt, g.out_size, false);
        FinishBlock(p, fused, b, m0, y, yt, j1 - j0);
      }
    }
  });
}

// `fused` is only honoured for float (FusedConv is float only).
template <typename T>
void RunConv(const ConvProblem& p, const T* x, const T* w, const T* b, T* y, KernelContext& ctx,
             const Fused& fused = {}) {
  const WindowGeometry& g = p.window;
  ThreadPool& pool = ctx.threads();
  if (g.out_size == 0 || p.batch == 0 || p.features == 0) return;
  if (p.groups > 1 && p.group_channels == 1) {
    if constexpr (std::is_same_v<T, float>) {
      if (fused.epilogue != nullptr) {
        DepthwiseConv<T>(p, x, w, nullptr, y, pool);
        ApplyFused(p, fused, b, y, pool);
        return;
      }
    }
    DepthwiseConv(p, x, w, b, y, pool);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (const size_t width = FrameWidth(p, static_cast<size_t>(pool.size())); width != 0) {
      FrameConv(p, width, x, w, b, y, ctx, fused);
      return;
    }
    if (UseStrips(p, static_cast<size_t>(pool.size()))) {
      StripConv(p, x, w, b, y, ctx, fused);
      return;
    }
  }
  // The whole image unfolded, group by group, and one product over the pool.
  const size_t col_size = ColumnSize(ctx.info(), p);
  T* col = col_size != 0 ? ctx.Scratch<T>(col_size) : nullptr;
  const size_t k = p.group_channels * g.kernel_size;
  for (size_t n = 0; n < p.batch; ++n) {
    for (size_t grp = 0; grp < p.groups; ++grp) {
      const T* xg = x + (n * p.channels + grp * p.group_channels) * g.in_size;
      const T* wg = w + grp * p.group_features * k;
      T* yg = y + (n * p.features + grp * p.group_features) * g.out_size;
      const T* bmat = xg;
      if (col != nullptr) {
        nn::Im2Col(xg, p.group_channels, g, col, pool);
        bmat = col;
      }
      Gemm<T>(false, false, p.group_features, g.out_size, k, T(1), wg, k, bmat, g.out_size, T(0),
              yg, g.out_size, &pool);
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (fused.epilogue != nullptr) {
      ApplyFused(p, fused, b, y, pool);
      return;
    }
  }
  if (b != nullptr) {
    pool.ParallelFor(p.batch * p.features, 16, [&](size_t begin, size_t end) {
      for (size_t plane = begin; plane < end; ++plane) {
        const T bias = b[plane % p.features];
        T* dst = y + plane * g.out_size;
        for (size_t i = 0; i < g.out_size; ++i) dst[i] += bias;
      }
    });
  }
}

class Conv final : public Kernel {
 public:
  // `fused`: FusedConv (float only, inputs Z and an activation).
  Conv(const KernelInfo& info, bool fused)
      : attrs_(nn::ReadWindowAttrs(info, {.kernel_required = false})),
        group_(info.GetInt("group", 1)),
        fused_(fused) {
    if (fused_) epilogue_ = nn::ReadEpilogue(info);
    if (group_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'group' is " + std::to_string(group_) + "; it must be positive");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    const Tensor* b = ctx.OptionalInput(2);
    const Tensor* z = fused_ ? ctx.OptionalInput(3) : nullptr;
    if (fused_ && x.type() != DataType::kFloat) {
      info.Fail(ErrorCode::kNotImplemented, std::string("input 'X' has element type ") +
                                                DataTypeName(x.type()) +
                                                "; only float is supported");
    }
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    nn::RequireSameType(info, "W", w, x.type());
    if (b != nullptr) nn::RequireSameType(info, "B", *b, x.type());

    const ConvProblem p = Check(info, x.shape(), w.shape(), b);
    SmallVector<int64_t> y_dims = {x.shape().dims()[0], w.shape().dims()[0]};
    for (int64_t d : p.window.out) y_dims.push_back(d);
    if (z != nullptr) {
      nn::RequireSameType(info, "Z", *z, x.type());
      if (!std::equal(z->shape().dims().begin(), z->shape().dims().end(), y_dims.begin(),
                      y_dims.end())) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'Z' has shape " + z->shape().ToString() +
                      "; it must have the output's shape " +
                      Shape(std::vector<int64_t>(y_dims.begin(), y_dims.end())).ToString());
      }
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), y_dims.span());
    if (y.element_count() == 0) return;
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* bias = b != nullptr ? static_cast<const T*>(b->data()) : nullptr;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        Fused fused;
        if (fused_) {
          fused.epilogue = &epilogue_;
          fused.z = z != nullptr ? static_cast<const float*>(z->data()) : nullptr;
        }
        RunConv(p, static_cast<const T*>(x.data()), static_cast<const T*>(w.data()), bias,
                static_cast<T*>(y.data()), ctx, fused);
      } else {
        nn::RunThroughFloat<T>(ctx, x, w, b, y, 0,
                               [&](const float* xf, const float* wf, const float* bf, float* yf,
                                   float*) { RunConv<float>(p, xf, wf, bf, yf, ctx); });
      }
    });
  }

 private:
  ConvProblem Check(const KernelInfo& info, const Shape& x, const Shape& w, const Tensor* b) const {
    if (x.rank() < 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.ToString() +
                                                 "; it needs rank 3 or more (N, C, spatial...)");
    }
    if (w.rank() != x.rank()) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'W' has shape " + w.ToString() +
                                                 " but input 'X' has shape " + x.ToString() +
                                                 "; W needs the same rank (M, C/group, kernel...)");
    }
    const int64_t c = x.dims()[1];
    const int64_t m = w.dims()[0];
    if (c % group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has " + std::to_string(c) +
                                                 " channels, which attribute 'group' " +
                                                 std::to_string(group_) + " does not divide");
    }
    if (w.dims()[1] != c / group_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + w.ToString() + " with " + std::to_string(w.dims()[1]) +
                    " input channels per group, but input 'X' " + x.ToString() + " has " +
                    std::to_string(c) + " channels in " + std::to_string(group_) +
                    " groups (needs " + std::to_string(c / group_) + ")");
    }
    if (m % group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'W' has " + std::to_string(m) +
                                                 " output channels, which attribute 'group' " +
                                                 std::to_string(group_) + " does not divide");
    }
    const SmallVector<int64_t> kernel(std::span<const int64_t>(w.dims()).subspan(2));
    if (!attrs_.kernel_shape.empty() &&
        !std::equal(attrs_.kernel_shape.begin(), attrs_.kernel_shape.end(), kernel.begin(),
                    kernel.end())) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'kernel_shape' does not match input 'W' " + w.ToString());
    }
    for (size_t d = 0; d < kernel.size(); ++d) {
      if (kernel[d] == 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'W' has shape " + w.ToString() + "; kernel sizes must be positive");
      }
    }
    if (b != nullptr && (b->shape().rank() != 1 || b->shape().dims()[0] != m)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b->shape().ToString() +
                                                 "; expected [" + std::to_string(m) +
                                                 "] (one bias per output channel of W)");
    }
    ConvProblem p;
    p.window = nn::ResolveWindow(info, attrs_, x, kernel.span(), false);
    p.batch = static_cast<size_t>(x.dims()[0]);
    p.channels = static_cast<size_t>(c);
    p.features = static_cast<size_t>(m);
    p.groups = static_cast<size_t>(group_);
    p.group_channels = p.channels / p.groups;
    p.group_features = p.features / p.groups;
    return p;
  }

  nn::WindowAttrs attrs_;
  int64_t group_;
  bool fused_;
  nn::Epilogue epilogue_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConv(const KernelInfo& info) {
  return std::make_unique<Conv>(info, false);
}

std::unique_ptr<Kernel> MakeFusedConv(const KernelInfo& info) {
  return std::make_unique<Conv>(info, true);
}

}  // namespace kiln::cpu
