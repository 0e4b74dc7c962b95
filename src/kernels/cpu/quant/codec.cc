#include "kernels/cpu/quant/codec.h"

#include <cstring>

#include "core/float16.h"
#include "kernels/cpu/elementwise/small_types.h"

namespace kiln::cpu::quant {
namespace {

template <typename T>
T Read(const void* data, size_t i) noexcept {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(data) + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void Write(void* data, size_t i, T v) noexcept {
  std::memcpy(static_cast<unsigned char*>(data) + i * sizeof(T), &v, sizeof(T));
}

uint8_t PackedCode(const void* data, size_t i, int bits) noexcept {
  const size_t per_byte = 8 / static_cast<size_t>(bits);
  const uint8_t byte = static_cast<const uint8_t*>(data)[i / per_byte];
  return static_cast<uint8_t>((byte >> (bits * static_cast<int>(i % per_byte))) &
                              ((1u << bits) - 1));
}

void SetPackedCode(void* data, size_t i, int bits, uint8_t code) noexcept {
  const size_t per_byte = 8 / static_cast<size_t>(bits);
  const int shift = bits * static_cast<int>(i % per_byte);
  uint8_t& byte = static_cast<uint8_t*>(data)[i / per_byte];
  const auto mask = static_cast<uint8_t>(((1u << bits) - 1) << shift);
  byte = static_cast<uint8_t>((byte & ~mask) | ((code << shift) & mask));
}

}  // namespace

bool IsIntegerType(DataType t) noexcept {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kInt2:
    case DataType::kUint2:
      return true;
    default:
      return false;
  }
}

bool IsCodecType(DataType t) noexcept {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
    case DataType::kFloat8E8M0:
      return true;
    default:
      return IsIntegerType(t);
  }
}

IntRange RangeOf(DataType t) noexcept {
  switch (t) {
    case DataType::kInt8:
      return {-128, 127};
    case DataType::kUint8:
      return {0, 255};
    case DataType::kInt16:
      return {-32768, 32767};
    case DataType::kUint16:
      return {0, 65535};
    case DataType::kInt32:
      return {-2147483648.0, 2147483647.0};
    case DataType::kUint32:
      return {0, 4294967295.0};
    case DataType::kInt64:
      return {-9223372036854775808.0, 9223372036854774784.0};
    case DataType::kUint64:
      return {0, 18446744073709549568.0};
    case DataType::kInt4:
      return {-8, 7};
    case DataType::kUint4:
      return {0, 15};
    case DataType::kInt2:
      return {-2, 1};
    case DataType::kUint2:
      return {0, 3};
    default:
      return {0, 0};
  }
}

double LoadElement(DataType t, const void* data, size_t i) noexcept {
  switch (t) {
    case DataType::kFloat:
      return Read<float>(data, i);
    case DataType::kDouble:
      return Read<double>(data, i);
    case DataType::kFloat16:
      return Read<Float16>(data, i).ToFloat();
    case DataType::kBfloat16:
      return Read<BFloat16>(data, i).ToFloat();
    case DataType::kInt8:
      return Read<int8_t>(data, i);
    case DataType::kUint8:
      return Read<uint8_t>(data, i);
    case DataType::kInt16:
      return Read<int16_t>(data, i);
    case DataType::kUint16:
      return Read<uint16_t>(data, i);
    case DataType::kInt32:
      return Read<int32_t>(data, i);
    case DataType::kUint32:
      return Read<uint32_t>(data, i);
    case DataType::kInt64:
      return static_cast<double>(Read<int64_t>(data, i));
    case DataType::kUint64:
      return static_cast<double>(Read<uint64_t>(data, i));
    case DataType::kFloat8E4M3FN:
      return DecodeMiniFloat(kE4M3FN, Read<uint8_t>(data, i));
    case DataType::kFloat8E4M3FNUZ:
      return DecodeMiniFloat(kE4M3FNUZ, Read<uint8_t>(data, i));
    case DataType::kFloat8E5M2:
      return DecodeMiniFloat(kE5M2, Read<uint8_t>(data, i));
    case DataType::kFloat8E5M2FNUZ:
      return DecodeMiniFloat(kE5M2FNUZ, Read<uint8_t>(data, i));
    case DataType::kFloat8E8M0:
      return DecodeE8M0(Read<uint8_t>(data, i));
    case DataType::kFloat4E2M1:
      return DecodeMiniFloat(kE2M1, PackedCode(data, i, 4));
    case DataType::kInt4:
      return static_cast<double>(IntFromCode(PackedCode(data, i, 4), 4, true));
    case DataType::kUint4:
      return static_cast<double>(IntFromCode(PackedCode(data, i, 4), 4, false));
    case DataType::kInt2:
      return static_cast<double>(IntFromCode(PackedCode(data, i, 2), 2, true));
    case DataType::kUint2:
      return static_cast<double>(IntFromCode(PackedCode(data, i, 2), 2, false));
    default:
      return 0;
  }
}

void StoreElement(DataType t, void* data, size_t i, double v, bool saturate) noexcept {
  switch (t) {
    case DataType::kFloat:
      return Write(data, i, static_cast<float>(v));
    case DataType::kDouble:
      return Write(data, i, v);
    case DataType::kFloat16:
      return Write(data, i, Float16::FromFloat(static_cast<float>(v)));
    case DataType::kBfloat16:
      return Write(data, i, BFloat16::FromFloat(static_cast<float>(v)));
    case DataType::kInt8:
      return Write(data, i, static_cast<int8_t>(v));
    case DataType::kUint8:
      return Write(data, i, static_cast<uint8_t>(v));
    case DataType::kInt16:
      return Write(data, i, static_cast<int16_t>(v));
    case DataType::kUint16:
      return Write(data, i, static_cast<uint16_t>(v));
    case DataType::kInt32:
      return Write(data, i, static_cast<int32_t>(v));
    case DataType::kUint32:
      return Write(data, i, static_cast<uint32_t>(v));
    case DataType::kInt64:
      return Write(data, i, static_cast<int64_t>(v));
    case DataType::kUint64:
      return Write(data, i, static_cast<uint64_t>(v));
    case DataType::kFloat8E4M3FN:
      return Write(data, i, EncodeMiniFloat(kE4M3FN, v, saturate));
    case DataType::kFloat8E4M3FNUZ:
      return Write(data, i, EncodeMiniFloat(kE4M3FNUZ, v, saturate));
    case DataType::kFloat8E5M2:
      return Write(data, i, EncodeMiniFloat(kE5M2, v, saturate));
    case DataType::kFloat8E5M2FNUZ:
      return Write(data, i, EncodeMiniFloat(kE5M2FNUZ, v, saturate));
    case DataType::kFloat8E8M0:
      return Write(data, i, EncodeE8M0(static_cast<float>(v), saturate, E8M0Rounding::kNearest));
    case DataType::kFloat4E2M1:
      return SetPackedCode(data, i, 4, EncodeMiniFloat(kE2M1, v, true));
    case DataType::kInt4:
    case DataType::kUint4:
      return SetPackedCode(data, i, 4, IntCode(static_cast<int64_t>(v), 4));
    case DataType::kInt2:
    case DataType::kUint2:
      return SetPackedCode(data, i, 2, IntCode(static_cast<int64_t>(v), 2));
    default:
      return;
  }
}

}  // namespace kiln::cpu::quant
