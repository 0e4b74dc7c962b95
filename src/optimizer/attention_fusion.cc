// Level 2: scaled dot-product attention as exporters write it becomes one com.microsoft
// MultiHeadAttention over [B, S, D] query/key/value, so the heads are never transposed into
// copies and the [S, L] scores of one head stay in cache:
//
//   heads(t)  = Transpose(Reshape(t, [B, S, H, Dh]), [0, 2, 1, 3])                (separate)
//             | Squeeze(Split(Transpose(Reshape(qkv, [B, S, 3, H, Dh]), [2, 0, 3, 1, 4]))[i])
//   scores    = MatMul(heads(q), Transpose(heads(k), [0, 1, 3, 2]))  (÷ c or · c, + mask)
//   out       = Reshape(Transpose(MatMul(Softmax(scores, -1), heads(v)), [0, 2, 1, 3]), [B, S, D])
//
// A packed qkv = x·W (+ b) with constant W is split into three products by columns (b becomes
// the op's bias input), each part of W copied once: into BlockedMatMul's layout where the product
// suits one (ProductOfColumns), else as a MatMul's plain weight; any other packed qkv gets a Split.
// A mask is passed as attention_bias, expanded to [B|1, H|1, S, L] when it broadcasts over the
// query axis.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <span>

#include "infer/rule_util.h"
#include "kernels/domains.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

bool HasPerm(const ir::Node* n, const std::vector<int64_t>& perm) {
  if (!IsOp(n, "Transpose")) return false;
  const ir::Attribute* a = n->FindAttribute("perm");
  return a != nullptr && a->ints == perm;
}

// The dims of v when each is a size or a symbol (equal ones are equal in every run); {} otherwise.
std::vector<int64_t> DimsOf(const PassContext& ctx, const ir::Value* v) {
  const infer::TensorFacts& f = ctx.Facts(v);
  if (!f.shape) return {};
  const std::vector<int64_t>& d = f.shape->dims();
  return std::all_of(d.begin(), d.end(), infer::IsNamedDim) ? d : std::vector<int64_t>{};
}

// Whether all of `dims` are sizes (not symbols): what arithmetic on them needs.
bool Sized(std::initializer_list<int64_t> dims) {
  return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
}

// A [B, H, S, Dh] view of the heads of a [B, S, H·Dh] tensor.
struct Heads {
  ir::Value* source = nullptr;   // [B, S, D], or the packed [B, S, 3D] tensor
  int part = -1;                 // -1: separate; 0, 1, 2: that third of a packed tensor
  std::vector<ir::Node*> nodes;  // only this view's (shared packed nodes are left to dead code)
  bool seq_first = false;        // torch's nn.MultiheadAttention: source [S, 1, D], view [H, S, Dh]
};

// `v` is heads(source) (as [B, H, S, Dh]) when `perm` is [0, 2, 1, 3]; heads(source)ᵀ over the
// last two axes when it is [0, 2, 3, 1].
bool MatchSeparate(const PassContext& ctx, ir::Value* v, const std::vector<int64_t>& perm,
                   Heads& out) {
  const ir::Graph& g = ctx.graph;
  ir::Node* t = v->producer();
  if (!HasPerm(t, perm)) return false;
  ir::Node* r = ProducerIs(t->inputs()[0], "Reshape");
  if (r == nullptr || OnlyConsumer(g, t->inputs()[0]) != t) return false;
  const std::vector<int64_t> rd = DimsOf(ctx, r->outputs()[0]);
  const std::vector<int64_t> sd = DimsOf(ctx, r->inputs()[0]);
  if (rd.size() != 4 || sd.size() != 3 || rd[0] != sd[0] || rd[1] != sd[1] ||
      !Sized({rd[2], rd[3], sd[2]}) || infer::MulDims(rd[2], rd[3]) != sd[2]) {
    return false;
  }
  out = {r->inputs()[0], -1, {t, r}};
  return true;
}

bool MatchPacked(const PassContext& ctx, ir::Value* v, Heads& out) {
  const ir::Graph& g = ctx.graph;
  ir::Node* sq = ProducerIs(v, "Squeeze");
  if (sq == nullptr) return false;
  ir::Node* split = ProducerIs(sq->inputs()[0], "Split");
  if (split == nullptr || split->outputs().size() != 3 || IntAttrOf(split, "axis", 0) != 0 ||
      OnlyConsumer(g, sq->inputs()[0]) != sq) {
    return false;
  }
  int part = -1;
  for (int i = 0; i < 3; ++i) {
    if (split->outputs()[i] == sq->inputs()[0]) part = i;
  }
  ir::Node* t = split->inputs()[0]->producer();
  if (part < 0 || !HasPerm(t, {2, 0, 3, 1, 4})) return false;
  ir::Node* r = ProducerIs(t->inputs()[0], "Reshape");
  if (r == nullptr) return false;
  const std::vector<int64_t> rd = DimsOf(ctx, r->outputs()[0]);
  const std::vector<int64_t> sd = DimsOf(ctx, r->inputs()[0]);
  const std::vector<int64_t> vd = DimsOf(ctx, v);
  if (rd.size() != 5 || sd.size() != 3 || rd[2] != 3 || rd[0] != sd[0] || rd[1] != sd[1] ||
      !Sized({rd[3], rd[4], sd[2]}) || infer::MulDims(3, infer::MulDims(rd[3], rd[4])) != sd[2] ||
      vd != std::vector<int64_t>{rd[0], rd[3], rd[1], rd[4]}) {
    return false;
  }
  out = {r->inputs()[0], part, {sq}};
  return true;
}

// torch's nn.MultiheadAttention (sequence first, batch 1): Transpose(Reshape(src [S, 1, D],
// [S, H, Dh]), [1, 0, 2]) is heads(src) as [H, S, Dh]; with [1, 2, 0] it is their transpose.
bool MatchSeqFirst(const PassContext& ctx, ir::Value* v, const std::vector<int64_t>& perm,
                   Heads& out) {
  const ir::Graph& g = ctx.graph;
  ir::Node* t = v->producer();
  if (!HasPerm(t, perm)) return false;
  ir::Node* r = ProducerIs(t->inputs()[0], "Reshape");
  if (r == nullptr || OnlyConsumer(g, t->inputs()[0]) != t) return false;
  const std::vector<int64_t> rd = DimsOf(ctx, r->outputs()[0]);
  const std::vector<int64_t> sd = DimsOf(ctx, r->inputs()[0]);
  // Only fully sized: the sources are reshaped to [1, S, D] by a constant shape (ToBatchFirst).
  if (rd.size() != 3 || sd.size() != 3 || sd[1] != 1 || !Sized({rd[0], rd[1], rd[2], sd[2]}) ||
      rd[0] != sd[0] || infer::MulDims(rd[1], rd[2]) != sd[2]) {
    return false;
  }
  out = {r->inputs()[0], -1, {t, r}, true};
  return true;
}

bool MatchHeads(const PassContext& ctx, ir::Value* v, Heads& out) {
  return MatchPacked(ctx, v, out) || MatchSeparate(ctx, v, {0, 2, 1, 3}, out) ||
         MatchSeqFirst(ctx, v, {1, 0, 2}, out);
}

// Keys come transposed: Transpose(heads(k), [0, 1, 3, 2]) or the [0, 2, 3, 1] shortcut.
bool MatchKeysT(const PassContext& ctx, ir::Value* v, Heads& out) {
  if (MatchSeparate(ctx, v, {0, 2, 3, 1}, out) || MatchSeqFirst(ctx, v, {1, 2, 0}, out)) {
    return true;
  }
  ir::Node* t = v->producer();
  if (!HasPerm(t, {0, 1, 3, 2}) || OnlyConsumer(ctx.graph, t->inputs()[0]) != t ||
      !MatchHeads(ctx, t->inputs()[0], out)) {
    return false;
  }
  out.nodes.push_back(t);
  return true;
}

class Fuser {
 public:
  explicit Fuser(PassContext& ctx) : ctx_(ctx), g_(ctx.graph) {}

  bool FuseOne(ir::Node* softmax) {
    if (!IsOp(softmax, "Softmax")) return false;
    // Before opset 13 the default axis is 1 (of the input flattened to 2-D).
    const int64_t axis = IntAttrOf(softmax, "axis", softmax->opset() >= 13 ? -1 : 1);
    if (axis != -1 && axis != 3) return false;
    ir::Node* pv = OnlyConsumer(g_, softmax->outputs()[0]);
    if (!IsOp(pv, "MatMul") || pv->inputs()[0] != softmax->outputs()[0]) return false;
    std::vector<ir::Node*> nodes{softmax, pv};
    // Back from the softmax: optional mask, optional scale, the QKᵀ product.
    ir::Value* s = softmax->inputs()[0];
    ir::Value* mask = nullptr;
    float scale = 1.0f;
    bool scaled = false;
    if (ir::Node* add = ProducerIs(s, "Add"); add != nullptr && OnlyConsumer(g_, s) == softmax) {
      for (int k = 0; k < 2 && mask == nullptr; ++k) {
        if (LeadsToProduct(add->inputs()[k])) {
          mask = add->inputs()[1 - k];
          s = add->inputs()[k];
        }
      }
      if (mask == nullptr) return false;
      nodes.push_back(add);
    }
    if (!TakeScale(s, nodes, scale, scaled)) return false;
    ir::Node* qk = ProducerIs(s, "MatMul");
    if (qk == nullptr || OnlyConsumer(g_, s) == nullptr) return false;
    nodes.push_back(qk);
    ir::Value* qv = qk->inputs()[0];
    ir::Node* q_reader = qk;
    if (!scaled) {
      ir::Node* before = qv->producer();
      if (!TakeScale(qv, nodes, scale, scaled)) return false;
      if (scaled) q_reader = before;
    }
    Heads q, k, v;
    if (OnlyConsumer(g_, qv) != q_reader || !MatchHeads(ctx_, qv, q) ||
        !MatchKeysT(ctx_, qk->inputs()[1], k) || OnlyConsumer(g_, qk->inputs()[1]) != qk ||
        !MatchHeads(ctx_, pv->inputs()[1], v) || OnlyConsumer(g_, pv->inputs()[1]) != pv) {
      return false;
    }
    // Either three separate tensors, or the three parts of one packed tensor in order.
    const bool packed = q.part >= 0 || k.part >= 0 || v.part >= 0;
    if (packed && (q.part != 0 || k.part != 1 || v.part != 2 || q.source != k.source ||
                   q.source != v.source)) {
      return false;
    }
    const bool seq_first = q.seq_first;
    if (k.seq_first != seq_first || v.seq_first != seq_first) return false;
    // After: Transpose [0, 2, 1, 3] and Reshape to [B, S, D] ([1, 0, 2] and [S, D] or [S, 1, D]
    // for sequence first).
    ir::Node* ot = OnlyConsumer(g_, pv->outputs()[0]);
    if (!HasPerm(ot,
                 seq_first ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{0, 2, 1, 3})) {
      return false;
    }
    ir::Node* orr = OnlyConsumer(g_, ot->outputs()[0]);
    if (!IsOp(orr, "Reshape")) return false;
    std::vector<int64_t> qd = DimsOf(ctx_, qv);               // [B, H, S, Dh]
    std::vector<int64_t> vd = DimsOf(ctx_, pv->inputs()[1]);  // [B, H, L, Dv]
    if (seq_first && qd.size() == 3 && vd.size() == 3) {
      qd.insert(qd.begin(), 1);
      vd.insert(vd.begin(), 1);
    }
    if (qd.size() != 4 || vd.size() != 4 || !Sized({qd[1], vd[3]})) return false;
    const std::vector<int64_t> od = DimsOf(ctx_, orr->outputs()[0]);
    const int64_t width = infer::MulDims(qd[1], vd[3]);  // -1 when it overflows
    if (width < 0) return false;
    const bool out_ok = seq_first ? (od == std::vector<int64_t>{qd[2], width} ||
                                     od == std::vector<int64_t>{qd[2], 1, width})
                                  : od == std::vector<int64_t>{qd[0], qd[2], width};
    if (!out_ok) return false;
    const int64_t heads = qd[1];
    nodes.push_back(ot);
    if (!seq_first) nodes.push_back(orr);  // sequence first keeps it, to reshape [1, S, D]
    for (Heads* h : {&q, &k, &v}) nodes.insert(nodes.end(), h->nodes.begin(), h->nodes.end());

    // Every check before anything is added to the graph (the sources and the mask's Expand).
    std::array<int64_t, 4> mask_dims{};
    if (mask != nullptr && !MaskBiasDims(mask, qd[0], heads, qd[2], vd[2], mask_dims)) {
      return false;
    }
    ir::Value* bias = nullptr;
    ir::Value* qs = nullptr;
    ir::Value* ks = nullptr;
    ir::Value* vs = nullptr;
    if (seq_first) {
      SeqFirstSources(q, k, v, qs, ks, vs, bias);
    } else {
      qs = Source(q, bias);
      ks = Source(k, bias);
      vs = Source(v, bias);
    }
    if (qs == nullptr || ks == nullptr || vs == nullptr) return false;
    ir::Value* attn_bias = mask != nullptr ? MaskAsBias(mask, mask_dims, qs) : nullptr;
    ir::Value* out = seq_first ? g_.AddValue(g_.UniqueName(orr->outputs()[0]->name() + "_bsd"))
                               : orr->outputs()[0];
    Replace(g_, nodes, "MultiHeadAttention", kMicrosoftDomain, 1,
            {qs, ks, vs, bias, nullptr, attn_bias}, {out},
            {IntAttr("num_heads", heads), FloatAttr("scale", scale)});
    if (seq_first) g_.SetInput(orr, 0, out);
    return true;
  }

  // Forgets the splits and masks made so far: after dead code has run they may be gone (a match
  // that failed late leaves them unread), and their addresses may be reused.
  void Forget() {
    split_.clear();
    seq_split_.clear();
    masks_.clear();
  }

 private:
  // Whether v is QKᵀ, possibly divided or multiplied by a scalar.
  static bool LeadsToProduct(const ir::Value* v) {
    const ir::Node* p = v->producer();
    if (IsOp(p, "Div") || IsOp(p, "Mul")) {
      for (const ir::Value* in : p->inputs()) {
        if (IsOp(in->producer(), "MatMul")) return true;
      }
      return false;
    }
    return IsOp(p, "MatMul");
  }

  // Division or multiplication by a scalar constant on `v`: folds it into `scale`.
  bool TakeScale(ir::Value*& v, std::vector<ir::Node*>& nodes, float& scale, bool& scaled) {
    ir::Node* p = v->producer();
    if (!(IsOp(p, "Div") || IsOp(p, "Mul")) || OnlyConsumer(g_, v) == nullptr) return true;
    std::optional<float> c = ScalarOf(p->inputs()[1]);
    ir::Value* x = p->inputs()[0];
    if (!c && IsOp(p, "Mul")) {
      c = ScalarOf(p->inputs()[0]);
      x = p->inputs()[1];
    }
    if (!c || *c == 0.0f) return IsOp(p, "Div") ? false : true;
    scale *= IsOp(p, "Div") ? 1.0f / *c : *c;
    scaled = true;
    nodes.push_back(p);
    v = x;
    return true;
  }

  // The [B, S, D] tensor of a head view; for a packed qkv, the third `part` of it (made once per
  // packed tensor). Sets `bias` to the packed bias when the split took it.
  ir::Value* Source(const Heads& h, ir::Value*& bias) {
    if (h.part < 0) return h.source;
    auto it = split_.find(h.source);
    if (it == split_.end()) {
      Split parts;
      if (!SplitPacked(h.source, parts)) return nullptr;
      it = split_.emplace(h.source, parts).first;
    }
    if (it->second.bias != nullptr) bias = it->second.bias;
    return it->second.parts[h.part];
  }

  struct Split {
    ir::Value* parts[3] = {nullptr, nullptr, nullptr};
    ir::Value* bias = nullptr;
  };

  bool SplitPacked(ir::Value* qkv, Split& out) {
    const std::vector<int64_t> d = DimsOf(ctx_, qkv);
    if (d.size() != 3 || d[2] < 0 || d[2] % 3 != 0) return false;
    const int64_t width = d[2] / 3;
    // qkv = x · W + b with constant W [K, 3D] and b [3D]: three products, bias kept apart.
    ir::Value* product = qkv;
    ir::Value* b = nullptr;
    if (ir::Node* add = ProducerIs(qkv, "Add"); add != nullptr) {
      for (int k = 0; k < 2; ++k) {
        const Tensor* t = ConstantOf(add->inputs()[1 - k]);
        if (t != nullptr && t->type() == DataType::kFloat && t->shape().rank() == 1 &&
            t->shape().dims()[0] == d[2] && ProducerIs(add->inputs()[k], "MatMul")) {
          product = add->inputs()[k];
          b = add->inputs()[1 - k];
        }
      }
    }
    ir::Node* mm = ProducerIs(product, "MatMul");
    const Tensor* w = mm != nullptr ? ConstantOf(mm->inputs()[1]) : nullptr;
    if (w != nullptr && w->type() == DataType::kFloat && w->shape().rank() == 2 &&
        w->shape().dims()[1] == d[2]) {
      MakeParts(mm->inputs()[0], mm->inputs()[1], qkv->name(), out.parts);
      out.bias = b;
      return true;
    }
    // Anything else: one Split on the last axis.
    ir::Node* n = g_.AddNode(g_.UniqueName(qkv->name() + "/Split"), "Split", "");
    n->set_opset(13);
    n->attributes().push_back(IntAttr("axis", -1));
    ir::Value* sizes = AddConstant(g_, qkv->name() + "_split", [&] {
      std::shared_ptr<Tensor> t = Tensor::Allocate(DataType::kInt64, Shape({3}), CpuAllocator());
      auto* p = static_cast<int64_t*>(t->data());
      p[0] = p[1] = p[2] = width;
      return t;
    }());
    for (ir::Value*& p : out.parts) p = g_.AddValue(g_.UniqueName(qkv->name() + "_part"));
    g_.Connect(n, {qkv, sizes}, {out.parts[0], out.parts[1], out.parts[2]});
    return true;
  }

  // x times each third of the columns of a constant [K, 3D] weight: three products, each weight
  // part copied once (in BlockedMatMul's layout where the product suits it).
  void MakeParts(ir::Value* x, const ir::Value* weights, const std::string& base,
                 ir::Value* (&parts)[3]) {
    const int64_t width = ConstantOf(weights)->shape().dims()[1] / 3;
    for (int p = 0; p < 3; ++p) {
      parts[p] =
          ProductOfColumns(ctx_, x, weights, p * width, width, base + "_part" + std::to_string(p));
    }
  }

  // Which third of a packed [S, 1, 3D] tensor a Slice on its last axis takes, or -1.
  int SlicePart(const ir::Value* v, ir::Value*& packed) {
    ir::Node* sl = ProducerIs(v, "Slice");
    if (sl == nullptr || sl->inputs().size() < 4) return -1;
    const std::vector<int64_t> d = DimsOf(ctx_, sl->inputs()[0]);
    std::optional<std::vector<int64_t>> starts = IntsOf(sl->inputs()[1]);
    std::optional<std::vector<int64_t>> ends = IntsOf(sl->inputs()[2]);
    std::optional<std::vector<int64_t>> axes = IntsOf(sl->inputs()[3]);
    if (sl->inputs().size() > 4 && sl->inputs()[4] != nullptr) {
      std::optional<std::vector<int64_t>> steps = IntsOf(sl->inputs()[4]);
      if (!steps || steps->size() != 1 || (*steps)[0] != 1) return -1;
    }
    if (d.size() != 3 || d[2] <= 0 || d[2] % 3 != 0 || !starts || !ends || !axes ||
        starts->size() != 1 || ends->size() != 1 || axes->size() != 1 ||
        ((*axes)[0] != -1 && (*axes)[0] != 2)) {
      return -1;
    }
    const int64_t width = d[2] / 3;
    const int64_t part = (*starts)[0] / width;
    if (part < 0 || part > 2 || (*starts)[0] != part * width || (*ends)[0] != (part + 1) * width) {
      return -1;
    }
    packed = sl->inputs()[0];
    return static_cast<int>(part);
  }

  // Sequence-first sources as [1, S, D]. Three slices of qkv = x_t · W + b, x_t the [S, 1, E]
  // transpose of x [1, S, E]: three products of x with W's column blocks, bias kept apart.
  // Otherwise each source reshaped.
  void SeqFirstSources(const Heads& q, const Heads& k, const Heads& v, ir::Value*& qs,
                       ir::Value*& ks, ir::Value*& vs, ir::Value*& bias) {
    ir::Value* pq = nullptr;
    ir::Value* pk = nullptr;
    ir::Value* pv = nullptr;
    if (SlicePart(q.source, pq) == 0 && SlicePart(k.source, pk) == 1 &&
        SlicePart(v.source, pv) == 2 && pq == pk && pq == pv) {
      ir::Node* add = ProducerIs(pq, "Add");
      for (int side = 0; add != nullptr && side < 2; ++side) {
        ir::Node* mm = ProducerIs(add->inputs()[side], "MatMul");
        const Tensor* b = ConstantOf(add->inputs()[1 - side]);
        const Tensor* w = mm != nullptr ? ConstantOf(mm->inputs()[1]) : nullptr;
        ir::Node* t = mm != nullptr ? mm->inputs()[0]->producer() : nullptr;
        const std::vector<int64_t> qkv = DimsOf(ctx_, pq);
        if (w == nullptr || b == nullptr || !HasPerm(t, {1, 0, 2}) ||
            w->type() != DataType::kFloat || b->type() != DataType::kFloat ||
            w->shape().rank() != 2 || b->shape().rank() != 1 || qkv.size() != 3 ||
            w->shape().dims()[1] != qkv[2] || b->shape().dims()[0] != qkv[2]) {
          continue;
        }
        const std::vector<int64_t> xd = DimsOf(ctx_, t->inputs()[0]);
        if (xd.size() != 3 || xd[0] != 1) continue;
        auto it = seq_split_.find(pq);
        if (it == seq_split_.end()) {
          Split parts;
          MakeParts(t->inputs()[0], mm->inputs()[1], pq->name(), parts.parts);
          parts.bias = add->inputs()[1 - side];
          it = seq_split_.emplace(pq, parts).first;
        }
        qs = it->second.parts[0];
        ks = it->second.parts[1];
        vs = it->second.parts[2];
        bias = it->second.bias;
        return;
      }
    }
    qs = ToBatchFirst(q.source);
    ks = ToBatchFirst(k.source);
    vs = ToBatchFirst(v.source);
  }

  // [S, 1, D] as [1, S, D].
  ir::Value* ToBatchFirst(ir::Value* v) {
    const std::vector<int64_t> d = DimsOf(ctx_, v);
    ir::Node* n = g_.AddNode(g_.UniqueName(v->name() + "/Reshape_bsd"), "Reshape", "");
    n->set_opset(14);
    std::shared_ptr<Tensor> shape = Tensor::Allocate(DataType::kInt64, Shape({3}), CpuAllocator());
    auto* p = static_cast<int64_t*>(shape->data());
    p[0] = 1;
    p[1] = d[0];
    p[2] = d[2];
    ir::Value* out = g_.AddValue(g_.UniqueName(v->name() + "_bsd"));
    g_.Connect(n, {v, AddConstant(g_, v->name() + "_bsd_shape", std::move(shape))}, {out});
    return out;
  }

  // Whether the mask broadcasts to [B, H, S, L] as an attention_bias of shape [B|1, H|1, S, L]
  // (leading 1s added to its rank): the dims that bias has.
  bool MaskBiasDims(const ir::Value* mask, int64_t b, int64_t h, int64_t s, int64_t l,
                    std::array<int64_t, 4>& out) const {
    std::vector<int64_t> d = DimsOf(ctx_, mask);
    if (d.empty() && ConstantOf(mask) != nullptr) d = ConstantOf(mask)->shape().dims();
    if (d.empty() || d.size() > 4 || ctx_.Facts(mask).type != DataType::kFloat) return false;
    while (d.size() < 4) d.insert(d.begin(), 1);
    if ((d[0] != 1 && d[0] != b) || (d[1] != 1 && d[1] != h) || (d[2] != 1 && d[2] != s) ||
        d[3] != l) {
      return false;
    }
    out = {d[0], d[1], s, l};
    return true;
  }

  // The mask as that attention_bias: itself when it has those dims already, else expanded to
  // them (once per mask; every layer of a model reads the same one). Sized dims are a constant
  // shape; with symbols the shape is [1, 1, S, 1] (the mask's own dims broadcast with it), S
  // taken at run time from the query source [B, S, D].
  ir::Value* MaskAsBias(ir::Value* mask, const std::array<int64_t, 4>& dims,
                        ir::Value* query_source) {
    auto it = masks_.find(mask);
    if (it != masks_.end()) return it->second;
    ir::Value* result = mask;
    if (DimsOf(ctx_, mask) != std::vector<int64_t>(dims.begin(), dims.end())) {
      const std::string base = mask->name() + "_bias";
      ir::Value* shape = nullptr;
      if (Sized({dims[0], dims[1], dims[2], dims[3]})) {
        shape = AddConstant(g_, base + "_shape", Ints(dims));
      } else {
        ir::Node* seq = g_.AddNode(g_.UniqueName(base + "/Shape"), "Shape", "");
        seq->set_opset(15);
        seq->attributes().push_back(IntAttr("start", 1));
        seq->attributes().push_back(IntAttr("end", 2));
        ir::Value* s = g_.AddValue(g_.UniqueName(base + "_seq"));
        g_.Connect(seq, {query_source}, {s});
        ir::Node* cat = g_.AddNode(g_.UniqueName(base + "/Concat"), "Concat", "");
        cat->set_opset(13);
        cat->attributes().push_back(IntAttr("axis", 0));
        shape = g_.AddValue(g_.UniqueName(base + "_shape"));
        g_.Connect(cat,
                   {AddConstant(g_, base + "_ones", Ints({1, 1})), s,
                    AddConstant(g_, base + "_one", Ints({1}))},
                   {shape});
      }
      ir::Node* n = g_.AddNode(g_.UniqueName(mask->name() + "/Expand"), "Expand", "");
      n->set_opset(13);
      result = g_.AddValue(g_.UniqueName(base));
      g_.Connect(n, {mask, shape}, {result});
    }
    masks_.emplace(mask, result);
    return result;
  }

  // A 1-D int64 constant.
  static std::shared_ptr<Tensor> Ints(std::span<const int64_t> values) {
    std::shared_ptr<Tensor> t = Tensor::Allocate(
        DataType::kInt64, Shape({static_cast<int64_t>(values.size())}), CpuAllocator());
    std::copy(values.begin(), values.end(), static_cast<int64_t*>(t->data()));
    return t;
  }
  static std::shared_ptr<Tensor> Ints(std::initializer_list<int64_t> values) {
    return Ints(std::span<const int64_t>(values.begin(), values.size()));
  }

  PassContext& ctx_;
  ir::Graph& g_;
  std::map<const ir::Value*, Split> split_;
  std::map<const ir::Value*, Split> seq_split_;
  std::map<const ir::Value*, ir::Value*> masks_;
};

}  // namespace

size_t FuseAttention(PassContext& ctx) {
  if (!ctx.registry.Knows(kMicrosoftDomain, "MultiHeadAttention")) return 0;
  Fuser fuser(ctx);
  // After each match the packed projections and splits nothing reads any more (and what a match
  // that failed late made) go, so at most one replaced packed weight is alive beside its parts.
  const size_t count = RewriteAll(ctx.graph, [&](ir::Node* n) {
    if (!fuser.FuseOne(n)) return false;
    EliminateDeadCode(ctx);
    fuser.Forget();
    return true;
  });
  EliminateDeadCode(ctx);
  return count;
}

}  // namespace kiln::optimizer
