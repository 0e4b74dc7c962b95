#include "api/arguments.h"

#include "api/handles.h"
#include "core/error.h"
#include "core/utf8.h"

namespace kiln::api {

LogLevel CheckedLevel(const KilnLoggingLevel& level, const char* argument) {
  const int v = EnumValue(level);
  if (v < KILN_LOGGING_LEVEL_VERBOSE || v > KILN_LOGGING_LEVEL_FATAL) {
    ThrowInvalidArgument(argument, std::to_string(v) + " is not a KilnLoggingLevel (0 to 4)");
  }
  return static_cast<LogLevel>(v);
}

DataType CheckedElementType(const KilnElementType& element_type, const char* argument) {
  const int v = EnumValue(element_type);
  if (!IsKnownDataType(v)) {
    ThrowInvalidArgument(argument, std::to_string(v) + " is not a defined KilnElementType");
  }
  return static_cast<DataType>(v);
}

std::string CheckedUtf8(const char* text, const char* argument) {
  if (text == nullptr) ThrowInvalidArgument(argument, "is NULL");
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    ThrowInvalidArgument(argument, "is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
  }
  return text;
}

}  // namespace kiln::api
