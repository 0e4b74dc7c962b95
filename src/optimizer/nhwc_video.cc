// Level 3, nhwc_layout's first step for 5-D layers: the separable layers of video networks run
// channels-last as the 2-D Nhwc ops. With x [N, C, D, H, W] as y = [N, D, H, W, C] (ToLastPerm):
//  - a convolution whose window spans a frame, (1, kh, kw), no temporal padding: y (every st-th
//    frame, a Slice, when the temporal stride st > 1) as [N·D, H, W, C], a 2-D NhwcConv with
//    kernel (kh, kw), back as [N, D', H', W', M]. R(2+1)D's and S3D's spatial layers, MC3's later
//    ones, the (1, 7, 7) stems and the 1×1×1 shortcuts;
//  - one whose window spans time alone, (kt, 1, 1), stride 1 and no padding across the frame: y
//    as [N, D, H·W, C], a 2-D NhwcConv with kernel (kt, 1);
//  - MaxPool and AveragePool as a pool over each frame ([N·D, H, W, C], kernel (kh, kw)) and then
//    one across frames ([N, D, H'·W', C], kernel (kt, 1)), each left out where it does nothing:
//    the max of a box is the max over its frames of each frame's max, and the average of a box
//    the average of the frames' averages, the count of a box being the product of the counts
//    along its axes with or without count_include_pad;
//  - GlobalAveragePool and GlobalMaxPool over [N, D·H·W, 1, C].
// The result goes back to [N, C', D', H', W'] by a ToFirstPerm transpose, which nhwc_layout then
// pushes down like NCHW's and cancels against the next layer's ToLastPerm. Needs the input's and
// output's C, D, H and W known at load (N may be symbolic). Only in a network that has such a
// factored convolution with more than one tap (HasFactoredVideoConv): R3D's 3×3×3 layers stay
// channels-first, and so then do its 1×1×1 shortcuts and pools, which would only add transposes.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

struct Window {
  std::vector<int64_t> kernel;     // kt, kh, kw
  std::vector<int64_t> strides;    // st, sh, sw
  std::vector<int64_t> dilations;  // dt, dh, dw
  std::vector<int64_t> pads;       // t0, h0, w0, t1, h1, w1
};

// The node's 3-D window, `kernel` where the node has no kernel_shape; nullopt with auto_pad or
// malformed attributes (left to the kernel to report).
std::optional<Window> WindowOf(const ir::Node* n, const std::vector<int64_t>& kernel) {
  if (const ir::Attribute* a = n->FindAttribute("auto_pad"); a != nullptr && a->s != "NOTSET") {
    return std::nullopt;
  }
  Window w{IntsAttrOf(n, "kernel_shape", kernel), IntsAttrOf(n, "strides", {1, 1, 1}),
           IntsAttrOf(n, "dilations", {1, 1, 1}), IntsAttrOf(n, "pads", {0, 0, 0, 0, 0, 0})};
  if (w.kernel.size() != 3 || w.strides.size() != 3 || w.dilations.size() != 3 ||
      w.pads.size() != 6) {
    return std::nullopt;
  }
  for (int64_t v : w.kernel) {
    if (v < 1) return std::nullopt;
  }
  for (int64_t v : w.strides) {
    if (v < 1) return std::nullopt;
  }
  return w;
}

// [N, C, D, H, W] of a float 5-D value with C, D, H and W known and non-zero; N -1 when not
// known, and never 0.
std::optional<std::vector<int64_t>> VideoDims(const PassContext& ctx, const ir::Value* v) {
  const infer::TensorFacts& f = ctx.Facts(v);
  if (f.type != DataType::kFloat || !f.shape || f.shape->rank() != 5) return std::nullopt;
  std::vector<int64_t> d = f.shape->dims();
  for (size_t i = 1; i < 5; ++i) {
    if (d[i] <= 0) return std::nullopt;
  }
  if (d[0] == 0) return std::nullopt;
  if (d[0] < 0) d[0] = -1;
  return d;
}

// The node's attributes without its window's (kept: group, FusedConv's activation, ...), then
// the 2-D window given.
std::vector<ir::Attribute> With2dWindow(const ir::Node* n, std::vector<int64_t> kernel,
                                        std::vector<int64_t> strides,
                                        std::vector<int64_t> dilations, std::vector<int64_t> pads) {
  std::vector<ir::Attribute> attrs;
  for (const ir::Attribute& a : n->attributes()) {
    if (a.name != "kernel_shape" && a.name != "strides" && a.name != "dilations" &&
        a.name != "pads" && a.name != "auto_pad") {
      attrs.push_back(a);
    }
  }
  attrs.push_back(IntsAttr("kernel_shape", std::move(kernel)));
  attrs.push_back(IntsAttr("strides", std::move(strides)));
  attrs.push_back(IntsAttr("dilations", std::move(dilations)));
  attrs.push_back(IntsAttr("pads", std::move(pads)));
  return attrs;
}

// The same weights as [M, C/group, a, b]: a view of w5's bytes (no copy: R(2+1)D's are 126 MB),
// which keeps w5's tensor alive.
ir::Value* Weights2d(ir::Graph& g, const ir::Value* w5, int64_t a, int64_t b) {
  const std::shared_ptr<const Tensor>& w = w5->initializer();
  const std::vector<int64_t>& d = w->shape().dims();
  std::unique_ptr<Tensor> view =
      Tensor::Wrap(DataType::kFloat, Shape({d[0], d[1], a, b}), const_cast<void*>(w->data()),
                   w->byte_size(), w->memory_info());
  std::shared_ptr<const Tensor> shared(view.release(), [w](const Tensor* t) { delete t; });
  return AddConstant(g, w5->name() + "_2d", std::move(shared));
}

// Every st-th frame of channels-last y [N, D, H, W, C].
ir::Value* EveryNthFrame(ir::Graph& g, ir::Value* y, int64_t frames, int64_t st) {
  ir::Value* out = g.AddValue(g.UniqueName(y->name() + "_frames"));
  ir::Node* s = g.AddNode(g.UniqueName(out->name() + "/Slice"), "Slice", "");
  s->set_opset(13);
  g.Connect(s,
            {y, IntsConstant(g, out->name() + "_starts", {0}, nullptr),
             IntsConstant(g, out->name() + "_ends", {frames}, nullptr),
             IntsConstant(g, out->name() + "_axes", {1}, nullptr),
             IntsConstant(g, out->name() + "_steps", {st}, nullptr)},
            {out});
  return out;
}

// Replaces `n` by the ai.kiln `op` reading `inputs` with `attrs`, its 4-D result reshaped to the
// channels-last [N, D', H', W', C'] of n's output `out` (dims [N, C', D', H', W']) and transposed
// back into `out`.
void ReplaceByNhwc(ir::Graph& g, ir::Node* n, const std::string& op, std::vector<ir::Value*> inputs,
                   std::vector<ir::Attribute> attrs, const std::vector<int64_t>& od) {
  ir::Value* out = n->outputs()[0];
  ir::Value* nhwc = g.AddValue(g.UniqueName(out->name() + "_nhwc4"));
  Replace(g, {n}, op, kKilnDomain, 1, std::move(inputs), {nhwc}, std::move(attrs));
  ir::Value* back =
      AddReshape(g, nhwc, {od[0], od[2], od[3], od[4], od[1]}, out->name() + "_ndhwc");
  AddTranspose(g, back, ToFirstPerm(5), out);
}

bool ConvertConv(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  const Tensor* w = n->inputs().size() > 1 ? ConstantOf(n->inputs()[1]) : nullptr;
  if (w == nullptr || w->type() != DataType::kFloat || w->shape().rank() != 5) return false;
  const std::vector<int64_t>& wd = w->shape().dims();
  const std::optional<Window> win = WindowOf(n, {wd[2], wd[3], wd[4]});
  const std::optional<std::vector<int64_t>> xd = VideoDims(ctx, n->inputs()[0]);
  const std::optional<std::vector<int64_t>> od = VideoDims(ctx, n->outputs()[0]);
  if (!win || !xd || !od || win->kernel != std::vector<int64_t>{wd[2], wd[3], wd[4]}) {
    return false;
  }
  const std::vector<int64_t>& k = win->kernel;
  const std::vector<int64_t>& s = win->strides;
  const std::vector<int64_t>& p = win->pads;
  const std::vector<int64_t>& dl = win->dilations;
  const std::vector<int64_t>& x = *xd;
  const std::vector<int64_t>& o = *od;
  const bool frame = k[0] == 1 && p[0] == 0 && p[3] == 0;
  const bool time = !frame && k[1] == 1 && k[2] == 1 && s[1] == 1 && s[2] == 1 && p[1] == 0 &&
                    p[2] == 0 && p[4] == 0 && p[5] == 0;
  if (!frame && !time) return false;
  std::vector<ir::Value*> inputs = n->inputs();
  ir::Value* y = AddTranspose(g, inputs[0], ToLastPerm(5));
  // The 2-D problem: X and Z as [N·D, H, W, C] (frame) or [N, D, H·W, C] (time).
  std::vector<int64_t> x4;
  std::vector<int64_t> z4;
  std::vector<ir::Attribute> attrs;
  if (frame) {
    if (s[0] > 1) y = EveryNthFrame(g, y, x[2], s[0]);
    const int64_t frames = x[0] < 0 ? -1 : x[0] * o[2];
    x4 = {frames, x[3], x[4], x[1]};
    z4 = {frames, o[3], o[4], o[1]};
    attrs = With2dWindow(n, {k[1], k[2]}, {s[1], s[2]}, {dl[1], dl[2]}, {p[1], p[2], p[4], p[5]});
    inputs[1] = Weights2d(g, inputs[1], k[1], k[2]);
  } else {
    x4 = {x[0], x[2], x[3] * x[4], x[1]};
    z4 = {o[0], o[2], o[3] * o[4], o[1]};
    attrs = With2dWindow(n, {k[0], 1}, {s[0], 1}, {dl[0], 1}, {p[0], 0, p[3], 0});
    inputs[1] = Weights2d(g, inputs[1], k[0], 1);
  }
  inputs[0] = AddReshape(g, y, x4, y->name() + "_4d");
  if (inputs.size() > 3 && inputs[3] != nullptr) {
    ir::Value* z = AddTranspose(g, inputs[3], ToLastPerm(5));
    inputs[3] = AddReshape(g, z, z4, z->name() + "_4d");
  }
  ReplaceByNhwc(g, n, "NhwcConv", std::move(inputs), std::move(attrs), o);
  return true;
}

// A pool of y (channels-last, 4-D `dims`) by `op` over a 2-D window, as a new value.
ir::Value* AddPool(ir::Graph& g, const ir::Node* n, const std::string& op, ir::Value* y,
                   std::vector<ir::Attribute> attrs) {
  ir::Value* out = g.AddValue(g.UniqueName(y->name() + "_pooled"));
  ir::Node* pool = g.AddNode(g.UniqueName(n->name() + "/" + op), op, kKilnDomain);
  pool->set_opset(1);
  pool->attributes() = std::move(attrs);
  g.Connect(pool, {y}, {out});
  return out;
}

bool ConvertPool(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  const bool global = IsOp(n, "GlobalAveragePool") || IsOp(n, "GlobalMaxPool");
  if (!global && !IsOp(n, "MaxPool") && !IsOp(n, "AveragePool")) return false;
  if (n->outputs().size() != 1 || IntAttrOf(n, "storage_order", 0) != 0) return false;
  const std::optional<std::vector<int64_t>> xd = VideoDims(ctx, n->inputs()[0]);
  const std::optional<std::vector<int64_t>> od = VideoDims(ctx, n->outputs()[0]);
  if (!xd || !od) return false;
  const std::vector<int64_t>& x = *xd;
  const std::vector<int64_t>& o = *od;
  const std::string op = "Nhwc" + n->op_type();
  if (global) {
    ir::Value* y = AddTranspose(g, n->inputs()[0], ToLastPerm(5));
    y = AddReshape(g, y, {x[0], x[2] * x[3] * x[4], 1, x[1]}, y->name() + "_4d");
    ReplaceByNhwc(g, n, op, {y}, n->attributes(), o);
    return true;
  }
  const std::optional<Window> win = WindowOf(n, {});
  if (!win) return false;
  ir::Value* y = AddTranspose(g, n->inputs()[0], ToLastPerm(5));
  const std::vector<int64_t>& k = win->kernel;
  const std::vector<int64_t>& s = win->strides;
  const std::vector<int64_t>& p = win->pads;
  const std::vector<int64_t>& dl = win->dilations;
  const bool frame = k[1] != 1 || k[2] != 1 || s[1] != 1 || s[2] != 1 || p[1] != 0 || p[2] != 0 ||
                     p[4] != 0 || p[5] != 0;
  const bool time = k[0] != 1 || s[0] != 1 || p[0] != 0 || p[3] != 0;
  // Each frame's pool, then the pool across frames (the last of the two is n itself).
  int64_t h = x[3];
  int64_t w = x[4];
  if (frame) {
    y = AddReshape(g, y, {x[0] < 0 ? -1 : x[0] * x[2], x[3], x[4], x[1]}, y->name() + "_frames");
    std::vector<ir::Attribute> attrs =
        With2dWindow(n, {k[1], k[2]}, {s[1], s[2]}, {dl[1], dl[2]}, {p[1], p[2], p[4], p[5]});
    if (!time) {
      ReplaceByNhwc(g, n, op, {y}, std::move(attrs), o);
      return true;
    }
    y = AddPool(g, n, op, y, std::move(attrs));
    h = o[3];
    w = o[4];
  }
  y = AddReshape(g, y, {x[0], x[2], h * w, x[1]}, y->name() + "_time");
  ReplaceByNhwc(g, n, op, {y},
                With2dWindow(n, {k[0], 1}, {s[0], 1}, {dl[0], 1}, {p[0], 0, p[3], 0}), o);
  return true;
}

}  // namespace

bool HasFactoredVideoConv(const ir::Graph& g) {
  for (const auto& n : g.nodes()) {
    const Tensor* w = IsConvNode(n.get()) ? ConstantOf(n->inputs()[1]) : nullptr;
    if (w == nullptr || w->shape().rank() != 5) continue;
    const std::vector<int64_t>& d = w->shape().dims();
    if ((d[2] == 1 && d[3] * d[4] > 1) || (d[2] > 1 && d[3] == 1 && d[4] == 1)) return true;
  }
  return false;
}

bool ConvertVideoNode(PassContext& ctx, ir::Node* n) {
  if (n->outputs().size() != 1 || n->outputs()[0] == nullptr) return false;
  return IsConvNode(n) ? ConvertConv(ctx, n) : ConvertPool(ctx, n);
}

}  // namespace kiln::optimizer
