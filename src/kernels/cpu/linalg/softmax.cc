// Softmax, LogSoftmax and Hardmax (opsets 1–23). Opsets 1–12 coerce the input to 2-D at `axis`
// (default 1) and normalise each row of the flattened trailing block; opset 13+ normalises along
// `axis` alone (default -1). Softmax and LogSoftmax subtract the maximum first; Hardmax marks the
// first maximum (a NaN counts as the maximum, like numpy.argmax). Types: float, double, Float16 and
// BFloat16 (computed in float). In float, e^x comes from vector_math.h, and rows along the last
// axis run in vectorized passes (maximum, exponentials, a sum in 16 interleaved float partial sums,
// scaling; on AVX-512 machines the exponentials and their sum in one pass of
// vector_math_avx512.h); double keeps std::exp and the sequential sum.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/cpu/vector_math_avx512.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {

// A NaN other than x[0] is skipped, as in NormalizeBlock; either way a NaN makes the whole row NaN
// through the sum. The 16 maxima are one GCC vector (one AVX-512 register, two AVX2 ones): GCC
// does not vectorize the same loop written on an array of 16, since a select is not a reduction
// it knows.
KILN_VECTOR_CLONES float RowMax(const float* x, size_t n) {
  using Lanes = float __attribute__((vector_size(64)));
  constexpr size_t kLanes = sizeof(Lanes) / sizeof(float);
  Lanes m;
  for (size_t j = 0; j < kLanes; ++j) m[j] = x[0];
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v;
    std::memcpy(&v, x + i, sizeof v);
    m = v > m ? v : m;
  }
  float r = x[0];
  for (size_t j = 0; j < kLanes; ++j) r = m[j] > r ? m[j] : r;
  for (; i < n; ++i) r = x[i] > r ? x[i] : r;
  return r;
}

namespace {

enum class Norm { kSoftmax, kLogSoftmax, kHardmax };

// Whether v beats the best so far for Hardmax: larger, or the first NaN.
template <typename Acc>
bool Beats(Acc v, Acc best) {
  return v > best || (std::isnan(v) && !std::isnan(best));
}

// One contiguous float row (inner == 1), in passes compiled for the widest vectors.
namespace row_loops {

constexpr size_t kLanes = 16;  // interleaved partial sums and maxima

// y = e^(x - shift); y may be x.
KILN_VECTOR_CLONES void ExpShifted(const float* x, float* y, size_t n, float shift) {
  for (size_t i = 0; i < n; ++i) y[i] = ExpF(x[i] - shift);
}

// The sum of x[0, n) in kLanes interleaved partial sums, added pairwise at the end.
KILN_VECTOR_CLONES float Sum(const float* x, size_t n) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += x[i + j];
  }
  for (; i < n; ++i) acc[0] += x[i];
  for (size_t w = kLanes / 2; w > 0; w /= 2) {
    for (size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

KILN_VECTOR_CLONES void Scale(float* y, size_t n, float s) {
  for (size_t i = 0; i < n; ++i) y[i] *= s;
}

// y = (x - shift) - log_sum; y may be x.
KILN_VECTOR_CLONES void ShiftTwice(const float* x, float* y, size_t n, float shift, float log_sum) {
  for (size_t i = 0; i < n; ++i) y[i] = (x[i] - shift) - log_sum;
}

// Softmax or LogSoftmax of x[0, len) into y (y may be x); `exps` is scratch of len floats.
template <Norm kNorm>
void Normalize(const float* x, float* y, size_t len, float* exps) {
  const float max = RowMax(x, len);
  // e^(x - max) into dst, and its sum (in one pass on AVX-512 machines).
  const auto exp_sum = [&](float* dst) {
    if (UseVectorMathAvx512()) return ExpShiftedSumAvx512(x, dst, len, max);
    ExpShifted(x, dst, len, max);
    return Sum(dst, len);
  };
  if constexpr (kNorm == Norm::kSoftmax) {
    Scale(y, len, 1.0f / exp_sum(y));
  } else {
    ShiftTwice(x, y, len, max, std::log(exp_sum(exps)));
  }
}

}  // namespace row_loops

// Normalises, in place, `inner` interleaved vectors of `len` values: v[l·inner + j] is element l
// of vector j. max, sum and arg are scratch of `inner` entries.
template <Norm kNorm, typename Acc>
KILN_VECTOR_CLONES void NormalizeBlock(Acc* v, size_t len, size_t inner, Acc* max, Acc* sum,
                                       size_t* arg) {
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
      const Acc e = vmath::Exp(shifted);
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
        constexpr bool kRows = kNorm != Norm::kHardmax && std::is_same_v<Acc, float>;
        float* exps = kRows && inner == 1 ? ctx.Scratch<float>(len) : nullptr;
        for (size_t o = begin; o < end; ++o) {
          if constexpr (kRows && std::is_same_v<T, float>) {
            if (inner == 1) {
              row_loops::Normalize<kNorm>(xp + o * block, yp + o * block, len, exps);
              continue;
            }
          }
          const T* src = xp + o * block;
          for (size_t i = 0; i < block; ++i) {
            if constexpr (kIsHalf<T>) {
              values[i] = src[i].ToFloat();
            } else {
              values[i] = src[i];
            }
          }
          if constexpr (kRows) {
            if (inner == 1) {
              row_loops::Normalize<kNorm>(values, values, len, exps);
            } else {
              NormalizeBlock<kNorm>(values, len, inner, max, sum, arg);
            }
          } else {
            NormalizeBlock<kNorm>(values, len, inner, max, sum, arg);
          }
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
