/**
 * @file
 * Kiln C ABI: Session options, sessions and Run.
 *
 * The entries of Kiln's C ABI that load and run a model: session options, sessions (inputs,
 * outputs, metadata, profiling), run options and Run. Each entry is a slot of the KilnApi table
 * (kiln/kiln_c_api.h, the one header a program includes); this header declares and documents the
 * slots' function types, Kiln<Name>Fn.
 *
 * @code
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   KilnSessionOptions* options = NULL;
 *   KilnSession* session = NULL;
 *   KilnStatus* st = api->CreateSessionOptions(&options);
 *   if (st == NULL) st = api->SetIntraOpNumThreads(options, 1);
 *   if (st == NULL) st = api->CreateSession(env, "model.onnx", options, &session);
 *   const char* in[] = {"x"};
 *   const char* out[] = {"y"};
 *   KilnValue* y = NULL;
 *   if (st == NULL) st = api->Run(session, NULL, in, (const KilnValue* const*)&x, 1, out, 1, &y);
 * @endcode
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_SESSION_H_
#define KILN_C_SESSION_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Session options (slots 39-49) ----------------------------------------------------------- */

/**
 * Creates session options with the defaults: one intra-op thread per hardware thread,
 * optimization level KILN_GRAPH_OPTIMIZATION_ALL, log severity WARNING, no profiling.
 *
 * @param[out] out  Receives the owned options, released with ReleaseSessionOptions.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionOptions, (KilnSessionOptions * *out));

/**
 * Copies session options.
 *
 * @param[in]  options  The options to copy.
 * @param[out] out      Receives the owned copy, released with ReleaseSessionOptions.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CloneSessionOptions,
                (const KilnSessionOptions* options, KilnSessionOptions** out));

/**
 * Sets how many threads (the calling thread included) a session uses inside each operator.
 *
 * @param[in,out] options  The options.
 * @param[in]     threads  1 to 1024, or 0 for one per hardware thread.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SetIntraOpNumThreads, (KilnSessionOptions * options, int threads));

/**
 * Sets how much the session may rewrite the graph before running it (ONNX Runtime's levels):
 * KILN_GRAPH_OPTIMIZATION_DISABLE_ALL runs it as loaded; BASIC folds constants and removes
 * identities and dead code; EXTENDED also fuses nodes (Conv with BatchNorm or an activation,
 * GELU, LayerNorm, attention, quantized patterns) and blocks constant matrix-product weights;
 * ALL (the default) also runs 2-D convolution chains channels-last.
 *
 * @param[in,out] options  The options.
 * @param[in]     level    A KilnGraphOptimizationLevel (0 to 3).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SetSessionGraphOptimizationLevel,
                (KilnSessionOptions * options, KilnGraphOptimizationLevel level));

/**
 * Sets the least severity the session logs (through the Env's logger).
 *
 * @param[in,out] options   The options.
 * @param[in]     severity  A KilnLoggingLevel (0 to 4).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SetSessionLogSeverityLevel,
                (KilnSessionOptions * options, KilnLoggingLevel severity));

/**
 * Sets the id the session's log messages carry.
 *
 * @param[in,out] options  The options.
 * @param[in]     log_id   UTF-8, copied.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, SetSessionLogId, (KilnSessionOptions * options, const char* log_id));

/**
 * Turns profiling on: every node's run time is recorded, and SessionEndProfiling writes a
 * Chrome trace-event JSON file (it opens in Perfetto) named "<prefix>_<time>_<n>.json".
 *
 * @param[in,out] options  The options.
 * @param[in]     prefix   A non-empty UTF-8 path prefix, copied.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, EnableProfiling, (KilnSessionOptions * options, const char* prefix));

/**
 * Turns profiling off (the default).
 *
 * @param[in,out] options  The options.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, DisableProfiling, (KilnSessionOptions * options));

/**
 * Fixes a named free dimension (an ONNX dim_param such as "batch") of the model's inputs to a
 * value: inputs must then have it, and type info reports it.
 *
 * @param[in,out] options  The options.
 * @param[in]     name     The dimension's name, UTF-8, non-empty.
 * @param[in]     value    Its value, >= 0.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, AddFreeDimensionOverrideByName,
                (KilnSessionOptions * options, const char* name, int64_t value));

/**
 * Sets a configuration entry. Every key is listed here; any other key is an error.
 * - "kiln.arena.enable": "1" (default) keeps freed intermediate buffers for reuse by later
 *   runs; "0" returns each to the system as soon as its last reader is done.
 * - "kiln.run.check_finite": "1" checks every node's floating-point outputs for NaN and
 *   infinity and fails the run naming the node; "0" (default) does not.
 * - "kiln.graph.keep_loaded": "1" keeps the graph as loaded, before optimization, for the graph
 *   API's SessionGetGraph(KILN_GRAPH_LOADED) (initializers the optimizer replaced then stay in
 *   memory too); "0" (default) keeps only the optimized graph.
 * - "kiln.compute.bf16": "1" runs the float products against constant weights (the MatMul and
 *   Gemm weights, at optimization level 2 and up; the convolutions, at level 3, where they run
 *   as a product of unfolded blocks; com.microsoft MultiHeadAttention's two products, as
 *   attention fusion makes it) on bf16 operands with float sums, where the
 *   machine has AVX-512 BF16 (about twice the float speed; each operand keeps 8 bits of
 *   mantissa); elsewhere they stay float. "0" (default): float.
 * - "kiln.memory.limit_bytes": a decimal number of bytes capping what the session holds for
 *   activations and kernel scratch, all its concurrent runs together (weights, and the tensor
 *   outputs Run hands to the caller, are not counted). A run that would pass it fails with
 *   KILN_OUT_OF_MEMORY naming the node and the size, before the memory is allocated, and the
 *   session stays usable; CreateSession fails with KILN_OUT_OF_MEMORY when the activations
 *   planned from the model's declared shapes pass it. "0" (default): no limit.
 *
 * @param[in,out] options  The options.
 * @param[in]     key      One of the keys above.
 * @param[in]     value    A value the key accepts.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT naming the key or value,
 *         KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, AddSessionConfigEntry,
                (KilnSessionOptions * options, const char* key, const char* value));

/**
 * Releases session options. Sessions created from them keep their own copy.
 *
 * @param[in] options  The options; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseSessionOptions, (KilnSessionOptions * options));

/* ---- Sessions (slots 50-65) ------------------------------------------------------------------ */

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
KILN_ENTRY_TYPE(KilnStatus*, CreateSession,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionFromArray,
                (const KilnEnv* env, const void* data, size_t data_len,
                 const KilnSessionOptions* options, KilnSession** out));

/**
 * How many inputs the model takes (initializers excluded).
 *
 * @param[in]  session  The session.
 * @param[out] out      Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetInputCount, (const KilnSession* session, size_t* out));

/**
 * How many outputs the model gives.
 *
 * @param[in]  session  The session.
 * @param[out] out      Receives the count.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetOutputCount, (const KilnSession* session, size_t* out));

/**
 * The name of an input.
 *
 * @param[in]  session    The session.
 * @param[in]  index      0 to SessionGetInputCount - 1.
 * @param[in]  allocator  Allocates the returned string.
 * @param[out] out        Receives a NUL-terminated UTF-8 copy, freed with @p allocator.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetInputName,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetOutputName,
                (const KilnSession* session, size_t index, KilnAllocator* allocator, char** out));

/**
 * What kind of value an input is (tensor, sequence, map, optional).
 *
 * @param[in]  session  The session.
 * @param[in]  index    0 to SessionGetInputCount - 1.
 * @param[out] out      Receives the kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetInputValueType,
                (const KilnSession* session, size_t index, KilnValueType* out));

/**
 * What kind of value an output is.
 *
 * @param[in]  session  The session.
 * @param[in]  index    0 to SessionGetOutputCount - 1.
 * @param[out] out      Receives the kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetOutputValueType,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionInputTensorInfo,
                (const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out));

/**
 * The element type and shape of an output tensor, as for CreateSessionInputTensorInfo.
 *
 * @param[in]  session  The session.
 * @param[in]  index    0 to SessionGetOutputCount - 1.
 * @param[out] out      Receives an owned info, released with ReleaseTensorTypeAndShapeInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionOutputTensorInfo,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetModelMetadataString,
                (const KilnSession* session, KilnModelMetadataField field, KilnAllocator* allocator,
                 char** out));

/**
 * The model's version (ModelProto.model_version, 0 when absent).
 *
 * @param[in]  session  The session.
 * @param[out] out      Receives the version.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionGetModelVersion, (const KilnSession* session, int64_t* out));

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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetCustomMetadataKeys,
                (const KilnSession* session, KilnAllocator* allocator, char*** keys,
                 size_t* count));

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
KILN_ENTRY_TYPE(KilnStatus*, SessionLookupCustomMetadata,
                (const KilnSession* session, KilnAllocator* allocator, const char* key,
                 char** out));

/**
 * Writes the profile recorded so far (see EnableProfiling) and returns the file's path.
 *
 * @param[in]  session    The session, created with profiling enabled.
 * @param[in]  allocator  Allocates the returned path.
 * @param[out] out        Receives the NUL-terminated path, freed with @p allocator.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT when profiling is off, KILN_FAIL
 *         when the file cannot be written, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, SessionEndProfiling,
                (KilnSession * session, KilnAllocator* allocator, char** out));

/**
 * Releases a session. Values it returned stay valid.
 *
 * @param[in] session  The session; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseSession, (KilnSession * session));

/* ---- Running (slots 66-72) ------------------------------------------------------------------- */

/**
 * Creates run options: no tag, log severity WARNING, not terminated.
 *
 * @param[out] out  Receives the owned options, released with ReleaseRunOptions.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateRunOptions, (KilnRunOptions * *out));

/**
 * Sets the tag a run's log messages carry.
 *
 * @param[in,out] options  The options.
 * @param[in]     tag      UTF-8, copied.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsSetRunTag, (KilnRunOptions * options, const char* tag));

/**
 * Sets the least severity a run logs.
 *
 * @param[in,out] options   The options.
 * @param[in]     severity  A KilnLoggingLevel (0 to 4).
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsSetRunLogSeverityLevel,
                (KilnRunOptions * options, KilnLoggingLevel severity));

/**
 * Asks every run using these options to stop: a run in progress stops before its next node
 * and returns KILN_TERMINATED; a new run returns it at once. Safe to call from any thread
 * while runs are in progress.
 *
 * @param[in,out] options  The options.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsSetTerminate, (KilnRunOptions * options));

/**
 * Clears the terminate request, so the options can be used for new runs.
 *
 * @param[in,out] options  The options.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsUnsetTerminate, (KilnRunOptions * options));

/**
 * Releases run options. They must not be in use by a run.
 *
 * @param[in] options  The options; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseRunOptions, (KilnRunOptions * options));

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
KILN_ENTRY_TYPE(KilnStatus*, Run,
                (KilnSession * session, const KilnRunOptions* run_options,
                 const char* const* input_names, const KilnValue* const* inputs, size_t input_count,
                 const char* const* output_names, size_t output_count, KilnValue** outputs));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_SESSION_H_
