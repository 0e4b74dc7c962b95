// Element types as the tool shows and converts them.
//
//   ElementTypeName(KILN_ELEMENT_TYPE_FLOAT)  // "float", ONNX's name
//   ElementSize(KILN_ELEMENT_TYPE_INT64)      // 8
//   ElementAsDouble(KILN_ELEMENT_TYPE_FLOAT16, data, i)
#ifndef KILN_TOOLS_KILN_ELEMENTS_H_
#define KILN_TOOLS_KILN_ELEMENTS_H_

#include <kiln/kiln_c_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::cli {

// ONNX's lower-case name of an element type ("float", "int64", "bfloat16"), or "undefined".
std::string ElementTypeName(KilnElementType type);

// The bytes one element takes for the whole-byte numeric and bool types; 0 for strings,
// sub-byte types and types the tool does not compute with (complex, 8-bit floats).
size_t ElementSize(KilnElementType type);

// Whether ElementAsDouble can read elements of this type (the types ElementSize knows).
inline bool IsNumeric(KilnElementType type) {
  return ElementSize(type) != 0;
}

// Whether the type is a floating-point type ElementAsDouble reads.
bool IsFloatingPoint(KilnElementType type);

// Element `i` of an array of `type` (a type IsNumeric accepts), as a double.
double ElementAsDouble(KilnElementType type, const void* data, size_t i);

// IEEE half precision and bfloat16 conversions (round to nearest even).
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);
float BFloat16ToFloat(uint16_t b);
uint16_t FloatToBFloat16(float f);

// A shape as text: "[1, batch, 3]"; a dimension of -1 shows its symbolic name, or "?".
std::string ShapeText(const std::vector<int64_t>& dims, const std::vector<std::string>& symbols);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_ELEMENTS_H_
