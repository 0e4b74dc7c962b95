// The pieces of JSON the tool prints: quoted strings and numbers.
//
//   out << "{" << JsonString("load_ms") << ": " << JsonNumber(12.5) << "}";
#ifndef KILN_TOOLS_KILN_JSON_H_
#define KILN_TOOLS_KILN_JSON_H_

#include <string>
#include <string_view>

namespace kiln::cli {

// `s` as a JSON string: quoted, with quotes, backslashes and control characters escaped. The
// bytes are passed through otherwise (Kiln's strings are UTF-8).
std::string JsonString(std::string_view s);

// A finite number with `decimals` digits after the point; "null" for NaN and infinities, which
// JSON cannot hold.
std::string JsonNumber(double v, int decimals = 3);

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_JSON_H_
