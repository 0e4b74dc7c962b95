// Internal to kernels/cpu/nhwc: the depthwise fast path (nhwc_depthwise.cc's RunDepthwise and
// RunExpandDepthwise call it): multiplier 1, a square 3×3 or 5×5 kernel with horizontal stride 1
// and any dilation or stride 2 undilated, or 7×7 with stride 1; any vertical stride and dilation.
//
// Channels in chunks of kW, 16 (one AVX-512 register) where the machine has AVX-512 and 8 (one
// AVX2 register) elsewhere, each chunk's K·K weights loaded into registers once per row (those
// that do not fit are read from L1), tiles of kCols output columns whose inputs are all inside
// the image computed without bounds checks (each input vector loaded once and used by every
// column of the tile that reads it), and the epilogue applied to the sums before they are stored.
// Measured on MobileNetV2 / EfficientNet-B0 layers: 41–90 GFLOP/s, up from 7–65 for the general
// loop.
//
// The row functions are instantiated per kernel size in files of their own
// (nhwc_depthwise_k3.cc, _k5.cc, _k7.cc), which the build compiles in parallel: each is a few
// dozen fully unrolled tiles, minutes of compile time in one file.
//
//   const DwRowFn fn = DepthwiseFastRow(3, /*stride=*/1, DwAct::kClip, /*width=*/8);
//   if (fn != nullptr) fn(p, row, w, bias, InnerColumns(p), 0, p.features);
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_FAST_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_FAST_H_

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu::nhwc {

// What the fast path applies to its sums in registers: nothing, or min(max(v, lo), hi) (Clip, and
// Relu as Clip(0, +inf), the activations of MobileNets). Other activations (Swish, …) go over the
// row afterwards, while it is in cache: instantiating the tiles for every one of them would
// multiply the compile time for little gain.
enum class DwAct { kNone, kClip };

// Whether the fast path applies a Clip itself in this build. Builds without target clones (Clang:
// the fuzz preset, whose compile time a second set of tiles would double) have only
// DwAct::kNone: a Clip goes over the row afterwards there, as other activations do.
inline constexpr bool kDwClipInRegisters = KILN_HAS_VECTOR_CLONES != 0;

// What one fast row reads besides the input.
struct DwRow {
  const float* x;    // the image
  int64_t row_step;  // floats between the input rows of two kernel rows
  TapRange ry;       // the kernel rows inside the image
  int64_t iy0;       // input row of kernel row 0
  const float* z;    // the row of Z, or nullptr
  float* y;          // the output row
  float lo, hi;      // the Clip of DwAct::kClip
};

// Channels [c_begin, c_end) (a whole number of the function's vector width) of one output row: the
// taps of r, the weights w [K·K, M], the bias (or nullptr), the columns [inner.lo, inner.hi) that
// have all their taps.
using DwRowFn = void (*)(const Problem& p, const DwRow& r, const float* w, const float* bias,
                         TapRange inner, size_t c_begin, size_t c_end);

// The fast row function of a K×K kernel (3, 5 or 7) with horizontal stride `stride`, activation
// a and vector width `width` (8 or 16), or nullptr where this build has none: in every build 3×3
// and 5×5 at stride 1 (any horizontal dilation) and 2, width 8; with target clones also width 16
// (call those only where UseVectorMathAvx512()), DwAct::kClip, and 7×7 at stride 1.
DwRowFn DepthwiseFastRow(int64_t kernel, int64_t stride, DwAct a, int width);

// The same for one kernel size, one file each (nhwc_depthwise_k*.cc).
DwRowFn DepthwiseFastRow3(int64_t stride, DwAct a, int width);
DwRowFn DepthwiseFastRow5(int64_t stride, DwAct a, int width);
DwRowFn DepthwiseFastRow7(int64_t stride, DwAct a, int width);

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_DEPTHWISE_FAST_H_
