// What one slot of a run holds: a tensor, a sequence of tensors (ONNX seq(tensor(T))), or an
// optional holding one of those or nothing. Values are immutable once made; copying a Value
// shares its contents.
//
//   auto seq = std::make_shared<kiln::TensorSequence>();
//   seq->elem_type = kiln::DataType::kFloat;
//   seq->tensors.push_back(t);
//   kiln::Value v = kiln::Value::FromSequence(std::move(seq));
//   kiln::Value o = kiln::Value::OptionalOf(v);          // optional(seq(tensor(float)))
#ifndef KILN_CORE_VALUE_H_
#define KILN_CORE_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/data_type.h"
#include "core/tensor.h"

namespace kiln {

// A sequence of tensors that all have `elem_type` (known even when the sequence is empty).
struct TensorSequence {
  DataType elem_type = DataType::kUndefined;
  std::vector<std::shared_ptr<const Tensor>> tensors;
};

class Value {
 public:
  enum class Kind : uint8_t { kNone = 0, kTensor = 1, kSequence = 2, kOptional = 3 };

  // No value (an unset slot).
  Value() = default;
  // A tensor (const or not); null gives kNone. Implicit: a tensor is a value.
  template <typename T>
  requires std::is_same_v<std::remove_const_t<T>, Tensor> Value(
      std::shared_ptr<T> t)  // NOLINT(google-explicit-constructor)
      : kind_(t != nullptr ? Kind::kTensor : Kind::kNone), tensor_(std::move(t)) {}
  static Value FromSequence(std::shared_ptr<const TensorSequence> s);
  // An optional holding `content` (a tensor or a sequence).
  static Value OptionalOf(const Value& content);
  // An empty optional of a tensor or a sequence (`contained`) of `elem_type`.
  static Value EmptyOptional(Kind contained, DataType elem_type);

  Kind kind() const noexcept { return kind_; }
  bool empty() const noexcept { return kind_ == Kind::kNone; }
  // For an optional: whether it holds something. True for a tensor or a sequence.
  bool has_value() const noexcept;
  // What an optional holds or would hold (kTensor or kSequence); kind() for the others.
  Kind contained_kind() const noexcept { return kind_ == Kind::kOptional ? contained_ : kind_; }
  // The element type of the tensor, of the sequence's tensors, or of the optional's content.
  DataType elem_type() const noexcept;

  // The tensor of a kTensor value, or of an optional holding one; else nullptr.
  const std::shared_ptr<const Tensor>& tensor() const noexcept { return tensor_; }
  // The sequence of a kSequence value, or of an optional holding one; else nullptr.
  const std::shared_ptr<const TensorSequence>& sequence() const noexcept { return sequence_; }
  // What an optional holds (kNone when empty); the value itself for the others.
  Value Content() const;

  // "tensor(float)", "seq(tensor(int64))", "optional(tensor(float))" for messages.
  std::string TypeText() const;

 private:
  Kind kind_ = Kind::kNone;
  Kind contained_ = Kind::kNone;          // for kOptional
  DataType elem_ = DataType::kUndefined;  // for an empty optional
  std::shared_ptr<const Tensor> tensor_;
  std::shared_ptr<const TensorSequence> sequence_;
};

// Makes an independent copy of a tensor (strings included) from `allocator`.
std::shared_ptr<Tensor> CopyTensor(const Tensor& t, const std::shared_ptr<Allocator>& allocator);

}  // namespace kiln

#endif  // KILN_CORE_VALUE_H_
