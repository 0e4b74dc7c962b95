// Normalizations other than BatchNormalization, opsets 1–23:
//   InstanceNormalization (versions 1 (consumed_inputs, ignored), 6, 22 (bfloat16)):
//     y = scale * (x - mean) / sqrt(var + epsilon) + B, mean and population variance per (n, c);
//   LRN (versions 1, 13 (bfloat16)): y = x / (bias + alpha / size * square_sum) ^ beta, square_sum
//     over channels [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to [0, C);
//   LpNormalization (versions 1, 22 (bfloat16)): x divided by its L1 or L2 norm along `axis`; a
//     slice whose norm is 0 gives 0 (as ONNX Runtime does).
// Types: float, double, float16 and bfloat16 (through float).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/cpu/common.h"
#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

// Statistics in double: instance planes can be long and float sums would drift.
class InstanceNormalization final : public Kernel {
 public:
  explicit InstanceNormalization(const KernelInfo& info)
      : epsilon_(static_cast<double>(info.GetFloat("epsilon", 1e-5f))) {}

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    const Tensor& scale = ctx.Input(1);
    const Tensor& b = ctx.Input(2);
    nn::RequireOpsetForType(info, "input", x.type(), DataType::kBfloat16, 22);
    nn::RequireSameType(info, "scale", scale, x.type(), "input");
    nn::RequireSameType(info, "B", b, x.type(), "input");
    const Shape& shape = x.shape();
    if (shape.rank() < 3) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'input' has shape " + shape.ToString() +
                                                 "; it needs rank 3 or more (N, C, D1, ...)");
    }
    const int64_t c = shape.dims()[1];
    for (const auto& [t, name] : {std::pair{&scale, "scale"}, std::pair{&b, "B"}}) {
      if (t->shape().rank() != 1 || t->shape().dims()[0] != c) {
        info.Fail(ErrorCode::kInvalidArgument, std::string("input '") + name + "' has shape " +
                                                   t->shape().ToString() + "; expected [" +
                                                   std::to_string(c) + "] (one per channel of " +
                                                   shape.ToString() + ")");
      }
    }
    const auto channels = static_cast<size_t>(c);
    double* gamma = ctx.Scratch<double>(channels);
    double* beta = ctx.Scratch<double>(channels);
    nn::ReadAsDouble(info, scale, "scale", gamma);
    nn::ReadAsDouble(info, b, "B", beta);
    Tensor& y = ctx.Output(0, x.type(), shape);
    if (y.element_count() == 0) return;
    const size_t planes = static_cast<size_t>(shape.dims()[0] * c);
    const size_t plane = x.element_count() / planes;
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = nn::AccOf<T>;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / plane);
      ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
        for (size_t p = begin; p < end; ++p) {
          const T* in = src + p * plane;
          double sum = 0;
          for (size_t i = 0; i < plane; ++i) sum += static_cast<double>(nn::Load(in[i]));
          const double mean = sum / static_cast<double>(plane);
          double squares = 0;
          for (size_t i = 0; i < plane; ++i) {
            const double d = static_cast<double>(nn::Load(in[i])) - mean;
            squares += d * d;
          }
          const double var = squares / static_cast<double>(plane);
          const double mul = gamma[p % channels] / std::sqrt(var + epsilon_);
          const auto m = static_cast<Acc>(mul);
          const auto a = static_cast<Acc>(beta[p % channels] - mean * mul);
          T* out = dst + p * plane;
          for (size_t i = 0; i < plane; ++i) out[i] = nn::Store<T>(nn::Load(in[i]) * m + a);
        }
      });
    });
  }

 private:
  double epsilon_;
};

class Lrn final : public Kernel {
 public:
  explicit Lrn(const KernelInfo& info)
      : size_(info.RequireInt("size")),
        alpha_(info.GetFloat("alpha", 1e-4f)),
        beta_(info.GetFloat("beta", 0.75f)),
        bias_(info.GetFloat("bias", 1.0f)) {
    if (size_ < 1) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'size' is " + std::to_string(size_) + "; it must be positive");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 13);
    const Shape& shape = x.shape();
    if (shape.rank() < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + shape.ToString() +
                                                 "; it needs rank 2 or more (N, C, ...)");
    }
    Tensor& y = ctx.Output(0, x.type(), shape);
    if (y.element_count() == 0) return;
    const auto channels = static_cast<int64_t>(shape.dims()[1]);
    const size_t batch = static_cast<size_t>(shape.dims()[0]);
    const size_t plane = x.element_count() / (batch * static_cast<size_t>(channels));
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      LrnPlanes(ctx, static_cast<const T*>(x.data()), static_cast<T*>(y.data()), batch, channels,
                plane);
    });
  }

 private:
  // Planes of [N, C] in parallel; the square sum of one plane's channel window in a buffer.
  template <typename T>
  void LrnPlanes(KernelContext& ctx, const T* src, T* dst, size_t batch, int64_t channels,
                 size_t plane) const {
    using Acc = nn::AccOf<T>;
    const int64_t before = (size_ - 1) / 2;
    const int64_t after = size_ - 1 - before;
    const Acc scale = static_cast<Acc>(alpha_) / static_cast<Acc>(size_);
    const auto bias = static_cast<Acc>(bias_);
    const auto beta = static_cast<Acc>(beta_);
    const auto c_count = static_cast<size_t>(channels);
    const size_t grain = std::max<size_t>(1, 4096 / plane);
    ctx.threads().ParallelFor(batch * c_count, grain, [&](size_t begin, size_t end) {
      Acc* sum = ctx.Scratch<Acc>(plane);
      for (size_t p = begin; p < end; ++p) {
        const size_t n = p / c_count;
        const auto c = static_cast<int64_t>(p % c_count);
        std::fill(sum, sum + plane, Acc(0));
        const int64_t lo = std::max<int64_t>(0, c - before);
        const int64_t hi = std::min(channels - 1, c + after);
        for (int64_t k = lo; k <= hi; ++k) {
          const T* in = src + (n * c_count + static_cast<size_t>(k)) * plane;
          for (size_t i = 0; i < plane; ++i) {
            const Acc v = nn::Load(in[i]);
            sum[i] += v * v;
          }
        }
        const T* in = src + p * plane;
        T* out = dst + p * plane;
        for (size_t i = 0; i < plane; ++i) {
          out[i] = nn::Store<T>(nn::Load(in[i]) / std::pow(bias + scale * sum[i], beta));
        }
      }
    });
  }

  int64_t size_;
  float alpha_;
  float beta_;
  float bias_;
};

class LpNormalization final : public Kernel {
 public:
  explicit LpNormalization(const KernelInfo& info)
      : axis_(info.GetInt("axis", -1)), p_(info.GetInt("p", 2)) {
    if (p_ != 1 && p_ != 2) {
      info.Fail(ErrorCode::kInvalidArgument,
                "attribute 'p' is " + std::to_string(p_) + "; only 1 and 2 are supported");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    nn::RequireOpsetForType(info, "input", x.type(), DataType::kBfloat16, 22);
    const Shape& shape = x.shape();
    const size_t axis = NormalizeAxis(info, axis_, shape.rank());
    Tensor& y = ctx.Output(0, x.type(), shape);
    if (y.element_count() == 0) return;
    const auto length = static_cast<size_t>(shape.dims()[axis]);
    size_t inner = 1;
    for (size_t d = axis + 1; d < shape.rank(); ++d) inner *= static_cast<size_t>(shape.dims()[d]);
    const size_t outer = x.element_count() / (length * inner);
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      using Acc = nn::AccOf<T>;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / (length * inner));
      ctx.threads().ParallelFor(outer, grain, [&](size_t begin, size_t end) {
        Acc* norm = ctx.Scratch<Acc>(inner);
        for (size_t o = begin; o < end; ++o) {
          const T* in = src + o * length * inner;
          T* out = dst + o * length * inner;
          std::fill(norm, norm + inner, Acc(0));
          for (size_t k = 0; k < length; ++k) {
            for (size_t i = 0; i < inner; ++i) {
              const Acc v = nn::Load(in[k * inner + i]);
              norm[i] += p_ == 1 ? std::abs(v) : v * v;
            }
          }
          if (p_ == 2) {
            for (size_t i = 0; i < inner; ++i) norm[i] = std::sqrt(norm[i]);
          }
          for (size_t k = 0; k < length; ++k) {
            for (size_t i = 0; i < inner; ++i) {
              out[k * inner + i] =
                  nn::Store<T>(norm[i] == Acc(0) ? Acc(0) : nn::Load(in[k * inner + i]) / norm[i]);
            }
          }
        }
      });
    });
  }

 private:
  int64_t axis_;
  int64_t p_;
};

}  // namespace

std::unique_ptr<Kernel> MakeInstanceNormalization(const KernelInfo& info) {
  return Make<InstanceNormalization>(info);
}

std::unique_ptr<Kernel> MakeLrn(const KernelInfo& info) {
  return Make<Lrn>(info);
}

std::unique_ptr<Kernel> MakeLpNormalization(const KernelInfo& info) {
  return Make<LpNormalization>(info);
}

}  // namespace kiln::cpu
