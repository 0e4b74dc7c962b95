// Factories of the elementwise family (math, activations, comparisons and logic, Cast, Expand),
// listed with their opset ranges in elementwise/kernels.cc.
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_ELEMENTWISE_KERNELS_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_ELEMENTWISE_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

// arithmetic.cc, pow.cc
std::unique_ptr<Kernel> MakeAdd(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSub(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMul(const KernelInfo& info);
std::unique_ptr<Kernel> MakeDiv(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMod(const KernelInfo& info);
std::unique_ptr<Kernel> MakePow(const KernelInfo& info);

// unary_math.cc
std::unique_ptr<Kernel> MakeSqrt(const KernelInfo& info);
std::unique_ptr<Kernel> MakeExp(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLog(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReciprocal(const KernelInfo& info);
std::unique_ptr<Kernel> MakeFloor(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCeil(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTanh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSin(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCos(const KernelInfo& info);
std::unique_ptr<Kernel> MakeErf(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRound(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAbs(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNeg(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSign(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTan(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAsin(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAcos(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAtan(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSinh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCosh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAsinh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAcosh(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAtanh(const KernelInfo& info);

// activations.cc
std::unique_ptr<Kernel> MakeRelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLeakyRelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakePRelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeElu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSigmoid(const KernelInfo& info);
std::unique_ptr<Kernel> MakeHardSigmoid(const KernelInfo& info);
std::unique_ptr<Kernel> MakeHardSwish(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSoftplus(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSoftsign(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeThresholdedRelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeShrink(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCelu(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSwish(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMish(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSwiGlu(const KernelInfo& info);

// clip.cc, variadic.cc
std::unique_ptr<Kernel> MakeClip(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMin(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMax(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSum(const KernelInfo& info);
std::unique_ptr<Kernel> MakeMean(const KernelInfo& info);

// logic.cc
std::unique_ptr<Kernel> MakeEqual(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLess(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGreater(const KernelInfo& info);
std::unique_ptr<Kernel> MakeLessOrEqual(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGreaterOrEqual(const KernelInfo& info);
std::unique_ptr<Kernel> MakeAnd(const KernelInfo& info);
std::unique_ptr<Kernel> MakeOr(const KernelInfo& info);
std::unique_ptr<Kernel> MakeXor(const KernelInfo& info);
std::unique_ptr<Kernel> MakeNot(const KernelInfo& info);
std::unique_ptr<Kernel> MakeWhere(const KernelInfo& info);
std::unique_ptr<Kernel> MakeIsNaN(const KernelInfo& info);
std::unique_ptr<Kernel> MakeIsInf(const KernelInfo& info);

// cast.cc, expand.cc
std::unique_ptr<Kernel> MakeCast(const KernelInfo& info);
std::unique_ptr<Kernel> MakeCastLike(const KernelInfo& info);
std::unique_ptr<Kernel> MakeExpand(const KernelInfo& info);

// bitwise.cc
std::unique_ptr<Kernel> MakeBitShift(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBitwiseAnd(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBitwiseOr(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBitwiseXor(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBitwiseNot(const KernelInfo& info);
std::unique_ptr<Kernel> MakeBitCast(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_ELEMENTWISE_KERNELS_H_
