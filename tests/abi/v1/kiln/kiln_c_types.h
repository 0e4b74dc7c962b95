/**
 * @file kiln_c_types.h
 * The plain types of Kiln's C ABI: error codes, element and value types, logging levels, memory
 * kinds, the opaque handle types and the KilnAllocator callback struct. Included by
 * kiln/kiln_c_api.h, which declares the functions; include that one.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_C_TYPES_H_
#define KILN_KILN_C_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#ifndef KILN_API_CALL
/** Calling convention of every entry and callback (empty on the platforms Kiln supports). */
#define KILN_API_CALL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** What went wrong. The values are fixed: new codes are only ever added at the end. */
typedef enum KilnErrorCode {
  KILN_OK = 0,                /**< Success (only ever reported for a NULL status). */
  KILN_FAIL = 1,              /**< A failure with no more precise code. */
  KILN_INVALID_ARGUMENT = 2,  /**< An argument is NULL, out of range, of the wrong type or stale. */
  KILN_NO_SUCHFILE = 3,       /**< A file could not be found or opened. */
  KILN_NO_MODEL = 4,          /**< An operation needs a model and there is none. */
  KILN_ENGINE_ERROR = 5,      /**< The engine failed while running. */
  KILN_RUNTIME_EXCEPTION = 6, /**< An unexpected internal exception. */
  KILN_INVALID_PROTOBUF = 7,  /**< A model or tensor file is not valid protobuf. */
  KILN_MODEL_LOADED = 8,      /**< A model is already loaded. */
  KILN_NOT_IMPLEMENTED = 9,   /**< The request is valid but Kiln does not support it yet. */
  KILN_INVALID_GRAPH = 10,    /**< The model's graph breaks an ONNX rule. */
  KILN_OUT_OF_MEMORY = 11,    /**< An allocation failed. */
  KILN_TERMINATED = 12        /**< A run was stopped on request before it finished. */
} KilnErrorCode;

/**
 * Element types of tensors. The values are ONNX's TensorProto.DataType values. Sub-byte types
 * (4- and 2-bit) are packed, first element in the lowest bits of the first byte.
 */
typedef enum KilnElementType {
  KILN_ELEMENT_TYPE_UNDEFINED = 0,       /**< Not a valid tensor element type. */
  KILN_ELEMENT_TYPE_FLOAT = 1,           /**< 32-bit IEEE float. */
  KILN_ELEMENT_TYPE_UINT8 = 2,           /**< uint8_t. */
  KILN_ELEMENT_TYPE_INT8 = 3,            /**< int8_t. */
  KILN_ELEMENT_TYPE_UINT16 = 4,          /**< uint16_t. */
  KILN_ELEMENT_TYPE_INT16 = 5,           /**< int16_t. */
  KILN_ELEMENT_TYPE_INT32 = 6,           /**< int32_t. */
  KILN_ELEMENT_TYPE_INT64 = 7,           /**< int64_t. */
  KILN_ELEMENT_TYPE_STRING = 8,          /**< UTF-8 strings, accessed through the string entries. */
  KILN_ELEMENT_TYPE_BOOL = 9,            /**< One byte per element, 0 or 1. */
  KILN_ELEMENT_TYPE_FLOAT16 = 10,        /**< IEEE half precision, stored as uint16_t bits. */
  KILN_ELEMENT_TYPE_DOUBLE = 11,         /**< 64-bit IEEE float. */
  KILN_ELEMENT_TYPE_UINT32 = 12,         /**< uint32_t. */
  KILN_ELEMENT_TYPE_UINT64 = 13,         /**< uint64_t. */
  KILN_ELEMENT_TYPE_COMPLEX64 = 14,      /**< Two floats: real, imaginary. */
  KILN_ELEMENT_TYPE_COMPLEX128 = 15,     /**< Two doubles: real, imaginary. */
  KILN_ELEMENT_TYPE_BFLOAT16 = 16,       /**< bfloat16, stored as uint16_t bits. */
  KILN_ELEMENT_TYPE_FLOAT8E4M3FN = 17,   /**< 8-bit float, 4 exponent bits, no infinities. */
  KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ = 18, /**< As FLOAT8E4M3FN, no negative zero. */
  KILN_ELEMENT_TYPE_FLOAT8E5M2 = 19,     /**< 8-bit float, 5 exponent bits. */
  KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ = 20, /**< As FLOAT8E5M2, no infinities or negative zero. */
  KILN_ELEMENT_TYPE_UINT4 = 21,          /**< 4-bit unsigned integer, two per byte. */
  KILN_ELEMENT_TYPE_INT4 = 22,           /**< 4-bit signed integer, two per byte. */
  KILN_ELEMENT_TYPE_FLOAT4E2M1 = 23,     /**< 4-bit float, two per byte. */
  KILN_ELEMENT_TYPE_FLOAT8E8M0 = 24,     /**< 8-bit exponent-only float (a scale). */
  KILN_ELEMENT_TYPE_UINT2 = 25,          /**< 2-bit unsigned integer, four per byte. */
  KILN_ELEMENT_TYPE_INT2 = 26            /**< 2-bit signed integer, four per byte. */
} KilnElementType;

/** What kind of value a KilnValue holds. */
typedef enum KilnValueType {
  KILN_VALUE_TYPE_UNKNOWN = 0,      /**< Not a value Kiln knows. */
  KILN_VALUE_TYPE_TENSOR = 1,       /**< A tensor. */
  KILN_VALUE_TYPE_SEQUENCE = 2,     /**< A sequence of values. */
  KILN_VALUE_TYPE_MAP = 3,          /**< A map from keys to values. */
  KILN_VALUE_TYPE_OPTIONAL = 4,     /**< An optional value, possibly empty. */
  KILN_VALUE_TYPE_SPARSE_TENSOR = 5 /**< A sparse tensor (a model's declared type only). */
} KilnValueType;

/** Severity of a log message; an Env drops messages below its own minimum. */
typedef enum KilnLoggingLevel {
  KILN_LOGGING_LEVEL_VERBOSE = 0, /**< Tracing detail. */
  KILN_LOGGING_LEVEL_INFO = 1,    /**< Progress worth knowing. */
  KILN_LOGGING_LEVEL_WARNING = 2, /**< Something the user should look at. */
  KILN_LOGGING_LEVEL_ERROR = 3,   /**< An operation failed. */
  KILN_LOGGING_LEVEL_FATAL = 4    /**< Kiln cannot go on (it still never aborts the process). */
} KilnLoggingLevel;

/** How an allocator manages memory. */
typedef enum KilnAllocatorType {
  KILN_INVALID_ALLOCATOR = -1, /**< Not a valid allocator type. */
  KILN_DEVICE_ALLOCATOR = 0,   /**< Each request goes to the device's allocator. */
  KILN_ARENA_ALLOCATOR = 1     /**< Requests are served from a caching arena. */
} KilnAllocatorType;

/** Which memory of a device a MemoryInfo describes. */
typedef enum KilnMemType {
  KILN_MEM_TYPE_CPU_INPUT = -2,  /**< CPU memory a device reads as input. */
  KILN_MEM_TYPE_CPU_OUTPUT = -1, /**< CPU memory a device writes as output. */
  KILN_MEM_TYPE_DEFAULT = 0      /**< The device's own memory. */
} KilnMemType;

/** How much a session rewrites the graph before running it (ONNX Runtime's levels). */
typedef enum KilnGraphOptimizationLevel {
  KILN_GRAPH_OPTIMIZATION_DISABLE_ALL = 0, /**< Run the graph as loaded. */
  KILN_GRAPH_OPTIMIZATION_BASIC = 1,       /**< Folding and elimination passes. */
  KILN_GRAPH_OPTIMIZATION_EXTENDED = 2,    /**< Also fusions. */
  KILN_GRAPH_OPTIMIZATION_ALL = 3          /**< Also layout changes (the default). */
} KilnGraphOptimizationLevel;

/** How a session runs the steps of its graph (ONNX Runtime's ExecutionMode). */
typedef enum KilnExecutionMode {
  KILN_EXECUTION_MODE_SEQUENTIAL = 0, /**< One step after another, in order (the default). */
  KILN_EXECUTION_MODE_PARALLEL = 1    /**< Independent steps at once, on the inter-op threads. */
} KilnExecutionMode;

/** Which string of a model's metadata KilnApi::SessionGetModelMetadataString returns. */
typedef enum KilnModelMetadataField {
  KILN_METADATA_PRODUCER_NAME = 0,    /**< ModelProto.producer_name, e.g. "pytorch". */
  KILN_METADATA_PRODUCER_VERSION = 1, /**< ModelProto.producer_version. */
  KILN_METADATA_GRAPH_NAME = 2,       /**< The main graph's name. */
  KILN_METADATA_DOMAIN = 3,           /**< ModelProto.domain. */
  KILN_METADATA_DESCRIPTION = 4,      /**< ModelProto.doc_string. */
  KILN_METADATA_GRAPH_DESCRIPTION = 5 /**< The main graph's doc_string. */
} KilnModelMetadataField;

/** An error: a code and a UTF-8 message. Opaque; NULL means success. */
typedef struct KilnStatus KilnStatus;
/** Process-level state: logging. Opaque. */
typedef struct KilnEnv KilnEnv;
/** Describes where memory lives (device, id, memory type, allocator type). Opaque. */
typedef struct KilnMemoryInfo KilnMemoryInfo;
/** A value: a tensor, a sequence of tensors, or an optional of either. Opaque. */
typedef struct KilnValue KilnValue;
/** The element type and shape of a tensor. Opaque. */
typedef struct KilnTensorTypeAndShapeInfo KilnTensorTypeAndShapeInfo;
/** Options for creating a session: a plain value, copied into each session. Opaque. */
typedef struct KilnSessionOptions KilnSessionOptions;
/** A loaded model, ready to run from any number of threads. Opaque. */
typedef struct KilnSession KilnSession;
/** Options for one or more runs: tag, log level, and a terminate flag. Opaque. */
typedef struct KilnRunOptions KilnRunOptions;
/**
 * A session's inputs and outputs bound by name ahead of its runs (KilnApi::RunWithBinding).
 * Opaque.
 */
typedef struct KilnIoBinding KilnIoBinding;

/**
 * An allocator: a struct of callbacks, filled in by whoever provides the memory.
 *
 * Kiln's own CPU allocator comes from KilnApi::GetAllocatorWithDefaultOptions. A program may supply
 * its own by filling in this struct (typically as the first member of a larger struct of its own);
 * it must stay alive, unchanged, for as long as any tensor allocated from it.
 */
typedef struct KilnAllocator {
  /** The KILN_API_VERSION the allocator was written against; must be at least 1. */
  uint32_t version;
  /**
   * Allocates @p size bytes. Tensor memory must be 64-byte aligned. Returns NULL when out of
   * memory. @p self is the allocator itself.
   */
  void*(KILN_API_CALL* Alloc)(struct KilnAllocator* self, size_t size);
  /** Frees memory returned by Alloc of the same allocator. @p self is the allocator itself. */
  void(KILN_API_CALL* Free)(struct KilnAllocator* self, void* p);
  /**
   * Describes the memory this allocator returns; may be NULL, meaning plain CPU memory. The
   * result must be a live KilnMemoryInfo for as long as the allocator is used.
   */
  const KilnMemoryInfo*(KILN_API_CALL* Info)(const struct KilnAllocator* self);
} KilnAllocator;

/**
 * A user logging callback, given to KilnApi::CreateEnvWithCustomLogger.
 *
 * Called from any thread Kiln logs from, possibly from several at once; it must not call back into
 * Kiln. Every string is UTF-8 and valid only during the call.
 *
 * @param[in] param          The pointer given with the callback.
 * @param[in] severity       The message's severity.
 * @param[in] category       Which part of Kiln logged it, e.g. "kiln.api".
 * @param[in] log_id         The Env's log id.
 * @param[in] code_location  Source file and line inside Kiln.
 * @param[in] message        The message.
 */
typedef void(KILN_API_CALL* KilnLoggingFunction)(void* param, KilnLoggingLevel severity,
                                                 const char* category, const char* log_id,
                                                 const char* code_location, const char* message);

/**
 * What KilnApi::RunAsync calls once the run it started has finished, on one of Kiln's threads.
 *
 * It may call any KilnApi entry (RunAsync too) but should return soon: a callback that blocks
 * holds up the thread it runs on, and one that waits for another RunAsync to finish can wait
 * forever. It must not throw (from C++) or unwind.
 *
 * @param[in] user_data     The pointer given to RunAsync.
 * @param[in] outputs       The @p outputs array given to RunAsync, filled as KilnApi::Run fills
 *                          it: on success each slot that was NULL holds a new value owned by the
 *                          callee (released with KilnApi::ReleaseValue) and each caller's tensor
 *                          has been written; on failure every slot and every caller's tensor is
 *                          exactly as it was.
 * @param[in] output_count  The @p output_count given to RunAsync.
 * @param[in] status        NULL on success, else the error, with the code and message KilnApi::Run
 *                          would give (the message names RunAsync). Owned by the callee, who
 *                          releases it with KilnApi::ReleaseStatus.
 */
typedef void(KILN_API_CALL* KilnRunAsyncCallback)(void* user_data, KilnValue** outputs,
                                                  size_t output_count, KilnStatus* status);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // KILN_KILN_C_TYPES_H_
