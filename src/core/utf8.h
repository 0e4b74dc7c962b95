// UTF-8 validation for strings crossing the C ABI.
//
//   size_t bad = 0;
//   if (!kiln::IsValidUtf8(text, &bad)) { /* byte `bad` starts an invalid sequence */ }
#ifndef KILN_CORE_UTF8_H_
#define KILN_CORE_UTF8_H_

#include <cstddef>
#include <string_view>

namespace kiln {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
// Otherwise sets `*bad_offset` (when not null) to the first byte of the first bad sequence.
bool IsValidUtf8(std::string_view text, size_t* bad_offset) noexcept;

}  // namespace kiln

#endif  // KILN_CORE_UTF8_H_
