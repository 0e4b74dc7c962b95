// Entries: sequences and optionals (CreateSequenceValue … GetValueElementType, slots 73-78).
//
// A sequence or an optional is immutable once made, so it may be shared; a tensor is not, so a
// tensor going into or coming out of one is copied.
#include <memory>
#include <string>
#include <utility>

#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "core/value.h"

namespace kiln::api {
namespace {

// The engine's view of a handle's value.
Value ValueOf(const KilnValue& v) {
  return v.tensor != nullptr ? Value(v.tensor) : v.other;
}

// "a tensor(float)", "an optional(seq(tensor(int64)))": a value's type for messages.
std::string Described(const Value& v) {
  return (v.kind() == Value::Kind::kOptional ? "an " : "a ") + v.TypeText();
}

const char* KindName(Value::Kind kind) {
  return kind == Value::Kind::kSequence ? "a sequence" : "a tensor";
}

void PublishValue(Value value, KilnValue** out) {
  Publish(std::unique_ptr<KilnValue>(new KilnValue{nullptr, std::move(value)}), out);
}

void PublishTensor(std::shared_ptr<Tensor> tensor, KilnValue** out) {
  Publish(std::unique_ptr<KilnValue>(new KilnValue{std::move(tensor), {}}), out);
}

// A sequence or an optional; a tensor is refused naming `argument`.
Value UnwrapContainer(const KilnValue* value, const char* argument) {
  const KilnValue& v = Unwrap(value, argument);
  if (v.tensor != nullptr) {
    ThrowInvalidArgument(argument,
                         "is " + Described(Value(v.tensor)) + ", not a sequence or an optional");
  }
  return v.other;
}

}  // namespace

KilnStatus* KILN_API_CALL CreateSequenceValue(const KilnValue* const* tensors, size_t count,
                                              KilnElementType element_type, KilnValue** out) {
  return Guard("CreateSequenceValue", [&] {
    const DataType type = CheckedElementType(element_type, "element_type");
    if (tensors == nullptr && count != 0) ThrowInvalidArgument("tensors", "is NULL");
    for (size_t i = 0; i < count; ++i) {
      const KilnValue& v = UnwrapEntry(tensors[i], "tensors", i);
      if (v.tensor == nullptr) {
        ThrowInvalidArgument("tensors", "entry " + std::to_string(i) + " is " + Described(v.other) +
                                            ", not a tensor");
      }
      if (v.tensor->type() != type) {
        ThrowInvalidArgument("tensors", "entry " + std::to_string(i) + " is a tensor of " +
                                            DataTypeName(v.tensor->type()) +
                                            ", but element_type is " + DataTypeName(type));
      }
    }
    CheckOut(out, "out");
    auto sequence = std::make_shared<TensorSequence>();
    sequence->elem_type = type;
    sequence->tensors.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      sequence->tensors.push_back(CopyTensor(*tensors[i]->tensor, CpuAllocator()));
    }
    PublishValue(Value::FromSequence(std::move(sequence)), out);
  });
}

KilnStatus* KILN_API_CALL CreateOptionalValue(const KilnValue* content,
                                              KilnValueType contained_type,
                                              KilnElementType element_type, KilnValue** out) {
  return Guard("CreateOptionalValue", [&] {
    const KilnValue* given = content != nullptr ? &Unwrap(content, "content") : nullptr;
    if (given != nullptr && given->tensor == nullptr &&
        given->other.kind() == Value::Kind::kOptional) {
      ThrowInvalidArgument("content",
                           "is " + Described(given->other) + "; an optional cannot hold one");
    }
    const int contained = EnumValue(contained_type);
    if (contained != KILN_VALUE_TYPE_TENSOR && contained != KILN_VALUE_TYPE_SEQUENCE) {
      ThrowInvalidArgument(
          "contained_type",
          std::to_string(contained) +
              " is not KILN_VALUE_TYPE_TENSOR (1) or KILN_VALUE_TYPE_SEQUENCE (2)");
    }
    const Value::Kind kind =
        contained == KILN_VALUE_TYPE_TENSOR ? Value::Kind::kTensor : Value::Kind::kSequence;
    const DataType type = CheckedElementType(element_type, "element_type");
    if (given != nullptr) {
      const Value v = ValueOf(*given);
      if (v.kind() != kind) {
        ThrowInvalidArgument(
            "content", "is " + Described(v) + ", but contained_type asks for " + KindName(kind));
      }
      if (v.elem_type() != type) {
        ThrowInvalidArgument("content",
                             "is " + Described(v) + ", but element_type is " + DataTypeName(type));
      }
    }
    CheckOut(out, "out");
    if (given == nullptr) {
      PublishValue(Value::EmptyOptional(kind, type), out);
    } else if (given->tensor != nullptr) {
      PublishValue(Value::OptionalOf(Value(CopyTensor(*given->tensor, CpuAllocator()))), out);
    } else {
      PublishValue(Value::OptionalOf(given->other), out);
    }
  });
}

KilnStatus* KILN_API_CALL GetValueCount(const KilnValue* value, size_t* out) {
  return Guard("GetValueCount", [&] {
    const Value v = UnwrapContainer(value, "value");
    CheckOut(out, "out");
    if (v.kind() == Value::Kind::kSequence) {
      *out = v.sequence()->tensors.size();
    } else {
      *out = v.has_value() ? 1 : 0;
    }
  });
}

KilnStatus* KILN_API_CALL GetValueElement(const KilnValue* value, size_t index, KilnValue** out) {
  return Guard("GetValueElement", [&] {
    const Value v = UnwrapContainer(value, "value");
    if (v.kind() == Value::Kind::kSequence) {
      const size_t count = v.sequence()->tensors.size();
      if (index >= count) {
        ThrowInvalidArgument("index", std::to_string(index) + " is out of range for a " +
                                          v.TypeText() + " of " + std::to_string(count));
      }
      CheckOut(out, "out");
      PublishTensor(CopyTensor(*v.sequence()->tensors[index], CpuAllocator()), out);
      return;
    }
    const size_t count = v.has_value() ? 1 : 0;
    if (index >= count) {
      ThrowInvalidArgument("index", std::to_string(index) + " is out of range for an " +
                                        (count == 0 ? "empty " : "") + v.TypeText() + " (count " +
                                        std::to_string(count) + ")");
    }
    CheckOut(out, "out");
    if (v.tensor() != nullptr) {
      PublishTensor(CopyTensor(*v.tensor(), CpuAllocator()), out);
    } else {
      PublishValue(v.Content(), out);
    }
  });
}

KilnStatus* KILN_API_CALL HasValue(const KilnValue* value, int* out) {
  return Guard("HasValue", [&] {
    const KilnValue& v = Unwrap(value, "value");
    CheckOut(out, "out");
    *out = v.tensor != nullptr || v.other.has_value() ? 1 : 0;
  });
}

KilnStatus* KILN_API_CALL GetValueElementType(const KilnValue* value, KilnElementType* out) {
  return Guard("GetValueElementType", [&] {
    const KilnValue& v = Unwrap(value, "value");
    CheckOut(out, "out");
    *out = static_cast<KilnElementType>(ValueOf(v).elem_type());
  });
}

}  // namespace kiln::api
