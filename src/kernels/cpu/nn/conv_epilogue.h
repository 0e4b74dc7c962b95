// The fused epilogue of FusedConv (com.microsoft) and NhwcConv (ai.kiln), after ONNX Runtime's
// FusedConv: y = act(conv + B + Z), applied while the convolution's output is still in cache.
//
//   nn::Epilogue e = nn::ReadEpilogue(info);  // once, at kernel creation
//   nn::ApplyEpiloguePlane(e, y, plane_size, bias[m], z);          // NCHW: one bias per plane
//   nn::ApplyEpilogueRows(e, y, pixels, m, m, bias, z, m);          // NHWC: a bias vector per row
#ifndef KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_
#define KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_

#include <algorithm>
#include <cstddef>
#include <string>

#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/vector_math.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nn {

enum class Activation {
  kNone,
  kRelu,
  kLeakyRelu,
  kClip,
  kSigmoid,
  kTanh,
  kHardSigmoid,
  kHardSwish,
  kSwish
};

struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.0f;  // LeakyRelu's slope, Clip's min, HardSigmoid's alpha
  float beta = 0.0f;   // Clip's max, HardSigmoid's beta
};

// The activation applied to one value (inlined, so a loop over it vectorizes).
template <Activation A>
[[gnu::always_inline]] inline float Activate(float x, float alpha, float beta) {
  if constexpr (A == Activation::kNone) {
    return x;
  } else if constexpr (A == Activation::kRelu) {
    return std::max(x, 0.0f);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return x >= 0.0f ? x : alpha * x;
  } else if constexpr (A == Activation::kClip) {
    return std::min(std::max(x, alpha), beta);
  } else if constexpr (A == Activation::kSigmoid) {
    return SigmoidF(x);
  } else if constexpr (A == Activation::kTanh) {
    return TanhF(x);
  } else if constexpr (A == Activation::kHardSigmoid) {
    return std::max(0.0f, std::min(1.0f, alpha * x + beta));
  } else if constexpr (A == Activation::kHardSwish) {
    return x * std::max(0.0f, std::min(1.0f, x * (1.0f / 6.0f) + 0.5f));
  } else {
    return x * SigmoidF(x);
  }
}

// Calls f.template operator()<A>() for the epilogue's activation.
template <typename F>
void WithActivation(Activation a, F&& f) {
  switch (a) {
    case Activation::kNone:
      return f.template operator()<Activation::kNone>();
    case Activation::kRelu:
      return f.template operator()<Activation::kRelu>();
    case Activation::kLeakyRelu:
      return f.template operator()<Activation::kLeakyRelu>();
    case Activation::kClip:
      return f.template operator()<Activation::kClip>();
    case Activation::kSigmoid:
      return f.template operator()<Activation::kSigmoid>();
    case Activation::kTanh:
      return f.template operator()<Activation::kTanh>();
    case Activation::kHardSigmoid:
      return f.template operator()<Activation::kHardSigmoid>();
    case Activation::kHardSwish:
      return f.template operator()<Activation::kHardSwish>();
    case Activation::kSwish:
      return f.template operator()<Activation::kSwish>();
  }
}

// Reads attributes 'activation' and 'activation_params', each name after `prefix` (NhwcConv's
// expansion reads 'expand_activation'). Throws kInvalidGraph naming the attribute for an unknown
// activation or a wrong number of parameters.
Epilogue ReadEpilogue(const KernelInfo& info, const std::string& prefix = "");

// y[i] = act(y[i] + bias + z[i]) for i < n; z may be nullptr (then it is 0).
void ApplyEpiloguePlane(const Epilogue& e, float* y, size_t n, float bias, const float* z);

// For each of `rows` rows of `cols` elements (row r at y + r * ldy, z + r * ldz):
// y[j] = act(y[j] + bias[j] + z[j]); bias and z may be nullptr.
// Swish goes to nn/swish_avx512.cc where the machine runs AVX-512, to the vector-cloned loop
// elsewhere.
void ApplyEpilogueRows(const Epilogue& e, float* y, size_t rows, size_t cols, size_t ldy,
                       const float* bias, const float* z, size_t ldz);

// The epilogue as PackedGemm applies it to the sums before it stores them (see GemmEpilogue;
// z indexed as the product's C, row stride ldz), when its activation is none, ReLU or Clip:
// the same bits as ApplyEpilogueRows after the product, without the pass over C. Returns false
// (and leaves *out alone) for the other activations.
bool InProduct(const Epilogue& e, const float* bias, const float* z, size_t ldz, GemmEpilogue* out);

// For tests: whether ApplyEpilogueRows may use the AVX-512 Swish (true at start; it still needs
// the machine to run it). Returns the previous setting.
bool AllowSwishAvx512ForTesting(bool allow) noexcept;

}  // namespace kiln::cpu::nn

#endif  // KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_
