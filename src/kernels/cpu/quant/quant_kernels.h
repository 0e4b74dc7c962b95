// Factories of the quant family (quantization and integer matrix products), listed in
// quant/kernels.cc.
#ifndef KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_
#define KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeQuantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDequantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDynamicQuantizeLinear(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearMatMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeConvInteger(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearConv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMsQLinearConv(const KernelInfo& info);  // com.microsoft's
// QLinearConv over channels-last tensors (ai.kiln NhwcQLinearConv, made by the layout pass).
std::unique_ptr<Kernel> MakeNhwcQLinearConv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMatMulIntegerToFloat(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDynamicQuantizeMatMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQGemm(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMatMulNBits(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGatherBlockQuantized(const KernelInfo& info);  // gather_block_...cc
std::unique_ptr<Kernel> MakeMatMulBnb4(const KernelInfo& info);            // matmul_bnb4.cc
// com.microsoft's quantized elementwise, pooling and concatenation ops (qlinear_contrib.cc).
std::unique_ptr<Kernel> MakeQLinearAdd(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearSigmoid(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearSwish(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearLeakyRelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearGlobalAveragePool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearAveragePool(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearConcat(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearSoftmax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeQLinearWhere(const KernelInfo& info);

// Whether t is int8 or uint8, the data types of the integer products and QLinear ops.
inline bool IsInt8(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8;
}
// Throws kInvalidArgument "input 'name' has element type T; expected int8 or uint8" unless t is
// one of them (qlinear.cc).
void RequireInt8(const KernelInfo& info, const Tensor& t, const char* name);

// DynamicQuantizeLinear's arithmetic (quantize.cc), for the kernels that quantize their input
// themselves: the scale and zero point of x[0..n) (its range with 0, over 255) and y = x
// quantized to uint8 with them, split over ctx's threads. Fails naming input `name` and the
// element when x holds a NaN.
struct DynamicQuantization {
  float scale = 0.0f;
  float zero_point = 0.0f;  // an integer in [0, 255]
};
DynamicQuantization QuantizeDynamically(KernelContext& ctx, const float* x, size_t n, uint8_t* y,
                                        const char* name);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_QUANT_QUANT_KERNELS_H_
