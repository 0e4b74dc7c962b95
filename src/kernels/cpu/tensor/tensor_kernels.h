// Factories of the tensor family (shape and data movement), listed in tensor/kernels.cc.
#ifndef KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_
#define KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_

#include <memory>

#include "kernels/registry.h"

namespace kiln::cpu {

std::unique_ptr<Kernel> MakeIdentity(const KernelInfo& info);  // identity.cc
std::unique_ptr<Kernel> MakeDropout(const KernelInfo& info);
std::unique_ptr<Kernel> MakeReshape(const KernelInfo& info);  // reshape.cc
std::unique_ptr<Kernel> MakeFlatten(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSqueeze(const KernelInfo& info);
std::unique_ptr<Kernel> MakeUnsqueeze(const KernelInfo& info);
std::unique_ptr<Kernel> MakeShape(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSize(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTranspose(const KernelInfo& info);  // transpose.cc
std::unique_ptr<Kernel> MakeDepthToSpace(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSpaceToDepth(const KernelInfo& info);
std::unique_ptr<Kernel> MakeConcat(const KernelInfo& info);  // concat_split.cc
std::unique_ptr<Kernel> MakeSplit(const KernelInfo& info);
std::unique_ptr<Kernel> MakeSlice(const KernelInfo& info);  // slice.cc
std::unique_ptr<Kernel> MakeTile(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGather(const KernelInfo& info);  // gather.cc
std::unique_ptr<Kernel> MakeGatherElements(const KernelInfo& info);
std::unique_ptr<Kernel> MakeGatherND(const KernelInfo& info);
std::unique_ptr<Kernel> MakeScatterElements(const KernelInfo& info);  // scatter.cc
std::unique_ptr<Kernel> MakeScatterND(const KernelInfo& info);
std::unique_ptr<Kernel> MakeConstant(const KernelInfo& info);  // generate.cc
std::unique_ptr<Kernel> MakeConstantOfShape(const KernelInfo& info);
std::unique_ptr<Kernel> MakeRange(const KernelInfo& info);
std::unique_ptr<Kernel> MakeEyeLike(const KernelInfo& info);
std::unique_ptr<Kernel> MakeOneHot(const KernelInfo& info);
std::unique_ptr<Kernel> MakeTrilu(const KernelInfo& info);  // trilu_nonzero.cc
std::unique_ptr<Kernel> MakeNonZero(const KernelInfo& info);
std::unique_ptr<Kernel> MakePad(const KernelInfo& info);     // pad.cc
std::unique_ptr<Kernel> MakeResize(const KernelInfo& info);  // resize.cc
std::unique_ptr<Kernel> MakeUpsample(const KernelInfo& info);
std::unique_ptr<Kernel> MakeUnique(const KernelInfo& info);    // unique.cc
std::unique_ptr<Kernel> MakeCompress(const KernelInfo& info);  // compress_reverse.cc
std::unique_ptr<Kernel> MakeReverseSequence(const KernelInfo& info);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TENSOR_TENSOR_KERNELS_H_
