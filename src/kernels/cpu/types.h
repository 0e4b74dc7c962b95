// C++ types for element types, and dispatch from a runtime DataType to a template.
//
//   kiln::cpu::Dispatch<float, double, int32_t, int64_t>(x.type(), info, [&](auto tag) {
//     using T = typename decltype(tag)::type;
//     ...
//   });
#ifndef KILN_KERNELS_CPU_TYPES_H_
#define KILN_KERNELS_CPU_TYPES_H_

#include <cstdint>
#include <string>

#include "core/data_type.h"
#include "core/float16.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

template <typename T>
struct TypeTag {
  using type = T;
};

// The DataType of a C++ element type (bool, the fixed-width integers, float, double, Float16,
// BFloat16, std::string).
template <typename T>
constexpr DataType DataTypeOf();
template <>
constexpr DataType DataTypeOf<float>() {
  return DataType::kFloat;
}
template <>
constexpr DataType DataTypeOf<double>() {
  return DataType::kDouble;
}
template <>
constexpr DataType DataTypeOf<uint8_t>() {
  return DataType::kUint8;
}
template <>
constexpr DataType DataTypeOf<int8_t>() {
  return DataType::kInt8;
}
template <>
constexpr DataType DataTypeOf<uint16_t>() {
  return DataType::kUint16;
}
template <>
constexpr DataType DataTypeOf<int16_t>() {
  return DataType::kInt16;
}
template <>
constexpr DataType DataTypeOf<uint32_t>() {
  return DataType::kUint32;
}
template <>
constexpr DataType DataTypeOf<int32_t>() {
  return DataType::kInt32;
}
template <>
constexpr DataType DataTypeOf<uint64_t>() {
  return DataType::kUint64;
}
template <>
constexpr DataType DataTypeOf<int64_t>() {
  return DataType::kInt64;
}
template <>
constexpr DataType DataTypeOf<bool>() {
  return DataType::kBool;
}
template <>
constexpr DataType DataTypeOf<Float16>() {
  return DataType::kFloat16;
}
template <>
constexpr DataType DataTypeOf<BFloat16>() {
  return DataType::kBfloat16;
}
template <>
constexpr DataType DataTypeOf<std::string>() {
  return DataType::kString;
}

// Calls fn(TypeTag<T>{}) for the T among Ts whose DataType is `type`; otherwise throws
// kNotImplemented naming the node and the type.
template <typename... Ts, typename F>
void Dispatch(DataType type, const KernelInfo& info, F&& fn) {
  const bool found = ((type == DataTypeOf<Ts>() ? (fn(TypeTag<Ts>{}), true) : false) || ...);
  if (!found) {
    info.Fail(ErrorCode::kNotImplemented,
              std::string("element type ") + DataTypeName(type) + " is not supported");
  }
}

// A 16-byte element (complex128) moved as a whole.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// Calls fn(TypeTag<E>{}) with E an unsigned integer (or Bytes16) of the element's size, or
// std::string for string tensors. For kernels that only move elements (one instantiation per size).
// Sub-byte types (int4, uint4, int2, uint2, float4) throw kNotImplemented naming the node and the
// type.
template <typename F>
void DispatchStorage(DataType type, const KernelInfo& info, F&& fn) {
  if (type == DataType::kString) {
    fn(TypeTag<std::string>{});
    return;
  }
  switch (BitsPerElement(type)) {
    case 8:
      fn(TypeTag<uint8_t>{});
      return;
    case 16:
      fn(TypeTag<uint16_t>{});
      return;
    case 32:
      fn(TypeTag<uint32_t>{});
      return;
    case 64:
      fn(TypeTag<uint64_t>{});
      return;
    case 128:
      fn(TypeTag<Bytes16>{});
      return;
    default:
      info.Fail(ErrorCode::kNotImplemented,
                std::string("element type ") + DataTypeName(type) + " is not supported");
  }
}

// Groups for Dispatch<…>: spell them out at the call site with these aliases' packs.
#define KILN_FLOAT_TYPES float, double, ::kiln::Float16, ::kiln::BFloat16
#define KILN_INT_TYPES int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
#define KILN_NUMERIC_TYPES KILN_FLOAT_TYPES, KILN_INT_TYPES

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TYPES_H_
