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
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/nn/pool.h"
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

// MaxPool without Indices and AveragePool reduce a box: the window of an output position is the
// product of one run of taps per axis (the taps of that axis inside the input). So the reduction
// over the window is one reduction along each axis in turn, last axis first: k₀ + k₁ + ... loads
// per output instead of k₀ · k₁ · ... (a 3×3×3 window: 9 instead of 27), each pass a contiguous
// loop the compiler vectorizes. Exact for the maximum (associative: NaN only when the whole
// window is NaN, as without the passes); the sum adds in another order than the window's.

// One pass: for each of `outer` blocks of `in` positions along the axis, each position a run of
// `inner` contiguous values, out positions of `inner` values.
struct AxisPass {
  size_t outer = 1;
  size_t inner = 1;
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad = 0;
};

struct MaxOp {
  // The NaN-ignoring maximum: b gives way to a larger v, and a NaN b to anything.
  template <typename A>
  [[gnu::always_inline]] static A Apply(A b, A v) {
    return (v > b || b != b) ? v : b;  // NOLINT(misc-redundant-expression): b != b is isnan(b)
  }
  // What a window's running maximum starts from: NaN (any value replaces it), or an integer
  // type's least value.
  template <typename A>
  static A Empty() {
    if constexpr (std::numeric_limits<A>::has_quiet_NaN) {
      return std::numeric_limits<A>::quiet_NaN();
    } else {
      return std::numeric_limits<A>::lowest();
    }
  }
};

struct SumOp {
  template <typename A>
  [[gnu::always_inline]] static A Apply(A b, A v) {
    return b + v;
  }
  template <typename A>
  static A Empty() {
    return A(0);
  }
};

// The taps [k0, k1) of output position j of axis a that fall inside the input.
[[gnu::always_inline]] inline void AxisTapRange(const AxisPass& a, int64_t j, int64_t& k0,
                                                int64_t& k1) {
  const int64_t base = j * a.stride - a.pad;
  k0 = std::max<int64_t>(0, nn::CeilDiv(-base, a.dilation));
  k1 = std::min(a.kernel, nn::CeilDiv(a.in - base, a.dilation));
}

// r[i] = Op over the taps k < kernel of t[i + k·step], for i < n: every window of a run at once.
// In chunks that stay in L1 across the taps.
template <typename Op, typename In, typename Acc>
[[gnu::always_inline]] inline void ReduceRun(const In* t, size_t step, size_t kernel, size_t n,
                                             Acc* r) {
  constexpr size_t kChunk = 2048;
  for (size_t c = 0; c < n; c += kChunk) {
    const size_t m = std::min(kChunk, n - c);
    const In* tc = t + c;
    Acc* rc = r + c;
    for (size_t i = 0; i < m; ++i) rc[i] = nn::Load(tc[i]);
    for (size_t k = 1; k < kernel; ++k) {
      const In* tk = tc + k * step;
      for (size_t i = 0; i < m; ++i) rc[i] = Op::Apply(rc[i], nn::Load(tk[i]));
    }
  }
}

// dst[j] (`inner` values) = Op over the live taps k of src[j·stride − pad + k·dilation], for the
// positions j in [begin, end) whose window is cut by the input's ends (or lies outside it).
template <typename Op, typename In, typename Acc>
[[gnu::always_inline]] inline void ReduceEdges(const AxisPass& a, int64_t begin, int64_t end,
                                               const In* src, Acc* dst) {
  const size_t inner = a.inner;
  for (int64_t j = begin; j < end; ++j) {
    int64_t k0 = 0;
    int64_t k1 = 0;
    AxisTapRange(a, j, k0, k1);
    const int64_t base = j * a.stride - a.pad;
    Acc* dj = dst + static_cast<size_t>(j) * inner;
    if (k0 >= k1) {
      std::fill(dj, dj + inner, Op::template Empty<Acc>());
      continue;
    }
    const In* t = src + static_cast<size_t>(base + k0 * a.dilation) * inner;
    for (size_t i = 0; i < inner; ++i) dj[i] = nn::Load(t[i]);
    for (int64_t k = k0 + 1; k < k1; ++k) {
      t = src + static_cast<size_t>(base + k * a.dilation) * inner;
      for (size_t i = 0; i < inner; ++i) dj[i] = Op::Apply(dj[i], nn::Load(t[i]));
    }
  }
}

// dst[o][j] (`inner` values) = Op over the live taps k of src[o][j·stride − pad + k·dilation].
// Positions [lo, hi) have every tap inside the input: their windows are reduced as long
// contiguous runs (ReduceRun) whatever the stride, then each position takes its own; the edge
// positions one by one. row: scratch for RowScratch(a) values.
template <typename Op, typename In, typename Acc>
[[gnu::always_inline]] inline void ReduceAxis(const AxisPass& a, const In* src, Acc* dst,
                                              Acc* row) {
  const size_t inner = a.inner;
  const auto in = static_cast<size_t>(a.in);
  const auto out = static_cast<size_t>(a.out);
  const auto stride = static_cast<size_t>(a.stride);
  const auto kernel = static_cast<size_t>(a.kernel);
  const size_t step = static_cast<size_t>(a.dilation) * inner;
  const int64_t lo = std::min(a.out, nn::CeilDiv(a.pad, a.stride));
  const int64_t last = a.in - 1 + a.pad - (a.kernel - 1) * a.dilation;
  const int64_t hi = last < 0 ? lo : std::clamp(last / a.stride + 1, lo, a.out);
  const auto interior = static_cast<size_t>(hi - lo);
  // The input position of lo's window (inside the input when there is an interior).
  const size_t start = interior > 0 ? static_cast<size_t>(lo * a.stride - a.pad) : 0;
  if (inner == 1) {
    // The last axis, whose rows are short (S3D's: 28 to 112): the windows at every input
    // position of all the rows at once, as one run (a window that crosses into the next row is
    // never taken); then each row takes every stride-th.
    if (interior > 0) ReduceRun<Op>(src, step, kernel, a.outer * in - (kernel - 1) * step, row);
    // The edge positions a column at a time: their taps are the same in every row.
    for (int64_t j = 0; j < a.out; ++j) {
      if (j == lo) j = hi;
      if (j >= a.out) break;
      int64_t k0 = 0;
      int64_t k1 = 0;
      AxisTapRange(a, j, k0, k1);
      const int64_t base = j * a.stride - a.pad;
      for (size_t o = 0; o < a.outer; ++o) {
        const In* s = src + o * in;
        Acc v = Op::template Empty<Acc>();
        if (k0 < k1) {
          v = nn::Load(s[base + k0 * a.dilation]);
          for (int64_t k = k0 + 1; k < k1; ++k)
            v = Op::Apply(v, nn::Load(s[base + k * a.dilation]));
        }
        dst[o * out + static_cast<size_t>(j)] = v;
      }
    }
    for (size_t o = 0; o < a.outer; ++o) {
      Acc* d = dst + o * out;
      const Acc* r = row + o * in + start;
      Acc* di = d + lo;
      if (stride == 1) {
        for (size_t j = 0; j < interior; ++j) di[j] = r[j];
      } else if (stride == 2) {
        for (size_t j = 0; j < interior; ++j) di[j] = r[2 * j];
      } else {
        for (size_t j = 0; j < interior; ++j) di[j] = r[j * stride];
      }
    }
    return;
  }
  // An inner axis: a position is a run of `inner` contiguous values.
  for (size_t o = 0; o < a.outer; ++o) {
    const In* s = src + o * in * inner;
    Acc* d = dst + o * out * inner;
    ReduceEdges<Op>(a, 0, lo, s, d);
    ReduceEdges<Op>(a, hi, a.out, s, d);
    if (interior == 0) continue;
    const In* first = s + start * inner;
    Acc* di = d + static_cast<size_t>(lo) * inner;
    if (stride == 1) {
      ReduceRun<Op>(first, step, kernel, interior * inner, di);
      continue;
    }
    // Every input position from lo's window to the last one's, then every stride-th.
    ReduceRun<Op>(first, step, kernel, ((interior - 1) * stride + 1) * inner, row);
    for (size_t j = 0; j < interior; ++j) {
      std::memcpy(di + j * inner, row + j * stride * inner, inner * sizeof(Acc));
    }
  }
}

// The scratch ReduceAxis needs for pass a.
size_t RowScratch(const AxisPass& a) {
  return a.inner == 1 ? a.outer * static_cast<size_t>(a.in) : static_cast<size_t>(a.in) * a.inner;
}

// Whether axis d's window is one element at the same position (kernel 1, stride 1, no padding).
bool IdentityAxis(const WindowGeometry& g, size_t d) {
  return g.kernel[d] == 1 && g.stride[d] == 1 && g.pad_begin[d] == 0 && g.out[d] == g.in[d];
}

// The positions of the leading identity axes (S3D's (1, 3, 3) windows: the frames), whose
// slices are pooled as planes of their own, so that a pass's values stay in the core's caches
// (a 16×112×112 plane reduced whole went through 2.4 MB of scratch). The last axis stays.
size_t LeadingIdentity(const WindowGeometry& g) {
  size_t lead = 1;
  for (size_t d = 0; d + 1 < g.rank() && IdentityAxis(g, d); ++d) {
    lead *= static_cast<size_t>(g.in[d]);
  }
  return lead;
}

// The passes of window g over planes of in_size / lead values (lead = LeadingIdentity(g)), last
// axis first, leaving out the identity axes; the most values any pass writes, and the most row
// scratch any needs.
SmallVector<AxisPass> AxisPasses(const WindowGeometry& g, size_t lead, size_t* widest,
                                 size_t* row) {
  SmallVector<AxisPass> passes;
  *widest = 0;
  *row = 0;
  size_t inner = 1;
  for (size_t d = g.rank(); d-- > 0;) {
    if (!IdentityAxis(g, d)) {
      AxisPass a;
      for (size_t e = 0; e < d; ++e) a.outer *= static_cast<size_t>(g.in[e]);
      a.outer /= lead;
      a.inner = inner;
      a.in = g.in[d];
      a.out = g.out[d];
      a.kernel = g.kernel[d];
      a.stride = g.stride[d];
      a.dilation = g.dilation[d];
      a.pad = g.pad_begin[d];
      passes.push_back(a);
      *widest = std::max(*widest, a.outer * a.inner * static_cast<size_t>(a.out));
      *row = std::max(*row, RowScratch(a));
    }
    inner *= static_cast<size_t>(g.out[d]);
  }
  return passes;
}

// Planes [begin, end) of x reduced over the window into `result` (out_size values a plane, of
// Acc), through the scratch buffers a and b (the passes' `widest` values each) and row.
template <typename Op, typename T, typename Acc>
KILN_VECTOR_CLONES void ReducePlanes(const SmallVector<AxisPass>& passes, size_t in_size,
                                     size_t out_size, const T* x, size_t begin, size_t end, Acc* a,
                                     Acc* b, Acc* row, Acc* result) {
  const size_t count = passes.size();
  for (size_t plane = begin; plane < end; ++plane) {
    const T* src = x + plane * in_size;
    Acc* dst = result + plane * out_size;
    if (count == 0) {  // every window one element: a copy
      for (size_t i = 0; i < out_size; ++i) dst[i] = nn::Load(src[i]);
      continue;
    }
    if (count == 1) {
      ReduceAxis<Op>(passes[0], src, dst, row);
      continue;
    }
    Acc* from = a;
    Acc* to = b;
    ReduceAxis<Op>(passes[0], src, from, row);
    for (size_t i = 1; i < count; ++i) {
      Acc* into = i + 1 == count ? dst : to;
      ReduceAxis<Op>(passes[i], from, into, row);
      std::swap(from, to);
    }
  }
}

// MaxPool of a floating type without Indices (Op MaxOp, divisor null: the window maximum ignoring
// NaN, NaN when the whole window is) and AveragePool (SumOp, each window sum divided by its
// divisor), through the axis passes. A float or double maximum is written in place; otherwise
// each plane is reduced in Acc, then finished and converted.
template <typename Op, typename T>
void BoxPoolPlanes(KernelContext& ctx, const WindowGeometry& g, size_t planes,
                   const double* divisor, const T* x, T* y) {
  using Acc = nn::AccOf<T>;
  size_t widest = 0;
  size_t row_size = 0;
  // Planes of the leading identity axes' slices (the divisor repeats over them).
  const size_t lead = LeadingIdentity(g);
  const SmallVector<AxisPass> passes = AxisPasses(g, lead, &widest, &row_size);
  const size_t in_size = g.in_size / lead;
  const size_t out_size = g.out_size / lead;
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, out_size * g.kernel_size));
  ctx.threads().ParallelFor(planes * lead, grain, [&](size_t begin, size_t end) {
    Acc* a = ctx.Scratch<Acc>(widest);
    Acc* b = ctx.Scratch<Acc>(widest);
    Acc* row = ctx.Scratch<Acc>(row_size);
    if constexpr (std::is_same_v<T, Acc>) {
      if (divisor == nullptr) {
        ReducePlanes<Op>(passes, in_size, out_size, x, begin, end, a, b, row, y);
        return;
      }
    }
    Acc* result = ctx.Scratch<Acc>(out_size);
    for (size_t plane = begin; plane < end; ++plane) {
      ReducePlanes<Op>(passes, in_size, out_size, x + plane * in_size, 0, 1, a, b, row, result);
      T* dst = y + plane * out_size;
      for (size_t i = 0; i < out_size; ++i) {
        dst[i] =
            nn::Store<T>(divisor == nullptr ? result[i] : result[i] / static_cast<Acc>(divisor[i]));
      }
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

// LpPool: a sum over the window of |x|^p, raised to 1/p. Each chunk of planes takes its sums from
// the kernel's scratch memory.
template <typename T>
void LpPoolPlanes(KernelContext& ctx, const WindowGeometry& g, size_t planes,
                  const PoolParams& params, const T* x, T* y) {
  using Acc = nn::AccOf<T>;
  const int64_t s = g.stride.back();
  const Acc p = static_cast<Acc>(params.p);
  const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, g.out_size * g.kernel_size));
  ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
    Acc* sum = ctx.Scratch<Acc>(g.out_size);
    for (size_t plane = begin; plane < end; ++plane) {
      const T* src = x + plane * g.in_size;
      std::fill(sum, sum + g.out_size, Acc(0));
      for (size_t tap = 0; tap < g.kernel_size; ++tap) {
        nn::ForEachTapRow(g, tap, [&](size_t out_offset, int64_t in_base, int64_t lo, int64_t hi) {
          Acc* acc = sum + out_offset;
          if (p == Acc(2)) {
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
        if (p == Acc(2)) {
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
        if (indices == nullptr) {
          BoxPoolPlanes<MaxOp>(ctx, g, planes, nullptr, static_cast<const T*>(x.data()),
                               static_cast<T*>(y.data()));
          return;
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
      if (kind_ == PoolKind::kAverage) {
        BoxPoolPlanes<SumOp>(ctx, g, planes, divisor, static_cast<const T*>(x.data()),
                             static_cast<T*>(y.data()));
        return;
      }
      LpPoolPlanes(ctx, g, planes, params_, static_cast<const T*>(x.data()),
                   static_cast<T*>(y.data()));
    });
  }

 private:
  PoolKind kind_;
  nn::WindowAttrs attrs_;
  PoolParams params_;
};

}  // namespace

void AveragePoolPlanes(KernelContext& ctx, const nn::WindowGeometry& g, size_t planes,
                       bool count_include_pad, const float* x, float* y) {
  if (planes == 0 || g.out_size == 0) return;
  if (!count_include_pad && AnyEmptyWindow(g)) {
    ctx.info().Fail(ErrorCode::kInvalidArgument,
                    "a window lies entirely in the padding (attribute 'pads' or auto_pad): it "
                    "has no element to pool");
  }
  double* divisor = ctx.Scratch<double>(g.out_size);
  CountTaps(g, count_include_pad, divisor);
  BoxPoolPlanes<SumOp>(ctx, g, planes, divisor, x, y);
}

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
