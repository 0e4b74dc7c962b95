// The image family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/image/image_kernels.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "GridSample", 16, kLatestOpset, MakeGridSample},
    // ONNX Runtime's, from before ONNX had GridSample (its PyTorch-export helper writes it for
    // grid_sample at opsets under 16): ONNX's at opset 16 (4-D; bilinear, nearest, bicubic).
    {"com.microsoft", "GridSample", 1, kLatestOpset, MakeGridSample},
    {"", "AffineGrid", 20, kLatestOpset, MakeAffineGrid},
    {"", "NonMaxSuppression", 10, kLatestOpset, MakeNonMaxSuppression},
    {"", "RoiAlign", 10, kLatestOpset, MakeRoiAlign},
    {"", "Col2Im", 18, kLatestOpset, MakeCol2Im},
    {"", "CenterCropPad", 18, kLatestOpset, MakeCenterCropPad},
    {"", "DeformConv", 19, kLatestOpset, MakeDeformConv},
    {"", "MaxUnpool", 9, kLatestOpset, MakeMaxUnpool},
};

}  // namespace

std::span<const KernelDef> ImageKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
