// Random generators:
//   RandomUniform 1–23, RandomNormal 1–23 (shape attribute), RandomUniformLike 1–23,
//   RandomNormalLike 1–23 (the input's shape; dtype defaults to the input's type), Bernoulli
//   15–23 (1 with the input's probability, else 0; dtype defaults to the input's type).
// Floating outputs are float, double or float16 (Bernoulli: any numeric type or bool). With a
// `seed` attribute every run draws the same values (a fresh Mersenne Twister seeded from it), so
// a seeded model is reproducible; without one each run is seeded from the device's entropy mixed
// with a per-kernel run counter.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "kernels/cpu/random/random_kernels.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace kiln::cpu {
namespace {

enum class Kind { kUniform, kNormal, kBernoulli };

template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T::FromFloat(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
double ToDouble(const T& v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return v.ToFloat();
  } else {
    return static_cast<double>(v);
  }
}

class Random final : public Kernel {
 public:
  Random(const KernelInfo& info, Kind kind, bool like)
      : kind_(kind),
        like_(like),
        low_(info.GetFloat("low", 0.0f)),
        high_(info.GetFloat("high", 1.0f)),
        mean_(info.GetFloat("mean", 0.0f)),
        scale_(info.GetFloat("scale", 1.0f)),
        seeded_(info.HasAttribute("seed")) {
    if (seeded_) {
      const float seed = info.GetFloat("seed", 0.0f);
      uint32_t bits = 0;
      std::memcpy(&bits, &seed, sizeof(bits));
      seed_ = bits;
    } else {
      seed_ = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    }
    if (info.HasAttribute("dtype")) {
      const int64_t dtype = info.GetInt("dtype", 0);
      dtype_ = IsKnownDataType(static_cast<int32_t>(dtype)) ? static_cast<DataType>(dtype)
                                                            : DataType::kUndefined;
      const bool floating =
          dtype_ == DataType::kFloat || dtype_ == DataType::kDouble || dtype_ == DataType::kFloat16;
      if (!floating && !(kind == Kind::kBernoulli && dtype_ != DataType::kUndefined &&
                         dtype_ != DataType::kString)) {
        info.Fail(ErrorCode::kInvalidGraph,
                  "attribute 'dtype' " + std::to_string(dtype) + " is not a supported output type");
      }
    } else if (!like) {
      dtype_ = DataType::kFloat;
    }
    if (!like) {
      if (!info.HasAttribute("shape")) {
        info.Fail(ErrorCode::kInvalidGraph, "attribute 'shape' is required");
      }
      for (int64_t d : info.GetInts("shape")) {
        if (d < 0) {
          info.Fail(ErrorCode::kInvalidGraph, "attribute 'shape' has a negative dimension");
        }
        shape_.push_back(d);
      }
    }
    if (kind == Kind::kUniform && !(low_ <= high_)) {
      info.Fail(ErrorCode::kInvalidGraph, "attributes 'low' (" + std::to_string(low_) +
                                              ") and 'high' (" + std::to_string(high_) +
                                              ") must satisfy low <= high");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor* x = like_ ? &ctx.Input(0) : nullptr;
    const DataType type = dtype_ != DataType::kUndefined ? dtype_ : x->type();
    std::span<const int64_t> dims =
        x != nullptr ? std::span<const int64_t>(x->shape().dims()) : shape_.span();
    if (kind_ != Kind::kBernoulli && type != DataType::kFloat && type != DataType::kDouble &&
        type != DataType::kFloat16) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("output type ") + DataTypeName(type) +
                                                 " is not float, double or float16");
    }
    Tensor& y = ctx.OutputForOverwrite(0, type, CheckedDims(info, type, dims, "output"));
    std::mt19937_64 gen(seeded_ ? seed_ : seed_ ^ (runs_.fetch_add(1) * 0x9E3779B97F4A7C15ULL));
    const size_t n = y.element_count();
    if (kind_ == Kind::kBernoulli) {
      Dispatch<float, double, Float16>(x->type(), info, [&](auto in_tag) {
        using In = typename decltype(in_tag)::type;
        const In* prob = DataAs<In>(*x);
        Dispatch<KILN_NUMERIC_TYPES, bool>(type, info, [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* out = DataAs<T>(y);
          std::uniform_real_distribution<double> u(0.0, 1.0);
          for (size_t i = 0; i < n; ++i) {
            out[i] = u(gen) < ToDouble(prob[i]) ? FromDouble<T>(1) : FromDouble<T>(0);
          }
        });
      });
      return;
    }
    Dispatch<float, double, Float16>(type, info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = DataAs<T>(y);
      if (kind_ == Kind::kUniform) {
        std::uniform_real_distribution<double> u(low_, high_);
        for (size_t i = 0; i < n; ++i) {
          // Rounding to a narrower type may reach high; clamp into [low, high].
          out[i] = FromDouble<T>(std::min<double>(u(gen), high_));
        }
      } else {
        std::normal_distribution<double> d(mean_, scale_);
        for (size_t i = 0; i < n; ++i) out[i] = FromDouble<T>(d(gen));
      }
    });
  }

 private:
  Kind kind_;
  bool like_;
  float low_;
  float high_;
  float mean_;
  float scale_;
  bool seeded_;
  uint64_t seed_ = 0;
  DataType dtype_ = DataType::kUndefined;
  SmallVector<int64_t> shape_;
  mutable std::atomic<uint64_t> runs_{0};
};

}  // namespace

std::unique_ptr<Kernel> MakeRandomUniform(const KernelInfo& info) {
  return std::make_unique<Random>(info, Kind::kUniform, false);
}
std::unique_ptr<Kernel> MakeRandomNormal(const KernelInfo& info) {
  return std::make_unique<Random>(info, Kind::kNormal, false);
}
std::unique_ptr<Kernel> MakeRandomUniformLike(const KernelInfo& info) {
  return std::make_unique<Random>(info, Kind::kUniform, true);
}
std::unique_ptr<Kernel> MakeRandomNormalLike(const KernelInfo& info) {
  return std::make_unique<Random>(info, Kind::kNormal, true);
}
std::unique_ptr<Kernel> MakeBernoulli(const KernelInfo& info) {
  return std::make_unique<Random>(info, Kind::kBernoulli, true);
}

}  // namespace kiln::cpu
