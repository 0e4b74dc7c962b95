// Unique 11–23: the distinct elements (no axis: of the flattened input) or distinct slices along
// `axis`, sorted ascending (lexicographically for slices) or in order of first occurrence, with
// the first-occurrence indices, the inverse indices and the counts (all int64). Every numeric
// type, bool and string. The output size depends on the data, so the kernel allocates.
#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

template <typename T>
bool Less(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return a.ToFloat() < b.ToFloat();
  } else {
    return a < b;
  }
}

template <typename T>
bool Same(const T& a, const T& b) {
  return !Less(a, b) && !Less(b, a);
}

class Unique final : public Kernel {
 public:
  explicit Unique(const KernelInfo& info)
      : has_axis_(info.HasAttribute("axis")),
        axis_(info.GetInt("axis", 0)),
        sorted_(info.GetInt("sorted", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    // Slices: `count` of them along the axis, each `outer` runs of `inner` elements apart.
    size_t axis = 0, count = x.element_count(), outer = 1, inner = 1;
    if (has_axis_) {
      if (dims.empty()) info.Fail(ErrorCode::kInvalidArgument, "attribute 'axis' needs rank >= 1");
      axis = NormalizeAxis(info, axis_, dims.size());
      count = static_cast<size_t>(dims[axis]);
      outer = Product(dims, 0, axis);
      inner = Product(dims, axis + 1, dims.size());
    }
    Dispatch<KILN_NUMERIC_TYPES, bool, std::string>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = DataAs<T>(x);
      auto at = [&](size_t slice, size_t k) -> const T& {
        return p[(k / inner) * count * inner + slice * inner + k % inner];
      };
      const size_t length = outer * inner;
      auto slice_less = [&](size_t a, size_t b) {
        for (size_t k = 0; k < length; ++k) {
          if (Less(at(a, k), at(b, k))) return true;
          if (Less(at(b, k), at(a, k))) return false;
        }
        return false;
      };
      auto slice_same = [&](size_t a, size_t b) {
        for (size_t k = 0; k < length; ++k) {
          if (!Same(at(a, k), at(b, k))) return false;
        }
        return true;
      };
      std::vector<size_t> order(count);
      std::iota(order.begin(), order.end(), size_t{0});
      // Stable, so each group of equal slices starts with its first occurrence.
      std::stable_sort(order.begin(), order.end(), slice_less);
      std::vector<size_t> firsts;        // first occurrence of each distinct slice
      std::vector<size_t> group(count);  // slice -> its group, in sorted order
      for (size_t i = 0; i < count; ++i) {
        if (i == 0 || !slice_same(order[i - 1], order[i])) firsts.push_back(order[i]);
        group[order[i]] = firsts.size() - 1;
      }
      const size_t unique = firsts.size();
      std::vector<size_t> rank(unique);  // group -> output position
      std::iota(rank.begin(), rank.end(), size_t{0});
      if (!sorted_) {
        std::vector<size_t> by_first(unique);
        std::iota(by_first.begin(), by_first.end(), size_t{0});
        std::sort(by_first.begin(), by_first.end(),
                  [&](size_t a, size_t b) { return firsts[a] < firsts[b]; });
        for (size_t pos = 0; pos < unique; ++pos) rank[by_first[pos]] = pos;
      }
      std::vector<size_t> slice_of(unique);  // output position -> first occurrence
      for (size_t g = 0; g < unique; ++g) slice_of[rank[g]] = firsts[g];

      std::vector<int64_t> y_dims = {static_cast<int64_t>(unique)};
      if (has_axis_) {
        y_dims = dims;
        y_dims[axis] = static_cast<int64_t>(unique);
      }
      Tensor& y = ctx.Output(0, x.type(), Shape(y_dims));
      T* yp = DataAs<T>(y);
      for (size_t o = 0; o < outer; ++o) {
        for (size_t u = 0; u < unique; ++u) {
          for (size_t i = 0; i < inner; ++i) {
            yp[(o * unique + u) * inner + i] = p[(o * count + slice_of[u]) * inner + i];
          }
        }
      }
      const auto u64 = static_cast<int64_t>(unique);
      if (ctx.WantsOutput(1)) {
        auto* out = DataAs<int64_t>(ctx.Output(1, DataType::kInt64, Shape({u64})));
        for (size_t u = 0; u < unique; ++u) out[u] = static_cast<int64_t>(slice_of[u]);
      }
      if (ctx.WantsOutput(2)) {
        auto* out =
            DataAs<int64_t>(ctx.Output(2, DataType::kInt64, Shape({static_cast<int64_t>(count)})));
        for (size_t i = 0; i < count; ++i) out[i] = static_cast<int64_t>(rank[group[i]]);
      }
      if (ctx.WantsOutput(3)) {
        auto* out = DataAs<int64_t>(ctx.Output(3, DataType::kInt64, Shape({u64})));
        for (size_t i = 0; i < count; ++i) ++out[rank[group[i]]];
      }
    });
  }

 private:
  bool has_axis_;
  int64_t axis_;
  bool sorted_;
};

}  // namespace

std::unique_ptr<Kernel> MakeUnique(const KernelInfo& info) {
  return Make<Unique>(info);
}

}  // namespace kiln::cpu
