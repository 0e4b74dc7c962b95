// Windowed pooling, any spatial rank:
//   MaxPool (opsets 1–23: versions 1, 8 (storage_order, optional int64 Indices output), 10
//     (ceil_mode, dilations), 11, 12 (int8, uint8), 22 (bfloat16));
//   AveragePool (versions 1, 7 (count_include_pad), 10 (ceil_mode), 11, 19 (dilations), 22);
//   LpPool (versions 1 (float p), 2 (int p), 11, 18 (ceil_mode, dilations), 22).
// Types: float, double, float16 and bfloat16 (through float); MaxPool also int8 and uint8.
// MaxPool ignores NaN unless the whole window is NaN and takes the first maximum in row-major
// window order. A window lying entirely in the padding is an error for MaxPool and for
// AveragePool without count_include_pad (it has no element to take); LpPool gives 0 there.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/nn/window.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

using nn::WindowGeometry;

enum class PoolKind { kMax, kAverage, kLp };

// The number of k in [0, kernel) with lo <= base + k * dilation < hi.
int64_t TapsWithin(int64_t base, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi) {
  const int64_t first = std::max<int64_t>(0, nn::CeilDiv(lo - base, dilation));
  const int64_t end = std::min(kernel, nn::CeilDiv(hi - base, dilation));
  return std::max<int64_t>(0, end - first);
}

// The number of taps of the window at position o along axis d that fall inside the input
// (`padded` false) or inside the padded input (`padded` true).
int64_t AxisTaps(const WindowGeometry& g, size_t d, int64_t o, bool padded) {
  const int64_t base = o * g.stride[d] - g.pad_begin[d];
  return padded
             ? TapsWithin(base, g.dilation[d], g.kernel[d], -g.pad_begin[d], g.in[d] + g.pad_end[d])
             : TapsWithin(base, g.dilation[d], g.kernel[d], 0, g.in[d]);
}

// Whether some window position has no tap inside the input.
bool AnyEmptyWindow(const WindowGeometry& g) {
  for (size_t d = 0; d < g.rank(); ++d) {
    for (int64_t o = 0; o < g.out[d]; ++o) {
      if (AxisTaps(g, d, o, false) == 0) return true;
    }
  }
  return false;
}

// divisor[i] = the number of taps of window position i (row-major in g.out) inside the input, or
// inside the padded input when `padded`: the product of the per-axis counts.
void CountTaps(const WindowGeometry& g, bool padded, double* divisor) {
  SmallVector<int64_t> o(g.rank(), 0);  // the position of divisor[i]
  for (size_t i = 0; i < g.out_size; ++i) {
    double count = 1.0;
    for (size_t d = 0; d < g.rank(); ++d)
      count *= static_cast<double>(AxisTaps(g, d, o[d], padded));
    divisor[i] = count;
    for (size_t d = g.rank(); d-- > 0;) {
      if (++o[d] < g.out[d]) break;
      o[d] = 0;
    }
  }
}

// Converts a row-major offset within one image plane to the column-major one.
int64_t ColumnMajor(const WindowGeometry& g, int64_t offset) {
  int64_t result = 0;
  int64_t column_stride = 1;
  for (size_t d = 0; d < g.rank(); ++d) {
    result += offset / static_cast<int64_t>(g.in_strides[d]) % g.in[d] * column_stride;
    column_stride *= g.in[d];
  }
  return result;
}

struct PoolParams {
  PoolKind kind;
  bool count_include_pad = false;
  bool column_major_indices = false;
  double p = 2.0;
};

// One output plane of MaxPool of float or double without Indices: each output is the maximum of
// its window ignoring NaN (NaN when all taps are NaN: starting from NaN, a NaN maximum gives way to
// any number). One vector-cloned function per plane, so short rows pay no per-row dispatch.
template <typename T>
KILN_VECTOR_CLONES void MaxPoolPlane(const WindowGeometry& g, const T* src, T* dst) {
  const int64_t s = g.stride.back();
  std::fill(dst, dst + g.out_size, std::numeric_limits<T>::quiet_NaN());
  auto max_row = [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
    T* best = dst + out_offset;
    const T* in = src + in_base;
    for (int64_t o = lo; o < hi; ++o) {
      const T v = in[o * s];
      const T b = best[o];
      best[o] = (v > b || std::isnan(b)) ? v : b;
    }
  };
  if (g.rank() == 2) {
    nn::ForEachTapRow2D(g, [&](size_t out_offset, size_t, int64_t in_base, int64_t lo, int64_t hi) {
      max_row(out_offset, in_base, lo, hi);
    });
    return;
  }
  for (size_t tap = 0; tap < g.kernel_size; ++tap) nn::ForEachTapRow(g, tap, max_row);
}

template <typename T>
void MaxPoolValues(KernelContext& ctx, const WindowGeometry& g, size_t planes, const T* x, T* y) {
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size * g.kernel_size));
  ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
    for (size_t plane = begin; plane < end; ++plane) {
      MaxPoolPlane(g, x + plane * g.in_size, y + plane * g.out_size);
    }
  });
}

// Each chunk of planes takes its running maxima from the kernel's scratch memory.
template <typename T>
void MaxPoolPlanes(KernelContext& ctx, const WindowGeometry& g, size_t planes,
                   const PoolParams& params, const T* x, T* y, int64_t* indices) {
  using Acc = nn::AccOf<T>;
  const int64_t s = g.stride.back();
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size * g.kernel_size));
  ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
    Acc* best = ctx.Scratch<Acc>(g.out_size);
    int64_t* arg = ctx.Scratch<int64_t>(g.out_size);
    for (size_t plane = begin; plane < end; ++plane) {
      const T* src = x + plane * g.in_size;
      std::fill(arg, arg + g.out_size, int64_t{-1});
      for (size_t tap = 0; tap < g.kernel_size; ++tap) {
        nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
          Acc* b = best + out_offset;
          int64_t* a = arg + out_offset;
          for (int64_t o = lo; o < hi; ++o) {
            const int64_t at = in_base + o * s;
            const Acc v = nn::Load(src[at]);
            if (a[o] < 0 || v > b[o] || (nn::IsNan(b[o]) && !nn::IsNan(v))) {
              b[o] = v;
              a[o] = at;
            }
          }
        });
      }
      T* dst = y + plane * g.out_size;
      for (size_t i = 0; i < g.out_size; ++i) dst[i] = nn::Store<T>(best[i]);
      if (indices != nullptr) {
        const auto base = static_cast<int64_t>(plane * g.in_size);
        int64_t* idx = indices + plane * g.out_size;
        for (size_t i = 0; i < g.out_size; ++i) {
          idx[i] = base + (params.column_major_indices ? ColumnMajor(g, arg[i]) : arg[i]);
        }
      }
    }
  });
}

// AveragePool and LpPool: a sum over the window of x or |x|^p, then divided or raised to 1/p.
// `divisor` (one per window position) is read for AveragePool only. Each chunk of planes takes
// its sums from the kernel's scratch memory.
template <typename T>
void SumPoolPlanes(KernelContext& ctx, const WindowGeometry& g, size_t planes,
                   const PoolParams& params, const double* divisor, const T* x, T* y) {
  using Acc = nn::AccOf<T>;
  const int64_t s = g.stride.back();
  const Acc p = static_cast<Acc>(params.p);
  const bool lp = params.kind == PoolKind::kLp;
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size * g.kernel_size));
  ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
    Acc* sum = ctx.Scratch<Acc>(g.out_size);
    for (size_t plane = begin; plane < end; ++plane) {
      const T* src = x + plane * g.in_size;
      std::fill(sum, sum + g.out_size, Acc(0));
      for (size_t tap = 0; tap < g.kernel_size; ++tap) {
        nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
          Acc* acc = sum + out_offset;
          if (!lp) {
            for (int64_t o = lo; o < hi; ++o) acc[o] += nn::Load(src[in_base + o * s]);
          } else if (p == Acc(2)) {
            for (int64_t o = lo; o < hi; ++o) {
              const Acc v = nn::Load(src[in_base + o * s]);
              acc[o] += v * v;
            }
          } else {
            for (int64_t o = lo; o < hi; ++o) {
              acc[o] += std::pow(std::abs(nn::Load(src[in_base + o * s])), p);
            }
          }
        });
      }
      T* dst = y + plane * g.out_size;
      for (size_t i = 0; i < g.out_size; ++i) {
        Acc v;
        if (!lp) {
          v = sum[i] / static_cast<Acc>(divisor[i]);
        } else if (p == Acc(2)) {
          v = std::sqrt(sum[i]);
        } else if (p == Acc(1)) {
          v = sum[i];
        } else {
          v = std::pow(sum[i], Acc(1) / p);
        }
        dst[i] = nn::Store<T>(v);
      }
    }
  });
}

class Pool final : public Kernel {
 public:
  Pool(const KernelInfo& info, PoolKind kind) : kind_(kind) {
    const int64_t opset = info.opset();
    nn::WindowOptions options{.kernel_required = true};
    switch (kind) {
      case PoolKind::kMax:
        options.dilations = opset >= 10;
        options.ceil_mode = opset >= 10;
        break;
      case PoolKind::kAverage:
        options.dilations = opset >= 19;
        options.ceil_mode = opset >= 10;
        break;
      case PoolKind::kLp:
        options.dilations = opset >= 18;
        options.ceil_mode = opset >= 18;
        break;
    }
    attrs_ = nn::ReadWindowAttrs(info, options);
    params_.kind = kind;
    if (kind == PoolKind::kAverage && opset >= 7) {
      params_.count_include_pad = info.GetInt("count_include_pad", 0) != 0;
    }
    if (kind == PoolKind::kMax) {
      if (opset < 8 && info.output_count() > 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "output 'Indices' exists from opset 8 (this node is opset " +
                      std::to_string(opset) + ")");
      }
      const int64_t order = opset >= 8 ? info.GetInt("storage_order", 0) : 0;
      if (order != 0 && order != 1) {
        info.Fail(ErrorCode::kInvalidArgument, "attribute 'storage_order' is " +
                                                   std::to_string(order) +
                                                   "; expected 0 (row major) or 1 (column major)");
      }
      params_.column_major_indices = order == 1;
    }
    if (kind == PoolKind::kLp) {
      params_.p = opset >= 2 ? static_cast<double>(info.GetInt("p", 2))
                             : static_cast<double>(info.GetFloat("p", 2.0f));
      if (!(params_.p > 0)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'p' is " + std::to_string(params_.p) + "; it must be positive");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    if (kind_ == PoolKind::kMax) {
      nn::RequireOpsetForType(info, "X", x.type(), DataType::kInt8, 12);
      nn::RequireOpsetForType(info, "X", x.type(), DataType::kUint8, 12);
    }
    const WindowGeometry g = nn::ResolveWindow(info, attrs_, x.shape(), attrs_.kernel_shape, true);
    SmallVector<int64_t> y_dims = {x.shape().dims()[0], x.shape().dims()[1]};
    for (int64_t d : g.out) y_dims.push_back(d);
    const size_t planes = static_cast<size_t>(y_dims[0]) * static_cast<size_t>(y_dims[1]);

    Tensor& y = ctx.OutputForOverwrite(0, x.type(), y_dims.span());
    Tensor* indices = nullptr;
    if (kind_ == PoolKind::kMax && ctx.WantsOutput(1)) {
      indices = &ctx.Output(1, DataType::kInt64, y_dims.span());
    }
    if (y.element_count() == 0) return;
    const bool needs_element =
        kind_ == PoolKind::kMax || (kind_ == PoolKind::kAverage && !params_.count_include_pad);
    if (needs_element && AnyEmptyWindow(g)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "a window lies entirely in the padding (attribute 'pads' or auto_pad, input 'X' " +
                    x.shape().ToString() + "): it has no element to pool");
    }

    if (kind_ == PoolKind::kMax) {
      Dispatch<float, double, Float16, BFloat16, int8_t, uint8_t>(x.type(), info, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_floating_point_v<T>) {
          if (indices == nullptr) {
            MaxPoolValues(ctx, g, planes, static_cast<const T*>(x.data()),
                          static_cast<T*>(y.data()));
            return;
          }
        }
        MaxPoolPlanes(ctx, g, planes, params_, static_cast<const T*>(x.data()),
                      static_cast<T*>(y.data()),
                      indices != nullptr ? static_cast<int64_t*>(indices->data()) : nullptr);
      });
      return;
    }
    // Counted once the output exists, so its size is known to be reasonable.
    double* divisor = nullptr;
    if (kind_ == PoolKind::kAverage) {
      divisor = ctx.Scratch<double>(g.out_size);
      CountTaps(g, params_.count_include_pad, divisor);
    }
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      SumPoolPlanes(ctx, g, planes, params_, divisor, static_cast<const T*>(x.data()),
                    static_cast<T*>(y.data()));
    });
  }

 private:
  PoolKind kind_;
  nn::WindowAttrs attrs_;
  PoolParams params_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMaxPool(const KernelInfo& info) {
  return std::make_unique<Pool>(info, PoolKind::kMax);
}

std::unique_ptr<Kernel> MakeAveragePool(const KernelInfo& info) {
  return std::make_unique<Pool>(info, PoolKind::kAverage);
}

std::unique_ptr<Kernel> MakeLpPool(const KernelInfo& info) {
  return std::make_unique<Pool>(info, PoolKind::kLp);
}

}  // namespace kiln::cpu
