// The sum of a run of floats, accurate whatever its length:
//
//   const double s = cpu::SumFloats(x, n);   // x[0] + ... + x[n - 1]
//
// One running float sum over n values gains a rounding error with every addition, about n·ε of
// the sum for values of one sign: over a 112×112 plane an RMS relative error of 1.9e-6, ten
// times a convolution's. Here 16 running float sums, one per vector lane (the loop vectorizes),
// each over at most 64 values, are added into a double total every 1,024 values.
#ifndef KILN_KERNELS_CPU_FLOAT_SUM_H_
#define KILN_KERNELS_CPU_FLOAT_SUM_H_

#include <cstddef>

namespace kiln::cpu {

double SumFloats(const float* x, size_t n);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_FLOAT_SUM_H_
