// A model from ONNX's textual syntax, as src/ir/text_printer.h writes it (onnx.parser's grammar,
// plus quoted names and `#` comments): parsed into a ModelProto and loaded like any model file,
// so the loader's checks apply. The reverse of the printer; the graph API's CreateModelFromText
// and `kiln convert` will sit on it (issue 30).
//
//   kiln::ir::Model m = kiln::onnx::ParseModelText(text);  // throws naming line and column
#ifndef KILN_ONNX_TEXT_PARSER_H_
#define KILN_ONNX_TEXT_PARSER_H_

#include <string_view>

#include "ir/graph.h"

namespace kiln::onnx {

// Throws Error(kInvalidArgument, "line L, column C: …") for text that does not parse, and the
// loader's errors (kInvalidGraph, …) for a model it refuses.
ir::Model ParseModelText(std::string_view text);

}  // namespace kiln::onnx

#endif  // KILN_ONNX_TEXT_PARSER_H_
