// A model in ONNX's textual syntax (the grammar of onnx.parser: `<ir_version: 8, opset_import:
// ["" : 17]> name (float[N, 3] x) => (float[N, 3] y) <float[3] w = {1, 2, 3}> { y = Add(x, w) }`),
// for reading, diffing and, where the names are identifiers, parsing back with ONNX's parser.
// The first piece of the graph API (issue 30): its print entry and `kiln print` will sit on it.
//
//   kiln::ir::TextOptions o;
//   o.elide_above = 16;  // initializers of more elements are declared, their values left out
//   std::string text = kiln::ir::ModelToText(model, o);
//
// What ONNX's grammar cannot say is written so a reader sees it and a parser stops on it:
// a name that is not an identifier is quoted ("/conv1/Conv_output_0"), an elided initializer is
// declared without a value and a `#` comment gives its element count.
#ifndef KILN_IR_TEXT_PRINTER_H_
#define KILN_IR_TEXT_PRINTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace kiln::ir {

struct TextOptions {
  // Initializers (and tensor attributes) of more elements than this are declared without their
  // values (see above); -1: every value is written.
  int64_t elide_above = -1;
  // When set: `#` comment lines written after each node (the graph API's debug flag: the kernel a
  // session runs it with, the nodes it was fused from).
  std::function<std::vector<std::string>(const Node&)> node_comments;
  // When set: the type written for a graph input or output, where it returns one (a session's
  // inferred types); null: the value's own.
  std::function<std::shared_ptr<const TypeInfo>(const Value&)> value_type;
};

// The opsets the text imports: the model's, and for a domain its nodes use without importing it
// (an optimized graph's ai.kiln nodes), the newest version they have, as the writer does.
std::map<std::string, int64_t> ImportedOpsets(const Model& model);

// Writes the model through `sink`, in pieces (each valid only during the call).
void PrintModel(const Model& model, const TextOptions& options,
                const std::function<void(std::string_view)>& sink);

// One graph, in the grammar of onnx.parser's parse_graph.
void PrintGraph(const Graph& graph, const TextOptions& options,
                const std::function<void(std::string_view)>& sink);

// The same, as one string.
std::string ModelToText(const Model& model, const TextOptions& options = {});

}  // namespace kiln::ir

#endif  // KILN_IR_TEXT_PRINTER_H_
