#include "optimizer/pattern.h"

#include <algorithm>
#include <cstring>

#include "core/allocator.h"
#include "core/float16.h"

namespace kiln::optimizer {

namespace {

// How many leading inputs the ops the passes match require (ONNX schemas). A node that lacks one
// is malformed: it fails with a precise error when it runs, and no pass may read past its inputs.
size_t RequiredInputs(std::string_view op) noexcept {
  struct Arity {
    std::string_view op;
    size_t inputs;
  };
  static constexpr Arity kArity[] = {
      {"Add", 2},
      {"Sub", 2},
      {"Mul", 2},
      {"Div", 2},
      {"Pow", 2},
      {"MatMul", 2},
      {"Conv", 2},
      {"Reshape", 2},
      {"Slice", 3},
      {"BatchNormalization", 5},
      {"LayerNormalization", 2},
      {"Concat", 1},
      {"Clip", 1},
      {"Split", 1},
      {"Squeeze", 1},
      {"Transpose", 1},
      {"Softmax", 1},
      {"ReduceMean", 1},
      {"Cast", 1},
      {"Dropout", 1},
      {"Identity", 1},
      {"Erf", 1},
      {"Sqrt", 1},
      {"Tanh", 1},
      {"Sigmoid", 1},
      {"Relu", 1},
      {"LeakyRelu", 1},
      {"HardSigmoid", 1},
      {"HardSwish", 1},
      {"MaxPool", 1},
      {"AveragePool", 1},
      {"GlobalAveragePool", 1},
      {"GlobalMaxPool", 1},
  };
  for (const Arity& a : kArity) {
    if (a.op == op) return a.inputs;
  }
  return 1;  // every other op a pass names reads at least one input
}

}  // namespace

bool HasRequiredInputs(const ir::Node* node, size_t required) noexcept {
  if (node->inputs().size() < required || node->outputs().empty() ||
      node->outputs()[0] == nullptr) {
    return false;
  }
  for (size_t i = 0; i < required; ++i) {
    if (node->inputs()[i] == nullptr) return false;
  }
  return true;
}

bool IsOp(const ir::Node* node, std::string_view op) noexcept {
  return node != nullptr && node->op_type() == op &&
         (node->domain().empty() || node->domain() == "ai.onnx") &&
         HasRequiredInputs(node, RequiredInputs(op));
}

ir::Node* ProducerIs(const ir::Value* v, std::string_view op) noexcept {
  return v != nullptr && IsOp(v->producer(), op) ? v->producer() : nullptr;
}

ir::Node* OnlyConsumer(const ir::Graph& g, const ir::Value* v) noexcept {
  if (v == nullptr || v->consumers().size() != 1) return nullptr;
  for (const ir::Value* out : g.outputs()) {
    if (out == v) return nullptr;
  }
  ir::Node* c = v->consumers()[0];
  for (const ir::Value* in : c->implicit_inputs()) {
    if (in == v) return nullptr;
  }
  return c;
}

bool OnlyReadBy(const ir::Graph& g, const ir::Value* v, std::vector<const ir::Node*> readers) {
  for (const ir::Value* out : g.outputs()) {
    if (out == v) return false;
  }
  std::vector<const ir::Node*> actual(v->consumers().begin(), v->consumers().end());
  std::sort(actual.begin(), actual.end());
  std::sort(readers.begin(), readers.end());
  return actual == readers;
}

const Tensor* ConstantOf(const ir::Value* v) noexcept {
  return v != nullptr ? v->initializer().get() : nullptr;
}

std::optional<float> ScalarOf(const ir::Value* v) {
  const Tensor* t = ConstantOf(v);
  if (t == nullptr || t->element_count() != 1) return std::nullopt;
  switch (t->type()) {
    case DataType::kFloat:
      return *static_cast<const float*>(t->data());
    case DataType::kDouble:
      return static_cast<float>(*static_cast<const double*>(t->data()));
    case DataType::kFloat16:
      return static_cast<const Float16*>(t->data())->ToFloat();
    default:
      return std::nullopt;
  }
}

std::optional<std::vector<int64_t>> IntsOf(const ir::Value* v) {
  const Tensor* t = ConstantOf(v);
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> out(t->element_count());
  if (t->type() == DataType::kInt64) {
    const auto* p = static_cast<const int64_t*>(t->data());
    std::copy(p, p + out.size(), out.begin());
  } else if (t->type() == DataType::kInt32) {
    const auto* p = static_cast<const int32_t*>(t->data());
    std::copy(p, p + out.size(), out.begin());
  } else {
    return std::nullopt;
  }
  return out;
}

std::optional<std::vector<float>> FloatsOf(const ir::Value* v) {
  const Tensor* t = ConstantOf(v);
  if (t == nullptr || t->type() != DataType::kFloat) return std::nullopt;
  const auto* p = static_cast<const float*>(t->data());
  return std::vector<float>(p, p + t->element_count());
}

ir::Value* OtherInput(const ir::Node* node, const ir::Value* one) noexcept {
  if (node->inputs().size() != 2) return nullptr;
  return node->inputs()[0] == one ? node->inputs()[1] : node->inputs()[0];
}

ir::Value* AddConstant(ir::Graph& g, const std::string& base, std::shared_ptr<const Tensor> t) {
  ir::Value* v = g.AddValue(g.UniqueName(base));
  v->type().kind = ir::ValueKind::kTensor;
  v->type().elem = t->type();
  v->type().shape = t->shape();
  v->set_initializer(std::move(t));
  return v;
}

std::shared_ptr<Tensor> FloatTensor(std::vector<int64_t> dims, const std::vector<float>& data) {
  std::shared_ptr<Tensor> t =
      Tensor::AllocateForOverwrite(DataType::kFloat, Shape(std::move(dims)), CpuAllocator());
  if (!data.empty()) std::memcpy(t->data(), data.data(), data.size() * sizeof(float));
  return t;
}

ir::Attribute IntAttr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  return a;
}

ir::Attribute FloatAttr(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  return a;
}

ir::Attribute StringAttr(const std::string& name, const std::string& v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kString;
  a.s = v;
  return a;
}

ir::Attribute IntsAttr(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInts;
  a.ints = std::move(v);
  return a;
}

ir::Attribute FloatsAttr(const std::string& name, std::vector<float> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloats;
  a.floats = std::move(v);
  return a;
}

int64_t IntAttrOf(const ir::Node* node, const std::string& name, int64_t fallback) noexcept {
  const ir::Attribute* a = node->FindAttribute(name);
  return a != nullptr && a->type == ir::AttrType::kInt ? a->i : fallback;
}

std::vector<int64_t> IntsAttrOf(const ir::Node* node, const std::string& name,
                                const std::vector<int64_t>& fallback) {
  const ir::Attribute* a = node->FindAttribute(name);
  return a != nullptr ? a->ints : fallback;
}

ir::Node* Replace(ir::Graph& g, const std::vector<ir::Node*>& old_nodes, std::string op,
                  std::string domain, int64_t opset, std::vector<ir::Value*> inputs,
                  std::vector<ir::Value*> outputs, std::vector<ir::Attribute> attributes) {
  const std::string name = old_nodes.front()->name() + "/" + op;
  // What the new node stands for: the loaded nodes the old ones were (or were made from).
  std::vector<std::string> fused_from;
  for (const ir::Node* n : old_nodes) {
    if (n->fused_from().empty()) {
      fused_from.push_back(n->name());
    } else {
      fused_from.insert(fused_from.end(), n->fused_from().begin(), n->fused_from().end());
    }
  }
  for (ir::Node* n : old_nodes) g.RemoveNode(n);
  ir::Node* node = g.AddNode(name, std::move(op), std::move(domain));
  node->fused_from() = std::move(fused_from);
  node->set_opset(opset);
  node->attributes() = std::move(attributes);
  g.Connect(node, std::move(inputs), std::move(outputs));
  return node;
}

}  // namespace kiln::optimizer
