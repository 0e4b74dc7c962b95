// The depthwise fast path's 7×7 rows (ConvNeXt; stride 1 only: each instantiation adds about a
// minute to this file's compile). Not in builds without target clones (Clang: the fuzz preset):
// there 7×7 takes the general loop.
#include <cstdint>

#include "kernels/cpu/nhwc/nhwc_depthwise_tile.h"

namespace kiln::cpu::nhwc {

DwRowFn DepthwiseFastRow7(int64_t stride, DwAct a, int width) {
#if KILN_HAS_VECTOR_CLONES
  if (stride == 1) return FastRowOf<7, 1>(a, width);
#else
  (void)stride;
  (void)a;
  (void)width;
#endif
  return nullptr;
}

}  // namespace kiln::cpu::nhwc
