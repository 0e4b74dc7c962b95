// Softmax, LogSoftmax and Hardmax (opsets 1–23). Opsets 1–12 coerce the input to 2-D at `axis`
// (default 1) and normalise each row of the flattened trailing block; opset 13+ normalises along
// `axis` alone (default -1). Softmax and LogSoftmax subtract the maximum first; Hardmax marks the
// first maximum (a NaN counts as the maximum, like numpy.argmax). Types: float, double, Float16 and
// BFloat16 (computed in float).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

enum class Norm { kSoftmax, kLogSoftmax, kHardmax };

// Whether v beats the best so far for Hardmax: larger, or the first NaN.
template <typename Acc>
bool Beats(Acc v, Acc best) {
  return v > best || (std::isnan(v) && !std::isnan(best));
}

// Normalises, in place, `inner` interleaved vectors of `len` values: v[l·inner + j] is element l
// of vector j. max, sum and arg are scratch of `inner` entries.
template <Norm kNorm, typename Acc>
void NormalizeBlock(Acc* v, size_t len, size_t inner, Acc* max, Acc* sum, size_t* arg) {
  for (size_t j = 0; j < inner; ++j) {
    max[j] = v[j];
    sum[j] = 0;
    arg[j] = 0;
  }
  for (size_t l = 1; l < len; ++l) {
    const Acc* row = v + l * inner;
    for (size_t j = 0; j < inner; ++j) {
      if constexpr (kNorm == Norm::kHardmax) {
        if (Beats(row[j], max[j])) {
          max[j] = row[j];
          arg[j] = l;
        }
      } else {
        max[j] = row[j] > max[j] ? row[j] : max[j];
      }
    }
  }
  if constexpr (kNorm == Norm::kHardmax) {
    for (size_t l = 0; l < len; ++l) {
      for (size_t j = 0; j < inner; ++j) v[l * inner + j] = arg[j] == l ? Acc(1) : Acc(0);
    }
    return;
  }
  for (size_t l = 0; l < len; ++l) {
    Acc* row = v + l * inner;
    for (size_t j = 0; j < inner; ++j) {
      const Acc shifted = row[j] - max[j];
      const Acc e = std::exp(shifted);
      sum[j] += e;
      row[j] = kNorm == Norm::kSoftmax ? e : shifted;
    }
  }
  for (size_t j = 0; j < inner; ++j) {
    sum[j] = kNorm == Norm::kSoftmax ? Acc(1) / sum[j] : std::log(sum[j]);
  }
  for (size_t l = 0; l < len; ++l) {
    Acc* row = v + l * inner;
    for (size_t j = 0; j < inner; ++j) {
      if constexpr (kNorm == Norm::kSoftmax) {
        row[j] *= sum[j];
      } else {
        row[j] -= sum[j];
      }
    }
  }
}

template <Norm kNorm>
class Normalization final : public Kernel {
 public:
  explicit Normalization(const KernelInfo& info)
      : along_axis_(info.opset() >= 13), axis_(info.GetInt("axis", along_axis_ ? -1 : 1)) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    size_t outer = 1;
    size_t len = 1;
    size_t inner = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
      const auto v = static_cast<size_t>(dims[d]);
      if (d < axis) {
        outer *= v;
      } else if (d == axis || !along_axis_) {
        len *= v;
      } else {
        inner *= v;
      }
    }
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    if (y.element_count() == 0) return;
    const size_t block = len * inner;
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / block);
      ctx.threads().ParallelFor(outer, grain, [&](size_t begin, size_t end) {
        Acc* values = ctx.Scratch<Acc>(block);
        Acc* max = ctx.Scratch<Acc>(inner);
        Acc* sum = ctx.Scratch<Acc>(inner);
        size_t* arg = ctx.Scratch<size_t>(inner);
        for (size_t o = begin; o < end; ++o) {
          const T* src = xp + o * block;
          for (size_t i = 0; i < block; ++i) {
            if constexpr (kIsHalf<T>) {
              values[i] = src[i].ToFloat();
            } else {
              values[i] = src[i];
            }
          }
          NormalizeBlock<kNorm>(values, len, inner, max, sum, arg);
          T* dst = yp + o * block;
          for (size_t i = 0; i < block; ++i) {
            if constexpr (kIsHalf<T>) {
              dst[i] = T::FromFloat(values[i]);
            } else {
              dst[i] = values[i];
            }
          }
        }
      });
    });
  }

 private:
  bool along_axis_;  // opset 13+: normalise along the axis only
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSoftmax(const KernelInfo& info) {
  return Make<Normalization<Norm::kSoftmax>>(info);
}
std::unique_ptr<Kernel> MakeLogSoftmax(const KernelInfo& info) {
  return Make<Normalization<Norm::kLogSoftmax>>(info);
}
std::unique_ptr<Kernel> MakeHardmax(const KernelInfo& info) {
  return Make<Normalization<Norm::kHardmax>>(info);
}

}  // namespace kiln::cpu
