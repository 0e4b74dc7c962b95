/**
 * @file
 * Kiln C ABI: IO binding and asynchronous runs.
 *
 * The entries of Kiln's C ABI that bind a session's inputs and outputs once for many runs
 * (KilnIoBinding) and run a session without waiting (RunAsync). Each entry is a slot of the KilnApi
 * table (kiln/kiln_c_api.h, the one header a program includes); this header declares and documents
 * the slots' function types, Kiln<Name>Fn.
 *
 * @code
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   KilnIoBinding* binding = NULL;
 *   KilnStatus* st = api->CreateIoBinding(session, &binding);
 *   if (st == NULL) st = api->BindInput(binding, "x", x);
 *   if (st == NULL) st = api->BindOutput(binding, "y", y);  // a caller's tensor
 *   if (st == NULL) st = api->RunWithBinding(session, NULL, binding);
 *   api->ReleaseIoBinding(binding);
 * @endcode
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_IO_BINDING_H_
#define KILN_C_IO_BINDING_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- IO binding and asynchronous runs (slots 88-100) ----------------------------------------- */

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
KILN_ENTRY_TYPE(KilnStatus*, CreateIoBinding, (KilnSession * session, KilnIoBinding** out));

/**
 * Releases an IO binding, and with it its shares of the session, of the bound values and of
 * the last run's outputs. Values handed out by GetBoundOutputValues stay valid.
 *
 * @param[in] binding  The binding; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseIoBinding, (KilnIoBinding * binding));

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
KILN_ENTRY_TYPE(KilnStatus*, BindInput,
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
KILN_ENTRY_TYPE(KilnStatus*, BindOutput,
                (KilnIoBinding * binding, const char* name, KilnValue* value));

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
KILN_ENTRY_TYPE(KilnStatus*, BindOutputToDevice,
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
KILN_ENTRY_TYPE(KilnStatus*, GetBoundOutputNames,
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
KILN_ENTRY_TYPE(KilnStatus*, GetBoundOutputValues,
                (const KilnIoBinding* binding, KilnAllocator* allocator, KilnValue*** values,
                 size_t* count));

/**
 * Unbinds every input.
 *
 * @param[in,out] binding  The binding.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ClearBoundInputs, (KilnIoBinding * binding));

/**
 * Unbinds every output, and forgets the last run's outputs.
 *
 * @param[in,out] binding  The binding.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, ClearBoundOutputs, (KilnIoBinding * binding));

/**
 * Waits until the bound inputs are ready on the devices they are bound for. Every device Kiln
 * runs on is the CPU, where there is nothing to wait for.
 *
 * @param[in,out] binding  The binding.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SynchronizeBoundInputs, (KilnIoBinding * binding));

/**
 * Waits until the last run's outputs are ready to read on the devices they are bound to. Every
 * device Kiln runs on is the CPU, where there is nothing to wait for.
 *
 * @param[in,out] binding  The binding.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, SynchronizeBoundOutputs, (KilnIoBinding * binding));

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
KILN_ENTRY_TYPE(KilnStatus*, RunWithBinding,
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
KILN_ENTRY_TYPE(KilnStatus*, RunAsync,
                (KilnSession * session, const KilnRunOptions* run_options,
                 const char* const* input_names, const KilnValue* const* inputs, size_t input_count,
                 const char* const* output_names, size_t output_count, KilnValue** outputs,
                 KilnRunAsyncCallback callback, void* user_data));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_IO_BINDING_H_
