// The tensor family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/tensor/tensor_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "Identity", 1, kLatestOpset, MakeIdentity},
    {"", "Dropout", 1, kLatestOpset, MakeDropout},
    {"", "Reshape", 1, kLatestOpset, MakeReshape},
    {"", "Flatten", 1, kLatestOpset, MakeFlatten},
    {"", "Squeeze", 1, kLatestOpset, MakeSqueeze},
    {"", "Unsqueeze", 1, kLatestOpset, MakeUnsqueeze},
    {"", "Shape", 1, kLatestOpset, MakeShape},
    {"", "Size", 1, kLatestOpset, MakeSize},
    {"", "Transpose", 1, kLatestOpset, MakeTranspose},
    {"", "DepthToSpace", 1, kLatestOpset, MakeDepthToSpace},
    {"", "SpaceToDepth", 1, kLatestOpset, MakeSpaceToDepth},
    {"", "Concat", 1, kLatestOpset, MakeConcat},
    {"", "Split", 1, kLatestOpset, MakeSplit},
    {"", "Slice", 1, kLatestOpset, MakeSlice},
    {"", "Tile", 1, kLatestOpset, MakeTile},
    {"", "Gather", 1, kLatestOpset, MakeGather},
    {"", "GatherElements", 11, kLatestOpset, MakeGatherElements},
    {"", "GatherND", 11, kLatestOpset, MakeGatherND},
    {"", "Scatter", 9, kLatestOpset, MakeScatterElements},
    {"", "ScatterElements", 11, kLatestOpset, MakeScatterElements},
    {"", "ScatterND", 11, kLatestOpset, MakeScatterND},
    {"", "Constant", 1, kLatestOpset, MakeConstant},
    {"", "ConstantOfShape", 9, kLatestOpset, MakeConstantOfShape},
    {"", "Range", 11, kLatestOpset, MakeRange},
    {"", "EyeLike", 9, kLatestOpset, MakeEyeLike},
    {"", "OneHot", 9, kLatestOpset, MakeOneHot},
    {"", "Trilu", 14, kLatestOpset, MakeTrilu},
    // ONNX Runtime's, from before ONNX had Trilu (its PyTorch-export helper writes it for
    // torch.triu/tril): the same op.
    {"com.microsoft", "Trilu", 1, kLatestOpset, MakeTrilu},
    {"", "NonZero", 9, kLatestOpset, MakeNonZero},
    {"", "Pad", 1, kLatestOpset, MakePad},
    {"", "Resize", 10, kLatestOpset, MakeResize},
    {"", "Upsample", 7, kLatestOpset, MakeUpsample},
    {"", "Unique", 11, kLatestOpset, MakeUnique},
    {"", "Compress", 9, kLatestOpset, MakeCompress},
    {"", "ReverseSequence", 10, kLatestOpset, MakeReverseSequence},
};

}  // namespace

std::span<const KernelDef> TensorKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
