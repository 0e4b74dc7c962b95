// Normalizations over groups of elements:
//   MeanVarianceNormalization (1 (experimental: across_channels, normalize_variance), 9, 13): Y =
//     (X - mean) / (sqrt(var) + 1e-9), mean and population
//     variance over `axes` (default [0, 2, 3]), as the spec's function body computes it.
//   GroupNormalization (18, 21): X [N, C, d…] split into `num_groups` groups of C / num_groups
//     channels; Y = (X - mean) / sqrt(var + epsilon) · scale + bias with the statistics of each
//     (n, group). Opset 18 takes scale and bias per group, opset 21 per channel; stash_type 1
//     (float, the only one the spec allows) computes the statistics in double here.
// Types: float, double, Float16, BFloat16 (through float).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/common.h"
#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

class MeanVarianceNormalization final : public Kernel {
 public:
  // Before opset 9 (ONNX's experimental MVN, which ONNX Runtime still runs): statistics per
  // channel over N, H and W (opset 9's default axes), or over everything with across_channels,
  // as ONNX Runtime computes them; with normalize_variance 0 only the mean is taken off.
  explicit MeanVarianceNormalization(const KernelInfo& info)
      : axes_(info.opset() >= 9                        ? info.GetInts("axes", {0, 2, 3})
              : info.GetInt("across_channels", 0) != 0 ? std::vector<int64_t>{0, 1, 2, 3}
                                                       : std::vector<int64_t>{0, 2, 3}),
        normalize_variance_(info.opset() >= 9 || info.GetInt("normalize_variance", 1) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const std::vector<int64_t>& dims = x.shape().dims();
    const size_t rank = dims.size();
    SmallVector<bool> reduced(rank, false);
    for (int64_t a : axes_) {
      const size_t axis = NormalizeAxis(info, a, rank, "axes");
      if (reduced[axis]) {
        info.Fail(ErrorCode::kInvalidGraph,
                  "attribute 'axes' names axis " + std::to_string(axis) + " twice");
      }
      reduced[axis] = true;
    }
    // Each element's statistics slot: its index over the kept axes, from per-axis strides.
    SmallVector<size_t> slot_stride(rank, 0);
    size_t slots = 1;
    for (size_t d = rank; d-- > 0;) {
      if (!reduced[d]) {
        slot_stride[d] = slots;
        slots *= static_cast<size_t>(dims[d]);
      }
    }
    const size_t count = x.element_count();
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), x.shape());
    if (count == 0) return;
    const size_t group = count / slots;
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      double* sum = ctx.Scratch<double>(slots);
      double* squares = ctx.Scratch<double>(slots);
      std::fill(sum, sum + slots, 0.0);
      std::fill(squares, squares + slots, 0.0);
      SmallVector<int64_t> index(rank, 0);
      const auto for_each = [&](auto&& fn) {
        std::fill(index.begin(), index.end(), 0);
        size_t slot = 0;
        for (size_t i = 0; i < count; ++i) {
          fn(i, slot);
          for (size_t d = rank; d-- > 0;) {  // advance the multi-index and the slot with it
            slot += slot_stride[d];
            if (++index[d] < dims[d]) break;
            slot -= slot_stride[d] * static_cast<size_t>(dims[d]);
            index[d] = 0;
          }
        }
      };
      for_each([&](size_t i, size_t slot) {
        const auto v = static_cast<double>(nn::Load(src[i]));
        sum[slot] += v;
        squares[slot] += v * v;
      });
      const auto n = static_cast<double>(group);
      for (size_t s = 0; s < slots; ++s) {
        const double mean = sum[s] / n;
        const double var = std::max(0.0, squares[s] / n - mean * mean);
        sum[s] = mean;
        squares[s] = normalize_variance_ ? 1.0 / (std::sqrt(var) + 1e-9) : 1.0;
      }
      for_each([&](size_t i, size_t slot) {
        const double v = (static_cast<double>(nn::Load(src[i])) - sum[slot]) * squares[slot];
        dst[i] = nn::Store<T>(static_cast<nn::AccOf<T>>(v));
      });
    });
  }

 private:
  std::vector<int64_t> axes_;
  bool normalize_variance_;
};

class GroupNormalization final : public Kernel {
 public:
  explicit GroupNormalization(const KernelInfo& info)
      : groups_(info.RequireInt("num_groups")),
        epsilon_(static_cast<double>(info.GetFloat("epsilon", 1e-5f))),
        per_channel_(info.opset() >= 21) {
    if (groups_ <= 0) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'num_groups' is " + std::to_string(groups_) + "; it must be positive");
    }
    const int64_t stash = info.GetInt("stash_type", 1);
    if (stash != 1) {
      info.Fail(ErrorCode::kInvalidGraph,
                "attribute 'stash_type' is " + std::to_string(stash) + "; it must be 1 (float)");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor& bias = ctx.Input(2);
    const Shape& shape = x.shape();
    if (shape.rank() < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + shape.ToString() +
                                                 "; it needs rank 2 or more (N, C, ...)");
    }
    const int64_t c = shape.dims()[1];
    if (c % groups_ != 0) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has " + std::to_string(c) +
                                                 " channels, not a multiple of attribute "
                                                 "'num_groups' (" +
                                                 std::to_string(groups_) + ")");
    }
    const int64_t params = per_channel_ ? c : groups_;
    for (const auto& [t, name] : {std::pair{&scale, "scale"}, std::pair{&bias, "bias"}}) {
      if (t->type() != x.type()) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' is " +
                                                   DataTypeName(t->type()) + " but input 'X' is " +
                                                   DataTypeName(x.type()));
      }
      if (t->shape().rank() != 1 || t->shape().dims()[0] != params) {
        info.Fail(ErrorCode::kInvalidArgument,
                  std::string("input '") + name + "' has shape " + t->shape().ToString() +
                      "; expected [" + std::to_string(params) + "] (one per " +
                      (per_channel_ ? "channel" : "group") + " at opset " +
                      std::to_string(info.opset()) + ")");
      }
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), shape);
    const size_t count = x.element_count();
    if (count == 0) return;
    const auto channels = static_cast<size_t>(c);
    const auto groups = static_cast<size_t>(groups_);
    const size_t batch = static_cast<size_t>(shape.dims()[0]);
    const size_t plane = count / (batch * channels);
    const size_t per_group = channels / groups;
    const size_t group_size = per_group * plane;
    double* gamma = ctx.Scratch<double>(static_cast<size_t>(params));
    double* beta = ctx.Scratch<double>(static_cast<size_t>(params));
    nn::ReadAsDouble(info, scale, "scale", gamma);
    nn::ReadAsDouble(info, bias, "bias", beta);
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(group_size, 1));
      ctx.threads().ParallelFor(batch * groups, grain, [&](size_t begin, size_t end) {
        for (size_t ng = begin; ng < end; ++ng) {
          const T* in = src + ng * group_size;
          T* out = dst + ng * group_size;
          double sum = 0;
          for (size_t i = 0; i < group_size; ++i) sum += static_cast<double>(nn::Load(in[i]));
          const double mean = sum / static_cast<double>(group_size);
          double squares = 0;
          for (size_t i = 0; i < group_size; ++i) {
            const double d = static_cast<double>(nn::Load(in[i])) - mean;
            squares += d * d;
          }
          const double inv_std =
              1.0 / std::sqrt(squares / static_cast<double>(group_size) + epsilon_);
          const size_t g = ng % groups;
          for (size_t k = 0; k < per_group; ++k) {
            const size_t p = per_channel_ ? g * per_group + k : g;
            const double mul = gamma[p] * inv_std;
            const double add = beta[p] - mean * mul;
            for (size_t i = k * plane; i < (k + 1) * plane; ++i) {
              const double v = static_cast<double>(nn::Load(in[i])) * mul + add;
              out[i] = nn::Store<T>(static_cast<nn::AccOf<T>>(v));
            }
          }
        }
      });
    });
  }

 private:
  int64_t groups_;
  double epsilon_;
  bool per_channel_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMeanVarianceNormalization(const KernelInfo& info) {
  return Make<MeanVarianceNormalization>(info);
}
std::unique_ptr<Kernel> MakeGroupNormalization(const KernelInfo& info) {
  return Make<GroupNormalization>(info);
}

}  // namespace kiln::cpu
