// The Swish epilogue (x·sigmoid(x)) in AVX-512 intrinsics, for machines that run it
// (conv_epilogue.cc chooses). About twice as fast as the vector-cloned loop over vector_math.h's
// SigmoidF, which EfficientNet spends a quarter of its time in: AVX-512's scalef and rcp14 stand
// in for the portable code's exponent bit tricks and division.
#ifndef KILN_KERNELS_CPU_NN_SWISH_AVX512_H_
#define KILN_KERNELS_CPU_NN_SWISH_AVX512_H_

#include <cstddef>

namespace kiln::cpu::nn {

// Whether this machine runs SwishRowsAvx512.
bool SwishAvx512Supported() noexcept;

// For each of `rows` rows of `cols` values (row stride ldy): v = y (+ bias[j]) (+ z's row, stride
// ldz); y = v·sigmoid(v), within 4e-7 relative of the exact value (NaN stays NaN). bias and z
// may be null.
void SwishRowsAvx512(float* y, size_t rows, size_t cols, size_t ldy, const float* bias,
                     const float* z, size_t ldz);

}  // namespace kiln::cpu::nn

#endif  // KILN_KERNELS_CPU_NN_SWISH_AVX512_H_
