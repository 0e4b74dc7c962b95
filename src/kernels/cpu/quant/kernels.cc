// The quant family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/quant/quant_kernels.h"

namespace kiln::cpu {
namespace {

// Each kernel reads the attributes its opset defines and checks the element types it allows.
constexpr KernelDef kDefs[] = {
    {"", "QuantizeLinear", 10, kLatestOpset, MakeQuantizeLinear},
    {"", "DequantizeLinear", 10, kLatestOpset, MakeDequantizeLinear},
    {"", "DynamicQuantizeLinear", 11, kLatestOpset, MakeDynamicQuantizeLinear},
    {"", "MatMulInteger", 10, kLatestOpset, MakeMatMulInteger},
    {"", "QLinearMatMul", 10, kLatestOpset, MakeQLinearMatMul},
    {"", "ConvInteger", 10, kLatestOpset, MakeConvInteger},
    {"", "QLinearConv", 10, kLatestOpset, MakeQLinearConv},
    {"com.microsoft", "MatMulIntegerToFloat", 1, kLatestOpset, MakeMatMulIntegerToFloat},
    {"com.microsoft", "DynamicQuantizeMatMul", 1, kLatestOpset, MakeDynamicQuantizeMatMul},
};

}  // namespace

std::span<const KernelDef> QuantKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
