// The integer convolution's non-template parts (int_conv.h).
#include "kernels/cpu/quant/int_conv.h"

#include <cstring>
#include <string>

#include "kernels/cpu/quant/quant_avx512bw.h"
#include "kernels/cpu/quant/quant_kernels.h"

namespace kiln::cpu {
namespace {

// An 8-bit tensor's element i as int32.
int32_t ByteValue(const uint8_t* data, bool is_signed, size_t i) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(data[i])) : data[i];
}

}  // namespace

IntConv::IntConv(const KernelInfo& info)
    : attrs_(nn::ReadWindowAttrs(info, {.kernel_required = false})),
      group_(info.GetInt("group", 1)) {
  if (group_ < 1) {
    info.Fail(ErrorCode::kInvalidArgument,
              "attribute 'group' is " + std::to_string(group_) + "; it must be positive");
  }
}

IntConv::Problem IntConv::Resolve(const KernelInfo& info, std::span<const int64_t> x,
                                  const Shape& w, const char* x_name, const char* w_name) const {
  // Message pieces are built only on the error paths: a run allocates nothing.
  auto xn = [&] { return std::string("input '") + x_name + "' "; };
  auto wn = [&] { return std::string("input '") + w_name + "' "; };
  auto x_text = [&] { return Shape(std::vector<int64_t>(x.begin(), x.end())).ToString(); };
  if (x.size() < 3) {
    info.Fail(ErrorCode::kInvalidArgument,
              xn() + "has shape " + x_text() + "; it needs rank 3 or more (N, C, spatial...)");
  }
  if (w.rank() != x.size()) {
    info.Fail(ErrorCode::kInvalidArgument, wn() + "has shape " + w.ToString() + " but " + xn() +
                                               "has shape " + x_text() +
                                               "; it needs the same rank");
  }
  const int64_t c = x[1], m = w.dims()[0];
  if (c % group_ != 0 || m % group_ != 0 || w.dims()[1] != c / group_) {
    info.Fail(ErrorCode::kInvalidArgument, wn() + "has shape " + w.ToString() +
                                               ", which does not fit " + xn() + x_text() +
                                               " with attribute 'group' " + std::to_string(group_));
  }
  const SmallVector<int64_t> kernel(std::span<const int64_t>(w.dims()).subspan(2));
  if (!attrs_.kernel_shape.empty() &&
      !std::equal(attrs_.kernel_shape.begin(), attrs_.kernel_shape.end(), kernel.begin(),
                  kernel.end())) {
    info.Fail(ErrorCode::kInvalidArgument,
              "attribute 'kernel_shape' does not match " + wn() + w.ToString());
  }
  for (int64_t k : kernel) {
    if (k <= 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                wn() + "has shape " + w.ToString() + "; kernel sizes must be positive");
    }
  }
  Problem p;
  p.g = nn::ResolveWindow(info, attrs_, x, kernel.span(), false);
  p.batch = static_cast<size_t>(x[0]);
  p.channels = static_cast<size_t>(c);
  p.features = static_cast<size_t>(m);
  p.group_channels = p.channels / static_cast<size_t>(group_);
  p.group_features = p.features / static_cast<size_t>(group_);
  p.out.push_back(x[0]);
  p.out.push_back(m);
  for (int64_t o : p.g.out) p.out.push_back(o);
  return p;
}

void IntConv::ReorderGroup(const uint8_t* w, size_t group_features, size_t group_channels,
                           size_t taps, size_t grp, uint8_t* dst) {
  const size_t k = group_channels * taps;
  for (size_t m = 0; m < group_features; ++m) {
    const uint8_t* src = w + (grp * group_features + m) * k;
    uint8_t* row = dst + m * k;
    for (size_t cc = 0; cc < group_channels; ++cc) {
      for (size_t t = 0; t < taps; ++t) row[t * group_channels + cc] = src[cc * taps + t];
    }
  }
}

IntConv::Weights IntConv::PackConstant(const Tensor* w, const Tensor* wzp, bool wzp_absent) const {
  Weights out;
  if (w == nullptr || !IsInt8(w->type()) || w->shape().rank() < 3) return out;
  const auto m = static_cast<size_t>(w->shape().dims()[0]);
  if (m % static_cast<size_t>(group_) != 0) return out;
  size_t taps = 1;
  for (size_t d = 2; d < w->shape().rank(); ++d) taps *= static_cast<size_t>(w->shape().dims()[d]);
  const auto gc = static_cast<size_t>(w->shape().dims()[1]);
  const size_t gf = m / static_cast<size_t>(group_);
  const auto* bytes = static_cast<const uint8_t*>(w->data());
  const bool is_signed = w->type() == DataType::kInt8;
  if (gc == 1 && gf == 1 && w->shape().rank() == 4) {
    // Depthwise: [taps][C] as int32 (m == C == group here).
    out.depthwise.resize(taps * m);
    for (size_t c = 0; c < m; ++c) {
      for (size_t t = 0; t < taps; ++t)
        out.depthwise[t * m + c] = ByteValue(bytes, is_signed, c * taps + t);
    }
  }
  if (!out.depthwise.empty()) {
    // With constant zero points (of the weights' type, one or one per channel) the rest too.
    const bool zero_known =
        wzp_absent || (wzp != nullptr && wzp->type() == w->type() &&
                       (wzp->element_count() == 1 || wzp->element_count() == m));
    if (!zero_known) return out;
    const size_t chunks = m / 32;
    const size_t pairs = (taps + 1) / 2;
    out.depthwise_chunks = chunks;
    out.depthwise_ready.resize((taps + 1) * m + (pairs + 1) * chunks * 32);
    int32_t* wt = out.depthwise_ready.data();
    const auto* zb = wzp_absent ? nullptr : static_cast<const uint8_t*>(wzp->data());
    for (size_t c = 0; c < m; ++c) {
      const int32_t z =
          zb == nullptr ? 0 : ByteValue(zb, is_signed, wzp->element_count() == 1 ? 0 : c);
      for (size_t t = 0; t < taps; ++t) wt[t * m + c] = out.depthwise[t * m + c] - z;
    }
    int32_t* sums = wt + taps * m;
    int32_t* pair_words = sums + m;
    DepthwiseSumsAndPairs(wt, taps, m, chunks, sums, pair_words, pair_words + pairs * chunks * 32);
    return out;
  }
  const size_t k = gc * taps;
  std::vector<uint8_t> reordered(gf * k);
  for (int64_t grp = 0; grp < group_; ++grp) {
    ReorderGroup(bytes, gf, gc, taps, static_cast<size_t>(grp), reordered.data());
    out.groups.push_back(Int8PackedB::Pack(reordered.data(), is_signed, k, k, gf, true));
  }
  return out;
}

void IntConv::Unfold(KernelContext& ctx, const nn::WindowGeometry& g, const uint8_t* src,
                     size_t stride, size_t gc, uint8_t fill, uint8_t* col, size_t ld) {
  const size_t taps = g.kernel_size;
  const size_t k = gc * taps;
  const bool unit_dilation =
      std::all_of(g.dilation.begin(), g.dilation.end(), [](int64_t d) { return d == 1; });
  if (g.rank() == 2 && unit_dilation) {
    // By output rows; a kernel row's taps inside the image are adjacent pixels, copied as one
    // run when the pixels hold only this group's channels.
    const int64_t kh = g.kernel[0], kw = g.kernel[1];
    const int64_t ih_n = g.in[0], iw_n = g.in[1];
    const int64_t ow_n = g.out[1];
    const size_t run = static_cast<size_t>(kw) * gc;
    ctx.threads().ParallelFor(static_cast<size_t>(g.out[0]), 1, [&](size_t r0, size_t r1) {
      for (size_t oh = r0; oh < r1; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          uint8_t* dst = col + (oh * static_cast<size_t>(ow_n) + static_cast<size_t>(ow)) * ld;
          std::memset(dst + k, 0, ld - k);
          const int64_t iw0 = ow * g.stride[1] - g.pad_begin[1];
          for (int64_t r = 0; r < kh; ++r) {
            uint8_t* seg = dst + static_cast<size_t>(r * kw) * gc;
            const int64_t ih = static_cast<int64_t>(oh) * g.stride[0] - g.pad_begin[0] + r;
            if (ih < 0 || ih >= ih_n) {
              std::memset(seg, fill, run);
              continue;
            }
            const uint8_t* row = src + static_cast<size_t>(ih * iw_n) * stride;
            if (stride == gc && iw0 >= 0 && iw0 + kw <= iw_n) {
              std::memcpy(seg, row + static_cast<size_t>(iw0) * gc, run);
              continue;
            }
            for (int64_t t = 0; t < kw; ++t) {
              const int64_t iw = iw0 + t;
              uint8_t* d = seg + static_cast<size_t>(t) * gc;
              if (iw < 0 || iw >= iw_n) {
                std::memset(d, fill, gc);
              } else {
                std::memcpy(d, row + static_cast<size_t>(iw) * stride, gc);
              }
            }
          }
        }
      }
    });
    return;
  }
  // Any rank: by taps, each tap a block of columns in every row (each row's padding zeroed first).
  if (ld > k) {
    for (size_t pos = 0; pos < g.out_size; ++pos) std::memset(col + pos * ld + k, 0, ld - k);
  }
  const auto s = static_cast<size_t>(g.stride.back());
  const auto row_len = static_cast<size_t>(g.out.back());
  ctx.threads().ParallelFor(taps, 1, [&](size_t t0, size_t t1) {
    for (size_t tap = t0; tap < t1; ++tap) {
      nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
        const auto first = static_cast<size_t>(lo);
        const auto last = static_cast<size_t>(hi);
        for (size_t o = 0; o < row_len; ++o) {
          uint8_t* dst = col + (out_offset + o) * ld + tap * gc;
          if (o >= first && o < last) {
            std::memcpy(dst, src + (static_cast<size_t>(in_base) + o * s) * stride, gc);
          } else {
            std::memset(dst, fill, gc);
          }
        }
      });
    }
  });
}

void IntConv::DepthwiseWeights(const Tensor& w, bool from_packed, const Weights& packed,
                               std::span<const int32_t> wzp, size_t taps, size_t channels,
                               int32_t* dst) {
  const auto* bytes = static_cast<const uint8_t*>(w.data());
  const bool is_signed = w.type() == DataType::kInt8;
  for (size_t c = 0; c < channels; ++c) {
    const int32_t z = wzp.size() == 1 ? wzp[0] : wzp[c];
    for (size_t t = 0; t < taps; ++t) {
      const int32_t v = from_packed ? packed.depthwise[t * channels + c]
                                    : ByteValue(bytes, is_signed, c * taps + t);
      dst[t * channels + c] = v - z;
    }
  }
}

namespace {

// acc[c] += (x[c] - xz) · w[c] for c < n.
template <typename T>
KILN_VECTOR_CLONES void MultiplyAdd(const T* x, int32_t xz, const int32_t* w, size_t n,
                                    int32_t* acc) {
  for (size_t c = 0; c < n; ++c) acc[c] += (static_cast<int32_t>(x[c]) - xz) * w[c];
}

}  // namespace

bool DepthwisePairsSupported() {
#if defined(__x86_64__)
  static const bool bw = __builtin_cpu_supports("avx512bw");
  return bw && UseVectorMathAvx512();
#else
  return false;
#endif
}

nn::WindowGeometry IntConv::PaddedDepthwiseGeometry(const nn::WindowGeometry& g) {
  nn::WindowGeometry none;
  none.in = SmallVector<int64_t>{};
  if (g.rank() != 2 || !UseVectorMathAvx512()) return none;
  // Output positions along each axis whose windows lie inside the image.
  int64_t inside = 1;
  bool pads = false;
  for (size_t a = 0; a < 2; ++a) {
    pads = pads || g.pad_begin[a] != 0 || g.pad_end[a] != 0;
    const int64_t extent = (g.kernel[a] - 1) * g.dilation[a];
    int64_t count = 0;
    for (int64_t o = 0; o < g.out[a]; ++o) {
      const int64_t first = o * g.stride[a] - g.pad_begin[a];
      count += first >= 0 && first + extent < g.in[a] ? 1 : 0;
    }
    inside *= count;
  }
  const auto all = static_cast<int64_t>(g.out_size);
  if (!pads || 8 * (all - inside) <= all) return none;
  nn::WindowGeometry p = g;
  for (size_t a = 0; a < 2; ++a) {
    p.in[a] = g.in[a] + g.pad_begin[a] + g.pad_end[a];
    p.pad_begin[a] = 0;
    p.pad_end[a] = 0;
  }
  p.Finish();
  return p;
}

void IntConv::PadImage(const nn::WindowGeometry& g, const uint8_t* src, size_t channels,
                       uint8_t fill, uint8_t* dst) {
  const auto h = static_cast<size_t>(g.in[0]), w = static_cast<size_t>(g.in[1]);
  const auto top = static_cast<size_t>(g.pad_begin[0]), left = static_cast<size_t>(g.pad_begin[1]);
  const size_t padded_w = w + left + static_cast<size_t>(g.pad_end[1]);
  const size_t padded_h = h + top + static_cast<size_t>(g.pad_end[0]);
  const size_t row = padded_w * channels;
  for (size_t y = 0; y < padded_h; ++y) {
    uint8_t* d = dst + y * row;
    if (y < top || y >= top + h) {
      std::memset(d, fill, row);
      continue;
    }
    std::memset(d, fill, left * channels);
    std::memcpy(d + left * channels, src + (y - top) * w * channels, w * channels);
    std::memset(d + (left + w) * channels, fill, row - (left + w) * channels);
  }
}

void IntConv::DepthwiseSumsAndPairs(const int32_t* wt, size_t taps, size_t channels, size_t chunks,
                                    int32_t* sums, int32_t* pairs, int32_t* pair_sums) {
  std::fill(sums, sums + channels, 0);
  for (size_t t = 0; t < taps; ++t) {
    for (size_t c = 0; c < channels; ++c) sums[c] += wt[t * channels + c];
  }
  // Each tap's weight w - wz lies in [-255, 255]: a 16-bit value.
  const size_t tap_pairs = (taps + 1) / 2;
  for (size_t k = 0; k < chunks; ++k) {
    for (size_t lane = 0; lane < 32; ++lane) {
      const size_t c = 32 * k + DepthwisePairChannel(lane);
      pair_sums[k * 32 + lane] = sums[c];
      for (size_t q = 0; q < tap_pairs; ++q) {
        const auto first = static_cast<uint32_t>(wt[2 * q * channels + c]) & 0xffffu;
        const uint32_t second =
            2 * q + 1 < taps ? static_cast<uint32_t>(wt[(2 * q + 1) * channels + c]) << 16 : 0u;
        pairs[(q * chunks + k) * 32 + lane] = static_cast<int32_t>(first | second);
      }
    }
  }
}

IntConv::DepthwiseOperands IntConv::PrepareDepthwise(KernelContext& ctx,
                                                     const nn::WindowGeometry& g, const Tensor& w,
                                                     const Weights& packed,
                                                     std::span<const int32_t> wzp,
                                                     size_t channels) {
  const size_t taps = g.kernel_size;
  auto* tap_offset = ctx.Scratch<int64_t>(taps);
  for (int64_t r = 0; r < g.kernel[0]; ++r) {
    for (int64_t t = 0; t < g.kernel[1]; ++t) {
      tap_offset[r * g.kernel[1] + t] =
          (r * g.dilation[0] * g.in[1] + t * g.dilation[1]) * static_cast<int64_t>(channels);
    }
  }
  const bool pairs_here = DepthwisePairsSupported();
  if (!packed.depthwise_ready.empty()) {
    // Made once with the constant zero points.
    const int32_t* wt = packed.depthwise_ready.data();
    const int32_t* sums = wt + taps * channels;
    const size_t chunks = pairs_here ? packed.depthwise_chunks : 0;
    const int32_t* pair_words = sums + channels;
    return {wt,
            sums,
            tap_offset,
            pair_words,
            pair_words + (taps + 1) / 2 * packed.depthwise_chunks * 32,
            chunks};
  }
  auto* wt = ctx.Scratch<int32_t>((taps + 1) * channels);
  DepthwiseWeights(w, !packed.depthwise.empty(), packed, wzp, taps, channels, wt);
  int32_t* sums = wt + taps * channels;
  const size_t chunks = pairs_here ? channels / 32 : 0;
  const size_t tap_pairs = (taps + 1) / 2;
  auto* pair_words = ctx.Scratch<int32_t>(std::max<size_t>((tap_pairs + 1) * chunks * 32, 1));
  int32_t* pair_sums = pair_words + tap_pairs * chunks * 32;
  DepthwiseSumsAndPairs(wt, taps, channels, chunks, sums, pair_words, pair_sums);
  return {wt, sums, tap_offset, pair_words, pair_sums, chunks};
}

void IntConv::DepthwiseBlock(const nn::WindowGeometry& g, const uint8_t* src, bool x_signed,
                             int32_t xzp, const DepthwiseOperands& d, size_t channels, size_t pos0,
                             size_t count, int32_t* acc) {
  const int32_t* w = d.w;
  const int64_t ow_n = g.out[1];
  const bool avx512 = UseVectorMathAvx512();
  // A window's first and last rows and columns.
  const int64_t extent_h = (g.kernel[0] - 1) * g.dilation[0];
  const int64_t extent_w = (g.kernel[1] - 1) * g.dilation[1];
  const auto origin = [&](int64_t oh, int64_t ow) {
    return std::pair{oh * g.stride[0] - g.pad_begin[0], ow * g.stride[1] - g.pad_begin[1]};
  };
  const auto inside = [&](int64_t oh, int64_t ow) {
    const auto [ih, iw] = origin(oh, ow);
    return ih >= 0 && ih + extent_h < g.in[0] && iw >= 0 && iw + extent_w < g.in[1];
  };
  // Each position's live taps listed (input pixel and weights), then summed along the channels.
  SmallVector<const uint8_t*, 49> xs(g.kernel_size);  // on the stack up to 7 × 7
  SmallVector<const int32_t*, 49> ws(g.kernel_size);
  for (size_t i = 0; i < count;) {
    const auto pos = static_cast<int64_t>(pos0 + i);
    const int64_t oh = pos / ow_n, ow = pos % ow_n;
    int32_t* a = acc + i * channels;
    if (avx512 && inside(oh, ow)) {
      // The run of positions from here, in this output row, whose windows lie inside the image.
      size_t run = 1;
      while (i + run < count && ow + static_cast<int64_t>(run) < ow_n &&
             inside(oh, ow + static_cast<int64_t>(run))) {
        ++run;
      }
      const auto [ih, iw] = origin(oh, ow);
      const uint8_t* first = src + static_cast<size_t>(ih * g.in[1] + iw) * channels;
      const size_t step = static_cast<size_t>(g.stride[1]) * channels;
      if (d.chunks > 0) {
        DepthwiseRunPairsAvx512Bw(first, d.tap_offset, g.kernel_size, step, run, d.pairs,
                                  d.pair_sums, d.chunks, x_signed, xzp, a, channels);
      }
      DepthwiseRunAvx512(first, d.tap_offset, g.kernel_size, step, run, w, d.w_sums, 32 * d.chunks,
                         channels, x_signed, xzp, a, channels);
      i += run;
      continue;
    }
    size_t live = 0;
    for (int64_t r = 0; r < g.kernel[0]; ++r) {
      const int64_t ih = oh * g.stride[0] - g.pad_begin[0] + r * g.dilation[0];
      if (ih < 0 || ih >= g.in[0]) continue;
      for (int64_t t = 0; t < g.kernel[1]; ++t) {
        const int64_t iw = ow * g.stride[1] - g.pad_begin[1] + t * g.dilation[1];
        if (iw < 0 || iw >= g.in[1]) continue;
        xs[live] = src + static_cast<size_t>(ih * g.in[1] + iw) * channels;
        ws[live] = w + static_cast<size_t>(r * g.kernel[1] + t) * channels;
        ++live;
      }
    }
    ++i;
    if (avx512) {
      DepthwiseSumsAvx512(xs.data(), ws.data(), live, channels, x_signed, xzp, a);
      continue;
    }
    std::fill(a, a + channels, 0);
    for (size_t t = 0; t < live; ++t) {
      if (x_signed) {
        MultiplyAdd(reinterpret_cast<const int8_t*>(xs[t]), xzp, ws[t], channels, a);
      } else {
        MultiplyAdd(xs[t], xzp, ws[t], channels, a);
      }
    }
  }
}

}  // namespace kiln::cpu
