#include "kernels/cpu/text/case_map.h"

#include <cstdint>

namespace kiln::cpu {
namespace {

char32_t Lower(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 32;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7) || (c >= 0x391 && c <= 0x3AB && c != 0x3A2) ||
      (c >= 0x410 && c <= 0x42F)) {
    return c + 32;
  }
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  // Latin Extended-A pairs: even upper, odd lower, except the dotless i and the odd-aligned runs.
  if ((c >= 0x100 && c <= 0x137 && c != 0x130) || (c >= 0x14A && c <= 0x177)) {
    return (c % 2 == 0) ? c + 1 : c;
  }
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
  if (c == 0x178) return 0xFF;
  return c;
}

char32_t Upper(char32_t c) {
  if (c >= U'a' && c <= U'z') return c - 32;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7) || (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) ||
      (c >= 0x430 && c <= 0x44F)) {
    return c - 32;
  }
  if (c == 0x3C2) return 0x3A3;  // final sigma
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  if (c == 0xFF) return 0x178;
  if ((c >= 0x100 && c <= 0x137 && c != 0x131) || (c >= 0x14A && c <= 0x177)) {
    return (c % 2 == 1) ? c - 1 : c;
  }
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 0) ? c - 1 : c;
  return c;
}

// Decodes the two-byte sequences (U+0080–U+07FF) the mapped letters use, and ASCII; anything else
// is copied byte for byte.
template <char32_t (*Map)(char32_t)>
std::string MapUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (b < 0x80) {
      out.push_back(static_cast<char>(Map(b)));
      continue;
    }
    if ((b & 0xE0) == 0xC0 && i + 1 < text.size() &&
        (static_cast<uint8_t>(text[i + 1]) & 0xC0) == 0x80) {
      const char32_t c = (char32_t{b} & 0x1F) << 6 | (static_cast<uint8_t>(text[i + 1]) & 0x3F);
      const char32_t m = c >= 0x80 ? Map(c) : c;  // an overlong form stays as it was
      if (m == c || m < 0x80 || m > 0x7FF) {
        out.append(text.substr(i, 2));
      } else {
        out.push_back(static_cast<char>(0xC0 | (m >> 6)));
        out.push_back(static_cast<char>(0x80 | (m & 0x3F)));
      }
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(b));
  }
  return out;
}

}  // namespace

std::string ToUpperUtf8(std::string_view text) {
  return MapUtf8<Upper>(text);
}

std::string ToLowerUtf8(std::string_view text) {
  return MapUtf8<Lower>(text);
}

}  // namespace kiln::cpu
