/**
 * @file
 * Kiln C ABI: the graph API's graphs: their parts, building and printing (slots 15-31).
 *
 * Each entry is a slot of the KilnGraphApi sub-table (kiln/kiln_graph_api.h, reached through
 * KilnApi::GetGraphApi); this header declares and documents the slots' function types,
 * Kiln<Name>Fn. Its conventions (ownership, borrowed strings, views) are kiln_graph_api.h's.
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_GRAPHS_H_
#define KILN_C_GRAPH_GRAPHS_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Slot 15. An empty graph.
 *
 * @param[in]  name  Its name (may be "").
 * @param[out] out   Receives the graph; release it with ReleaseGraph, or hand it to
 *                   ModelSetOwnedGraph or an attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateGraph, (const char* name, KilnGraph** out));

/**
 * Slot 16. Releases a graph the caller owns, with its nodes and values.
 *
 * @param[in] graph  The graph, or NULL. One owned by a model or an attribute is refused (logged,
 *                   nothing freed).
 */
KILN_ENTRY_TYPE(void, ReleaseGraph, (KilnGraph * graph));

/**
 * Slot 17. The model a graph belongs to (for a subgraph, the model of its outermost graph).
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the model, borrowed; NULL for a graph no model owns.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetModel, (const KilnGraph* graph, KilnModel** out));

/**
 * Slot 18. The graph's name.
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the name, borrowed from @p graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetName, (const KilnGraph* graph, KilnStringRef* out));

/**
 * Slot 19. How many inputs the graph has (for a session's main graph, the overridable
 * initializers included).
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetNumInputs, (const KilnGraph* graph, size_t* out));

/**
 * Slot 20. One input of the graph.
 *
 * @param[in]  graph  The graph.
 * @param[in]  index  Below GraphGetNumInputs.
 * @param[out] out    Receives the value, borrowed from @p graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetInput,
                (const KilnGraph* graph, size_t index, KilnValueInfo** out));

/**
 * Slot 21. How many outputs the graph has.
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetNumOutputs, (const KilnGraph* graph, size_t* out));

/**
 * Slot 22. One output of the graph.
 *
 * @param[in]  graph  The graph.
 * @param[in]  index  Below GraphGetNumOutputs.
 * @param[out] out    Receives the value, borrowed from @p graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetOutput,
                (const KilnGraph* graph, size_t index, KilnValueInfo** out));

/**
 * Slot 23. How many initializers (constant values) the graph has, in name order.
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetNumInitializers, (const KilnGraph* graph, size_t* out));

/**
 * Slot 24. One initializer; ValueInfoGetInitializer gives its tensor.
 *
 * @param[in]  graph  The graph.
 * @param[in]  index  Below GraphGetNumInitializers.
 * @param[out] out    Receives the value, borrowed from @p graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetInitializer,
                (const KilnGraph* graph, size_t index, KilnValueInfo** out));

/**
 * Slot 25. How many nodes the graph has.
 *
 * @param[in]  graph  The graph.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetNumNodes, (const KilnGraph* graph, size_t* out));

/**
 * Slot 26. One node, in topological order (every producer before its consumers; for a graph
 * with a cycle, the order nodes were added in).
 *
 * @param[in]  graph  The graph.
 * @param[in]  index  Below GraphGetNumNodes.
 * @param[out] out    Receives the node, borrowed from @p graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphGetNode, (const KilnGraph* graph, size_t index, KilnNode** out));

/**
 * Slot 27. Gives a graph without inputs its inputs, taking ownership of the value infos (all
 * or nothing).
 *
 * @param[in] graph   A graph that is not a session's view and has no inputs yet.
 * @param[in] inputs  @p count value infos the caller owns (CreateValueInfo), with distinct names
 *                    that no node of the graph produces and no initializer has.
 * @param[in] count   Their number.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphSetOwnedInputs,
                (KilnGraph * graph, KilnValueInfo* const* inputs, size_t count));

/**
 * Slot 28. Gives a graph without outputs its outputs, taking ownership of the value infos (all
 * or nothing). An output names a value a node of the graph produces (or an input or an
 * initializer); its type, when given, is the declared type of that value.
 *
 * @param[in] graph    A graph that is not a session's view and has no outputs yet.
 * @param[in] outputs  @p count value infos the caller owns, with distinct names.
 * @param[in] count    Their number.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphSetOwnedOutputs,
                (KilnGraph * graph, KilnValueInfo* const* outputs, size_t count));

/**
 * Slot 29. Adds a constant value to the graph. The tensor is shared, not copied: do not change
 * its data while the model (or a session made from it) uses it.
 *
 * @param[in] graph  A graph that is not a session's view.
 * @param[in] name   A name no input, initializer or node output of the graph has.
 * @param[in] value  A tensor (not one lent to a custom op's Compute).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphAddInitializer,
                (KilnGraph * graph, const char* name, const KilnValue* value));

/**
 * Slot 30. Appends a node to the graph, taking ownership of it (all or nothing). Its inputs and
 * outputs are linked by name: a name the graph does not have yet becomes a value the graph
 * will have to define (a later node's output, an input or an initializer), or, in a subgraph,
 * one read from an enclosing graph.
 *
 * @param[in] graph  A graph that is not a session's view.
 * @param[in] node   A node the caller owns (CreateNode); a view from then on. None of its
 *                   outputs may already be produced, be an input or be an initializer.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the output at fault).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphAddOwnedNode, (KilnGraph * graph, KilnNode* node));

/**
 * Slot 31. Prints one graph in ONNX's textual syntax (onnx.parser's parse_graph grammar).
 *
 * @param[in] graph        The graph.
 * @param[in] elide_above  As ModelPrint.
 * @param[in] flags        KilnPrintFlags.
 * @param[in] callback     Called with the text, in pieces.
 * @param[in] user         Passed to @p callback.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GraphPrint,
                (const KilnGraph* graph, int64_t elide_above, uint32_t flags,
                 KilnPrintCallback callback, void* user));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_GRAPHS_H_
