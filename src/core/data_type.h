// Tensor element types: ONNX's TensorProto.DataType values, with their names and storage sizes.
//
//   std::optional<size_t> bytes = kiln::StorageBytes(kiln::DataType::kInt4, 5);  // 3 (packed)
#ifndef KILN_CORE_DATA_TYPE_H_
#define KILN_CORE_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <optional>

namespace kiln {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUint2 = 25,
  kInt2 = 26,
};

// The largest DataType value Kiln knows.
inline constexpr int32_t kMaxDataType = 26;

// Whether `value` names a DataType other than kUndefined.
bool IsKnownDataType(int32_t value) noexcept;

// The ONNX name of a type ("float", "int4", …); "undefined" for anything unknown.
const char* DataTypeName(DataType type) noexcept;

// Bits one element occupies in storage: 2, 4, 8, …, 128; for kString the size of the in-memory
// string object; 0 for kUndefined or an unknown value.
size_t BitsPerElement(DataType type) noexcept;

// Bytes `count` elements occupy (sub-byte types packed and rounded up); nullopt on overflow.
std::optional<size_t> StorageBytes(DataType type, size_t count) noexcept;

}  // namespace kiln

#endif  // KILN_CORE_DATA_TYPE_H_
