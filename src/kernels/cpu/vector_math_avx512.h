// Rows of e^x and of GELU's erf form in AVX-512 intrinsics (vector_math_avx512.cc, compiled with
// -mavx512f), for the softmax of Softmax and MultiHeadAttention and for Gelu/BiasGelu. AVX-512's
// scalef and masked tails make them 1.5–2× faster than the vector-cloned loops over
// vector_math.h, which the callers keep for other machines (and for tests: see the switch).
#ifndef KILN_KERNELS_CPU_VECTOR_MATH_AVX512_H_
#define KILN_KERNELS_CPU_VECTOR_MATH_AVX512_H_

#include <cstddef>

namespace kiln::cpu {

#if defined(__x86_64__)

// Whether callers should use the functions below: the machine runs AVX-512 and tests have not
// turned them off.
bool UseVectorMathAvx512() noexcept;
// Tests: turns the functions off (false) or back on; returns the previous setting.
bool AllowVectorMathAvx512ForTesting(bool allow) noexcept;

// y[i] = e^(x[i] - shift) for i < n, with shift >= every x[i] (a row maximum); returns their
// sum. y may be x. Within 2e-6 relative of the exact value per element, except that a
// result below the smallest normal float (x[i] - shift < -87.34) is 0; NaN stays NaN.
float ExpShiftedSumAvx512(const float* x, float* y, size_t n, float shift);

// y[i] = Gelu(x[i] (+ b[i])) = 0.5·v·(1 + erf(v/√2)) for i < n; b may be null; y may be x.
void GeluErfRowAvx512(const float* x, const float* b, float* y, size_t n);

#else  // Other machines: never used (vector_math_avx512.cc is x86-64 only).

inline bool UseVectorMathAvx512() noexcept {
  return false;
}
inline bool AllowVectorMathAvx512ForTesting(bool) noexcept {
  return false;
}
inline float ExpShiftedSumAvx512(const float*, float*, size_t, float) {
  __builtin_unreachable();
}
inline void GeluErfRowAvx512(const float*, const float*, float*, size_t) {
  __builtin_unreachable();
}

#endif

// Tests: runs the callers with the AVX-512 rows on or off for the object's life.
class ScopedVectorMathAvx512 {
 public:
  explicit ScopedVectorMathAvx512(bool allow) noexcept
      : previous_(AllowVectorMathAvx512ForTesting(allow)) {}
  ~ScopedVectorMathAvx512() { AllowVectorMathAvx512ForTesting(previous_); }
  ScopedVectorMathAvx512(const ScopedVectorMathAvx512&) = delete;
  ScopedVectorMathAvx512& operator=(const ScopedVectorMathAvx512&) = delete;

 private:
  bool previous_;
};

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_VECTOR_MATH_AVX512_H_
