// Element helpers shared by the reduce family: the type a reduction accumulates in (float for
// Float16/BFloat16), loads and stores through it, integer arithmetic that wraps instead of
// overflowing, and a saturating conversion from double to an integer type.
#ifndef KILN_KERNELS_CPU_REDUCE_NUMERIC_H_
#define KILN_KERNELS_CPU_REDUCE_NUMERIC_H_

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/float16.h"

namespace kiln::cpu::reduce {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// The type T is computed in: float for the 16-bit floats, T otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
ComputeType<T> Load(T x) {
  if constexpr (kIsHalf<T>) {
    return x.ToFloat();
  } else {
    return x;
  }
}

// Converts a computed value back to T (only the 16-bit floats need more than a cast).
template <typename T, typename A>
T Store(A a) {
  if constexpr (kIsHalf<T>) {
    return T::FromFloat(static_cast<float>(a));
  } else {
    return static_cast<T>(a);
  }
}

// Integer arithmetic in an unsigned type of at least int's width, so overflow wraps (as in numpy
// and ONNX Runtime) instead of being undefined; plain arithmetic for floating point.
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
  } else {
    return a * b;
  }
}

template <typename T>
T Abs(T x) {
  if constexpr (std::is_unsigned_v<T>) {
    return x;
  } else if constexpr (std::is_integral_v<T>) {
    return x < 0 ? static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(x)) : x;
  } else {
    return std::abs(x);
  }
}

// double to integer T, truncating toward zero; NaN gives 0 and values past T's range its bounds.
template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

// Whether x is NaN (false for integer types).
template <typename A>
bool IsNan(A x) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

}  // namespace kiln::cpu::reduce

#endif  // KILN_KERNELS_CPU_REDUCE_NUMERIC_H_
