// Encodings of the narrow element types Cast converts: the float8s (E4M3FN, E4M3FNUZ, E5M2,
// E5M2FNUZ), float4e2m1 and float8e8m0 as codes, and the packed 4-bit and 2-bit integers.
//
//   const kiln::cpu::MiniFloat& f = kiln::cpu::kE4M3FN;
//   uint8_t code = kiln::cpu::EncodeMiniFloat(f, 0.48, /*saturate=*/true);  // 0x2f (0.46875)
//   float back = kiln::cpu::DecodeMiniFloat(f, code);
//
// Encoding rounds to nearest even from the exact (double) value, as ml_dtypes (the ONNX
// reference) does. Out of range (after rounding) and infinities give ±max with `saturate`, else
// ±inf (E5M2) or NaN. NaN keeps its sign where the type has a signed NaN (E4M3FN 0x7f/0xff, E5M2
// 0x7e/0xfe); the FNUZ types have one NaN (0x80) and no negative zero. float4e2m1 has neither NaN
// nor infinity: it always saturates and NaN gives 0x8, as the ONNX reference data does.
#ifndef KILN_KERNELS_CPU_ELEMENTWISE_SMALL_TYPES_H_
#define KILN_KERNELS_CPU_ELEMENTWISE_SMALL_TYPES_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln::cpu {

// A small binary floating-point format.
struct MiniFloat {
  enum class Special {
    kFiniteNaN,     // FN: all ones is NaN, no infinity (E4M3FN)
    kUnsignedZero,  // FNUZ: 0x80 is the only NaN, no negative zero, no infinity
    kIeee,          // exponent all ones is infinity or NaN (E5M2)
    kNone,          // neither NaN nor infinity (float4e2m1)
  };
  int bits;      // 8 or 4
  int mantissa;  // mantissa bits
  int bias;      // exponent bias
  uint32_t max;  // code of the largest finite magnitude
  Special special;
};

inline constexpr MiniFloat kE4M3FN{8, 3, 7, 0x7e, MiniFloat::Special::kFiniteNaN};
inline constexpr MiniFloat kE4M3FNUZ{8, 3, 8, 0x7f, MiniFloat::Special::kUnsignedZero};
inline constexpr MiniFloat kE5M2{8, 2, 15, 0x7b, MiniFloat::Special::kIeee};
inline constexpr MiniFloat kE5M2FNUZ{8, 2, 16, 0x7f, MiniFloat::Special::kUnsignedZero};
inline constexpr MiniFloat kE2M1{4, 1, 1, 0x7, MiniFloat::Special::kNone};

inline uint8_t EncodeMiniFloat(const MiniFloat& f, double v, bool saturate) noexcept {
  const uint32_t sign_bit = 1u << (f.bits - 1);
  const uint32_t sign = std::signbit(v) ? sign_bit : 0u;
  using S = MiniFloat::Special;
  if (std::isnan(v)) {
    switch (f.special) {
      case S::kFiniteNaN:
        return static_cast<uint8_t>(sign | 0x7fu);
      case S::kIeee:
        return static_cast<uint8_t>(sign | 0x7eu);
      case S::kUnsignedZero:
        return 0x80;
      case S::kNone:
        return static_cast<uint8_t>(sign_bit);
    }
  }
  const double a = std::fabs(v);
  bool overflow = std::isinf(a);
  uint64_t magnitude = 0;
  if (!overflow && a != 0) {
    int e = 0;
    std::frexp(a, &e);  // a = m * 2^e with m in [0.5, 1)
    const int exponent = e - 1;
    const int min_exponent = 1 - f.bias;
    if (exponent < min_exponent) {  // subnormal; may round up to the smallest normal's code
      magnitude = static_cast<uint64_t>(std::nearbyint(std::ldexp(a, f.mantissa - min_exponent)));
    } else {
      const auto m = static_cast<uint64_t>(std::nearbyint(std::ldexp(a, f.mantissa - exponent)));
      magnitude = (static_cast<uint64_t>(exponent + f.bias) << f.mantissa) + m -
                  (uint64_t{1} << f.mantissa);
    }
    overflow = magnitude > f.max;
  }
  if (overflow) {
    if (saturate || f.special == S::kNone) {
      magnitude = f.max;
    } else if (f.special == S::kIeee) {
      return static_cast<uint8_t>(sign | 0x7cu);
    } else if (f.special == S::kFiniteNaN) {
      return static_cast<uint8_t>(sign | 0x7fu);
    } else {
      return 0x80;
    }
  }
  if (magnitude == 0 && f.special == S::kUnsignedZero) return 0;
  return static_cast<uint8_t>(sign | magnitude);
}

inline float DecodeMiniFloat(const MiniFloat& f, uint8_t code) noexcept {
  const uint32_t sign_bit = 1u << (f.bits - 1);
  const uint32_t magnitude = code & (sign_bit - 1);
  const bool negative = (code & sign_bit) != 0;
  using S = MiniFloat::Special;
  const uint32_t exponent = magnitude >> f.mantissa;
  const uint32_t mantissa = magnitude & ((1u << f.mantissa) - 1);
  const uint32_t all_ones = (sign_bit - 1) >> f.mantissa;
  if ((f.special == S::kUnsignedZero && code == 0x80) ||
      (f.special == S::kFiniteNaN && magnitude == 0x7f) ||
      (f.special == S::kIeee && exponent == all_ones && mantissa != 0)) {
    return negative ? -NAN : NAN;
  }
  float v;
  if (f.special == S::kIeee && exponent == all_ones) {
    v = INFINITY;
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissa);
  } else {
    v = std::ldexp(static_cast<float>((1u << f.mantissa) + mantissa),
                   static_cast<int>(exponent) - f.bias - f.mantissa);
  }
  return negative ? -v : v;
}

// float8e8m0 (2^(code - 127), 0xff NaN, unsigned): how Cast rounds to it.
enum class E8M0Rounding { kUp, kDown, kNearest };

// The value's float32 exponent, rounded by the mantissa as the ONNX reference does: kUp
// increments it for any non-zero mantissa, kNearest from half of it on (ties up; for float32
// subnormals only above half), kDown truncates. The sign is ignored (negative input is
// unspecified). With `saturate`, rounding stops at 0xfe (2^127) and infinity gives 0xfe; without,
// they give 0xff (NaN). NaN gives 0xff; zero gives 0x00 (2^-127) as in the reference.
inline uint8_t EncodeE8M0(float v, bool saturate, E8M0Rounding rounding) noexcept {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xffu;
  const uint32_t fraction = bits & 0x7fffffu;
  if (exponent == 0xffu) return fraction == 0 && saturate ? 0xfe : 0xff;
  bool up = false;
  if (rounding == E8M0Rounding::kUp) {
    up = fraction != 0;
  } else if (rounding == E8M0Rounding::kNearest) {
    up = (fraction & 0x400000u) != 0 && ((fraction & 0x3fffffu) != 0 || exponent > 0);
  }
  if (up && !(saturate && exponent == 0xfeu)) ++exponent;
  return static_cast<uint8_t>(exponent);
}

inline float DecodeE8M0(uint8_t code) noexcept {
  return code == 0xff ? NAN : std::ldexp(1.0f, static_cast<int>(code) - 127);
}

// Packed integers (4 or 2 bits, element i in bits [bits*(i%per_byte), …) of byte i/per_byte):
// the code of an integer (its low bits) and the value of a code.
inline uint8_t IntCode(int64_t v, int bits) noexcept {
  return static_cast<uint8_t>(static_cast<uint64_t>(v) & ((1u << bits) - 1));
}
inline int64_t IntFromCode(uint8_t code, int bits, bool is_signed) noexcept {
  const int64_t v = code & ((1u << bits) - 1);
  return is_signed && (v >> (bits - 1)) != 0 ? v - (int64_t{1} << bits) : v;
}

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_ELEMENTWISE_SMALL_TYPES_H_
