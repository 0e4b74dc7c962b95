// Level 2: Conv followed by BatchNormalization (inference form) becomes one Conv with rescaled
// weights and bias: with s = scale / √(var + ε), W'[m] = W[m]·s[m], B' = (B − mean)·s + bias.
// Only when every tensor involved is a float constant and nothing else reads the Conv's output.
#include <cmath>

#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool FuseOne(ir::Graph& g, ir::Node* conv) {
  if (!IsOp(conv, "Conv") || conv->inputs().size() < 2 || conv->outputs().size() != 1) {
    return false;
  }
  ir::Node* bn = OnlyConsumer(g, conv->outputs()[0]);
  if (!IsOp(bn, "BatchNormalization") || bn->inputs().size() != 5 ||
      bn->inputs()[0] != conv->outputs()[0] || IntAttrOf(bn, "training_mode", 0) != 0) {
    return false;
  }
  for (size_t i = 1; i < bn->outputs().size(); ++i) {
    if (bn->outputs()[i] != nullptr && g.IsUsed(bn->outputs()[i])) return false;
  }
  const Tensor* w = ConstantOf(conv->inputs()[1]);
  if (w == nullptr || w->type() != DataType::kFloat || w->shape().rank() < 3) return false;
  const int64_t m = w->shape().dims()[0];
  std::optional<std::vector<float>> scale = FloatsOf(bn->inputs()[1]);
  std::optional<std::vector<float>> shift = FloatsOf(bn->inputs()[2]);
  std::optional<std::vector<float>> mean = FloatsOf(bn->inputs()[3]);
  std::optional<std::vector<float>> var = FloatsOf(bn->inputs()[4]);
  std::optional<std::vector<float>> bias;
  if (conv->inputs().size() > 2 && conv->inputs()[2] != nullptr) {
    bias = FloatsOf(conv->inputs()[2]);
    if (!bias) return false;
  } else {
    bias = std::vector<float>(static_cast<size_t>(m), 0.0f);
  }
  const auto n = static_cast<size_t>(m);
  for (const auto* v : {&scale, &shift, &mean, &var, &bias}) {
    if (!*v || (*v)->size() != n) return false;
  }
  float eps = 1e-5f;
  if (const ir::Attribute* a = bn->FindAttribute("epsilon"); a != nullptr) eps = a->f;

  const size_t per = w->element_count() / n;
  std::shared_ptr<Tensor> w2 =
      Tensor::AllocateForOverwrite(DataType::kFloat, w->shape(), CpuAllocator());
  std::vector<float> b2(n);
  const auto* src = static_cast<const float*>(w->data());
  auto* dst = static_cast<float*>(w2->data());
  for (size_t k = 0; k < n; ++k) {
    const float s = (*scale)[k] / std::sqrt((*var)[k] + eps);
    for (size_t i = 0; i < per; ++i) dst[k * per + i] = src[k * per + i] * s;
    b2[k] = ((*bias)[k] - (*mean)[k]) * s + (*shift)[k];
  }
  ir::Value* wv = AddConstant(g, conv->inputs()[1]->name() + "_bn", std::move(w2));
  ir::Value* bv = AddConstant(g, conv->name() + "_bn_bias", FloatTensor({m}, b2));
  ir::Value* x = conv->inputs()[0];
  std::vector<ir::Attribute> attrs = conv->attributes();
  const int64_t opset = conv->opset();
  ir::Value* out = bn->outputs()[0];
  Replace(g, {conv, bn}, "Conv", "", opset, {x, wv, bv}, {out}, std::move(attrs));
  return true;
}

}  // namespace

size_t FuseConvBatchNorm(PassContext& ctx) {
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return FuseOne(ctx.graph, n); });
}

}  // namespace kiln::optimizer
