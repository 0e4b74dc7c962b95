// LayerNormalization (opset 17, unchanged through 23): normalises over the dimensions from `axis`
// (default -1) on, Y = (X - mean) / sqrt(var + epsilon) · Scale + B, with Scale and the optional B
// broadcasting unidirectionally to X. Types: float, double, Float16 and BFloat16. The first stage
// (mean, variance, normalised values) runs in the precision `stash_type` names, the type of the
// optional outputs Mean and InvStdDev (X's shape where the normalised dimensions become 1):
//   1 (float, default): means and variances accumulate in double, double X stays in double.
//   16 (bfloat16): as the spec's function body, every step rounded to bfloat16: mean, mean of
//     squares, var = mean of squares - mean², sqrt(var + epsilon), (X - mean) / that (sums
//     accumulate in float before the mean is rounded).
// RMSNormalization (opset 23) shares it: Y = X / sqrt(mean(X²) + epsilon) · Scale, no B and no
// statistics outputs. So do ONNX Runtime's forms of both in the ONNX domain, which its
// transformer optimizer writes into models of any opset: LayerNormalization before opset 17
// (registered from version 1, as ONNX Runtime does) and SimplifiedLayerNormalization (X, scale;
// Y and the optional inv_std_var, output 1). The spec allows no other stash_type (kInvalidGraph).
// The second stage runs in X's type, as the ONNX reference does: for Float16/BFloat16 X the
// normalised value, the product with Scale and the sum with B are each rounded to X's type. The
// float and double loops are compiled for the widest vectors (vectorize.h); the double sums of a
// row add 16 interleaved partial sums.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"
#include "kernels/cpu/vectorize.h"

namespace kiln::cpu {
namespace {

// The loops over one row.
namespace row_loops {

constexpr size_t kLanes = 16;  // interleaved partial sums

template <typename T>
KILN_VECTOR_CLONES void Widen(const T* x, double* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i];
}

// The sum of (x[i] - shift)² (or of x[i] when kSquares is false), in kLanes partial sums added
// pairwise at the end.
template <bool kSquares>
KILN_VECTOR_CLONES double Sum(const double* x, size_t n, double shift) {
  double acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) {
      if constexpr (kSquares) {
        acc[j] += (x[i + j] - shift) * (x[i + j] - shift);
      } else {
        acc[j] += x[i + j];
      }
    }
  }
  for (; i < n; ++i) {
    if constexpr (kSquares) {
      acc[0] += (x[i] - shift) * (x[i] - shift);
    } else {
      acc[0] += x[i];
    }
  }
  for (size_t w = kLanes / 2; w > 0; w /= 2) {
    for (size_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

KILN_VECTOR_CLONES void Normalize(double* x, size_t n, double mean, double inv_std) {
  for (size_t i = 0; i < n; ++i) x[i] = (x[i] - mean) * inv_std;
}

// y = x · s (+ b), in Acc (float or double).
template <typename Acc>
KILN_VECTOR_CLONES void ScaleShift(const double* x, const Acc* s, const Acc* b, Acc* y, size_t n) {
  if (b == nullptr) {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<Acc>(x[i]) * s[i];
  } else {
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<Acc>(x[i]) * s[i] + b[i];
  }
}

}  // namespace row_loops

// kLayer: LayerNormalization. kRms: RMSNormalization, the same with the mean taken as 0 and no B.
// kSimplified: ONNX Runtime's SimplifiedLayerNormalization, RMSNormalization with InvStdDev as
// output 1.
enum class NormKind { kLayer, kRms, kSimplified };

class LayerNormalization final : public Kernel {
 public:
  LayerNormalization(const KernelInfo& info, NormKind kind)
      : axis_(info.GetInt("axis", -1)),
        epsilon_(info.GetFloat("epsilon", 1e-5f)),
        rms_(kind != NormKind::kLayer),
        inv_std_output_(kind == NormKind::kLayer        ? 2
                        : kind == NormKind::kSimplified ? 1
                                                        : 0) {
    const int64_t stash_type = info.GetInt("stash_type", 1);
    if (stash_type == static_cast<int64_t>(DataType::kBfloat16)) {
      stash_ = DataType::kBfloat16;
    } else if (stash_type != static_cast<int64_t>(DataType::kFloat)) {
      info.Fail(ErrorCode::kInvalidGraph, "attribute 'stash_type' is " +
                                              std::to_string(stash_type) +
                                              "; it must be 1 (float) or 16 (bfloat16)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor* bias = rms_ ? nullptr : ctx.OptionalInput(2);
    for (const auto& [t, name] :
         {std::pair{&scale, rms_ ? "scale" : "Scale"}, std::pair{bias, "B"}}) {
      if (t == nullptr) continue;
      if (t->type() != x.type()) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                   DataTypeName(t->type()) + " but input 'X' is " +
                                                   DataTypeName(x.type()));
      }
      CheckBroadcastable(info, *t, name, x.shape().dims());
    }
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t axis = NormalizeAxis(info, axis_, dims.size());
    size_t rows = 1;
    size_t width = 1;
    SmallVector<int64_t> stats_dims(dims);
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d < axis) {
        rows *= static_cast<size_t>(dims[d]);
      } else {
        width *= static_cast<size_t>(dims[d]);
        stats_dims[d] = 1;
      }
    }
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    void* mean_out = nullptr;
    void* inv_std_out = nullptr;
    if (!rms_ && ctx.WantsOutput(1)) mean_out = ctx.Output(1, stash_, stats_dims.span()).data();
    if (inv_std_output_ != 0 && ctx.WantsOutput(inv_std_output_)) {
      inv_std_out = ctx.Output(inv_std_output_, stash_, stats_dims.span()).data();
    }
    // With an empty X, `rows` may have wrapped unless an allocated Mean or InvStdDev holds it.
    if (rows == 0 || (width == 0 && mean_out == nullptr && inv_std_out == nullptr)) return;

    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const std::span<const int64_t> row_dims = std::span<const int64_t>(dims).subspan(axis);
      const Parameter<Acc> scale_values = Expand<T, Acc>(ctx, scale, dims, row_dims);
      const Parameter<Acc> bias_values =
          bias != nullptr ? Expand<T, Acc>(ctx, *bias, dims, row_dims) : Parameter<Acc>{};
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(width, 1));
      ctx.threads().ParallelFor(rows, grain, [&](size_t begin, size_t end) {
        const std::span<double> values(ctx.Scratch<double>(width), width);
        for (size_t r = begin; r < end; ++r) {
          const T* src = xp + r * width;
          if constexpr (kIsHalf<T>) {
            for (size_t i = 0; i < width; ++i) values[i] = src[i].ToFloat();
          } else {
            row_loops::Widen(src, values.data(), width);
          }
          // values become the normalised row; the statistics are stored in the stash type.
          const auto [mean, inv_std] = stash_ == DataType::kBfloat16 ? NormalizeInBfloat16(values)
                                                                     : NormalizeInDouble(values);
          if (stash_ == DataType::kBfloat16) {
            if (mean_out != nullptr) {
              static_cast<BFloat16*>(mean_out)[r] = BFloat16::FromFloat(static_cast<float>(mean));
            }
            if (inv_std_out != nullptr) {
              static_cast<BFloat16*>(inv_std_out)[r] =
                  BFloat16::FromFloat(static_cast<float>(inv_std));
            }
          } else {
            if (mean_out != nullptr) static_cast<float*>(mean_out)[r] = static_cast<float>(mean);
            if (inv_std_out != nullptr) {
              static_cast<float*>(inv_std_out)[r] = static_cast<float>(inv_std);
            }
          }
          const Acc* s = scale_values.Row(r, width);
          const Acc* b = bias_values.Row(r, width);
          T* dst = yp + r * width;
          if constexpr (kIsHalf<T>) {
            for (size_t i = 0; i < width; ++i) {
              const auto round = [](float v) { return T::FromFloat(v).ToFloat(); };
              float v = round(round(static_cast<float>(values[i])) * s[i]);
              if (b != nullptr) v = round(v + b[i]);
              dst[i] = T::FromFloat(v);
            }
          } else {
            row_loops::ScaleShift<Acc>(values.data(), s, b, dst, width);
          }
        }
      });
    });
  }

 private:
  // Scale or B broadcast to one row (when it is the same for every row) or to all of X.
  template <typename Acc>
  struct Parameter {
    const Acc* values = nullptr;  // scratch memory
    bool per_row = true;
    const Acc* Row(size_t r, size_t width) const {
      if (values == nullptr) return nullptr;
      return per_row ? values : values + r * width;
    }
  };

  template <typename T, typename Acc>
  static Parameter<Acc> Expand(KernelContext& ctx, const Tensor& t, std::span<const int64_t> x_dims,
                               std::span<const int64_t> row_dims) {
    const std::vector<int64_t>& dims = t.shape().dims();
    // The dimensions of t that line up with the row dimensions of X; the rest must all be 1 for
    // one row of values to serve every row.
    const size_t kept = std::min(dims.size(), row_dims.size());
    const bool per_row = std::all_of(dims.begin(), dims.end() - static_cast<ptrdiff_t>(kept),
                                     [](int64_t d) { return d == 1; });
    Parameter<Acc> p;
    p.per_row = per_row;
    const T* data = static_cast<const T*>(t.data());
    const std::span<const int64_t> source =
        per_row ? std::span<const int64_t>(dims).last(kept) : std::span<const int64_t>(dims);
    const std::span<const int64_t> target = per_row ? row_dims : x_dims;
    size_t count = 1;
    for (int64_t d : target) count *= static_cast<size_t>(d);
    Acc* values = ctx.Scratch<Acc>(count);
    BroadcastValuesInto<T, Acc>(data, source, target, values);
    p.values = values;
    return p;
  }

  // Normalises `row` in place in double (two passes); returns the mean and 1 / sqrt(var + eps).
  std::pair<double, double> NormalizeInDouble(std::span<double> row) const {
    const auto width = static_cast<double>(row.size());
    const double mean = rms_ ? 0.0 : row_loops::Sum<false>(row.data(), row.size(), 0.0) / width;
    const double squares = row_loops::Sum<true>(row.data(), row.size(), mean);
    const double inv_std = 1.0 / std::sqrt(squares / width + double{epsilon_});
    row_loops::Normalize(row.data(), row.size(), mean, inv_std);
    return {mean, inv_std};
  }

  // Normalises `row` in place as the function body does with stash_type bfloat16: each step
  // rounded to bfloat16. Returns the (bfloat16) mean and reciprocal of the standard deviation.
  std::pair<double, double> NormalizeInBfloat16(std::span<double> row) const {
    const auto bf = [](double v) {
      return static_cast<double>(BFloat16::FromFloat(static_cast<float>(v)).ToFloat());
    };
    const auto width = static_cast<float>(row.size());
    float sum = 0;
    float sum_squares = 0;
    for (double& v : row) {
      v = bf(v);
      sum += static_cast<float>(v);
      sum_squares += static_cast<float>(bf(v * v));
    }
    const double mean = rms_ ? 0.0 : bf(sum / width);
    const double mean_of_squares = bf(sum_squares / width);
    const double var = bf(mean_of_squares - bf(mean * mean));
    const double std_dev = bf(std::sqrt(bf(var + bf(epsilon_))));
    for (double& v : row) v = bf(bf(v - mean) / std_dev);
    return {mean, bf(1.0 / std_dev)};
  }

  int64_t axis_;
  float epsilon_;
  DataType stash_ = DataType::kFloat;
  bool rms_;
  size_t inv_std_output_;  // the output index of InvStdDev (0: none)
};

}  // namespace

std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInfo& info) {
  return std::make_unique<LayerNormalization>(info, NormKind::kLayer);
}
std::unique_ptr<Kernel> MakeRmsNormalization(const KernelInfo& info) {
  return std::make_unique<LayerNormalization>(info, NormKind::kRms);
}
std::unique_ptr<Kernel> MakeSimplifiedLayerNormalization(const KernelInfo& info) {
  return std::make_unique<LayerNormalization>(info, NormKind::kSimplified);
}

}  // namespace kiln::cpu
