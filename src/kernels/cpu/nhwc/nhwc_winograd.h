// Winograd F(2×2, 3×3) for NhwcConv: 3×3, stride-1 convolutions (dilated too) computed from 4×4
// input tiles as 16 matrix products of [tiles, C] · [C, M] (one per transformed tap; per group,
// of its channels and features, for a grouped layer) instead of one of [pixels, 9·C] · [9·C, M]:
// 2.25 times fewer multiply-adds, for the cost of transforming each input tile and each output
// tile.
//
//   WinogradWeights w = WinogradWeights::Pack(oihw, m, c);          // once, at session creation
//   RunWinograd(shape, x, w, bias, z, epilogue, y, ctx);            // per run
//
// Numerically the transforms add a few roundings per output (relative error ~1e-6 in float).
#ifndef KILN_KERNELS_CPU_NHWC_NHWC_WINOGRAD_H_
#define KILN_KERNELS_CPU_NHWC_NHWC_WINOGRAD_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cpu/linalg/packed_gemm.h"
#include "kernels/cpu/nn/conv_epilogue.h"
#include "kernels/kernel.h"

namespace kiln::cpu::nhwc {

// The 16 transformed weight matrices U[ξ] = (G·g·Gᵀ)[ξ] as [C/groups, M/groups], packed, one set
// per group (a grouped layer runs group by group, each group's channels a slice of X's pixels).
struct WinogradWeights {
  std::vector<std::array<PackedMatrix, 16>> u;  // u[group][ξ]
  size_t channels = 0;                          // C
  size_t features = 0;                          // M
  size_t groups = 1;
  // From OIHW weights [m, c / groups, 3, 3].
  static WinogradWeights Pack(const float* w, size_t m, size_t c, size_t groups = 1);
};

// Whether a 3×3 convolution with these channel counts runs faster as Winograd, given the input's
// pixels per call (batch · H · W; 0 when not known before running): with 16 to 512 channels on
// both sides (measured on ResNet-50 and SqueezeNet layers), and at least kWinogradMinPixels.
// Winograd's transformed weights are 16/9 the size of the im2col product's and each block reads
// all of them, so on a small image the weights' trips from memory cost more than the multiply-adds
// saved, and a 7×7 image also wastes a quarter of its 16 tiles. Measured here on chains of 3×3
// layers whose weights do not stay in cache, the im2col product against Winograd: 7×7 images
// (ResNet-50's last layers) level at 1 thread and 30% faster at 2; 8×8, 17% slower at 1 and 5–15%
// faster at 2; 10×10, 0–35% slower.
inline constexpr size_t kWinogradMinPixels = 64;
bool WinogradPays(size_t channels, size_t features, size_t pixels);

// The sizes of one call: X [batch, in_h, in_w, C], Y [batch, out_h, out_w, M], with Y(oy, ox)
// reading X(oy − pad_top + dil_h·ky, ox − pad_left + dil_w·kx) (zero outside). A dilated layer is
// d_h·d_w undilated ones, each on the pixels of one phase (oy mod d_h, ox mod d_w): a tile's four
// outputs are (oy, ox), (oy, ox + d_w), (oy + d_h, ox), (oy + d_h, ox + d_w), its 4×4 input d_h and
// d_w apart, so no sub-image is ever gathered.
struct WinogradShape {
  size_t batch = 0;
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t dil_h = 1, dil_w = 1;
};

// Y = act(conv(X, W) + bias + Z); bias and z may be null.
void RunWinograd(const WinogradShape& s, const float* x, const WinogradWeights& w,
                 const float* bias, const float* z, const nn::Epilogue& e, float* y,
                 KernelContext& ctx);

}  // namespace kiln::cpu::nhwc

#endif  // KILN_KERNELS_CPU_NHWC_NHWC_WINOGRAD_H_
