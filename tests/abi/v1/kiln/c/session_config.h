/**
 * @file
 * Kiln C ABI: What a session is given besides its model.
 *
 * The entries of Kiln's C ABI that configure a session beyond the basic options: overridable
 * initializers and initializers from the caller's memory, free-dimension overrides by denotation,
 * session and run config entries, the profiling start time, writing the optimized model, and the
 * parallel execution mode. Each entry is a slot of the KilnApi table (kiln/kiln_c_api.h, the one
 * header a program includes); this header declares and documents the slots' function types,
 * Kiln<Name>Fn.
 *
 * @code
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   KilnStatus* st = api->SetSessionExecutionMode(options, KILN_EXECUTION_MODE_PARALLEL);
 *   if (st == NULL) st = api->SetInterOpNumThreads(options, 2);
 *   if (st == NULL) st = api->SetOptimizedModelFilePath(options, "model.optimized.onnx");
 *   if (st == NULL) st = api->RunOptionsAddConfigEntry(run_options, "kiln.run.check_finite", "1");
 * @endcode
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_SESSION_CONFIG_H_
#define KILN_C_SESSION_CONFIG_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Session inputs and config (slots 79-87) ------------------------------------------------- */

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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetOverridableInitializerCount,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetOverridableInitializerName,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateSessionOverridableInitializerTensorInfo,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionOptionsAddInitializer,
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
KILN_ENTRY_TYPE(KilnStatus*, AddFreeDimensionOverride,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionOptionsGetConfigEntry,
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
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsAddConfigEntry,
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
KILN_ENTRY_TYPE(KilnStatus*, RunOptionsGetConfigEntry,
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
KILN_ENTRY_TYPE(KilnStatus*, SessionGetProfilingStartTimeNs,
                (const KilnSession* session, uint64_t* out));

/* ---- Optimized model (slot 101) -------------------------------------------------------------- */

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
KILN_ENTRY_TYPE(KilnStatus*, SetOptimizedModelFilePath,
                (KilnSessionOptions * options, const char* path));

/* ---- Parallel execution (slots 102-103) ------------------------------------------------------ */

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
KILN_ENTRY_TYPE(KilnStatus*, SetInterOpNumThreads, (KilnSessionOptions * options, int threads));

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
KILN_ENTRY_TYPE(KilnStatus*, SetSessionExecutionMode,
                (KilnSessionOptions * options, KilnExecutionMode mode));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_SESSION_CONFIG_H_
