// TopK: opset 1 (k attribute), 10 (k as input 1), 11–23 (largest, sorted, negative axis).
// Types: float, double, Float16, BFloat16 (compared as float) and the 8- to 64-bit integers.
// Outputs Values (the input type) and Indices (int64), the k largest (or smallest) along `axis`
// in order, equal values by lower index first; NaN counts as larger than every number. The
// output is sorted also when sorted=0 (the spec leaves that order open).
#include <algorithm>
#include <span>
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

// a > b with NaN above every number (NaNs equal among themselves).
template <typename A>
bool Greater(A a, A b) {
  if (IsNan(a)) return !IsNan(b);
  return !IsNan(b) && a > b;
}

// A candidate: its value and its index along the axis.
template <typename A>
struct Entry {
  A first;
  int64_t second;
};

template <typename T>
void RunTopK(KernelContext& ctx, const T* x, size_t outer, size_t n, size_t inner, size_t k,
             bool largest, T* values, int64_t* indices) {
  using A = ComputeType<T>;
  using E = Entry<A>;
  auto before = [largest](const E& a, const E& b) {
    const bool a_wins = largest ? Greater(a.first, b.first) : Greater(b.first, a.first);
    const bool b_wins = largest ? Greater(b.first, a.first) : Greater(a.first, b.first);
    return a_wins || (!b_wins && a.second < b.second);
  };
  const size_t slices = outer * inner;
  ctx.threads().ParallelFor(
      slices, std::max<size_t>(1, (size_t{1} << 14) / (n + 1)), [&](size_t begin, size_t end) {
        E* scratch = ctx.Scratch<E>(n);
        for (size_t s = begin; s < end; ++s) {
          const size_t o = s / inner;
          const size_t i = s % inner;
          const T* xs = x + o * n * inner + i;
          for (size_t j = 0; j < n; ++j) {
            scratch[j] = {Load(xs[j * inner]), static_cast<int64_t>(j)};
          }
          std::partial_sort(scratch, scratch + k, scratch + n, before);
          T* vs = values == nullptr ? nullptr : values + o * k * inner + i;
          int64_t* is = indices == nullptr ? nullptr : indices + o * k * inner + i;
          for (size_t j = 0; j < k; ++j) {
            const auto idx = static_cast<size_t>(scratch[j].second);
            if (values != nullptr) vs[j * inner] = xs[idx * inner];
            if (indices != nullptr) is[j * inner] = scratch[j].second;
          }
        }
      });
}

class TopK final : public Kernel {
 public:
  explicit TopK(const KernelInfo& info)
      : k_from_input_(info.opset() >= 10),
        k_attr_(k_from_input_ ? 0 : info.RequireInt("k")),
        axis_(info.GetInt("axis", -1)),
        largest_(info.opset() < 11 || info.GetInt("largest", 1) != 0) {
    if (!k_from_input_ && k_attr_ < 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'k' must not be negative, got " + std::to_string(k_attr_));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    int64_t k = k_attr_;
    if (k_from_input_) {
      const Tensor& kt = ctx.Input(1);
      RequireIntType(info, kt, "K");
      if (kt.element_count() != 1 || kt.shape().rank() > 1) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "input 'K' must hold one value, not shape " + kt.shape().ToString());
      }
      k = IntAt(kt, 0);
    }
    if (k < 0 || k > dims[axis]) {
      info.Fail(ErrorCode::kInvalidArgument,
                "k = " + std::to_string(k) + " is out of range for axis " + std::to_string(axis_) +
                    " of size " + std::to_string(dims[axis]) + " (input shape " +
                    x.shape().ToString() + ")");
    }
    SmallVector<int64_t> out_dims(dims);
    out_dims[axis] = k;
    size_t outer = 1;
    size_t inner = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i < axis) outer *= static_cast<size_t>(dims[i]);
      if (i > axis) inner *= static_cast<size_t>(dims[i]);
    }
    Tensor* values = ctx.WantsOutput(0) ? &ctx.Output(0, x.type(), out_dims.span()) : nullptr;
    Tensor* indices =
        ctx.WantsOutput(1) ? &ctx.Output(1, DataType::kInt64, out_dims.span()) : nullptr;
    Dispatch<KILN_FLOAT_TYPES, KILN_INT_TYPES>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      RunTopK<T>(ctx, static_cast<const T*>(x.data()), outer, static_cast<size_t>(dims[axis]),
                 inner, static_cast<size_t>(k), largest_,
                 values == nullptr ? nullptr : static_cast<T*>(values->data()),
                 indices == nullptr ? nullptr : static_cast<int64_t*>(indices->data()));
    });
  }

 private:
  bool k_from_input_;
  int64_t k_attr_;
  int64_t axis_;
  bool largest_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTopK(const KernelInfo& info) {
  return Make<TopK>(info);
}

}  // namespace kiln::cpu
