// The pieces of JSON the tool prints (quoted strings and numbers), and a reader for the JSON it
// reads back (Kiln's profiles).
//
//   out << "{" << JsonString("load_ms") << ": " << JsonNumber(12.5) << "}";
//   JsonValue trace = ParseJson(ReadFile(path), path);
//   if (const JsonValue* dur = trace.items[0].Find("dur")) dur->number;
#ifndef KILN_TOOLS_KILN_JSON_H_
#define KILN_TOOLS_KILN_JSON_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::cli {

// `s` as a JSON string: quoted, with quotes, backslashes and control characters escaped. The
// bytes are passed through otherwise (Kiln's strings are UTF-8).
std::string JsonString(std::string_view s);

// A finite number with `decimals` digits after the point; "null" for NaN and infinities, which
// JSON cannot hold.
std::string JsonNumber(double v, int decimals = 3);

// A parsed JSON value.
struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool flag = false;
  double number = 0;
  std::string text;               // a string, \u escapes as UTF-8
  std::vector<JsonValue> items;   // an array's
  std::vector<std::string> keys;  // an object's keys, in document order
  std::vector<JsonValue> values;  // the value of each key

  // The member `key` of an object (the first of that name), or NULL.
  const JsonValue* Find(std::string_view key) const;
};

// Parses one JSON document (RFC 8259; whitespace around it allowed). Throws Error naming `what`
// and the byte offset of the first mistake.
JsonValue ParseJson(std::string_view text, const std::string& what);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_JSON_H_
