// Internal to src/optimizer: the context every pass gets, and the list of passes (one per file).
#ifndef KILN_OPTIMIZER_PASS_H_
#define KILN_OPTIMIZER_PASS_H_

#include <cstddef>
#include <string>
#include <unordered_map>

#include "infer/infer.h"
#include "ir/graph.h"
#include "kernels/registry.h"

namespace kiln::optimizer {

struct PassContext {
  ir::Graph& graph;
  const KernelRegistry& registry;
  // What inference found for each value at the last folding (types and shapes; no values).
  // Values made by later rewrites have no entry.
  std::unordered_map<const ir::Value*, infer::TensorFacts> facts;

  // The facts of a value, or unknown ones.
  const infer::TensorFacts& Facts(const ir::Value* v) const;
};

// Infers the facts of every value again (fusions since the last folding made values without
// them). False, with the facts as they were, when the graph cannot be planned: session creation
// then reports why.
bool InferFactsAgain(PassContext& ctx);

// Each returns how many rewrites it made.
size_t FoldConstants(PassContext& ctx);            // constant_folding.cc
size_t EliminateIdentities(PassContext& ctx);      // identity_elimination.cc
size_t EliminateDeadCode(PassContext& ctx);        // dead_code.cc
size_t FuseConvBatchNorm(PassContext& ctx);        // conv_bn_fusion.cc
size_t PruneConvDeadTaps(PassContext& ctx);        // conv_dead_taps.cc
size_t FuseConvActivation(PassContext& ctx);       // conv_activation_fusion.cc
size_t FuseGelu(PassContext& ctx);                 // gelu_fusion.cc
size_t FuseLayerNorm(PassContext& ctx);            // layer_norm_fusion.cc
size_t FuseBiasGelu(PassContext& ctx);             // bias_gelu_fusion.cc
size_t FuseSkipLayerNorm(PassContext& ctx);        // skip_layer_norm_fusion.cc
size_t FuseAttention(PassContext& ctx);            // attention_fusion.cc
size_t PushRowGathersUp(PassContext& ctx);         // row_gather_pushdown.cc
size_t BlockMatMulWeights(PassContext& ctx);       // blocked_matmul.cc
size_t ConvertToNhwc(PassContext& ctx);            // nhwc_layout.cc
size_t SplitNhwcConcats(PassContext& ctx);         // nhwc_concat_split.cc
size_t FuseNhwcChannelScale(PassContext& ctx);     // nhwc_scale_fusion.cc
size_t FuseNhwcExpansion(PassContext& ctx);        // nhwc_expand_fusion.cc
size_t FuseDynamicQuantization(PassContext& ctx);  // dynamic_quant_fusion.cc
size_t FuseQdq(PassContext& ctx);                  // qdq_fusion.cc
size_t FuseQdqOps(PassContext& ctx);               // qdq_ops_fusion.cc
size_t FuseQLinearSwish(PassContext& ctx);         // qlinear_swish_fusion.cc

// bias_gelu_fusion.cc: whether `b` is a constant 1-D float vector that broadcasts over `a`'s last
// axis into a tensor of a's shape.
bool IsLastAxisBias(const PassContext& ctx, const ir::Value* a, const ir::Value* b);

// blocked_matmul.cc: y = x · W[:, c0 : c0 + n] for a constant float W [K, N], as a new value
// named from `base`: a BlockedMatMul reading those columns written once in its layout where the
// product qualifies for one (as the blocked_matmul pass decides), else a MatMul reading a copy
// of them. A packed weight split into parts so is copied once, not twice.
ir::Value* ProductOfColumns(PassContext& ctx, ir::Value* x, const ir::Value* w, int64_t c0,
                            int64_t n, const std::string& base);

}  // namespace kiln::optimizer

#endif  // KILN_OPTIMIZER_PASS_H_
