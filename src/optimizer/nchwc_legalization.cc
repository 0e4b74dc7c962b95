#include "optimizer/nchwc_legalization.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "kernels/domains.h"
#include "optimizer/nhwc_pattern.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr const char* kNchwcDomain = "com.microsoft.nchwc";

bool IsNchwc(const ir::Node* n, const KernelRegistry& registry) {
  return n->domain() == kNchwcDomain &&
         registry.Find(n->domain(), n->op_type(), n->opset()) == nullptr;
}

bool HasNchwc(const ir::Graph& g, const KernelRegistry& registry) {
  for (const auto& n : g.nodes()) {
    if (IsNchwc(n.get(), registry)) return true;
    for (const ir::Attribute& a : n->attributes()) {
      if (a.g != nullptr && HasNchwc(*a.g, registry)) return true;
      for (const auto& sg : a.graphs) {
        if (sg != nullptr && HasNchwc(*sg, registry)) return true;
      }
    }
  }
  return false;
}

[[noreturn]] void Fail(ErrorCode code, const ir::Node* n, const std::string& what) {
  throw Error(code, n->Describe() + ": " + what);
}

std::string Str(int64_t v) {
  return std::to_string(v);
}

int64_t RoundUp(int64_t c, int64_t block) {
  return (c + block - 1) / block * block;
}

// The declared size of dimension `axis` of a 4-D value, or -1.
int64_t DeclaredDim(const ir::Value* v, size_t axis) {
  const auto& shape = v->type().shape;
  if (!shape || shape->rank() != 4) return -1;
  return shape->dims()[axis];
}

// The filter's element order (nchwc_legalization.h).
enum class Filter { kBlockedInput, kDepthwise, kPlainInput };

Filter FilterOrder(int64_t ig, int64_t og, int64_t block) {
  if (ig >= block) return Filter::kBlockedInput;
  if (ig == 1 && og == 1) return Filter::kDepthwise;
  return Filter::kPlainInput;
}

struct ConvShape {
  const Tensor* w = nullptr;
  int64_t out = 0;  // Op: output channels, padded
  int64_t in = 0;   // Ig: input channels per group
  int64_t group = 1;
};

// What the Conv node holds, checked (nothing here depends on the block size).
ConvShape ReadConv(const ir::Node* n) {
  if (n->inputs().size() < 2 || n->inputs()[0] == nullptr || n->inputs()[1] == nullptr) {
    Fail(ErrorCode::kInvalidGraph, n, "needs inputs 'X' and 'W'");
  }
  ConvShape c;
  c.w = ConstantOf(n->inputs()[1]);
  if (c.w == nullptr || c.w->type() != DataType::kFloat || c.w->shape().rank() != 4) {
    Fail(ErrorCode::kInvalidGraph, n,
         "its filter '" + n->inputs()[1]->name() +
             "' is not a constant float 4-D tensor; ONNX Runtime's blocked filter order can "
             "only be undone on one");
  }
  c.out = c.w->shape().dims()[0];
  c.in = c.w->shape().dims()[1];
  c.group = IntAttrOf(n, "group", 1);
  if (c.group < 1 || c.out % c.group != 0 || c.out == 0 || c.in == 0) {
    Fail(ErrorCode::kInvalidGraph, n,
         "its filter of shape " + c.w->shape().ToString() + " does not split into " + Str(c.group) +
             " groups");
  }
  return c;
}

struct ActivationAttrs {
  std::string name;  // as FusedConv takes it; empty for none
  std::vector<float> params;
};

// The activation ONNX Runtime's nchwc Conv applies (its GetFusedActivationAttr).
ActivationAttrs ReadActivation(const ir::Node* n) {
  ActivationAttrs a;
  const ir::Attribute* act = n->FindAttribute("activation");
  if (act == nullptr) return a;
  const ir::Attribute* params = n->FindAttribute("activation_params");
  size_t count = 0;
  if (act->s == "Relu" || act->s == "Tanh" || act->s == "Sigmoid" || act->s == "HardSwish") {
    a.name = act->s;
    return a;
  }
  if (act->s == "Silu") {
    a.name = "Swish";  // x * sigmoid(x), as FusedConv names it
    return a;
  }
  if (act->s == "LeakyRelu") {
    count = 1;
  } else if (act->s == "Clip" || act->s == "HardSigmoid") {
    count = 2;
  } else {
    Fail(
        ErrorCode::kNotImplemented, n,
        "attribute 'activation' is '" + act->s +
            "'; ONNX Runtime's NCHWc Conv applies Relu, Tanh, Sigmoid, HardSwish, Silu, LeakyRelu, "
            "Clip or HardSigmoid");
  }
  if (params == nullptr || params->floats.size() != count) {
    Fail(ErrorCode::kInvalidGraph, n,
         "activation '" + act->s + "' takes " + Str(static_cast<int64_t>(count)) +
             " values in attribute 'activation_params'; it has " +
             Str(params == nullptr ? 0 : static_cast<int64_t>(params->floats.size())));
  }
  a.name = act->s;
  a.params = params->floats;
  return a;
}

struct UpsampleAttrs {
  int64_t scale_h = 1;
  int64_t scale_w = 1;
  bool linear = false;
  std::string coordinates;  // Resize's coordinate_transformation_mode
};

UpsampleAttrs ReadUpsample(const ir::Node* n) {
  UpsampleAttrs u;
  const std::vector<int64_t> scales = IntsAttrOf(n, "scales", {});
  if (scales.size() != 4 || scales[0] != 1 || scales[1] != 1 || scales[2] < 1 || scales[3] < 1) {
    Fail(ErrorCode::kInvalidGraph, n,
         "attribute 'scales' must be 4 integers [1, 1, sh, sw] with sh, sw >= 1");
  }
  u.scale_h = scales[2];
  u.scale_w = scales[3];
  const ir::Attribute* mode = n->FindAttribute("mode");
  const std::string m = mode != nullptr ? mode->s : "nearest";
  if (m == "nearest") {
    u.coordinates = "asymmetric";  // MLAS repeats each pixel, whatever the attribute says
    return u;
  }
  if (m != "linear") {
    Fail(ErrorCode::kNotImplemented, n,
         "attribute 'mode' is '" + m + "'; ONNX Runtime's NCHWc Upsample is nearest or linear");
  }
  u.linear = true;
  const ir::Attribute* ctm = n->FindAttribute("coordinate_transformation_mode");
  u.coordinates = ctm != nullptr ? ctm->s : "asymmetric";
  if (u.coordinates != "asymmetric" && u.coordinates != "align_corners" &&
      u.coordinates != "half_pixel") {
    Fail(ErrorCode::kNotImplemented, n,
         "attribute 'coordinate_transformation_mode' is '" + u.coordinates +
             "'; ONNX Runtime writes linear NCHWc Upsample with asymmetric, align_corners or "
             "half_pixel only");
  }
  return u;
}

// Checks what a node holds whatever the block size; throws naming it.
void CheckNode(const ir::Node* n) {
  const std::string& op = n->op_type();
  if (n->outputs().empty() || n->outputs()[0] == nullptr) {
    Fail(ErrorCode::kInvalidGraph, n, "has no output");
  }
  if (op != "Conv" && (n->inputs().empty() || n->inputs()[0] == nullptr)) {
    Fail(ErrorCode::kInvalidGraph, n, "needs input 'X'");
  }
  if (op == "Conv") {
    ReadConv(n);
    ReadActivation(n);
  } else if (op == "ReorderOutput") {
    if (IntAttrOf(n, "channels", 0) <= 0) {
      Fail(ErrorCode::kInvalidGraph, n, "attribute 'channels' must be positive");
    }
  } else if (op == "Upsample") {
    ReadUpsample(n);
  } else if (op == "ReorderInput") {
    const auto& shape = n->inputs()[0]->type().shape;
    if (shape && shape->rank() != 4) {
      Fail(ErrorCode::kInvalidGraph, n,
           "its input '" + n->inputs()[0]->name() + "' has rank " +
               Str(static_cast<int64_t>(shape->rank())) + "; ONNX Runtime's NCHWc layout is 4-D");
    }
  } else if (op != "MaxPool" && op != "AveragePool" && op != "GlobalMaxPool" &&
             op != "GlobalAveragePool") {
    Fail(ErrorCode::kNotImplemented, n,
         "op " + op +
             " of domain com.microsoft.nchwc (ONNX Runtime's NCHWc layout) has no "
             "equivalent here; Kiln reads ReorderInput, ReorderOutput, Conv, MaxPool, "
             "AveragePool, GlobalMaxPool, GlobalAveragePool and Upsample");
  }
}

// Ops ONNX Runtime leaves between nchwc nodes whose output has the shape of their (blocked)
// input: the padded channel count carries over.
bool KeepsShape(const ir::Node* n) {
  static const std::unordered_set<std::string> kOps = {
      "Add",  "Sum",      "Mul",       "Sub",       "Div",     "Max",         "Min",
      "Relu", "Sigmoid",  "Tanh",      "LeakyRelu", "Clip",    "HardSigmoid", "HardSwish",
      "Elu",  "Identity", "QuickGelu", "Gelu",      "FastGelu"};
  return kOps.count(n->op_type()) != 0 &&
         (n->domain().empty() || n->domain() == "ai.onnx" || n->domain() == kMicrosoftDomain);
}

// One graph to rewrite: its nodes in order, and the values that hold blocked tensors.
struct GraphWork {
  ir::Graph* g = nullptr;
  std::vector<ir::Node*> order;
  std::unordered_set<const ir::Value*> blocked;
  // The padded channel count of blocked values where it is known, for the block size last checked.
  std::unordered_map<const ir::Value*, int64_t> padded;

  int64_t Padded(const ir::Value* v) const {
    auto it = padded.find(v);
    return it == padded.end() ? -1 : it->second;
  }
};

// Why the graphs do not fit block size `block` ("" when they do), naming the first node that
// contradicts it; fills each work's `padded`.
std::string Contradiction(std::vector<GraphWork>& works, const KernelRegistry& registry,
                          int64_t block) {
  const std::string size = "the NCHWc block size " + Str(block);
  for (GraphWork& w : works) {
    w.padded.clear();
    for (const ir::Node* n : w.order) {
      const ir::Value* x = n->inputs().empty() ? nullptr : n->inputs()[0];
      ir::Value* y = n->outputs().empty() ? nullptr : n->outputs()[0];
      if (!IsNchwc(n, registry)) {
        if (y == nullptr) continue;
        if (KeepsShape(n)) {
          for (const ir::Value* in : n->inputs()) {
            if (in != nullptr && w.Padded(in) >= 0) {
              w.padded[y] = w.Padded(in);
              break;
            }
          }
        } else if (n->op_type() == "Concat" && n->domain().empty() &&
                   (IntAttrOf(n, "axis", 0) == 1 || IntAttrOf(n, "axis", 0) == -3)) {
          int64_t total = 0;
          for (const ir::Value* in : n->inputs()) {
            const int64_t c = in != nullptr ? w.Padded(in) : -1;
            total = c >= 0 && total >= 0 ? total + c : -1;
          }
          if (total > 0) w.padded[y] = total;
        }
        continue;
      }
      const std::string& op = n->op_type();
      if (op == "ReorderInput") {
        const bool last = IntAttrOf(n, "channels_last", 0) != 0;
        const int64_t c = DeclaredDim(x, last ? 3 : 1);
        if (c > 0) w.padded[y] = RoundUp(c, block);
      } else if (op == "ReorderOutput") {
        const int64_t channels = IntAttrOf(n, "channels", 0);
        const int64_t cp = w.Padded(x);
        if (cp < 0) continue;
        if (cp % block != 0) {
          return n->Describe() + ": its input has " + Str(cp) + " channels, not a multiple of " +
                 size;
        }
        if (channels > cp || cp - channels >= block) {
          return n->Describe() + ": it keeps " + Str(channels) + " of " + Str(cp) +
                 " channels; with " + size + " they would be padded to " +
                 Str(RoundUp(channels, block));
        }
      } else if (op == "Conv") {
        const ConvShape c = ReadConv(n);
        const int64_t og = c.out / c.group;
        const Filter order = FilterOrder(c.in, og, block);
        const bool blocked = w.blocked.count(x) != 0;
        if (c.out % block != 0) {
          return n->Describe() + ": its filter has " + Str(c.out) +
                 " output channels, not a multiple of " + size;
        }
        if (order == Filter::kBlockedInput && c.in % block != 0) {
          return n->Describe() + ": its filter has " + Str(c.in) +
                 " input channels per group, at least " + size + " but not a multiple of it";
        }
        if (order != Filter::kDepthwise && c.group > 1 && og % block != 0) {
          return n->Describe() + ": its " + Str(c.group) + " groups have " + Str(og) +
                 " output channels each, not a multiple of " + size;
        }
        if (order == Filter::kPlainInput && blocked) {
          return n->Describe() + ": with " + Str(c.in) + " input channels per group, fewer than " +
                 size + ", it would read plain NCHW input, but '" + x->name() +
                 "' is in the blocked layout";
        }
        if (order != Filter::kPlainInput && !blocked) {
          return n->Describe() + ": with " + Str(c.in) + " input channels per group and " + size +
                 " it would read blocked input, but '" + x->name() + "' is plain NCHW";
        }
        const int64_t cin = blocked ? w.Padded(x) : DeclaredDim(x, 1);
        if (cin >= 0 && cin != c.in * c.group) {
          return n->Describe() + ": it reads " + Str(cin) + " channels (with " + size +
                 "), but its filter has " + Str(c.in) + " input channels per group and " +
                 Str(c.group) + " groups";
        }
        w.padded[y] = c.out;
      } else {  // pools and Upsample: per channel
        const int64_t cp = w.Padded(x);
        if (cp < 0) continue;
        if (cp % block != 0) {
          return n->Describe() + ": its input has " + Str(cp) + " channels, not a multiple of " +
                 size;
        }
        w.padded[y] = cp;
      }
    }
  }
  return "";
}

// Undoes ONNX Runtime's filter order (MlasReorderFilterOIHWBiBo / MlasReorderFilterOIHWBo): W
// [Op, Ig, KH, KW] in OIHW order.
std::shared_ptr<Tensor> UnblockFilter(const Tensor& w, bool blocked_input, int64_t block) {
  const auto& d = w.shape().dims();
  const int64_t out = d[0];
  const int64_t in = d[1];
  const int64_t taps = d[2] * d[3];
  std::vector<float> oihw(static_cast<size_t>(out * in * taps));
  const float* s = static_cast<const float*>(w.data());
  for (int64_t ob = 0; ob < out / block; ++ob) {
    if (blocked_input) {
      for (int64_t ib = 0; ib < in / block; ++ib) {
        for (int64_t k = 0; k < taps; ++k) {
          for (int64_t bi = 0; bi < block; ++bi) {
            for (int64_t bo = 0; bo < block; ++bo) {
              oihw[static_cast<size_t>(((ob * block + bo) * in + ib * block + bi) * taps + k)] =
                  *s++;
            }
          }
        }
      }
    } else {
      for (int64_t i = 0; i < in; ++i) {
        for (int64_t k = 0; k < taps; ++k) {
          for (int64_t bo = 0; bo < block; ++bo) {
            oihw[static_cast<size_t>(((ob * block + bo) * in + i) * taps + k)] = *s++;
          }
        }
      }
    }
  }
  return FloatTensor(std::vector<int64_t>(d.begin(), d.end()), oihw);
}

class Rewriter {
 public:
  Rewriter(GraphWork& work, int64_t block, int64_t onnx_opset)
      : w_(work), g_(*work.g), block_(block), onnx_opset_(onnx_opset) {}

  void Run(const KernelRegistry& registry) {
    std::vector<ir::Node*> nodes;
    for (ir::Node* n : w_.order) {
      if (IsNchwc(n, registry)) nodes.push_back(n);
    }
    std::vector<std::string> filters;
    for (ir::Node* n : nodes) {
      const std::string op = n->op_type();
      if (op == "ReorderInput") {
        ReorderInput(n);
      } else if (op == "ReorderOutput") {
        ReorderOutput(n);
      } else if (op == "Conv") {
        filters.push_back(n->inputs()[1]->name());
        Conv(n);
      } else if (op == "Upsample") {
        Upsample(n);
      } else {
        Pool(n);
      }
    }
    // The blocked filters nothing reads any more.
    for (const std::string& name : filters) {
      ir::Value* f = g_.FindValue(name);
      if (f == nullptr || g_.IsUsed(f) || f->producer() != nullptr) continue;
      if (std::find(g_.inputs().begin(), g_.inputs().end(), f) != g_.inputs().end()) continue;
      g_.RemoveValue(f);
    }
  }

 private:
  int64_t Opset(int64_t needed) const { return std::max(onnx_opset_, needed); }

  // A default-domain node named after `n` reading `inputs`, writing a new value.
  ir::Value* Step(const ir::Node* n, const std::string& op, int64_t opset,
                  std::vector<ir::Value*> inputs, std::vector<ir::Attribute> attrs = {}) {
    ir::Value* out = g_.AddValue(g_.UniqueName(n->name() + "/" + op));
    ir::Node* s = g_.AddNode(n->name() + "/" + op, op, "");
    s->set_opset(opset);
    s->attributes() = std::move(attrs);
    g_.Connect(s, std::move(inputs), {out});
    return out;
  }

  ir::Value* Ints(const ir::Node* n, const std::vector<int64_t>& v) {
    return IntsConstant(g_, g_.UniqueName(n->name() + "_ints"), v, nullptr);
  }

  // Replaces `n` by op(inputs) writing n's output.
  void Become(ir::Node* n, const std::string& op, int64_t opset, std::vector<ir::Value*> inputs,
              std::vector<ir::Attribute> attrs = {}) {
    Replace(g_, {n}, op, "", opset, std::move(inputs), {n->outputs()[0]}, std::move(attrs));
  }

  // Replaces `n` by its input `x`: n's readers read x (an Identity where they cannot).
  void Alias(ir::Node* n, ir::Value* x) {
    ir::Value* y = n->outputs()[0];
    if (g_.ReplaceUses(y, x)) {
      g_.RemoveNode(n);
      g_.RemoveValue(y);
      return;
    }
    Become(n, "Identity", Opset(13), {x});
  }

  void ReorderInput(ir::Node* n) {
    ir::Value* x = n->inputs()[0];
    const bool last = IntAttrOf(n, "channels_last", 0) != 0;
    const ir::Attribute to_nchw = IntsAttr("perm", {0, 3, 1, 2});
    const int64_t c = DeclaredDim(x, last ? 3 : 1);
    if (c > 0 && RoundUp(c, block_) == c) {  // nothing to pad
      if (last) {
        Become(n, "Transpose", Opset(13), {x}, {to_nchw});
      } else {
        Alias(n, x);
      }
      return;
    }
    ir::Value* v = last ? Step(n, "Transpose", Opset(13), {x}, {to_nchw}) : x;
    ir::Value* pads = nullptr;
    if (c > 0) {
      pads = Ints(n, {0, 0, 0, 0, 0, RoundUp(c, block_) - c, 0, 0});
    } else {  // C known at run time: pad by (C + B - 1) / B * B - C
      ir::Value* cs = Step(n, "Shape", Opset(15), {v}, {IntAttr("start", 1), IntAttr("end", 2)});
      ir::Value* b = Ints(n, {block_});
      ir::Value* up = Step(n, "Add", Opset(13), {cs, Ints(n, {block_ - 1})});
      ir::Value* rounded = Step(n, "Mul", Opset(13), {Step(n, "Div", Opset(13), {up, b}), b});
      ir::Value* pad = Step(n, "Sub", Opset(13), {rounded, cs});
      pads = Step(n, "Concat", Opset(13), {Ints(n, {0, 0, 0, 0, 0}), pad, Ints(n, {0, 0})},
                  {IntAttr("axis", 0)});
    }
    Become(n, "Pad", Opset(13), {v, pads});
  }

  void ReorderOutput(ir::Node* n) {
    ir::Value* x = n->inputs()[0];
    const int64_t channels = IntAttrOf(n, "channels", 0);
    const bool slice = w_.Padded(x) != channels;
    const bool last = IntAttrOf(n, "channels_last", 0) != 0;
    const ir::Attribute to_nhwc = IntsAttr("perm", {0, 2, 3, 1});
    std::vector<ir::Value*> slice_inputs;
    if (slice) slice_inputs = {x, Ints(n, {0}), Ints(n, {channels}), Ints(n, {1})};
    if (slice && last) {
      Become(n, "Transpose", Opset(13), {Step(n, "Slice", Opset(13), slice_inputs)}, {to_nhwc});
    } else if (slice) {
      Become(n, "Slice", Opset(13), slice_inputs);
    } else if (last) {
      Become(n, "Transpose", Opset(13), {x}, {to_nhwc});
    } else {
      Alias(n, x);
    }
  }

  void Conv(ir::Node* n) {
    const ConvShape c = ReadConv(n);
    const ActivationAttrs act = ReadActivation(n);
    const bool blocked_input = FilterOrder(c.in, c.out / c.group, block_) == Filter::kBlockedInput;
    ir::Value* w = n->inputs()[1];
    ir::Value*& oihw = filters_[{w, blocked_input}];
    if (oihw == nullptr) {
      oihw = AddConstant(g_, w->name() + "_oihw", UnblockFilter(*c.w, blocked_input, block_));
    }
    std::vector<ir::Value*> inputs = {n->inputs()[0], oihw};
    ir::Value* bias = n->inputs().size() > 2 ? n->inputs()[2] : nullptr;
    ir::Value* sum = n->inputs().size() > 3 ? n->inputs()[3] : nullptr;
    if (bias != nullptr || sum != nullptr) inputs.push_back(bias);
    if (sum != nullptr) inputs.push_back(sum);
    std::vector<ir::Attribute> attrs;
    for (const ir::Attribute& a : n->attributes()) {
      for (const char* name :
           {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}) {
        if (a.name == name) attrs.push_back(a);
      }
    }
    if (act.name.empty() && sum == nullptr) {
      Replace(g_, {n}, "Conv", "", Opset(11), std::move(inputs), {n->outputs()[0]},
              std::move(attrs));
      return;
    }
    if (!act.name.empty()) {
      attrs.push_back(StringAttr("activation", act.name));
      if (!act.params.empty()) attrs.push_back(FloatsAttr("activation_params", act.params));
    }
    Replace(g_, {n}, "FusedConv", kMicrosoftDomain, 1, std::move(inputs), {n->outputs()[0]},
            std::move(attrs));
  }

  void Pool(ir::Node* n) {
    const std::string op = n->op_type();
    std::vector<ir::Attribute> attrs = n->attributes();
    int64_t opset = Opset(1);
    if (op == "MaxPool") {
      opset = Opset(12);
    } else if (op == "AveragePool") {
      const std::vector<int64_t> dilations = IntsAttrOf(n, "dilations", {});
      const bool dilated =
          std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; });
      opset = Opset(dilated ? 19 : 11);
      if (opset < 19) {
        std::erase_if(attrs, [](const ir::Attribute& a) { return a.name == "dilations"; });
      }
    }
    Replace(g_, {n}, op, "", opset, {n->inputs()[0]}, {n->outputs()[0]}, std::move(attrs));
  }

  void Upsample(ir::Node* n) {
    const UpsampleAttrs u = ReadUpsample(n);
    ir::Value* scales = AddConstant(g_, n->name() + "_scales",
                                    FloatTensor({4}, {1.0f, 1.0f, static_cast<float>(u.scale_h),
                                                      static_cast<float>(u.scale_w)}));
    std::vector<ir::Attribute> attrs = {
        StringAttr("mode", u.linear ? "linear" : "nearest"),
        StringAttr("coordinate_transformation_mode", u.coordinates)};
    if (!u.linear) attrs.push_back(StringAttr("nearest_mode", "floor"));
    Replace(g_, {n}, "Resize", "", Opset(13), {n->inputs()[0], nullptr, scales}, {n->outputs()[0]},
            std::move(attrs));
  }

  GraphWork& w_;
  ir::Graph& g_;
  const int64_t block_;
  const int64_t onnx_opset_;
  std::map<std::pair<const ir::Value*, bool>, ir::Value*> filters_;
};

// The graphs with nchwc nodes, `g` and its subgraphs (each subgraph that has some is replaced by a
// copy, the attributes' graphs being immutable).
void CollectGraphs(ir::Graph& g, const KernelRegistry& registry, std::vector<GraphWork>& works) {
  bool has = false;
  for (const auto& n : g.nodes()) {
    has = has || IsNchwc(n.get(), registry);
    for (ir::Attribute& a : n->attributes()) {
      if (a.g != nullptr && HasNchwc(*a.g, registry)) {
        std::shared_ptr<ir::Graph> copy = ir::CloneGraph(*a.g);
        CollectGraphs(*copy, registry, works);
        a.g = std::move(copy);
      }
      for (auto& sg : a.graphs) {
        if (sg == nullptr || !HasNchwc(*sg, registry)) continue;
        std::shared_ptr<ir::Graph> copy = ir::CloneGraph(*sg);
        CollectGraphs(*copy, registry, works);
        sg = std::move(copy);
      }
    }
  }
  if (has) works.push_back({&g, {}, {}, {}});
}

}  // namespace

int64_t MachineNchwcBlockSize() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 ? 16 : 8;
#else
  return 16;  // MLAS's NEON NCHWc kernels (arm64)
#endif
}

size_t LegalizeNchwc(ir::Graph& graph, const KernelRegistry& registry,
                     const NchwcOptions& options) {
  if (!HasNchwc(graph, registry)) return 0;
  std::vector<GraphWork> works;
  CollectGraphs(graph, registry, works);
  size_t count = 0;
  for (GraphWork& w : works) {
    w.order = w.g->TopologicalOrder();
    for (const ir::Node* n : w.order) {
      if (IsNchwc(n, registry)) {
        CheckNode(n);
        ++count;
        if (n->op_type() != "ReorderOutput") w.blocked.insert(n->outputs()[0]);
        continue;
      }
      for (const ir::Value* in : n->inputs()) {
        if (in == nullptr || w.blocked.count(in) == 0) continue;
        for (const ir::Value* out : n->outputs()) {
          if (out != nullptr) w.blocked.insert(out);
        }
        break;
      }
    }
  }
  const int64_t machine = options.block_size != 0 ? options.block_size : MachineNchwcBlockSize();
  if (machine != 8 && machine != 16) {
    throw Error(ErrorCode::kInvalidArgument,
                "the NCHWc block size is " + Str(machine) + "; ONNX Runtime's is 8 or 16");
  }
  const int64_t other = machine == 16 ? 8 : 16;
  int64_t block = machine;
  const std::string why = Contradiction(works, registry, machine);
  if (!why.empty()) {
    const std::string why_other = Contradiction(works, registry, other);
    if (!why_other.empty()) {
      throw Error(ErrorCode::kInvalidGraph,
                  why + " (ONNX Runtime's NCHWc layout, com.microsoft.nchwc, is blocked by " +
                      Str(machine) + " channels on this machine; with " + Str(other) +
                      " it does not fit either: " + why_other + ")");
    }
    block = other;
  }
  for (GraphWork& w : works) {
    Rewriter(w, block, options.onnx_opset).Run(registry);
  }
  return count;
}

}  // namespace kiln::optimizer
