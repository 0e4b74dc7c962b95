#include "optimizer/nhwc_pattern.h"

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {

bool IsKilnOp(const ir::Node* n, const char* op) noexcept {
  return n != nullptr && n->domain() == kKilnDomain && n->op_type() == op &&
         HasRequiredInputs(n, 1);
}

bool IsConvNode(const ir::Node* n) noexcept {
  return IsOp(n, "Conv") || (n->op_type() == "FusedConv" && n->domain() == kMicrosoftDomain &&
                             HasRequiredInputs(n, 2));
}

bool IsUnary(const ir::Node* n) noexcept {
  for (const char* op : {"Sigmoid", "Relu", "Tanh", "HardSigmoid", "HardSwish"}) {
    if (IsOp(n, op)) return n->inputs().size() == 1;
  }
  return false;
}

std::optional<int64_t> Channels(const PassContext& ctx, const ir::Value* v) {
  const ir::Node* p = v != nullptr ? v->producer() : nullptr;
  if (p == nullptr || p->outputs().empty() || p->outputs()[0] != v) return std::nullopt;
  if (IsKilnOp(p, "NhwcConv")) {
    const Tensor* w = p->inputs().size() > 1 ? ConstantOf(p->inputs()[1]) : nullptr;
    if (w == nullptr || w->shape().rank() != 4) return std::nullopt;
    return w->shape().dims()[0];
  }
  if (IsKilnOp(p, "NhwcMaxPool") || IsKilnOp(p, "NhwcAveragePool") ||
      IsKilnOp(p, "NhwcGlobalAveragePool") || IsKilnOp(p, "NhwcGlobalMaxPool") || IsUnary(p)) {
    return Channels(ctx, p->inputs()[0]);
  }
  if (IsOp(p, "Transpose")) {
    const ir::Attribute* perm = p->FindAttribute("perm");
    const infer::TensorFacts& f = ctx.Facts(p->inputs()[0]);
    if (perm == nullptr || perm->ints != std::vector<int64_t>{0, 2, 3, 1} || !f.shape ||
        f.shape->rank() != 4 || f.shape->dims()[1] < 0) {
      return std::nullopt;
    }
    return f.shape->dims()[1];
  }
  return std::nullopt;
}

bool PointwiseReaderOf(const ir::Node* n, const ir::Value* v) {
  if (!IsKilnOp(n, "NhwcConv") || n->inputs().size() < 2 || n->inputs().size() > 4 ||
      n->inputs()[0] != v || n->FindAttribute("input_channels") != nullptr ||
      n->FindAttribute("channel_scale") != nullptr) {
    return false;
  }
  for (size_t i = 1; i < n->inputs().size(); ++i) {
    if (n->inputs()[i] == v) return false;
  }
  const Tensor* w = ConstantOf(n->inputs()[1]);
  if (w == nullptr || w->shape().rank() != 4 || w->shape().dims()[2] != 1 ||
      w->shape().dims()[3] != 1 || IntAttrOf(n, "group", 1) != 1) {
    return false;
  }
  const ir::Attribute* auto_pad = n->FindAttribute("auto_pad");
  if (auto_pad != nullptr && auto_pad->s != "NOTSET" && auto_pad->s != "VALID") return false;
  for (const char* name : {"strides", "pads"}) {
    const ir::Attribute* a = n->FindAttribute(name);
    if (a == nullptr) continue;
    for (int64_t x : a->ints) {
      if (x != (name[0] == 's' ? 1 : 0)) return false;
    }
  }
  return true;
}

ir::Value* AddTranspose(ir::Graph& g, ir::Value* in, std::span<const int64_t> perm,
                        ir::Value* out) {
  const std::vector<int64_t> to_nhwc = ToLastPerm(4);
  const bool last = std::equal(perm.begin(), perm.end(), to_nhwc.begin(), to_nhwc.end());
  if (out == nullptr) out = g.AddValue(g.UniqueName(in->name() + (last ? "_nhwc" : "_nchw")));
  ir::Node* t = g.AddNode(g.UniqueName(out->name() + "/Transpose"), "Transpose", "");
  t->set_opset(13);
  t->attributes().push_back(IntsAttr("perm", {perm.begin(), perm.end()}));
  g.Connect(t, {in}, {out});
  return out;
}

ir::Value* AddReshape(ir::Graph& g, ir::Value* in, const std::vector<int64_t>& dims,
                      const std::string& base) {
  ir::Value* shape = IntsConstant(g, base + "_shape", dims, nullptr);
  ir::Value* out = g.AddValue(g.UniqueName(base));
  ir::Node* r = g.AddNode(g.UniqueName(base + "/Reshape"), "Reshape", "");
  r->set_opset(14);
  g.Connect(r, {in, shape}, {out});
  return out;
}

ir::Value* IntsConstant(ir::Graph& g, const std::string& name, const std::vector<int64_t>& v,
                        const Tensor* like) {
  const DataType type =
      like != nullptr && like->type() == DataType::kInt32 ? DataType::kInt32 : DataType::kInt64;
  std::shared_ptr<Tensor> t =
      Tensor::AllocateForOverwrite(type, Shape({static_cast<int64_t>(v.size())}), CpuAllocator());
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == DataType::kInt32) {
      static_cast<int32_t*>(t->data())[i] = static_cast<int32_t>(v[i]);
    } else {
      static_cast<int64_t*>(t->data())[i] = v[i];
    }
  }
  return AddConstant(g, name, std::move(t));
}

std::vector<int64_t> ToLastPerm(size_t rank) {
  std::vector<int64_t> p = {0};
  for (size_t a = 2; a < rank; ++a) p.push_back(static_cast<int64_t>(a));
  p.push_back(1);
  return p;
}

std::vector<int64_t> ToFirstPerm(size_t rank) {
  std::vector<int64_t> p = {0, static_cast<int64_t>(rank) - 1};
  for (size_t a = 1; a + 1 < rank; ++a) p.push_back(static_cast<int64_t>(a));
  return p;
}

}  // namespace kiln::optimizer
