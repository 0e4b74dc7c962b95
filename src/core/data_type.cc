#include "core/data_type.h"

#include <array>
#include <limits>
#include <string>

namespace kiln {
namespace {

struct TypeRow {
  const char* name;
  size_t bits;
};

// Indexed by the DataType value.
constexpr std::array<TypeRow, kMaxDataType + 1> kTypes = {{
    {"undefined", 0},      {"float", 32},     {"uint8", 8},
    {"int8", 8},           {"uint16", 16},    {"int16", 16},
    {"int32", 32},         {"int64", 64},     {"string", sizeof(std::string) * 8},
    {"bool", 8},           {"float16", 16},   {"double", 64},
    {"uint32", 32},        {"uint64", 64},    {"complex64", 64},
    {"complex128", 128},   {"bfloat16", 16},  {"float8e4m3fn", 8},
    {"float8e4m3fnuz", 8}, {"float8e5m2", 8}, {"float8e5m2fnuz", 8},
    {"uint4", 4},          {"int4", 4},       {"float4e2m1", 4},
    {"float8e8m0", 8},     {"uint2", 2},      {"int2", 2},
}};

}  // namespace

bool IsKnownDataType(int32_t value) noexcept {
  return value > 0 && value <= kMaxDataType;
}

const char* DataTypeName(DataType type) noexcept {
  const auto v = static_cast<int32_t>(type);
  return IsKnownDataType(v) ? kTypes[static_cast<size_t>(v)].name : "undefined";
}

size_t BitsPerElement(DataType type) noexcept {
  const auto v = static_cast<int32_t>(type);
  return IsKnownDataType(v) ? kTypes[static_cast<size_t>(v)].bits : 0;
}

std::optional<size_t> StorageBytes(DataType type, size_t count) noexcept {
  const size_t bits = BitsPerElement(type);
  if (bits == 0) return std::nullopt;
  if (bits % 8 == 0) {
    const size_t bytes = bits / 8;
    if (count > std::numeric_limits<size_t>::max() / bytes) return std::nullopt;
    return count * bytes;
  }
  const size_t per_byte = 8 / bits;  // 2 or 4 elements share a byte
  return count / per_byte + (count % per_byte != 0 ? 1 : 0);
}

}  // namespace kiln
