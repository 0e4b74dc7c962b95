// Level 3: channels-last layout for 2-D convolution chains. Every float Conv/FusedConv with 4-D
// constant weights, and every 4-D MaxPool/AveragePool/GlobalAveragePool/GlobalMaxPool, becomes
// its ai.kiln Nhwc* form between two transposes: NCHW→NHWC before, NHWC→NCHW after. Then the
// NHWC→NCHW transposes are pushed down through ops that do not care about the layout
// (elementwise unary ops, binary ops whose other operands are in NHWC too or are constants,
// Concat on channels, inference BatchNormalization as a Mul and an Add of constants), and every
// transpose pair that cancels goes. What remains converts only at
// the chain's edges (the model's input, the flatten before a classifier, ...).
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr std::array<int64_t, 4> kToNhwc = {0, 2, 3, 1};
constexpr std::array<int64_t, 4> kToNchw = {0, 3, 1, 2};

bool IsTranspose(const ir::Node* n, const std::array<int64_t, 4>& perm) {
  if (!IsOp(n, "Transpose")) return false;
  const ir::Attribute* a = n->FindAttribute("perm");
  return a != nullptr && a->ints.size() == 4 &&
         std::equal(perm.begin(), perm.end(), a->ints.begin());
}

ir::Value* AddTranspose(ir::Graph& g, ir::Value* in, const std::array<int64_t, 4>& perm,
                        ir::Value* out = nullptr) {
  const bool to_nhwc = perm == kToNhwc;
  if (out == nullptr) out = g.AddValue(g.UniqueName(in->name() + (to_nhwc ? "_nhwc" : "_nchw")));
  ir::Node* t = g.AddNode(g.UniqueName(out->name() + "/Transpose"), "Transpose", "");
  t->set_opset(13);
  t->attributes().push_back(IntsAttr("perm", {perm.begin(), perm.end()}));
  g.Connect(t, {in}, {out});
  return out;
}

bool IsRank4(const PassContext& ctx, const ir::Value* v) {
  const infer::TensorFacts& f = ctx.Facts(v);
  return f.type == DataType::kFloat && f.shape && f.shape->rank() == 4;
}

// Step 1: one layout-sensitive node into its NHWC form between transposes.
bool ConvertNode(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  std::string op;
  const bool is_conv =
      IsOp(n, "Conv") ||
      (n->op_type() == "FusedConv" && n->domain() == kMicrosoftDomain && HasRequiredInputs(n, 2));
  if (is_conv) {
    const Tensor* w = n->inputs().size() > 1 ? ConstantOf(n->inputs()[1]) : nullptr;
    if (w == nullptr || w->type() != DataType::kFloat || w->shape().rank() != 4) return false;
    op = "NhwcConv";
  } else if (IsOp(n, "MaxPool") || IsOp(n, "AveragePool") || IsOp(n, "GlobalAveragePool") ||
             IsOp(n, "GlobalMaxPool")) {
    if (n->outputs().size() != 1 || !IsRank4(ctx, n->inputs()[0])) return false;
    if (IntAttrOf(n, "storage_order", 0) != 0) return false;
    op = "Nhwc" + n->op_type();
  } else {
    return false;
  }
  if (n->outputs().size() != 1 || n->outputs()[0] == nullptr) return false;
  std::vector<ir::Value*> inputs = n->inputs();
  inputs[0] = AddTranspose(g, inputs[0], kToNhwc);
  if (is_conv && inputs.size() > 3 && inputs[3] != nullptr) {
    inputs[3] = AddTranspose(g, inputs[3], kToNhwc);
  }
  ir::Value* out = n->outputs()[0];
  ir::Value* nhwc = g.AddValue(g.UniqueName(out->name() + "_nhwc"));
  Replace(g, {n}, op, kKilnDomain, 1, std::move(inputs), {nhwc}, n->attributes());
  AddTranspose(g, nhwc, kToNchw, out);
  return true;
}

bool IsLayoutFreeUnary(const ir::Node* n) {
  for (const char* op :
       {"Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Elu", "Selu",
        "Neg", "Abs", "Exp", "Sqrt", "Softplus", "Erf", "Gelu", "Identity"}) {
    if (IsOp(n, op)) return true;
  }
  return false;
}

bool IsLayoutFreeBinary(const ir::Node* n) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "PRelu"}) {
    if (IsOp(n, op)) return true;
  }
  return false;
}

// Whether PermuteConstant can take the value: a float constant of rank 4 or less.
bool IsPermutableConstant(const ir::Value* v) {
  const Tensor* t = ConstantOf(v);
  return t != nullptr && t->shape().rank() <= 4 && t->type() == DataType::kFloat;
}

// A constant operand of a binary op on a 4-D NCHW tensor, as the same operand for the NHWC
// tensor: padded to rank 4 with leading 1s (numpy broadcasting), then permuted. Only for an
// IsPermutableConstant value.
ir::Value* PermuteConstant(ir::Graph& g, const ir::Value* v) {
  const Tensor* t = ConstantOf(v);
  std::vector<int64_t> d(4 - t->shape().rank(), 1);
  for (int64_t x : t->shape().dims()) d.push_back(x);
  std::shared_ptr<Tensor> out =
      Tensor::AllocateForOverwrite(t->type(), Shape({d[0], d[2], d[3], d[1]}), CpuAllocator());
  const auto* src = static_cast<const float*>(t->data());
  auto* dst = static_cast<float*>(out->data());
  for (int64_t a = 0; a < d[0]; ++a) {
    for (int64_t c = 0; c < d[1]; ++c) {
      for (int64_t h = 0; h < d[2]; ++h) {
        for (int64_t w = 0; w < d[3]; ++w) {
          dst[((a * d[2] + h) * d[3] + w) * d[1] + c] = src[((a * d[1] + c) * d[2] + h) * d[3] + w];
        }
      }
    }
  }
  return AddConstant(g, v->name() + "_nhwc", std::move(out));
}

// Step 2: a layout-free node reading NHWC→NCHW transposes runs on the NHWC tensors instead, and
// the transpose moves after it.
bool PushThrough(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  const bool unary = IsLayoutFreeUnary(n);
  const bool binary = IsLayoutFreeBinary(n);
  const bool concat =
      IsOp(n, "Concat") && (IntAttrOf(n, "axis", 0) == 1 || IntAttrOf(n, "axis", 0) == -3);
  if ((!unary && !binary && !concat) || n->outputs().size() != 1 || n->inputs().empty()) {
    return false;
  }
  // Decide first, change nothing until the node is known to move (a permuted constant made for a
  // node that then stays would be left in the graph).
  std::vector<ir::Value*> inputs = n->inputs();
  std::vector<size_t> constants;  // inputs to permute
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ir::Value* in = inputs[i];
    if (in == nullptr) continue;
    const bool data_input = !unary || i == 0;
    ir::Node* p = in->producer();
    if (IsTranspose(p, kToNchw)) {
      if (!data_input) return false;
      inputs[i] = p->inputs()[0];
      any = true;
    } else if (data_input && binary) {
      if (!IsPermutableConstant(in)) return false;
      constants.push_back(i);
    } else if (data_input || ConstantOf(in) == nullptr) {
      // A Concat operand still in NCHW; or a non-data input (Clip's bounds) that is not a
      // constant scalar.
      return false;
    }
  }
  if (!any) return false;
  for (size_t i : constants) inputs[i] = PermuteConstant(g, inputs[i]);
  ir::Value* out = n->outputs()[0];
  ir::Value* nhwc = g.AddValue(g.UniqueName(out->name() + "_nhwc"));
  std::vector<ir::Attribute> attrs = n->attributes();
  if (concat) {
    for (ir::Attribute& a : attrs) {
      if (a.name == "axis") a.i = 3;
    }
  }
  Replace(g, {n}, n->op_type(), n->domain(), n->opset(), std::move(inputs), {nhwc},
          std::move(attrs));
  AddTranspose(g, nhwc, kToNchw, out);
  return true;
}

// Step 2b: an inference BatchNormalization of an NHWC→NCHW transpose (one not folded into a
// convolution: DenseNet's pre-activation blocks normalize each Concat) becomes Mul(x, s) and
// Add(·, t), s = scale / √(var + ε) and t = B − mean·s as [1, C, 1, 1] constants, which step 2
// then moves the transpose through: otherwise every such layer would sit between a pair of
// transposes.
bool BatchNormAsAffine(PassContext& ctx, ir::Node* bn) {
  ir::Graph& g = ctx.graph;
  if (!IsOp(bn, "BatchNormalization") || bn->inputs().size() != 5 ||
      IntAttrOf(bn, "training_mode", 0) != 0 || bn->outputs().empty() ||
      bn->outputs()[0] == nullptr) {
    return false;
  }
  for (size_t i = 1; i < bn->outputs().size(); ++i) {
    if (bn->outputs()[i] != nullptr && g.IsUsed(bn->outputs()[i])) return false;
  }
  ir::Value* x = bn->inputs()[0];
  if (!IsTranspose(x->producer(), kToNchw) || !IsRank4(ctx, x)) return false;
  const int64_t c = ctx.Facts(x).shape->dims()[1];
  std::optional<std::vector<float>> scale = FloatsOf(bn->inputs()[1]);
  std::optional<std::vector<float>> shift = FloatsOf(bn->inputs()[2]);
  std::optional<std::vector<float>> mean = FloatsOf(bn->inputs()[3]);
  std::optional<std::vector<float>> var = FloatsOf(bn->inputs()[4]);
  for (const auto* v : {&scale, &shift, &mean, &var}) {
    if (!*v || c < 0 || (*v)->size() != static_cast<size_t>(c)) return false;
  }
  float eps = 1e-5f;
  if (const ir::Attribute* a = bn->FindAttribute("epsilon"); a != nullptr) eps = a->f;
  std::vector<float> s(static_cast<size_t>(c));
  std::vector<float> t(static_cast<size_t>(c));
  for (size_t k = 0; k < s.size(); ++k) {
    s[k] = (*scale)[k] / std::sqrt((*var)[k] + eps);
    t[k] = (*shift)[k] - (*mean)[k] * s[k];
  }
  ir::Value* sv = AddConstant(g, bn->name() + "_scale", FloatTensor({1, c, 1, 1}, s));
  ir::Value* tv = AddConstant(g, bn->name() + "_shift", FloatTensor({1, c, 1, 1}, t));
  ir::Value* scaled = g.AddValue(g.UniqueName(bn->outputs()[0]->name() + "_scaled"));
  ir::Node* mul = g.AddNode(g.UniqueName(bn->name() + "/Mul"), "Mul", "");
  mul->set_opset(14);
  g.Connect(mul, {x, sv}, {scaled});
  ir::Value* out = bn->outputs()[0];
  Replace(g, {bn}, "Add", "", 14, {scaled, tv}, {out}, {});
  return true;
}

// Step 3: Transpose(to NHWC) of Transpose(to NCHW) of x is x.
bool CancelPair(PassContext& ctx, ir::Node* n) {
  if (!IsTranspose(n, kToNhwc)) return false;
  ir::Node* p = n->inputs()[0]->producer();
  if (!IsTranspose(p, kToNchw)) return false;
  if (!ctx.graph.ReplaceUses(n->outputs()[0], p->inputs()[0])) return false;
  ctx.graph.RemoveNode(n);
  return true;
}

}  // namespace

size_t ConvertToNhwc(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  for (const char* op : {"NhwcConv", "NhwcMaxPool", "NhwcAveragePool", "NhwcGlobalAveragePool",
                         "NhwcGlobalMaxPool"}) {
    if (!ctx.registry.Knows(kKilnDomain, op)) return 0;  // a registry without the layout's ops
  }
  const size_t converted = RewriteAll(g, [&](ir::Node* n) { return ConvertNode(ctx, n); });
  if (converted == 0) return 0;
  for (bool again = true; again;) {
    again = RewriteAll(g, [&](ir::Node* n) { return CancelPair(ctx, n); }) > 0;
    again = RewriteAll(g, [&](ir::Node* n) { return BatchNormAsAffine(ctx, n); }) > 0 || again;
    again = RewriteAll(g, [&](ir::Node* n) { return PushThrough(ctx, n); }) > 0 || again;
  }
  EliminateDeadCode(ctx);
  return converted;
}

}  // namespace kiln::optimizer
