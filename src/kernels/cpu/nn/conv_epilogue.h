// The fused epilogue of FusedConv (com.microsoft) and NhwcConv (ai.kiln), after ONNX Runtime's
// FusedConv: y = act(conv + B + Z), applied while the convolution's output is still in cache.
//
//   nn::Epilogue e = nn::ReadEpilogue(info);  // once, at kernel creation
//   nn::ApplyEpiloguePlane(e, y, plane_size, bias[m], z);          // NCHW: one bias per plane
//   nn::ApplyEpilogueRows(e, y, pixels, m, m, bias, z, m);          // NHWC: a bias vector per row
#ifndef KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_
#define KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_

#include <cstddef>

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

// Reads attributes 'activation' and 'activation_params'. Throws kInvalidGraph naming the
// attribute for an unknown activation or a wrong number of parameters.
Epilogue ReadEpilogue(const KernelInfo& info);

// y[i] = act(y[i] + bias + z[i]) for i < n; z may be nullptr (then it is 0).
void ApplyEpiloguePlane(const Epilogue& e, float* y, size_t n, float bias, const float* z);

// For each of `rows` rows of `cols` elements (row r at y + r * ldy, z + r * ldz):
// y[j] = act(y[j] + bias[j] + z[j]); bias and z may be nullptr.
void ApplyEpilogueRows(const Epilogue& e, float* y, size_t rows, size_t cols, size_t ldy,
                       const float* bias, const float* z, size_t ldz);

}  // namespace kiln::cpu::nn

#endif  // KILN_KERNELS_CPU_NN_CONV_EPILOGUE_H_
