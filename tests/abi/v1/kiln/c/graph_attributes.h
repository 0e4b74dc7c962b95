/**
 * @file
 * Kiln C ABI: the graph API's node attributes (slots 72-103).
 *
 * Each entry is a slot of the KilnGraphApi sub-table (kiln/kiln_graph_api.h, reached through
 * KilnApi::GetGraphApi); this header declares and documents the slots' function types,
 * Kiln<Name>Fn. Its conventions (ownership, borrowed strings, views) are kiln_graph_api.h's.
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_GRAPH_ATTRIBUTES_H_
#define KILN_C_GRAPH_ATTRIBUTES_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/graph_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Slot 72. An INT attribute.
 *
 * @param[in]  name   Its name (not "").
 * @param[in]  value  Its value.
 * @param[out] out    Receives the attribute; release it with ReleaseAttribute, or hand it to
 *                    NodeAddOwnedAttribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeInt,
                (const char* name, int64_t value, KilnAttribute** out));

/**
 * Slot 73. A FLOAT attribute.
 *
 * @param[in]  name   Its name (not "").
 * @param[in]  value  Its value.
 * @param[out] out    Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeFloat,
                (const char* name, float value, KilnAttribute** out));

/**
 * Slot 74. A STRING attribute (bytes, which may include NUL).
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  data    @p length bytes (copied; may be NULL when @p length is 0).
 * @param[in]  length  Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeString,
                (const char* name, const char* data, size_t length, KilnAttribute** out));

/**
 * Slot 75. A TENSOR attribute; the tensor is shared, not copied.
 *
 * @param[in]  name   Its name (not "").
 * @param[in]  value  A tensor.
 * @param[out] out    Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeTensor,
                (const char* name, const KilnValue* value, KilnAttribute** out));

/**
 * Slot 76. A GRAPH attribute (the body of an If, Loop or Scan), taking ownership of the graph
 * (all or nothing). Names its nodes read that it does not define are read from the graphs
 * around it.
 *
 * @param[in]  name   Its name (not "").
 * @param[in]  graph  A graph the caller owns; a view from then on.
 * @param[out] out    Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeWithOwnedGraph,
                (const char* name, KilnGraph* graph, KilnAttribute** out));

/**
 * Slot 77. An INTS attribute.
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  values  @p count values (copied; may be NULL when @p count is 0).
 * @param[in]  count   Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeInts,
                (const char* name, const int64_t* values, size_t count, KilnAttribute** out));

/**
 * Slot 78. A FLOATS attribute.
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  values  @p count values (copied; may be NULL when @p count is 0).
 * @param[in]  count   Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeFloats,
                (const char* name, const float* values, size_t count, KilnAttribute** out));

/**
 * Slot 79. A STRINGS attribute.
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  values  @p count strings (copied; may be NULL when @p count is 0).
 * @param[in]  count   Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeStrings,
                (const char* name, const KilnStringRef* values, size_t count, KilnAttribute** out));

/**
 * Slot 80. A TENSORS attribute; the tensors are shared, not copied.
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  values  @p count tensors (may be NULL when @p count is 0).
 * @param[in]  count   Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeTensors,
                (const char* name, const KilnValue* const* values, size_t count,
                 KilnAttribute** out));

/**
 * Slot 81. A GRAPHS attribute, taking ownership of the graphs (all or nothing).
 *
 * @param[in]  name    Its name (not "").
 * @param[in]  graphs  @p count distinct graphs the caller owns (may be NULL when @p count is 0).
 * @param[in]  count   Their number.
 * @param[out] out     Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeWithOwnedGraphs,
                (const char* name, KilnGraph* const* graphs, size_t count, KilnAttribute** out));

/**
 * Slot 82. Releases an attribute the caller owns (and the graphs it owns).
 *
 * @param[in] attribute  The attribute, or NULL. One a node owns is refused (logged).
 */
KILN_ENTRY_TYPE(void, ReleaseAttribute, (KilnAttribute * attribute));

/**
 * Slot 83. The attribute's name.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the name, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetName,
                (const KilnAttribute* attribute, KilnStringRef* out));

/**
 * Slot 84. The attribute's type.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetType,
                (const KilnAttribute* attribute, KilnAttributeType* out));

/**
 * Slot 85. The value of an INT attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetInt, (const KilnAttribute* attribute, int64_t* out));

/**
 * Slot 86. The value of a FLOAT attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetFloat, (const KilnAttribute* attribute, float* out));

/**
 * Slot 87. The bytes of a STRING attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the bytes, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetString,
                (const KilnAttribute* attribute, KilnStringRef* out));

/**
 * Slot 88. The tensor of a TENSOR attribute (read-only, as ValueInfoGetInitializer's).
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the tensor, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetTensor,
                (const KilnAttribute* attribute, const KilnValue** out));

/**
 * Slot 89. The graph of a GRAPH attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the graph, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetGraph, (const KilnAttribute* attribute, KilnGraph** out));

/**
 * Slot 90. How many elements a list attribute (FLOATS, INTS, STRINGS, TENSORS, GRAPHS,
 * SPARSE_TENSORS, TYPE_PROTOS) has.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: not a list).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetNumElements,
                (const KilnAttribute* attribute, size_t* out));

/**
 * Slot 91. The values of an INTS attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the array, borrowed from @p attribute (NULL when empty);
 *                        AttributeGetNumElements gives its length.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetInts,
                (const KilnAttribute* attribute, const int64_t** out));

/**
 * Slot 92. The values of a FLOATS attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the array, borrowed from @p attribute (NULL when empty).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetFloats,
                (const KilnAttribute* attribute, const float** out));

/**
 * Slot 93. One string of a STRINGS attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[in]  index      Below AttributeGetNumElements.
 * @param[out] out        Receives the bytes, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetStringAt,
                (const KilnAttribute* attribute, size_t index, KilnStringRef* out));

/**
 * Slot 94. One tensor of a TENSORS attribute (read-only).
 *
 * @param[in]  attribute  The attribute.
 * @param[in]  index      Below AttributeGetNumElements.
 * @param[out] out        Receives the tensor, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetTensorAt,
                (const KilnAttribute* attribute, size_t index, const KilnValue** out));

/**
 * Slot 95. One graph of a GRAPHS attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[in]  index      Below AttributeGetNumElements.
 * @param[out] out        Receives the graph, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetGraphAt,
                (const KilnAttribute* attribute, size_t index, KilnGraph** out));

/**
 * Slot 96. A SPARSE_TENSOR attribute (the `sparse_value` of Constant, say); the tensors are
 * shared, not copied.
 *
 * @param[in]  name     Its name (not "").
 * @param[in]  values   The non-zero values: a 1-D tensor of NNZ elements.
 * @param[in]  indices  Where they are: an INT64 tensor of shape [NNZ, rank] (coordinates) or
 *                      [NNZ] (offsets into the dense tensor, row-major), each inside @p dims.
 * @param[in]  dims     The dense shape: @p rank dimensions, none negative.
 * @param[in]  rank     Its rank (at least 1).
 * @param[out] out      Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming what is wrong).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeSparseTensor,
                (const char* name, const KilnValue* values, const KilnValue* indices,
                 const int64_t* dims, size_t rank, KilnAttribute** out));

/**
 * Slot 97. A SPARSE_TENSORS attribute: @p count sparse tensors, each given as to
 * CreateAttributeSparseTensor.
 *
 * @param[in]  name     Its name (not "").
 * @param[in]  values   @p count value tensors.
 * @param[in]  indices  @p count index tensors.
 * @param[in]  dims     @p count dense shapes.
 * @param[in]  ranks    @p count ranks.
 * @param[in]  count    Their number (when 0, the arrays may be NULL).
 * @param[out] out      Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the entry at fault).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeSparseTensors,
                (const char* name, const KilnValue* const* values, const KilnValue* const* indices,
                 const int64_t* const* dims, const size_t* ranks, size_t count,
                 KilnAttribute** out));

/**
 * Slot 98. A TYPE_PROTO attribute (the `type` of Optional, say).
 *
 * @param[in]  name  Its name (not "").
 * @param[in]  type  The type (copied).
 * @param[out] out   Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeTypeProto,
                (const char* name, const KilnTypeInfo* type, KilnAttribute** out));

/**
 * Slot 99. A TYPE_PROTOS attribute.
 *
 * @param[in]  name   Its name (not "").
 * @param[in]  types  @p count types (copied; may be NULL when @p count is 0).
 * @param[in]  count  Their number.
 * @param[out] out    Receives the attribute (as CreateAttributeInt).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateAttributeTypeProtos,
                (const char* name, const KilnTypeInfo* const* types, size_t count,
                 KilnAttribute** out));

/**
 * Slot 100. The parts of a SPARSE_TENSOR attribute, borrowed from @p attribute (the tensors
 * read-only, as ValueInfoGetInitializer's).
 *
 * @param[in]  attribute  The attribute.
 * @param[out] values     Receives the values tensor.
 * @param[out] indices    Receives the indices tensor.
 * @param[out] dims       Receives the dense shape's dimensions.
 * @param[out] rank       Receives their number.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetSparseTensor,
                (const KilnAttribute* attribute, const KilnValue** values,
                 const KilnValue** indices, const int64_t** dims, size_t* rank));

/**
 * Slot 101. One sparse tensor of a SPARSE_TENSORS attribute, as AttributeGetSparseTensor.
 *
 * @param[in]  attribute  The attribute.
 * @param[in]  index      Below AttributeGetNumElements.
 * @param[out] values     Receives the values tensor.
 * @param[out] indices    Receives the indices tensor.
 * @param[out] dims       Receives the dense shape's dimensions.
 * @param[out] rank       Receives their number.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetSparseTensorAt,
                (const KilnAttribute* attribute, size_t index, const KilnValue** values,
                 const KilnValue** indices, const int64_t** dims, size_t* rank));

/**
 * Slot 102. The type of a TYPE_PROTO attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[out] out        Receives the type, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT: another type).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetTypeProto,
                (const KilnAttribute* attribute, const KilnTypeInfo** out));

/**
 * Slot 103. One type of a TYPE_PROTOS attribute.
 *
 * @param[in]  attribute  The attribute.
 * @param[in]  index      Below AttributeGetNumElements.
 * @param[out] out        Receives the type, borrowed from @p attribute.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AttributeGetTypeProtoAt,
                (const KilnAttribute* attribute, size_t index, const KilnTypeInfo** out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_GRAPH_ATTRIBUTES_H_
