// Checks on plain C arguments shared by the entries: enum values, UTF-8 strings.
#ifndef KILN_API_ARGUMENTS_H_
#define KILN_API_ARGUMENTS_H_

#include <string>

#include "core/data_type.h"
#include "core/logging.h"
#include "kiln/kiln_c_api.h"

namespace kiln::api {

// By reference: copying an out-of-range enum is already undefined (see EnumValue). Throws
// INVALID_ARGUMENT naming `argument` unless it is 0 to 4.
LogLevel CheckedLevel(const KilnLoggingLevel& level, const char* argument);

// The element type a caller passed; throws INVALID_ARGUMENT naming `argument` unless it is a
// defined KilnElementType (KILN_ELEMENT_TYPE_UNDEFINED is not).
DataType CheckedElementType(const KilnElementType& element_type, const char* argument);

// `text` as a string; throws INVALID_ARGUMENT naming `argument` when it is NULL or not UTF-8.
std::string CheckedUtf8(const char* text, const char* argument);

}  // namespace kiln::api

#endif  // KILN_API_ARGUMENTS_H_
