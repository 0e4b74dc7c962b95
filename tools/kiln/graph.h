// The graph API (kiln/kiln_graph_api.h) as the tool calls it.
//
//   KilnGraph* graph = nullptr;
//   Check(GraphApi().SessionGetGraph(session.get(), KILN_GRAPH_OPTIMIZED, &graph), "profile");
#ifndef KILN_TOOLS_KILN_GRAPH_H_
#define KILN_TOOLS_KILN_GRAPH_H_

#include <kiln/kiln_cxx_api.h>

#include <string>

namespace kiln::cli {

// The graph sub-table of the loaded libkiln; throws Error when it does not provide
// KILN_GRAPH_API_VERSION.
const KilnGraphApi& GraphApi();

// Throws Error("<context>: <Kiln's message>") for a failed call (a non-NULL status, released).
void Check(KilnStatus* status, const std::string& context);

// A borrowed string of the graph API as a std::string.
inline std::string Text(const KilnStringRef& ref) {
  return ref.length == 0 ? std::string() : std::string(ref.data, ref.length);
}

}  // namespace kiln::cli

#endif  // KILN_TOOLS_KILN_GRAPH_H_
