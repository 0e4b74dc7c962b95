// ConvTranspose (opsets 1–23: versions 1, 11 and 22): any spatial rank, group, dilations, strides,
// pads, auto_pad, output_padding, output_shape, optional bias. float and double through cpu::Gemm
// + col2im; float16 and bfloat16 through float.
//
// Padding when output_shape or SAME_UPPER/SAME_LOWER fixes the output size: total padding is
// s * (in - 1) + output_padding + ((k - 1) * d + 1) - out (0 when negative; pads are never
// negative). SAME_UPPER puts the odd element at the end and SAME_LOWER at the beginning, as the
// auto_pad documentation says in every version (the opset-1 equations state the opposite split and
// contradict it). With output_shape and auto_pad NOTSET or VALID the odd element goes at the end
// before opset 11 and at the beginning from opset 11, as each version's equations give.
#include <algorithm>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/linalg/gemm.h"
#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

using nn::CheckedAdd;
using nn::CheckedMul;
using nn::WindowGeometry;

// The sizes of one ConvTranspose call. `window` describes the equivalent convolution: its image
// is Y, its window positions are the elements of X.
struct ConvTransposeProblem {
  size_t batch = 0;
  size_t channels = 0;  // C, input channels
  size_t features = 0;  // M, output channels
  size_t groups = 1;
  size_t group_channels = 0;  // C / group
  size_t group_features = 0;  // M / group
  WindowGeometry window;
};

// The col2im matrix's element count for one group, or 0 when col2im is the identity.
size_t ColumnSize(const KernelInfo& info, const ConvTransposeProblem& p) {
  const WindowGeometry& g = p.window;
  if (g.IsPointwise()) return 0;
  size_t col_size;
  if (__builtin_mul_overflow(p.group_features * g.kernel_size, g.out_size, &col_size)) {
    info.Fail(ErrorCode::kInvalidArgument, "the col2im buffer size overflows size_t");
  }
  return col_size;
}

// `col` holds ColumnSize(p) elements; it is not used when the window is pointwise.
template <typename T>
void RunConvTranspose(const ConvTransposeProblem& p, const T* x, const T* w, const T* b, T* y,
                      T* col, ThreadPool& pool) {
  const WindowGeometry& g = p.window;
  const size_t x_plane = g.out_size;
  const size_t y_plane = g.in_size;
  const bool pointwise = g.IsPointwise();
  const size_t rows = p.group_features * g.kernel_size;
  if (!pointwise) std::fill(y, y + p.batch * p.features * y_plane, T(0));
  for (size_t n = 0; n < p.batch; ++n) {
    for (size_t grp = 0; grp < p.groups; ++grp) {
      const T* xg = x + (n * p.channels + grp * p.group_channels) * x_plane;
      const T* wg = w + grp * p.group_channels * rows;
      T* yg = y + (n * p.features + grp * p.group_features) * y_plane;
      // col[(m, tap), position] = sum over c of W[c, m, tap] * X[c, position].
      T* dst = pointwise ? yg : col;
      Gemm<T>(true, false, rows, x_plane, p.group_channels, T(1), wg, rows, xg, x_plane, T(0), dst,
              x_plane, &pool);
      if (!pointwise) nn::Col2ImAdd(col, p.group_features, g, yg, pool);
    }
  }
  if (b != nullptr) {
    pool.ParallelFor(p.batch * p.features, 16, [&](size_t begin, size_t end) {
      for (size_t plane = begin; plane < end; ++plane) {
        const T bias = b[plane % p.features];
        T* out = y + plane * y_plane;
        for (size_t i = 0; i < y_plane; ++i) out[i] += bias;
      }
    });
  }
}

class ConvTranspose final : public Kernel {
 public:
  explicit ConvTranspose(const KernelInfo& info)
      : attrs_(nn::ReadWindowAttrs(info, {.kernel_required = false})),
        group_(info.GetInt("group", 1)),
        output_padding_(info.GetInts("output_padding")),
        output_shape_(info.GetInts("output_shape")),
        odd_padding_first_(info.opset() >= 11) {
    if (group_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'group' is " + std::to_string(group_) + "; it must be positive");
    }
    for (int64_t v : output_padding_) {
      if (v < 0) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'output_padding' has " + std::to_string(v) + "; it must be >= 0");
      }
    }
    for (int64_t v : output_shape_) {
      if (v < 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'output_shape' has " + std::to_string(v) + "; sizes must be positive");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& w = ctx.Input(1);
    const Tensor* b = ctx.OptionalInput(2);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    nn::RequireSameType(info, "W", w, x.type());
    if (b != nullptr) nn::RequireSameType(info, "B", *b, x.type());

    const ConvTransposeProblem p = Check(info, x.shape(), w.shape(), b);
    SmallVector<int64_t> y_dims = {x.shape().dims()[0], static_cast<int64_t>(p.features)};
    for (int64_t d : p.window.in) y_dims.push_back(d);
    Tensor& y = ctx.Output(0, x.type(), y_dims.span());
    if (y.element_count() == 0) return;
    const size_t col_size = ColumnSize(info, p);

    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* bias = b != nullptr ? static_cast<const T*>(b->data()) : nullptr;
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        T* col = col_size != 0 ? ctx.Scratch<T>(col_size) : nullptr;
        RunConvTranspose(p, static_cast<const T*>(x.data()), static_cast<const T*>(w.data()), bias,
                         static_cast<T*>(y.data()), col, ctx.threads());
      } else {
        nn::RunThroughFloat<T>(
            ctx, x, w, b, y, col_size,
            [&](const float* xf, const float* wf, const float* bf, float* yf, float* col) {
              RunConvTranspose<float>(p, xf, wf, bf, yf, col, ctx.threads());
            });
      }
    });
  }

 private:
  ConvTransposeProblem Check(const KernelInfo& info, const Shape& x, const Shape& w,
                             const Tensor* b) const {
    if (x.rank() < 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + x.ToString() +
                                                 "; it needs rank 3 or more (N, C, spatial...)");
    }
    if (w.rank() != x.rank()) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'W' has shape " + w.ToString() +
                                                 " but input 'X' has shape " + x.ToString() +
                                                 "; W needs the same rank (C, M/group, kernel...)");
    }
    const int64_t c = x.dims()[1];
    if (c % group_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has " + std::to_string(c) +
                                                 " channels, which attribute 'group' " +
                                                 std::to_string(group_) + " does not divide");
    }
    if (w.dims()[0] != c) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + w.ToString() + " with " + std::to_string(w.dims()[0]) +
                    " input channels, but input 'X' " + x.ToString() + " has " + std::to_string(c));
    }
    const int64_t m = CheckedMul(info, w.dims()[1], group_, "the output channel count");
    const size_t rank = x.rank() - 2;
    const SmallVector<int64_t> kernel(std::span<const int64_t>(w.dims()).subspan(2));
    if (!attrs_.kernel_shape.empty() &&
        !std::equal(attrs_.kernel_shape.begin(), attrs_.kernel_shape.end(), kernel.begin(),
                    kernel.end())) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'kernel_shape' does not match input 'W' " + w.ToString());
    }
    if (std::find(kernel.begin(), kernel.end(), 0) != kernel.end()) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'W' has shape " + w.ToString() + "; kernel sizes must be positive");
    }
    if (b != nullptr && (b->shape().rank() != 1 || b->shape().dims()[0] != m)) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'B' has shape " + b->shape().ToString() +
                                                 "; expected [" + std::to_string(m) +
                                                 "] (one bias per output channel)");
    }
    const auto check_rank = [&](const char* name, size_t size, bool ok) {
      if (size != 0 && !ok) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("attribute '") + name + "' has " +
                                                   std::to_string(size) + " values but input 'X' " +
                                                   x.ToString() + " has " + std::to_string(rank) +
                                                   " spatial axes");
      }
    };
    check_rank("strides", attrs_.strides.size(), attrs_.strides.size() == rank);
    check_rank("dilations", attrs_.dilations.size(), attrs_.dilations.size() == rank);
    check_rank("pads", attrs_.pads.size(), attrs_.pads.size() == 2 * rank);
    check_rank("output_padding", output_padding_.size(), output_padding_.size() == rank);
    check_rank("output_shape", output_shape_.size(),
               output_shape_.size() == rank || output_shape_.size() == rank + 2);

    ConvTransposeProblem p;
    WindowGeometry& g = p.window;
    g.out.assign(x.dims().begin() + 2, x.dims().end());
    g.kernel = kernel;
    if (attrs_.strides.empty()) {
      g.stride.assign(rank, 1);
    } else {
      g.stride.assign(attrs_.strides.begin(), attrs_.strides.end());
    }
    if (attrs_.dilations.empty()) {
      g.dilation.assign(rank, 1);
    } else {
      g.dilation.assign(attrs_.dilations.begin(), attrs_.dilations.end());
    }
    g.in.assign(rank, 0);
    g.pad_begin.assign(rank, 0);
    g.pad_end.assign(rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t s = g.stride[d];
      const int64_t adj = output_padding_.empty() ? 0 : output_padding_[d];
      if (adj >= std::max(s, g.dilation[d])) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'output_padding' has " + std::to_string(adj) + " at axis " +
                      std::to_string(d) + "; it must be less than the stride or the dilation");
      }
      const int64_t extent = CheckedMul(info, kernel[d] - 1, g.dilation[d], "the kernel extent");
      const int64_t full =
          CheckedAdd(info, CheckedMul(info, s, g.out[d] - 1, "the output size"),
                     CheckedAdd(info, extent, adj + 1, "the output size"), "the output size");
      const bool same =
          attrs_.auto_pad == nn::AutoPad::kSameUpper || attrs_.auto_pad == nn::AutoPad::kSameLower;
      if (!output_shape_.empty() || same) {
        g.in[d] = !output_shape_.empty() ? output_shape_[output_shape_.size() - rank + d]
                                         : CheckedMul(info, g.out[d], s, "the output size");
        const int64_t total = full > g.in[d] ? full - g.in[d] : 0;
        const bool odd_first = attrs_.auto_pad == nn::AutoPad::kSameLower ||
                               (attrs_.auto_pad != nn::AutoPad::kSameUpper && odd_padding_first_);
        g.pad_begin[d] = odd_first ? total - total / 2 : total / 2;
        g.pad_end[d] = total - g.pad_begin[d];
      } else {
        if (attrs_.auto_pad == nn::AutoPad::kNotSet && !attrs_.pads.empty()) {
          g.pad_begin[d] = attrs_.pads[d];
          g.pad_end[d] = attrs_.pads[d + rank];
        }
        const int64_t padding = CheckedAdd(info, g.pad_begin[d], g.pad_end[d], "the padding");
        if (full <= padding) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "attribute 'pads' leaves no output along spatial axis " + std::to_string(d) +
                        " (full size " + std::to_string(full) + ", padding " +
                        std::to_string(padding) + ") for input 'X' " + x.ToString());
        }
        g.in[d] = full - padding;
      }
    }
    g.Finish();
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
  std::vector<int64_t> output_padding_;
  std::vector<int64_t> output_shape_;
  bool odd_padding_first_;  // output_shape, auto_pad NOTSET or VALID: odd padding at the beginning
};

}  // namespace

std::unique_ptr<Kernel> MakeConvTranspose(const KernelInfo& info) {
  return Make<ConvTranspose>(info);
}

}  // namespace kiln::cpu
