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

// A dimension not known before running but named: every dimension with the same symbol has the
// same size in a run. The graph's inputs give them (one per dim_param name, and one of its own to
// each unnamed unknown dimension), and the inference rules carry them from inputs to outputs, so
// that a pass can tell that two dimensions it cannot size are equal. They are negative, far below
// -1 and 2^20 apart, so that arithmetic on an unknown dimension (which a rule should not do, and
// whose result is written as -1) does not land on one; every helper that treats a negative
// dimension as unknown treats a symbol so.
inline constexpr int64_t kFirstSymbolicDim = -(int64_t{1} << 40);
inline constexpr int64_t kSymbolicDimStride = int64_t{1} << 20;
inline constexpr int64_t kMaxSymbolicDims = int64_t{1} << 19;

// Symbol number k (0 <= k < kMaxSymbolicDims) as a dimension.
inline constexpr int64_t SymbolicDim(int64_t k) noexcept {
  return kFirstSymbolicDim - k * kSymbolicDimStride;
}

inline constexpr bool IsSymbolicDim(int64_t d) noexcept {
  return d <= kFirstSymbolicDim && d > kFirstSymbolicDim - kMaxSymbolicDims * kSymbolicDimStride &&
         (kFirstSymbolicDim - d) % kSymbolicDimStride == 0;
}

// Whether a dimension is a size or a symbol: what two dimensions must be for their equality to
// mean they are equal in every run (two -1 are not).
inline constexpr bool IsNamedDim(int64_t d) noexcept {
  return d >= 0 || IsSymbolicDim(d);
}

// What is known about one tensor value before running.
struct TensorFacts {
  DataType type = DataType::kUndefined;  // kUndefined: not known
  // nullopt: not even the rank; a dimension -1: unknown; a symbolic dimension: unknown but named.
  std::optional<Shape> shape;
  std::shared_ptr<const Tensor> value;  // the contents, when known at load (constants, folds)
  // For an integer tensor of rank 0 or 1 computed from shapes (Shape's output, and Gather,
  // Unsqueeze, Concat... of it) whose contents are not known at load: its elements, each a value
  // or a symbolic dimension. nullopt when not known so.
  std::optional<std::vector<int64_t>> dims_value;
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
  // Records output i's contents as dimensions (TensorFacts::dims_value). Ignored past the end.
  void SetOutputDimsValue(size_t i, std::vector<int64_t> dims) {
    if (i < outputs_.size()) outputs_[i].dims_value = std::move(dims);
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
// Allocates nothing once the table is built (the first call builds it: std::bad_alloc then).
Rule FindRule(std::string_view domain, std::string_view op_type);

}  // namespace kiln::infer

#endif  // KILN_INFER_INFER_H_
