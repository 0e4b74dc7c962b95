// Level 2: rows that no output needs are not computed. A Gather that picks constant rows of a
// row-wise computation moves before it, and on up the chain, so the computation runs on those
// rows only. A classifier that reads one token (ViT's and BERT's class token, x[:, 0]) then
// computes its last layer's query, attention, output projection and MLP for that token alone;
// its keys and values, which every query reads, are still computed for all tokens.
//
//   Gather(P(x, ...), rows, axis)   ->   P(Gather(x, rows, axis'), ...)
//
// P is one of the ops below, every used output of P is read by exactly one Gather, each picking
// the same rows (constant indices, fewer than the axis has) on the same axis, and no output of P
// is a graph output. The new Gathers keep the axis (indices [k]); where the old one dropped it
// (scalar indices), a Squeeze follows P. Which inputs are gathered, on which axis:
//
//   elementwise unary ops, Add/Sub/Mul/Div/Pow,   every input that varies along the axis
//   Gelu/FastGelu/BiasGelu/QuickGelu              (broadcasting: one of size 1 or of lower rank
//                                                 is read as it is)
//   LayerNormalization                            X, when the axis comes before the normalized ones
//   SkipLayerNormalization                        input and skip (as above), axis not the last
//   MatMul (constant 2-D B), BlockedMatMul        A, axis not the last
//   Gemm (transA = 0)                             A and a C that varies along rows, axis 0
//   Transpose                                     X on perm[axis]
//   Reshape                                       X on the axis holding the same elements (the
//                                                 dims before it multiply to the same number);
//                                                 the new shape is written out
//   MultiHeadAttention (not unidirectional)       the query, axis 1, and an attention_bias that
//                                                 varies along queries (its axis 2); key and value
//                                                 are read whole
//
// Rows of a constant input are picked at once (a new constant). Shapes must be static along the
// way; the facts are inferred again when the graph has such a Gather (fusions before this pass
// add values without them).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "infer/rule_util.h"
#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr std::string_view kMicrosoft = "com.microsoft";

// Rows picked by a Gather: axis (non-negative) and indices (non-negative, in range).
struct Rows {
  int64_t axis = 0;
  std::vector<int64_t> picks;
  bool operator==(const Rows& o) const { return axis == o.axis && picks == o.picks; }
};

// The static dims of a value, or nullopt.
std::optional<std::vector<int64_t>> DimsOf(const PassContext& ctx, const ir::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (const Tensor* t = ConstantOf(v)) return t->shape().dims();
  const infer::TensorFacts& f = ctx.Facts(v);
  if (!f.shape) return std::nullopt;
  for (int64_t d : f.shape->dims()) {
    if (d < 0) return std::nullopt;
  }
  return f.shape->dims();
}

// The gather node `g` reading `v` (input 0), as rows of v; nullopt when it is not such a Gather.
// `scalar`: its indices are a scalar (the axis goes).
std::optional<Rows> RowsOf(const PassContext& ctx, const ir::Node* g, const ir::Value* v,
                           bool* scalar) {
  if (!IsOp(g, "Gather") || g->inputs()[0] != v || g->inputs()[1] == v) return std::nullopt;
  const Tensor* idx = ConstantOf(g->inputs()[1]);
  const std::optional<std::vector<int64_t>> picks = IntsOf(g->inputs()[1]);
  const std::optional<std::vector<int64_t>> dims = DimsOf(ctx, v);
  if (idx == nullptr || !picks || idx->shape().rank() > 1 || picks->empty() || !dims) {
    return std::nullopt;
  }
  const auto rank = static_cast<int64_t>(dims->size());
  int64_t axis = IntAttrOf(g, "axis", 0);
  if (axis < -rank || axis >= rank) return std::nullopt;
  if (axis < 0) axis += rank;
  const int64_t dim = (*dims)[static_cast<size_t>(axis)];
  if (static_cast<int64_t>(picks->size()) >= dim) return std::nullopt;  // nothing to save
  Rows rows{axis, *picks};
  for (int64_t& p : rows.picks) {
    if (p < -dim || p >= dim) return std::nullopt;
    if (p < 0) p += dim;
  }
  *scalar = idx->shape().rank() == 0;
  return rows;
}

// How P's inputs are gathered: per input, the axis, or -1 for read as it is.
using InputAxes = std::vector<int64_t>;

bool IsDefault(const ir::Node* n) {
  return n->domain().empty() || n->domain() == "ai.onnx";
}

bool IsUnary(const ir::Node* n) {
  static const std::vector<std::string_view> kOnnx = {
      "Abs",   "Cast", "Ceil",        "Cos",       "Elu",      "Erf",       "Exp",
      "Floor", "Gelu", "HardSigmoid", "HardSwish", "Identity", "LeakyRelu", "Log",
      "Mish",  "Neg",  "Reciprocal",  "Relu",      "Round",    "Selu",      "Sigmoid",
      "Sign",  "Sin",  "Softplus",    "Softsign",  "Sqrt",     "Tanh",      "ThresholdedRelu"};
  static const std::vector<std::string_view> kContrib = {"Gelu", "FastGelu", "BiasGelu",
                                                         "QuickGelu"};
  const auto& list = IsDefault(n) ? kOnnx : kContrib;
  if (!IsDefault(n) && n->domain() != kMicrosoft) return false;
  return std::find(list.begin(), list.end(), n->op_type()) != list.end();
}

bool IsBinary(const ir::Node* n) {
  static const std::vector<std::string_view> kOps = {"Add", "Sub", "Mul", "Div", "Pow"};
  return IsDefault(n) && std::find(kOps.begin(), kOps.end(), n->op_type()) != kOps.end();
}

// Broadcasting: input `v` of an op whose output has rank `rank` and `out_dim` along `axis`.
// Sets *in_axis to the input's axis to gather on, or -1; false when its shape is not known.
bool BroadcastAxis(const PassContext& ctx, const ir::Value* v, size_t rank, int64_t axis,
                   int64_t out_dim, int64_t* in_axis) {
  *in_axis = -1;
  if (v == nullptr) return true;
  const std::optional<std::vector<int64_t>> dims = DimsOf(ctx, v);
  if (!dims || dims->size() > rank) return false;
  const int64_t j = axis - static_cast<int64_t>(rank - dims->size());
  if (j < 0 || (*dims)[static_cast<size_t>(j)] == 1) return true;
  if ((*dims)[static_cast<size_t>(j)] != out_dim) return false;
  *in_axis = j;
  return true;
}

// The axes P's inputs are gathered on for rows along `axis` of its outputs (`out` the dims of
// output 0), or nullopt when P is not row-wise along it. For a Reshape, *shape is set to the new
// shape input's values.
std::optional<InputAxes> GatherAxes(const PassContext& ctx, const ir::Node* p,
                                    const std::vector<int64_t>& out, int64_t axis, size_t picks,
                                    std::vector<int64_t>* shape) {
  const size_t n = p->inputs().size();
  const size_t rank = out.size();
  const int64_t last = static_cast<int64_t>(rank) - 1;
  const int64_t out_dim = out[static_cast<size_t>(axis)];
  InputAxes axes(n, -1);
  auto broadcast_all = [&](size_t from) -> bool {
    for (size_t i = from; i < n; ++i) {
      if (!BroadcastAxis(ctx, p->inputs()[i], rank, axis, out_dim, &axes[i])) return false;
    }
    return true;
  };
  auto same_rank_input0 = [&]() {
    const std::optional<std::vector<int64_t>> a = DimsOf(ctx, p->inputs()[0]);
    return a && a->size() == rank && (*a)[static_cast<size_t>(axis)] == out_dim;
  };
  if (IsUnary(p) || IsBinary(p)) {
    if (!broadcast_all(0)) return std::nullopt;
    return axes;
  }
  const std::string& op = p->op_type();
  if (IsOp(p, "LayerNormalization")) {
    int64_t norm = IntAttrOf(p, "axis", -1);
    if (norm < 0) norm += static_cast<int64_t>(rank);
    if (axis >= norm || !same_rank_input0()) return std::nullopt;
    axes[0] = axis;
    return axes;
  }
  if (p->domain() == kMicrosoft && op == "SkipLayerNormalization" && n >= 2) {
    if (axis >= last || !same_rank_input0() ||
        !BroadcastAxis(ctx, p->inputs()[1], rank, axis, out_dim, &axes[1])) {
      return std::nullopt;
    }
    axes[0] = axis;
    return axes;
  }
  const bool blocked = p->domain() == kKilnDomain && op == "BlockedMatMul";
  if (blocked || (IsOp(p, "MatMul") && HasRequiredInputs(p, 2))) {
    const Tensor* b = blocked ? nullptr : ConstantOf(p->inputs()[1]);
    if ((!blocked && (b == nullptr || b->shape().rank() != 2)) || axis >= last ||
        !same_rank_input0()) {
      return std::nullopt;
    }
    axes[0] = axis;
    return axes;
  }
  if (IsOp(p, "Gemm") && HasRequiredInputs(p, 2)) {
    if (IntAttrOf(p, "transA", 0) != 0 || axis != 0 || rank != 2 || !same_rank_input0() ||
        (n > 2 && !BroadcastAxis(ctx, p->inputs()[2], rank, axis, out_dim, &axes[2]))) {
      return std::nullopt;
    }
    axes[0] = 0;
    return axes;
  }
  if (IsOp(p, "Transpose")) {
    std::vector<int64_t> perm(rank);
    const ir::Attribute* a = p->FindAttribute("perm");
    if (a != nullptr) {
      if (a->ints.size() != rank) return std::nullopt;
      perm = a->ints;
    } else {
      for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
    }
    const int64_t from = perm[static_cast<size_t>(axis)];
    if (from < 0 || from >= static_cast<int64_t>(rank)) return std::nullopt;
    axes[0] = from;
    return axes;
  }
  if (IsOp(p, "Reshape") && HasRequiredInputs(p, 2)) {
    const std::optional<std::vector<int64_t>> in = DimsOf(ctx, p->inputs()[0]);
    if (!in || std::count(out.begin(), out.end(), 0) > 0) return std::nullopt;
    int64_t before = 1;  // (MulDims: -1 when the product overflows)
    for (int64_t i = 0; i < axis; ++i) before = infer::MulDims(before, out[static_cast<size_t>(i)]);
    if (before < 0) return std::nullopt;
    int64_t prefix = 1;
    for (size_t j = 0; j < in->size(); ++j) {
      if (prefix == before && (*in)[j] == out_dim) {
        axes[0] = static_cast<int64_t>(j);
        *shape = out;
        (*shape)[static_cast<size_t>(axis)] = static_cast<int64_t>(picks);
        return axes;
      }
      prefix = infer::MulDims(prefix, (*in)[j]);
      if (prefix < 0 || prefix > before) break;
    }
    return std::nullopt;
  }
  if (p->domain() == kMicrosoft && op == "MultiHeadAttention") {
    // query, key, value, bias, key_padding_mask, attention_bias; nothing after.
    if (rank != 3 || axis != 1 || IntAttrOf(p, "unidirectional", 0) != 0 || n < 3 ||
        p->inputs()[1] == nullptr || p->inputs()[2] == nullptr || !same_rank_input0() ||
        (n > 4 && p->inputs()[4] != nullptr)) {
      return std::nullopt;
    }
    for (size_t i = 6; i < n; ++i) {
      if (p->inputs()[i] != nullptr) return std::nullopt;
    }
    for (size_t i = 1; i < p->outputs().size(); ++i) {
      if (p->outputs()[i] != nullptr) return std::nullopt;
    }
    if (n > 5 && p->inputs()[5] != nullptr) {
      const std::optional<std::vector<int64_t>> bias = DimsOf(ctx, p->inputs()[5]);
      if (!bias || bias->size() != 4) return std::nullopt;
      if ((*bias)[2] == out_dim) {
        axes[5] = 2;
      } else if ((*bias)[2] != 1) {
        return std::nullopt;
      }
    }
    axes[0] = 1;
    return axes;
  }
  return std::nullopt;
}

class Pushdown {
 public:
  explicit Pushdown(PassContext& ctx) : ctx_(ctx), g_(ctx.graph) {}

  // Moves the Gathers reading P's outputs before P; false when they cannot move.
  bool Rewrite(ir::Node* p) {
    if (p->outputs().empty() || p->outputs()[0] == nullptr) return false;
    // The Gather reading each used output, all picking the same rows.
    std::vector<ir::Node*> gathers(p->outputs().size(), nullptr);
    std::vector<bool> scalar(p->outputs().size(), false);
    std::optional<Rows> rows;
    for (size_t i = 0; i < p->outputs().size(); ++i) {
      ir::Value* out = p->outputs()[i];
      if (out == nullptr || !g_.IsUsed(out)) continue;
      ir::Node* g = OnlyConsumer(g_, out);
      if (g == nullptr) return false;
      bool s = false;
      const std::optional<Rows> r = RowsOf(ctx_, g, out, &s);
      if (!r || (rows && !(*r == *rows))) return false;
      rows = r;
      gathers[i] = g;
      scalar[i] = s;
    }
    if (!rows) return false;
    const std::optional<std::vector<int64_t>> out = DimsOf(ctx_, p->outputs()[0]);
    if (!out) return false;
    std::vector<int64_t> shape;
    const std::optional<InputAxes> axes =
        GatherAxes(ctx_, p, *out, rows->axis, rows->picks.size(), &shape);
    if (!axes) return false;
    // Every used output has output 0's extent along the axis (LayerNormalization's mean and
    // inverse deviation do, with the normalized dims 1).
    for (size_t i = 0; i < gathers.size(); ++i) {
      if (gathers[i] == nullptr) continue;
      const std::optional<std::vector<int64_t>> d = DimsOf(ctx_, p->outputs()[i]);
      if (!d || d->size() != out->size() ||
          (*d)[static_cast<size_t>(rows->axis)] != (*out)[static_cast<size_t>(rows->axis)]) {
        return false;
      }
    }

    const auto k = static_cast<int64_t>(rows->picks.size());
    ir::Value* picks = AddConstant(g_, p->name() + "_rows", IntTensor({k}, rows->picks));
    std::vector<ir::Value*> inputs = p->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if ((*axes)[i] < 0) continue;
      inputs[i] = Gather(inputs[i], picks, (*axes)[i], k);
    }
    if (!shape.empty()) {
      inputs[1] = AddConstant(g_, p->name() + "_shape",
                              IntTensor({static_cast<int64_t>(shape.size())}, shape));
    }
    std::vector<ir::Value*> outputs(p->outputs().size(), nullptr);
    std::vector<std::pair<ir::Value*, ir::Value*>> squeezes;  // (P's output, the Gather's)
    for (size_t i = 0; i < outputs.size(); ++i) {
      ir::Value* old = p->outputs()[i];
      if (old == nullptr) continue;
      if (gathers[i] != nullptr && !scalar[i]) {
        outputs[i] = gathers[i]->outputs()[0];
        continue;
      }
      outputs[i] = g_.AddValue(g_.UniqueName(old->name() + "_rows"));
      infer::TensorFacts f = ctx_.Facts(old);
      if (f.shape) {
        std::vector<int64_t> d = f.shape->dims();
        d[static_cast<size_t>(rows->axis)] = k;
        f.shape = Shape(d);
      }
      ctx_.facts[outputs[i]] = f;
      if (gathers[i] != nullptr) squeezes.emplace_back(outputs[i], gathers[i]->outputs()[0]);
    }
    ir::Node* q = g_.AddNode(p->name() + "/rows", p->op_type(), p->domain());
    q->set_opset(p->opset());
    q->attributes() = p->attributes();
    for (ir::Node* g : gathers) {
      if (g != nullptr) g_.RemoveNode(g);
    }
    g_.RemoveNode(p);
    g_.Connect(q, std::move(inputs), std::move(outputs));
    for (const auto& [from, to] : squeezes) {
      ir::Node* s = g_.AddNode(g_.UniqueName(to->name() + "/Squeeze"), "Squeeze", "");
      s->set_opset(13);
      g_.Connect(s, {from, AddConstant(g_, to->name() + "_axis", IntTensor({1}, {rows->axis}))},
                 {to});
    }
    return true;
  }

 private:
  PassContext& ctx_;
  ir::Graph& g_;

  // The rows `picks` of t along `axis`.
  static std::shared_ptr<Tensor> PickRows(const Tensor& t, int64_t axis,
                                          const std::vector<int64_t>& picks) {
    std::vector<int64_t> dims = t.shape().dims();
    const auto a = static_cast<size_t>(axis);
    const size_t elem = BitsPerElement(t.type()) / 8;
    size_t outer = 1;
    size_t inner = elem;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i < a) outer *= static_cast<size_t>(dims[i]);
      if (i > a) inner *= static_cast<size_t>(dims[i]);
    }
    const auto rows = static_cast<size_t>(dims[a]);
    dims[a] = static_cast<int64_t>(picks.size());
    std::shared_ptr<Tensor> out =
        Tensor::AllocateForOverwrite(t.type(), Shape(std::move(dims)), CpuAllocator());
    const auto* src = static_cast<const char*>(t.data());
    auto* dst = static_cast<char*>(out->data());
    for (size_t o = 0; o < outer; ++o) {
      for (const int64_t p : picks) {
        std::memcpy(dst, src + (o * rows + static_cast<size_t>(p)) * inner, inner);
        dst += inner;
      }
    }
    return out;
  }

  static std::shared_ptr<Tensor> IntTensor(std::vector<int64_t> dims,
                                           const std::vector<int64_t>& values) {
    std::shared_ptr<Tensor> t =
        Tensor::AllocateForOverwrite(DataType::kInt64, Shape(std::move(dims)), CpuAllocator());
    std::copy(values.begin(), values.end(), static_cast<int64_t*>(t->data()));
    return t;
  }

  // Gather(v, picks, axis) as a new value (k rows along axis); of a constant, a new constant.
  ir::Value* Gather(ir::Value* v, ir::Value* picks, int64_t axis, int64_t k) {
    if (const Tensor* t = ConstantOf(v);
        t != nullptr && BitsPerElement(t->type()) % 8 == 0 && t->type() != DataType::kString) {
      return AddConstant(g_, v->name() + "_rows", PickRows(*t, axis, *IntsOf(picks)));
    }
    ir::Value* out = g_.AddValue(g_.UniqueName(v->name() + "_rows"));
    ir::Node* n = g_.AddNode(g_.UniqueName(v->name() + "/Gather_rows"), "Gather", "");
    n->set_opset(13);
    n->attributes() = {IntAttr("axis", axis)};
    g_.Connect(n, {v, picks}, {out});
    infer::TensorFacts f = ctx_.Facts(v);
    if (const Tensor* t = ConstantOf(v)) {
      f.type = t->type();
      f.shape = t->shape();
    }
    f.value = nullptr;
    if (f.shape) {
      std::vector<int64_t> d = f.shape->dims();
      d[static_cast<size_t>(axis)] = k;
      f.shape = Shape(d);
    }
    ctx_.facts[out] = f;
    return out;
  }
};

// Whether some Gather with constant indices is the only reader of a value that a node produces
// (not a graph output): every rewrite starts from one, so only then is inferring the facts again
// worth it (BERT's Gather reads last_hidden_state, an output: no second inference for it).
bool HasCandidate(const ir::Graph& g) {
  for (const auto& n : g.nodes()) {
    const ir::Value* data = IsOp(n.get(), "Gather") ? n->inputs()[0] : nullptr;
    if (data != nullptr && data->producer() != nullptr && ConstantOf(n->inputs()[1]) != nullptr &&
        OnlyConsumer(g, data) == n.get()) {
      return true;
    }
  }
  return false;
}

}  // namespace

size_t PushRowGathersUp(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  if (!HasCandidate(g)) return 0;
  if (!InferFactsAgain(ctx)) return 0;
  Pushdown pushdown(ctx);
  const size_t count = RewriteAll(g, [&](ir::Node* n) { return pushdown.Rewrite(n); });
  if (count > 0) EliminateDeadCode(ctx);
  return count;
}

}  // namespace kiln::optimizer
