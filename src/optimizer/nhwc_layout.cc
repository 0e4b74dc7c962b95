// Level 3: channels-last layout for 2-D convolution chains (and video's separable 5-D layers:
// nhwc_video.cc). Every float Conv/FusedConv with 4-D
// constant weights, and every 4-D MaxPool/AveragePool/GlobalAveragePool/GlobalMaxPool, becomes
// its ai.kiln Nhwc* form between two transposes: NCHW→NHWC before, NHWC→NCHW after. So do the
// quantized chains: QLinearConv (NhwcQLinearConv), an 8-bit MaxPool, com.microsoft
// QLinear(Global)AveragePool (channels_last), with QLinearAdd/QLinearMul/QLinearSigmoid/
// QLinearLeakyRelu, QLinearConcat and per-tensor QuantizeLinear/DequantizeLinear moved through.
// Then the NHWC→NCHW transposes are pushed down through ops that do not care about the layout
// (elementwise unary ops, binary ops whose other operands are in NHWC too or are constants,
// Concat, inference BatchNormalization as a Mul and an Add of constants, and the data movement of
// a channel shuffle: Reshape and Transpose that regroup only the channel axes, Slice, Split),
// and every transpose pair that cancels goes. What remains converts only at the chain's edges
// (the model's input, the flatten before a classifier, ...).
//
// Past rank 4 the channels-first value is [N, C1, ..., Ck, H, W] and its channels-last form
// [N, H, W, C1, ..., Ck] (ShuffleNet's [N, 2, C/2, H, W]): the transpose back is ToNchwPerm.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
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

// The permutation from [N, H, W, C1, ..., Ck] back to [N, C1, ..., Ck, H, W] at rank r = k + 3
// ≥ 4: (0, 3, ..., r - 1, 1, 2); kToNchw at rank 4.
std::vector<int64_t> ToNchwPerm(size_t rank) {
  std::vector<int64_t> p = {0};
  for (size_t a = 3; a < rank; ++a) p.push_back(static_cast<int64_t>(a));
  p.push_back(1);
  p.push_back(2);
  return p;
}

// The rank when n is a ToNchwPerm transpose, else 0.
size_t ToNchwRank(const ir::Node* n) {
  if (!IsOp(n, "Transpose")) return 0;
  const ir::Attribute* a = n->FindAttribute("perm");
  if (a == nullptr || a->ints.size() < 4) return 0;
  return a->ints == ToNchwPerm(a->ints.size()) ? a->ints.size() : 0;
}

// The perm of a transpose from a channels-last value back to channels-first, of either kind:
// ToNchwPerm (channel axes after H and W) or ToFirstPerm (one channel axis after the spatial ones:
// video's [N, D, H, W, C]); else empty. Axis a of the channels-first value is axis perm[a] of
// the channels-last one.
std::vector<int64_t> LayoutPerm(const ir::Node* n) {
  if (!IsOp(n, "Transpose")) return {};
  const ir::Attribute* a = n->FindAttribute("perm");
  if (a == nullptr || a->ints.size() < 4) return {};
  if (a->ints == ToNchwPerm(a->ints.size()) || a->ints == ToFirstPerm(a->ints.size())) {
    return a->ints;
  }
  return {};
}

bool IsRank4(const PassContext& ctx, const ir::Value* v) {
  const infer::TensorFacts& f = ctx.Facts(v);
  return f.type == DataType::kFloat && f.shape && f.shape->rank() == 4;
}

bool IsRank4Of(const PassContext& ctx, const ir::Value* v, DataType a, DataType b) {
  const infer::TensorFacts& f = ctx.Facts(v);
  return (f.type == a || f.type == b) && f.shape && f.shape->rank() == 4;
}

bool IsMsOp(const ir::Node* n, std::string_view op) {
  return n->domain() == "com.microsoft" && n->op_type() == op && !n->inputs().empty() &&
         n->inputs()[0] != nullptr && !n->outputs().empty() && n->outputs()[0] != nullptr;
}

// Step 1, quantized: a QLinearConv with constant 4-D 8-bit weights becomes ai.kiln
// NhwcQLinearConv, and com.microsoft QLinearAveragePool / QLinearGlobalAveragePool of a 4-D
// tensor their channels_last form, each between transposes of input 0 and of the output.
bool ConvertQuantizedNode(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  std::string op, domain;
  std::vector<ir::Attribute> attrs = n->attributes();
  if (IsOp(n, "QLinearConv") && n->outputs().size() == 1) {
    const Tensor* w = ConstantOf(n->inputs()[3]);
    if (w == nullptr || w->shape().rank() != 4 ||
        (w->type() != DataType::kInt8 && w->type() != DataType::kUint8)) {
      return false;
    }
    op = "NhwcQLinearConv";
    domain = kKilnDomain;
  } else if ((IsMsOp(n, "QLinearAveragePool") || IsMsOp(n, "QLinearGlobalAveragePool")) &&
             n->outputs().size() == 1 && IntAttrOf(n, "channels_last", 0) == 0) {
    op = n->op_type();
    domain = n->domain();
    std::erase_if(attrs, [](const ir::Attribute& a) { return a.name == "channels_last"; });
    attrs.push_back(IntAttr("channels_last", 1));
  } else {
    return false;
  }
  if (!IsRank4Of(ctx, n->inputs()[0], DataType::kUint8, DataType::kInt8)) return false;
  std::vector<ir::Value*> inputs = n->inputs();
  inputs[0] = AddTranspose(g, inputs[0], kToNhwc);
  ir::Value* out = n->outputs()[0];
  ir::Value* nhwc = g.AddValue(g.UniqueName(out->name() + "_nhwc"));
  Replace(g, {n}, op, domain, 1, std::move(inputs), {nhwc}, std::move(attrs));
  AddTranspose(g, nhwc, kToNchw, out);
  return true;
}

// Step 1: one layout-sensitive node into its NHWC form between transposes.
bool ConvertNode(PassContext& ctx, ir::Node* n, bool video) {
  ir::Graph& g = ctx.graph;
  std::string op;
  const bool is_conv = IsConvNode(n);
  if (ConvertQuantizedNode(ctx, n)) return true;
  if (is_conv) {
    const Tensor* w = n->inputs().size() > 1 ? ConstantOf(n->inputs()[1]) : nullptr;
    if (w != nullptr && w->shape().rank() == 5) return video && ConvertVideoNode(ctx, n);
    if (w == nullptr || w->type() != DataType::kFloat || w->shape().rank() != 4) return false;
    op = "NhwcConv";
  } else if (IsOp(n, "MaxPool") || IsOp(n, "AveragePool") || IsOp(n, "GlobalAveragePool") ||
             IsOp(n, "GlobalMaxPool")) {
    const infer::TensorFacts& f = ctx.Facts(n->inputs()[0]);
    if (f.shape && f.shape->rank() == 5) return video && ConvertVideoNode(ctx, n);
    // NhwcMaxPool also takes the 8-bit tensors of a quantized network.
    const bool bytes =
        IsOp(n, "MaxPool") && IsRank4Of(ctx, n->inputs()[0], DataType::kUint8, DataType::kInt8);
    if (n->outputs().size() != 1 || (!bytes && !IsRank4(ctx, n->inputs()[0]))) return false;
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

// The data inputs of a quantized op that does not care about the layout: com.microsoft
// QLinearAdd and QLinearMul (A and B: both must be in the same layout, no constant is permuted),
// QLinearSigmoid and QLinearLeakyRelu (and ai.kiln QLinearSwish), and QuantizeLinear /
// DequantizeLinear with one scale (x); empty for any other node. Their other inputs are the scales
// and zero points, constants.
std::vector<size_t> QuantizedDataInputs(const ir::Node* n) {
  if (IsMsOp(n, "QLinearAdd") || IsMsOp(n, "QLinearMul")) {
    if (n->inputs().size() < 4 || n->inputs()[3] == nullptr) return {};
    return {0, 3};
  }
  if (IsMsOp(n, "QLinearSigmoid") || IsMsOp(n, "QLinearLeakyRelu")) return {0};
  if (n->domain() == kKilnDomain && n->op_type() == "QLinearSwish") return {0};
  if ((IsOp(n, "QuantizeLinear") || IsOp(n, "DequantizeLinear")) && n->inputs().size() > 1) {
    const Tensor* scale = ConstantOf(n->inputs()[1]);
    if (scale != nullptr && scale->element_count() == 1 && IntAttrOf(n, "block_size", 0) == 0) {
      return {0};
    }
  }
  return {};
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
// the transpose moves after it. Unary ops at any rank; binary ops whose operands are all such
// transposes alike, or at rank 4 also constants (permuted to match).
bool PushThrough(PassContext& ctx, ir::Node* n) {
  ir::Graph& g = ctx.graph;
  const std::vector<size_t> quantized = QuantizedDataInputs(n);
  const bool unary = IsLayoutFreeUnary(n) || quantized == std::vector<size_t>{0};
  const bool binary = IsLayoutFreeBinary(n) || quantized.size() > 1;
  if ((!unary && !binary) || n->outputs().size() != 1 || n->inputs().empty()) return false;
  // Decide first, change nothing until the node is known to move (a permuted constant made for a
  // node that then stays would be left in the graph).
  std::vector<ir::Value*> inputs = n->inputs();
  std::vector<size_t> constants;  // inputs to permute
  std::vector<int64_t> perm;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ir::Value* in = inputs[i];
    if (in == nullptr) continue;
    const bool data_input =
        quantized.empty() ? !unary || i == 0
                          : std::find(quantized.begin(), quantized.end(), i) != quantized.end();
    std::vector<int64_t> p = LayoutPerm(in->producer());
    if (!p.empty() && (perm.empty() || p == perm)) {
      if (!data_input) return false;
      inputs[i] = in->producer()->inputs()[0];
      perm = std::move(p);
    } else if (data_input && binary && quantized.empty()) {
      if (!IsPermutableConstant(in)) return false;
      constants.push_back(i);
    } else if (data_input || ConstantOf(in) == nullptr) {
      // A data operand still in NCHW; or a non-data input (Clip's bounds) that is not a constant.
      return false;
    }
  }
  const bool nchw = std::equal(perm.begin(), perm.end(), kToNchw.begin(), kToNchw.end());
  if (perm.empty() || (!constants.empty() && !nchw)) return false;
  for (size_t i : constants) inputs[i] = PermuteConstant(g, inputs[i]);
  ir::Value* out = n->outputs()[0];
  ir::Value* nhwc = g.AddValue(g.UniqueName(out->name() + "_nhwc"));
  Replace(g, {n}, n->op_type(), n->domain(), n->opset(), std::move(inputs), {nhwc},
          n->attributes());
  AddTranspose(g, nhwc, perm, out);
  return true;
}

// Replaces `n` by the same op on its channels-last operands (`inputs`, `attrs`), each output
// then transposed back to channels-first by `perm` into the value the node wrote.
void MoveBefore(ir::Graph& g, ir::Node* n, std::vector<ir::Value*> inputs,
                std::vector<ir::Attribute> attrs, const std::vector<int64_t>& perm) {
  std::vector<ir::Value*> outs = n->outputs();
  std::vector<ir::Value*> nhwc;
  nhwc.reserve(outs.size());
  for (ir::Value* o : outs) nhwc.push_back(g.AddValue(g.UniqueName(o->name() + "_nhwc")));
  Replace(g, {n}, n->op_type(), n->domain(), n->opset(), std::move(inputs), nhwc, std::move(attrs));
  for (size_t i = 0; i < outs.size(); ++i) AddTranspose(g, nhwc[i], perm, outs[i]);
}

// The channels-last operand behind input 0 when it is a LayoutPerm transpose (`perm` set), and
// every output is present.
ir::Value* ChannelsLastInput(const ir::Node* n, std::vector<int64_t>& perm) {
  if (n->inputs().empty() || n->inputs()[0] == nullptr || n->outputs().empty()) return nullptr;
  for (const ir::Value* o : n->outputs()) {
    if (o == nullptr) return nullptr;
  }
  perm = LayoutPerm(n->inputs()[0]->producer());
  return perm.empty() ? nullptr : n->inputs()[0]->producer()->inputs()[0];
}

// The axis attribute normalized to [0, rank), or nullopt when out of range.
std::optional<int64_t> AxisOf(const ir::Node* n, int64_t fallback, size_t rank) {
  int64_t a = IntAttrOf(n, "axis", fallback);
  const auto r = static_cast<int64_t>(rank);
  if (a < 0) a += r;
  if (a < 0 || a >= r) return std::nullopt;
  return a;
}

std::vector<ir::Attribute> WithAxis(const ir::Node* n, int64_t axis) {
  std::vector<ir::Attribute> attrs;
  for (const ir::Attribute& a : n->attributes()) {
    if (a.name != "axis") attrs.push_back(a);
  }
  attrs.push_back(IntAttr("axis", axis));
  return attrs;
}

// Step 2c: Concat (on any axis) of channels-first values that are all the same kind of
// transpose of channels-last ones; and com.microsoft QLinearConcat, whose data inputs are 2, 5,
// 8, ... (each followed by its scale and zero point).
bool PushConcat(ir::Graph& g, ir::Node* n) {
  const bool quantized = IsMsOp(n, "QLinearConcat");
  if ((!quantized && !IsOp(n, "Concat")) || n->outputs().size() != 1) return false;
  std::vector<ir::Value*> inputs = n->inputs();
  const size_t first = quantized ? 2 : 0, step = quantized ? 3 : 1;
  if (inputs.size() < first + step) return false;  // QLinearConcat: one whole triple at least
  std::vector<int64_t> perm;
  for (size_t i = first; i < inputs.size(); i += step) {
    ir::Value*& in = inputs[i];
    std::vector<int64_t> p = in != nullptr ? LayoutPerm(in->producer()) : std::vector<int64_t>{};
    if (p.empty() || (!perm.empty() && p != perm)) return false;
    perm = std::move(p);
    in = in->producer()->inputs()[0];
  }
  const std::optional<int64_t> axis = AxisOf(n, 0, perm.size());
  if (!axis) return false;
  MoveBefore(g, n, std::move(inputs), WithAxis(n, perm[static_cast<size_t>(*axis)]), perm);
  return true;
}

// Whether two dimensions are equal in every run: the same size, or the same symbol.
bool SameDim(int64_t a, int64_t b) {
  return infer::IsNamedDim(a) && a == b;
}

// Step 2d: Reshape that keeps N first and H, W last and regroups only the channel axes between
// them (ShuffleNet's [N, C, H, W] → [N, g, C/g, H, W] and back) does the same to the
// channels-last value's trailing channel axes.
bool PushReshape(PassContext& ctx, ir::Node* n) {
  std::vector<int64_t> perm;
  if (!IsOp(n, "Reshape") || n->opset() < 5 || n->outputs().size() != 1) return false;
  ir::Value* y = ChannelsLastInput(n, perm);
  const size_t rank = perm.size();
  if (y == nullptr || perm != ToNchwPerm(rank)) return false;
  const infer::TensorFacts& in = ctx.Facts(n->inputs()[0]);
  const infer::TensorFacts& out = ctx.Facts(n->outputs()[0]);
  if (!in.shape || !out.shape || in.shape->rank() != rank || out.shape->rank() < 4) return false;
  const std::vector<int64_t>& d = in.shape->dims();
  const std::vector<int64_t>& e = out.shape->dims();
  const size_t r = e.size();
  if (!SameDim(d[0], e[0]) || d[rank - 2] < 0 || d[rank - 1] < 0 || e[r - 2] != d[rank - 2] ||
      e[r - 1] != d[rank - 1]) {
    return false;
  }
  // [N (0: copied from the input), H, W, the output's channel axes].
  std::vector<int64_t> target = {d[0] >= 0 ? d[0] : 0, d[rank - 2], d[rank - 1]};
  for (size_t a = 1; a + 2 < r; ++a) {
    if (e[a] < 0) return false;
    target.push_back(e[a]);
  }
  if (d[0] == 0) return false;  // 0 would mean "copy" in the target
  ir::Value* shape = IntsConstant(ctx.graph, n->name() + "_nhwc_shape", target, nullptr);
  MoveBefore(ctx.graph, n, {y, shape}, {}, ToNchwPerm(r));
  return true;
}

// Step 2e: Transpose that keeps N, H and W in place and permutes only the channel axes.
bool PushTransposeOfChannels(ir::Graph& g, ir::Node* n) {
  std::vector<int64_t> perm;
  if (!IsOp(n, "Transpose") || n->outputs().size() != 1) return false;
  ir::Value* y = ChannelsLastInput(n, perm);
  const size_t rank = perm.size();
  const ir::Attribute* a = n->FindAttribute("perm");
  if (y == nullptr || perm != ToNchwPerm(rank) || a == nullptr || a->ints.size() != rank) {
    return false;
  }
  const std::vector<int64_t>& p = a->ints;
  const auto r = static_cast<int64_t>(rank);
  if (p[0] != 0 || p[rank - 2] != r - 2 || p[rank - 1] != r - 1) return false;
  std::vector<int64_t> q = {0, 1, 2};
  for (size_t i = 1; i + 2 < rank; ++i) {
    if (p[i] < 1 || p[i] > r - 3) return false;
    q.push_back(p[i] + 2);
  }
  MoveBefore(g, n, {y}, {IntsAttr("perm", q)}, perm);
  return true;
}

// Step 2f: Slice with constant axes (and starts, ends, steps of any kind), and Split.
bool PushSliceOrSplit(ir::Graph& g, ir::Node* n) {
  std::vector<int64_t> perm;
  if (IsOp(n, "Split")) {
    ir::Value* y = ChannelsLastInput(n, perm);
    const std::optional<int64_t> axis = y != nullptr ? AxisOf(n, 0, perm.size()) : std::nullopt;
    if (!axis) return false;
    std::vector<ir::Value*> inputs = n->inputs();
    inputs[0] = y;
    MoveBefore(g, n, std::move(inputs), WithAxis(n, perm[static_cast<size_t>(*axis)]), perm);
    return true;
  }
  if (!IsOp(n, "Slice") || n->outputs().size() != 1 || n->opset() < 10) return false;
  ir::Value* y = ChannelsLastInput(n, perm);
  if (y == nullptr) return false;
  const size_t rank = perm.size();
  std::vector<ir::Value*> inputs = n->inputs();
  const Tensor* starts = ConstantOf(inputs[1]);
  std::vector<int64_t> axes;
  if (inputs.size() > 3 && inputs[3] != nullptr) {
    std::optional<std::vector<int64_t>> given = IntsOf(inputs[3]);
    if (!given) return false;
    axes = *given;
  } else {
    // All of starts' axes, in order: its length must be known.
    const std::optional<std::vector<int64_t>> s = IntsOf(inputs[1]);
    if (!s) return false;
    for (size_t i = 0; i < s->size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  for (int64_t& a : axes) {
    if (a < 0) a += static_cast<int64_t>(rank);
    if (a < 0 || a >= static_cast<int64_t>(rank)) return false;
    a = perm[static_cast<size_t>(a)];
  }
  inputs[0] = y;
  const Tensor* like = inputs.size() > 3 && inputs[3] != nullptr ? ConstantOf(inputs[3]) : starts;
  ir::Value* mapped = IntsConstant(g, n->name() + "_nhwc_axes", axes, like);
  if (inputs.size() < 4) inputs.resize(4, nullptr);
  inputs[3] = mapped;
  MoveBefore(g, n, std::move(inputs), n->attributes(), perm);
  return true;
}

// Step 2g: a reduction (ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare, ReduceLogSumExp) over constant axes: over the same axes of the
// channels-last value. With keepdims the result is transposed back as before; without, the
// axes left must keep their order (MnasNet's and ShuffleNet's mean over H and W: [N, C] either
// way), and then the result needs no transpose at all.
bool PushReduce(ir::Graph& g, ir::Node* n) {
  bool reduce = false;
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"}) {
    reduce = reduce || IsOp(n, op);
  }
  if (!reduce || n->outputs().size() != 1) return false;
  std::vector<int64_t> perm;
  ir::Value* y = ChannelsLastInput(n, perm);
  if (y == nullptr) return false;
  const size_t rank = perm.size();
  // The axes: an attribute, or input 1 (ReduceSum 13+, the others 18+).
  const bool axes_input = n->inputs().size() > 1 && n->inputs()[1] != nullptr;
  std::vector<int64_t> axes;
  if (axes_input) {
    const std::optional<std::vector<int64_t>> given = IntsOf(n->inputs()[1]);
    if (!given) return false;
    axes = *given;
  } else if (const ir::Attribute* a = n->FindAttribute("axes"); a != nullptr) {
    axes = a->ints;
  }
  if (axes.empty()) return false;  // all axes, or none (noop_with_empty_axes)
  std::vector<bool> reduced(rank, false);
  for (int64_t& a : axes) {
    if (a < 0) a += static_cast<int64_t>(rank);
    if (a < 0 || a >= static_cast<int64_t>(rank) || reduced[static_cast<size_t>(a)]) return false;
    reduced[static_cast<size_t>(a)] = true;
    a = perm[static_cast<size_t>(a)];
  }
  const bool keepdims = IntAttrOf(n, "keepdims", 1) != 0;
  if (!keepdims) {
    // The axes kept, in channels-first order, must be in channels-last order too.
    int64_t last = -1;
    for (size_t a = 0; a < rank; ++a) {
      if (reduced[a]) continue;
      if (perm[a] < last) return false;
      last = perm[a];
    }
  }
  std::vector<ir::Value*> inputs = n->inputs();
  inputs[0] = y;
  std::vector<ir::Attribute> attrs;
  for (const ir::Attribute& a : n->attributes()) {
    if (a.name != "axes") attrs.push_back(a);
  }
  if (axes_input) {
    inputs[1] = IntsConstant(g, n->name() + "_nhwc_axes", axes, ConstantOf(n->inputs()[1]));
  } else {
    attrs.push_back(IntsAttr("axes", axes));
  }
  if (keepdims) {
    MoveBefore(g, n, std::move(inputs), std::move(attrs), perm);
  } else {
    Replace(g, {n}, n->op_type(), n->domain(), n->opset(), std::move(inputs), n->outputs(),
            std::move(attrs));
  }
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

// The perm attribute when it is a permutation of its length, else nullptr (the default, reversed
// axes, included: the rank is not known here).
const std::vector<int64_t>* PermOf(const ir::Node* n) {
  const ir::Attribute* a = n->FindAttribute("perm");
  if (a == nullptr || a->ints.empty()) return nullptr;
  std::vector<bool> seen(a->ints.size(), false);
  for (int64_t p : a->ints) {
    if (p < 0 || p >= static_cast<int64_t>(seen.size()) || seen[static_cast<size_t>(p)]) {
      return nullptr;
    }
    seen[static_cast<size_t>(p)] = true;
  }
  return &a->ints;
}

// Step 3: a Transpose of a Transpose of x is x when the two cancel (NHWC to NCHW and back; a
// detection head's view [N, A, K, H, W] permuted by (0, 3, 4, 1, 2), which is its channels-last
// form), else one Transpose, perm q[i] = inner[outer[i]], when nothing else reads the inner one.
// Not when the outer one permutes only the channel axes of a ToNchwPerm transpose: step 2e moves
// that one into channels-last, where what follows it can go on.
bool ComposeTransposes(PassContext& ctx, ir::Node* n) {
  if (!IsOp(n, "Transpose") || n->outputs().size() != 1) return false;
  ir::Node* p = n->inputs()[0]->producer();
  if (!IsOp(p, "Transpose")) return false;
  const std::vector<int64_t>* outer = PermOf(n);
  const std::vector<int64_t>* inner = PermOf(p);
  if (outer == nullptr || inner == nullptr || outer->size() != inner->size()) return false;
  std::vector<int64_t> q(outer->size());
  bool identity = true;
  for (size_t i = 0; i < q.size(); ++i) {
    q[i] = (*inner)[static_cast<size_t>((*outer)[i])];
    identity = identity && q[i] == static_cast<int64_t>(i);
  }
  ir::Graph& g = ctx.graph;
  if (identity) {
    if (!g.ReplaceUses(n->outputs()[0], p->inputs()[0])) return false;
    g.RemoveNode(n);
    return true;
  }
  const size_t rank = ToNchwRank(p);
  const auto r = static_cast<int64_t>(rank);
  if (rank != 0 && (*outer)[0] == 0 && (*outer)[rank - 2] == r - 2 && (*outer)[rank - 1] == r - 1) {
    return false;
  }
  if (OnlyConsumer(g, p->outputs()[0]) != n) return false;
  Replace(g, {n}, "Transpose", "", n->opset(), {p->inputs()[0]}, {n->outputs()[0]},
          {IntsAttr("perm", q)});
  return true;
}

}  // namespace

size_t ConvertToNhwc(PassContext& ctx) {
  ir::Graph& g = ctx.graph;
  for (const char* op : {"NhwcConv", "NhwcMaxPool", "NhwcAveragePool", "NhwcGlobalAveragePool",
                         "NhwcGlobalMaxPool"}) {
    if (!ctx.registry.Knows(kKilnDomain, op)) return 0;  // a registry without the layout's ops
  }
  const bool video = HasFactoredVideoConv(g);
  const size_t converted = RewriteAll(g, [&](ir::Node* n) { return ConvertNode(ctx, n, video); });
  if (converted == 0) return 0;
  for (bool again = true; again;) {
    again = RewriteAll(g, [&](ir::Node* n) { return ComposeTransposes(ctx, n); }) > 0;
    again = RewriteAll(g, [&](ir::Node* n) { return BatchNormAsAffine(ctx, n); }) > 0 || again;
    again = RewriteAll(g, [&](ir::Node* n) { return PushThrough(ctx, n); }) > 0 || again;
    again = RewriteAll(g,
                       [&](ir::Node* n) {
                         return PushConcat(g, n) || PushReshape(ctx, n) ||
                                PushTransposeOfChannels(g, n) || PushSliceOrSplit(g, n) ||
                                PushReduce(g, n);
                       }) > 0 ||
            again;
  }
  EliminateDeadCode(ctx);
  return converted;
}

}  // namespace kiln::optimizer
