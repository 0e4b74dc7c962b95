// ArgMax and ArgMin: opsets 1–23 (axis and keepdims; select_last_index from opset 12). Types:
// float, double, Float16, BFloat16 (compared as float) and the 8- to 64-bit integers; the output
// is int64. As in numpy, NaN counts as the extreme value for both (the first NaN wins, the last
// with select_last_index). Reducing over an empty axis is an error.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/reduce/numeric.h"
#include "kernels/cpu/reduce/reduce_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

using reduce::ComputeType;
using reduce::IsNan;
using reduce::Load;

// Whether candidate `v` replaces the current best `best`.
template <bool kMax, bool kLast, typename A>
bool Better(A v, A best) {
  if (IsNan(v)) return kLast || !IsNan(best);
  if constexpr (kMax) {
    return kLast ? v >= best : v > best;
  } else {
    return kLast ? v <= best : v < best;
  }
}

// y[o, i] = arg best over k of x[o, k, i] for x viewed as [outer, n, inner].
template <bool kMax, bool kLast, typename T>
void ArgReduce(KernelContext& ctx, const T* x, size_t outer, size_t n, size_t inner, int64_t* y) {
  using A = ComputeType<T>;
  ctx.threads().ParallelFor(outer, std::max<size_t>(1, (size_t{1} << 15) / (n * inner + 1)),
                            [&](size_t begin, size_t end) {
                              A* best = ctx.Scratch<A>(inner);
                              for (size_t o = begin; o < end; ++o) {
                                const T* xo = x + o * n * inner;
                                int64_t* yo = y + o * inner;
                                for (size_t i = 0; i < inner; ++i) {
                                  best[i] = Load(xo[i]);
                                  yo[i] = 0;
                                }
                                for (size_t k = 1; k < n; ++k) {
                                  const T* row = xo + k * inner;
                                  for (size_t i = 0; i < inner; ++i) {
                                    const A v = Load(row[i]);
                                    if (Better<kMax, kLast>(v, best[i])) {
                                      best[i] = v;
                                      yo[i] = static_cast<int64_t>(k);
                                    }
                                  }
                                }
                              }
                            });
}

template <bool kMax>
class ArgReduceKernel final : public Kernel {
 public:
  explicit ArgReduceKernel(const KernelInfo& info)
      : axis_(info.GetInt("axis", 0)),
        keepdims_(info.GetInt("keepdims", 1) != 0),
        select_last_index_(info.opset() >= 12 && info.GetInt("select_last_index", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    if (dims[axis] == 0) {
      info.Fail(ErrorCode::kInvalidArgument,
                "cannot take the arg " + std::string(kMax ? "max" : "min") + " over axis " +
                    std::to_string(axis_) + " of size 0 (input shape " + x.shape().ToString() +
                    ")");
    }
    size_t outer = 1;
    size_t inner = 1;
    SmallVector<int64_t> out_dims;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i < axis) outer *= static_cast<size_t>(dims[i]);
      if (i > axis) inner *= static_cast<size_t>(dims[i]);
      if (i != axis) {
        out_dims.push_back(dims[i]);
      } else if (keepdims_) {
        out_dims.push_back(1);
      }
    }
    Tensor& y = ctx.Output(0, DataType::kInt64, out_dims.span());
    const auto n = static_cast<size_t>(dims[axis]);
    auto* ys = static_cast<int64_t*>(y.data());
    Dispatch<KILN_FLOAT_TYPES, KILN_INT_TYPES>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* xs = static_cast<const T*>(x.data());
      if (select_last_index_) {
        ArgReduce<kMax, true>(ctx, xs, outer, n, inner, ys);
      } else {
        ArgReduce<kMax, false>(ctx, xs, outer, n, inner, ys);
      }
    });
  }

 private:
  int64_t axis_;
  bool keepdims_;
  bool select_last_index_;
};

}  // namespace

std::unique_ptr<Kernel> MakeArgMax(const KernelInfo& info) {
  return Make<ArgReduceKernel<true>>(info);
}
std::unique_ptr<Kernel> MakeArgMin(const KernelInfo& info) {
  return Make<ArgReduceKernel<false>>(info);
}

}  // namespace kiln::cpu
