// One attention head in AVX-512 intrinsics (attention_avx512.cc, compiled with -mavx512f; call it
// only where UseVectorMathAvx512()), for MultiHeadAttention:
//   out = softmax(scale·(Q+bq)(K+bk)ᵀ + scores_bias, causal limit) · (V+bv)
// a few query rows at a time: their scores, softmax and weighted sum stay in L1 instead of an
// S×L score matrix passing through L2 three times, and the biases are added while K and V are
// packed rather than in a copy of their own.
#ifndef KILN_KERNELS_CPU_CONTRIB_ATTENTION_AVX512_H_
#define KILN_KERNELS_CPU_CONTRIB_ATTENTION_AVX512_H_

#include <cstddef>

namespace kiln::cpu {

struct AttentionHead {
  const float* q = nullptr;  // [s, hd], rows ldq apart
  size_t ldq = 0;
  const float* k = nullptr;  // [l, hd], rows ldk apart
  size_t ldk = 0;
  const float* v = nullptr;  // [l, hdv], rows ldv apart
  size_t ldv = 0;
  const float* q_bias = nullptr;  // [hd], [hd], [hdv]: each null or added
  const float* k_bias = nullptr;
  const float* v_bias = nullptr;
  const float* scores_bias = nullptr;  // [s, l] added to the scaled scores, or null
  float* out = nullptr;                // [s, hdv], rows ldo apart
  size_t ldo = 0;
  size_t s = 0;  // query rows
  size_t l = 0;  // key rows (> 0)
  size_t hd = 0;
  size_t hdv = 0;
  float scale = 1.0f;
  // Query row i attends to key rows j <= i + l - s; a row with none attends to all.
  bool causal = false;
};

#if defined(__x86_64__)

// Floats of scratch AttentionHeadAvx512 needs for these sizes.
size_t AttentionHeadScratchFloats(size_t l, size_t hd, size_t hdv);
// Writes the head's output rows; `scratch` is 64-byte aligned, AttentionHeadScratchFloats long.
void AttentionHeadAvx512(const AttentionHead& head, float* scratch);

#else

inline size_t AttentionHeadScratchFloats(size_t, size_t, size_t) {
  __builtin_unreachable();
}
inline void AttentionHeadAvx512(const AttentionHead&, float*) {
  __builtin_unreachable();
}

#endif

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_CONTRIB_ATTENTION_AVX512_H_
