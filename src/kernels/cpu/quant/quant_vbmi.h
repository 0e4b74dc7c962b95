// A table of 256 bytes looked up for a run of bytes with AVX-512 VBMI (quant_vbmi.cc, compiled
// with -mavx512f -mavx512bw -mavx512vbmi): 64 bytes at a time by two vpermi2b and a blend on
// each index's top bit, where the scalar loop took one load per byte. For QLinearSigmoid,
// QLinearLeakyRelu and the other table-driven quantized ops.
//
//   if (ByteLookupVbmiSupported()) ByteLookupVbmi(table, n, x, y);  // y[i] = table[x[i]]
#ifndef KILN_KERNELS_CPU_QUANT_QUANT_VBMI_H_
#define KILN_KERNELS_CPU_QUANT_QUANT_VBMI_H_

#include <cstddef>
#include <cstdint>

namespace kiln::cpu {

// Whether this machine runs ByteLookupVbmi (AVX-512 BW and VBMI) and tests have not turned the
// AVX-512 paths off (UseVectorMathAvx512).
bool ByteLookupVbmiSupported();

// y[i] = table[x[i]] for i < n; y may be x.
void ByteLookupVbmi(const uint8_t* table, size_t n, const uint8_t* x, uint8_t* y);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_QUANT_VBMI_H_
