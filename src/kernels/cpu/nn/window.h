// Sliding-window geometry shared by Conv, ConvTranspose and the pooling ops: the attributes
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode) read and checked once per node, the
// output size resolved for one input shape, and the walk over one kernel tap's input positions
// that im2col, col2im, depthwise convolution and pooling are built on.
//
//   nn::WindowAttrs attrs = nn::ReadWindowAttrs(info, {.kernel_required = true});
//   nn::WindowGeometry g = nn::ResolveWindow(info, attrs, x.shape(), attrs.kernel_shape, false);
//   nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
//     for (int64_t o = lo; o < hi; ++o) y[out_offset + o] += x[in_base + o * g.stride.back()];
//   });
#ifndef KILN_KERNELS_CPU_NN_WINDOW_H_
#define KILN_KERNELS_CPU_NN_WINDOW_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/shape.h"
#include "core/thread_pool.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nn {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The window attributes as the node gives them; empty vectors for absent ones.
struct WindowAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

// Which attributes the op (at this opset) has; the others are not read.
struct WindowOptions {
  bool kernel_required = false;
  bool dilations = true;
  bool ceil_mode = false;
};

// Reads the window attributes and checks what can be checked without the input: kernel sizes,
// strides and dilations positive, pads non-negative, lengths consistent, auto_pad a known value
// and not combined with non-zero pads. Throws kInvalidArgument naming the attribute
// (kInvalidGraph when a required kernel_shape is absent).
WindowAttrs ReadWindowAttrs(const KernelInfo& info, const WindowOptions& options);

// A window resolved for one input: `in` is the image the kernel slides over, `out` the grid of
// window positions. Position o along axis d covers image coordinates
// o * stride[d] - pad_begin[d] + k * dilation[d] for k in [0, kernel[d]). The per-axis values are
// kept inline (no heap up to 8 spatial axes), so resolving a window on every run costs nothing.
struct WindowGeometry {
  SmallVector<int64_t> in;
  SmallVector<int64_t> out;
  SmallVector<int64_t> kernel;
  SmallVector<int64_t> stride;
  SmallVector<int64_t> dilation;
  SmallVector<int64_t> pad_begin;
  SmallVector<int64_t> pad_end;
  size_t in_size = 1;
  size_t out_size = 1;
  size_t kernel_size = 1;
  SmallVector<size_t> in_strides;  // row-major strides of `in`

  size_t rank() const noexcept { return in.size(); }
  // Fills the sizes and strides from the vectors above.
  void Finish();
  // Whether every window is a single element at the same coordinate (1x1 kernel, stride 1, no
  // padding): then im2col is the identity.
  bool IsPointwise() const noexcept;
};

// Resolves the attributes for input shape `x` ([N, C, spatial...]) and kernel `kernel` (one size
// per spatial axis). With extent = (k - 1) * d + 1, explicit pads (none for VALID) give
// floor((in + pads - extent) / s) + 1, or the ceil of it when `ceil_mode` is honoured, in which
// case a last window that would start in the end padding is dropped. SAME_UPPER and SAME_LOWER
// give ceil(in / s) with the padding split evenly (the odd one at the end for SAME_UPPER, at the
// beginning for SAME_LOWER). VALID with ceil_mode follows ONNX shape inference, the ONNX reference
// implementation and ONNX Runtime, not the pooling documentation's ceil((in - extent + 1) / s),
// which would ignore ceil_mode. Throws kInvalidArgument naming input 'X' or the attribute when the
// ranks disagree or the kernel does not fit the padded input.
WindowGeometry ResolveWindow(const KernelInfo& info, const WindowAttrs& attrs, const Shape& x,
                             std::span<const int64_t> kernel, bool honour_ceil_mode);
// The same for dimensions [N, C, spatial...] kept on the stack (channels-last kernels pass their
// input's dimensions reordered), so no Shape is built on the way.
WindowGeometry ResolveWindow(const KernelInfo& info, const WindowAttrs& attrs,
                             std::span<const int64_t> x_dims, std::span<const int64_t> kernel,
                             bool honour_ceil_mode);

// a / b rounded up, for b > 0 and any a.
inline int64_t CeilDiv(int64_t a, int64_t b) noexcept {
  return a >= 0 ? a / b + (a % b != 0 ? 1 : 0) : -((-a) / b);
}

// a + b and a * b for sizes, throwing kInvalidArgument naming `what` on overflow.
int64_t CheckedAdd(const KernelInfo& info, int64_t a, int64_t b, const char* what);
int64_t CheckedMul(const KernelInfo& info, int64_t a, int64_t b, const char* what);

// Where kernel column k (along the last axis) reads in a row: output positions o in [lo, hi) read
// image element (the row's start) + first + o · stride; the others fall in the padding.
struct RowSpan {
  int64_t first = 0;
  int64_t lo = 0;
  int64_t hi = 0;
};

[[gnu::always_inline]] inline RowSpan LastAxisSpan(const WindowGeometry& g, int64_t k) {
  const size_t last = g.rank() - 1;
  const int64_t s = g.stride[last];
  RowSpan r;
  r.first = k * g.dilation[last] - g.pad_begin[last];
  const int64_t hi = std::min(g.out[last], CeilDiv(g.in[last] - r.first, s));
  r.lo = std::min(r.first >= 0 ? int64_t{0} : CeilDiv(-r.first, s), std::max<int64_t>(hi, 0));
  r.hi = std::max(hi, r.lo);
  return r;
}

// Walks the window positions of kernel tap `tap` (a row-major index into the kernel) one row at a
// time, a row being the positions that differ only along the last axis. For each row calls
//   row(out_offset, in_base, lo, hi)
// where out_offset is the row's first position (row-major in `out`), and positions
// out_offset + o for o in [lo, hi) read image element in_base + o * stride.back(); the other
// positions of the row fall in the padding (lo == hi == 0 when the whole row does). Always
// inlined, as ForEachTapRow2D is: a vector-cloned caller (the N-d depthwise and pool loops) then
// compiles `row` for its own target instead of calling a baseline copy per row.
template <typename F>
[[gnu::always_inline]] inline void ForEachTapRow(const WindowGeometry& g, size_t tap, F&& row) {
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  const int64_t out_last = g.out[last];
  if (g.out_size == 0) return;
  SmallVector<int64_t> k(rank);
  for (size_t d = rank; d-- > 0;) {
    k[d] = static_cast<int64_t>(tap % static_cast<size_t>(g.kernel[d]));
    tap /= static_cast<size_t>(g.kernel[d]);
  }
  const RowSpan span = LastAxisSpan(g, k[last]);
  SmallVector<int64_t> o(rank, 0);
  const size_t rows = g.out_size / static_cast<size_t>(out_last);
  for (size_t r = 0; r < rows; ++r) {
    int64_t in_row = 0;
    bool inside = true;
    for (size_t d = 0; d < last; ++d) {
      const int64_t x = o[d] * g.stride[d] + k[d] * g.dilation[d] - g.pad_begin[d];
      if (x < 0 || x >= g.in[d]) {
        inside = false;
        break;
      }
      in_row += x * static_cast<int64_t>(g.in_strides[d]);
    }
    const size_t out_offset = r * static_cast<size_t>(out_last);
    if (inside) {
      row(out_offset, in_row + span.first, span.lo, span.hi);
    } else {
      row(out_offset, int64_t{0}, int64_t{0}, int64_t{0});
    }
    for (size_t d = last; d-- > 0;) {
      if (++o[d] < g.out[d]) break;
      o[d] = 0;
    }
  }
}

// For a 2-D window: the same walk as ForEachTapRow over every tap, output row by output row (for
// each output row, each kernel row inside the image, each kernel column), calling
//   row(out_offset, tap, in_base, lo, hi)
// with out_offset the output row's start and tap the row-major kernel index. Always inlined, so a
// vector-cloned caller compiles the innermost loop (in `row`) for its own target.
template <typename F>
[[gnu::always_inline]] inline void ForEachTapRow2D(const WindowGeometry& g, F&& row) {
  const int64_t in_h = g.in[0], out_h = g.out[0], out_w = g.out[1];
  const int64_t sy = g.stride[0], dy = g.dilation[0];
  for (int64_t oy = 0; oy < out_h; ++oy) {
    const auto out_offset = static_cast<size_t>(oy * out_w);
    for (int64_t ky = 0; ky < g.kernel[0]; ++ky) {
      const int64_t iy = oy * sy + ky * dy - g.pad_begin[0];
      if (iy < 0 || iy >= in_h) continue;
      for (int64_t kx = 0; kx < g.kernel[1]; ++kx) {
        const RowSpan span = LastAxisSpan(g, kx);
        row(out_offset, static_cast<size_t>(ky * g.kernel[1] + kx), iy * g.in[1] + span.first,
            span.lo, span.hi);
      }
    }
  }
}

// Unfolds `channels` image planes (each g.in_size elements) into col, a
// [channels * kernel_size, out_size] matrix: row (c, tap) holds, for every window position, the
// image element under that tap, or 0 in the padding.
template <typename T>
void Im2Col(const T* image, size_t channels, const WindowGeometry& g, T* col, ThreadPool& pool) {
  const size_t rows = channels * g.kernel_size;
  const size_t out_last = static_cast<size_t>(g.out.back());
  const int64_t s = g.stride.back();
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size));
  pool.ParallelFor(rows, grain, [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const T* src = image + (r / g.kernel_size) * g.in_size;
      T* dst = col + r * g.out_size;
      ForEachTapRow(g, r % g.kernel_size,
                    [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
                      T* d = dst + out_offset;
                      std::fill(d, d + lo, T(0));
                      for (int64_t o = lo; o < hi; ++o) d[o] = src[in_base + o * s];
                      std::fill(d + hi, d + out_last, T(0));
                    });
    }
  });
}

// The adjoint of Im2Col: adds every entry of col ([channels * kernel_size, out_size]) to the image
// element under its tap; entries in the padding are dropped. Image planes are updated in parallel.
template <typename T>
void Col2ImAdd(const T* col, size_t channels, const WindowGeometry& g, T* image, ThreadPool& pool) {
  const int64_t s = g.stride.back();
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size * g.kernel_size));
  pool.ParallelFor(channels, grain, [&](size_t begin, size_t end) {
    for (size_t c = begin; c < end; ++c) {
      T* dst = image + c * g.in_size;
      for (size_t tap = 0; tap < g.kernel_size; ++tap) {
        const T* src = col + (c * g.kernel_size + tap) * g.out_size;
        ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
          const T* srow = src + out_offset;
          for (int64_t o = lo; o < hi; ++o) dst[in_base + o * s] += srow[o];
        });
      }
    }
  });
}

}  // namespace kiln::cpu::nn

#endif  // KILN_KERNELS_CPU_NN_WINDOW_H_
