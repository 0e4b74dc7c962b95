#include "core/value.h"

#include <cstring>

#include "core/error.h"

namespace kiln {

Value Value::FromSequence(std::shared_ptr<const TensorSequence> s) {
  Value v;
  if (s == nullptr) return v;
  v.kind_ = Kind::kSequence;
  v.sequence_ = std::move(s);
  return v;
}

Value Value::OptionalOf(const Value& content) {
  if (content.kind_ != Kind::kTensor && content.kind_ != Kind::kSequence) {
    throw Error(ErrorCode::kInvalidArgument,
                "an optional holds a tensor or a sequence, not " + content.TypeText());
  }
  Value v = content;
  v.contained_ = content.kind_;
  v.kind_ = Kind::kOptional;
  return v;
}

Value Value::EmptyOptional(Kind contained, DataType elem_type) {
  if (contained != Kind::kTensor && contained != Kind::kSequence) {
    throw Error(ErrorCode::kInvalidArgument, "an optional holds a tensor or a sequence");
  }
  Value v;
  v.kind_ = Kind::kOptional;
  v.contained_ = contained;
  v.elem_ = elem_type;
  return v;
}

bool Value::has_value() const noexcept {
  switch (kind_) {
    case Kind::kTensor:
    case Kind::kSequence:
      return true;
    case Kind::kOptional:
      return tensor_ != nullptr || sequence_ != nullptr;
    case Kind::kNone:
      break;
  }
  return false;
}

DataType Value::elem_type() const noexcept {
  if (tensor_ != nullptr) return tensor_->type();
  if (sequence_ != nullptr) return sequence_->elem_type;
  return elem_;
}

Value Value::Content() const {
  if (kind_ != Kind::kOptional) return *this;
  if (tensor_ != nullptr) return Value(tensor_);
  if (sequence_ != nullptr) return FromSequence(sequence_);
  return Value();
}

std::string Value::TypeText() const {
  std::string tensor = std::string("tensor(") + DataTypeName(elem_type()) + ")";
  switch (kind_) {
    case Kind::kTensor:
      return tensor;
    case Kind::kSequence:
      return "seq(" + tensor + ")";
    case Kind::kOptional:
      return "optional(" + (contained_ == Kind::kSequence ? "seq(" + tensor + ")" : tensor) + ")";
    case Kind::kNone:
      break;
  }
  return "no value";
}

std::shared_ptr<Tensor> CopyTensor(const Tensor& t, const std::shared_ptr<Allocator>& allocator) {
  // Every element is written below, so the storage is not cleared first.
  std::shared_ptr<Tensor> copy = Tensor::AllocateForOverwrite(t.type(), t.shape(), allocator);
  if (t.type() == DataType::kString) {
    for (size_t i = 0; i < t.element_count(); ++i) copy->strings()[i] = t.strings()[i];
  } else if (t.byte_size() != 0) {
    std::memcpy(copy->data(), t.data(), t.byte_size());
  }
  return copy;
}

}  // namespace kiln
