// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp, ReduceSumSquare: opsets 1–23. `axes` is an attribute before ReduceSum-13 and
// the others' 18, an optional int64/int32 input from there on (with noop_with_empty_axes).
// Types: float, double, Float16, BFloat16 (computed in float), int32, int64, uint32, uint64;
// ReduceMax/ReduceMin also int8, uint8 and bool. Integer sums and products wrap; ReduceL2,
// ReduceLogSum and ReduceLogSumExp of integers compute in double and saturate to the type's range.
// Reducing an empty set gives the ONNX identity: 0 for the sums, 1 for the product, -inf (the
// type's minimum) for Max, +inf (the maximum) for Min, -inf for the logs, NaN (0 for integers)
// for Mean.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/float_sum.h"
#include "kernels/cpu/reduce/numeric.h"
#include "kernels/cpu/reduce/reduce_kernels.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

using reduce::ComputeType;
using reduce::IsNan;
using reduce::Load;
using reduce::Store;

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The input seen as merged dimensions (size-1 dimensions dropped, neighbours that are both
// reduced or both kept merged): outer dimensions walked with an odometer and one contiguous
// innermost run.
struct Plan {
  SmallVector<size_t> dims;         // outer dimensions, outermost first
  SmallVector<size_t> in_strides;   // of each outer dimension in the input
  SmallVector<size_t> out_strides;  // in the output; 0 for a reduced dimension
  size_t inner = 1;                 // length of the innermost run
  bool inner_reduced = false;       // whether the run folds into one output or maps onto many
  size_t out_count = 1;
  size_t reduce_count = 1;  // input elements per output
};

Plan MakePlan(std::span<const int64_t> dims, std::span<const bool> reduced) {
  Plan p;
  SmallVector<size_t> sizes;
  SmallVector<bool> flags;
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(dims[i]);
    (reduced[i] ? p.reduce_count : p.out_count) *= d;
    if (d == 1) continue;
    if (!sizes.empty() && flags.back() == reduced[i]) {
      sizes.back() *= d;
    } else {
      sizes.push_back(d);
      flags.push_back(reduced[i]);
    }
  }
  if (sizes.empty()) return p;
  p.inner = sizes.back();
  p.inner_reduced = flags.back();
  const size_t outer = sizes.size() - 1;
  p.dims.assign(sizes.begin(), sizes.begin() + outer);
  p.in_strides.resize(outer);
  p.out_strides.resize(outer);
  size_t in_stride = p.inner;
  size_t out_stride = p.inner_reduced ? 1 : p.inner;
  for (size_t i = outer; i-- > 0;) {
    p.in_strides[i] = in_stride;
    in_stride *= sizes[i];
    p.out_strides[i] = flags[i] ? 0 : out_stride;
    if (!flags[i]) out_stride *= sizes[i];
  }
  return p;
}

// Calls block(input offset, output offset) for every innermost run whose outermost index lies in
// [begin, end) (the single run when there are no outer dimensions).
template <typename F>
void Walk(const Plan& p, size_t begin, size_t end, F&& block) {
  const size_t nd = p.dims.size();
  if (nd == 0) {
    block(size_t{0}, size_t{0});
    return;
  }
  SmallVector<size_t> idx(nd, 0);
  idx[0] = begin;
  size_t in = begin * p.in_strides[0];
  size_t out = begin * p.out_strides[0];
  if (begin >= end) return;
  for (;;) {
    block(in, out);
    for (size_t d = nd; d-- > 0;) {
      ++idx[d];
      in += p.in_strides[d];
      out += p.out_strides[d];
      if (idx[d] < (d == 0 ? end : p.dims[d])) break;
      if (d == 0) return;
      in -= idx[d] * p.in_strides[d];
      out -= idx[d] * p.out_strides[d];
      idx[d] = 0;
    }
  }
}

// acc[o] = step(acc[o], x, o) for every input element x of output o, in parallel over the
// outermost dimension when it is kept (each chunk then owns its outputs). kPlainSum: step is
// a + x, which a reduced innermost run of floats then computes as SumFloats.
template <bool kPlainSum = false, typename A, typename T, typename Step>
void Accumulate(const Plan& p, const T* x, A* acc, const Step& step, ThreadPool& pool) {
  auto chunk = [&](size_t begin, size_t end) {
    Walk(p, begin, end, [&](size_t in, size_t out) {
      const T* xs = x + in;
      if (p.inner_reduced) {
        A a = acc[out];
        if constexpr (kPlainSum && std::is_same_v<T, float>) {
          // A float run summed as SumFloats does (float_sum.h), not in one running float sum.
          a = static_cast<A>(static_cast<double>(a) + SumFloats(xs, p.inner));
        } else {
          for (size_t j = 0; j < p.inner; ++j) a = step(a, static_cast<A>(Load(xs[j])), out);
        }
        acc[out] = a;
      } else {
        A* as = acc + out;
        for (size_t j = 0; j < p.inner; ++j) {
          as[j] = step(as[j], static_cast<A>(Load(xs[j])), out + j);
        }
      }
    });
  };
  if (p.dims.empty()) {
    chunk(0, 1);
  } else if (p.out_strides[0] == 0) {
    chunk(0, p.dims[0]);
  } else {
    const size_t per_index = p.in_strides[0];
    pool.ParallelFor(p.dims[0], std::max<size_t>(1, (size_t{1} << 15) / per_index), chunk);
  }
}

// The accumulator type: double for the logs and L2 of integers, float for the 16-bit floats,
// uint8_t for bool (so the buffer is a plain array).
template <ReduceOp kOp, typename T>
using Acc = std::conditional_t<
    std::is_same_v<T, bool>, uint8_t,
    std::conditional_t<std::is_integral_v<T> && (kOp == ReduceOp::kL2 || kOp == ReduceOp::kLogSum ||
                                                 kOp == ReduceOp::kLogSumExp),
                       double, ComputeType<T>>>;

template <typename A>
A Lowest() {
  if constexpr (std::is_floating_point_v<A>) {
    return -std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::lowest();
  }
}

template <typename A>
A Highest() {
  if constexpr (std::is_floating_point_v<A>) {
    return std::numeric_limits<A>::infinity();
  } else {
    return std::numeric_limits<A>::max();
  }
}

// Max and Min that propagate NaN like numpy.
template <typename A>
A MaxStep(A a, A x) {
  return (x > a || IsNan(x)) ? x : a;
}
template <typename A>
A MinStep(A a, A x) {
  return (x < a || IsNan(x)) ? x : a;
}

// The ReduceMean of an accumulated sum.
template <typename A>
A Mean(A sum, size_t count) {
  if constexpr (std::is_floating_point_v<A>) {
    return sum / static_cast<A>(count);
  } else if constexpr (std::is_signed_v<A>) {
    return count == 0 ? A(0)
                      : static_cast<A>(static_cast<int64_t>(sum) / static_cast<int64_t>(count));
  } else {
    return count == 0 ? A(0) : static_cast<A>(static_cast<uint64_t>(sum) / count);
  }
}

template <typename T, typename A>
T StoreResult(A v) {
  if constexpr (std::is_integral_v<T> && std::is_floating_point_v<A>) {
    return reduce::SaturatingCast<T>(static_cast<double>(v));
  } else {
    return Store<T>(v);
  }
}

template <ReduceOp kOp, typename T>
void RunReduce(KernelContext& ctx, const Plan& p, const T* x, size_t x_count, T* y) {
  using A = Acc<kOp, T>;
  ThreadPool& pool = ctx.threads();
  A* acc = ctx.Scratch<A>(p.out_count);
  const bool has_input = x_count != 0;
  auto fill = [&](A v) { std::fill_n(acc, p.out_count, v); };
  if constexpr (kOp == ReduceOp::kMax || kOp == ReduceOp::kMin) {
    fill(kOp == ReduceOp::kMax ? Lowest<A>() : Highest<A>());
    if (has_input) {
      if constexpr (kOp == ReduceOp::kMax) {
        Accumulate(
            p, x, acc, [](A a, A v, size_t) { return MaxStep(a, v); }, pool);
      } else {
        Accumulate(
            p, x, acc, [](A a, A v, size_t) { return MinStep(a, v); }, pool);
      }
    }
    for (size_t i = 0; i < p.out_count; ++i) y[i] = Store<T>(acc[i]);
  } else if constexpr (kOp == ReduceOp::kLogSumExp) {
    // log(sum(exp(x - m))) + m with m the maximum, or 0 where the maximum is not finite.
    fill(Lowest<A>());
    if (has_input) {
      Accumulate(
          p, x, acc, [](A a, A v, size_t) { return MaxStep(a, v); }, pool);
    }
    A* shift = ctx.Scratch<A>(p.out_count);
    for (size_t i = 0; i < p.out_count; ++i) shift[i] = std::isfinite(acc[i]) ? acc[i] : A(0);
    fill(A(0));
    if (has_input) {
      const A* s = shift;
      Accumulate(
          p, x, acc, [s](A a, A v, size_t o) { return a + std::exp(v - s[o]); }, pool);
    }
    for (size_t i = 0; i < p.out_count; ++i) {
      y[i] = StoreResult<T>(static_cast<A>(std::log(acc[i]) + shift[i]));
    }
  } else {
    fill(kOp == ReduceOp::kProd ? A(1) : A(0));
    if (has_input) {
      auto step = [](A a, A v, size_t) {
        using reduce::WrapAdd;
        if constexpr (kOp == ReduceOp::kProd) {
          return reduce::WrapMul(a, v);
        } else if constexpr (kOp == ReduceOp::kL1) {
          return WrapAdd(a, reduce::Abs(v));
        } else if constexpr (kOp == ReduceOp::kL2 || kOp == ReduceOp::kSumSquare) {
          return WrapAdd(a, reduce::WrapMul(v, v));
        } else {
          return WrapAdd(a, v);
        }
      };
      Accumulate<kOp == ReduceOp::kSum || kOp == ReduceOp::kMean>(p, x, acc, step, pool);
    }
    for (size_t i = 0; i < p.out_count; ++i) {
      A v = acc[i];
      if constexpr (kOp == ReduceOp::kMean) {
        v = Mean(v, p.reduce_count);
      } else if constexpr (kOp == ReduceOp::kL2) {
        v = std::sqrt(v);
      } else if constexpr (kOp == ReduceOp::kLogSum) {
        v = std::log(v);
      }
      y[i] = StoreResult<T>(v);
    }
  }
}

template <typename T>
void RunTyped(KernelContext& ctx, ReduceOp op, const Plan& p, const Tensor& x, Tensor& y) {
  const T* xs = static_cast<const T*>(x.data());
  T* ys = static_cast<T*>(y.data());
  const size_t n = x.element_count();
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
                std::is_same_v<T, uint8_t>) {
    if (op == ReduceOp::kMax) {
      RunReduce<ReduceOp::kMax>(ctx, p, xs, n, ys);
    } else {
      RunReduce<ReduceOp::kMin>(ctx, p, xs, n, ys);
    }
  } else {
    switch (op) {
      case ReduceOp::kSum:
        return RunReduce<ReduceOp::kSum>(ctx, p, xs, n, ys);
      case ReduceOp::kMean:
        return RunReduce<ReduceOp::kMean>(ctx, p, xs, n, ys);
      case ReduceOp::kMax:
        return RunReduce<ReduceOp::kMax>(ctx, p, xs, n, ys);
      case ReduceOp::kMin:
        return RunReduce<ReduceOp::kMin>(ctx, p, xs, n, ys);
      case ReduceOp::kProd:
        return RunReduce<ReduceOp::kProd>(ctx, p, xs, n, ys);
      case ReduceOp::kL1:
        return RunReduce<ReduceOp::kL1>(ctx, p, xs, n, ys);
      case ReduceOp::kL2:
        return RunReduce<ReduceOp::kL2>(ctx, p, xs, n, ys);
      case ReduceOp::kLogSum:
        return RunReduce<ReduceOp::kLogSum>(ctx, p, xs, n, ys);
      case ReduceOp::kLogSumExp:
        return RunReduce<ReduceOp::kLogSumExp>(ctx, p, xs, n, ys);
      case ReduceOp::kSumSquare:
        return RunReduce<ReduceOp::kSumSquare>(ctx, p, xs, n, ys);
    }
  }
}

class Reduce final : public Kernel {
 public:
  Reduce(const KernelInfo& info, ReduceOp op)
      : op_(op),
        keepdims_(info.GetInt("keepdims", 1) != 0),
        axes_from_input_(info.opset() >= (op == ReduceOp::kSum ? 13 : 18)) {
    if (axes_from_input_) {
      noop_with_empty_axes_ = info.GetInt("noop_with_empty_axes", 0) != 0;
    } else {
      axes_ = info.GetInts("axes");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t rank = dims.size();

    SmallVector<int64_t> axes(axes_);
    if (axes_from_input_) {
      if (const Tensor* t = ctx.OptionalInput(1)) {
        if (t->shape().rank() > 1) {
          info.Fail(ErrorCode::kInvalidArgument,
                    "input 'axes' must be 1-D, not of shape " + t->shape().ToString());
        }
        axes = ReadSmallInts(info, *t, "axes");
      }
    }
    SmallVector<bool> reduced(rank, axes.empty() && !noop_with_empty_axes_);
    for (int64_t a : axes) {
      const size_t axis = NormalizeAxis(info, a, rank, "axis");
      if (reduced[axis]) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "axis " + std::to_string(a) + " appears more than once in 'axes'");
      }
      reduced[axis] = true;
    }

    SmallVector<int64_t> out_dims;
    for (size_t i = 0; i < rank; ++i) {
      if (!reduced[i]) {
        out_dims.push_back(dims[i]);
      } else if (keepdims_) {
        out_dims.push_back(1);
      }
    }
    const Plan plan = MakePlan(dims, reduced.span());
    Tensor& y = ctx.Output(0, x.type(), out_dims.span());
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      RunTyped<T>(ctx, op_, plan, x, y);
    };
    if (op_ == ReduceOp::kMax || op_ == ReduceOp::kMin) {
      Dispatch<KILN_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t, int8_t, uint8_t, bool>(
          x.type(), info, run);
    } else {
      Dispatch<KILN_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(x.type(), info, run);
    }
  }

 private:
  ReduceOp op_;
  bool keepdims_;
  bool axes_from_input_;
  bool noop_with_empty_axes_ = false;
  std::vector<int64_t> axes_;  // the attribute, before axes became an input
};

template <ReduceOp kOp>
std::unique_ptr<Kernel> MakeReduce(const KernelInfo& info) {
  return std::make_unique<Reduce>(info, kOp);
}

}  // namespace

std::unique_ptr<Kernel> MakeReduceSum(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kSum>(info);
}
std::unique_ptr<Kernel> MakeReduceMean(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kMean>(info);
}
std::unique_ptr<Kernel> MakeReduceMax(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kMax>(info);
}
std::unique_ptr<Kernel> MakeReduceMin(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kMin>(info);
}
std::unique_ptr<Kernel> MakeReduceProd(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kProd>(info);
}
std::unique_ptr<Kernel> MakeReduceL1(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kL1>(info);
}
std::unique_ptr<Kernel> MakeReduceL2(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kL2>(info);
}
std::unique_ptr<Kernel> MakeReduceLogSum(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kLogSum>(info);
}
std::unique_ptr<Kernel> MakeReduceLogSumExp(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kLogSumExp>(info);
}
std::unique_ptr<Kernel> MakeReduceSumSquare(const KernelInfo& info) {
  return MakeReduce<ReduceOp::kSumSquare>(info);
}

}  // namespace kiln::cpu
