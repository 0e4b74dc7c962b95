// Element-type helpers for the nn kernels: the type arithmetic runs in (float for Float16 and
// BFloat16), conversions to and from it, and the per-opset type checks.
//
//   using Acc = nn::AccOf<T>;
//   Acc v = nn::Load(x[i]);
//   y[i] = nn::Store<T>(v * 2);
#ifndef KILN_KERNELS_CPU_NN_NN_TYPES_H_
#define KILN_KERNELS_CPU_NN_NN_TYPES_H_

#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>

#include "core/float16.h"
#include "core/tensor.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nn {

template <typename T>
struct AccTraits {
  using type = T;
};
template <>
struct AccTraits<Float16> {
  using type = float;
};
template <>
struct AccTraits<BFloat16> {
  using type = float;
};

// The type arithmetic on T runs in.
template <typename T>
using AccOf = typename AccTraits<T>::type;

template <typename T>
AccOf<T> Load(T v) noexcept {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return v.ToFloat();
  } else {
    return v;
  }
}

template <typename T>
T Store(AccOf<T> v) noexcept {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T::FromFloat(v);
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
bool IsNan(T v) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Writes the t.element_count() values of a float, double, float16 or bfloat16 tensor to `out` as
// double; throws kInvalidArgument naming input `name` for another type.
void ReadAsDouble(const KernelInfo& info, const Tensor& t, const char* name, double* out);

// Copies n values between element types through AccOf (Float16/BFloat16 <-> float).
template <typename From, typename To>
void ConvertValues(const From* src, To* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<From, Float16> || std::is_same_v<From, BFloat16>) {
      dst[i] = Store<To>(src[i].ToFloat());
    } else {
      dst[i] = Store<To>(static_cast<AccOf<To>>(src[i]));
    }
  }
}

// Runs a convolution-like `run(x, w, bias, y, col)` in float for a 16-bit element type T: x, w
// and the bias (when given) are converted into scratch memory, `col_size` floats of scratch are
// handed over, and the float result is converted back into y.
template <typename T, typename Run>
void RunThroughFloat(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor* b,
                     Tensor& y, size_t col_size, Run run) {
  const size_t x_count = x.element_count();
  const size_t w_count = w.element_count();
  const size_t y_count = y.element_count();
  float* xf = ctx.Scratch<float>(x_count);
  float* wf = ctx.Scratch<float>(w_count);
  float* yf = ctx.Scratch<float>(y_count);
  float* bf = nullptr;
  if (b != nullptr) {
    bf = ctx.Scratch<float>(b->element_count());
    ConvertValues(static_cast<const T*>(b->data()), bf, b->element_count());
  }
  float* col = col_size != 0 ? ctx.Scratch<float>(col_size) : nullptr;
  ConvertValues(static_cast<const T*>(x.data()), xf, x_count);
  ConvertValues(static_cast<const T*>(w.data()), wf, w_count);
  run(static_cast<const float*>(xf), static_cast<const float*>(wf), static_cast<const float*>(bf),
      yf, col);
  ConvertValues(yf, static_cast<T*>(y.data()), y_count);
}

// Throws kInvalidArgument when input `name` has element type `type` and the node's opset is below
// `since`, the first opset whose type constraint lists it.
void RequireOpsetForType(const KernelInfo& info, const char* name, DataType type,
                         DataType restricted, int64_t since);

// Throws kInvalidArgument unless input `name` has element type `want`, that of input `reference`.
void RequireSameType(const KernelInfo& info, const char* name, const Tensor& t, DataType want,
                     const char* reference = "X");

}  // namespace kiln::cpu::nn

#endif  // KILN_KERNELS_CPU_NN_NN_TYPES_H_
