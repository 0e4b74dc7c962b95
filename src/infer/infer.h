// Static shape and type inference: what is known about each tensor before the model runs, and one
// rule per op that derives a node's outputs from its inputs. The runtime (runtime/inference.h)
// walks a graph in order, evaluates nodes whose inputs are all known constants with their
// kernels, and applies these rules to the rest; what no rule can tell stays unknown and is found
// at run time.
//
//   kiln::infer::Rule rule = kiln::infer::FindRule("", "MatMul");
//   if (rule != nullptr) rule(ctx);  // sets ctx's outputs it can derive
#ifndef KILN_INFER_INFER_H_
#define KILN_INFER_INFER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/data_type.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "kernels/kernel.h"

namespace kiln::infer {

// What is known about one tensor value before running.
struct TensorFacts {
  DataType type = DataType::kUndefined;  // kUndefined: not known
  std::optional<Shape> shape;            // nullopt: not even the rank; a dimension -1: unknown
  std::shared_ptr<const Tensor> value;   // the contents, when known at load (constants, folds)
};

// One node as a rule sees it: its attributes (through KernelInfo), what is known of its inputs,
// and the outputs the rule fills.
class InferenceContext {
 public:
  InferenceContext(const KernelInfo& info, std::span<const TensorFacts* const> inputs,
                   std::span<TensorFacts> outputs)
      : info_(info), inputs_(inputs), outputs_(outputs) {}

  const KernelInfo& info() const noexcept { return info_; }
  int64_t opset() const noexcept { return info_.opset(); }
  size_t input_count() const noexcept { return inputs_.size(); }
  size_t output_count() const noexcept { return outputs_.size(); }
  // nullptr for an optional input left out (or past the end).
  const TensorFacts* Input(size_t i) const noexcept {
    return i < inputs_.size() ? inputs_[i] : nullptr;
  }
  // The input's contents when known at load, else nullptr.
  const Tensor* InputValue(size_t i) const noexcept {
    const TensorFacts* f = Input(i);
    return f != nullptr ? f->value.get() : nullptr;
  }
  // Whether the graph uses output i.
  bool WantsOutput(size_t i) const noexcept { return info_.HasOutput(i); }
  // Records what is known of output i: its type (kUndefined if not known) and its shape (nullopt
  // if not even the rank is known). Ignored for an output past the end.
  void SetOutput(size_t i, DataType type, std::optional<Shape> shape) {
    if (i >= outputs_.size()) return;
    outputs_[i].type = type;
    outputs_[i].shape = std::move(shape);
  }
  // A contradiction that makes the node impossible to run (e.g. static MatMul dimensions that
  // differ): throws kInvalidGraph "node 'n' (Op): what".
  [[noreturn]] void Fail(const std::string& what) const {
    info_.Fail(ErrorCode::kInvalidGraph, what);
  }

 private:
  const KernelInfo& info_;
  std::span<const TensorFacts* const> inputs_;
  std::span<TensorFacts> outputs_;
};

// Derives what it can of a node's outputs. A rule never guesses: it leaves an output's type or
// shape unknown when the inputs do not determine it, and calls Fail only for a certain
// contradiction.
using Rule = void (*)(InferenceContext&);

// The rule for an op ("" and "ai.onnx" are the default domain); nullptr when Kiln has none.
Rule FindRule(std::string_view domain, std::string_view op_type) noexcept;

}  // namespace kiln::infer

#endif  // KILN_INFER_INFER_H_
