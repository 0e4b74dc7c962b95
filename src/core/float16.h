// IEEE half and bfloat16 storage types with conversions to and from float (round to nearest even).
//
//   kiln::Float16 h = kiln::Float16::FromFloat(1.5f);
//   float f = h.ToFloat();
#ifndef KILN_CORE_FLOAT16_H_
#define KILN_CORE_FLOAT16_H_

#include <cstdint>
#include <cstring>

namespace kiln {

struct Float16 {
  uint16_t bits = 0;

  static Float16 FromFloat(float f) noexcept {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    Float16 h;
    if (exp == 0xffu) {  // inf or NaN (keep NaN quiet and non-zero)
      h.bits = static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u | (mant >> 13) : 0u));
      return h;
    }
    const int e = static_cast<int>(exp) - 127 + 15;
    if (e >= 0x1f) {  // overflow to inf
      h.bits = static_cast<uint16_t>(sign | 0x7c00u);
      return h;
    }
    if (e <= 0) {  // subnormal or zero
      if (e < -10) {
        h.bits = static_cast<uint16_t>(sign);
        return h;
      }
      mant |= 0x800000u;
      const int shift = 14 - e;
      uint32_t half = mant >> shift;
      const uint32_t rem = mant & ((1u << shift) - 1);
      const uint32_t mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1u))) ++half;
      h.bits = static_cast<uint16_t>(sign | half);
      return h;
    }
    uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into inf: correct
    h.bits = static_cast<uint16_t>(sign | half);
    return h;
  }

  float ToFloat() const noexcept {
    const uint32_t sign = (bits & 0x8000u) << 16;
    const uint32_t exp = (bits >> 10) & 0x1fu;
    uint32_t mant = bits & 0x3ffu;
    uint32_t x;
    if (exp == 0x1fu) {
      x = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
      x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    } else if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &x, sizeof f);
    return f;
  }
};

struct BFloat16 {
  uint16_t bits = 0;

  static BFloat16 FromFloat(float f) noexcept {
    uint32_t x;
    std::memcpy(&x, &f, sizeof x);
    BFloat16 b;
    if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a quiet NaN
      b.bits = static_cast<uint16_t>((x >> 16) | 0x40u);
      return b;
    }
    const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    b.bits = static_cast<uint16_t>((x + rounding) >> 16);
    return b;
  }

  float ToFloat() const noexcept {
    const uint32_t x = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &x, sizeof f);
    return f;
  }
};

}  // namespace kiln

#endif  // KILN_CORE_FLOAT16_H_
