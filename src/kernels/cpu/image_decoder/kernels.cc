// The image_decoder family's entries in the kernel registry.
#include "kernels/cpu/families.h"
#include "kernels/cpu/image_decoder/codecs.h"

namespace kiln::cpu {
namespace {

constexpr KernelDef kDefs[] = {
    {"", "ImageDecoder", 20, kLatestOpset, MakeImageDecoder},
};

}  // namespace

std::span<const KernelDef> ImageDecoderKernels() {
  return kDefs;
}

}  // namespace kiln::cpu
