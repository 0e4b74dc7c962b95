// The graph optimizer (DESIGN.md §4): rewrites a loaded model's main graph in place, before the
// planner reads it. Levels as ONNX Runtime's:
//   0  none;
//   1  basic: constant and shape-subgraph folding, identity/Dropout/no-op Cast elimination,
//      dead-code elimination;
//   2  extended: Conv+BatchNorm folding, Conv + residual Add + activation (com.microsoft
//      FusedConv), GELU (Gelu, FastGelu), bias + GELU (BiasGelu), decomposed LayerNorm,
//      Add + LayerNorm (SkipLayerNormalization), attention (MultiHeadAttention);
//   3  layout: float 2-D convolution chains in channels-last order (ai.kiln Nhwc* ops), with
//      transposes only at the chain's edges; then channel Concats, squeeze-and-excitation
//      scales and inverted-residual expansions folded into the NhwcConvs that read them.
// One pass per file (src/optimizer/<pass>.cc); each is tested on a before/after graph and on
// numerics against the unoptimized graph.
//
//   kiln::optimizer::Optimize(*model.graph, 3, kiln::CpuKernels());
#ifndef KILN_OPTIMIZER_OPTIMIZER_H_
#define KILN_OPTIMIZER_OPTIMIZER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "kernels/registry.h"

namespace kiln::optimizer {

// What one pass did: its name and how many rewrites it made.
struct PassReport {
  std::string pass;
  size_t rewrites = 0;
};

// Applies every pass of `level` (0–3; higher levels include the lower ones) to the graph.
// Subgraphs (If/Loop/Scan bodies) are left as they are. Throws what the planner would for a node
// without a kernel (the folding pass creates kernels to evaluate constants).
std::vector<PassReport> Optimize(ir::Graph& graph, int level, const KernelRegistry& registry);

// Session config kiln.compute.bf16: marks every ai.kiln BlockedMatMul (the products against
// constant weights that level 2 makes), NhwcConv (the convolutions level 3 makes) and
// com.microsoft MultiHeadAttention (attention, as attention_fusion makes it) to run their
// products in bf16 with float sums (attribute bf16 = 1; their kernels honour it where the
// machine has AVX-512 BF16). Returns how many.
size_t UseBf16Products(ir::Graph& graph);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_OPTIMIZER_H_
