// Reading and writing single elements of any numeric element type as double, for the quantization
// ops, whose inputs and outputs span every integer width (packed int2/int4 included), the float8s,
// float4e2m1 and the wide floats. One switch per element keeps every type combination in one
// instantiation; the quantized tensors these ops see are small next to the matrix products.
//
//   double v = kiln::cpu::quant::LoadElement(x.type(), x.data(), i);
//   kiln::cpu::quant::StoreElement(y.type(), y.data(), i, v, /*saturate=*/true);
#ifndef KILN_KERNELS_CPU_QUANT_CODEC_H_
#define KILN_KERNELS_CPU_QUANT_CODEC_H_

#include <cstddef>
#include <cstdint>

#include "core/data_type.h"

namespace kiln::cpu::quant {

// Whether the type is an integer (packed ones included), which quantization rounds and clamps.
bool IsIntegerType(DataType t) noexcept;
// Whether Load/StoreElement handle the type (every numeric type but complex and bool).
bool IsCodecType(DataType t) noexcept;
// The range of an integer type (packed ones included); {0, 0} for other types.
struct IntRange {
  double lo;
  double hi;
};
IntRange RangeOf(DataType t) noexcept;

// Element i as double (exact for every type but int64/uint64 beyond 2^53).
double LoadElement(DataType t, const void* data, size_t i) noexcept;

// Writes v to element i: integers take v as already rounded and clamped; floats round to nearest
// even; float8 targets honour `saturate` (out of range gives ±max, else ±inf or NaN). Packed
// types change only their own bits of the byte.
void StoreElement(DataType t, void* data, size_t i, double v, bool saturate) noexcept;

}  // namespace kiln::cpu::quant

#endif  // KILN_KERNELS_CPU_QUANT_CODEC_H_
