// GCC vector types for the nhwc direct loops (the depthwise fast path, the narrow-group path):
// Vec<8> / Vec<16> hold 8 / 16 floats, loaded and stored unaligned; KILN_CONTRACT turns
// floating-point contraction back on for a function (a multiply-add becomes one FMA).
//
//   template <int K>
//   [[gnu::always_inline]] KILN_CONTRACT inline void Dot(const float* w, const float* x, float* y)
//   {
//     Vec<8> acc = {};
//     for (int k = 0; k < K; ++k) acc += LoadVec<8>(w + 8 * k) * LoadVec<8>(x + 8 * k);
//     StoreVec<8>(y, acc);
//   }
//
// Include it only from .cc files: it silences -Wpsabi for the rest of the file. Vectors are passed
// by value only between inlined functions of one file, so the warning (the baseline and AVX2
// clones would pass them differently) does not apply, and Clang builds (no clones) would warn
// that the baseline passes them without AVX.
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_SIMD_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_SIMD_H_

#include <cstring>

// GCC's -std=c++20 turns floating-point contraction off; here a fused multiply-add is what we
// want. (Clang contracts within an expression by default.)
#if defined(__GNUC__) && !defined(__clang__)
#define KILN_CONTRACT __attribute__((optimize("fp-contract=fast")))
#pragma GCC diagnostic ignored "-Wpsabi"
#else
#define KILN_CONTRACT
#endif
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#endif

namespace kiln::cpu::nhwc {

// kW floats. (Through a class: GCC drops a vector_size attribute that depends on an alias
// template's parameter, leaving a plain float.)
template <int kW>
struct VecOf;
template <>
struct VecOf<8> {
  using type = float __attribute__((vector_size(32)));
};
template <>
struct VecOf<16> {
  using type = float __attribute__((vector_size(64)));
};
template <int kW>
using Vec = typename VecOf<kW>::type;
static_assert(sizeof(Vec<8>) == 8 * sizeof(float) && sizeof(Vec<16>) == 16 * sizeof(float));

template <int kW>
[[gnu::always_inline]] inline Vec<kW> LoadVec(const float* p) {
  Vec<kW> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int kW>
[[gnu::always_inline]] inline void StoreVec(float* p, Vec<kW> v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_SIMD_H_
