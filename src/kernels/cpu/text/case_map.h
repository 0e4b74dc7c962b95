// Locale-free case mapping of UTF-8 text for the string kernels: simple one-to-one mappings of
// ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic letters (what the ONNX cases and common
// European text need). Other code points, and bytes that are not valid UTF-8, pass unchanged.
//
//   std::string upper = kiln::cpu::ToUpperUtf8("straße");  // "STRAßE": ß has no one-letter upper
#ifndef KILN_KERNELS_CPU_TEXT_CASE_MAP_H_
#define KILN_KERNELS_CPU_TEXT_CASE_MAP_H_

#include <string>
#include <string_view>

namespace kiln::cpu {

std::string ToUpperUtf8(std::string_view text);
std::string ToLowerUtf8(std::string_view text);

}  // namespace kiln::cpu

#endif  // KILN_KERNELS_CPU_TEXT_CASE_MAP_H_
