// The ai.onnx.ml family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/ml/ml_kernels.h"

namespace kiln::cpu {
namespace {

constexpr const char* kMl = "ai.onnx.ml";

constexpr KernelDef kDefs[] = {
    {kMl, "Binarizer", 1, 5, MakeBinarizer},
    {kMl, "ArrayFeatureExtractor", 1, 5, MakeArrayFeatureExtractor},
    {kMl, "LabelEncoder", 2, 5, MakeLabelEncoder},
    {kMl, "TreeEnsemble", 5, 5, MakeTreeEnsemble},
};

}  // namespace

std::span<const KernelDef> MlKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
