// Symbolic reverse-mode differentiation of Gradient nodes (see gradient.h). For one node:
//   1. the nodes y depends on, walking producers back from y and stopping at the xs and zs;
//   2. forward, in topological order: which of their outputs depend on an x (the differentiable
//      values), and a copy of every node that reads an input of the Gradient node that is not the
//      named value itself (so the graph is evaluated at the given inputs);
//   3. backward from y (seeded with ones of y's shape): each node's rule adds its inputs' shares of
//      the incoming gradient; a value reached along several paths gets the Sum of its shares;
//   4. the Gradient node goes and an Identity per output writes each x's gradient (zeros of x's
//      shape for an x that y does not depend on) into the output's value, so names stay.
// Generated nodes are default-domain opset 17 nodes; constants are float scalars cast (CastLike)
// to the type of the value they combine with, so float16, float and double graphs all work.
#include "optimizer/gradient.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"
#include "optimizer/pattern.h"

namespace kiln::optimizer {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
// ReduceSum and Unsqueeze take their axes as inputs, Reshape has allowzero, CastLike exists.
constexpr int64_t kOpset = 17;

bool IsGradient(const ir::Node* n) {
  return n->op_type() == "Gradient" && n->domain() == kTrainingDomain;
}

// Ops whose outputs carry no gradient (integer or boolean results, or piecewise constant): the
// differentiation stops there instead of failing.
bool HasNoGradient(const ir::Node* n) {
  static constexpr const char* kOps[] = {
      "Shape",       "Size",   "Equal",  "Greater", "Less",  "GreaterOrEqual",
      "LessOrEqual", "ArgMax", "ArgMin", "NonZero", "IsNaN", "IsInf",
      "Not",         "And",    "Or",     "Xor",     "Sign"};
  if (!n->domain().empty() && n->domain() != "ai.onnx") return false;
  return std::any_of(std::begin(kOps), std::end(kOps),
                     [&](const char* op) { return n->op_type() == op; });
}

class Differentiator {
 public:
  Differentiator(ir::Graph& g, ir::Node* node)
      : g_(g), node_(node), name_(node->name()), what_(node->Describe()) {}

  // Reads and checks the attributes and inputs and finds the nodes y depends on.
  void Prepare();
  // Whether y depends on another Gradient node, which must be expanded first.
  bool WaitsOnGradient() const {
    return std::any_of(ancestors_.begin(), ancestors_.end(), IsGradient);
  }
  // Replaces the node with the gradient computation.
  void Run();

 private:
  [[noreturn]] void Fail(ErrorCode code, const std::string& msg) const {
    throw Error(code, what_ + ": " + msg);
  }
  std::vector<std::string> Names(const char* attr, bool required) const;
  ir::Value* Resolve(const char* attr, const std::string& name) const;
  // The value `v` has when the graph is evaluated at the node's inputs.
  ir::Value* F(ir::Value* v) const {
    auto it = fwd_.find(v);
    return it == fwd_.end() ? v : it->second;
  }
  ir::Node* NewNode(const std::string& op, std::vector<ir::Value*> inputs,
                    std::vector<ir::Attribute> attrs, std::vector<ir::Value*> outputs);
  ir::Value* Emit(const std::string& op, std::vector<ir::Value*> inputs,
                  std::vector<ir::Attribute> attrs = {});
  ir::Value* Ints(const std::vector<int64_t>& v);
  ir::Value* Scalar(float v, ir::Value* like);
  ir::Value* Filled(float v, ir::Value* like) {
    return Emit("Expand", {Scalar(v, like), Emit("Shape", {like})});
  }
  // `x` is the operand's forward value (F of it).
  ir::Value* Unbroadcast(ir::Value* grad, ir::Value* x);
  ir::Value* Accumulated(ir::Value* v);
  void Add(ir::Value* v, ir::Value* grad) {
    if (v != nullptr && diff_.count(v) != 0) grads_[v].push_back(grad);
  }
  void Clone(ir::Node* n);
  void Backprop(ir::Node* n, ir::Value* gy);
  void MatMul(ir::Node* n, ir::Value* gy);
  void Reduce(ir::Node* n, ir::Value* gy, bool mean);

  ir::Graph& g_;
  ir::Node* node_;
  std::string name_;  // kept: the generated nodes are named after it, also once node_ is gone
  std::string what_;
  std::vector<ir::Value*> xs_;
  ir::Value* y_ = nullptr;
  std::unordered_set<const ir::Value*> leaves_;
  std::unordered_set<ir::Node*> ancestors_;
  std::unordered_map<ir::Value*, ir::Value*> fwd_;
  std::unordered_set<const ir::Value*> diff_;
  std::unordered_map<ir::Value*, std::vector<ir::Value*>> grads_;
  std::map<std::vector<int64_t>, ir::Value*> ints_;
  std::map<std::pair<float, ir::Value*>, ir::Value*> scalars_;
};

std::vector<std::string> Differentiator::Names(const char* attr, bool required) const {
  const ir::Attribute* a = node_->FindAttribute(attr);
  if (a == nullptr) {
    if (required)
      Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + attr + "' is required");
    return {};
  }
  if (a->type != ir::AttrType::kStrings) {
    Fail(ErrorCode::kInvalidGraph,
         std::string("attribute '") + attr + "' must be strings, not " + ir::AttrTypeName(a->type));
  }
  return a->strings;
}

ir::Value* Differentiator::Resolve(const char* attr, const std::string& name) const {
  ir::Value* v = g_.FindValue(name);
  if (v == nullptr) {
    Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + attr + "' names '" + name +
                                       "', which is not a value of the graph");
  }
  return v;
}

void Differentiator::Prepare() {
  const std::vector<std::string> xs = Names("xs", true);
  const std::vector<std::string> zs = Names("zs", false);
  const ir::Attribute* ya = node_->FindAttribute("y");
  if (ya == nullptr) Fail(ErrorCode::kInvalidGraph, "attribute 'y' is required");
  if (ya->type != ir::AttrType::kString) {
    Fail(ErrorCode::kInvalidGraph,
         std::string("attribute 'y' must be a string, not ") + ir::AttrTypeName(ya->type));
  }
  if (xs.empty()) Fail(ErrorCode::kInvalidGraph, "attribute 'xs' names no tensor");
  if (node_->inputs().size() != xs.size() + zs.size()) {
    Fail(ErrorCode::kInvalidGraph, "has " + std::to_string(node_->inputs().size()) +
                                       " inputs; attributes 'xs' and 'zs' name " +
                                       std::to_string(xs.size() + zs.size()) + " tensors");
  }
  if (node_->outputs().size() > xs.size()) {
    Fail(ErrorCode::kInvalidGraph, "has " + std::to_string(node_->outputs().size()) +
                                       " outputs; attribute 'xs' names only " +
                                       std::to_string(xs.size()) + " tensors");
  }
  y_ = Resolve("y", ya->s);
  for (size_t i = 0; i < xs.size() + zs.size(); ++i) {
    const bool is_x = i < xs.size();
    const char* attr = is_x ? "xs" : "zs";
    ir::Value* v = Resolve(attr, is_x ? xs[i] : zs[i - xs.size()]);
    if (!leaves_.insert(v).second) {
      Fail(ErrorCode::kInvalidGraph, std::string("attribute '") + attr + "' names '" + v->name() +
                                         "', which 'xs' or 'zs' already names");
    }
    ir::Value* given = node_->inputs()[i];
    if (given == nullptr) {
      Fail(ErrorCode::kInvalidGraph,
           "input " + std::to_string(i) + " (the value of '" + v->name() + "') is missing");
    }
    if (given != v) fwd_[v] = given;
    if (is_x) xs_.push_back(v);
  }
  // The nodes y depends on; the xs and zs are the inputs of the differentiated graph.
  std::vector<ir::Value*> stack{y_};
  std::unordered_set<const ir::Value*> seen;
  while (!stack.empty()) {
    ir::Value* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second || leaves_.count(v) != 0 || v->producer() == nullptr) continue;
    ir::Node* p = v->producer();
    if (p == node_) {
      Fail(ErrorCode::kInvalidGraph,
           "attribute 'y' names '" + y_->name() + "', which depends on this node's own outputs");
    }
    if (!ancestors_.insert(p).second) continue;
    for (ir::Value* in : p->inputs()) {
      if (in != nullptr) stack.push_back(in);
    }
    for (ir::Value* in : p->implicit_inputs()) stack.push_back(in);
  }
}

ir::Node* Differentiator::NewNode(const std::string& op, std::vector<ir::Value*> inputs,
                                  std::vector<ir::Attribute> attrs,
                                  std::vector<ir::Value*> outputs) {
  ir::Node* n = g_.AddNode(g_.UniqueName(name_ + "/" + op), op, "");
  n->set_opset(kOpset);
  n->attributes() = std::move(attrs);
  g_.Connect(n, std::move(inputs), std::move(outputs));
  return n;
}

ir::Value* Differentiator::Emit(const std::string& op, std::vector<ir::Value*> inputs,
                                std::vector<ir::Attribute> attrs) {
  ir::Value* out = g_.AddValue(g_.UniqueName(name_ + "/" + op));
  NewNode(op, std::move(inputs), std::move(attrs), {out});
  return out;
}

ir::Value* Differentiator::Ints(const std::vector<int64_t>& v) {
  ir::Value*& slot = ints_[v];
  if (slot == nullptr) {
    std::shared_ptr<Tensor> t =
        Tensor::Allocate(DataType::kInt64, Shape({static_cast<int64_t>(v.size())}), CpuAllocator());
    if (!v.empty()) std::memcpy(t->data(), v.data(), v.size() * sizeof(int64_t));
    slot = AddConstant(g_, name_ + "/ints", std::move(t));
  }
  return slot;
}

ir::Value* Differentiator::Scalar(float v, ir::Value* like) {
  ir::Value*& slot = scalars_[{v, like}];
  if (slot == nullptr) {
    slot = Emit("CastLike", {AddConstant(g_, name_ + "/scalar", FloatTensor({}, {v})), like});
  }
  return slot;
}

// The gradient of a broadcast operand: `grad` (the result's shape) summed over the axes where the
// operand's shape, padded with leading ones to the result's rank, differs from the result's, then
// reshaped to the operand's shape. Computed from the shapes at run time, so it needs no static
// shapes; with static shapes the folding at level 1 leaves only the ReduceSum and Reshape.
ir::Value* Differentiator::Unbroadcast(ir::Value* grad, ir::Value* x) {
  ir::Value* sx = Emit("Shape", {x});
  ir::Value* sg = Emit("Shape", {grad});
  ir::Value* pad = Emit("Sub", {Emit("Size", {sg}), Emit("Size", {sx})});
  ir::Value* ones = Emit("Expand", {Ints({1}), Emit("Reshape", {pad, Ints({1})})});
  ir::Value* padded = Emit("Concat", {ones, sx}, {IntAttr("axis", 0)});
  ir::Value* differ = Emit("Not", {Emit("Equal", {padded, sg})});
  ir::Value* axes = Emit("Reshape", {Emit("NonZero", {differ}), Ints({-1})});
  ir::Value* summed =
      Emit("ReduceSum", {grad, axes}, {IntAttr("keepdims", 1), IntAttr("noop_with_empty_axes", 1)});
  return Emit("Reshape", {summed, sx}, {IntAttr("allowzero", 1)});
}

ir::Value* Differentiator::Accumulated(ir::Value* v) {
  auto it = grads_.find(v);
  if (it == grads_.end() || it->second.empty()) return nullptr;
  if (it->second.size() > 1) it->second = {Emit("Sum", it->second)};
  return it->second[0];
}

void Differentiator::Clone(ir::Node* n) {
  if (!n->implicit_inputs().empty()) {
    Fail(ErrorCode::kNotImplemented,
         n->Describe() + " reads a value given as an input of this node from a subgraph; " +
             "evaluating it at that input is not supported");
  }
  std::vector<ir::Value*> inputs;
  for (ir::Value* in : n->inputs()) inputs.push_back(in == nullptr ? nullptr : F(in));
  std::vector<ir::Value*> outputs;
  for (ir::Value* out : n->outputs()) {
    ir::Value* copy = out == nullptr ? nullptr : g_.AddValue(g_.UniqueName(out->name() + "_at"));
    if (copy != nullptr) fwd_[out] = copy;
    outputs.push_back(copy);
  }
  ir::Node* c = g_.AddNode(g_.UniqueName(n->name() + "_at"), n->op_type(), n->domain());
  c->set_opset(n->opset());
  c->attributes() = n->attributes();
  g_.Connect(c, std::move(inputs), std::move(outputs));
}

void Differentiator::MatMul(ir::Node* n, ir::Value* gy) {
  ir::Value* a = n->inputs()[0];
  ir::Value* b = n->inputs()[1];
  ir::Value* fa = F(a);
  ir::Value* fb = F(b);
  // A 1-D operand is a matrix with a dimension of 1 that the product drops (ONNX/numpy matmul);
  // put it back on both the operand and the gradient. Other ranks go through Einsum's "...".
  auto rank = [](const ir::Value* v) {
    return v->type().shape ? static_cast<int64_t>(v->type().shape->rank()) : -1;
  };
  if (rank(a) == 0 || rank(b) == 0) {
    Fail(ErrorCode::kInvalidGraph, n->Describe() + " multiplies a scalar (MatMul needs rank >= 1)");
  }
  ir::Value* g = gy;
  if (rank(b) == 1) {
    fb = Emit("Unsqueeze", {fb, Ints({-1})});
    g = Emit("Unsqueeze", {g, Ints({-1})});
  }
  if (rank(a) == 1) {
    fa = Emit("Unsqueeze", {fa, Ints({0})});
    g = Emit("Unsqueeze", {g, Ints({-2})});
  }
  // The operand's gradient at the operand's (possibly unsqueezed) shape, back to its own shape.
  auto restore = [&](ir::Value* grad, ir::Value* v, ir::Value* fv) {
    grad = Unbroadcast(grad, fv);
    if (rank(v) != 1) return grad;
    return Emit("Reshape", {grad, Emit("Shape", {F(v)})}, {IntAttr("allowzero", 1)});
  };
  if (diff_.count(a) != 0) {
    Add(a, restore(Emit("Einsum", {g, fb}, {StringAttr("equation", "...ij,...kj->...ik")}), a, fa));
  }
  if (diff_.count(b) != 0) {
    Add(b, restore(Emit("Einsum", {fa, g}, {StringAttr("equation", "...ki,...kj->...ij")}), b, fb));
  }
}

void Differentiator::Reduce(ir::Node* n, ir::Value* gy, bool mean) {
  ir::Value* x = F(n->inputs()[0]);
  const bool axes_input = n->opset() >= (mean ? 18 : 13);
  ir::Value* g = gy;
  if (IntAttrOf(n, "keepdims", 1) == 0) {
    // Put the reduced axes back (as 1s) so the gradient broadcasts over them.
    if (!axes_input) {
      const ir::Attribute* a = n->FindAttribute("axes");
      if (a != nullptr && !a->ints.empty()) g = Emit("Unsqueeze", {g, Ints(a->ints)});
    } else if (n->inputs().size() > 1 && n->inputs()[1] != nullptr) {
      std::optional<std::vector<int64_t>> axes = IntsOf(n->inputs()[1]);
      if (!axes) {
        g = Emit("Unsqueeze", {g, F(n->inputs()[1])});
      } else if (!axes->empty()) {
        g = Emit("Unsqueeze", {g, Ints(*axes)});
      }
    }
  }
  ir::Value* gx = Emit("Expand", {g, Emit("Shape", {x})});
  if (mean) {
    // Each input element contributes 1/count to its mean: count = size(x) / size(mean).
    ir::Value* kept = Emit("CastLike", {Emit("Size", {F(n->outputs()[0])}), gx});
    ir::Value* all = Emit("CastLike", {Emit("Size", {x}), gx});
    gx = Emit("Div", {Emit("Mul", {gx, kept}), all});
  }
  Add(n->inputs()[0], gx);
}

void Differentiator::Backprop(ir::Node* n, ir::Value* gy) {
  auto in = [&](size_t i) { return n->inputs()[i]; };
  ir::Value* out = F(n->outputs()[0]);
  if (IsOp(n, "Add") || IsOp(n, "Sub")) {
    if (diff_.count(in(0)) != 0) Add(in(0), Unbroadcast(gy, F(in(0))));
    if (diff_.count(in(1)) != 0) {
      Add(in(1), Unbroadcast(IsOp(n, "Sub") ? Emit("Neg", {gy}) : gy, F(in(1))));
    }
  } else if (IsOp(n, "Mul")) {
    if (diff_.count(in(0)) != 0) Add(in(0), Unbroadcast(Emit("Mul", {gy, F(in(1))}), F(in(0))));
    if (diff_.count(in(1)) != 0) Add(in(1), Unbroadcast(Emit("Mul", {gy, F(in(0))}), F(in(1))));
  } else if (IsOp(n, "Div")) {
    // d(a/b)/db = -(a/b)/b.
    if (diff_.count(in(0)) != 0) Add(in(0), Unbroadcast(Emit("Div", {gy, F(in(1))}), F(in(0))));
    if (diff_.count(in(1)) != 0) {
      ir::Value* share = Emit("Neg", {Emit("Div", {Emit("Mul", {gy, out}), F(in(1))})});
      Add(in(1), Unbroadcast(share, F(in(1))));
    }
  } else if (IsOp(n, "Sum")) {
    for (ir::Value* v : n->inputs()) {
      if (v != nullptr && diff_.count(v) != 0) Add(v, Unbroadcast(gy, F(v)));
    }
  } else if (IsOp(n, "Neg")) {
    Add(in(0), Emit("Neg", {gy}));
  } else if (IsOp(n, "Identity")) {
    Add(in(0), gy);
  } else if (IsOp(n, "Relu")) {
    ir::Value* x = F(in(0));
    ir::Value* zero = Scalar(0.0f, x);
    Add(in(0), Emit("Where", {Emit("Greater", {x, zero}), gy, Scalar(0.0f, gy)}));
  } else if (IsOp(n, "Sigmoid")) {
    ir::Value* slope = Emit("Mul", {out, Emit("Sub", {Scalar(1.0f, out), out})});
    Add(in(0), Emit("Mul", {gy, slope}));
  } else if (IsOp(n, "Tanh")) {
    ir::Value* slope = Emit("Sub", {Scalar(1.0f, out), Emit("Mul", {out, out})});
    Add(in(0), Emit("Mul", {gy, slope}));
  } else if (IsOp(n, "Exp")) {
    Add(in(0), Emit("Mul", {gy, out}));
  } else if (IsOp(n, "Log")) {
    Add(in(0), Emit("Div", {gy, F(in(0))}));
  } else if (IsOp(n, "Sqrt")) {
    Add(in(0), Emit("Div", {Emit("Mul", {gy, Scalar(0.5f, out)}), out}));
  } else if (IsOp(n, "Reshape")) {
    Add(in(0), Emit("Reshape", {gy, Emit("Shape", {F(in(0))})}, {IntAttr("allowzero", 1)}));
  } else if (IsOp(n, "Transpose")) {
    const ir::Attribute* perm = n->FindAttribute("perm");
    std::vector<ir::Attribute> attrs;
    if (perm != nullptr) {
      // The inverse permutation; without perm the transpose reverses the axes, its own inverse.
      const std::vector<int64_t>& p = perm->ints;
      std::vector<int64_t> inverse(p.size(), -1);
      for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] < 0 || p[i] >= static_cast<int64_t>(p.size()) ||
            inverse[static_cast<size_t>(p[i])] != -1) {
          Fail(ErrorCode::kInvalidGraph,
               n->Describe() + " has an attribute 'perm' that is not a permutation");
        }
        inverse[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
      }
      attrs.push_back(IntsAttr("perm", std::move(inverse)));
    }
    Add(in(0), Emit("Transpose", {gy}, std::move(attrs)));
  } else if (IsOp(n, "Expand") && HasRequiredInputs(n, 2)) {
    Add(in(0), Unbroadcast(gy, F(in(0))));
  } else if (IsOp(n, "CastLike") && HasRequiredInputs(n, 2)) {
    // The second input gives only the type.
    Add(in(0), Emit("CastLike", {gy, F(in(0))}));
  } else if (IsOp(n, "Where") && HasRequiredInputs(n, 3)) {
    ir::Value* zero = Scalar(0.0f, gy);
    ir::Value* cond = F(in(0));
    if (diff_.count(in(1)) != 0) Add(in(1), Unbroadcast(Emit("Where", {cond, gy, zero}), F(in(1))));
    if (diff_.count(in(2)) != 0) Add(in(2), Unbroadcast(Emit("Where", {cond, zero, gy}), F(in(2))));
  } else if (IsOp(n, "MatMul")) {
    MatMul(n, gy);
  } else if (IsOp(n, "ReduceSum") || IsOp(n, "ReduceMean")) {
    Reduce(n, gy, IsOp(n, "ReduceMean"));
  } else {
    Fail(ErrorCode::kNotImplemented, "the derivative of " + n->Describe() +
                                         " (on the path from 'xs' to 'y') is not implemented");
  }
}

void Differentiator::Run() {
  // Forward: the differentiable values, and the nodes evaluated again at the given inputs.
  std::vector<ir::Node*> path;
  for (const ir::Value* x : xs_) diff_.insert(x);
  for (ir::Node* n : g_.TopologicalOrder()) {
    if (ancestors_.count(n) == 0) continue;
    bool reads_given = false;
    bool reads_diff = false;
    for (ir::Value* in : n->inputs()) {
      if (in == nullptr) continue;
      reads_given |= fwd_.count(in) != 0;
      reads_diff |= diff_.count(in) != 0;
    }
    for (ir::Value* in : n->implicit_inputs()) reads_given |= fwd_.count(in) != 0;
    if (reads_diff && !HasNoGradient(n)) {
      path.push_back(n);
      for (ir::Value* out : n->outputs()) {
        if (out != nullptr) diff_.insert(out);
      }
    }
    if (reads_given) Clone(n);
  }
  // Backward from y.
  if (diff_.count(y_) != 0) grads_[y_].push_back(Filled(1.0f, F(y_)));
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    ir::Node* n = *it;
    ir::Value* gy = Accumulated(n->outputs()[0]);
    bool any = gy != nullptr;
    for (size_t k = 1; k < n->outputs().size(); ++k) {
      any |= n->outputs()[k] != nullptr && grads_.count(n->outputs()[k]) != 0;
    }
    if (!any) continue;  // its outputs reach y only through ops without a gradient
    if (gy == nullptr || n->outputs().size() != 1) {
      Fail(ErrorCode::kNotImplemented, "the derivative of " + n->Describe() +
                                           " (on the path from 'xs' to 'y') is not implemented");
    }
    Backprop(n, gy);
  }
  std::vector<ir::Value*> results;
  for (size_t k = 0; k < node_->outputs().size(); ++k) {
    if (node_->outputs()[k] == nullptr) {
      results.push_back(nullptr);
      continue;
    }
    ir::Value* gx = Accumulated(xs_[k]);
    results.push_back(gx != nullptr ? gx : Filled(0.0f, F(xs_[k])));
  }
  const std::vector<ir::Value*> outputs = node_->outputs();
  g_.RemoveNode(node_);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k] != nullptr) NewNode("Identity", {results[k]}, {}, {outputs[k]});
  }
}

}  // namespace

size_t ExpandGradients(ir::Graph& graph) {
  size_t count = 0;
  for (;;) {
    std::vector<ir::Node*> pending;
    for (const auto& n : graph.nodes()) {
      if (IsGradient(n.get())) pending.push_back(n.get());
    }
    if (pending.empty()) return count;
    bool expanded = false;
    for (ir::Node* n : pending) {
      Differentiator d(graph, n);
      d.Prepare();
      if (d.WaitsOnGradient()) continue;  // expand the one y depends on first
      d.Run();
      ++count;
      expanded = true;
      break;
    }
    if (!expanded) {
      throw Error(ErrorCode::kInvalidGraph,
                  pending[0]->Describe() +
                      ": its 'y' depends on Gradient nodes whose 'y' depends on it in turn");
    }
  }
}

}  // namespace kiln::optimizer
