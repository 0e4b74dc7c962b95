// Helpers the attention family shares: float conversion of the element types it computes in
// (float, Float16, BFloat16 all run in float) and checked size arithmetic.
//
//   float x = kiln::cpu::ToFloat(h);             // Float16 -> float
//   size_t n = kiln::cpu::CheckedProduct(info, {a, b, c}, "present_key");
//   kiln::cpu::RotateHead(in, out, cos_row, sin_row, half, interleaved);  // rotary embedding
#ifndef KILN_KERNELS_CPU_ATTENTION_ATTENTION_UTIL_H_
#define KILN_KERNELS_CPU_ATTENTION_ATTENTION_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "core/float16.h"
#include "core/tensor.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

template <typename T>
inline float ToFloat(T v) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return v.ToFloat();
  }
}

template <typename T>
inline T FromFloat(float v) noexcept {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return T::FromFloat(v);
  }
}

// The product of non-negative sizes; throws kInvalidArgument naming `what` when it overflows.
inline size_t CheckedProduct(const KernelInfo& info, std::initializer_list<int64_t> dims,
                             const char* what) {
  size_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<size_t>(d), &n)) {
      info.Fail(ErrorCode::kInvalidArgument, std::string("the size of ") + what + " overflows");
    }
  }
  return n;
}

// Every element of a float, Float16 or BFloat16 tensor as float into `out` (element_count()
// floats); throws kNotImplemented naming the node for another type.
void LoadFloats(const KernelInfo& info, const Tensor& t, float* out);

// Writes `in` (element_count() floats) into a float, Float16 or BFloat16 tensor, rounding once.
void StoreFloats(const KernelInfo& info, const float* in, Tensor& t);

// Whether `t` has exactly these dimensions (no heap, unlike comparing with a vector).
inline bool HasDims(const Tensor& t, std::initializer_list<int64_t> dims) noexcept {
  const std::vector<int64_t>& d = t.shape().dims();
  return d.size() == dims.size() && std::equal(d.begin(), d.end(), dims.begin());
}

// "[2,3,4]" for messages.
std::string ShapeText(const Tensor& t);

// Throws kInvalidArgument "input 'name' has rank r; expected <expected>" unless rank fits.
void RequireRank(const KernelInfo& info, const Tensor& t, const char* name, size_t rank);

// Throws kInvalidArgument unless `t` has element type `type` (named after input `other`).
void RequireSameType(const KernelInfo& info, const Tensor& t, const char* name, DataType type,
                     const char* other);

// Rotary embedding of one head vector: its first 2·half features turned by the position's angles
// (cos, sin: `half` values each), the pairs (x[i], x[i + half]), or (x[2i], x[2i + 1]) when
// interleaved: x1' = cos·x1 - sin·x2, x2' = sin·x1 + cos·x2, computed in float. The features
// after them are not touched (in place, or copied by the caller).
template <typename T>
inline void RotateHead(const T* in, T* out, const T* cos, const T* sin, int64_t half,
                       bool interleaved) noexcept {
  for (int64_t i = 0; i < half; ++i) {
    const int64_t i1 = interleaved ? 2 * i : i;
    const int64_t i2 = interleaved ? 2 * i + 1 : i + half;
    const float x1 = ToFloat(in[i1]);
    const float x2 = ToFloat(in[i2]);
    const float c = ToFloat(cos[i]);
    const float s = ToFloat(sin[i]);
    out[i1] = FromFloat<T>(c * x1 - s * x2);
    out[i2] = FromFloat<T>(s * x1 + c * x2);
  }
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ATTENTION_ATTENTION_UTIL_H_
