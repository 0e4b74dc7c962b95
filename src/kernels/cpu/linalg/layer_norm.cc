// LayerNormalization (opset 17, unchanged through 23): normalises over the dimensions from `axis`
// (default -1) on, Y = (X - mean) / sqrt(var + epsilon) · Scale + B, with Scale and the optional B
// broadcasting unidirectionally to X. The optional outputs Mean and InvStdDev are float (the only
// stash_type supported is 1) with X's shape where the normalised dimensions become 1. Types:
// float, double, Float16 and BFloat16; means and variances accumulate in double, the rest is
// computed in float (double for double X).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/linalg/linalg_kernels.h"
#include "kernels/cpu/linalg/linalg_util.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class LayerNormalization final : public Kernel {
 public:
  explicit LayerNormalization(const KernelInfo& info)
      : axis_(info.GetInt("axis", -1)), epsilon_(info.GetFloat("epsilon", 1e-5f)) {
    const int64_t stash_type = info.GetInt("stash_type", 1);
    if (stash_type != static_cast<int64_t>(DataType::kFloat)) {
      info.Fail(ErrorCode::kNotImplemented,
                "stash_type " + std::to_string(stash_type) + " is not supported (only 1, float)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor* bias = ctx.OptionalInput(2);
    for (const auto& [t, name] : {std::pair{&scale, "Scale"}, std::pair{bias, "B"}}) {
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
    std::vector<int64_t> stats_dims = dims;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d < axis) {
        rows *= static_cast<size_t>(dims[d]);
      } else {
        width *= static_cast<size_t>(dims[d]);
        stats_dims[d] = 1;
      }
    }
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    float* mean_out = nullptr;
    float* inv_std_out = nullptr;
    if (ctx.WantsOutput(1)) {
      mean_out = static_cast<float*>(ctx.Output(1, DataType::kFloat, Shape(stats_dims)).data());
    }
    if (ctx.WantsOutput(2)) {
      inv_std_out = static_cast<float*>(ctx.Output(2, DataType::kFloat, Shape(stats_dims)).data());
    }
    // With an empty X, `rows` may have wrapped unless an allocated Mean or InvStdDev holds it.
    if (rows == 0 || (width == 0 && mean_out == nullptr && inv_std_out == nullptr)) return;

    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const std::vector<int64_t> row_dims(dims.begin() + static_cast<ptrdiff_t>(axis), dims.end());
      const Parameter<Acc> scale_values = Expand<T, Acc>(scale, dims, row_dims);
      const Parameter<Acc> bias_values =
          bias != nullptr ? Expand<T, Acc>(*bias, dims, row_dims) : Parameter<Acc>{};
      const T* xp = static_cast<const T*>(x.data());
      T* yp = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(width, 1));
      ctx.threads().ParallelFor(rows, grain, [&](size_t begin, size_t end) {
        std::vector<double> values(width);
        for (size_t r = begin; r < end; ++r) {
          const T* src = xp + r * width;
          double sum = 0;
          for (size_t i = 0; i < width; ++i) {
            if constexpr (kIsHalf<T>) {
              values[i] = src[i].ToFloat();
            } else {
              values[i] = src[i];
            }
            sum += values[i];
          }
          const double mean = sum / static_cast<double>(width);
          double squares = 0;
          for (size_t i = 0; i < width; ++i) squares += (values[i] - mean) * (values[i] - mean);
          const double inv_std =
              1.0 / std::sqrt(squares / static_cast<double>(width) + double{epsilon_});
          if (mean_out != nullptr) mean_out[r] = static_cast<float>(mean);
          if (inv_std_out != nullptr) inv_std_out[r] = static_cast<float>(inv_std);
          const Acc* s = scale_values.Row(r, width);
          const Acc* b = bias_values.Row(r, width);
          T* dst = yp + r * width;
          for (size_t i = 0; i < width; ++i) {
            Acc v = static_cast<Acc>((values[i] - mean) * inv_std) * s[i];
            if (b != nullptr) v += b[i];
            if constexpr (kIsHalf<T>) {
              dst[i] = T::FromFloat(v);
            } else {
              dst[i] = v;
            }
          }
        }
      });
    });
  }

 private:
  // Scale or B broadcast to one row (when it is the same for every row) or to all of X.
  template <typename Acc>
  struct Parameter {
    std::vector<Acc> values;
    bool per_row = true;
    const Acc* Row(size_t r, size_t width) const {
      if (values.empty()) return nullptr;
      return per_row ? values.data() : values.data() + r * width;
    }
  };

  template <typename T, typename Acc>
  static Parameter<Acc> Expand(const Tensor& t, const std::vector<int64_t>& x_dims,
                               const std::vector<int64_t>& row_dims) {
    const std::vector<int64_t>& dims = t.shape().dims();
    // The dimensions of t that line up with the row dimensions of X; the rest must all be 1 for
    // one row of values to serve every row.
    const size_t kept = std::min(dims.size(), row_dims.size());
    const bool per_row = std::all_of(dims.begin(), dims.end() - static_cast<ptrdiff_t>(kept),
                                     [](int64_t d) { return d == 1; });
    Parameter<Acc> p;
    p.per_row = per_row;
    const T* data = static_cast<const T*>(t.data());
    if (per_row) {
      const std::vector<int64_t> tail(dims.end() - static_cast<ptrdiff_t>(kept), dims.end());
      p.values = BroadcastValues<T, Acc>(data, tail, row_dims);
    } else {
      p.values = BroadcastValues<T, Acc>(data, dims, x_dims);
    }
    return p;
  }

  int64_t axis_;
  float epsilon_;
};

}  // namespace

std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInfo& info) {
  return Make<LayerNormalization>(info);
}

}  // namespace kiln::cpu
