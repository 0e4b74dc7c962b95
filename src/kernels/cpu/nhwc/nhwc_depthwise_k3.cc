// The depthwise fast path's 3×3 rows, horizontal stride 1 (any dilation) and 2.
#include <cstdint>

#include "kernels/cpu/nhwc/nhwc_depthwise_tile.h"

namespace kiln::cpu::nhwc {

DwRowFn DepthwiseFastRow3(int64_t stride, DwAct a, int width) {
  if (stride == 1) return FastRowOf<3, 1>(a, width);
  if (stride == 2) return FastRowOf<3, 2>(a, width);
  return nullptr;
}

}  // namespace kiln::cpu::nhwc
