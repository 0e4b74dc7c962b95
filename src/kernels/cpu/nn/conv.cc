// Conv (opsets 1–23: versions 1, 11 and 22, which differ only in documentation and, from 22, the
// bfloat16 type): 1-D, 2-D, 3-D (any spatial rank), group, dilations, strides, pads, auto_pad,
// optional bias, kernel_shape inferred from W. float and double through im2col + cpu::Gemm, with a
// direct path for depthwise convolution; float16 and bfloat16 through float.
// FusedConv (com.microsoft, opset 1; ONNX Runtime's op): the same for float, plus input Z (3) and
// an activation (conv_epilogue.h), folded into the pass that adds the bias.
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
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

// `col` holds ColumnSize(p) elements (nullptr when that is 0). `fused` is only honoured for float
// (FusedConv is float only).
template <typename T>
void RunConv(const ConvProblem& p, const T* x, const T* w, const T* b, T* y, T* col,
             ThreadPool& pool, const Fused& fused = {}) {
  const WindowGeometry& g = p.window;
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
    const size_t col_size = ColumnSize(info, p);

    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* bias = b != nullptr ? static_cast<const T*>(b->data()) : nullptr;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        T* col = col_size != 0 ? ctx.Scratch<T>(col_size) : nullptr;
        Fused fused;
        if (fused_) {
          fused.epilogue = &epilogue_;
          fused.z = z != nullptr ? static_cast<const float*>(z->data()) : nullptr;
        }
        RunConv(p, static_cast<const T*>(x.data()), static_cast<const T*>(w.data()), bias,
                static_cast<T*>(y.data()), col, ctx.threads(), fused);
      } else {
        nn::RunThroughFloat<T>(
            ctx, x, w, b, y, col_size,
            [&](const float* xf, const float* wf, const float* bf, float* yf, float* col) {
              RunConv<float>(p, xf, wf, bf, yf, col, ctx.threads());
            });
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
