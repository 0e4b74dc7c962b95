// NhwcConv (ai.kiln, opset 1): 2-D convolution on channels-last input X [N, H, W, C] with ONNX
// Conv's attributes (auto_pad, dilations, group, kernel_shape, pads, strides), W [M, C/group, kH,
// kW] (OIHW, a constant initializer, repacked once), optional B [M] and Z [N, OH, OW, M], and the
// fused activation of conv_epilogue.h: Y [N, OH, OW, M] = act(conv(X, W) + B + Z). float only.
//
// Paths: depthwise (C/group == 1, group > 1) is a direct loop vectorized along the channels, for
// multiplier 1 and square 3×3 / 5×5 / 7×7 kernels register-tiled with the epilogue on the sums
// (see nhwc_depthwise_fast.h), otherwise a general loop followed by the epilogue; 3×3, stride
// 1, undilated, with 16–512 channels a group on both sides (group by group when grouped and
// not on the narrow-group path) runs as Winograd F(2×2, 3×3) (nhwc_winograd.h), and so does a
// dilated one of one group where most of its taps read the image (phase by phase: a dilated
// backbone's layers); groups of 2, 4, 8 or 16 channels on both sides (16 only where Winograd does
// not take them: off AVX-512 machines, or not 3×3 stride 1) run as a direct loop along the
// output channels (nhwc_grouped.cc); a layer whose taps read only padding over bands of its
// output (atrous, dilated) runs region by region over the live taps only (RunRegions); one
// group of 1 to 4 input channels (a network's first layer) runs, on AVX-512 machines, as a
// direct loop over zero-padded copies of the rows each output row reads (nhwc_stem.cc);
// everything else multiplies blocks of output pixels, [P,
// kH·kW·C/group] · [kH·kW·C/group, M/group] per group, the left side being X itself for a 1×1,
// stride 1, unpadded kernel and an im2col of the block (contiguous C-runs per tap) otherwise, the
// right side the weights packed once for PackedGemm. Blocks run in parallel and get the epilogue
// while they are still in cache.
//
// Attribute `input_channels` (ints, optional; set by the optimizer's nhwc_concat_split pass when
// it absorbs a Concat): X comes in parts along the channels, input 0 holding the first
// input_channels[0] of them and inputs 4, 5, ... the next ones in order. Only for a 1×1 kernel
// with one group, stride 1 and no padding: each part is multiplied by its rows of W and the
// products summed (Y = Σ X_i·W_i), so the concatenation is never written.
//
// Attribute `channel_scale` (int, 0 or 1; set by the optimizer's nhwc_scale_fusion pass): input 4
// is S [N or 1, 1, 1, C], and the product is of X·S (each image's channels scaled, as a
// squeeze-and-excitation block's Mul does) — scaled block by block into the scratch the product
// reads, so the scaled X is never written whole. The same restrictions as input_channels; not
// with it. With attribute `channel_shift` (int, 0 or 1) input 5 is T [1, 1, 1, C], added after
// the scale, and with attribute `channel_relu` (int, 0 or 1) the result is max(·, 0): the
// product is of max(X·S + T, 0), a per-channel affine map and ReLU before a 1×1 layer (the
// nhwc_scale_fusion pass: DenseNet's BatchNormalization and ReLU before each 1×1 convolution,
// which would otherwise be three passes over X).
//
// Attribute `expand` (int, 0 or 1; set by the optimizer's nhwc_expand_fusion pass): X [N, H, W, c]
// is first expanded by a 1×1 convolution, input 4 WE [M, c, 1, 1] (a constant, packed once),
// input 5 BE [M] (optional) and attributes expand_activation / expand_activation_params (as
// activation's), and the depthwise convolution reads that expansion, made band by band
// (RunExpandDepthwise). Only for layers the depthwise fast path runs whole: one output channel per
// group, M a multiple of 16, a 3×3 or 5×5 kernel, horizontal stride 1 or 2, no dilation; not with
// input_channels or channel_scale.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nhwc/nhwc_conv_parts.h"
#include "kernels/cpu/nhwc/nhwc_kernels.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nhwc/nhwc_winograd.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nhwc::ColStride;
using nhwc::Expansion;
using nhwc::kBlockFloats;
using nhwc::kReuseBlockPixels;
using nhwc::Operands;
using nhwc::Problem;
using nhwc::TapRange;
using nhwc::Taps;
using nn::WindowGeometry;

// The fewest pixels per block (four tiles of the AVX-512 kernel's 12 rows); below that many per
// thread a layer splits its output channels instead.
constexpr size_t kMinBlockPixels = 48;
// The largest whole-image unfolding (floats, 16 MB) for layers with too few pixels to block.
constexpr size_t kWholeImageFloats = size_t{4} << 20;

// dst[c] = src[c]·s[c] (+ t[c] when t is given, then max(·, 0) when `relu`) for c < n.
KILN_VECTOR_CLONES void ScaleRow(const float* src, const float* s, const float* t, bool relu,
                                 float* dst, size_t n) {
  if (t == nullptr && !relu) {
    for (size_t c = 0; c < n; ++c) dst[c] = src[c] * s[c];
  } else if (t == nullptr) {
    for (size_t c = 0; c < n; ++c) dst[c] = std::max(src[c] * s[c], 0.0f);
  } else if (!relu) {
    for (size_t c = 0; c < n; ++c) dst[c] = src[c] * s[c] + t[c];
  } else {
    for (size_t c = 0; c < n; ++c) dst[c] = std::max(src[c] * s[c] + t[c], 0.0f);
  }
}

// Copies n floats (n is often small: C = 3 for a first layer).
inline void CopyRun(const float* src, size_t n, float* dst) {
  std::memcpy(dst, src, n * sizeof(float));
}

// Im2ColBlock for one group with dense columns: each kernel row's taps inside the image are one
// run of X, of kRun floats when kRun is not 0 (a size known here, so that the copy is a few
// vector moves instead of a call: the short runs of first layers, 3×3 and 7×7 kernels over 3 or
// 4 channels). Walks the pixels row by row, so nothing is divided per pixel.
template <size_t kRun>
void Im2ColRuns(const Problem& p, const float* x, size_t begin, size_t end, float* col,
                size_t ldcol) {
  const WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const auto kh = g.kernel[0];
  const auto kw = g.kernel[1];
  const size_t run = kRun != 0 ? kRun : static_cast<size_t>(kw) * c;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  const auto out_w = static_cast<size_t>(p.out_w);
  size_t pix = begin;
  while (pix < end) {
    const size_t n = pix / plane;
    const auto oy = static_cast<int64_t>((pix % plane) / out_w);
    const size_t row_end = std::min(end, pix - pix % out_w + out_w);
    const float* image = x + n * static_cast<size_t>(p.in_h * p.in_w) * c;
    const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
    for (auto ox = static_cast<int64_t>(pix % out_w); pix < row_end; ++pix, ++ox) {
      float* dst = col + (pix - begin) * ldcol;
      const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
      const TapRange rx = Taps(ox, g.stride[1], 1, g.pad_begin[1], p.in_w, kw);
      const bool whole = rx.lo == 0 && rx.hi == kw;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const int64_t iy = iy0 + ky * g.dilation[0];
        float* d = dst + static_cast<size_t>(ky * kw) * c;
        if (iy < 0 || iy >= p.in_h) {
          std::fill(d, d + run, 0.0f);
          continue;
        }
        if (whole) {
          std::memcpy(d, image + static_cast<size_t>(iy * p.in_w + ix0) * c, run * sizeof(float));
          continue;
        }
        std::fill(d, d + static_cast<size_t>(rx.lo) * c, 0.0f);
        if (rx.hi > rx.lo) {
          CopyRun(image + static_cast<size_t>(iy * p.in_w + ix0 + rx.lo) * c,
                  static_cast<size_t>(rx.hi - rx.lo) * c, d + static_cast<size_t>(rx.lo) * c);
        }
        std::fill(d + static_cast<size_t>(rx.hi) * c, d + run, 0.0f);
      }
    }
  }
}

// Unfolds output pixels [begin, end) (flat over N·OH·OW) into col, one row of k = kH·kW·C
// elements per pixel (rows ldcol apart), ordered [group][tap][C/group], zeros in the padding.
void Im2ColBlock(const Problem& p, const float* x, size_t begin, size_t end, float* col,
                 size_t ldcol) {
  const WindowGeometry& g = p.g;
  // With one group and dense columns, a kernel row's taps inside the image are one contiguous run.
  if (p.groups == 1 && g.dilation[1] == 1) {
    switch (static_cast<size_t>(g.kernel[1]) * p.channels) {
      case 9:
        return Im2ColRuns<9>(p, x, begin, end, col, ldcol);
      case 12:
        return Im2ColRuns<12>(p, x, begin, end, col, ldcol);
      case 21:
        return Im2ColRuns<21>(p, x, begin, end, col, ldcol);
      case 28:
        return Im2ColRuns<28>(p, x, begin, end, col, ldcol);
      default:
        return Im2ColRuns<0>(p, x, begin, end, col, ldcol);
    }
  }
  const size_t c = p.channels;
  const size_t cg = p.group_channels;
  const auto kh = g.kernel[0];
  const auto kw = g.kernel[1];
  const size_t group_k = g.kernel_size * cg;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  for (size_t pix = begin; pix < end; ++pix) {
    float* dst = col + (pix - begin) * ldcol;
    const size_t n = pix / plane;
    const auto oy = static_cast<int64_t>(pix % plane) / p.out_w;
    const auto ox = static_cast<int64_t>(pix % plane) % p.out_w;
    const float* image = x + n * static_cast<size_t>(p.in_h * p.in_w) * c;
    const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
    const int64_t ix0 = ox * g.stride[1] - g.pad_begin[1];
    const TapRange rx = Taps(ox, g.stride[1], g.dilation[1], g.pad_begin[1], p.in_w, kw);
    for (int64_t ky = 0; ky < kh; ++ky) {
      const int64_t iy = iy0 + ky * g.dilation[0];
      const bool row_inside = iy >= 0 && iy < p.in_h;
      for (int64_t kx = 0; kx < kw; ++kx) {
        const auto tap = static_cast<size_t>(ky * kw + kx);
        const bool inside = row_inside && kx >= rx.lo && kx < rx.hi;
        const float* src =
            inside ? image + static_cast<size_t>(iy * p.in_w + ix0 + kx * g.dilation[1]) * c
                   : nullptr;
        for (size_t grp = 0; grp < p.groups; ++grp) {
          float* d = dst + grp * group_k + tap * cg;
          if (inside) {
            CopyRun(src + grp * cg, cg, d);
          } else {
            std::fill(d, d + cg, 0.0f);
          }
        }
      }
    }
  }
}

// The epilogue of the product of the group whose output channels start at `first`: its bias
// and Z from that channel on (the product's C starts there too).
GemmEpilogue GroupEpilogue(const GemmEpilogue& ge, size_t first) {
  GemmEpilogue g = ge;
  if (g.bias != nullptr) g.bias += first;
  if (g.z != nullptr) g.z += first;
  return g;
}

void RunGemmPath(const Problem& p, const Operands& o, const nn::Epilogue& e, KernelContext& ctx) {
  const size_t pixels = p.batch * static_cast<size_t>(p.out_h * p.out_w);
  const size_t k = p.g.kernel_size * p.channels;  // im2col row length, all groups
  const size_t group_k = p.g.kernel_size * p.group_channels;
  const bool pointwise = p.g.IsPointwise();
  const std::vector<PackedMatrix>& weights = *o.gw;
  const size_t threads = static_cast<size_t>(ctx.threads().size());
  if (threads > 1 && pixels < kMinBlockPixels * threads && pixels * k <= kWholeImageFloats) {
    // Too few pixels to give each thread a block (deep layers): unfold (or scale) the whole image
    // once and let one product per group (or per part of X) split its rows and output channels
    // over the pool.
    const float* a = o.x;
    size_t lda = p.channels;
    if (!pointwise || o.scale != nullptr) {
      const size_t ldcol = ColStride(k);
      float* col = ctx.Scratch<float>(pixels * ldcol);
      const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
      ctx.threads().ParallelFor(pixels, 8, [&](size_t begin, size_t end) {
        if (!pointwise) {
          Im2ColBlock(p, o.x, begin, end, col + begin * ldcol, ldcol);
          return;
        }
        for (size_t r = begin; r < end; ++r) {
          const size_t image = o.scale_images == 1 ? 0 : r / plane;
          ScaleRow(o.x + r * p.channels, o.scale + image * p.channels, o.shift, o.relu,
                   col + r * ldcol, p.channels);
        }
      });
      a = col;
      lda = ldcol;
    }
    if (o.bw != nullptr) {
      // bf16: blocks of rows over the pool, each group's product then the epilogue.
      const size_t mg = p.group_features;
      ctx.threads().ParallelFor(pixels, 16, [&](size_t begin, size_t end) {
        for (size_t grp = 0; grp < p.groups; ++grp) {
          const float* ag = a + begin * lda + grp * (pointwise ? p.group_channels : group_k);
          Bf16Gemm(end - begin, ag, lda, (*o.bw)[grp], 0, mg, o.y + begin * p.features + grp * mg,
                   p.features);
        }
        nn::ApplyEpilogueRows(e, o.y + begin * p.features, end - begin, p.features, p.features,
                              o.bias, o.z != nullptr ? o.z + begin * p.features : nullptr,
                              p.features);
      });
      return;
    }
    // The epilogue in the product where it can be (see GroupEpilogue), else a pass after it.
    GemmEpilogue ge;
    const bool in_product = nn::InProduct(e, o.bias, o.z, p.features, &ge);
    for (size_t i = 0; i < o.part_count; ++i) {
      PackedGemm(pixels, o.parts[i], o.part_channels[i], weights[i], o.y, p.features,
                 &ctx.threads(), i > 0, in_product && i + 1 == o.part_count ? &ge : nullptr);
    }
    for (size_t grp = 0; o.parts == nullptr && grp < p.groups; ++grp) {
      const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
      const GemmEpilogue group_ep = GroupEpilogue(ge, grp * p.group_features);
      PackedGemm(pixels, ag, lda, weights[grp], o.y + grp * p.group_features, p.features,
                 &ctx.threads(), false, in_product ? &group_ep : nullptr);
    }
    if (in_product) return;
    ctx.threads().ParallelFor(pixels, 8, [&](size_t begin, size_t end) {
      nn::ApplyEpilogueRows(e, o.y + begin * p.features, end - begin, p.features, p.features,
                            o.bias, o.z != nullptr ? o.z + begin * p.features : nullptr,
                            p.features);
    });
    return;
  }
  // Blocks that fit the cache, but at least kReuseBlockPixels (or one per thread): every block
  // reads all the weights, which for deep layers come from L3. Then equal sizes, so no block is
  // a sliver that the micro-kernel runs slowly.
  const size_t per_thread = (pixels + threads - 1) / threads;
  const size_t fit = std::clamp<size_t>(kBlockFloats / (k + p.features), kMinBlockPixels, 4096);
  const size_t target = std::max(fit, std::min(kReuseBlockPixels, per_thread));
  // A whole number of blocks per thread, so that no thread waits on another's extra block; the
  // pixels shared out so that block sizes differ by at most one (and every block starts inside
  // the image: rounding the size up instead can put the last blocks past the end). Each thread
  // takes one contiguous share of blocks (ParallelForShares), so the pixels it reads are mostly
  // the ones it wrote in the previous layer.
  const size_t blocks = (pixels + target * threads - 1) / (target * threads) * threads;
  const size_t block = (pixels + blocks - 1) / blocks;  // the largest
  ctx.threads().ParallelForShares(blocks, [&](size_t first, size_t last) {
    const size_t ldcol = ColStride(k);
    float* col = pointwise && o.scale == nullptr ? nullptr : ctx.Scratch<float>(block * ldcol);
    for (size_t b = first; b < last; ++b) {
      const size_t begin = PartStart(pixels, blocks, b);
      const size_t rows = PartStart(pixels, blocks, b + 1) - begin;
      if (rows == 0) continue;  // more threads than pixels
      // (With X in parts, o.x is only part 0: the parts' own rows are read below.)
      const float* a = o.parts == nullptr ? o.x + begin * p.channels : nullptr;
      size_t lda = p.channels;
      if (!pointwise) {
        Im2ColBlock(p, o.x, begin, begin + rows, col, ldcol);
        a = col;
        lda = ldcol;
      } else if (o.scale != nullptr) {
        const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
        for (size_t r = 0; r < rows; ++r) {
          const size_t image = o.scale_images == 1 ? 0 : (begin + r) / plane;
          ScaleRow(a + r * p.channels, o.scale + image * p.channels, o.shift, o.relu,
                   col + r * ldcol, p.channels);
        }
        a = col;
        lda = ldcol;
      }
      float* y = o.y + begin * p.features;
      const float* z = o.z != nullptr ? o.z + begin * p.features : nullptr;
      if (o.bw != nullptr) {
        // bf16 (one part: no input_channels): each group's product, then the epilogue.
        for (size_t grp = 0; grp < p.groups; ++grp) {
          const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
          Bf16Gemm(rows, ag, lda, (*o.bw)[grp], 0, p.group_features, y + grp * p.group_features,
                   p.features);
        }
        nn::ApplyEpilogueRows(e, y, rows, p.features, p.features, o.bias, z, p.features);
        continue;
      }
      // Bias, Z and a ReLU or Clip applied by the product to its sums before it stores them
      // (no pass over the block afterwards: for a 16→48 1×1 layer over 56×56 that pass cost a
      // quarter of the product); other activations after it, while the block is in cache.
      GemmEpilogue ge;
      const bool in_product = nn::InProduct(e, o.bias, z, p.features, &ge);
      // X in parts (pointwise, one group): the parts' products summed into the block.
      for (size_t i = 0; i < o.part_count; ++i) {
        const size_t c = o.part_channels[i];
        PackedGemm(rows, o.parts[i] + begin * c, c, weights[i], 0, p.features, y, p.features, i > 0,
                   in_product && i + 1 == o.part_count ? &ge : nullptr);
      }
      for (size_t grp = 0; o.parts == nullptr && grp < p.groups; ++grp) {
        // A pointwise group's columns start at its first channel; an im2col group's at its block.
        const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
        const GemmEpilogue group_ep = GroupEpilogue(ge, grp * p.group_features);
        PackedGemm(rows, ag, lda, weights[grp], 0, p.group_features, y + grp * p.group_features,
                   p.features, false, in_product ? &group_ep : nullptr);
      }
      if (!in_product) {
        nn::ApplyEpilogueRows(e, y, rows, p.features, p.features, o.bias, z, p.features);
      }
    }
  });
}

class NhwcConv final : public Kernel {
 public:
  explicit NhwcConv(const KernelInfo& info)
      : attrs_(nn::ReadWindowAttrs(info, {.kernel_required = false})),
        group_(info.GetInt("group", 1)),
        epilogue_(nn::ReadEpilogue(info)) {
    if (group_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'group' is " + std::to_string(group_) + "; it must be positive");
    }
    const Tensor* w = info.ConstantInput(1);
    if (w == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "input 'W' is not a constant initializer; NhwcConv repacks its weights once");
    }
    nhwc::RequireFloat(info, "W", *w);
    const Shape& ws = w->shape();
    if (ws.rank() != 4) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + ws.ToString() + "; it needs rank 4 (M, C/group, kH, kW)");
    }
    features_ = ws.dims()[0];
    group_channels_ = ws.dims()[1];
    kernel_ = {ws.dims()[2], ws.dims()[3]};
    if (features_ % group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'W' has " + std::to_string(features_) +
                                                 " output channels, which attribute 'group' " +
                                                 std::to_string(group_) + " does not divide");
    }
    if (kernel_[0] == 0 || kernel_[1] == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + ws.ToString() + "; kernel sizes must be positive");
    }
    if (!attrs_.kernel_shape.empty() &&
        (attrs_.kernel_shape.size() != 2 || attrs_.kernel_shape[0] != kernel_[0] ||
         attrs_.kernel_shape[1] != kernel_[1])) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'kernel_shape' does not match input 'W' " + ws.ToString());
    }
    depthwise_ = group_ > 1 && group_channels_ == 1;
    // Attribute bf16 (session config kiln.compute.bf16) where the machine has AVX-512 BF16: the
    // product path's weights also as bf16, and its products on them (below); Winograd layers
    // then run as that product too.
    bf16_ = info.GetInt("bf16", 0) != 0 && Bf16GemmSupported();
    const auto all_one = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; });
    };
    const bool winograd_3x3 = kernel_[0] == 3 && kernel_[1] == 3 && all_one(attrs_.strides) &&
                              nhwc::WinogradPays(static_cast<size_t>(group_channels_),
                                                 static_cast<size_t>(features_ / group_), 0);
    const bool winograd_shape = winograd_3x3 && all_one(attrs_.dilations);
    // Dilated layers of one group: Winograd phase by phase (nhwc_winograd.h) where most taps read
    // the image, the live taps region by region (RunRegions) where many read padding. Which, the
    // input's size decides (SpecializeForShapes); until it is known, dilations up to
    // kWinogradDilation go to Winograd (their taps are mostly live on maps of 8·d pixels a side or
    // more: a dilated backbone's layers), larger ones (atrous pyramids) to the regions.
    dilated_winograd_ = winograd_3x3 && !winograd_shape && group_ == 1 &&
                        attrs_.dilations.size() == 2 && attrs_.dilations[0] >= 1 &&
                        attrs_.dilations[1] >= 1;
    // Groups of 16 channels: on AVX-512 machines Winograd group by group beats the narrow-group
    // path (4 ResNeXt layers of 32 groups of 16 on 14×14: 1.88 → 1.19 ms, ONNX Runtime 1.52);
    // AVX2 machines keep the narrow-group path (measured there at 1.08× ONNX Runtime).
    const bool wide_group_winograd = winograd_shape && group_ > 1 && group_channels_ >= 16 &&
                                     PackedKernelSupported(PackedKernel::kAvx512);
    grouped_ = !depthwise_ && !wide_group_winograd &&
               nhwc::GroupedFits(static_cast<size_t>(group_), static_cast<size_t>(group_channels_),
                                 static_cast<size_t>(features_ / group_));
    // Grouped layers too, group by group, when their groups are too wide for the narrow-group
    // path (RegNet's 24 to 232 channels a group).
    winograd_ = !depthwise_ && !grouped_ && !bf16_ &&
                (winograd_shape ||
                 (dilated_winograd_ &&
                  std::max(attrs_.dilations[0], attrs_.dilations[1]) <= kWinogradDilation));
    if (bf16_) dilated_winograd_ = false;
    const std::vector<int64_t> parts = info.GetInts("input_channels");
    const int64_t channel_scale = info.GetInt("channel_scale", 0);
    if (channel_scale != 0 && channel_scale != 1) {
      info.Fail(
          ErrorCode::kInvalidArgument,
          "attribute 'channel_scale' is " + std::to_string(channel_scale) + "; it must be 0 or 1");
    }
    channel_scale_ = channel_scale == 1;
    for (const char* name : {"channel_shift", "channel_relu"}) {
      const int64_t v = info.GetInt(name, 0);
      if (v != 0 && v != 1) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' is " +
                                                   std::to_string(v) + "; it must be 0 or 1");
      }
      if (v == 1 && !channel_scale_) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("attribute '") + name + "' needs attribute 'channel_scale'");
      }
    }
    channel_shift_ = info.GetInt("channel_shift", 0) == 1;
    channel_relu_ = info.GetInt("channel_relu", 0) == 1;
    if (channel_scale_ && (!parts.empty() || group_ != 1 || kernel_[0] != 1 || kernel_[1] != 1 ||
                           info.input_count() != (channel_shift_ ? 6u : 5u))) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'channel_scale' needs a 1×1 kernel in one group, no attribute "
                "'input_channels', and input 4 (S)" +
                    std::string(channel_shift_ ? " and input 5 (T)" : "") + ", the last");
    }
    const int64_t expand = info.GetInt("expand", 0);
    if (expand != 0 && expand != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' is " + std::to_string(expand) + "; it must be 0 or 1");
    }
    if (expand == 1) ReadExpansion(info, parts.empty() && !channel_scale_);
    stem_ =
        !depthwise_ && !grouped_ && !winograd_ && parts.empty() && !channel_scale_ && expand == 0 &&
        nhwc::StemFits(static_cast<size_t>(group_), static_cast<size_t>(group_channels_ * group_),
                       kernel_[0] == 1 && kernel_[1] == 1);
    if (!parts.empty()) {
      PackParts(info, parts, static_cast<const float*>(w->data()));
    } else if (stem_) {
      stem_weights_ = nhwc::PackStemWeights(
          static_cast<const float*>(w->data()), static_cast<size_t>(features_),
          static_cast<size_t>(group_channels_), static_cast<size_t>(kernel_[0]),
          static_cast<size_t>(kernel_[1]));
    } else if (winograd_) {
      PackWinograd(static_cast<const float*>(w->data()));
    } else {
      Pack(static_cast<const float*>(w->data()));
    }
    // The graph's initializer, for SpecializeForShapes (called while loading).
    if (parts.empty() && (winograd_ || dilated_winograd_)) w_ = w;
  }

  // A Winograd layer of one group whose input is known at load to be small (batch·H·W under
  // kWinogradMinPixels, the batch known too: a symbolic one may be large) runs as the im2col
  // product instead. Grouped layers stay on Winograd: their weights are a group's, small enough
  // to stay in cache (4 layers of 32 groups of 32 on 7×7: 1.50 ms as the im2col product, 0.96
  // as Winograd; 36 groups of 56: 4.4 → 3.0 ms; one thread).
  //
  // A dilated layer (dilated_winograd_) whose input's height and width are known at load runs as
  // Winograd when more than 3/4 of its taps read the image (DilatedTapsMostlyLive), and region by
  // region otherwise, as SplitIntoRegions would choose; the small-input rule above applies to it
  // too.
  void SpecializeForShapes(std::span<const Shape* const> shapes) override {
    const Tensor* w = std::exchange(w_, nullptr);  // needed only here
    if (w == nullptr || group_ > 1 || shapes.empty() || shapes[0] == nullptr) return;
    const std::vector<int64_t>& x = shapes[0]->dims();
    if (x.size() != 4 || x[1] <= 0 || x[2] <= 0) return;
    bool want = winograd_;
    if (dilated_winograd_) want = nhwc::DilatedTapsMostlyLive(attrs_, x[1], x[2]);
    int64_t pixels = 0;
    if (want && x[0] > 0 && !__builtin_mul_overflow(x[0], x[1], &pixels) &&
        !__builtin_mul_overflow(pixels, x[2], &pixels) &&
        !nhwc::WinogradPays(static_cast<size_t>(group_channels_),
                            static_cast<size_t>(features_ / group_), static_cast<size_t>(pixels))) {
      want = false;
    }
    if (want == winograd_) return;
    const auto* data = static_cast<const float*>(w->data());
    if (want) {
      PackWinograd(data);
      group_weights_.clear();
      group_weights_.shrink_to_fit();
    } else {
      Pack(data);
      winograd_weights_ = {};
    }
    winograd_ = want;
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* b = ctx.OptionalInput(2);
    const Tensor* z = ctx.OptionalInput(3);
    nhwc::RequireFloat(info, "X", x);
    nhwc::RequireRank4(info, x);
    // X in parts (input_channels): inputs 0, 4, 5, ...; the problem is that of their concatenation.
    const size_t part_count = part_sizes_.size();
    const float** parts = part_count > 0 ? ctx.Scratch<const float*>(part_count) : nullptr;
    std::array<int64_t, 4> x_dims = {};
    std::copy_n(x.shape().dims().begin(), 4, x_dims.begin());
    if (part_count > 0) {
      x_dims[3] = 0;
      for (size_t i = 0; i < part_count; ++i) {
        const Tensor& xi = i == 0 ? x : ctx.Input(3 + i);
        const std::vector<int64_t>& d = xi.shape().dims();
        if (xi.type() != DataType::kFloat || d.size() != 4 ||
            !std::equal(d.begin(), d.begin() + 3, x.shape().dims().begin()) ||
            d[3] != static_cast<int64_t>(part_sizes_[i])) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input " + std::to_string(i == 0 ? 0 : 3 + i) + " (X part " +
                        std::to_string(i) + ") is " + DataTypeName(xi.type()) + " " +
                        xi.shape().ToString() + "; it must be float [N, H, W, " +
                        std::to_string(part_sizes_[i]) + "] with the N, H, W of input 'X' " +
                        x.shape().ToString());
        }
        parts[i] = static_cast<const float*>(xi.data());
        x_dims[3] += d[3];
      }
    }
    const Tensor* expand_bias = nullptr;
    if (expand_) {
      // X has c channels; the depthwise convolution reads its expansion to M.
      if (x_dims[3] != expand_channels_) {
        info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.shape().ToString() +
                                                   " with " + std::to_string(x_dims[3]) +
                                                   " channels, but input 4 (WE) expands " +
                                                   std::to_string(expand_channels_));
      }
      x_dims[3] = features_;
      expand_bias = ctx.OptionalInput(5);
      if (expand_bias != nullptr &&
          (expand_bias->type() != DataType::kFloat || expand_bias->shape().rank() != 1 ||
           expand_bias->shape().dims()[0] != features_)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 5 (BE) is " + std::string(DataTypeName(expand_bias->type())) + " " +
                      expand_bias->shape().ToString() + "; it must be float [" +
                      std::to_string(features_) + "]");
      }
    }
    const Problem p = Check(info, std::span<const int64_t>(x_dims), b);
    if (part_count > 0 && !p.g.IsPointwise()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' needs stride 1 and no padding (a 1×1 product)");
    }
    const Tensor* scale = channel_scale_ ? &ctx.Input(4) : nullptr;
    if (scale != nullptr) {
      const std::vector<int64_t>& sd = scale->shape().dims();
      if (scale->type() != DataType::kFloat || sd.size() != 4 ||
          (sd[0] != 1 && sd[0] != x_dims[0]) || sd[1] != 1 || sd[2] != 1 || sd[3] != x_dims[3]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 4 (S) is " + std::string(DataTypeName(scale->type())) + " " +
                      scale->shape().ToString() + "; it must be float [" +
                      std::to_string(x_dims[0]) + " or 1, 1, 1, " + std::to_string(x_dims[3]) +
                      "]");
      }
      if (!p.g.IsPointwise()) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'channel_scale' needs stride 1 and no padding (a 1×1 product)");
      }
    }
    const Tensor* shift = channel_shift_ ? &ctx.Input(5) : nullptr;
    if (shift != nullptr) {
      const std::vector<int64_t>& td = shift->shape().dims();
      if (shift->type() != DataType::kFloat || td.size() != 4 || td[0] != 1 || td[1] != 1 ||
          td[2] != 1 || td[3] != x_dims[3]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 5 (T) is " + std::string(DataTypeName(shift->type())) + " " +
                      shift->shape().ToString() + "; it must be float [1, 1, 1, " +
                      std::to_string(x_dims[3]) + "]");
      }
    }
    const std::array<int64_t, 4> y_dims = {x.shape().dims()[0], p.out_h, p.out_w, features_};
    if (b != nullptr) nhwc::RequireFloat(info, "B", *b);
    if (z != nullptr) {
      nhwc::RequireFloat(info, "Z", *z);
      if (!std::equal(z->shape().dims().begin(), z->shape().dims().end(), y_dims.begin(),
                      y_dims.end())) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'Z' has shape " + z->shape().ToString() + "; it must have the output's " +
                      Shape(std::vector<int64_t>(y_dims.begin(), y_dims.end())).ToString());
      }
    }
    Tensor& y = ctx.OutputForOverwrite(0, DataType::kFloat, std::span<const int64_t>(y_dims));
    if (y.element_count() == 0) return;
    const Operands o = {static_cast<const float*>(x.data()),
                        packed_.data(),
                        &group_weights_,
                        b != nullptr ? static_cast<const float*>(b->data()) : nullptr,
                        z != nullptr ? static_cast<const float*>(z->data()) : nullptr,
                        static_cast<float*>(y.data()),
                        parts,
                        part_sizes_.data(),
                        part_count,
                        scale != nullptr ? static_cast<const float*>(scale->data()) : nullptr,
                        scale != nullptr ? static_cast<size_t>(scale->shape().dims()[0]) : 0,
                        shift != nullptr ? static_cast<const float*>(shift->data()) : nullptr,
                        channel_relu_,
                        bf16_weights_.empty() ? nullptr : &bf16_weights_};
    if (expand_) {
      const Expansion ex = {
          static_cast<size_t>(expand_channels_), &expand_weights_,
          expand_bias != nullptr ? static_cast<const float*>(expand_bias->data()) : nullptr,
          &expand_epilogue_};
      RunExpandDepthwise(p, o, ex, epilogue_, ctx);
    } else if (depthwise_) {
      RunDepthwise(p, o, epilogue_, ctx.threads());
    } else if (grouped_) {
      nhwc::RunGrouped(p, packed_.data(), o, epilogue_, ctx.threads());
    } else if (stem_) {
      nhwc::RunStem(p, stem_weights_.data(), o, epilogue_, ctx);
    } else if (winograd_) {
      const nhwc::WinogradShape s = {p.batch,          p.in_h,          p.in_w,
                                     p.out_h,          p.out_w,         p.g.pad_begin[0],
                                     p.g.pad_begin[1], p.g.dilation[0], p.g.dilation[1]};
      nhwc::RunWinograd(s, o.x, winograd_weights_, o.bias, o.z, epilogue_, o.y, ctx);
    } else if (nhwc::Regions r;
               part_count == 0 && scale == nullptr && nhwc::SplitIntoRegions(p, r)) {
      nhwc::RunRegions(p, o, r, epilogue_, ctx);
    } else {
      RunGemmPath(p, o, epilogue_, ctx);
    }
  }

 private:
  void PackWinograd(const float* w) {
    winograd_weights_ = nhwc::WinogradWeights::Pack(w, static_cast<size_t>(features_),
                                                    static_cast<size_t>(group_channels_ * group_),
                                                    static_cast<size_t>(group_));
  }

  // W [M, C/group, kH, kW] → depthwise: [kH·kW, M]; narrow groups: blocks of 32 features, each
  // [kH·kW][C/group][32];
  // otherwise, per group, a PackedMatrix of
  // [kH·kW·C/group, M/group] with row tap·(C/group) + c (the im2col row order).
  void Pack(const float* w) {
    const auto m = static_cast<size_t>(features_);
    const auto cg = static_cast<size_t>(group_channels_);
    const auto taps = static_cast<size_t>(kernel_[0] * kernel_[1]);
    const auto groups = static_cast<size_t>(group_);
    const size_t mg = m / groups;
    if (grouped_) {
      // By blocks of 32 output channels (nhwc_grouped.cc): block b0 is [kH·kW][Q][bw], its row
      // tap·Q + s holding input channel s of each of its output channels' groups.
      packed_.resize(taps * cg * m);
      for (size_t f = 0; f < m; ++f) {
        const size_t b0 = f / 32 * 32;
        const size_t bw = std::min<size_t>(32, m - b0);
        for (size_t s = 0; s < cg; ++s) {
          for (size_t tap = 0; tap < taps; ++tap) {
            packed_[b0 * taps * cg + (tap * cg + s) * bw + (f - b0)] = w[(f * cg + s) * taps + tap];
          }
        }
      }
      return;
    }
    if (!depthwise_) {
      // Read panel by panel: a panel's 32 features of OIHW (at most 32·C/group·kH·kW floats)
      // stay in L2 while its rows are written.
      group_weights_.reserve(groups);
      for (size_t grp = 0; grp < groups; ++grp) {
        const float* wg = w + grp * mg * cg * taps;
        const auto value = [&](size_t row, size_t f) {
          return wg[(f * cg + row % cg) * taps + row / cg];
        };
        group_weights_.push_back(PackedMatrix::PackFrom(taps * cg, mg, value));
        if (bf16_) bf16_weights_.push_back(Bf16PackedB::Pack(taps * cg, mg, value));
      }
      return;
    }
    // A transpose: written in destination order, sixteen features at a time, so each source
    // row's cache lines serve all its taps while they are loaded.
    packed_.resize(m * taps);
    constexpr size_t kBlock = 16;
    for (size_t f0 = 0; f0 < m; f0 += kBlock) {
      const size_t f1 = std::min(m, f0 + kBlock);
      for (size_t tap = 0; tap < taps; ++tap) {
        for (size_t f = f0; f < f1; ++f) packed_[tap * m + f] = w[f * taps + tap];
      }
    }
  }

  // Attribute `expand`: inputs 4 (WE [M, c, 1, 1], a constant) and 5 (BE [M], optional), the
  // expansion's activation in attributes expand_activation(_params); this layer must be one the
  // depthwise fast path runs whole.
  void ReadExpansion(const KernelInfo& info, bool plain) {
    const auto one = [](const std::vector<int64_t>& v) {
      return std::all_of(v.begin(), v.end(), [](int64_t d) { return d == 1; });
    };
    const std::vector<int64_t>& strides = attrs_.strides;
    const int64_t sx = strides.size() == 2 ? strides[1] : 1;
    if (!plain || !depthwise_ || features_ != group_ || kernel_[0] != kernel_[1] ||
        (kernel_[0] != 3 && kernel_[0] != 5) || features_ % 16 != 0 || !one(attrs_.dilations) ||
        (sx != 1 && sx != 2)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' needs a depthwise convolution with one output channel per "
                "group, a multiple of 16 channels, a 3×3 or 5×5 kernel, horizontal stride 1 or 2, "
                "no dilation, and no attribute 'input_channels' or 'channel_scale'");
    }
    if (info.input_count() < 5 || info.input_count() > 6) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'expand' needs input 4 (WE) and at most input 5 (BE); the node has " +
                    std::to_string(info.input_count()) + " inputs");
    }
    const Tensor* we = info.ConstantInput(4);
    if (we == nullptr) {
      info.Fail(ErrorCode::kInvalidGraph,
                "input 4 (WE) is not a constant initializer; NhwcConv repacks its weights once");
    }
    nhwc::RequireFloat(info, "WE", *we);
    const std::vector<int64_t>& d = we->shape().dims();
    if (d.size() != 4 || d[0] != features_ || d[1] <= 0 || d[2] != 1 || d[3] != 1) {
      info.Fail(ErrorCode::kInvalidArgument, "input 4 (WE) has shape " + we->shape().ToString() +
                                                 "; it must be [" + std::to_string(features_) +
                                                 ", C, 1, 1] (a 1×1 convolution's weights)");
    }
    expand_channels_ = d[1];
    const auto c = static_cast<size_t>(d[1]);
    const auto* wp = static_cast<const float*>(we->data());
    expand_weights_ = PackedMatrix::PackFrom(c, static_cast<size_t>(features_),
                                             [&](size_t row, size_t f) { return wp[f * c + row]; });
    expand_epilogue_ = nn::ReadEpilogue(info, "expand_");
    expand_ = true;
  }

  // X parts' weights: rows [start, start + input_channels[i]) of W's input channels for part i.
  void PackParts(const KernelInfo& info, const std::vector<int64_t>& parts, const float* w) {
    const size_t count = parts.size();
    if (count < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "attribute 'input_channels' has " +
                                                 std::to_string(count) +
                                                 " entry; it needs one per part, at least 2");
    }
    if (group_ != 1 || kernel_[0] != 1 || kernel_[1] != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' needs a 1×1 kernel in one group");
    }
    int64_t sum = 0;
    for (int64_t c : parts) {
      if (c <= 0) {
        info.Fail(ErrorCode::kInvalidArgument, "attribute 'input_channels' has an entry " +
                                                   std::to_string(c) + "; each must be positive");
      }
      sum += c;
    }
    if (sum != group_channels_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' adds up to " + std::to_string(sum) +
                    " channels, but input 'W' has " + std::to_string(group_channels_));
    }
    if (info.input_count() != 3 + count) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'input_channels' has " + std::to_string(count) +
                    " parts, so the node needs " + std::to_string(3 + count) +
                    " inputs (X, W, B, Z, then the other parts), not " +
                    std::to_string(info.input_count()));
    }
    const auto m = static_cast<size_t>(features_);
    const auto c_all = static_cast<size_t>(group_channels_);
    size_t start = 0;
    for (int64_t c : parts) {
      group_weights_.push_back(
          PackedMatrix::PackFrom(static_cast<size_t>(c), m,
                                 [&](size_t row, size_t f) { return w[f * c_all + start + row]; }));
      start += static_cast<size_t>(c);
      part_sizes_.push_back(static_cast<size_t>(c));
    }
  }

  // d: X's dimensions (with parts, of their concatenation).
  Problem Check(const KernelInfo& info, std::span<const int64_t> d, const Tensor* b) const {
    const int64_t c = d[3];
    if (c != group_channels_ * group_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " +
                    Shape(std::vector<int64_t>(d.begin(), d.end())).ToString() + " with " +
                    std::to_string(c) + " channels, but input 'W' has " +
                    std::to_string(group_channels_) + " input channels per group in " +
                    std::to_string(group_) + " groups (needs " +
                    std::to_string(group_channels_ * group_) + ")");
    }
    if (b != nullptr && (b->shape().rank() != 1 || b->shape().dims()[0] != features_)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b->shape().ToString() +
                                                 "; expected [" + std::to_string(features_) +
                                                 "] (one bias per output channel of W)");
    }
    Problem p;
    p.g = nhwc::ResolveNhwc(info, attrs_, d, std::span<const int64_t>(kernel_), false);
    p.batch = static_cast<size_t>(d[0]);
    p.in_h = d[1];
    p.in_w = d[2];
    p.out_h = p.g.out[0];
    p.out_w = p.g.out[1];
    p.channels = static_cast<size_t>(c);
    p.features = static_cast<size_t>(features_);
    p.groups = static_cast<size_t>(group_);
    p.group_channels = static_cast<size_t>(group_channels_);
    p.group_features = p.features / p.groups;
    return p;
  }

  nn::WindowAttrs attrs_;
  int64_t group_;
  nn::Epilogue epilogue_;
  int64_t features_ = 0;
  int64_t group_channels_ = 0;
  std::array<int64_t, 2> kernel_ = {};
  bool depthwise_ = false;
  bool grouped_ = false;                     // narrow groups: nhwc_grouped.cc's path
  bool stem_ = false;                        // 1-4 input channels: nhwc_stem.cc's path
  std::vector<float> stem_weights_;          // its weights (PackStemWeights)
  std::vector<float> packed_;                // depthwise and narrow-group weights
  std::vector<PackedMatrix> group_weights_;  // the others, one per group (or per X part)
  bool bf16_ = false;                        // attribute bf16, on a machine that runs it
  std::vector<Bf16PackedB> bf16_weights_;    // then group_weights_ as bf16 (not for X in parts)
  std::vector<size_t> part_sizes_;           // input_channels: X's parts, or empty
  bool channel_scale_ = false;               // input 4 scales X's channels per image
  bool channel_shift_ = false;               // then input 5 is added to them
  bool channel_relu_ = false;                // then max(·, 0)
  // 3×3, stride 1, channel counts where it pays (undilated, or dilated in one group where most
  // taps are live): Winograd F(2×2, 3×3).
  bool winograd_ = false;
  // A dilated 3×3 stride-1 layer of one group that may run as Winograd (see the constructor).
  bool dilated_winograd_ = false;
  static constexpr int64_t kWinogradDilation = 4;
  nhwc::WinogradWeights winograd_weights_;
  const Tensor* w_ = nullptr;  // W, while a layer may still switch between Winograd and the product
  // Attribute expand: X is multiplied by WE (c → M channels), then BE and this activation added,
  // before the depthwise convolution reads it.
  bool expand_ = false;
  int64_t expand_channels_ = 0;  // c
  PackedMatrix expand_weights_;
  nn::Epilogue expand_epilogue_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNhwcConv(const KernelInfo& info) {
  return Make<NhwcConv>(info);
}

}  // namespace kiln::cpu
