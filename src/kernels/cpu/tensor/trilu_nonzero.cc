// Ops that select elements by position or value:
//   Trilu 14–23 (every element type but the sub-byte ones; strings copied as std::string)
//   NonZero 9–23 (numeric types, bool and string; a scalar counts as shape [1], as numpy does)
#include <algorithm>
#include <array>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

class Trilu final : public Kernel {
 public:
  explicit Trilu(const KernelInfo& info) : upper_(info.GetInt("upper", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& d = x.shape().dims();
    if (d.size() < 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input must have rank >= 2, not shape " + x.shape().ToString());
    }
    const Tensor* k_input = ctx.OptionalInput(1);
    const int64_t k = k_input == nullptr ? 0 : ReadScalarInt(info, *k_input, "k");
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    const auto rows = static_cast<size_t>(d[d.size() - 2]);
    const auto cols = static_cast<size_t>(d[d.size() - 1]);
    const size_t matrices = Product(d, 0, d.size() - 2);
    DispatchStorage(x.type(), info, [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = DataAs<E>(x);
      E* dst = DataAs<E>(y);
      const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, cols));
      ctx.threads().ParallelFor(matrices * rows, grain, [&](size_t b, size_t e) {
        for (size_t r = b; r < e; ++r) {
          const auto i = static_cast<int64_t>(r % rows);
          for (size_t j = 0; j < cols; ++j) {
            const int64_t diagonal = static_cast<int64_t>(j) - i;
            const bool keep = upper_ ? diagonal >= k : diagonal <= k;
            dst[r * cols + j] = keep ? src[r * cols + j] : E{};
          }
        }
      });
    });
  }

 private:
  bool upper_;
};

template <typename T>
bool IsNonZero(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return !v.empty();
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return v.ToFloat() != 0.0f;
  } else {
    return v != T(0);
  }
}

class NonZero final : public Kernel {
 public:
  explicit NonZero(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    SmallVector<int64_t> dims(x.shape().dims());
    if (dims.empty()) dims.assign(size_t{1}, int64_t{1});
    const size_t rank = dims.size();
    Dispatch<KILN_NUMERIC_TYPES, bool, std::string>(x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* p = DataAs<T>(x);
      const size_t n = x.element_count();
      size_t count = 0;
      for (size_t i = 0; i < n; ++i) count += IsNonZero(p[i]) ? 1 : 0;
      const std::array<int64_t, 2> y_dims{static_cast<int64_t>(rank), static_cast<int64_t>(count)};
      auto* out = DataAs<int64_t>(ctx.OutputForOverwrite(0, DataType::kInt64, y_dims));
      SmallVector<int64_t> index(rank, 0);
      size_t column = 0;
      for (size_t i = 0; i < n; ++i) {
        if (IsNonZero(p[i])) {
          for (size_t k = 0; k < rank; ++k) out[k * count + column] = index[k];
          ++column;
        }
        for (size_t k = rank; k-- > 0;) {
          if (++index[k] < dims[k]) break;
          index[k] = 0;
        }
      }
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeTrilu(const KernelInfo& info) {
  return Make<Trilu>(info);
}
std::unique_ptr<Kernel> MakeNonZero(const KernelInfo& info) {
  return Make<NonZero>(info);
}

}  // namespace kiln::cpu
