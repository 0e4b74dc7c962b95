// NhwcConv (ai.kiln, opset 1): 2-D convolution on channels-last input X [N, H, W, C] with ONNX
// Conv's attributes (auto_pad, dilations, group, kernel_shape, pads, strides), W [M, C/group, kH,
// kW] (OIHW, a constant initializer, repacked once), optional B [M] and Z [N, OH, OW, M], and the
// fused activation of conv_epilogue.h: Y [N, OH, OW, M] = act(conv(X, W) + B + Z). float only.
//
// Paths: depthwise (C/group == 1, group > 1) is a direct loop vectorized along the channels;
// everything else multiplies blocks of output pixels, [P, kH·kW·C/group] · [kH·kW·C/group, M/group]
// per group, the left side being X itself for a 1×1, stride 1, unpadded kernel and an im2col of
// the block (contiguous C-runs per tap) otherwise. Blocks run in parallel, each thread calling the
// single-threaded sgemm, and get the epilogue while they are still in cache.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/nhwc/nhwc_kernels.h"
#include "kernels/cpu/nhwc/nhwc_window.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nhwc::TapRange;
using nhwc::Taps;
using nn::WindowGeometry;

// 256 KB of floats for the im2col block and its output block: measured on ResNet-50 layers,
// anything from 48 to 256 pixels per block runs at the same speed; 1 MB blocks are 40% slower.
constexpr size_t kBlockFloats = size_t{64} * 1024;

// The sizes of one call.
struct Problem {
  size_t batch = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  size_t channels = 0;        // C
  size_t features = 0;        // M
  size_t groups = 1;          // group
  size_t group_channels = 0;  // C / group
  size_t group_features = 0;  // M / group
  WindowGeometry g;
};

struct Operands {
  const float* x;
  const float* w;     // packed
  const float* bias;  // nullptr when absent
  const float* z;     // nullptr when absent
  float* y;
};

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

// One output row (image n, row oy) of a depthwise convolution: w is [kH·kW, M] and output channel
// m reads input channel m / (M / C).
KILN_VECTOR_CLONES void DepthwiseRow(const Problem& p, const float* x_image, const float* w,
                                     int64_t oy, float* y_row) {
  const WindowGeometry& g = p.g;
  const size_t c_in = p.channels;
  const size_t m_out = p.features;
  const size_t mult = m_out / c_in;
  const TapRange ry = Taps(oy, g.stride[0], g.dilation[0], g.pad_begin[0], p.in_h, g.kernel[0]);
  const int64_t iy0 = oy * g.stride[0] - g.pad_begin[0];
  const int64_t sx = g.stride[1];
  const int64_t room = p.in_w - (g.kernel[1] - 1) * g.dilation[1] + g.pad_begin[1];
  TapRange inner;
  inner.lo = std::min(p.out_w, nn::CeilDiv(g.pad_begin[1], sx));
  inner.hi = std::max(inner.lo, std::min(p.out_w, room <= 0 ? 0 : nn::CeilDiv(room, sx)));
  if (mult == 1) {
    // Blocks of 8 columns (their input stays in L1 for a few hundred channels), and in each
    // chunks of 64 channels, then 16, 8, 1 (a chunk's weights stay in L1 for any C).
    for (int64_t b = 0; b < p.out_w; b += 8) {
      const int64_t e = std::min(p.out_w, b + 8);
      size_t c0 = 0;
      for (; c0 + 64 <= c_in; c0 += 64)
        RowChunk<64>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 16 <= c_in; c0 += 16)
        RowChunk<16>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 + 8 <= c_in; c0 += 8) RowChunk<8>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
      for (; c0 < c_in; ++c0) RowChunk<1>(p, x_image, w, ry, inner, iy0, c0, b, e, y_row);
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

void RunDepthwise(const Problem& p, const Operands& o, const nn::Epilogue& e, ThreadPool& pool) {
  const size_t rows = p.batch * static_cast<size_t>(p.out_h);
  const size_t row_size = static_cast<size_t>(p.out_w) * p.features;
  const size_t work = std::max<size_t>(1, row_size * p.g.kernel_size);
  pool.ParallelFor(rows, std::max<size_t>(1, 32768 / work), [&](size_t begin, size_t end) {
    for (size_t r = begin; r < end; ++r) {
      const size_t n = r / static_cast<size_t>(p.out_h);
      const auto oy = static_cast<int64_t>(r % static_cast<size_t>(p.out_h));
      const float* x_image = o.x + n * static_cast<size_t>(p.in_h * p.in_w) * p.channels;
      float* y_row = o.y + r * row_size;
      DepthwiseRow(p, x_image, o.w, oy, y_row);
      nn::ApplyEpilogueRows(e, y_row, static_cast<size_t>(p.out_w), p.features, p.features, o.bias,
                            o.z != nullptr ? o.z + r * row_size : nullptr, p.features);
    }
  });
}

// Copies n floats (n is often small: C = 3 for a first layer).
inline void CopyRun(const float* src, size_t n, float* dst) {
  std::memcpy(dst, src, n * sizeof(float));
}

// Unfolds output pixels [begin, end) (flat over N·OH·OW) into col, one row of k = kH·kW·C
// elements per pixel, ordered [group][tap][C/group], zeros in the padding.
void Im2ColBlock(const Problem& p, const float* x, size_t begin, size_t end, float* col) {
  const WindowGeometry& g = p.g;
  const size_t c = p.channels;
  const size_t cg = p.group_channels;
  const auto kh = g.kernel[0];
  const auto kw = g.kernel[1];
  const size_t k = g.kernel_size * c;
  const size_t group_k = g.kernel_size * cg;
  const size_t plane = static_cast<size_t>(p.out_h * p.out_w);
  // With one group and dense columns, a kernel row's taps inside the image are one contiguous run.
  const bool row_runs = p.groups == 1 && g.dilation[1] == 1;
  for (size_t pix = begin; pix < end; ++pix) {
    float* dst = col + (pix - begin) * k;
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
      if (row_runs) {
        float* d = dst + static_cast<size_t>(ky * kw) * c;
        if (!row_inside) {
          std::fill(d, d + static_cast<size_t>(kw) * c, 0.0f);
          continue;
        }
        std::fill(d, d + static_cast<size_t>(rx.lo) * c, 0.0f);
        if (rx.hi > rx.lo) {
          CopyRun(image + static_cast<size_t>(iy * p.in_w + ix0 + rx.lo) * c,
                  static_cast<size_t>(rx.hi - rx.lo) * c, d + static_cast<size_t>(rx.lo) * c);
        }
        std::fill(d + static_cast<size_t>(rx.hi) * c, d + static_cast<size_t>(kw) * c, 0.0f);
        continue;
      }
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

void RunGemmPath(const Problem& p, const Operands& o, const nn::Epilogue& e, KernelContext& ctx) {
  const size_t pixels = p.batch * static_cast<size_t>(p.out_h * p.out_w);
  const size_t k = p.g.kernel_size * p.channels;  // im2col row length, all groups
  const size_t group_k = p.g.kernel_size * p.group_channels;
  const bool pointwise = p.g.IsPointwise();
  const size_t block = std::clamp<size_t>(kBlockFloats / (k + p.features), 32, 4096);
  const size_t blocks = (pixels + block - 1) / block;
  ctx.threads().ParallelFor(blocks, 1, [&](size_t first, size_t last) {
    float* col = pointwise ? nullptr : ctx.Scratch<float>(block * k);
    for (size_t b = first; b < last; ++b) {
      const size_t begin = b * block;
      const size_t rows = std::min(block, pixels - begin);
      const float* a = o.x + begin * p.channels;
      size_t lda = p.channels;
      if (!pointwise) {
        Im2ColBlock(p, o.x, begin, begin + rows, col);
        a = col;
        lda = k;
      }
      float* y = o.y + begin * p.features;
      for (size_t grp = 0; grp < p.groups; ++grp) {
        // A pointwise group's columns start at its first channel; an im2col group's at its block.
        const float* ag = a + grp * (pointwise ? p.group_channels : group_k);
        Gemm<float>(false, false, rows, p.group_features, group_k, 1.0f, ag, lda,
                    o.w + grp * group_k * p.group_features, p.group_features, 0.0f,
                    y + grp * p.group_features, p.features, nullptr);
      }
      nn::ApplyEpilogueRows(e, y, rows, p.features, p.features, o.bias,
                            o.z != nullptr ? o.z + begin * p.features : nullptr, p.features);
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
    Pack(static_cast<const float*>(w->data()));
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor* b = ctx.OptionalInput(2);
    const Tensor* z = ctx.OptionalInput(3);
    nhwc::RequireFloat(info, "X", x);
    nhwc::RequireRank4(info, x);
    const Problem p = Check(info, x, b);
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
    const Operands o = {static_cast<const float*>(x.data()), packed_.data(),
                        b != nullptr ? static_cast<const float*>(b->data()) : nullptr,
                        z != nullptr ? static_cast<const float*>(z->data()) : nullptr,
                        static_cast<float*>(y.data())};
    if (depthwise_) {
      RunDepthwise(p, o, epilogue_, ctx.threads());
    } else {
      RunGemmPath(p, o, epilogue_, ctx);
    }
  }

 private:
  // W [M, C/group, kH, kW] → depthwise: [kH·kW, M]; otherwise, per group, [kH·kW·C/group, M/group]
  // with row tap·(C/group) + c (the im2col row order).
  // OIHW → [group][tap][C/group][M/group] (depthwise: [tap][M]). A transpose: written in
  // destination order, sixteen features at a time, so each source row's cache lines serve all
  // its taps while they are loaded (a feature-major loop took ~150 ms on ResNet-50's weights).
  void Pack(const float* w) {
    const auto m = static_cast<size_t>(features_);
    const auto cg = static_cast<size_t>(group_channels_);
    const auto taps = static_cast<size_t>(kernel_[0] * kernel_[1]);
    const auto groups = static_cast<size_t>(group_);
    const size_t mg = m / groups;
    packed_.resize(m * cg * taps);
    constexpr size_t kBlock = 16;
    for (size_t grp = 0; grp < groups; ++grp) {
      for (size_t f0 = 0; f0 < mg; f0 += kBlock) {
        const size_t f1 = std::min(mg, f0 + kBlock);
        for (size_t c = 0; c < cg; ++c) {
          for (size_t tap = 0; tap < taps; ++tap) {
            for (size_t fg = f0; fg < f1; ++fg) {
              const size_t f = grp * mg + fg;
              const float v = w[(f * cg + c) * taps + tap];
              if (depthwise_) {
                packed_[tap * m + f] = v;
              } else {
                packed_[grp * taps * cg * mg + (tap * cg + c) * mg + fg] = v;
              }
            }
          }
        }
      }
    }
  }

  Problem Check(const KernelInfo& info, const Tensor& x, const Tensor* b) const {
    const auto& d = x.shape().dims();
    const int64_t c = d[3];
    if (c != group_channels_ * group_) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + x.shape().ToString() + " with " + std::to_string(c) +
                    " channels, but input 'W' has " + std::to_string(group_channels_) +
                    " input channels per group in " + std::to_string(group_) + " groups (needs " +
                    std::to_string(group_channels_ * group_) + ")");
    }
    if (b != nullptr && (b->shape().rank() != 1 || b->shape().dims()[0] != features_)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b->shape().ToString() +
                                                 "; expected [" + std::to_string(features_) +
                                                 "] (one bias per output channel of W)");
    }
    Problem p;
    p.g = nhwc::ResolveNhwc(info, attrs_, x.shape(), std::span<const int64_t>(kernel_), false);
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
  std::vector<float> packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeNhwcConv(const KernelInfo& info) {
  return Make<NhwcConv>(info);
}

}  // namespace kiln::cpu
