/**
 * @file
 * Kiln C ABI: Statuses, Envs, memory infos and allocators.
 *
 * The entries of Kiln's C ABI that everything else rests on: statuses (errors as values), Envs
 * (logging), memory infos and allocators (including the caller's own, KilnAllocator). Each entry is
 * a slot of the KilnApi table (kiln/kiln_c_api.h, the one header a program includes); this header
 * declares and documents the slots' function types, Kiln<Name>Fn.
 *
 * @code
 *   const KilnApi* api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
 *   KilnEnv* env = NULL;
 *   KilnStatus* st = api->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "my-app", &env);
 *   if (st != NULL) {
 *     fprintf(stderr, "kiln: %s\n", api->GetErrorMessage(st));
 *     api->ReleaseStatus(st);
 *   }
 * @endcode
 *
 * The header is C99; it is also valid C++, and compiles on its own.
 */
#ifndef KILN_C_CORE_H_
#define KILN_C_CORE_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln_c_entry.h"
#include "kiln/kiln_c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status ---------------------------------------------------------------------------------- */

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
KILN_ENTRY_TYPE(KilnStatus*, CreateStatus, (KilnErrorCode code, const char* msg));

/**
 * The error code of a status.
 *
 * @param[in] status  A status; NULL means success.
 * @return KILN_OK for NULL, the status's code otherwise, and KILN_INVALID_ARGUMENT for a pointer
 *         that is not a live status.
 */
KILN_ENTRY_TYPE(KilnErrorCode, GetErrorCode, (const KilnStatus* status));

/**
 * The message of a status: it names the entry that failed and the argument at fault.
 *
 * @param[in] status  A status; NULL means success.
 * @return A UTF-8 string borrowed from @p status (valid until it is released); "" for NULL, and
 *         a fixed explanation for a pointer that is not a live status.
 */
KILN_ENTRY_TYPE(const char*, GetErrorMessage, (const KilnStatus* status));

/**
 * Releases a status.
 *
 * @param[in] status  The status to release; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseStatus, (KilnStatus * status));

/* ---- Env ------------------------------------------------------------------------------------- */

/**
 * Creates an Env that logs to standard error.
 *
 * @param[in]  min_severity  Messages below this level are dropped.
 * @param[in]  log_id        UTF-8 name carried by every message (copied); must not be NULL.
 * @param[out] out           Receives the owned Env, released with ReleaseEnv.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateEnv,
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
KILN_ENTRY_TYPE(KilnStatus*, CreateEnvWithCustomLogger,
                (KilnLoggingFunction logging_function, void* logger_param,
                 KilnLoggingLevel min_severity, const char* log_id, KilnEnv** out));

/**
 * Releases an Env.
 *
 * @param[in] env  The Env to release; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseEnv, (KilnEnv * env));

/* ---- Memory info ----------------------------------------------------------------------------- */

/**
 * Creates a description of CPU memory, for tensors over user buffers.
 *
 * @param[in]  allocator_type  KILN_DEVICE_ALLOCATOR or KILN_ARENA_ALLOCATOR.
 * @param[in]  mem_type        Any KilnMemType value.
 * @param[out] out             Receives the owned info, released with ReleaseMemoryInfo.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, CreateCpuMemoryInfo,
                (KilnAllocatorType allocator_type, KilnMemType mem_type, KilnMemoryInfo** out));

/**
 * The device name of a memory info ("Cpu").
 *
 * @param[in]  info  The memory info.
 * @param[out] out   Receives a UTF-8 name borrowed from @p info.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, MemoryInfoGetName, (const KilnMemoryInfo* info, const char** out));

/**
 * The device id of a memory info (0 for the CPU).
 *
 * @param[in]  info  The memory info.
 * @param[out] out   Receives the id.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, MemoryInfoGetId, (const KilnMemoryInfo* info, int* out));

/**
 * The memory type of a memory info.
 *
 * @param[in]  info  The memory info.
 * @param[out] out   Receives the memory type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, MemoryInfoGetMemType, (const KilnMemoryInfo* info, KilnMemType* out));

/**
 * The allocator type of a memory info.
 *
 * @param[in]  info  The memory info.
 * @param[out] out   Receives the allocator type.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, MemoryInfoGetType,
                (const KilnMemoryInfo* info, KilnAllocatorType* out));

/**
 * Whether two memory infos describe the same memory (same device, id and memory type; the
 * allocator type is not compared).
 *
 * @param[in]  a    A memory info.
 * @param[in]  b    Another memory info.
 * @param[out] out  Receives 1 when they are the same, 0 otherwise.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, MemoryInfoEquals,
                (const KilnMemoryInfo* a, const KilnMemoryInfo* b, int* out));

/**
 * Releases a memory info. Tensors created with it keep their own copy.
 *
 * @param[in] info  The memory info to release; NULL is accepted and ignored.
 */
KILN_ENTRY_TYPE(void, ReleaseMemoryInfo, (KilnMemoryInfo * info));

/* ---- Allocators ------------------------------------------------------------------------------ */

/**
 * Kiln's CPU allocator: 64-byte aligned memory, thread-safe.
 *
 * @param[out] out  Receives the allocator, owned by Kiln and valid for the life of the process;
 *                  it is never released.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, GetAllocatorWithDefaultOptions, (KilnAllocator * *out));

/**
 * Allocates memory from an allocator.
 *
 * @param[in]  allocator  Kiln's allocator or a user-supplied one.
 * @param[in]  size       Bytes to allocate; 0 gives a valid pointer to no usable bytes.
 * @param[out] out        Receives the memory, freed with AllocatorFree of the same allocator.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY).
 */
KILN_ENTRY_TYPE(KilnStatus*, AllocatorAlloc, (KilnAllocator * allocator, size_t size, void** out));

/**
 * Frees memory from AllocatorAlloc (or memory Kiln returned through this allocator).
 *
 * @param[in] allocator  The allocator the memory came from.
 * @param[in] p          The memory; NULL is accepted and ignored.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AllocatorFree, (KilnAllocator * allocator, void* p));

/**
 * Describes the memory an allocator returns.
 *
 * @param[in]  allocator  The allocator.
 * @param[out] out        Receives a memory info borrowed from the allocator; allocators whose
 *                        Info callback is NULL report Kiln's CPU memory info.
 * @return NULL on success, else a status (KILN_INVALID_ARGUMENT).
 */
KILN_ENTRY_TYPE(KilnStatus*, AllocatorGetInfo,
                (const KilnAllocator* allocator, const KilnMemoryInfo** out));

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_C_CORE_H_
