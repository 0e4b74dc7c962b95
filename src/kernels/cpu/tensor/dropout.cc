// Dropout 1–23+:
//   Inference (every opset; the default): output = input and an optional mask of all ones
//     (1–9: the input's type, 10+: bool). 1–6: is_test is ignored (always inference, as ONNX
//     Runtime does); 7–11: the `ratio` attribute only matters in training, which they lack.
//   Training (12+, input training_mode true): mask[i] = u[i] >= ratio with u uniform in [0, 1),
//     output = input * mask / (1 - ratio) (float, double, float16, bfloat16; halves computed in
//     float). ratio (input 1, a scalar of a float type, default 0.5) must lie in [0, 1); 0 gives
//     the input and an all-true mask. The draws come from a counter-based generator keyed by the
//     `seed` attribute (or a fresh random seed per run when absent) and the element's index, so a
//     seeded node gives the same mask on every run and any thread count; the values differ from
//     other runtimes' generators.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>

#include "kernels/cpu/tensor/tensor_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

// SplitMix64's output function: a well-mixed 64-bit value of `x`.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) for element `i` of a run keyed by `key`.
double Uniform(uint64_t key, uint64_t i) {
  return static_cast<double>(Mix(key ^ Mix(i)) >> 11) * 0x1p-53;
}

class Dropout final : public Kernel {
 public:
  explicit Dropout(const KernelInfo& info)
      : opset_(info.opset()),
        has_seed_(info.opset() >= 12 && info.HasAttribute("seed")),
        seed_(has_seed_ ? info.GetInt("seed", 0) : 0) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.Input(0);
    if (Training(ctx)) {
      const double ratio = Ratio(ctx);
      if (ratio > 0) {
        Train(ctx, x, ratio);
        return;
      }
    }
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    CopyTensor(x, y);
    if (!ctx.WantsOutput(1)) return;
    if (opset_ >= 10) {
      Tensor& mask = ctx.Output(1, DataType::kBool, x.shape());
      std::fill_n(DataAs<bool>(mask), mask.element_count(), true);
    } else {
      Dispatch<KILN_FLOAT_TYPES>(x.type(), ctx.info(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        Tensor& mask = ctx.Output(1, x.type(), x.shape());
        const T one = [] {
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
            return T::FromFloat(1.0f);
          } else {
            return T(1);
          }
        }();
        std::fill_n(DataAs<T>(mask), mask.element_count(), one);
      });
    }
  }

 private:
  // Input training_mode (opset 12+): one bool, false when absent.
  bool Training(const KernelContext& ctx) const {
    const Tensor* training = opset_ >= 12 ? ctx.OptionalInput(2) : nullptr;
    if (training == nullptr) return false;
    if (training->type() != DataType::kBool || training->element_count() != 1) {
      ctx.info().Fail(ErrorCode::kInvalidArgument,
                      std::string("input 'training_mode' must be one bool, not ") +
                          DataTypeName(training->type()) + " " + training->shape().ToString());
    }
    return *DataAs<bool>(*training);
  }

  // Input ratio (training only): one value of a float type in [0, 1), 0.5 when absent.
  double Ratio(const KernelContext& ctx) const {
    const Tensor* r = ctx.OptionalInput(1);
    if (r == nullptr) return 0.5;
    const KernelInfo& info = ctx.info();
    if (r->element_count() != 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'ratio' must hold one value, not shape " + r->shape().ToString());
    }
    double ratio = 0;
    Dispatch<KILN_FLOAT_TYPES>(r->type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T v = *DataAs<T>(*r);
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
        ratio = v.ToFloat();
      } else {
        ratio = static_cast<double>(v);
      }
    });
    if (!(ratio >= 0 && ratio < 1)) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'ratio' is " + std::to_string(ratio) + "; it must lie in [0, 1)");
    }
    return ratio;
  }

  void Train(KernelContext& ctx, const Tensor& x, double ratio) const {
    const uint64_t key =
        Mix(has_seed_ ? static_cast<uint64_t>(seed_)
                      : static_cast<uint64_t>(std::random_device{}()) * 0x100000001ull);
    Tensor& y = ctx.Output(0, x.type(), x.shape());
    bool* mask =
        ctx.WantsOutput(1) ? DataAs<bool>(ctx.Output(1, DataType::kBool, x.shape())) : nullptr;
    const double scale = 1.0 / (1.0 - ratio);
    Dispatch<KILN_FLOAT_TYPES>(x.type(), ctx.info(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = DataAs<T>(x);
      T* out = DataAs<T>(y);
      ctx.threads().ParallelFor(x.element_count(), 16384, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const bool keep = Uniform(key, i) >= ratio;
          if (mask != nullptr) mask[i] = keep;
          if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
            out[i] = T::FromFloat(keep ? in[i].ToFloat() * static_cast<float>(scale) : 0.0f);
          } else {
            out[i] = keep ? in[i] * static_cast<T>(scale) : T(0);
          }
        }
      });
    });
  }

  int64_t opset_;
  bool has_seed_;
  int64_t seed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDropout(const KernelInfo& info) {
  return Make<Dropout>(info);
}

}  // namespace kiln::cpu
