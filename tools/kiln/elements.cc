#include "elements.h"

#include <bit>
#include <cstring>

namespace kiln::cli {
namespace {

template <typename T>
double Read(const void* data, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

}  // namespace

std::string ElementTypeName(KilnElementType type) {
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
      return "float";
    case KILN_ELEMENT_TYPE_UINT8:
      return "uint8";
    case KILN_ELEMENT_TYPE_INT8:
      return "int8";
    case KILN_ELEMENT_TYPE_UINT16:
      return "uint16";
    case KILN_ELEMENT_TYPE_INT16:
      return "int16";
    case KILN_ELEMENT_TYPE_INT32:
      return "int32";
    case KILN_ELEMENT_TYPE_INT64:
      return "int64";
    case KILN_ELEMENT_TYPE_STRING:
      return "string";
    case KILN_ELEMENT_TYPE_BOOL:
      return "bool";
    case KILN_ELEMENT_TYPE_FLOAT16:
      return "float16";
    case KILN_ELEMENT_TYPE_DOUBLE:
      return "double";
    case KILN_ELEMENT_TYPE_UINT32:
      return "uint32";
    case KILN_ELEMENT_TYPE_UINT64:
      return "uint64";
    case KILN_ELEMENT_TYPE_COMPLEX64:
      return "complex64";
    case KILN_ELEMENT_TYPE_COMPLEX128:
      return "complex128";
    case KILN_ELEMENT_TYPE_BFLOAT16:
      return "bfloat16";
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
      return "float8e4m3fn";
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
      return "float8e4m3fnuz";
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
      return "float8e5m2";
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
      return "float8e5m2fnuz";
    case KILN_ELEMENT_TYPE_UINT4:
      return "uint4";
    case KILN_ELEMENT_TYPE_INT4:
      return "int4";
    case KILN_ELEMENT_TYPE_FLOAT4E2M1:
      return "float4e2m1";
    case KILN_ELEMENT_TYPE_FLOAT8E8M0:
      return "float8e8m0";
    case KILN_ELEMENT_TYPE_UINT2:
      return "uint2";
    case KILN_ELEMENT_TYPE_INT2:
      return "int2";
    case KILN_ELEMENT_TYPE_UNDEFINED:
      break;
  }
  return "undefined";
}

size_t ElementSize(KilnElementType type) {
  switch (type) {
    case KILN_ELEMENT_TYPE_UINT8:
    case KILN_ELEMENT_TYPE_INT8:
    case KILN_ELEMENT_TYPE_BOOL:
      return 1;
    case KILN_ELEMENT_TYPE_UINT16:
    case KILN_ELEMENT_TYPE_INT16:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
      return 2;
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_INT32:
    case KILN_ELEMENT_TYPE_UINT32:
      return 4;
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_INT64:
    case KILN_ELEMENT_TYPE_UINT64:
      return 8;
    default:
      return 0;
  }
}

bool IsFloatingPoint(KilnElementType type) {
  return type == KILN_ELEMENT_TYPE_FLOAT || type == KILN_ELEMENT_TYPE_DOUBLE ||
         type == KILN_ELEMENT_TYPE_FLOAT16 || type == KILN_ELEMENT_TYPE_BFLOAT16;
}

double ElementAsDouble(KilnElementType type, const void* data, size_t i) {
  switch (type) {
    case KILN_ELEMENT_TYPE_UINT8:
    case KILN_ELEMENT_TYPE_BOOL:
      return Read<uint8_t>(data, i);
    case KILN_ELEMENT_TYPE_INT8:
      return Read<int8_t>(data, i);
    case KILN_ELEMENT_TYPE_UINT16:
      return Read<uint16_t>(data, i);
    case KILN_ELEMENT_TYPE_INT16:
      return Read<int16_t>(data, i);
    case KILN_ELEMENT_TYPE_FLOAT16:
      return HalfToFloat(static_cast<uint16_t>(Read<uint16_t>(data, i)));
    case KILN_ELEMENT_TYPE_BFLOAT16:
      return BFloat16ToFloat(static_cast<uint16_t>(Read<uint16_t>(data, i)));
    case KILN_ELEMENT_TYPE_FLOAT:
      return Read<float>(data, i);
    case KILN_ELEMENT_TYPE_INT32:
      return Read<int32_t>(data, i);
    case KILN_ELEMENT_TYPE_UINT32:
      return Read<uint32_t>(data, i);
    case KILN_ELEMENT_TYPE_DOUBLE:
      return Read<double>(data, i);
    case KILN_ELEMENT_TYPE_INT64:
      return Read<int64_t>(data, i);
    case KILN_ELEMENT_TYPE_UINT64:
      return Read<uint64_t>(data, i);
    default:
      return 0;
  }
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0x1f) {  // infinity or NaN
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {  // normal
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // subnormal: normalise
    uint32_t e = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
  } else {
    bits = sign;
  }
  return std::bit_cast<float>(bits);
}

uint16_t FloatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // infinity or NaN (kept quiet)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Adding 0.5 in float aligns the half's subnormal bits at the bottom of the mantissa and
    // rounds them to nearest even.
    const float shifted = std::bit_cast<float>(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  const uint32_t odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xc8000fffu + odd;  // rebias exponent by -112, round to even
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

float BFloat16ToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

uint16_t FloatToBFloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t odd = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + odd) >> 16);
}

std::string ShapeText(const std::vector<int64_t>& dims, const std::vector<std::string>& symbols) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) text += ", ";
    if (dims[i] >= 0) {
      text += std::to_string(dims[i]);
    } else if (i < symbols.size() && !symbols[i].empty()) {
      text += symbols[i];
    } else {
      text += "?";
    }
  }
  return text + "]";
}

}  // namespace kiln::cli
