/*
 * Kiln — the C ABI.
 *
 * Everything a program does with Kiln goes through one versioned table of function pointers,
 * reached from the one exported symbol, KilnGetApiBase():
 *
 * @code
 *   #include <kiln/kiln_c_api.h>
 *
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   KilnEnv* env = NULL;
 *   KilnStatus* st = api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "my-app", &env);
 *   if (st != NULL) {
 *     fprintf(stderr, "kiln: %s\n", api->GetErrorMessage(st));
 *     api->ReleaseStatus(st);
 *     return 1;
 *   }
 *   float data[6] = {0, 1, 2, 3, 4, 5};
 *   int64_t shape[2] = {2, 3};
 *   KilnMemoryInfo* cpu = NULL;
 *   KilnValue* tensor = NULL;
 *   st = api->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu);
 *   if (st == NULL)
 *     st = api->CreateTensorWithDataAsValue(cpu, data, sizeof data, shape, 2,
 *                                           KILN_ELEMENT_TYPE_FLOAT, &tensor);
 *   ...
 *   api->ReleaseValue(tensor);
 *   api->ReleaseMemoryInfo(cpu);
 *   api->ReleaseEnv(env);
 * @endcode
 *
 * The contract (the whole of it is in docs/ARCHITECTURE.md and checked by tests/api):
 * - Every entry that can fail returns a KilnStatus*; NULL means success. A status is released with
 *   KilnApi::ReleaseStatus.
 * - When an entry fails, its out-parameters and the caller's buffers are left exactly as they were.
 * - CreateX hands the caller an owned handle released by ReleaseX; ReleaseX returns nothing and
 *   accepts NULL. GetX borrows: the result is valid while the object it came from lives.
 * - Handles are opaque and checked: a handle of the wrong type, or one already released, gets
 *   KILN_INVALID_ARGUMENT rather than a crash (best effort: a released handle whose address was
 *   reused by a new object of the same type cannot be told apart from it).
 * - Strings are UTF-8; dimensions are int64_t; counts and byte sizes are size_t.
 * - Handles may be released in any order: objects keep what they need alive. A handle must not be
 *   released while another thread is still using it.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_C_API_H_
#define KILN_KILN_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h" /* KILN_API_VERSION, KilnApiBase, KilnGetApiBase */
#include "kiln/kiln_c_types.h" /* the enums, opaque handle types and KilnAllocator */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The table of every Kiln entry, version 1.
 *
 * Slots are only ever appended: a slot never moves and never changes signature, so a program
 * built against this header runs with any later libkiln of the same major version.
 */
struct KilnApi {
  /* ---- Status ---------------------------------------------------------------------------- */

  /**
   * Creates a status, e.g. for a user callback to report an error.
   *
   * @param[in] code  The error code; KILN_OK (a status is always an error) and values this
   *                  library does not know are stored as KILN_FAIL.
   * @param[in] msg   UTF-8 message, copied; NULL is taken as "".
   * @return An owned status, released with ReleaseStatus. If its memory cannot be allocated the
   *         result is a shared status with code KILN_OUT_OF_MEMORY (also released with
   *         ReleaseStatus).
   */
  KILN_SLOT(KilnStatus*, CreateStatus, (KilnErrorCode code, const char* msg));

  /**
   * The error code of a status.
   *
   * @param[in] status  A status; NULL means success.
   * @return KILN_OK for NULL, the status's code otherwise, and KILN_INVALID_ARGUMENT for a pointer
   *         that is not a live status.
   */
  KILN_SLOT(KilnErrorCode, GetErrorCode, (const KilnStatus* status));

  /**
   * The message of a status: it names the entry that failed and the argument at fault.
   *
   * @param[in] status  A status; NULL means success.
   * @return A UTF-8 string borrowed from @p status (valid until it is released); "" for NULL, and
   *         a fixed explanation for a pointer that is not a live status.
   */
  KILN_SLOT(const char*, GetErrorMessage, (const KilnStatus* status));

  /**
   * Releases a status.
   *
   * @param[in] status  The status to release; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseStatus, (KilnStatus* status));

  /* ---- Env -------------------------------------------------------------------------------- */

  /**
   * Creates an Env that logs to standard error.
   *
   * @param[in]  min_severity  Messages below this level are dropped.
   * @param[in]  log_id        UTF-8 name carried by every message (copied); must not be NULL.
   * @param[out] out           Receives the owned Env, released with ReleaseEnv.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateEnv,
            (KilnLoggingLevel min_severity, const char* log_id, KilnEnv** out));

  /**
   * Creates an Env that sends its log messages to a callback.
   *
   * The first live Env also receives messages not tied to any Env (such as GetApi's); with none,
   * they go to standard error.
   *
   * @param[in]  logging_function  The callback; must not be NULL.
   * @param[in]  logger_param      Passed to every call of the callback; may be NULL.
   * @param[in]  min_severity      Messages below this level are dropped.
   * @param[in]  log_id            UTF-8 name carried by every message (copied); must not be NULL.
   * @param[out] out               Receives the owned Env, released with ReleaseEnv.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateEnvWithCustomLogger,
            (KilnLoggingFunction logging_function, void* logger_param,
             KilnLoggingLevel min_severity, const char* log_id, KilnEnv** out));

  /**
   * Releases an Env.
   *
   * @param[in] env  The Env to release; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseEnv, (KilnEnv* env));

  /* ---- Memory info ------------------------------------------------------------------------ */

  /**
   * Creates a description of CPU memory, for tensors over user buffers.
   *
   * @param[in]  allocator_type  KILN_DEVICE_ALLOCATOR or KILN_ARENA_ALLOCATOR.
   * @param[in]  mem_type        Any KilnMemType value.
   * @param[out] out             Receives the owned info, released with ReleaseMemoryInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateCpuMemoryInfo,
            (KilnAllocatorType allocator_type, KilnMemType mem_type, KilnMemoryInfo** out));

  /**
   * The device name of a memory info ("Cpu").
   *
   * @param[in]  info  The memory info.
   * @param[out] out   Receives a UTF-8 name borrowed from @p info.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, MemoryInfoGetName, (const KilnMemoryInfo* info, const char** out));

  /**
   * The device id of a memory info (0 for the CPU).
   *
   * @param[in]  info  The memory info.
   * @param[out] out   Receives the id.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, MemoryInfoGetId, (const KilnMemoryInfo* info, int* out));

  /**
   * The memory type of a memory info.
   *
   * @param[in]  info  The memory info.
   * @param[out] out   Receives the memory type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, MemoryInfoGetMemType, (const KilnMemoryInfo* info, KilnMemType* out));

  /**
   * The allocator type of a memory info.
   *
   * @param[in]  info  The memory info.
   * @param[out] out   Receives the allocator type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, MemoryInfoGetType, (const KilnMemoryInfo* info, KilnAllocatorType* out));

  /**
   * Whether two memory infos describe the same memory (same device, id and memory type; the
   * allocator type is not compared).
   *
   * @param[in]  a    A memory info.
   * @param[in]  b    Another memory info.
   * @param[out] out  Receives 1 when they are the same, 0 otherwise.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, MemoryInfoEquals,
            (const KilnMemoryInfo* a, const KilnMemoryInfo* b, int* out));

  /**
   * Releases a memory info. Tensors created with it keep their own copy.
   *
   * @param[in] info  The memory info to release; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseMemoryInfo, (KilnMemoryInfo* info));

  /* ---- Allocators ------------------------------------------------------------------------- */

  /**
   * Kiln's CPU allocator: 64-byte aligned memory, thread-safe.
   *
   * @param[out] out  Receives the allocator, owned by Kiln and valid for the life of the process;
   *                  it is never released.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetAllocatorWithDefaultOptions, (KilnAllocator * *out));

  /**
   * Allocates memory from an allocator.
   *
   * @param[in]  allocator  Kiln's allocator or a user-supplied one.
   * @param[in]  size       Bytes to allocate; 0 gives a valid pointer to no usable bytes.
   * @param[out] out        Receives the memory, freed with AllocatorFree of the same allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, AllocatorAlloc, (KilnAllocator * allocator, size_t size, void** out));

  /**
   * Frees memory from AllocatorAlloc (or memory Kiln returned through this allocator).
   *
   * @param[in] allocator  The allocator the memory came from.
   * @param[in] p          The memory; NULL is accepted and ignored.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AllocatorFree, (KilnAllocator * allocator, void* p));

  /**
   * Describes the memory an allocator returns.
   *
   * @param[in]  allocator  The allocator.
   * @param[out] out        Receives a memory info borrowed from the allocator; allocators whose
   *                        Info callback is NULL report Kiln's CPU memory info.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, AllocatorGetInfo,
            (const KilnAllocator* allocator, const KilnMemoryInfo** out));

  /* ---- Tensors ---------------------------------------------------------------------------- */

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
  KILN_SLOT(KilnStatus*, CreateTensorAsValue,
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
  KILN_SLOT(KilnStatus*, CreateTensorWithDataAsValue,
            (const KilnMemoryInfo* info, void* data, size_t data_len, const int64_t* shape,
             size_t shape_len, KilnElementType element_type, KilnValue** out));

  /**
   * What kind of value a value is.
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives its kind.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetValueType, (const KilnValue* value, KilnValueType* out));

  /**
   * Whether a value is a tensor.
   *
   * @param[in]  value  The value.
   * @param[out] out    Receives 1 for a tensor, 0 otherwise.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, IsTensor, (const KilnValue* value, int* out));

  /**
   * The data of a non-string tensor, for reading and writing.
   *
   * @param[in]  value  A tensor whose element type is not KILN_ELEMENT_TYPE_STRING.
   * @param[out] out    Receives a pointer borrowed from @p value (NULL for a Kiln-allocated tensor
   *                    with no elements).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetTensorMutableData, (KilnValue * value, void** out));

  /**
   * The size of a non-string tensor's data in bytes.
   *
   * @param[in]  value  A tensor whose element type is not KILN_ELEMENT_TYPE_STRING.
   * @param[out] out    Receives the byte size (packed for sub-byte types).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetTensorSizeInBytes, (const KilnValue* value, size_t* out));

  /**
   * Where a tensor's data lives.
   *
   * @param[in]  value  A tensor.
   * @param[out] out    Receives a memory info borrowed from @p value.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetTensorMemoryInfo, (const KilnValue* value, const KilnMemoryInfo** out));

  /**
   * The element type and shape of a tensor.
   *
   * @param[in]  value  A tensor.
   * @param[out] out    Receives an owned snapshot, released with ReleaseTensorTypeAndShapeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, GetTensorTypeAndShape,
            (const KilnValue* value, KilnTensorTypeAndShapeInfo** out));

  /**
   * The element type in a type-and-shape info.
   *
   * @param[in]  info  The info.
   * @param[out] out   Receives the element type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetTensorElementType,
            (const KilnTensorTypeAndShapeInfo* info, KilnElementType* out));

  /**
   * The rank in a type-and-shape info.
   *
   * @param[in]  info  The info.
   * @param[out] out   Receives the number of dimensions.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetDimensionsCount, (const KilnTensorTypeAndShapeInfo* info, size_t* out));

  /**
   * Copies the dimensions of a type-and-shape info; -1 marks a dimension not known until run.
   *
   * @param[in]  info      The info.
   * @param[out] dims      Receives the rank's worth of dimensions; may be NULL when the rank is 0.
   * @param[in]  dims_len  Capacity of @p dims; must be at least the rank.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetDimensions,
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
  KILN_SLOT(KilnStatus*, GetSymbolicDimensions,
            (const KilnTensorTypeAndShapeInfo* info, const char** names, size_t names_len));

  /**
   * The number of elements: the product of the dimensions (1 for rank 0).
   *
   * @param[in]  info  The info.
   * @param[out] out   Receives the element count.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT when a dimension is unknown.
   */
  KILN_SLOT(KilnStatus*, GetTensorShapeElementCount,
            (const KilnTensorTypeAndShapeInfo* info, size_t* out));

  /**
   * Releases a type-and-shape info.
   *
   * @param[in] info  The info to release; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseTensorTypeAndShapeInfo, (KilnTensorTypeAndShapeInfo* info));

  /* ---- String tensors --------------------------------------------------------------------- */

  /**
   * Sets every element of a string tensor. All strings are checked before any is stored.
   *
   * @param[in,out] value  A string tensor.
   * @param[in]     s      @p s_len NUL-terminated UTF-8 strings, copied.
   * @param[in]     s_len  Must equal the tensor's element count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, FillStringTensor, (KilnValue * value, const char* const* s, size_t s_len));

  /**
   * Sets one element of a string tensor.
   *
   * @param[in,out] value  A string tensor.
   * @param[in]     s      A NUL-terminated UTF-8 string, copied.
   * @param[in]     index  The element, in row-major order.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, FillStringTensorElement, (KilnValue * value, const char* s, size_t index));

  /**
   * The total length in bytes of every string in a string tensor (no terminators).
   *
   * @param[in]  value  A string tensor.
   * @param[out] out    Receives the total.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetStringTensorDataLength, (const KilnValue* value, size_t* out));

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
  KILN_SLOT(KilnStatus*, GetStringTensorContent,
            (const KilnValue* value, void* s, size_t s_len, size_t* offsets, size_t offsets_len));

  /**
   * The length in bytes of one element of a string tensor (no terminator).
   *
   * @param[in]  value  A string tensor.
   * @param[in]  index  The element, in row-major order.
   * @param[out] out    Receives the length.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetStringTensorElementLength,
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
  KILN_SLOT(KilnStatus*, GetStringTensorElement,
            (const KilnValue* value, size_t s_len, size_t index, void* s));

  /**
   * Releases a value. Memory Kiln allocated goes back to its allocator; a user buffer is left
   * alone.
   *
   * @param[in] value  The value to release; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseValue, (KilnValue* value));

  /* ---- Session options (slots 39-49) ----------------------------------------------------------
   */

  /**
   * Creates session options with the defaults: one intra-op thread per hardware thread,
   * optimization level KILN_GRAPH_OPTIMIZATION_ALL, log severity WARNING, no profiling.
   *
   * @param[out] out  Receives the owned options, released with ReleaseSessionOptions.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateSessionOptions, (KilnSessionOptions * *out));

  /**
   * Copies session options.
   *
   * @param[in]  options  The options to copy.
   * @param[out] out      Receives the owned copy, released with ReleaseSessionOptions.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CloneSessionOptions,
            (const KilnSessionOptions* options, KilnSessionOptions** out));

  /**
   * Sets how many threads (the calling thread included) a session uses inside each operator.
   *
   * @param[in,out] options  The options.
   * @param[in]     threads  1 to 1024, or 0 for one per hardware thread.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SetIntraOpNumThreads, (KilnSessionOptions * options, int threads));

  /**
   * Sets how much the session may rewrite the graph. This version records the level but runs
   * no rewriting pass at any level yet.
   *
   * @param[in,out] options  The options.
   * @param[in]     level    A KilnGraphOptimizationLevel (0 to 3).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SetSessionGraphOptimizationLevel,
            (KilnSessionOptions * options, KilnGraphOptimizationLevel level));

  /**
   * Sets the least severity the session logs (through the Env's logger).
   *
   * @param[in,out] options   The options.
   * @param[in]     severity  A KilnLoggingLevel (0 to 4).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SetSessionLogSeverityLevel,
            (KilnSessionOptions * options, KilnLoggingLevel severity));

  /**
   * Sets the id the session's log messages carry.
   *
   * @param[in,out] options  The options.
   * @param[in]     log_id   UTF-8, copied.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SetSessionLogId, (KilnSessionOptions * options, const char* log_id));

  /**
   * Turns profiling on: every node's run time is recorded, and SessionEndProfiling writes a
   * Chrome trace-event JSON file (it opens in Perfetto) named "<prefix>_<time>_<n>.json".
   *
   * @param[in,out] options  The options.
   * @param[in]     prefix   A non-empty UTF-8 path prefix, copied.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, EnableProfiling, (KilnSessionOptions * options, const char* prefix));

  /**
   * Turns profiling off (the default).
   *
   * @param[in,out] options  The options.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, DisableProfiling, (KilnSessionOptions * options));

  /**
   * Fixes a named free dimension (an ONNX dim_param such as "batch") of the model's inputs to a
   * value: inputs must then have it, and type info reports it.
   *
   * @param[in,out] options  The options.
   * @param[in]     name     The dimension's name, UTF-8, non-empty.
   * @param[in]     value    Its value, >= 0.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, AddFreeDimensionOverrideByName,
            (KilnSessionOptions * options, const char* name, int64_t value));

  /**
   * Sets a configuration entry. Every key is listed here; any other key is an error.
   * - "kiln.arena.enable": "1" (default) keeps freed intermediate buffers for reuse by later
   *   runs; "0" returns each to the system as soon as its last reader is done.
   * - "kiln.run.check_finite": "1" checks every node's floating-point outputs for NaN and
   *   infinity and fails the run naming the node; "0" (default) does not.
   *
   * @param[in,out] options  The options.
   * @param[in]     key      One of the keys above.
   * @param[in]     value    A value the key accepts.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the key or value,
   *         KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, AddSessionConfigEntry,
            (KilnSessionOptions * options, const char* key, const char* value));

  /**
   * Releases session options. Sessions created from them keep their own copy.
   *
   * @param[in] options  The options; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseSessionOptions, (KilnSessionOptions * options));

  /* ---- Sessions (slots 50-65) -----------------------------------------------------------------
   */

  /**
   * Loads a model file and prepares it to run: parses and validates it, reads external data
   * (which must lie in the model's folder) and creates every kernel.
   *
   * @param[in]  env      The environment whose logger the session uses; it may be released
   *                      before the session.
   * @param[in]  path     UTF-8 path of an .onnx file.
   * @param[in]  options  Options, or NULL for the defaults.
   * @param[out] out      Receives the owned session, released with ReleaseSession.
   * @return NULL on success, else a status: KILN_NO_SUCHFILE, KILN_INVALID_PROTOBUF (not a model,
   *         bad tensor data), KILN_INVALID_GRAPH (dangling names, cycles, bad attributes; the
   *         message names the node), KILN_NOT_IMPLEMENTED (an op or opset Kiln does not run,
   *         named with node, op type, domain and opset), KILN_INVALID_ARGUMENT,
   *         KILN_OUT_OF_MEMORY.
   */
  KILN_SLOT(KilnStatus*, CreateSession,
            (const KilnEnv* env, const char* path, const KilnSessionOptions* options,
             KilnSession** out));

  /**
   * Like CreateSession, from a serialized model in memory (copied as needed; the buffer may be
   * freed once this returns). Such a model cannot use external data.
   *
   * @param[in]  env       The environment.
   * @param[in]  data      The ModelProto bytes.
   * @param[in]  data_len  Their count (at most 2 GiB, protobuf's limit).
   * @param[in]  options   Options, or NULL for the defaults.
   * @param[out] out       Receives the owned session, released with ReleaseSession.
   * @return NULL on success, else a status as for CreateSession.
   */
  KILN_SLOT(KilnStatus*, CreateSessionFromArray,
            (const KilnEnv* env, const void* data, size_t data_len,
             const KilnSessionOptions* options, KilnSession** out));

  /**
   * How many inputs the model takes (initializers excluded).
   *
   * @param[in]  session  The session.
   * @param[out] out      Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetInputCount, (const KilnSession* session, size_t* out));

  /**
   * How many outputs the model gives.
   *
   * @param[in]  session  The session.
   * @param[out] out      Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetOutputCount, (const KilnSession* session, size_t* out));

  /**
   * The name of an input.
   *
   * @param[in]  session    The session.
   * @param[in]  index      0 to SessionGetInputCount - 1.
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated UTF-8 copy, freed with @p allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionGetInputName,
            (const KilnSession* session, size_t index, KilnAllocator* allocator, char** out));

  /**
   * The name of an output.
   *
   * @param[in]  session    The session.
   * @param[in]  index      0 to SessionGetOutputCount - 1.
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated UTF-8 copy, freed with @p allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionGetOutputName,
            (const KilnSession* session, size_t index, KilnAllocator* allocator, char** out));

  /**
   * What kind of value an input is (tensor, sequence, map, optional).
   *
   * @param[in]  session  The session.
   * @param[in]  index    0 to SessionGetInputCount - 1.
   * @param[out] out      Receives the kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetInputValueType,
            (const KilnSession* session, size_t index, KilnValueType* out));

  /**
   * What kind of value an output is.
   *
   * @param[in]  session  The session.
   * @param[in]  index    0 to SessionGetOutputCount - 1.
   * @param[out] out      Receives the kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetOutputValueType,
            (const KilnSession* session, size_t index, KilnValueType* out));

  /**
   * The element type and shape of an input tensor (of the tensors in it, for a sequence or an
   * optional). Unknown dimensions are -1, with their symbolic names from GetSymbolicDimensions;
   * an unknown rank gives 0 dimensions and an unknown type KILN_ELEMENT_TYPE_UNDEFINED.
   *
   * @param[in]  session  The session.
   * @param[in]  index    0 to SessionGetInputCount - 1.
   * @param[out] out      Receives an owned info, released with ReleaseTensorTypeAndShapeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateSessionInputTensorInfo,
            (const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out));

  /**
   * The element type and shape of an output tensor, as for CreateSessionInputTensorInfo.
   *
   * @param[in]  session  The session.
   * @param[in]  index    0 to SessionGetOutputCount - 1.
   * @param[out] out      Receives an owned info, released with ReleaseTensorTypeAndShapeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateSessionOutputTensorInfo,
            (const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out));

  /**
   * One string of the model's metadata ("" when the model leaves it out).
   *
   * @param[in]  session    The session.
   * @param[in]  field      Which string (KilnModelMetadataField).
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated copy, freed with @p allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionGetModelMetadataString,
            (const KilnSession* session, KilnModelMetadataField field, KilnAllocator* allocator,
             char** out));

  /**
   * The model's version (ModelProto.model_version, 0 when absent).
   *
   * @param[in]  session  The session.
   * @param[out] out      Receives the version.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetModelVersion, (const KilnSession* session, int64_t* out));

  /**
   * The keys of the model's custom metadata (ModelProto.metadata_props), sorted.
   *
   * @param[in]  session    The session.
   * @param[in]  allocator  Allocates the array and each key.
   * @param[out] keys       Receives an array of @p count NUL-terminated keys (NULL when there
   *                        are none); free each key, then the array, with @p allocator.
   * @param[out] count      Receives the number of keys.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionGetCustomMetadataKeys,
            (const KilnSession* session, KilnAllocator* allocator, char*** keys, size_t* count));

  /**
   * The value of a custom metadata key.
   *
   * @param[in]  session    The session.
   * @param[in]  allocator  Allocates the returned string.
   * @param[in]  key        The key, UTF-8.
   * @param[out] out        Receives a NUL-terminated copy freed with @p allocator, or NULL when
   *                        the model has no such key.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionLookupCustomMetadata,
            (const KilnSession* session, KilnAllocator* allocator, const char* key, char** out));

  /**
   * Writes the profile recorded so far (see EnableProfiling) and returns the file's path.
   *
   * @param[in]  session    The session, created with profiling enabled.
   * @param[in]  allocator  Allocates the returned path.
   * @param[out] out        Receives the NUL-terminated path, freed with @p allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT when profiling is off, KILN_FAIL
   *         when the file cannot be written, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionEndProfiling,
            (KilnSession * session, KilnAllocator* allocator, char** out));

  /**
   * Releases a session. Values it returned stay valid.
   *
   * @param[in] session  The session; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseSession, (KilnSession * session));

  /* ---- Running (slots 66-72) ------------------------------------------------------------------
   */

  /**
   * Creates run options: no tag, log severity WARNING, not terminated.
   *
   * @param[out] out  Receives the owned options, released with ReleaseRunOptions.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateRunOptions, (KilnRunOptions * *out));

  /**
   * Sets the tag a run's log messages carry.
   *
   * @param[in,out] options  The options.
   * @param[in]     tag      UTF-8, copied.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, RunOptionsSetRunTag, (KilnRunOptions * options, const char* tag));

  /**
   * Sets the least severity a run logs.
   *
   * @param[in,out] options   The options.
   * @param[in]     severity  A KilnLoggingLevel (0 to 4).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, RunOptionsSetRunLogSeverityLevel,
            (KilnRunOptions * options, KilnLoggingLevel severity));

  /**
   * Asks every run using these options to stop: a run in progress stops before its next node
   * and returns KILN_TERMINATED; a new run returns it at once. Safe to call from any thread
   * while runs are in progress.
   *
   * @param[in,out] options  The options.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, RunOptionsSetTerminate, (KilnRunOptions * options));

  /**
   * Clears the terminate request, so the options can be used for new runs.
   *
   * @param[in,out] options  The options.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, RunOptionsUnsetTerminate, (KilnRunOptions * options));

  /**
   * Releases run options. They must not be in use by a run.
   *
   * @param[in] options  The options; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseRunOptions, (KilnRunOptions * options));

  /**
   * Runs the model. May be called from many threads at once on one session; each call gets
   * the results it would get alone.
   *
   * Each output slot that is NULL receives a new value owned by the caller (released with
   * ReleaseValue): a tensor, or a sequence or optional for an output of that kind. A slot the
   * caller filled with a tensor is written in place: its element type and shape must equal what the
   * model produces. Outputs are written only when the whole run succeeded: on failure every slot
   * and every caller tensor is exactly as it was.
   *
   * @param[in]     session       The session.
   * @param[in]     run_options   Options, or NULL for the defaults.
   * @param[in]     input_names   @p input_count names, each a model input or an overridable
   *                              initializer (SessionGetOverridableInitializerName), every input
   *                              given exactly once; an overridable initializer left out takes
   *                              the model's value.
   * @param[in]     inputs        @p input_count values matching the inputs' declared kinds
   *                              (tensor, sequence, optional), element types and shapes (free
   *                              dimensions may take any size, one size for every dimension
   *                              that shares a dim_param name).
   * @param[in]     input_count   The number of inputs.
   * @param[in]     output_names  @p output_count names, each a model output.
   * @param[in]     output_count  The number of outputs wanted (at least 1).
   * @param[in,out] outputs       @p output_count slots, each NULL or a caller's tensor.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (unknown, missing or repeated
   *         names, wrong type or shape, named), KILN_TERMINATED, KILN_NOT_IMPLEMENTED,
   *         KILN_RUNTIME_EXCEPTION or KILN_ENGINE_ERROR naming the node that failed,
   *         KILN_OUT_OF_MEMORY.
   */
  KILN_SLOT(KilnStatus*, Run,
            (KilnSession * session, const KilnRunOptions* run_options,
             const char* const* input_names, const KilnValue* const* inputs, size_t input_count,
             const char* const* output_names, size_t output_count, KilnValue** outputs));

  /* ---- Sequences and optionals (slots 73-78) --------------------------------------------------
   */

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
  KILN_SLOT(KilnStatus*, CreateSequenceValue,
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
  KILN_SLOT(KilnStatus*, CreateOptionalValue,
            (const KilnValue* content, KilnValueType contained_type, KilnElementType element_type,
             KilnValue** out));

  /**
   * How many elements a sequence or an optional holds.
   *
   * @param[in]  value  A sequence or an optional.
   * @param[out] out    Receives a sequence's length; for an optional 1 when it holds something,
   *                    else 0.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (also for a tensor).
   */
  KILN_SLOT(KilnStatus*, GetValueCount, (const KilnValue* value, size_t* out));

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
  KILN_SLOT(KilnStatus*, GetValueElement,
            (const KilnValue* value, size_t index, KilnValue** out));

  /**
   * Whether a value holds something.
   *
   * @param[in]  value  Any value.
   * @param[out] out    Receives 0 for an empty optional, 1 otherwise.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, HasValue, (const KilnValue* value, int* out));

  /**
   * The element type of a tensor, of a sequence's tensors, or of what an optional holds (or
   * would hold, when empty).
   *
   * @param[in]  value  Any value.
   * @param[out] out    Receives the element type.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, GetValueElementType, (const KilnValue* value, KilnElementType* out));

  /* ---- Session inputs and config (slots 79-87) ------------------------------------------------
   */

  /**
   * How many overridable initializers the model has: initializers of the main graph that the
   * model also lists as graph inputs (IR version 4 and later; before that every initializer was
   * listed and each is a constant). They are not among SessionGetInputCount's inputs: Run takes
   * each by name like an input, checking its element type and shape the same way, and uses the
   * model's value when it is not given. The optimizer never folds or pre-packs through one.
   *
   * @param[in]  session  The session.
   * @param[out] out      Receives the count.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetOverridableInitializerCount,
            (const KilnSession* session, size_t* out));

  /**
   * The name of an overridable initializer.
   *
   * @param[in]  session    The session.
   * @param[in]  index      0 to SessionGetOverridableInitializerCount - 1.
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated UTF-8 copy, freed with @p allocator.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionGetOverridableInitializerName,
            (const KilnSession* session, size_t index, KilnAllocator* allocator, char** out));

  /**
   * The element type and shape of an overridable initializer, as the model's graph input
   * declares them (the initializer's own when it declares none); as for
   * CreateSessionInputTensorInfo.
   *
   * @param[in]  session  The session.
   * @param[in]  index    0 to SessionGetOverridableInitializerCount - 1.
   * @param[out] out      Receives an owned info, released with ReleaseTensorTypeAndShapeInfo.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateSessionOverridableInitializerTensorInfo,
            (const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out));

  /**
   * Makes sessions created with these options use a caller's tensor in place of the model's
   * initializer of that name (an overridable one included: the tensor becomes its default). The
   * tensor's memory is shared, not copied: the options, their clones and every session made from
   * them hold shared ownership of the value's tensor (releasing @p value is fine), and the caller
   * keeps a buffer it wrapped (CreateTensorWithDataAsValue) alive and unchanged while any of them
   * lives. Giving a name again replaces the earlier tensor. CreateSession fails with
   * KILN_INVALID_ARGUMENT, naming the initializer and both types and shapes, when the name is not
   * an initializer of the model's main graph or the element type or shape differ from the
   * model's.
   *
   * @param[in,out] options  The options.
   * @param[in]     name     The initializer's name, UTF-8, non-empty.
   * @param[in]     value    A tensor.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionOptionsAddInitializer,
            (KilnSessionOptions * options, const char* name, const KilnValue* value));

  /**
   * Fixes every dimension of the model's inputs that carries an ONNX dimension denotation
   * (TensorShapeProto.Dimension.denotation, such as "DATA_BATCH"; compared without regard to
   * case) to a value, as AddFreeDimensionOverrideByName does for dim_param names: inputs must
   * then have it, and type info reports it. Overridable initializers keep their declared shape.
   * CreateSession fails with KILN_INVALID_ARGUMENT when such a dimension already has another
   * size, in the model or from a dim_param override.
   *
   * @param[in,out] options         The options.
   * @param[in]     dim_denotation  The denotation, UTF-8, non-empty.
   * @param[in]     value           Its value, >= 0.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, AddFreeDimensionOverride,
            (KilnSessionOptions * options, const char* dim_denotation, int64_t value));

  /**
   * The value of a configuration entry set with AddSessionConfigEntry.
   *
   * @param[in]  options    The options.
   * @param[in]  key        One of the keys AddSessionConfigEntry lists.
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated copy freed with @p allocator, or NULL when
   *                        the key is not set.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming an unknown key,
   *         KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, SessionOptionsGetConfigEntry,
            (const KilnSessionOptions* options, const char* key, KilnAllocator* allocator,
             char** out));

  /**
   * Sets a configuration entry for the runs using these options. Every key is listed here; any
   * other key is an error.
   * - "kiln.run.check_finite": "1" makes the run check every node's floating-point outputs for
   *   NaN and infinity and fail naming the node; "0" makes it skip the check. Either overrides
   *   the session's "kiln.run.check_finite" (AddSessionConfigEntry) for these runs.
   * - "memory.enable_memory_arena_shrinkage" (ONNX Runtime's key): "cpu:0" makes the session's
   *   caching allocator, once the run is over, return to the system the freed blocks it keeps
   *   for reuse (see "kiln.arena.enable"); "0" or "" (default) keeps them.
   *
   * @param[in,out] options  The options.
   * @param[in]     key      One of the keys above.
   * @param[in]     value    A value the key accepts.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the key or value,
   *         KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, RunOptionsAddConfigEntry,
            (KilnRunOptions * options, const char* key, const char* value));

  /**
   * The value of a configuration entry set with RunOptionsAddConfigEntry.
   *
   * @param[in]  options    The options.
   * @param[in]  key        One of the keys RunOptionsAddConfigEntry lists.
   * @param[in]  allocator  Allocates the returned string.
   * @param[out] out        Receives a NUL-terminated copy freed with @p allocator, or NULL when
   *                        the key is not set.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming an unknown key,
   *         KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, RunOptionsGetConfigEntry,
            (const KilnRunOptions* options, const char* key, KilnAllocator* allocator,
             char** out));

  /**
   * When the session's profiler started (see EnableProfiling): nanoseconds since the Unix epoch
   * by the system clock, taken while the session was being created.
   *
   * @param[in]  session  The session.
   * @param[out] out      Receives the time; 0 when the session was created without profiling.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SessionGetProfilingStartTimeNs,
            (const KilnSession* session, uint64_t* out));

  /* ---- IO binding and asynchronous runs (slots 88-100) ----------------------------------------
   */

  /**
   * Creates an IO binding for a session: inputs and outputs bound by name once, then run any
   * number of times with RunWithBinding. Names are checked and resolved when bound, so a run with
   * every input and output bound to caller tensors makes no heap allocation once a static-shape
   * model has run.
   *
   * The binding holds shared ownership of the session and of everything bound: the session and
   * the bound values' handles may be released first. A binding may be used from several threads;
   * each entry holds it for its whole length (a run too), so runs with one binding take turns.
   *
   * @param[in]  session  The session the binding is for; it is used only with that session.
   * @param[out] out      Receives the owned binding, released with ReleaseIoBinding.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, CreateIoBinding, (KilnSession * session, KilnIoBinding** out));

  /**
   * Releases an IO binding, and with it its shares of the session, of the bound values and of
   * the last run's outputs. Values handed out by GetBoundOutputValues stay valid.
   *
   * @param[in] binding  The binding; NULL is accepted and ignored.
   */
  KILN_SLOT(void, ReleaseIoBinding, (KilnIoBinding * binding));

  /**
   * Binds a value to a model input. The binding shares the value's tensor (or sequence, or
   * optional): later writes to the tensor's data are seen by later runs, and the value's handle
   * may be released. Binding a name again replaces what was bound to it.
   *
   * @param[in,out] binding  The binding.
   * @param[in]     name     UTF-8, a model input; checked here.
   * @param[in]     value    A tensor, sequence or optional; its kind, element type and shape are
   *                         checked by each run, as Run checks its inputs.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming an unknown input,
   *         KILN_OUT_OF_MEMORY); on failure the binding is unchanged.
   */
  KILN_SLOT(KilnStatus*, BindInput,
            (KilnIoBinding * binding, const char* name, const KilnValue* value));

  /**
   * Binds a caller's tensor to a model output: each successful run writes the output into it, in
   * place (a failed run leaves it untouched). Its element type and shape must equal what the
   * model produces (checked by each run). Binding a name again replaces what was bound to it.
   * Outputs are given by GetBoundOutputNames and GetBoundOutputValues in the order their names
   * were first bound.
   *
   * @param[in,out] binding  The binding.
   * @param[in]     name     UTF-8, a model output; checked here.
   * @param[in]     value    A tensor, shared by the binding (its handle may be released); not a
   *                         string tensor (those cannot be written in place: bind the output with
   *                         BindOutputToDevice).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming an unknown output or a
   *         value that is not a tensor, KILN_NOT_IMPLEMENTED for a string tensor,
   *         KILN_OUT_OF_MEMORY); on failure the binding is unchanged.
   */
  KILN_SLOT(KilnStatus*, BindOutput, (KilnIoBinding * binding, const char* name, KilnValue* value));

  /**
   * Binds a model output to a device, leaving the value to Kiln: each run makes a new one there
   * (a tensor, or a sequence or optional for an output of that kind), read back with
   * GetBoundOutputValues. Binding a name again replaces what was bound to it.
   *
   * @param[in,out] binding  The binding.
   * @param[in]     name     UTF-8, a model output; checked here.
   * @param[in]     info     Where the value is made; only CPU memory is supported.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming an unknown output,
   *         KILN_NOT_IMPLEMENTED for a device other than the CPU, KILN_OUT_OF_MEMORY); on failure
   *         the binding is unchanged.
   */
  KILN_SLOT(KilnStatus*, BindOutputToDevice,
            (KilnIoBinding * binding, const char* name, const KilnMemoryInfo* info));

  /**
   * The names of the bound outputs, in the order they were first bound.
   *
   * @param[in]  binding    The binding.
   * @param[in]  allocator  Allocates the array and each name.
   * @param[out] names      Receives an array of @p count NUL-terminated UTF-8 names (NULL when
   *                        none is bound); free each name, then the array, with @p allocator.
   * @param[out] count      Receives the number of names.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
   */
  KILN_SLOT(KilnStatus*, GetBoundOutputNames,
            (const KilnIoBinding* binding, KilnAllocator* allocator, char*** names,
             size_t* count));

  /**
   * The outputs of the binding's last successful run, one per bound output, in the order of
   * GetBoundOutputNames: a caller's bound tensor itself, or the value the run made. Each is a new
   * handle sharing the output (a tensor is not copied: writing to it writes the output).
   *
   * @param[in]  binding    The binding.
   * @param[in]  allocator  Allocates the array.
   * @param[out] values     Receives an array of @p count owned values: release each with
   *                        ReleaseValue, then free the array with @p allocator.
   * @param[out] count      Receives the number of values.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (also when no run has succeeded
   *         since the outputs were last bound or cleared), KILN_OUT_OF_MEMORY.
   */
  KILN_SLOT(KilnStatus*, GetBoundOutputValues,
            (const KilnIoBinding* binding, KilnAllocator* allocator, KilnValue*** values,
             size_t* count));

  /**
   * Unbinds every input.
   *
   * @param[in,out] binding  The binding.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ClearBoundInputs, (KilnIoBinding * binding));

  /**
   * Unbinds every output, and forgets the last run's outputs.
   *
   * @param[in,out] binding  The binding.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, ClearBoundOutputs, (KilnIoBinding * binding));

  /**
   * Waits until the bound inputs are ready on the devices they are bound for. Every device Kiln
   * runs on is the CPU, where there is nothing to wait for.
   *
   * @param[in,out] binding  The binding.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SynchronizeBoundInputs, (KilnIoBinding * binding));

  /**
   * Waits until the last run's outputs are ready to read on the devices they are bound to. Every
   * device Kiln runs on is the CPU, where there is nothing to wait for.
   *
   * @param[in,out] binding  The binding.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SynchronizeBoundOutputs, (KilnIoBinding * binding));

  /**
   * Runs the model on the bound inputs into the bound outputs, as Run does with the same names,
   * values and output slots. Every model input and at least one output must be bound. On success
   * the bound tensors are written and the outputs are kept for GetBoundOutputValues (replacing
   * the previous run's); on failure the bound tensors, and the outputs kept, are exactly as they
   * were. Once a static-shape model has run, a run with every output bound to a caller's tensor
   * makes no heap allocation.
   *
   * @param[in] session      The session the binding was created for.
   * @param[in] run_options  Options, or NULL for the defaults.
   * @param[in] binding      The binding.
   * @return NULL on success, else a status: KILN_INVALID_ARGUMENT (a binding of another session,
   *         an input not bound, no output bound, a bound value of the wrong kind, element type or
   *         shape; named), and the codes of Run.
   */
  KILN_SLOT(KilnStatus*, RunWithBinding,
            (KilnSession * session, const KilnRunOptions* run_options,
             const KilnIoBinding* binding));

  /**
   * Starts a run on another thread and returns; @p callback is called with its results when it
   * has finished (see KilnRunAsyncCallback). The run is the one Run would do with the same
   * arguments, and its results, or its error with Run's code and message, reach the callback.
   *
   * What Run checks before running (NULL pointers, handles, UTF-8 names, the output count, the
   * output slots) is checked here, and a bad argument is returned at once, with the callback never
   * called. Everything else (unknown, missing or repeated names, an input's kind, element type or
   * shape, the run itself) is done by the run and reported to the callback.
   *
   * The run holds shared ownership of the session, of the run options and of the input and
   * output values, so their handles may be released as soon as this returns; the caller's
   * @p outputs array, which the run fills, must stay valid until the callback. Setting terminate
   * on @p run_options stops the run (the callback then gets KILN_TERMINATED); other changes to
   * them while it runs are not allowed. Runs are taken, in the order they were started, by a pool
   * of threads made on first use (it grows with the number of runs in progress, up to twice the
   * hardware threads and at least 8) and kept for the life of the process: libkiln must not be
   * unloaded once RunAsync has been called, and a process should wait for its callbacks before it
   * exits.
   *
   * @param[in]     session       The session.
   * @param[in]     run_options   Options, or NULL for the defaults.
   * @param[in]     input_names   @p input_count names, as for Run (copied).
   * @param[in]     inputs        @p input_count values, as for Run (shared, not copied).
   * @param[in]     input_count   The number of inputs.
   * @param[in]     output_names  @p output_count names, as for Run (copied).
   * @param[in]     output_count  The number of outputs wanted (at least 1).
   * @param[in,out] outputs       @p output_count slots, each NULL or a caller's tensor, as for Run;
   *                              filled by the run and handed to @p callback.
   * @param[in]     callback      Called once, on another thread, when the run has finished.
   * @param[in]     user_data     Handed to @p callback.
   * @return NULL when the run was started, else a status: KILN_INVALID_ARGUMENT (named),
   *         KILN_OUT_OF_MEMORY, KILN_FAIL (no thread could be started).
   */
  KILN_SLOT(KilnStatus*, RunAsync,
            (KilnSession * session, const KilnRunOptions* run_options,
             const char* const* input_names, const KilnValue* const* inputs, size_t input_count,
             const char* const* output_names, size_t output_count, KilnValue** outputs,
             KilnRunAsyncCallback callback, void* user_data));

  /* ---- Optimized model (slot 101) -------------------------------------------------------------
   */

  /**
   * Makes sessions created with these options write their graph, as optimized (after every pass
   * of the options' optimization level, and with AddFreeDimensionOverrideByName's sizes in the
   * input shapes), to an ONNX model file when they are created: as ONNX Runtime's
   * SessionOptions.optimized_model_filepath. The file loads back in Kiln (CreateSession) and
   * gives the same outputs, at any optimization level; optimizing it again is allowed.
   *
   * What is written: the opset imports, with the domains of the ops the optimizer adds (Kiln's
   * own "ai.kiln" ops and "com.microsoft" fusions; they run only in Kiln and ONNX Runtime), the
   * model's metadata, the graph's inputs, outputs and known value types, every node with its
   * attributes and subgraphs, and every initializer, weights the optimizer made (folded, packed
   * into blocks, reordered channels-last) included. Tensors go inline, unless the file would pass
   * protobuf's 2 GiB limit: then every tensor of 1 KiB or more goes to "<file name>.data" beside
   * it (ONNX external data). Not written: what kernels prepare when the session is created
   * (packed GEMM panels and the like, made again when the file is loaded), the contents of
   * sparse-tensor and type-proto attributes (Kiln keeps their type only), and the doc strings of
   * subgraphs. A ModelProto imports one opset version per domain: a node the optimizer added at
   * another version than the model imports is written at the model's version when Kiln's kernel
   * for the op is the same at both; otherwise creating the session fails
   * (KILN_NOT_IMPLEMENTED, naming the node).
   *
   * @param[in,out] options  The options.
   * @param[in]     path     The file to write (created or replaced), UTF-8, copied; "" turns
   *                         writing off (the default).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY). A file
   *         that cannot be written makes CreateSession and CreateSessionFromArray fail with
   *         KILN_NO_SUCHFILE naming the path.
   */
  KILN_SLOT(KilnStatus*, SetOptimizedModelFilePath,
            (KilnSessionOptions * options, const char* path));

  /* ---- Parallel execution (slots 102-103) -----------------------------------------------------
   */

  /**
   * Sets how many threads (the calling thread included) a session in the parallel execution mode
   * (SetSessionExecutionMode) runs independent steps of its graph on. Each of those steps still
   * uses the SetIntraOpNumThreads threads inside itself. Without the parallel mode the number is
   * kept but unused.
   *
   * @param[in,out] options  The options.
   * @param[in]     threads  1 to 1024, or 0 for one per hardware thread (the default).
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
   */
  KILN_SLOT(KilnStatus*, SetInterOpNumThreads, (KilnSessionOptions * options, int threads));

  /**
   * Sets how a session runs its graph's steps: in order (KILN_EXECUTION_MODE_SEQUENTIAL, the
   * default), or each as soon as the steps it reads from are done, so independent branches run
   * at once on the SetInterOpNumThreads threads (KILN_EXECUTION_MODE_PARALLEL, ONNX Runtime's
   * ORT_PARALLEL). Results are the same in both modes. In the parallel mode the main graph's
   * values are allocated as they are made instead of being placed in the session's arena (their
   * lifetimes no longer follow one order), and the steps of a subgraph (If, Loop, Scan) still run
   * in order; with one inter-op thread the session runs as in the sequential mode. A failing
   * step stops the run once the steps already running are done; the run reports that step's
   * error.
   *
   * @param[in,out] options  The options.
   * @param[in]     mode     A KilnExecutionMode.
   * @return NULL on success, else a status (KILN_INVALID_ARGUMENT for a value that is not a
   *         KilnExecutionMode).
   */
  KILN_SLOT(KilnStatus*, SetSessionExecutionMode,
            (KilnSessionOptions * options, KilnExecutionMode mode));
};

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_C_API_H_ */
