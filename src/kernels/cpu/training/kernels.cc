// The training family's entries in the kernel registry (ai.onnx.preview.training).
#include "kernels/cpu/families.h"
#include "kernels/cpu/training/training_kernels.h"

namespace kiln::cpu {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

constexpr KernelDef kDefs[] = {
    {kTraining, "Adagrad", 1, 1, MakeAdagrad},
    {kTraining, "Adam", 1, 1, MakeAdam},
    {kTraining, "Momentum", 1, 1, MakeMomentum},
};

}  // namespace

std::span<const KernelDef> TrainingKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
