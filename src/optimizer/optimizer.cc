#include "optimizer/optimizer.h"

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"
#include "runtime/plan.h"

namespace kiln::optimizer {

const infer::TensorFacts& PassContext::Facts(const ir::Value* v) const {
  static const infer::TensorFacts kUnknown;
  auto it = facts.find(v);
  return it == facts.end() ? kUnknown : it->second;
}

bool InferFactsAgain(PassContext& ctx) {
  try {
    const runtime::GraphPlan plan(ctx.graph, ctx.registry, {.infer = true});
    for (const auto& v : ctx.graph.values()) ctx.facts[v.get()] = plan.Facts(plan.SlotOf(v.get()));
  } catch (const Error&) {
    return false;
  }
  return true;
}

namespace {

struct PassEntry {
  const char* name;
  int level;
  size_t (*run)(PassContext&);
};

// In order. Folding first, so fusions see constants where the exporter computed them (but after
// the QDQ convolutions are fused, whose weights' DequantizeLinear it would fold away); the layout
// pass last, on the fused convolutions.
constexpr PassEntry kPasses[] = {
    {"qdq_fusion", 2, FuseQdq},
    {"qdq_ops_fusion", 2, FuseQdqOps},
    {"qlinear_swish_fusion", 2, FuseQLinearSwish},
    {"constant_folding", 1, FoldConstants},
    {"identity_elimination", 1, EliminateIdentities},
    {"dead_code", 1, EliminateDeadCode},
    {"conv_bn_fusion", 2, FuseConvBatchNorm},
    {"conv_dead_taps", 2, PruneConvDeadTaps},
    {"conv_activation_fusion", 2, FuseConvActivation},
    {"gelu_fusion", 2, FuseGelu},
    {"layer_norm_fusion", 2, FuseLayerNorm},
    {"bias_gelu_fusion", 2, FuseBiasGelu},
    {"skip_layer_norm_fusion", 2, FuseSkipLayerNorm},
    {"attention_fusion", 2, FuseAttention},
    {"dynamic_quant_fusion", 2, FuseDynamicQuantization},
    {"row_gather_pushdown", 2, PushRowGathersUp},
    {"blocked_matmul", 2, BlockMatMulWeights},
    {"nhwc_layout", 3, ConvertToNhwc},
    {"nhwc_concat_split", 3, SplitNhwcConcats},
    {"nhwc_scale_fusion", 3, FuseNhwcChannelScale},
    {"nhwc_expand_fusion", 3, FuseNhwcExpansion},
};

}  // namespace

std::vector<PassReport> Optimize(ir::Graph& graph, int level, const KernelRegistry& registry) {
  std::vector<PassReport> reports;
  if (level <= 0) return reports;
  PassContext ctx{graph, registry, {}};
  for (const PassEntry& p : kPasses) {
    if (p.level > level) continue;
    reports.push_back({p.name, p.run(ctx)});
  }
  return reports;
}

size_t UseBf16Products(ir::Graph& graph) {
  size_t marked = 0;
  for (const auto& n : graph.nodes()) {
    const bool kiln_op = n->domain() == kKilnDomain &&
                         (n->op_type() == "BlockedMatMul" || n->op_type() == "NhwcConv");
    const bool attention = n->domain() == "com.microsoft" && n->op_type() == "MultiHeadAttention";
    if (!kiln_op && !attention) continue;
    std::erase_if(n->attributes(), [](const ir::Attribute& a) { return a.name == "bf16"; });
    n->attributes().push_back(IntAttr("bf16", 1));
    ++marked;
  }
  return marked;
}

}  // namespace kiln::optimizer
