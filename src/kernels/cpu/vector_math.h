// Float transcendental functions that GCC can vectorize: inline, no calls, no table lookups, both
// sides of every choice computed and one selected. Put a loop that calls them in a
// KILN_VECTOR_CLONES function (vectorize.h) and it runs 16 (AVX-512) or 8 (AVX2) at a time.
//
//   ExpF, Expm1F, SigmoidF, TanhF, ErfF, SoftplusF
//
// Accuracy against the double-precision std:: functions rounded to float, measured in
// vector_math_test.cc over dense sweeps of the float range: a relative error of at most 2e-6
// (a few ulps) wherever the result is a normal float, NaN in → NaN out, ±inf → the limits.
// Results in the subnormal range have the absolute error of one subnormal step.
//
// The polynomial coefficients are least-squares/minimax fits made for this file (Lawson's
// algorithm on Chebyshev nodes, then rounded to float).
//
// kiln::cpu::vmath::Exp/Expm1/Sigmoid/Tanh/Erf/Softplus take any compute type: float goes to the
// functions here, double (and anything else) to the std:: functions.
#ifndef KILN_KERNELS_CPU_VECTOR_MATH_H_
#define KILN_KERNELS_CPU_VECTOR_MATH_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

// Inlined everywhere, also where a loop calls them more than once (Gelu's two forms), since a call
// stops the vectorizer.
#if defined(__GNUC__)
#define KILN_VMATH_INLINE __attribute__((always_inline)) inline
#else
#define KILN_VMATH_INLINE inline
#endif

namespace kiln::cpu {

namespace vector_math_detail {

// |x|, by clearing the sign bit.
KILN_VMATH_INLINE float AbsF(float x) {
  return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
}

// |magnitude| with the sign of `sign`.
KILN_VMATH_INLINE float WithSignOf(float magnitude, float sign) {
  return std::bit_cast<float>((std::bit_cast<uint32_t>(magnitude) & 0x7fffffffu) |
                              (std::bit_cast<uint32_t>(sign) & 0x80000000u));
}

// 2^k for -126 <= k <= 127, built in the exponent field. Any k gives some value (no UB).
KILN_VMATH_INLINE float Pow2F(int32_t k) {
  return std::bit_cast<float>(static_cast<uint32_t>(k + 127) << 23);
}

// log1p(t) for 0 <= t <= 1, as t · P(t - 1/2) (relative error about 3e-8).
KILN_VMATH_INLINE float Log1pUnitF(float t) {
  const float u = t - 0.5f;
  float p = 0.0053839487954974174f;
  p = p * u - 0.0085747130215168f;
  p = p * u + 0.011510850861668587f;
  p = p * u - 0.020228136330842972f;
  p = p * u + 0.03664567694067955f;
  p = p * u - 0.06771145761013031f;
  p = p * u + 0.13260848820209503f;
  p = p * u - 0.28852665424346924f;
  p = p * u + 0.8109302520751953f;
  return t * p;
}

}  // namespace vector_math_detail

// e^x. x = k·ln2 + r with |r| <= ln2/2, e^r = 1 + r + r²·P(r), times 2^k applied as two powers
// of two so that subnormal results are rounded once. x is clamped to [-110, 89]: beyond, the
// result is 0 or +inf anyway, and k stays small. NaN passes through the arithmetic.
KILN_VMATH_INLINE float ExpF(float x) {
  using vector_math_detail::Pow2F;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;  // 15 significant bits: k·kLn2Hi is exact
  constexpr float kLn2Lo = 1.428606765330187045e-06f;
  constexpr float kRound = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer
  x = x < -110.0f ? -110.0f : x;         // comparisons are false for NaN: NaN stays
  x = x > 89.0f ? 89.0f : x;
  const float z = x * kLog2e + kRound;
  const float kf = z - kRound;
  // k from the low bits of z, in unsigned arithmetic so that a NaN's bits are harmless.
  const auto k = static_cast<int32_t>(std::bit_cast<uint32_t>(z) - std::bit_cast<uint32_t>(kRound));
  const float r = (x - kf * kLn2Hi) - kf * kLn2Lo;
  float p = 0.0013814611593261361f;
  p = p * r + 0.008368710055947304f;
  p = p * r + 0.04166838899254799f;
  p = p * r + 0.1666652113199234f;
  p = p * r + 0.4999999403953552f;
  p = 1.0f + (r + (r * r) * p);
  const int32_t k1 = k >> 1;  // k = k1 + k2, both in [-80, 64]
  const int32_t k2 = k - k1;
  return p * Pow2F(k1) * Pow2F(k2);
}

// e^x - 1, accurate near 0: x + x²·P(x) for |x| < 0.35, ExpF(x) - 1 beyond.
KILN_VMATH_INLINE float Expm1F(float x) {
  float p = 0.00019845955830533057f;
  p = p * x + 0.0013941641664132476f;
  p = p * x + 0.008333391509950161f;
  p = p * x + 0.04166634753346443f;
  p = p * x + 0.1666666567325592f;
  p = p * x + 0.5f;
  const float small = x + (x * x) * p;
  const float large = ExpF(x) - 1.0f;
  // x's sign: expm1(-0) is -0.
  return vector_math_detail::WithSignOf(vector_math_detail::AbsF(x) < 0.35f ? small : large, x);
}

// 1 / (1 + e^-x), from e = e^-|x| (never overflows): 1 / (1 + e) for x >= 0, e / (1 + e) below.
KILN_VMATH_INLINE float SigmoidF(float x) {
  const float e = ExpF(-vector_math_detail::AbsF(x));
  const float d = 1.0f / (1.0f + e);
  return x >= 0.0f ? d : e * d;  // NaN: e and d are NaN
}

// tanh(x): |x| + |x|³·P(x²) for |x| < 0.625, 1 - 2 / (e^2|x| + 1) beyond, with x's sign.
KILN_VMATH_INLINE float TanhF(float x) {
  const float a = vector_math_detail::AbsF(x);
  const float a2 = a * a;
  float p = -0.005704989191144705f;
  p = p * a2 + 0.02063908986747265f;
  p = p * a2 - 0.05373971536755562f;
  p = p * a2 + 0.13331441581249237f;
  p = p * a2 - 0.3333328068256378f;
  const float small = a + (a * a2) * p;
  const float large = 1.0f - 2.0f / (ExpF(2.0f * a) + 1.0f);  // 1 once e^2a is +inf
  return vector_math_detail::WithSignOf(a < 0.625f ? small : large, x);
}

// erf(x): |x|·P(x²) for |x| < 1; 1 - e^-x²·R(|x| - 2.5) for 1 <= |x| <= 3.95, where
// R(a) ≈ erfc(a)·e^a²; |x| is clamped at 3.95, where erf is 1 in float. x's sign.
KILN_VMATH_INLINE float ErfF(float x) {
  float a = vector_math_detail::AbsF(x);
  a = a > 3.95f ? 3.95f : a;  // NaN stays
  const float a2 = a * a;
  float p = 7.889279368100688e-05f;
  p = p * a2 - 0.0008020892855711281f;
  p = p * a2 + 0.005189541727304459f;
  p = p * a2 - 0.02685444802045822f;
  p = p * a2 + 0.11283600330352783f;
  p = p * a2 - 0.3761262595653534f;
  p = p * a2 + 1.1283791065216064f;
  const float small = a * p;
  const float u = a - 2.5f;
  float q = -0.000393788272049278f;
  q = q * u - 0.0008255168795585632f;
  q = q * u - 0.0020103221759200096f;
  q = q * u + 0.0019271763740107417f;
  q = q * u - 0.007811638060957193f;
  q = q * u + 0.02516462467610836f;
  q = q * u - 0.0742964968085289f;
  q = q * u + 0.21080681681632996f;
  const float large = 1.0f - ExpF(-a2) * q;
  return vector_math_detail::WithSignOf(a < 1.0f ? small : large, x);
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|).
KILN_VMATH_INLINE float SoftplusF(float x) {
  const float t = ExpF(-vector_math_detail::AbsF(x));
  return (x > 0.0f ? x : 0.0f) + vector_math_detail::Log1pUnitF(t);  // NaN: t is NaN
}

namespace vmath {

template <typename C>
KILN_VMATH_INLINE C Exp(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return ExpF(x);
  } else {
    return std::exp(x);
  }
}

template <typename C>
KILN_VMATH_INLINE C Expm1(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return Expm1F(x);
  } else {
    return std::expm1(x);
  }
}

template <typename C>
KILN_VMATH_INLINE C Tanh(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return TanhF(x);
  } else {
    return std::tanh(x);
  }
}

template <typename C>
KILN_VMATH_INLINE C Erf(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return ErfF(x);
  } else {
    return std::erf(x);
  }
}

}  // namespace vmath

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_VECTOR_MATH_H_
