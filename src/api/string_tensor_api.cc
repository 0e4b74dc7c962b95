// Entries: string tensors (FillStringTensor … GetStringTensorElement).
#include <string>
#include <utility>
#include <vector>

#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "core/utf8.h"

namespace kiln::api {
namespace {

Tensor& UnwrapStringTensor(const KilnValue* value, const char* argument) {
  const KilnValue& v = Unwrap(value, argument);
  if (v.tensor == nullptr) {
    ThrowInvalidArgument(argument, "is a " + v.other.TypeText() + ", not a string tensor");
  }
  Tensor& t = *v.tensor;
  if (t.type() != DataType::kString) {
    ThrowInvalidArgument(
        argument, std::string("is a ") + DataTypeName(t.type()) + " tensor, not a string tensor");
  }
  return t;
}

void CheckIndex(const Tensor& t, size_t index) {
  if (index >= t.element_count()) {
    ThrowInvalidArgument("index", std::to_string(index) + " is out of range for " +
                                      std::to_string(t.element_count()) + " elements");
  }
}

// A checked copy of a caller's string; `what` names it in messages ("s", "element 3 of 's'").
std::string CopyUtf8(const char* s, const char* argument, const std::string& what) {
  if (s == nullptr) ThrowInvalidArgument(argument, what + " is NULL");
  size_t bad = 0;
  if (!IsValidUtf8(s, &bad)) {
    ThrowInvalidArgument(argument,
                         what + " is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
  }
  return s;
}

size_t TotalLength(const Tensor& t) noexcept {
  size_t total = 0;
  for (size_t i = 0; i < t.element_count(); ++i) total += t.strings()[i].size();
  return total;
}

}  // namespace

KilnStatus* KILN_API_CALL FillStringTensor(KilnValue* value, const char* const* s, size_t s_len) {
  return Guard("FillStringTensor", [&] {
    Tensor& t = UnwrapStringTensor(value, "value");
    RefuseReadOnly(*value, "value");
    if (s_len != t.element_count()) {
      ThrowInvalidArgument("s_len", std::to_string(s_len) + " strings for a tensor of " +
                                        std::to_string(t.element_count()) + " elements");
    }
    if (s == nullptr && s_len != 0) ThrowInvalidArgument("s", "is NULL");
    std::vector<std::string> copies;
    copies.reserve(s_len);
    for (size_t i = 0; i < s_len; ++i) {
      copies.push_back(CopyUtf8(s[i], "s", "element " + std::to_string(i)));
    }
    for (size_t i = 0; i < s_len; ++i) t.strings()[i].swap(copies[i]);  // cannot fail
  });
}

KilnStatus* KILN_API_CALL FillStringTensorElement(KilnValue* value, const char* s, size_t index) {
  return Guard("FillStringTensorElement", [&] {
    Tensor& t = UnwrapStringTensor(value, "value");
    RefuseReadOnly(*value, "value");
    CheckIndex(t, index);
    std::string copy = CopyUtf8(s, "s", "the string");
    t.strings()[index].swap(copy);
  });
}

KilnStatus* KILN_API_CALL GetStringTensorDataLength(const KilnValue* value, size_t* out) {
  return Guard("GetStringTensorDataLength", [&] {
    const Tensor& t = UnwrapStringTensor(value, "value");
    CheckOut(out, "out");
    *out = TotalLength(t);
  });
}

KilnStatus* KILN_API_CALL GetStringTensorContent(const KilnValue* value, void* s, size_t s_len,
                                                 size_t* offsets, size_t offsets_len) {
  return Guard("GetStringTensorContent", [&] {
    const Tensor& t = UnwrapStringTensor(value, "value");
    const size_t total = TotalLength(t);
    if (s_len < total) {
      ThrowInvalidArgument(
          "s_len", std::to_string(s_len) + " bytes, but the strings need " + std::to_string(total));
    }
    if (s == nullptr && total != 0) ThrowInvalidArgument("s", "is NULL");
    if (offsets_len != t.element_count()) {
      ThrowInvalidArgument("offsets_len", std::to_string(offsets_len) + " offsets for " +
                                              std::to_string(t.element_count()) + " elements");
    }
    if (offsets == nullptr && offsets_len != 0) ThrowInvalidArgument("offsets", "is NULL");
    auto* bytes = static_cast<char*>(s);
    size_t at = 0;
    for (size_t i = 0; i < t.element_count(); ++i) {
      const std::string& e = t.strings()[i];
      offsets[i] = at;
      e.copy(bytes + at, e.size());
      at += e.size();
    }
  });
}

KilnStatus* KILN_API_CALL GetStringTensorElementLength(const KilnValue* value, size_t index,
                                                       size_t* out) {
  return Guard("GetStringTensorElementLength", [&] {
    const Tensor& t = UnwrapStringTensor(value, "value");
    CheckIndex(t, index);
    CheckOut(out, "out");
    *out = t.strings()[index].size();
  });
}

KilnStatus* KILN_API_CALL GetStringTensorElement(const KilnValue* value, size_t s_len, size_t index,
                                                 void* s) {
  return Guard("GetStringTensorElement", [&] {
    const Tensor& t = UnwrapStringTensor(value, "value");
    CheckIndex(t, index);
    const std::string& e = t.strings()[index];
    if (s_len < e.size()) {
      ThrowInvalidArgument("s_len", std::to_string(s_len) + " bytes, but element " +
                                        std::to_string(index) + " needs " +
                                        std::to_string(e.size()));
    }
    if (s == nullptr && !e.empty()) ThrowInvalidArgument("s", "is NULL");
    if (!e.empty()) e.copy(static_cast<char*>(s), e.size());
  });
}

}  // namespace kiln::api
