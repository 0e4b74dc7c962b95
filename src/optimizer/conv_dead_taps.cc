// Level 2: a convolution whose kernel taps, along some spatial axis, never reach the input — at
// every output position they read only padding (atrous layers with a dilation as large as the
// map, large kernels on small maps) — keeps only the taps that can: its weights are cut to the
// live range of taps and its pads shrink by what the dropped taps spanned, so every output is the
// same and the kernel skips work that only ever multiplied zeros. A DeepLabV3 head's 3×3 at
// dilation 36 on a 24×32 map becomes a 1×1. Needs constant float weights, the input's spatial
// sizes known at load, and explicit pads (auto_pad NOTSET); an axis left with one tap gets
// dilation 1.
#include <vector>

#include "optimizer/pass.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

// Whether tap `t` of an axis (input size n, output size out) reads the input at some output
// position: rows t·d − pad + o·s for o in [0, out).
bool TapReachesInput(int64_t t, int64_t n, int64_t out, int64_t s, int64_t d, int64_t pad) {
  const int64_t first = t * d - pad;
  const int64_t last = first + (out - 1) * s;
  if (first >= n || last < 0) return false;
  // The first row at or past 0.
  const int64_t row = first >= 0 ? first : first + (-first + s - 1) / s * s;
  return row <= last && row < n;
}

bool PruneOne(PassContext& ctx, ir::Node* conv) {
  if (!IsOp(conv, "Conv") || conv->inputs().size() < 2 || conv->inputs()[0] == nullptr) {
    return false;
  }
  if (const ir::Attribute* a = conv->FindAttribute("auto_pad"); a != nullptr && a->s != "NOTSET") {
    return false;
  }
  const Tensor* w = ConstantOf(conv->inputs()[1]);
  if (w == nullptr || w->type() != DataType::kFloat || w->shape().rank() < 3) return false;
  const std::vector<int64_t>& wd = w->shape().dims();
  const size_t axes = wd.size() - 2;
  const infer::TensorFacts& fx = ctx.Facts(conv->inputs()[0]);
  if (!fx.shape || fx.shape->rank() != wd.size()) return false;
  const std::vector<int64_t> strides = IntsAttrOf(conv, "strides", std::vector<int64_t>(axes, 1));
  std::vector<int64_t> dilations = IntsAttrOf(conv, "dilations", std::vector<int64_t>(axes, 1));
  std::vector<int64_t> pads = IntsAttrOf(conv, "pads", std::vector<int64_t>(2 * axes, 0));
  const std::vector<int64_t> kernel = IntsAttrOf(conv, "kernel_shape", {wd.begin() + 2, wd.end()});
  if (strides.size() != axes || dilations.size() != axes || pads.size() != 2 * axes ||
      kernel != std::vector<int64_t>(wd.begin() + 2, wd.end())) {
    return false;
  }
  std::vector<int64_t> lo(axes), hi(axes);
  bool any = false;
  for (size_t a = 0; a < axes; ++a) {
    const int64_t n = fx.shape->dims()[2 + a];
    const int64_t k = wd[2 + a], s = strides[a], d = dilations[a];
    const int64_t begin = pads[a], end = pads[axes + a];
    if (n <= 0 || k <= 0 || s <= 0 || d <= 0 || begin < 0 || end < 0) return false;
    const int64_t out = (n + begin + end - d * (k - 1) - 1) / s + 1;
    if (out <= 0) return false;
    lo[a] = 0;
    hi[a] = k - 1;
    while (lo[a] < k && !TapReachesInput(lo[a], n, out, s, d, begin)) ++lo[a];
    if (lo[a] == k) return false;  // no tap reaches the input: left as it is (bias only)
    while (!TapReachesInput(hi[a], n, out, s, d, begin)) --hi[a];
    // The dropped taps' span comes off the pads; the output size is unchanged.
    const int64_t new_begin = begin - lo[a] * d, new_end = end - (k - 1 - hi[a]) * d;
    // A tap skipped over the map by a stride larger than it is dead without lying in the
    // padding: its span may exceed the pads, and then the axis is kept whole.
    if (new_begin < 0 || new_end < 0) {
      lo[a] = 0;
      hi[a] = k - 1;
      continue;
    }
    if (lo[a] == 0 && hi[a] == k - 1) continue;
    pads[a] = new_begin;
    pads[axes + a] = new_end;
    if (lo[a] == hi[a]) dilations[a] = 1;
    any = true;
  }
  if (!any) return false;

  std::vector<int64_t> dims(wd.begin(), wd.begin() + 2);
  for (size_t a = 0; a < axes; ++a) dims.push_back(hi[a] - lo[a] + 1);
  std::shared_ptr<Tensor> cut =
      Tensor::AllocateForOverwrite(DataType::kFloat, Shape(dims), CpuAllocator());
  const auto* src = static_cast<const float*>(w->data());
  auto* dst = static_cast<float*>(cut->data());
  // Row-major walk over the cut kernel; `at` maps each of its elements to the full kernel's.
  const size_t count = cut->element_count();
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (size_t j = 0; j < dims.size(); ++j) {
      at = at * wd[j] + index[j] + (j >= 2 ? lo[j - 2] : 0);
    }
    dst[i] = src[at];
    for (size_t j = dims.size(); j-- > 0;) {
      if (++index[j] < dims[j]) break;
      index[j] = 0;
    }
  }
  std::vector<ir::Value*> inputs = conv->inputs();
  inputs[1] = AddConstant(ctx.graph, conv->inputs()[1]->name() + "_live_taps", std::move(cut));
  std::vector<ir::Attribute> attrs;
  for (const ir::Attribute& a : conv->attributes()) {
    if (a.name != "pads" && a.name != "dilations" && a.name != "kernel_shape") attrs.push_back(a);
  }
  attrs.push_back(IntsAttr("pads", pads));
  attrs.push_back(IntsAttr("dilations", dilations));
  attrs.push_back(IntsAttr("kernel_shape", {dims.begin() + 2, dims.end()}));
  const int64_t opset = conv->opset();
  std::vector<ir::Value*> outputs = conv->outputs();
  Replace(ctx.graph, {conv}, "Conv", "", opset, std::move(inputs), std::move(outputs),
          std::move(attrs));
  return true;
}

}  // namespace

size_t PruneConvDeadTaps(PassContext& ctx) {
  return RewriteAll(ctx.graph, [&](ir::Node* n) { return PruneOne(ctx, n); });
}

}  // namespace kiln::optimizer
