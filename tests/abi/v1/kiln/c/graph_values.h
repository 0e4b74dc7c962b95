/**
 * @file
 * Kiln C ABI: the graph API's types and values, the edges of a graph (slots 32-52).
 *
 * Each entry is a slot of the KilnGraphApi sub-table (kiln/kiln_graph_api.h, reached through
 * KilnApi::GetGraphApi); this header declares and documents the slots' function types,
 * Kiln<Name>Fn. Its conventions (ownership, borrowed strings, views) are kiln_graph_api.h's.
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_VALUES_H_
#define KILN_C_GRAPH_VALUES_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Slot 32. A tensor type.
 *
 * @param[in]  element_type  The element type (KILN_ELEMENT_TYPE_UNDEFINED: not known).
 * @param[in]  dims          @p rank dimensions, -1 where not known; NULL when @p rank is 0 or
 *                           KILN_RANK_UNKNOWN.
 * @param[in]  dim_params    NULL, or @p rank names of symbolic dimensions (NULL or "" where a
 *                           dimension has none; a named dimension must be -1 in @p dims).
 * @param[in]  rank          The rank, or KILN_RANK_UNKNOWN (then the shape is not known).
 * @param[out] out           Receives the type; release it with ReleaseTypeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateTensorTypeInfo,
                (KilnElementType element_type, const int64_t* dims, const char* const* dim_params,
                 size_t rank, KilnTypeInfo** out));

/**
 * Slot 33. A sparse tensor type, with the arguments of CreateTensorTypeInfo. (Kiln's kernels
 * take no sparse tensors; such a type describes, it does not run.)
 *
 * @param[in]  element_type  The element type.
 * @param[in]  dims          As CreateTensorTypeInfo.
 * @param[in]  dim_params    As CreateTensorTypeInfo.
 * @param[in]  rank          As CreateTensorTypeInfo.
 * @param[out] out           Receives the type; release it with ReleaseTypeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateSparseTensorTypeInfo,
                (KilnElementType element_type, const int64_t* dims, const char* const* dim_params,
                 size_t rank, KilnTypeInfo** out));

/**
 * Slot 34. A sequence type.
 *
 * @param[in]  element  The type of its elements (copied).
 * @param[out] out      Receives the type; release it with ReleaseTypeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateSequenceTypeInfo,
                (const KilnTypeInfo* element, KilnTypeInfo** out));

/**
 * Slot 35. An optional type.
 *
 * @param[in]  element  The type of the value it may hold (copied): a tensor or a sequence.
 * @param[out] out      Receives the type; release it with ReleaseTypeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateOptionalTypeInfo,
                (const KilnTypeInfo* element, KilnTypeInfo** out));

/**
 * Slot 36. A map type.
 *
 * @param[in]  key    The key element type: an integer type or STRING.
 * @param[in]  value  The type of its values (copied).
 * @param[out] out    Receives the type; release it with ReleaseTypeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateMapTypeInfo,
                (KilnElementType key, const KilnTypeInfo* value, KilnTypeInfo** out));

/**
 * Slot 37. Releases a type made by a Create entry.
 *
 * @param[in] type  The type, or NULL. A borrowed one (ValueInfoGetType) is refused (logged).
 */
KILN_ENTRY_TYPE(void, ReleaseTypeInfo, (KilnTypeInfo * type));

/**
 * Slot 38. What the type describes.
 *
 * @param[in]  type  The type.
 * @param[out] out   Receives the kind.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetKind, (const KilnTypeInfo* type, KilnTypeKind* out));

/**
 * Slot 39. The element type: a (sparse) tensor's, a map's key type, or for a sequence or
 * optional the element type of the tensors inside (KILN_ELEMENT_TYPE_UNDEFINED when not known).
 *
 * @param[in]  type  The type.
 * @param[out] out   Receives the element type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetElementType,
                (const KilnTypeInfo* type, KilnElementType* out));

/**
 * Slot 40. The rank of a (sparse) tensor type.
 *
 * @param[in]  type  The type.
 * @param[out] out   Receives the rank, or KILN_RANK_UNKNOWN (also for other kinds).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetRank, (const KilnTypeInfo* type, size_t* out));

/**
 * Slot 41. The dimensions of a (sparse) tensor type of known rank, -1 where not known.
 *
 * @param[in]  type      The type.
 * @param[out] dims      Receives the rank's worth of dimensions.
 * @param[in]  dims_len  The room in @p dims: at least the rank.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetDimensions,
                (const KilnTypeInfo* type, int64_t* dims, size_t dims_len));

/**
 * Slot 42. The symbolic name of one dimension ("" when it has none).
 *
 * @param[in]  type   The type (of known rank).
 * @param[in]  index  Below the rank.
 * @param[out] out    Receives the name, borrowed from @p type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetDimParam,
                (const KilnTypeInfo* type, size_t index, KilnStringRef* out));

/**
 * Slot 43. The type inside: a sequence's elements, an optional's value, a map's values.
 *
 * @param[in]  type  The type.
 * @param[out] out   Receives the type, borrowed from @p type; NULL when not known or when the
 *                   kind has none.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, TypeInfoGetContainedType,
                (const KilnTypeInfo* type, const KilnTypeInfo** out));

/**
 * Slot 44. A value info for GraphSetOwnedInputs or GraphSetOwnedOutputs.
 *
 * @param[in]  name  The value's name (not "").
 * @param[in]  type  Its type (copied); NULL when not known (left to inference).
 * @param[out] out   Receives the value info; release it with ReleaseValueInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateValueInfo,
                (const char* name, const KilnTypeInfo* type, KilnValueInfo** out));

/**
 * Slot 45. Releases a value info the caller owns.
 *
 * @param[in] value  The value info, or NULL. One a graph owns is refused (logged).
 */
KILN_ENTRY_TYPE(void, ReleaseValueInfo, (KilnValueInfo * value));

/**
 * Slot 46. The value's name.
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives the name, borrowed from @p value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetName, (const KilnValueInfo* value, KilnStringRef* out));

/**
 * Slot 47. The value's type: as declared, or, in a session's view, as inferred (symbolic
 * dimension names kept).
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives the type, borrowed from @p value (kind KILN_TYPE_UNDEFINED when
 *                    nothing is known).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetType,
                (const KilnValueInfo* value, const KilnTypeInfo** out));

/**
 * Slot 48. The node that produces the value.
 *
 * @param[in]  value         The value.
 * @param[out] node          Receives the node, borrowed; NULL for a graph input, an
 *                           initializer, a value read from an enclosing graph or one not
 *                           produced yet.
 * @param[out] output_index  Receives which output of @p node it is (0 when there is no node).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetProducer,
                (const KilnValueInfo* value, KilnNode** node, size_t* output_index));

/**
 * Slot 49. How many times nodes of the value's graph read it (a node reading it twice counts
 * twice; a read by a node's subgraph counts once for that node).
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetNumConsumers, (const KilnValueInfo* value, size_t* out));

/**
 * Slot 50. One read of the value.
 *
 * @param[in]  value        The value.
 * @param[in]  index        Below ValueInfoGetNumConsumers.
 * @param[out] node         Receives the node that reads it, borrowed.
 * @param[out] input_index  Receives which input of @p node it is, or KILN_IMPLICIT_INPUT for a
 *                          read by the node's subgraphs.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetConsumer,
                (const KilnValueInfo* value, size_t index, KilnNode** node, size_t* input_index));

/**
 * Slot 51. The constant data of an initializer, or the default of a graph input that has one
 * (an overridable initializer), without a copy. Read it with KilnApi::GetTensorData; it cannot
 * be changed (KilnApi::GetTensorMutableData refuses it) or released.
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives the tensor, borrowed from @p value; NULL when it has none.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoGetInitializer,
                (const KilnValueInfo* value, const KilnValue** out));

/**
 * Slot 52. Whether the value is read from an enclosing graph (a subgraph's captured name; see
 * NodeGetNumImplicitInputs for a model being built).
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives 1 or 0.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ValueInfoIsCaptured, (const KilnValueInfo* value, int* out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_VALUES_H_
