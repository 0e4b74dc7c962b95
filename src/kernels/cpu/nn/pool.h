// AveragePool's arithmetic for kernels that pool values they made themselves (the quantized
// QLinearAveragePool pools its dequantized input):
//
//   nn::WindowGeometry g = nn::ResolveWindow(info, attrs, x_dims, attrs.kernel_shape, true);
//   kiln::cpu::AveragePoolPlanes(ctx, g, planes, count_include_pad, x, y);
#ifndef KILN_KERNELS_CPU_NN_POOL_H_
#define KILN_KERNELS_CPU_NN_POOL_H_

#include <cstddef>

#include "kernels/cpu/nn/window.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

// y's `planes` planes of g.out_size values = the window averages of x's planes of g.in_size, each
// sum divided by the taps inside the input (or inside the padded input when
// `count_include_pad`), exactly as AveragePool computes them; shared over ctx's threads. Fails
// like AveragePool (kInvalidArgument) when, without count_include_pad, a window lies entirely in
// the padding.
void AveragePoolPlanes(KernelContext& ctx, const nn::WindowGeometry& g, size_t planes,
                       bool count_include_pad, const float* x, float* y);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_NN_POOL_H_
