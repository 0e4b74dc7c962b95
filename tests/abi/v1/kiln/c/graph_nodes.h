/**
 * @file
 * Kiln C ABI: the graph API's nodes (slots 53-71).
 *
 * Each entry is a slot of the KilnGraphApi sub-table (kiln/kiln_graph_api.h, reached through
 * KilnApi::GetGraphApi); this header declares and documents the slots' function types,
 * Kiln<Name>Fn. Its conventions (ownership, borrowed strings, views) are kiln_graph_api.h's.
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_NODES_H_
#define KILN_C_GRAPH_NODES_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Slot 53. A node, to add to a graph with GraphAddOwnedNode.
 *
 * @param[in]  op_type       The operator (not "").
 * @param[in]  domain        Its domain: "" (or "ai.onnx") for ONNX's.
 * @param[in]  name          The node's name (may be "").
 * @param[in]  inputs        @p input_count value names; "" for an optional input left out.
 * @param[in]  input_count   Their number (when 0, @p inputs may be NULL).
 * @param[in]  outputs       @p output_count value names; "" for an optional output left out.
 * @param[in]  output_count  Their number (when 0, @p outputs may be NULL).
 * @param[out] out           Receives the node; release it with ReleaseNode, or hand it to
 *                           GraphAddOwnedNode.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the argument and entry).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateNode,
                (const char* op_type, const char* domain, const char* name,
                 const char* const* inputs, size_t input_count, const char* const* outputs,
                 size_t output_count, KilnNode** out));

/**
 * Slot 54. Releases a node the caller owns, with its attributes.
 *
 * @param[in] node  The node, or NULL. One a graph owns is refused (logged).
 */
KILN_ENTRY_TYPE(void, ReleaseNode, (KilnNode * node));

/**
 * Slot 55. The node's name.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the name, borrowed from @p node.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetName, (const KilnNode* node, KilnStringRef* out));

/**
 * Slot 56. The node's operator.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the op type, borrowed from @p node.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetOpType, (const KilnNode* node, KilnStringRef* out));

/**
 * Slot 57. The operator's domain ("" for ONNX's).
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the domain, borrowed from @p node.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetDomain, (const KilnNode* node, KilnStringRef* out));

/**
 * Slot 58. The opset version the definition the node uses dates from: ONNX's since-version
 * (for Relu at opset 17, 14), from ONNX's operator history as Kiln knows it (every version up
 * to opset 17, and each op's newest since). For an op ONNX does not define (a contrib op,
 * Kiln's own, a custom op), the first opset of the range of the kernel that runs it; when there
 * is none, the version the model imports; 0 for a node not in a model yet.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the version.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetSinceVersion, (const KilnNode* node, int64_t* out));

/**
 * Slot 59. How many inputs the node has (optional ones left out included).
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetNumInputs, (const KilnNode* node, size_t* out));

/**
 * Slot 60. One input of a node in a graph.
 *
 * @param[in]  node   A node a graph owns.
 * @param[in]  index  Below NodeGetNumInputs.
 * @param[out] out    Receives the value, borrowed; NULL for an optional input left out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetInput,
                (const KilnNode* node, size_t index, KilnValueInfo** out));

/**
 * Slot 61. How many outputs the node has.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetNumOutputs, (const KilnNode* node, size_t* out));

/**
 * Slot 62. One output of a node in a graph.
 *
 * @param[in]  node   A node a graph owns.
 * @param[in]  index  Below NodeGetNumOutputs.
 * @param[out] out    Receives the value, borrowed; NULL for an optional output left out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetOutput,
                (const KilnNode* node, size_t index, KilnValueInfo** out));

/**
 * Slot 63. How many values of the node's graph its subgraphs read (captured names). For a
 * model being built they are worked out again after each change, when asked for (this entry,
 * NodeGetImplicitInput, ValueInfoGetNumConsumers, ValueInfoGetConsumer, ValueInfoIsCaptured,
 * GraphGetNode and the print entries): a name a subgraph reads and no graph defines yet becomes
 * a value of the outermost graph, which must be defined before the model verifies.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetNumImplicitInputs, (const KilnNode* node, size_t* out));

/**
 * Slot 64. One value of the node's graph its subgraphs read.
 *
 * @param[in]  node   A node a graph owns.
 * @param[in]  index  Below NodeGetNumImplicitInputs.
 * @param[out] out    Receives the value, borrowed.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetImplicitInput,
                (const KilnNode* node, size_t index, KilnValueInfo** out));

/**
 * Slot 65. How many attributes the node has.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetNumAttributes, (const KilnNode* node, size_t* out));

/**
 * Slot 66. One attribute, in the order they were given.
 *
 * @param[in]  node   The node.
 * @param[in]  index  Below NodeGetNumAttributes.
 * @param[out] out    Receives the attribute, borrowed from @p node.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetAttribute,
                (const KilnNode* node, size_t index, KilnAttribute** out));

/**
 * Slot 67. The attribute of a given name.
 *
 * @param[in]  node  The node.
 * @param[in]  name  The attribute's name.
 * @param[out] out   Receives the attribute, borrowed from @p node; NULL when it has none.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetAttributeByName,
                (const KilnNode* node, const char* name, KilnAttribute** out));

/**
 * Slot 68. Adds an attribute to the node, taking ownership of it (all or nothing).
 *
 * @param[in] node       A node that is not in a session's view.
 * @param[in] attribute  An attribute the caller owns, named differently from the node's others.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeAddOwnedAttribute, (KilnNode * node, KilnAttribute* attribute));

/**
 * Slot 69. The kernel that runs the node, for a node of a session's optimized view: the
 * provider, the domain and op type it is registered for and its opset range, such as
 * "CPU ai.onnx::Conv opsets 11+" ("N+": to the newest opset), "CPU ai.onnx::Pad opsets 2-10"
 * or "custom my.domain::Negate opsets 1+"; "folded into a constant at load" for a node the
 * session computed once at load.
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the text (NUL-terminated too), borrowed from @p node; "" for a
 *                   node of any other graph.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetKernel, (const KilnNode* node, KilnStringRef* out));

/**
 * Slot 70. How many nodes of the loaded graph the optimizer fused into this one (0 for a node
 * as loaded, or one a pass added).
 *
 * @param[in]  node  The node.
 * @param[out] out   Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetNumFusedFrom, (const KilnNode* node, size_t* out));

/**
 * Slot 71. The name of one loaded node this node was fused from.
 *
 * @param[in]  node   The node.
 * @param[in]  index  Below NodeGetNumFusedFrom.
 * @param[out] out    Receives the name, borrowed from @p node.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, NodeGetFusedFrom,
                (const KilnNode* node, size_t index, KilnStringRef* out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_NODES_H_
