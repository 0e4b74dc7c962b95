// KILN_VECTOR_CLONES: put before a hot loop function (templates too) to have GCC compile it three
// times, for AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3) and the baseline, and pick the widest the
// machine runs when the library loads. Everything inlined into the function (the element
// operation) is compiled for that target as well.
//
//   template <typename T, typename Op>
//   KILN_VECTOR_CLONES void Apply(size_t n, const T* x, T* y, const Op& op) {
//     for (size_t i = 0; i < n; ++i) y[i] = op(x[i]);
//   }
//
// KILN_VECTOR_CLONES_AVX2: the same without the AVX-512 version, for code whose AVX-512 variant is
// a separate function. KILN_TARGET_AVX512: one version, for AVX-512 only; call it only where
// the machine has AVX-512 (UseVectorMathAvx512()).
//
// Other compilers (Clang: the fuzz preset) get one baseline version, and KILN_HAS_VECTOR_CLONES is
// 0 there: a file may then leave out variants only the wider targets would run, and must leave out
// calls to KILN_TARGET_AVX512 functions, which are baseline code there. (GCC's ASan build has the
// clones.)
#ifndef KILN_KERNELS_CPU_VECTORIZE_H_
#define KILN_KERNELS_CPU_VECTORIZE_H_

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(KILN_NO_CLONES)
#define KILN_VECTOR_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define KILN_VECTOR_CLONES_AVX2 __attribute__((target_clones("arch=x86-64-v3", "default")))
#define KILN_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define KILN_HAS_VECTOR_CLONES 1
#else
#define KILN_VECTOR_CLONES
#define KILN_VECTOR_CLONES_AVX2
#define KILN_TARGET_AVX512
#define KILN_HAS_VECTOR_CLONES 0
#endif

#endif  // KILN_KERNELS_CPU_VECTORIZE_H_
