/**
 * @file
 * Kiln C ABI: Tensors, string tensors, sequences and optionals.
 *
 * The entries of Kiln's C ABI that make and read values: tensors of every ONNX element type (over
 * Kiln's memory or the caller's), string tensors, sequences and optionals. Each entry is a slot of
 * the KilnApi table (kiln/kiln_c_api.h, the one header a program includes); this header declares
 * and documents the slots' function types, Kiln<Name>Fn.
 *
 * @code
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   float data[6] = {0, 1, 2, 3, 4, 5};
 *   int64_t shape[2] = {2, 3};
 *   KilnValue* tensor = NULL;
 *   KilnStatus* st = api->CreateTensorWithDataAsValue(cpu, data, sizeof data, shape, 2,
 *                                                     KILN_ELEMENT_TYPE_FLOAT, &tensor);
 * @endcode
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_VALUES_H_
#define KILN_C_VALUES_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tensors --------------------------------------------------------------------------------- */

/**
 * Creates a tensor whose memory Kiln allocates from @p allocator and owns.
 *
 * The data is zero-filled (string tensors hold empty strings). The memory must come back
 * 64-byte aligned; a tensor with no elements allocates nothing.
 *
 * @param[in]  allocator     Where the data comes from; it must outlive the tensor.
 * @param[in]  shape         The dimensions, each >= 0; may be NULL when @p shape_len is 0.
 * @param[in]  shape_len     The rank.
 * @param[in]  element_type  Any defined KilnElementType.
 * @param[out] out           Receives the owned value, released with ReleaseValue.
 * @return NULL on success, else a status: KILN_INVALID_ARGUMENT for a bad argument (negative
 *         dimension, a size that overflows size_t, unknown type, allocator breaking its
 *         contract), KILN_OUT_OF_MEMORY.
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateTensorAsValue,
                (KilnAllocator * allocator, const int64_t* shape, size_t shape_len,
                 KilnElementType element_type, KilnValue** out));

/**
 * Creates a tensor over memory the caller owns, without copying it.
 *
 * The caller keeps the buffer alive and unmoved for the life of the value. String tensors cannot
 * wrap a buffer (use CreateTensorAsValue and FillStringTensor).
 *
 * @param[in]  info          Where the buffer lives; must describe CPU memory. It is copied.
 * @param[in]  data          The buffer; may be NULL only when @p data_len is 0.
 * @param[in]  data_len      Its length in bytes; must equal what the shape and type need.
 * @param[in]  shape         The dimensions, each >= 0; may be NULL when @p shape_len is 0.
 * @param[in]  shape_len     The rank.
 * @param[in]  element_type  Any defined KilnElementType except KILN_ELEMENT_TYPE_STRING.
 * @param[out] out           Receives the owned value, released with ReleaseValue (which leaves
 *                           the buffer alone).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateTensorWithDataAsValue,
                (const KilnMemoryInfo* info, void* data, size_t data_len, const int64_t* shape,
                 size_t shape_len, KilnElementType element_type, KilnValue** out));

/**
 * What kind of value a value is.
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives its kind.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetValueType, (const KilnValue* value, KilnValueType* out));

/**
 * Whether a value is a tensor.
 *
 * @param[in]  value  The value.
 * @param[out] out    Receives 1 for a tensor, 0 otherwise.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, IsTensor, (const KilnValue* value, int* out));

/**
 * The data of a non-string tensor, for reading and writing.
 *
 * @param[in]  value  A tensor whose element type is not KILN_ELEMENT_TYPE_STRING.
 * @param[out] out    Receives a pointer borrowed from @p value (NULL for a Kiln-allocated tensor
 *                    with no elements).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorMutableData, (KilnValue * value, void** out));

/**
 * The data of a non-string tensor, for reading only: also a tensor that cannot be changed (a
 * model's initializer from the graph API, which GetTensorMutableData refuses).
 *
 * @param[in]  value  A tensor whose element type is not KILN_ELEMENT_TYPE_STRING.
 * @param[out] out    Receives a pointer borrowed from @p value (NULL for a tensor with no
 *                    elements and no buffer).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorData, (const KilnValue* value, const void** out));

/**
 * The size of a non-string tensor's data in bytes.
 *
 * @param[in]  value  A tensor whose element type is not KILN_ELEMENT_TYPE_STRING.
 * @param[out] out    Receives the byte size (packed for sub-byte types).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorSizeInBytes, (const KilnValue* value, size_t* out));

/**
 * Where a tensor's data lives.
 *
 * @param[in]  value  A tensor.
 * @param[out] out    Receives a memory info borrowed from @p value.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorMemoryInfo,
                (const KilnValue* value, const KilnMemoryInfo** out));

/**
 * The element type and shape of a tensor.
 *
 * @param[in]  value  A tensor.
 * @param[out] out    Receives an owned snapshot, released with ReleaseTensorTypeAndShapeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorTypeAndShape,
                (const KilnValue* value, KilnTensorTypeAndShapeInfo** out));

/**
 * The element type in a type-and-shape info.
 *
 * @param[in]  info  The info.
 * @param[out] out   Receives the element type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorElementType,
                (const KilnTensorTypeAndShapeInfo* info, KilnElementType* out));

/**
 * The rank in a type-and-shape info.
 *
 * @param[in]  info  The info.
 * @param[out] out   Receives the number of dimensions.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetDimensionsCount,
                (const KilnTensorTypeAndShapeInfo* info, size_t* out));

/**
 * Copies the dimensions of a type-and-shape info; -1 marks a dimension not known until run.
 *
 * @param[in]  info      The info.
 * @param[out] dims      Receives the rank's worth of dimensions; may be NULL when the rank is 0.
 * @param[in]  dims_len  Capacity of @p dims; must be at least the rank.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetDimensions,
                (const KilnTensorTypeAndShapeInfo* info, int64_t* dims, size_t dims_len));

/**
 * The symbolic names of the dimensions ("" for a dimension with no name).
 *
 * @param[in]  info       The info.
 * @param[out] names      Receives the rank's worth of UTF-8 names borrowed from @p info; may be
 *                        NULL when the rank is 0.
 * @param[in]  names_len  Capacity of @p names; must be at least the rank.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetSymbolicDimensions,
                (const KilnTensorTypeAndShapeInfo* info, const char** names, size_t names_len));

/**
 * The number of elements: the product of the dimensions (1 for rank 0).
 *
 * @param[in]  info  The info.
 * @param[out] out   Receives the element count.
 * @return NULL on success, else a status: KILN_INVALID_ARGUMENT when a dimension is unknown.
 */
KILN_ENTRY_TYPE(KilnStatus*, GetTensorShapeElementCount,
                (const KilnTensorTypeAndShapeInfo* info, size_t* out));

/**
 * Releases a type-and-shape info.
 *
 * @param[in] info  The info to release; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseTensorTypeAndShapeInfo, (KilnTensorTypeAndShapeInfo * info));

/* ---- String tensors -------------------------------------------------------------------------- */

/**
 * Sets every element of a string tensor. All strings are checked before any is stored.
 *
 * @param[in,out] value  A string tensor.
 * @param[in]     s      @p s_len NUL-terminated UTF-8 strings, copied.
 * @param[in]     s_len  Must equal the tensor's element count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, FillStringTensor,
                (KilnValue * value, const char* const* s, size_t s_len));

/**
 * Sets one element of a string tensor.
 *
 * @param[in,out] value  A string tensor.
 * @param[in]     s      A NUL-terminated UTF-8 string, copied.
 * @param[in]     index  The element, in row-major order.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, FillStringTensorElement,
                (KilnValue * value, const char* s, size_t index));

/**
 * The total length in bytes of every string in a string tensor (no terminators).
 *
 * @param[in]  value  A string tensor.
 * @param[out] out    Receives the total.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetStringTensorDataLength, (const KilnValue* value, size_t* out));

/**
 * Copies every string of a string tensor, back to back without terminators, and where each
 * starts.
 *
 * @param[in]  value        A string tensor.
 * @param[out] s            Receives the bytes; may be NULL when the total length is 0.
 * @param[in]  s_len        Capacity of @p s; must be at least GetStringTensorDataLength.
 * @param[out] offsets      Receives the start of each element within @p s.
 * @param[in]  offsets_len  Capacity of @p offsets; must equal the element count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetStringTensorContent,
                (const KilnValue* value, void* s, size_t s_len, size_t* offsets,
                 size_t offsets_len));

/**
 * The length in bytes of one element of a string tensor (no terminator).
 *
 * @param[in]  value  A string tensor.
 * @param[in]  index  The element, in row-major order.
 * @param[out] out    Receives the length.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetStringTensorElementLength,
                (const KilnValue* value, size_t index, size_t* out));

/**
 * Copies one element of a string tensor, without a terminator.
 *
 * @param[in]  value  A string tensor.
 * @param[in]  s_len  Capacity of @p s; must be at least the element's length.
 * @param[in]  index  The element, in row-major order.
 * @param[out] s      Receives the bytes; may be NULL when the element is empty.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetStringTensorElement,
                (const KilnValue* value, size_t s_len, size_t index, void* s));

/**
 * Releases a value. Memory Kiln allocated goes back to its allocator; a user buffer is left
 * alone.
 *
 * @param[in] value  The value to release; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseValue, (KilnValue * value));

/* ---- Sequences and optionals (slots 73-78) --------------------------------------------------- */

/**
 * Creates a sequence (ONNX seq(tensor(T))) holding copies of tensors; the caller's values stay
 * theirs and later writes to them do not reach the sequence. A sequence cannot be changed.
 *
 * @param[in]  tensors       @p count tensors, each of @p element_type; may be NULL when
 *                           @p count is 0.
 * @param[in]  count         The number of tensors; 0 gives an empty sequence.
 * @param[in]  element_type  The element type of every tensor (also that of an empty sequence).
 * @param[out] out           Receives the owned sequence, released with ReleaseValue.
 * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (an entry NULL, not a tensor,
 *         or of another element type, named by its index), KILN_OUT_OF_MEMORY.
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateSequenceValue,
                (const KilnValue* const* tensors, size_t count, KilnElementType element_type,
                 KilnValue** out));

/**
 * Creates an optional (ONNX optional(tensor(T)) or optional(seq(tensor(T)))), empty or holding
 * a copy of a tensor or the (immutable, so shared) sequence.
 *
 * @param[in]  content         A tensor or a sequence matching @p contained_type and
 *                             @p element_type, or NULL for an empty optional.
 * @param[in]  contained_type  KILN_VALUE_TYPE_TENSOR or KILN_VALUE_TYPE_SEQUENCE.
 * @param[in]  element_type    The element type of the tensor or of the sequence's tensors.
 * @param[out] out             Receives the owned optional, released with ReleaseValue.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateOptionalValue,
                (const KilnValue* content, KilnValueType contained_type,
                 KilnElementType element_type, KilnValue** out));

/**
 * How many elements a sequence or an optional holds.
 *
 * @param[in]  value  A sequence or an optional.
 * @param[out] out    Receives a sequence's length; for an optional 1 when it holds something,
 *                    else 0.
 * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (also for a tensor).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetValueCount, (const KilnValue* value, size_t* out));

/**
 * One element of a sequence, or what an optional holds, as a new value.
 *
 * A tensor comes back as a copy: writing to it never changes @p value. A sequence held by an
 * optional comes back shared (sequences cannot be changed).
 *
 * @param[in]  value  A sequence or an optional.
 * @param[in]  index  0 to GetValueCount - 1.
 * @param[out] out    Receives the owned element, released with ReleaseValue.
 * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (a tensor, an index out of
 *         range, an empty optional; the message gives the index and the count),
 *         KILN_OUT_OF_MEMORY.
 */
KILN_ENTRY_TYPE(KilnStatus*, GetValueElement,
                (const KilnValue* value, size_t index, KilnValue** out));

/**
 * Whether a value holds something.
 *
 * @param[in]  value  Any value.
 * @param[out] out    Receives 0 for an empty optional, 1 otherwise.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, HasValue, (const KilnValue* value, int* out));

/**
 * The element type of a tensor, of a sequence's tensors, or of what an optional holds (or
 * would hold, when empty).
 *
 * @param[in]  value  Any value.
 * @param[out] out    Receives the element type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetValueElementType, (const KilnValue* value, KilnElementType* out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_VALUES_H_
