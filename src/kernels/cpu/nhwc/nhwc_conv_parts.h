// Internal to kernels/cpu/nhwc: what NhwcConv (nhwc_conv.cc) hands its other paths (depthwise,
// first layers, narrow groups, regional taps): the sizes of one call, its operands, the entry
// points.
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_CONV_PARTS_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_CONV_PARTS_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/cpu/linalg/bf16_gemm.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nhwc {

// The sizes of one call.
struct Problem {
  size_t batch = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t channels = 0;        // C
  size_t features = 0;        // M
  size_t groups = 1;          // group
  size_t group_channels = 0;  // C / group
  size_t group_features = 0;  // M / group
  nn::WindowGeometry g;
};

struct Operands {
  const float* x;
  const float* w;                       // depthwise: [kH·kW, M]; narrow groups: RunGrouped's
  const std::vector<PackedMatrix>* gw;  // otherwise: one [kH·kW·C/group, M/group] per group
  const float* bias;                    // nullptr when absent
  const float* z;                       // nullptr when absent
  float* y;
  // X in parts along the channels (input_channels): part i starts at parts[i] and has
  // part_channels[i] channels, and gw holds one PackedMatrix per part. Null otherwise.
  const float* const* parts = nullptr;
  const size_t* part_channels = nullptr;
  size_t part_count = 0;
  // channel_scale: S, one row of C per image (scale_images of them: 1 or N). Null otherwise.
  const float* scale = nullptr;
  size_t scale_images = 0;
  // With channel_scale: T (channel_shift: C values added after the scale; null otherwise) and
  // whether max(·, 0) follows (channel_relu).
  const float* shift = nullptr;
  bool relu = false;
  // Attribute bf16 on a machine with AVX-512 BF16: the product path's weights as bf16, one per
  // group (then used instead of gw). Null otherwise.
  const std::vector<Bf16PackedB>* bw = nullptr;
};

// The expansion of a depthwise NhwcConv with attribute `expand`: X's rows (Operands::x, then
// [N, H, W, c]) are multiplied by a 1×1 convolution's weights (bias and activation after) into the
// depthwise convolution's input.
struct Expansion {
  size_t channels = 0;              // c
  const PackedMatrix* w = nullptr;  // [c, M]
  const float* bias = nullptr;      // [M], or nullptr
  const nn::Epilogue* e = nullptr;  // the expansion's activation
};

// The output columns [lo, hi) whose every horizontal tap is inside the image: no bounds checks
// there.
inline TapRange InnerColumns(const Problem& p) {
  const nn::WindowGeometry& g = p.g;
  const int64_t sx = g.stride[1];
  const int64_t room = p.in_w - (g.kernel[1] - 1) * g.dilation[1] + g.pad_begin[1];
  TapRange inner;
  inner.lo = std::min(p.out_w, nn::CeilDiv(g.pad_begin[1], sx));
  inner.hi = std::max(inner.lo, std::min(p.out_w, room <= 0 ? 0 : nn::CeilDiv(room, sx)));
  return inner;
}

// A depthwise convolution (C/group == 1), with its epilogue: a register-tiled fast path for
// multiplier 1 and square 3×3 / 5×5 kernels, a general loop otherwise.
void RunDepthwise(const Problem& p, const Operands& o, const nn::Epilogue& e, ThreadPool& pool);

// 256 KB of floats for an unfolded (im2col) block and its output block: measured on ResNet-50
// layers, anything from 48 to 256 pixels per block runs at the same speed; 1 MB blocks are 40%
// slower.
inline constexpr size_t kBlockFloats = size_t{64} * 1024;
// Pixels per block from which the weights' trips from L3 cost little (see RunGemmPath).
inline constexpr size_t kReuseBlockPixels = 256;

// The row stride of an unfolded (or scaled) copy of X with rows of k floats: k, or one cache line
// more when k is a multiple of 4 KB, whose rows would all fall in one set of the L1 cache and
// make PackedGemm pack them first (once per part of the output channels when shared out).
constexpr size_t ColStride(size_t k) {
  return k % 1024 == 0 ? k + 16 : k;
}

// Regional taps. A dilated (atrous) kernel, or a large one on a small map, has taps that read only
// padding for whole bands of output rows or columns: at dilation 12 on a 24×32 map each output
// row reaches 2 of the 3 kernel rows, and a third of the columns 2 of the 3 kernel columns, so
// half of the im2col product multiplies zeros. The live taps of an output coordinate are one
// interval along each axis (Taps), so the output splits into rectangular regions (a band of rows
// by a band of columns) over which the live taps are fixed; each region's product runs over its
// live taps only, reading their rows of the packed weights in place (PackedMatrix::DepthSlice):
// nhwc_regions.cc.

// Output coordinates [start, end) along one axis over which the live kernel taps are `taps`.
struct Band {
  int64_t start, end;
  TapRange taps;
};

// The most bands an axis may have.
inline constexpr size_t kMaxBands = 16;

// A layer's regions: the bands of its rows by the bands of its columns.
struct Regions {
  std::array<Band, kMaxBands> rows, cols;
  size_t row_count = 0, col_count = 0;
};

// How a layer splits into regions (into r), when that pays: one group, not pointwise, at most
// three quarters of its pixels' taps reaching the image, and regions of 32 pixels or more on
// average (smaller ones would make products too thin to reuse the weights).
bool SplitIntoRegions(const Problem& p, Regions& r);

// A convolution SplitIntoRegions split, with its epilogue.
void RunRegions(const Problem& p, const Operands& o, const Regions& r, const nn::Epilogue& e,
                KernelContext& ctx);

// Whether the few-input-channels path (nhwc_stem.cc) takes a convolution: one group of 1 to 4
// input channels, a kernel other than 1×1, on a machine with AVX-512 (and a compiler with the
// vector clones).
bool StemFits(size_t groups, size_t channels, bool one_by_one);
// OIHW weights [m, c, kh, kw] as nhwc_stem.cc reads them: [kh][kw][c][M rounded up to 16], zeros
// in the padding.
std::vector<float> PackStemWeights(const float* w, size_t m, size_t c, size_t kh, size_t kw);
// A convolution StemFits takes, with its epilogue; w from PackStemWeights.
void RunStem(const Problem& p, const float* w, const Operands& o, const nn::Epilogue& e,
             KernelContext& ctx);

// Whether the narrow-group path (nhwc_grouped.cc) takes a grouped convolution: more than one group,
// Q = C/group = M/group is 2, 4 8 or 16, and M is a multiple of 8.
bool GroupedFits(size_t groups, size_t group_channels, size_t group_features);

// A grouped convolution GroupedFits takes, with its epilogue; w is packed as nhwc_grouped.cc's
// GroupedRows reads it.
void RunGrouped(const Problem& p, const float* w, const Operands& o, const nn::Epilogue& e,
                ThreadPool& pool);

// The depthwise convolution of X's 1×1 expansion (attribute expand), band by band; only for layers
// the fast path runs whole (NhwcConv's constructor checks).
void RunExpandDepthwise(const Problem& p, const Operands& o, const Expansion& x,
                        const nn::Epilogue& e, KernelContext& ctx);

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_CONV_PARTS_H_
