// Internal to kernels/cpu/quant: the integer convolution ConvInteger, QLinearConv and the
// channels-last NhwcQLinearConv share — the sums of (x - x_zero_point) · (w - w_zero_point[m])
// over each window, padding adding 0 — and the helpers of their epilogues.
//
//   IntConv conv(info);                                   // the window attributes and group
//   IntConv::Weights packed = conv.PackConstant(w, wzp);  // once, when w is a constant
//   IntConv::Problem p = conv.Resolve(info, x_nchw_dims, w.shape(), "x", "w");
//   IntConv::Run(ctx, p, x, channels_last, w, xzp, wzp, packed, rows, group_done);
//
// Run hands the sums to rows(n, first_feature, features, pos0, count, sums, ld) a block of output
// positions at a time, from the thread that made them (sums[r·ld + j]: position pos0 + r of image
// n, output channel first_feature + j), then calls group_done(n, first_feature, features) on the
// calling thread once the block's group is finished. Two ways:
//   - a product (any group size): per image and group, the input (channels-last, or transposed to
//     it) unfolded into a row of bytes per output position ordered (tap, channel) — a kernel row's
//     taps copied as one run where they are adjacent — times the group's weights on Int8Gemm,
//     whose epilogue hands over each block of rows while it is in cache;
//   - depthwise (one input and one output channel per group, 2-D): along the channels of a
//     channels-last image, each tap's bytes times the weights widened to int32 once per run, in
//     blocks of positions.
#ifndef KILN_KERNELS_CPU_QUANT_INT_CONV_H_
#define KILN_KERNELS_CPU_QUANT_INT_CONV_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/quant/int8_gemm.h"
#include "kernels/cpu/quant/quant_avx512.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/vectorize.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// dst[c·ld + r] = src[r·ld_src + c] for r < rows, c < cols, in blocks of 32 × 32 (each block's
// reads and writes stay in L1).
template <typename T>
void TransposeBlocked(const T* src, size_t rows, size_t cols, size_t ld_src, T* dst, size_t ld) {
  constexpr size_t kBlock = 32;
  for (size_t r0 = 0; r0 < rows; r0 += kBlock) {
    const size_t r1 = std::min(rows, r0 + kBlock);
    for (size_t c0 = 0; c0 < cols; c0 += kBlock) {
      const size_t c1 = std::min(cols, c0 + kBlock);
      for (size_t r = r0; r < r1; ++r) {
        for (size_t c = c0; c < c1; ++c) dst[c * ld + r] = src[r * ld_src + c];
      }
    }
  }
}

// Requantize across one output position's channels: y[j] = saturate(round_half_even((acc[j] +
// b[j]) · mult[j]) + zp) for j < n, the sum and product in double (QLinearConv's arithmetic,
// vectorized along the channels); b may be null (no bias). mult holds float multipliers.
template <typename T>
KILN_VECTOR_CLONES void RequantizeChannels(const int32_t* acc, size_t n, const int32_t* b,
                                           const float* mult, int32_t zp, T* y) {
  constexpr auto lo = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr auto hi = static_cast<double>(std::numeric_limits<T>::max());
  const auto z = static_cast<double>(zp);
  if (b == nullptr) {
    for (size_t j = 0; j < n; ++j) {
      const double q = std::nearbyint(static_cast<double>(acc[j]) * mult[j]) + z;
      y[j] = static_cast<T>(std::clamp(q, lo, hi));
    }
    return;
  }
  for (size_t j = 0; j < n; ++j) {
    const double q =
        std::nearbyint((static_cast<double>(acc[j]) + static_cast<double>(b[j])) * mult[j]) + z;
    y[j] = static_cast<T>(std::clamp(q, lo, hi));
  }
}

// RequantizeChannels on AVX-512 where the machine has it (the same values: see
// RequantizeRowAvx512).
template <typename T>
void RequantizeRow(const int32_t* acc, size_t n, const int32_t* b, const float* mult, int32_t zp,
                   T* y) {
  if (UseVectorMathAvx512()) {
    RequantizeRowAvx512(acc, n, b, mult, zp, std::is_signed_v<T>, reinterpret_cast<uint8_t*>(y));
  } else {
    RequantizeChannels(acc, n, b, mult, zp, y);
  }
}

// RequantizeRow over `rows` rows (acc's row i at acc + i·lda, y's at y + i·ldy).
template <typename T>
void RequantizeRows(const int32_t* acc, size_t lda, size_t rows, size_t n, const int32_t* b,
                    const float* mult, int32_t zp, T* y, size_t ldy) {
  if (UseVectorMathAvx512()) {
    RequantizeRowsAvx512(acc, lda, rows, n, b, mult, zp, std::is_signed_v<T>,
                         reinterpret_cast<uint8_t*>(y), ldy);
  } else {
    for (size_t r = 0; r < rows; ++r)
      RequantizeChannels(acc + r * lda, n, b, mult, zp, y + r * ldy);
  }
}

// Whether the depthwise sums take two taps per instruction here (AVX-512 BW, and the AVX-512
// loops not turned off by tests: UseVectorMathAvx512).
bool DepthwisePairsSupported();

class IntConv {
 public:
  explicit IntConv(const KernelInfo& info);

  struct Problem {
    nn::WindowGeometry g;
    size_t batch = 0, channels = 0, features = 0, group_channels = 0, group_features = 0;
    SmallVector<int64_t> out;  // [N, M, spatial...]
    // One input and one output channel per group over a 2-D image: the depthwise path.
    bool depthwise() const { return group_channels == 1 && group_features == 1 && g.rank() == 2; }
  };

  // x's dimensions in [N, C, spatial...] order (a channels-last input's reordered); checks them
  // against w's and the attributes, naming the inputs `x_name` and `w_name`.
  Problem Resolve(const KernelInfo& info, std::span<const int64_t> x, const Shape& w,
                  const char* x_name, const char* w_name) const;

  // The weights prepared once: each group's packed for Int8Gemm, or for a depthwise layer the
  // weights as int32 [taps][C] (their zero points subtracted per run).
  struct Weights {
    std::vector<Int8PackedB> groups;
    std::vector<int32_t> depthwise;
    // A depthwise layer whose zero points are constants too: what PrepareDepthwise makes per run
    // otherwise — the weights less their zero points [taps][C], then Σ_t per channel, then the
    // first 32 · chunks channels' pairs of taps and their sums (quant_avx512bw.h's layout).
    std::vector<int32_t> depthwise_ready;
    size_t depthwise_chunks = 0;
    bool empty() const { return groups.empty() && depthwise.empty(); }
  };
  // When w is a constant 8-bit tensor of a shape Resolve can accept; else empty (done per run).
  // `wzp`: the weights' zero points when they are a constant (one, or one per output channel),
  // or `wzp_absent` when there are none (0).
  Weights PackConstant(const Tensor* w, const Tensor* wzp = nullptr, bool wzp_absent = false) const;

  // `target`, when given, is target(n, first_feature, features) -> Int8Requant: where the rows
  // handler would requantize a group's sums of image n to (its row 0, channel first_feature),
  // so that the product may requantize them itself (Int8Epilogue::requant); rows must do the
  // same.
  template <typename Rows, typename GroupDone, typename Target = std::nullptr_t>
  static void Run(KernelContext& ctx, const Problem& p, const Tensor& x, bool channels_last,
                  const Tensor& w, int32_t xzp, std::span<const int32_t> wzp, const Weights& packed,
                  Rows&& rows, GroupDone&& group_done, Target&& target = nullptr);

 private:
  // Group `grp`'s weights reordered for Int8Gemm's B, stored transposed (a row per output
  // channel) with the depth ordered (tap, channel).
  static void ReorderGroup(const uint8_t* w, size_t group_features, size_t group_channels,
                           size_t taps, size_t grp, uint8_t* dst);
  // col[pos · ld + tap · gc + c] for every output position of g: the window's bytes of the image
  // `src` (pixel i's gc channels at src + i · stride), `fill` where a tap reads padding; each
  // row's bytes from k = taps · gc to ld zero. Split over ctx's threads.
  static void Unfold(KernelContext& ctx, const nn::WindowGeometry& g, const uint8_t* src,
                     size_t stride, size_t gc, uint8_t fill, uint8_t* col, size_t ld);
  // The depthwise weights as int32 [taps][C], each less its channel's zero point.
  static void DepthwiseWeights(const Tensor& w, bool from_packed, const Weights& packed,
                               std::span<const int32_t> wzp, size_t taps, size_t channels,
                               int32_t* dst);
  // A depthwise layer's weights as made per run: w int32 [taps][C], w_sums[c] = Σ_t w[t][c],
  // tap_offset[t] the byte offset of tap t's pixel from a window's origin; and where
  // DepthwisePairsSupported(), the first 32 · chunks channels' weights as pairs of taps
  // (quant_avx512bw.h's layout) with their sums (chunks 0 otherwise).
  struct DepthwiseOperands {
    const int32_t* w = nullptr;
    const int32_t* w_sums = nullptr;
    const int64_t* tap_offset = nullptr;
    const int32_t* pairs = nullptr;
    const int32_t* pair_sums = nullptr;
    size_t chunks = 0;
  };
  // A 2-D depthwise layer's geometry over its input padded (pads 0, the input that much larger)
  // where more than an eighth of its output positions' windows reach into the padding and the
  // AVX-512 runs are on; else an empty geometry (rank 0).
  static nn::WindowGeometry PaddedDepthwiseGeometry(const nn::WindowGeometry& g);
  // The channels-last image src (g.in, C channels a pixel) into dst with g's padding around it,
  // each padding byte `fill`.
  static void PadImage(const nn::WindowGeometry& g, const uint8_t* src, size_t channels,
                       uint8_t fill, uint8_t* dst);
  // Σ_t wt[t][c] into sums, and where chunks > 0 the pairs of taps and their sums.
  static void DepthwiseSumsAndPairs(const int32_t* wt, size_t taps, size_t channels, size_t chunks,
                                    int32_t* sums, int32_t* pairs, int32_t* pair_sums);
  // Makes them in ctx's scratch (the weights' part taken from `packed` where it is ready).
  static DepthwiseOperands PrepareDepthwise(KernelContext& ctx, const nn::WindowGeometry& g,
                                            const Tensor& w, const Weights& packed,
                                            std::span<const int32_t> wzp, size_t channels);
  // The depthwise sums of positions [pos0, pos0 + count) of the channels-last image src (C
  // channels a pixel) into acc[count][C] (on AVX-512, the runs of positions whose windows lie
  // inside the image by whole vectors from the tap offsets, the pairs of taps where there are).
  static void DepthwiseBlock(const nn::WindowGeometry& g, const uint8_t* src, bool x_signed,
                             int32_t xzp, const DepthwiseOperands& d, size_t channels, size_t pos0,
                             size_t count, int32_t* acc);

  nn::WindowAttrs attrs_;
  int64_t group_;
};

template <typename Rows, typename GroupDone, typename Target>
void IntConv::Run(KernelContext& ctx, const Problem& p, const Tensor& x, bool channels_last,
                  const Tensor& w, int32_t xzp, std::span<const int32_t> wzp, const Weights& packed,
                  Rows&& rows, GroupDone&& group_done, Target&& target) {
  const nn::WindowGeometry& g = p.g;
  const size_t plane = g.out_size;
  if (plane == 0 || p.features == 0 || p.batch == 0) return;
  const size_t c_all = p.channels;
  const auto* xb = static_cast<const uint8_t*>(x.data());
  const bool x_signed = x.type() == DataType::kInt8;
  // A channels-first image transposed to channels-last, all channels at once.
  uint8_t* xt =
      channels_last ? nullptr : ctx.Scratch<uint8_t>(std::max<size_t>(g.in_size * c_all, 1));
  auto image = [&](size_t n) -> const uint8_t* {
    const uint8_t* src = xb + n * c_all * g.in_size;
    if (channels_last) return src;
    const size_t blocks = (g.in_size + 255) / 256;
    ctx.threads().ParallelFor(blocks, 1, [&](size_t b0, size_t b1) {
      const size_t i0 = b0 * 256;
      const size_t i1 = std::min(g.in_size, b1 * 256);
      TransposeBlocked(src + i0, c_all, i1 - i0, g.in_size, xt + i0 * c_all, c_all);
    });
    return xt;
  };

  if (p.depthwise()) {
    // Where many windows reach into the padding (small images), the image is first copied into a
    // padded one (the zero point's bytes around it, which add nothing), over which every window
    // is whole: the border positions then take the vector runs too.
    const nn::WindowGeometry gp = PaddedDepthwiseGeometry(g);
    const bool padded = gp.rank() != 0;
    const nn::WindowGeometry& gd = padded ? gp : g;
    uint8_t* pad_image = padded ? ctx.Scratch<uint8_t>(gp.in_size * c_all) : nullptr;
    const DepthwiseOperands d = PrepareDepthwise(ctx, gd, w, packed, wzp, c_all);
    constexpr size_t kBlock = 16;
    const size_t blocks = (plane + kBlock - 1) / kBlock;
    for (size_t n = 0; n < p.batch; ++n) {
      const uint8_t* src = image(n);
      if (padded) {
        PadImage(g, src, c_all, static_cast<uint8_t>(xzp), pad_image);
        src = pad_image;
      }
      ctx.threads().ParallelFor(
          blocks, std::max<size_t>(1, 256 / c_all), [&](size_t b0, size_t b1) {
            auto* acc = ctx.Scratch<int32_t>(kBlock * c_all);
            for (size_t b = b0; b < b1; ++b) {
              const size_t pos0 = b * kBlock;
              const size_t count = std::min(kBlock, plane - pos0);
              DepthwiseBlock(gd, src, x_signed, xzp, d, c_all, pos0, count, acc);
              rows(n, size_t{0}, c_all, pos0, count, static_cast<const int32_t*>(acc), c_all);
            }
          });
      group_done(n, size_t{0}, c_all);
    }
    return;
  }

  const size_t groups = c_all / p.group_channels;
  const size_t gc = p.group_channels;
  const size_t gf = p.group_features;
  const size_t taps = g.kernel_size;
  const size_t k = gc * taps;
  // A 1×1 stride-1 unpadded layer of one group reads the channels-last image as it is.
  const bool direct = g.IsPointwise() && groups == 1;
  // Unfolded rows padded to whole groups of four bytes, which Int8Gemm then reads in place.
  const size_t ld = (k + 3) / 4 * 4;
  uint8_t* col = direct ? nullptr : ctx.Scratch<uint8_t>(plane * std::max<size_t>(ld, 1));
  const auto fill = static_cast<uint8_t>(xzp);
  for (size_t n = 0; n < p.batch; ++n) {
    const uint8_t* src = image(n);
    for (size_t grp = 0; grp < groups; ++grp) {
      const uint8_t* a = src;
      if (!direct) {
        Unfold(ctx, g, src + grp * gc, c_all, gc, fill, col, ld);
        a = col;
      }
      Int8PackedB run_packed;
      const Int8PackedB* b = packed.groups.empty() ? nullptr : &packed.groups[grp];
      if (b == nullptr) {
        // Weights that change per run: reordered and packed into scratch.
        auto* reordered = ctx.Scratch<uint8_t>(std::max<size_t>(gf * k, 1));
        ReorderGroup(static_cast<const uint8_t*>(w.data()), gf, gc, taps, grp, reordered);
        run_packed = Int8PackedB::PackInto(ctx.Scratch<int8_t>(Int8PackedB::PanelBytes(k, gf)),
                                           ctx.Scratch<int32_t>(std::max<size_t>(gf, 1)), reordered,
                                           w.type() == DataType::kInt8, k, k, gf, true);
        b = &run_packed;
      }
      const size_t first = grp * gf;
      const auto emit = [&](size_t pos0, size_t count, const int32_t* sums, size_t ld) {
        rows(n, first, gf, pos0, count, sums, ld);
      };
      const std::span<const int32_t> zb = wzp.size() == 1 ? wzp : wzp.subspan(first, gf);
      Int8Epilogue epilogue = Int8Epilogue::Of(emit);
      Int8Requant requant;
      if constexpr (!std::is_same_v<std::decay_t<Target>, std::nullptr_t>) {
        requant = target(n, first, gf);
        epilogue.requant = &requant;
      }
      Int8Gemm(plane, a, x_signed, direct ? c_all : ld, *b, {&xzp, 1}, zb, nullptr, 0,
               &ctx.threads(), epilogue);
      group_done(n, first, gf);
    }
  }
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_INT_CONV_H_
