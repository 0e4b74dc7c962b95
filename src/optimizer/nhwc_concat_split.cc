// Level 3, after nhwc_layout: channel Concats that only 1×1 convolutions read are never written.
//
// A 1×1 convolution of a channel concatenation is the sum of the parts' products with the
// matching rows of W: NhwcConv(Concat(X_0, X_1, ...), W) = Σ X_i·W_i. So a Concat on the channel
// axis (3) of NHWC values, read only as input X of pointwise NhwcConvs (1×1 kernel, one group,
// stride 1, no padding), goes: each reader takes the parts instead (inputs 0, 4, 5, ...) with
// attribute input_channels. SqueezeNet's fire modules end in such a Concat.
//
// Before that, a channel Concat read only by an NhwcMaxPool or NhwcAveragePool is moved after
// it (pooling acts on each channel alone: Pool(Concat(a, b)) = Concat(Pool(a), Pool(b))) when
// the Concat then meets only such convolutions and goes too; otherwise the pool stays whole.
#include <optional>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// A Concat along the last of four axes (axis 3 or -1) of at least two present inputs.
bool IsChannelConcat(const ir::Node* n) {
  if (!IsOp(n, "Concat") || n->inputs().size() < 2 || n->outputs().size() != 1) return false;
  const int64_t axis = IntAttrOf(n, "axis", 0);
  for (const ir::Value* in : n->inputs()) {
    if (in == nullptr) return false;
  }
  return axis == 3 || axis == -1;
}

// The parts' channels when `joined`, their concatenation, is read only by pointwise NhwcConvs
// as X (not a graph output, not read by a subgraph) and every part's channels are known.
std::optional<std::vector<int64_t>> SplitChannels(const PassContext& ctx,
                                                  const std::vector<ir::Value*>& parts,
                                                  const ir::Value* joined) {
  const std::vector<ir::Node*>& readers = joined->consumers();
  if (readers.empty() || !OnlyReadBy(ctx.graph, joined, {readers.begin(), readers.end()})) {
    return std::nullopt;
  }
  for (const ir::Node* r : readers) {
    if (!PointwiseReaderOf(r, joined)) return std::nullopt;
    for (const ir::Value* in : r->implicit_inputs()) {
      if (in == joined) return std::nullopt;
    }
  }
  std::vector<int64_t> channels;
  for (const ir::Value* part : parts) {
    const std::optional<int64_t> c = Channels(ctx, part);
    if (!c || *c <= 0) return std::nullopt;
    channels.push_back(*c);
  }
  return channels;
}

// Pool(Concat(parts)) → Concat(Pool(part) for each part), for a Concat nothing else reads, when
// the new Concat can then be split.
bool PoolFirst(PassContext& ctx, ir::Node* pool) {
  ir::Graph& g = ctx.graph;
  if (!IsKilnOp(pool, "NhwcMaxPool") && !IsKilnOp(pool, "NhwcAveragePool")) return false;
  if (pool->inputs().size() != 1 || pool->outputs().size() != 1 || pool->outputs()[0] == nullptr)
    return false;
  ir::Node* concat = ProducerIs(pool->inputs()[0], "Concat");
  if (!IsChannelConcat(concat) || OnlyConsumer(g, concat->outputs()[0]) != pool ||
      !SplitChannels(ctx, concat->inputs(), pool->outputs()[0])) {
    return false;
  }
  std::vector<ir::Value*> pooled;
  for (ir::Value* part : concat->inputs()) {
    ir::Value* out = g.AddValue(g.UniqueName(part->name() + "_pooled"));
    ir::Node* p = g.AddNode(out->name() + "/" + pool->op_type(), pool->op_type(), kKilnDomain);
    p->set_opset(pool->opset());
    p->attributes() = pool->attributes();
    g.Connect(p, {part}, {out});
    pooled.push_back(out);
  }
  Replace(g, {concat, pool}, "Concat", "", concat->opset(), std::move(pooled), {pool->outputs()[0]},
          {IntAttr("axis", 3)});
  return true;
}

// Concat(parts) read only by pointwise NhwcConvs → each reads the parts itself.
bool SplitConcat(PassContext& ctx, ir::Node* concat) {
  ir::Graph& g = ctx.graph;
  if (!IsChannelConcat(concat)) return false;
  ir::Value* joined = concat->outputs()[0];
  const std::optional<std::vector<int64_t>> channels = SplitChannels(ctx, concat->inputs(), joined);
  if (!channels) return false;
  const std::vector<ir::Node*> readers = joined->consumers();
  for (ir::Node* r : readers) {
    std::vector<ir::Value*> inputs = r->inputs();
    inputs.resize(4, nullptr);  // B and Z stay where they were, absent ones empty
    inputs[0] = concat->inputs()[0];
    for (size_t i = 1; i < concat->inputs().size(); ++i) inputs.push_back(concat->inputs()[i]);
    std::vector<ir::Attribute> attrs = r->attributes();
    attrs.push_back(IntsAttr("input_channels", *channels));
    Replace(g, {r}, r->op_type(), r->domain(), r->opset(), std::move(inputs), r->outputs(),
            std::move(attrs));
  }
  g.RemoveNode(concat);
  return true;
}

}  // namespace

size_t SplitNhwcConcats(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  if (!ctx.registry.Knows(kKilnDomain, "NhwcConv")) return 0;
  RewriteAll(g, [&](ir::Node* n) { return PoolFirst(ctx, n); });
  const size_t split = RewriteAll(g, [&](ir::Node* n) { return SplitConcat(ctx, n); });
  EliminateDeadCode(ctx);
  return split;
}

}  // namespace kiln::optimizer
