// Pooling over all spatial elements of each (n, c) plane; output [N, C, 1, ..., 1]:
//   GlobalAveragePool (opsets 1–23: versions 1, 22), GlobalMaxPool (1, 22),
//   GlobalLpPool (1 (float p), 2 (int p), 22).
// Types: float, double, float16 and bfloat16 (through float; bfloat16 from opset 22). Input rank 2
// or more; an empty plane is an error for the average and the maximum (LpPool gives 0).
// GlobalMaxPool ignores NaN unless the whole plane is NaN.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/cpu/float_sum.h"
#include "kernels/cpu/nn/nn_kernels.h"
#include "kernels/cpu/nn/nn_types.h"
#include "kernels/cpu/small_vector.h"
#include "kernels/cpu/types.h"

namespace kiln::cpu {
namespace {

enum class GlobalKind { kAverage, kMax, kLp };

template <typename T>
nn::AccOf<T> ReducePlane(GlobalKind kind, double p, const T* src, size_t n) {
  using Acc = nn::AccOf<T>;
  Acc r = kind == GlobalKind::kMax ? nn::Load(src[0]) : Acc(0);
  switch (kind) {
    case GlobalKind::kAverage:
      if constexpr (std::is_same_v<T, float>) {
        return static_cast<float>(SumFloats(src, n) / static_cast<double>(n));
      }
      for (size_t i = 0; i < n; ++i) r += nn::Load(src[i]);
      return r / static_cast<Acc>(n);
    case GlobalKind::kMax:
      for (size_t i = 1; i < n; ++i) {
        const Acc v = nn::Load(src[i]);
        if (v > r || (nn::IsNan(r) && !nn::IsNan(v))) r = v;
      }
      return r;
    case GlobalKind::kLp:
      if (p == 2.0) {
        for (size_t i = 0; i < n; ++i) r += nn::Load(src[i]) * nn::Load(src[i]);
        return std::sqrt(r);
      }
      for (size_t i = 0; i < n; ++i) r += std::pow(std::abs(nn::Load(src[i])), static_cast<Acc>(p));
      return std::pow(r, static_cast<Acc>(1.0 / p));
  }
  return r;
}

class GlobalPool final : public Kernel {
 public:
  GlobalPool(const KernelInfo& info, GlobalKind kind) : kind_(kind) {
    if (kind == GlobalKind::kLp) {
      p_ = info.opset() >= 2 ? static_cast<double>(info.GetInt("p", 2))
                             : static_cast<double>(info.GetFloat("p", 2.0f));
      if (!(p_ > 0)) {
        info.Fail(ErrorCode::kInvalidArgument,
                  "attribute 'p' is " + std::to_string(p_) + "; it must be positive");
      }
    }
  }

  void Compute(KernelContext& ctx) const override {
    const KernelInfo& info = ctx.info();
    const Tensor& x = ctx.Input(0);
    nn::RequireOpsetForType(info, "X", x.type(), DataType::kBfloat16, 22);
    const Shape& shape = x.shape();
    if (shape.rank() < 2) {
      info.Fail(ErrorCode::kInvalidArgument, "input 'X' has shape " + shape.ToString() +
                                                 "; it needs rank 2 or more (N, C, ...)");
    }
    SmallVector<int64_t> y_dims(shape.rank(), 1);
    y_dims[0] = shape.dims()[0];
    y_dims[1] = shape.dims()[1];
    const size_t planes = static_cast<size_t>(y_dims[0]) * static_cast<size_t>(y_dims[1]);
    size_t plane_size = 1;
    for (size_t d = 2; d < shape.rank(); ++d) plane_size *= static_cast<size_t>(shape.dims()[d]);
    if (plane_size == 0 && planes != 0 && kind_ != GlobalKind::kLp) {
      info.Fail(ErrorCode::kInvalidArgument,
                "input 'X' has shape " + shape.ToString() + ": its spatial planes are empty");
    }
    Tensor& y = ctx.OutputForOverwrite(0, x.type(), y_dims.span());
    if (planes == 0) return;
    Dispatch<float, double, Float16, BFloat16>(x.type(), info, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = static_cast<const T*>(x.data());
      T* dst = static_cast<T*>(y.data());
      const size_t grain = std::max<size_t>(1, 16384 / std::max<size_t>(1, plane_size));
      ctx.threads().ParallelFor(planes, grain, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          dst[i] = plane_size == 0
                       ? T{}
                       : nn::Store<T>(ReducePlane(kind_, p_, src + i * plane_size, plane_size));
        }
      });
    });
  }

 private:
  GlobalKind kind_;
  double p_ = 2.0;
};

}  // namespace

std::unique_ptr<Kernel> MakeGlobalAveragePool(const KernelInfo& info) {
  return std::make_unique<GlobalPool>(info, GlobalKind::kAverage);
}

std::unique_ptr<Kernel> MakeGlobalMaxPool(const KernelInfo& info) {
  return std::make_unique<GlobalPool>(info, GlobalKind::kMax);
}

std::unique_ptr<Kernel> MakeGlobalLpPool(const KernelInfo& info) {
  return std::make_unique<GlobalPool>(info, GlobalKind::kLp);
}

}  // namespace kiln::cpu
