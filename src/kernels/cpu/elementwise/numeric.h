// Element helpers shared by the elementwise kernels: the type arithmetic is done in (float for
// Float16/BFloat16), wrapping integer arithmetic without undefined behaviour, and saturating
// float-to-integer conversion.
//
//   using C = kiln::cpu::ComputeType<kiln::Float16>;        // float
//   C x = kiln::cpu::Load(h);                               // Float16 -> float
//   kiln::Float16 y = kiln::cpu::Store<kiln::Float16>(x);   // float -> Float16
//   int32_t s = kiln::cpu::WrapAdd<int32_t>(INT32_MAX, 1);  // INT32_MIN, as numpy
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_NUMERIC_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_NUMERIC_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/float16.h"

namespace kiln::cpu {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// The type elements of T are computed in.
template <typename T>
using ComputeType = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
inline ComputeType<T> Load(T v) noexcept {
  if constexpr (kIsHalf<T>) {
    return v.ToFloat();
  } else {
    return v;
  }
}

template <typename T>
inline T Store(ComputeType<T> v) noexcept {
  if constexpr (kIsHalf<T>) {
    return T::FromFloat(v);
  } else {
    return v;
  }
}

// The unsigned type integer arithmetic on T wraps in (at least `unsigned`, so that uint16_t
// operands are not promoted to a signed int that could overflow).
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
inline T WrapAdd(T a, T b) noexcept {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapSub(T a, T b) noexcept {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapMul(T a, T b) noexcept {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapNeg(T a) noexcept {
  return static_cast<T>(WrapType<T>{0} - static_cast<WrapType<T>>(a));
}

// Integer division truncating toward zero; b must not be 0. MIN / -1 wraps to MIN.
template <typename T>
inline T TruncDiv(T a, T b) noexcept {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return WrapNeg(a);
  }
  return static_cast<T>(a / b);
}

// C's remainder (sign of the dividend); b must not be 0.
template <typename T>
inline T TruncMod(T a, T b) noexcept {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Python's remainder (sign of the divisor); b must not be 0.
template <typename T>
inline T FloorMod(T a, T b) noexcept {
  T r = TruncMod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

// A floating value as integer type I: truncated toward zero, NaN to 0, out-of-range values
// saturated (ONNX leaves them undefined; this keeps the conversion free of undefined behaviour).
template <typename I, typename F>
inline I SaturateCast(F v) noexcept {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>);
  if (std::isnan(v)) return 0;
  // 2^digits (exact in F) is the first value past the range; lowest() is exact too, and every
  // value strictly between them truncates into range.
  constexpr F kUpper =
      static_cast<F>(2) * static_cast<F>(I{1} << (std::numeric_limits<I>::digits - 1));
  constexpr F kLower = static_cast<F>(std::numeric_limits<I>::lowest());
  if (v >= kUpper) return std::numeric_limits<I>::max();
  if (v <= kLower) return std::numeric_limits<I>::lowest();
  return static_cast<I>(v);
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_NUMERIC_H_
