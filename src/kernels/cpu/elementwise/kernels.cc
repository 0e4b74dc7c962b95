// The elementwise family's entries in the kernel registry. Each entry covers every opset of its
// op up to kLatestOpset; kernels read info.opset() where versions differ (legacy broadcasting
// before 7, Clip's bounds as inputs from 11, Pow's mixed types from 12, …).
#include "kernels/cpu/elementwise/elementwise_kernels.h"
#include "kernels/cpu/families.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "Add", 1, kLatestOpset, MakeAdd},
    {"", "Sub", 1, kLatestOpset, MakeSub},
    {"", "Mul", 1, kLatestOpset, MakeMul},
    {"", "Div", 1, kLatestOpset, MakeDiv},
    {"", "Mod", 10, kLatestOpset, MakeMod},
    {"", "Pow", 1, kLatestOpset, MakePow},

    {"", "Sqrt", 1, kLatestOpset, MakeSqrt},
    {"", "Exp", 1, kLatestOpset, MakeExp},
    {"", "Log", 1, kLatestOpset, MakeLog},
    {"", "Reciprocal", 1, kLatestOpset, MakeReciprocal},
    {"", "Floor", 1, kLatestOpset, MakeFloor},
    {"", "Ceil", 1, kLatestOpset, MakeCeil},
    {"", "Tanh", 1, kLatestOpset, MakeTanh},
    {"", "Sin", 7, kLatestOpset, MakeSin},
    {"", "Cos", 7, kLatestOpset, MakeCos},
    {"", "Erf", 9, kLatestOpset, MakeErf},
    {"", "Round", 11, kLatestOpset, MakeRound},
    {"", "Abs", 1, kLatestOpset, MakeAbs},
    {"", "Neg", 1, kLatestOpset, MakeNeg},
    {"", "Sign", 9, kLatestOpset, MakeSign},
    {"", "Tan", 7, kLatestOpset, MakeTan},
    {"", "Asin", 7, kLatestOpset, MakeAsin},
    {"", "Acos", 7, kLatestOpset, MakeAcos},
    {"", "Atan", 7, kLatestOpset, MakeAtan},
    {"", "Sinh", 9, kLatestOpset, MakeSinh},
    {"", "Cosh", 9, kLatestOpset, MakeCosh},
    {"", "Asinh", 9, kLatestOpset, MakeAsinh},
    {"", "Acosh", 9, kLatestOpset, MakeAcosh},
    {"", "Atanh", 9, kLatestOpset, MakeAtanh},

    {"", "Relu", 1, kLatestOpset, MakeRelu},
    {"", "LeakyRelu", 1, kLatestOpset, MakeLeakyRelu},
    {"", "PRelu", 1, kLatestOpset, MakePRelu},
    {"", "Elu", 1, kLatestOpset, MakeElu},
    {"", "Selu", 1, kLatestOpset, MakeSelu},
    {"", "Sigmoid", 1, kLatestOpset, MakeSigmoid},
    {"", "HardSigmoid", 1, kLatestOpset, MakeHardSigmoid},
    {"", "HardSwish", 14, kLatestOpset, MakeHardSwish},
    {"", "Softplus", 1, kLatestOpset, MakeSoftplus},
    {"", "Softsign", 1, kLatestOpset, MakeSoftsign},
    {"", "Gelu", 20, kLatestOpset, MakeGelu},
    {"", "ThresholdedRelu", 10, kLatestOpset, MakeThresholdedRelu},
    {"", "Shrink", 9, kLatestOpset, MakeShrink},
    {"", "Celu", 12, kLatestOpset, MakeCelu},
    {"", "Swish", 24, kLatestOpset, MakeSwish},
    {"", "Mish", 18, kLatestOpset, MakeMish},
    {"", "SwiGLU", 28, kLatestOpset, MakeSwiGlu},

    {"", "Clip", 1, kLatestOpset, MakeClip},
    {"", "Min", 1, kLatestOpset, MakeMin},
    {"", "Max", 1, kLatestOpset, MakeMax},
    {"", "Sum", 1, kLatestOpset, MakeSum},
    {"", "Mean", 1, kLatestOpset, MakeMean},

    {"", "Equal", 1, kLatestOpset, MakeEqual},
    {"", "Less", 1, kLatestOpset, MakeLess},
    {"", "Greater", 1, kLatestOpset, MakeGreater},
    {"", "LessOrEqual", 12, kLatestOpset, MakeLessOrEqual},
    {"", "GreaterOrEqual", 12, kLatestOpset, MakeGreaterOrEqual},
    {"", "And", 1, kLatestOpset, MakeAnd},
    {"", "Or", 1, kLatestOpset, MakeOr},
    {"", "Xor", 1, kLatestOpset, MakeXor},
    {"", "Not", 1, kLatestOpset, MakeNot},
    {"", "Where", 9, kLatestOpset, MakeWhere},
    {"", "IsNaN", 9, kLatestOpset, MakeIsNaN},
    {"", "IsInf", 10, kLatestOpset, MakeIsInf},

    {"", "Cast", 1, kLatestOpset, MakeCast},
    {"", "CastLike", 15, kLatestOpset, MakeCastLike},
    {"", "Expand", 8, kLatestOpset, MakeExpand},

    {"", "BitShift", 11, kLatestOpset, MakeBitShift},
    {"", "BitwiseAnd", 18, kLatestOpset, MakeBitwiseAnd},
    {"", "BitwiseOr", 18, kLatestOpset, MakeBitwiseOr},
    {"", "BitwiseXor", 18, kLatestOpset, MakeBitwiseXor},
    {"", "BitwiseNot", 18, kLatestOpset, MakeBitwiseNot},
    {"", "BitCast", 26, kLatestOpset, MakeBitCast},
};

}  // namespace

std::span<const KernelDef> ElementwiseKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
