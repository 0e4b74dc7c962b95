#include "runtime/inference.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string_view>

#include "core/error.h"
#include "core/thread_pool.h"

namespace kiln::runtime {
namespace {

// Ops whose result is not a function of their inputs: never evaluated at load.
bool IsRandom(std::string_view op) {
  for (std::string_view r : {"Bernoulli", "Dropout", "Multinomial", "RandomNormal",
                             "RandomNormalLike", "RandomUniform", "RandomUniformLike"}) {
    if (op == r) return true;
  }
  return false;
}

bool HasSubgraph(const ir::Node& node) {
  for (const ir::Attribute& a : node.attributes()) {
    if (a.g || !a.graphs.empty()) return true;
  }
  return false;
}

// Collects the outputs of a node evaluated at load; refuses any larger than kMaxFoldedBytes.
class FoldOutputs final : public OutputAllocator {
 public:
  explicit FoldOutputs(size_t count) : made_(count) {}
  Tensor& Allocate(size_t index, DataType type, std::span<const int64_t> dims,
                   bool /*zero*/) override {
    Shape shape(std::vector<int64_t>(dims.begin(), dims.end()));
    const std::optional<size_t> n = shape.ElementCount();
    const std::optional<size_t> bytes = n ? StorageBytes(type, *n) : std::nullopt;
    if (!bytes || *bytes > kMaxFoldedBytes || index >= made_.size()) {
      throw Error(ErrorCode::kOutOfMemory, "too large to evaluate at load");
    }
    made_[index] = Tensor::Allocate(type, std::move(shape), CpuAllocator());
    return *made_[index];
  }
  void* Scratch(size_t bytes) override { return scratch_.Get(bytes); }
  // Sequences and optionals are not folded: the evaluation is abandoned.
  void SetValue(size_t, Value) override {
    throw Error(ErrorCode::kNotImplemented, "only tensors are evaluated at load");
  }
  std::vector<std::shared_ptr<Tensor>>& made() noexcept { return made_; }

 private:
  std::vector<std::shared_ptr<Tensor>> made_;
  HeapScratch scratch_;
};

// Runs the step's kernel on its constant inputs. Returns false (facts untouched) when the kernel
// fails: the same failure then surfaces, with its message, when the model runs.
bool Evaluate(const InferenceStep& step, std::vector<infer::TensorFacts>& facts) {
  std::vector<const Tensor*> inputs;
  for (int s : *step.inputs) inputs.push_back(s < 0 ? nullptr : facts[s].value.get());
  std::vector<Tensor*> outputs(step.outputs->size(), nullptr);
  FoldOutputs made(step.outputs->size());
  ThreadPool inline_pool(1);
  try {
    KernelContext ctx(*step.info, inputs, outputs, made, inline_pool);
    step.kernel->Compute(ctx);
  } catch (const Error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  } catch (const std::exception&) {
    return false;
  }
  for (size_t i = 0; i < step.outputs->size(); ++i) {
    if ((*step.outputs)[i] >= 0 && made.made()[i] == nullptr) return false;
  }
  for (size_t i = 0; i < step.outputs->size(); ++i) {
    const int s = (*step.outputs)[i];
    if (s < 0) continue;
    std::shared_ptr<Tensor>& t = made.made()[i];
    facts[s] = {t->type(), t->shape(), std::move(t), std::nullopt};
  }
  return true;
}

// Shape and Size of a value whose shape is static are values too, whatever the data.
bool EvaluateShapeOf(const InferenceStep& step, std::vector<infer::TensorFacts>& facts) {
  const ir::Node& node = *step.node;
  if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
  const bool is_shape = node.op_type() == "Shape";
  if ((!is_shape && node.op_type() != "Size") || step.inputs->empty() || step.outputs->empty()) {
    return false;
  }
  const int in = (*step.inputs)[0];
  const int out = (*step.outputs)[0];
  if (in < 0 || out < 0 || !facts[in].shape || !facts[in].shape->ElementCount()) return false;
  const std::vector<int64_t>& dims = facts[in].shape->dims();
  std::shared_ptr<Tensor> t;
  if (is_shape) {
    const auto rank = static_cast<int64_t>(dims.size());
    auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
    const int64_t start = node.opset() >= 15 ? clamp(step.info->GetInt("start", 0)) : 0;
    const int64_t end = node.opset() >= 15 ? clamp(step.info->GetInt("end", rank)) : rank;
    const int64_t n = std::max<int64_t>(end - start, 0);
    t = Tensor::Allocate(DataType::kInt64, Shape({n}), CpuAllocator());
    if (n > 0) {  // an empty tensor has no buffer, and a scalar's dims none either
      std::memcpy(t->data(), dims.data() + start, static_cast<size_t>(n) * sizeof(int64_t));
    }
  } else {
    t = Tensor::Allocate(DataType::kInt64, Shape(std::vector<int64_t>{}), CpuAllocator());
    *static_cast<int64_t*>(t->data()) = static_cast<int64_t>(*facts[in].shape->ElementCount());
  }
  facts[out] = {DataType::kInt64, t->shape(), std::move(t), std::nullopt};
  return true;
}

}  // namespace

int64_t DimSymbols::Of(const std::string& name) {
  if (!name.empty()) {
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
  }
  if (next_ >= infer::kMaxSymbolicDims) return -1;
  const int64_t d = infer::SymbolicDim(next_++);
  if (!name.empty()) named_.emplace(name, d);
  return d;
}

infer::TensorFacts FactsOf(const ir::TypeInfo& type, DimSymbols& symbols) {
  infer::TensorFacts f;
  if (type.kind != ir::ValueKind::kTensor) return f;
  f.type = type.elem;
  if (!type.shape) return f;
  std::vector<int64_t> dims = type.shape->dims();
  const std::vector<std::string>& names = type.shape->symbols();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) dims[i] = symbols.Of(i < names.size() ? names[i] : std::string());
  }
  f.shape = Shape(std::move(dims));
  return f;
}

bool IsStatic(const infer::TensorFacts& f) noexcept {
  return f.type != DataType::kUndefined && f.type != DataType::kString && f.shape &&
         f.shape->ElementCount() && StorageBytes(f.type, *f.shape->ElementCount());
}

std::vector<bool> InferFacts(std::span<const InferenceStep> steps,
                             std::vector<infer::TensorFacts>& facts) {
  std::vector<bool> folded(steps.size(), false);
  for (size_t k = 0; k < steps.size(); ++k) {
    const InferenceStep& step = steps[k];
    const ir::Node& node = *step.node;
    std::vector<const infer::TensorFacts*> in;
    bool all_constant =
        !IsRandom(node.op_type()) && !HasSubgraph(node) && node.implicit_inputs().empty();
    for (int s : *step.inputs) {
      in.push_back(s < 0 ? nullptr : &facts[s]);
      if (s >= 0 && facts[s].value == nullptr) all_constant = false;
    }
    if (all_constant && step.kernel->EvaluableAtLoad() && Evaluate(step, facts)) {
      folded[k] = true;
      continue;
    }
    if (EvaluateShapeOf(step, facts)) {
      folded[k] = true;
      continue;
    }
    infer::Rule rule = infer::FindRule(node.domain(), node.op_type());
    std::vector<infer::TensorFacts> out(step.outputs->size());
    infer::InferenceContext ctx(*step.info, in, out);
    // A custom op's own inference comes first (its kernel says), then Kiln's rule for the op.
    if (!step.kernel->InferOutputs(ctx)) {
      if (rule == nullptr) continue;
      rule(ctx);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      const int s = (*step.outputs)[i];
      if (s >= 0) facts[s] = std::move(out[i]);
    }
  }
  return folded;
}

}  // namespace kiln::runtime
