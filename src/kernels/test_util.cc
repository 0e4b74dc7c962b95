#include "kernels/test_util.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "kernels/registry.h"

namespace kiln::testing {
namespace {

class HeapOutputs final : public OutputAllocator {
 public:
  explicit HeapOutputs(size_t n) : tensors_(n) {}
  Tensor& Allocate(size_t index, DataType type, std::span<const int64_t> dims, bool zero) override {
    tensors_.at(index) = Tensor::Allocate(
        type, Shape(std::vector<int64_t>(dims.begin(), dims.end())), CpuAllocator());
    Tensor& t = *tensors_[index];
    // An element the kernel forgets to write reads as NaN (floats) or all ones (integers, bool).
    if (!zero && type != DataType::kString && t.byte_size() != 0) {
      std::memset(t.data(), 0xFF, t.byte_size());
    }
    return t;
  }
  void* Scratch(size_t bytes) override { return scratch_.Get(bytes); }
  void SetValue(size_t index, Value value) override { values_.at(index) = std::move(value); }
  std::vector<std::shared_ptr<Tensor>> Take() { return std::move(tensors_); }
  // Every output as a value: the tensors allocated and the values set.
  std::vector<Value> TakeValues() {
    for (size_t i = 0; i < tensors_.size(); ++i) {
      if (tensors_[i] != nullptr) values_[i] = Value(tensors_[i]);
    }
    return std::move(values_);
  }

 private:
  std::vector<std::shared_ptr<Tensor>> tensors_;
  std::vector<Value> values_ = std::vector<Value>(tensors_.size());
  HeapScratch scratch_;
};

}  // namespace

NodeTest::NodeTest(std::string op_type, int64_t opset, std::string domain)
    : op_type_(std::move(op_type)), domain_(std::move(domain)), opset_(opset) {}

NodeTest& NodeTest::Attr(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInt;
  a.i = v;
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, float v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloat;
  a.f = v;
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, const std::string& v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kString;
  a.s = v;
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, std::vector<int64_t> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kInts;
  a.ints = std::move(v);
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, std::vector<float> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kFloats;
  a.floats = std::move(v);
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, std::vector<std::string> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kStrings;
  a.strings = std::move(v);
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, std::shared_ptr<const Tensor> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kTensor;
  a.t = std::move(v);
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Attr(const std::string& name, std::shared_ptr<const ir::Graph> v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::AttrType::kGraph;
  a.g = std::move(v);
  attrs_.push_back(std::move(a));
  return *this;
}

NodeTest& NodeTest::Input(std::shared_ptr<const Tensor> t, bool constant) {
  inputs_.push_back(Value(std::move(t)));
  constant_.push_back(constant);
  return *this;
}

NodeTest& NodeTest::InputValue(Value v) {
  inputs_.push_back(std::move(v));
  constant_.push_back(false);
  return *this;
}

NodeTest& NodeTest::MissingInput() {
  inputs_.push_back(Value());
  constant_.push_back(false);
  return *this;
}

NodeTest& NodeTest::Outputs(size_t n, std::vector<size_t> missing) {
  outputs_ = n;
  missing_outputs_ = std::move(missing);
  return *this;
}

NodeTest& NodeTest::ShapeHint(size_t i, Shape shape) {
  if (hints_.size() <= i) hints_.resize(i + 1);
  hints_[i] = std::move(shape);
  return *this;
}

std::vector<Value> NodeTest::RunValues(int threads) {
  ir::Graph g;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].empty()) {
      ins.push_back(nullptr);
      continue;
    }
    ir::Value* v = g.AddValue("in" + std::to_string(i));
    v->type().kind = inputs_[i].kind() == Value::Kind::kTensor     ? ir::ValueKind::kTensor
                     : inputs_[i].kind() == Value::Kind::kSequence ? ir::ValueKind::kSequence
                                                                   : ir::ValueKind::kOptional;
    v->type().elem = inputs_[i].elem_type();
    if (constant_[i]) {
      v->set_initializer(inputs_[i].tensor());
      v->type().shape = inputs_[i].tensor()->shape();
    } else {
      g.inputs().push_back(v);
    }
    ins.push_back(v);
  }
  std::vector<ir::Value*> outs;
  for (size_t i = 0; i < outputs_; ++i) {
    const bool missing =
        std::find(missing_outputs_.begin(), missing_outputs_.end(), i) != missing_outputs_.end();
    outs.push_back(missing ? nullptr : g.AddValue("out" + std::to_string(i)));
  }
  ir::Node* node = g.AddNode("test_node", op_type_, domain_);
  node->set_opset(opset_);
  node->attributes() = attrs_;
  g.Connect(node, ins, outs);

  const KernelDef* def = CpuKernels().Find(domain_, op_type_, opset_);
  if (def == nullptr) {
    throw Error(ErrorCode::kNotImplemented,
                "no kernel for " + op_type_ + " at opset " + std::to_string(opset_));
  }
  KernelInfo info(*node);
  std::unique_ptr<Kernel> kernel = def->create(info);
  if (!hints_.empty()) {
    std::vector<const Shape*> shapes(inputs_.size(), nullptr);
    for (size_t i = 0; i < hints_.size() && i < shapes.size(); ++i) {
      if (hints_[i].has_value()) shapes[i] = &*hints_[i];
    }
    kernel->SpecializeForShapes(shapes);
  }
  std::vector<const Tensor*> in_ptrs;
  std::vector<const Value*> value_ptrs;
  for (const Value& v : inputs_) {
    in_ptrs.push_back(v.kind() == Value::Kind::kTensor ? v.tensor().get() : nullptr);
    value_ptrs.push_back(v.empty() ? nullptr : &v);
  }
  std::vector<Tensor*> out_ptrs(outputs_, nullptr);
  HeapOutputs allocator(outputs_);
  ThreadPool pool(threads);
  KernelContext ctx(info, in_ptrs, out_ptrs, allocator, pool, nullptr, value_ptrs);
  kernel->Compute(ctx);
  return allocator.TakeValues();
}

std::vector<std::shared_ptr<Tensor>> NodeTest::Run(int threads) {
  std::vector<Value> values = RunValues(threads);
  std::vector<std::shared_ptr<Tensor>> tensors;
  tensors.reserve(values.size());
  for (const Value& v : values) {
    // Kernels' own outputs are fresh, unshared tensors.
    tensors.push_back(v.kind() == Value::Kind::kTensor ? std::const_pointer_cast<Tensor>(v.tensor())
                                                       : nullptr);
  }
  return tensors;
}

}  // namespace kiln::testing
