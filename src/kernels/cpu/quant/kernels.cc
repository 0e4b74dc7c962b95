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
    {"ai.kiln", "NhwcQLinearConv", 1, kLatestOpset, MakeNhwcQLinearConv},
    {"com.microsoft", "QLinearConv", 1, kLatestOpset, MakeMsQLinearConv},
    {"com.microsoft", "MatMulIntegerToFloat", 1, kLatestOpset, MakeMatMulIntegerToFloat},
    {"com.microsoft", "DynamicQuantizeMatMul", 1, kLatestOpset, MakeDynamicQuantizeMatMul},
    // com.microsoft's QuantizeLinear and DequantizeLinear: ONNX's at opset 21 (axis; int16,
    // uint16, int4 and uint4 too), which the kernels take them as.
    {"com.microsoft", "QuantizeLinear", 1, kLatestOpset, MakeQuantizeLinear},
    {"com.microsoft", "DequantizeLinear", 1, kLatestOpset, MakeDequantizeLinear},
    {"com.microsoft", "QGemm", 1, kLatestOpset, MakeQGemm},
    {"com.microsoft", "MatMulNBits", 1, kLatestOpset, MakeMatMulNBits},
    {"com.microsoft", "GatherBlockQuantized", 1, kLatestOpset, MakeGatherBlockQuantized},
    {"com.microsoft", "MatMulBnb4", 1, kLatestOpset, MakeMatMulBnb4},
    {"com.microsoft", "QLinearAdd", 1, kLatestOpset, MakeQLinearAdd},
    {"com.microsoft", "QLinearMul", 1, kLatestOpset, MakeQLinearMul},
    {"com.microsoft", "QLinearSigmoid", 1, kLatestOpset, MakeQLinearSigmoid},
    {"com.microsoft", "QLinearLeakyRelu", 1, kLatestOpset, MakeQLinearLeakyRelu},
    {"ai.kiln", "QLinearSwish", 1, kLatestOpset, MakeQLinearSwish},
    {"com.microsoft", "QLinearGlobalAveragePool", 1, kLatestOpset, MakeQLinearGlobalAveragePool},
    {"com.microsoft", "QLinearAveragePool", 1, kLatestOpset, MakeQLinearAveragePool},
    {"com.microsoft", "QLinearConcat", 1, kLatestOpset, MakeQLinearConcat},
    {"com.microsoft", "QLinearSoftmax", 1, kLatestOpset, MakeQLinearSoftmax},
    {"com.microsoft", "QLinearWhere", 1, kLatestOpset, MakeQLinearWhere},
};

}  // namespace

std::span<const KernelDef> QuantKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
