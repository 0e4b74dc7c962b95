/**
 * @file
 * Kiln C++ wrapper: values (kiln::Value: a tensor, a sequence of tensors or an optional) and
 * their element type and shape (kiln::TensorTypeAndShapeInfo, kiln::kElementTypeOf).
 *
 * @code
 *   #include <kiln/cxx/value.h>
 *
 *   kiln::Value t = kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, 3},
 *                                             KILN_ELEMENT_TYPE_FLOAT);  // zero-filled
 *   t.data<float>()[0] = 1.0f;
 *   std::vector<int64_t> shape = t.type_and_shape().shape();  // {2, 3}
 *
 *   kiln::Value seq = kiln::Value::CreateSequence({t, t}, KILN_ELEMENT_TYPE_FLOAT);  // copies
 *   kiln::Value first = seq.element(0);  // seq.count() == 2
 * @endcode
 */
#ifndef KILN_CXX_VALUE_H_
#define KILN_CXX_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <kiln/cxx/core.h>
#include <kiln/cxx/memory.h>

namespace kiln {

/** An owned KilnTensorTypeAndShapeInfo: a snapshot of a tensor's element type and shape. */
class TensorTypeAndShapeInfo : public Handle<KilnTensorTypeAndShapeInfo> {
 public:
  /** Holds NULL. */
  TensorTypeAndShapeInfo() noexcept = default;

  /**
   * Takes ownership of a type-and-shape info.
   *
   * @param info  The info (may be NULL).
   */
  explicit TensorTypeAndShapeInfo(KilnTensorTypeAndShapeInfo* info) noexcept : Handle(info) {}

  /**
   * The element type (KilnApi::GetTensorElementType).
   *
   * @return The element type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnElementType element_type() const {
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    ThrowOnError(Api().GetTensorElementType(get(), &type));
    return type;
  }

  /**
   * The number of dimensions (KilnApi::GetDimensionsCount).
   *
   * @return The rank.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  size_t rank() const {
    size_t rank = 0;
    ThrowOnError(Api().GetDimensionsCount(get(), &rank));
    return rank;
  }

  /**
   * The dimensions (KilnApi::GetDimensions).
   *
   * @return One entry per dimension; -1 marks a dimension not known until run.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  std::vector<int64_t> shape() const {
    std::vector<int64_t> dims(rank());
    ThrowOnError(Api().GetDimensions(get(), dims.data(), dims.size()));
    return dims;
  }

  /**
   * The symbolic names of the dimensions (KilnApi::GetSymbolicDimensions).
   *
   * @return One UTF-8 name per dimension; "" for a dimension with no name.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  std::vector<std::string> symbolic_shape() const {
    std::vector<const char*> names(rank(), nullptr);
    ThrowOnError(Api().GetSymbolicDimensions(get(), names.data(), names.size()));
    return std::vector<std::string>(names.begin(), names.end());
  }

  /**
   * The number of elements: the product of the dimensions, 1 for rank 0
   * (KilnApi::GetTensorShapeElementCount).
   *
   * @return The element count.
   * @throws Exception  KILN_INVALID_ARGUMENT when a dimension is unknown or the handle is empty.
   */
  size_t element_count() const {
    size_t count = 0;
    ThrowOnError(Api().GetTensorShapeElementCount(get(), &count));
    return count;
  }
};

/// @cond INTERNAL
namespace detail {

template <typename T>
struct AlwaysFalse : std::false_type {};

template <typename T>
constexpr KilnElementType ElementTypeOf() {
  static_assert(sizeof(bool) == 1, "Kiln's bool elements are one byte");
  if constexpr (std::is_same_v<T, float>) {
    return KILN_ELEMENT_TYPE_FLOAT;
  } else if constexpr (std::is_same_v<T, double>) {
    return KILN_ELEMENT_TYPE_DOUBLE;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return KILN_ELEMENT_TYPE_INT8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return KILN_ELEMENT_TYPE_INT16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return KILN_ELEMENT_TYPE_INT32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return KILN_ELEMENT_TYPE_INT64;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return KILN_ELEMENT_TYPE_UINT8;
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return KILN_ELEMENT_TYPE_UINT16;
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return KILN_ELEMENT_TYPE_UINT32;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return KILN_ELEMENT_TYPE_UINT64;
  } else if constexpr (std::is_same_v<T, bool>) {
    return KILN_ELEMENT_TYPE_BOOL;
  } else {
    static_assert(AlwaysFalse<T>::value,
                  "no Kiln element type for T: use float, double, bool or a <cstdint> type");
    return KILN_ELEMENT_TYPE_UNDEFINED;
  }
}

// A NUL byte would silently cut a string short at the C boundary.
inline void CheckNoNul(const std::string& s, const char* entry, const std::string& what) {
  if (s.find('\0') != std::string::npos) {
    throw Exception(KILN_INVALID_ARGUMENT, std::string(entry) + ": " + what +
                                               " contains a NUL byte, which Kiln's strings "
                                               "cannot hold");
  }
}

}  // namespace detail
/// @endcond

/**
 * The element type of tensors over a C++ array of T: float, double, bool, int8_t to int64_t and
 * uint8_t to uint64_t. Any other T fails to compile.
 *
 * @tparam T  The C++ element type.
 */
template <typename T>
inline constexpr KilnElementType kElementTypeOf = detail::ElementTypeOf<T>();

/**
 * An owned KilnValue: a tensor, a sequence of tensors (immutable) or an optional holding a tensor,
 * a sequence or nothing.
 */
class Value : public Handle<KilnValue> {
 public:
  /** Holds NULL. */
  Value() noexcept = default;

  /**
   * Takes ownership of a value.
   *
   * @param value  The value (may be NULL).
   */
  explicit Value(KilnValue* value) noexcept : Handle(value) {}

  /**
   * Creates a tensor whose memory Kiln allocates and owns, zero-filled (string tensors hold empty
   * strings) (KilnApi::CreateTensorAsValue).
   *
   * @param allocator     Where the data comes from; it must outlive the tensor.
   * @param shape         The dimensions, each >= 0.
   * @param element_type  Any defined KilnElementType.
   * @return The owned tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT (a negative dimension, a size that overflows, an
   *                    unknown type), KILN_OUT_OF_MEMORY.
   */
  static Value CreateTensor(Allocator allocator, const std::vector<int64_t>& shape,
                            KilnElementType element_type) {
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateTensorAsValue(allocator.get(), shape.data(), shape.size(),
                                           element_type, &value));
    return Value(value);
  }

  /**
   * Creates a tensor over an array the caller owns, without copying it
   * (KilnApi::CreateTensorWithDataAsValue). The array must stay alive and unmoved for the life
   * of the tensor.
   *
   * @tparam T  The element type: see kElementTypeOf.
   * @param info   Where the array lives; must describe CPU memory. It is copied.
   * @param data   The array; may be NULL only when @p count is 0.
   * @param count  The number of elements in @p data; must equal the shape's element count.
   * @param shape  The dimensions, each >= 0.
   * @return The owned tensor; releasing it leaves the array alone.
   * @throws Exception  KILN_INVALID_ARGUMENT (a negative dimension, @p count not matching the
   *                    shape, memory info not for the CPU), KILN_OUT_OF_MEMORY.
   */
  template <typename T>
  static Value CreateTensor(ConstMemoryInfo info, T* data, size_t count,
                            const std::vector<int64_t>& shape) {
    static_assert(!std::is_const_v<T>, "a tensor's data is writable: pass a non-const array");
    constexpr KilnElementType element_type = kElementTypeOf<T>;
    if (count > std::numeric_limits<size_t>::max() / sizeof(T)) {
      throw Exception(KILN_INVALID_ARGUMENT, "kiln::Value::CreateTensor: argument 'count' (" +
                                                 std::to_string(count) +
                                                 " elements) overflows size_t in bytes");
    }
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateTensorWithDataAsValue(
        info.get(), data, count * sizeof(T), shape.data(), shape.size(), element_type, &value));
    return Value(value);
  }

  /**
   * What kind of value this is (KilnApi::GetValueType).
   *
   * @return The kind.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnValueType value_type() const {
    KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
    ThrowOnError(Api().GetValueType(get(), &type));
    return type;
  }

  /**
   * Whether this is a tensor (KilnApi::IsTensor).
   *
   * @return true for a tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  bool is_tensor() const {
    int is_tensor = 0;
    ThrowOnError(Api().IsTensor(get(), &is_tensor));
    return is_tensor != 0;
  }

  /**
   * Creates a sequence holding copies of tensors (KilnApi::CreateSequenceValue); the tensors stay
   * the caller's, and later writes to them do not reach the sequence.
   *
   * @param tensors       Tensors, each of @p element_type; may be empty.
   * @param element_type  The element type of the tensors (also that of an empty sequence).
   * @return The owned sequence.
   * @throws Exception  KILN_INVALID_ARGUMENT (an entry that is not a tensor of @p element_type,
   *                    named by its index), KILN_OUT_OF_MEMORY.
   */
  static Value CreateSequence(const std::vector<Value>& tensors, KilnElementType element_type) {
    std::vector<const KilnValue*> handles;
    handles.reserve(tensors.size());
    for (const Value& t : tensors) handles.push_back(t.get());
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateSequenceValue(handles.data(), handles.size(), element_type, &value));
    return Value(value);
  }

  /**
   * Creates an optional holding a copy of a tensor, or a sequence (shared: sequences cannot be
   * changed) (KilnApi::CreateOptionalValue).
   *
   * @param content  A tensor or a sequence.
   * @return The owned optional.
   * @throws Exception  KILN_INVALID_ARGUMENT (@p content is an optional or empty),
   *                    KILN_OUT_OF_MEMORY.
   */
  static Value CreateOptional(const Value& content) {
    KilnValueType contained = content.value_type();
    KilnValue* value = nullptr;
    ThrowOnError(
        Api().CreateOptionalValue(content.get(), contained, content.element_type(), &value));
    return Value(value);
  }

  /**
   * Creates an empty optional (KilnApi::CreateOptionalValue with no content).
   *
   * @param contained_type  What it would hold: KILN_VALUE_TYPE_TENSOR or KILN_VALUE_TYPE_SEQUENCE.
   * @param element_type    The element type of that tensor or of the sequence's tensors.
   * @return The owned, empty optional.
   * @throws Exception  KILN_INVALID_ARGUMENT (another kind, an undefined element type),
   *                    KILN_OUT_OF_MEMORY.
   */
  static Value CreateOptional(KilnValueType contained_type, KilnElementType element_type) {
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateOptionalValue(nullptr, contained_type, element_type, &value));
    return Value(value);
  }

  /**
   * How many elements a sequence or an optional holds (KilnApi::GetValueCount).
   *
   * @return A sequence's length; for an optional 1 when it holds something, else 0.
   * @throws Exception  KILN_INVALID_ARGUMENT for a tensor or an empty handle.
   */
  size_t count() const {
    size_t count = 0;
    ThrowOnError(Api().GetValueCount(get(), &count));
    return count;
  }

  /**
   * One element of a sequence, or what an optional holds (KilnApi::GetValueElement).
   *
   * @param index  0 to count() - 1.
   * @return A new value: a copy of the tensor (writing to it does not change this value), or the
   *         sequence an optional holds.
   * @throws Exception  KILN_INVALID_ARGUMENT (a tensor, an index out of range, an empty optional),
   *                    KILN_OUT_OF_MEMORY.
   */
  Value element(size_t index) const {
    KilnValue* value = nullptr;
    ThrowOnError(Api().GetValueElement(get(), index, &value));
    return Value(value);
  }

  /**
   * Whether the value holds something (KilnApi::HasValue).
   *
   * @return false for an empty optional, true otherwise.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  bool has_value() const {
    int has = 0;
    ThrowOnError(Api().HasValue(get(), &has));
    return has != 0;
  }

  /**
   * The element type of a tensor, of a sequence's tensors or of what an optional holds (or would
   * hold) (KilnApi::GetValueElementType).
   *
   * @return The element type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnElementType element_type() const {
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    ThrowOnError(Api().GetValueElementType(get(), &type));
    return type;
  }

  /**
   * The data of a non-string tensor, for reading and writing (KilnApi::GetTensorMutableData).
   * The element type is not checked against T.
   *
   * @tparam T  The type to view the elements as.
   * @return A pointer borrowed from this tensor; NULL for a Kiln-allocated tensor with no
   *         elements.
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  template <typename T>
  T* data() {
    void* data = nullptr;
    ThrowOnError(Api().GetTensorMutableData(get(), &data));
    return static_cast<T*>(data);
  }

  /**
   * The data of a non-string tensor, for reading (KilnApi::GetTensorMutableData).
   * The element type is not checked against T.
   *
   * @tparam T  The type to view the elements as.
   * @return A pointer borrowed from this tensor; NULL for a Kiln-allocated tensor with no
   *         elements.
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  template <typename T>
  const T* data() const {
    void* data = nullptr;
    ThrowOnError(Api().GetTensorMutableData(get(), &data));
    return static_cast<const T*>(data);
  }

  /**
   * The size of a non-string tensor's data (KilnApi::GetTensorSizeInBytes).
   *
   * @return The size in bytes (packed for sub-byte types).
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  size_t size_in_bytes() const {
    size_t size = 0;
    ThrowOnError(Api().GetTensorSizeInBytes(get(), &size));
    return size;
  }

  /**
   * Where the tensor's data lives (KilnApi::GetTensorMemoryInfo).
   *
   * @return A memory info borrowed from this tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  ConstMemoryInfo memory_info() const {
    const KilnMemoryInfo* info = nullptr;
    ThrowOnError(Api().GetTensorMemoryInfo(get(), &info));
    return ConstMemoryInfo(info);
  }

  /**
   * The tensor's element type and shape (KilnApi::GetTensorTypeAndShape).
   *
   * @return An owned snapshot.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  TensorTypeAndShapeInfo type_and_shape() const {
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ThrowOnError(Api().GetTensorTypeAndShape(get(), &info));
    return TensorTypeAndShapeInfo(info);
  }

  /**
   * Sets every element of a string tensor (KilnApi::FillStringTensor). All strings are checked
   * before any is stored, so on failure the tensor is unchanged.
   *
   * @param strings  UTF-8 strings without NUL bytes, one per element, in row-major order.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, wrong count, invalid UTF-8, a
   *                    NUL byte), KILN_OUT_OF_MEMORY.
   */
  void fill_strings(const std::vector<std::string>& strings) {
    std::vector<const char*> c_strings;
    c_strings.reserve(strings.size());
    for (size_t i = 0; i < strings.size(); ++i) {
      detail::CheckNoNul(strings[i], "kiln::Value::fill_strings",
                         "element " + std::to_string(i) + " of argument 'strings'");
      c_strings.push_back(strings[i].c_str());
    }
    ThrowOnError(Api().FillStringTensor(get(), c_strings.data(), c_strings.size()));
  }

  /**
   * Sets one element of a string tensor (KilnApi::FillStringTensorElement).
   *
   * @param index  The element, in row-major order.
   * @param s      A UTF-8 string without NUL bytes.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, index out of range, invalid
   *                    UTF-8, a NUL byte), KILN_OUT_OF_MEMORY.
   */
  void set_string(size_t index, const std::string& s) {
    detail::CheckNoNul(s, "kiln::Value::set_string", "argument 's'");
    ThrowOnError(Api().FillStringTensorElement(get(), s.c_str(), index));
  }

  /**
   * One element of a string tensor (KilnApi::GetStringTensorElementLength and
   * KilnApi::GetStringTensorElement).
   *
   * @param index  The element, in row-major order.
   * @return A copy of the UTF-8 string.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, index out of range).
   */
  std::string string_at(size_t index) const {
    size_t length = 0;
    ThrowOnError(Api().GetStringTensorElementLength(get(), index, &length));
    std::string s(length, '\0');
    ThrowOnError(Api().GetStringTensorElement(get(), s.size(), index, s.data()));
    return s;
  }

  /**
   * Every element of a string tensor (KilnApi::GetStringTensorDataLength and
   * KilnApi::GetStringTensorContent).
   *
   * @return Copies of the UTF-8 strings, in row-major order.
   * @throws Exception  KILN_INVALID_ARGUMENT for a tensor that is not a string tensor,
   *                    KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> strings() const {
    size_t total = 0;
    ThrowOnError(Api().GetStringTensorDataLength(get(), &total));
    const size_t count = type_and_shape().element_count();
    std::string bytes(total, '\0');
    std::vector<size_t> offsets(count);
    ThrowOnError(
        Api().GetStringTensorContent(get(), bytes.data(), total, offsets.data(), offsets.size()));
    std::vector<std::string> result;
    result.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const size_t end = i + 1 < count ? offsets[i + 1] : total;
      result.emplace_back(bytes, offsets[i], end - offsets[i]);
    }
    return result;
  }
};

}  // namespace kiln

#endif  // KILN_CXX_VALUE_H_
