// Unique 11–23: the distinct elements (no axis: of the flattened input) or distinct slices along
// `axis`, sorted ascending (lexicographically for slices) or in order of first occurrence, with
// the first-occurrence indices, the inverse indices and the counts (all int64). Every numeric
// type, bool and string. The output size depends on the data; the kernel's working arrays are
// scratch, so a run whose output shapes were met before (a per-shape layout) allocates nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// A strict weak order, as std::sort needs: NaNs are all equal and after every number (as
// numpy.unique sorts and groups them); -0 and +0 are equal.
template <typename T>
bool Less(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return Less(a.ToFloat(), b.ToFloat());
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(b) ? !std::isnan(a) : a < b;
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
      // Working arrays of `count` entries each, from scratch (at most `count` groups).
      size_t* order = ctx.Scratch<size_t>(count);
      size_t* firsts = ctx.Scratch<size_t>(count);    // first occurrence of each distinct slice
      size_t* group = ctx.Scratch<size_t>(count);     // slice -> its group, in sorted order
      size_t* rank = ctx.Scratch<size_t>(count);      // group -> output position
      size_t* slice_of = ctx.Scratch<size_t>(count);  // output position -> first occurrence
      std::iota(order, order + count, size_t{0});
      // Equal slices in index order, so each group starts with its first occurrence (std::sort
      // with the index as tie-break: std::stable_sort would take a buffer from the heap).
      std::sort(order, order + count, [&](size_t a, size_t b) {
        if (slice_less(a, b)) return true;
        return !slice_less(b, a) && a < b;
      });
      size_t unique = 0;
      for (size_t i = 0; i < count; ++i) {
        if (i == 0 || !slice_same(order[i - 1], order[i])) firsts[unique++] = order[i];
        group[order[i]] = unique - 1;
      }
      std::iota(rank, rank + unique, size_t{0});
      if (!sorted_) {
        size_t* by_first = slice_of;  // free until slice_of is filled below
        std::iota(by_first, by_first + unique, size_t{0});
        std::sort(by_first, by_first + unique,
                  [&](size_t a, size_t b) { return firsts[a] < firsts[b]; });
        for (size_t pos = 0; pos < unique; ++pos) rank[by_first[pos]] = pos;
      }
      for (size_t g = 0; g < unique; ++g) slice_of[rank[g]] = firsts[g];

      SmallVector<int64_t> y_dims{static_cast<int64_t>(unique)};
      if (has_axis_) {
        y_dims.assign(dims.begin(), dims.end());
        y_dims[axis] = static_cast<int64_t>(unique);
      }
      Tensor& y = ctx.Output(0, x.type(), y_dims.span());
      T* yp = DataAs<T>(y);
      for (size_t o = 0; o < outer; ++o) {
        for (size_t u = 0; u < unique; ++u) {
          for (size_t i = 0; i < inner; ++i) {
            yp[(o * unique + u) * inner + i] = p[(o * count + slice_of[u]) * inner + i];
          }
        }
      }
      const std::array<int64_t, 1> unique_dims{static_cast<int64_t>(unique)};
      const std::array<int64_t, 1> count_dims{static_cast<int64_t>(count)};
      if (ctx.WantsOutput(1)) {
        auto* out = DataAs<int64_t>(ctx.OutputForOverwrite(1, DataType::kInt64, unique_dims));
        for (size_t u = 0; u < unique; ++u) out[u] = static_cast<int64_t>(slice_of[u]);
      }
      if (ctx.WantsOutput(2)) {
        auto* out = DataAs<int64_t>(ctx.OutputForOverwrite(2, DataType::kInt64, count_dims));
        for (size_t i = 0; i < count; ++i) out[i] = static_cast<int64_t>(rank[group[i]]);
      }
      if (ctx.WantsOutput(3)) {
        auto* out = DataAs<int64_t>(ctx.Output(3, DataType::kInt64, unique_dims));
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
