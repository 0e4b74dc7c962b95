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
 * The entries are declared and documented by family, one header each (each compiles on its own;
 * this header includes them all): kiln/c/core.h (statuses, Envs, memory infos, allocators),
 * kiln/c/values.h (tensors, strings, sequences, optionals), kiln/c/session.h (session options,
 * sessions, Run), kiln/c/session_config.h (initializers, config entries, the optimized model, the
 * parallel mode), kiln/c/io_binding.h (IO binding, RunAsync), kiln/kiln_custom_op.h (custom
 * operators: what a custom-op library sees) and kiln/kiln_graph_api.h (the graph API: inspect,
 * build and print models; a sub-table of its own). Slot N of KilnApi has the type
 * Kiln<Name>Fn; the struct below lists them in order.
 *
 * The header is C99; it is also valid C++.
 */
#ifndef KILN_KILN_C_API_H_
#define KILN_KILN_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/c/core.h"
#include "kiln/c/io_binding.h"
#include "kiln/c/session.h"
#include "kiln/c/session_config.h"
#include "kiln/c/values.h"
#include "kiln/kiln_c_entry.h"   /* KILN_API_VERSION, KilnApiBase, KilnGetApiBase */
#include "kiln/kiln_c_types.h"   /* the enums, opaque handle types and KilnAllocator */
#include "kiln/kiln_custom_op.h" /* custom operators: KilnCustomOp and its contexts */
#include "kiln/kiln_graph_api.h" /* the graph API: KilnGraphApi (GetGraphApi) */

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
  /* ---- Status: kiln/c/core.h ----------------------------------------------------------------- */
  /** Slot 0: ::KilnCreateStatusFn. */
  KilnCreateStatusFn CreateStatus;
  /** Slot 1: ::KilnGetErrorCodeFn. */
  KilnGetErrorCodeFn GetErrorCode;
  /** Slot 2: ::KilnGetErrorMessageFn. */
  KilnGetErrorMessageFn GetErrorMessage;
  /** Slot 3: ::KilnReleaseStatusFn. */
  KilnReleaseStatusFn ReleaseStatus;

  /* ---- Env: kiln/c/core.h -------------------------------------------------------------------- */
  /** Slot 4: ::KilnCreateEnvFn. */
  KilnCreateEnvFn CreateEnv;
  /** Slot 5: ::KilnCreateEnvWithCustomLoggerFn. */
  KilnCreateEnvWithCustomLoggerFn CreateEnvWithCustomLogger;
  /** Slot 6: ::KilnReleaseEnvFn. */
  KilnReleaseEnvFn ReleaseEnv;

  /* ---- Memory info: kiln/c/core.h ------------------------------------------------------------ */
  /** Slot 7: ::KilnCreateCpuMemoryInfoFn. */
  KilnCreateCpuMemoryInfoFn CreateCpuMemoryInfo;
  /** Slot 8: ::KilnMemoryInfoGetNameFn. */
  KilnMemoryInfoGetNameFn MemoryInfoGetName;
  /** Slot 9: ::KilnMemoryInfoGetIdFn. */
  KilnMemoryInfoGetIdFn MemoryInfoGetId;
  /** Slot 10: ::KilnMemoryInfoGetMemTypeFn. */
  KilnMemoryInfoGetMemTypeFn MemoryInfoGetMemType;
  /** Slot 11: ::KilnMemoryInfoGetTypeFn. */
  KilnMemoryInfoGetTypeFn MemoryInfoGetType;
  /** Slot 12: ::KilnMemoryInfoEqualsFn. */
  KilnMemoryInfoEqualsFn MemoryInfoEquals;
  /** Slot 13: ::KilnReleaseMemoryInfoFn. */
  KilnReleaseMemoryInfoFn ReleaseMemoryInfo;

  /* ---- Allocators: kiln/c/core.h ------------------------------------------------------------- */
  /** Slot 14: ::KilnGetAllocatorWithDefaultOptionsFn. */
  KilnGetAllocatorWithDefaultOptionsFn GetAllocatorWithDefaultOptions;
  /** Slot 15: ::KilnAllocatorAllocFn. */
  KilnAllocatorAllocFn AllocatorAlloc;
  /** Slot 16: ::KilnAllocatorFreeFn. */
  KilnAllocatorFreeFn AllocatorFree;
  /** Slot 17: ::KilnAllocatorGetInfoFn. */
  KilnAllocatorGetInfoFn AllocatorGetInfo;

  /* ---- Tensors: kiln/c/values.h -------------------------------------------------------------- */
  /** Slot 18: ::KilnCreateTensorAsValueFn. */
  KilnCreateTensorAsValueFn CreateTensorAsValue;
  /** Slot 19: ::KilnCreateTensorWithDataAsValueFn. */
  KilnCreateTensorWithDataAsValueFn CreateTensorWithDataAsValue;
  /** Slot 20: ::KilnGetValueTypeFn. */
  KilnGetValueTypeFn GetValueType;
  /** Slot 21: ::KilnIsTensorFn. */
  KilnIsTensorFn IsTensor;
  /** Slot 22: ::KilnGetTensorMutableDataFn. */
  KilnGetTensorMutableDataFn GetTensorMutableData;
  /** Slot 23: ::KilnGetTensorSizeInBytesFn. */
  KilnGetTensorSizeInBytesFn GetTensorSizeInBytes;
  /** Slot 24: ::KilnGetTensorMemoryInfoFn. */
  KilnGetTensorMemoryInfoFn GetTensorMemoryInfo;
  /** Slot 25: ::KilnGetTensorTypeAndShapeFn. */
  KilnGetTensorTypeAndShapeFn GetTensorTypeAndShape;
  /** Slot 26: ::KilnGetTensorElementTypeFn. */
  KilnGetTensorElementTypeFn GetTensorElementType;
  /** Slot 27: ::KilnGetDimensionsCountFn. */
  KilnGetDimensionsCountFn GetDimensionsCount;
  /** Slot 28: ::KilnGetDimensionsFn. */
  KilnGetDimensionsFn GetDimensions;
  /** Slot 29: ::KilnGetSymbolicDimensionsFn. */
  KilnGetSymbolicDimensionsFn GetSymbolicDimensions;
  /** Slot 30: ::KilnGetTensorShapeElementCountFn. */
  KilnGetTensorShapeElementCountFn GetTensorShapeElementCount;
  /** Slot 31: ::KilnReleaseTensorTypeAndShapeInfoFn. */
  KilnReleaseTensorTypeAndShapeInfoFn ReleaseTensorTypeAndShapeInfo;

  /* ---- String tensors: kiln/c/values.h ------------------------------------------------------- */
  /** Slot 32: ::KilnFillStringTensorFn. */
  KilnFillStringTensorFn FillStringTensor;
  /** Slot 33: ::KilnFillStringTensorElementFn. */
  KilnFillStringTensorElementFn FillStringTensorElement;
  /** Slot 34: ::KilnGetStringTensorDataLengthFn. */
  KilnGetStringTensorDataLengthFn GetStringTensorDataLength;
  /** Slot 35: ::KilnGetStringTensorContentFn. */
  KilnGetStringTensorContentFn GetStringTensorContent;
  /** Slot 36: ::KilnGetStringTensorElementLengthFn. */
  KilnGetStringTensorElementLengthFn GetStringTensorElementLength;
  /** Slot 37: ::KilnGetStringTensorElementFn. */
  KilnGetStringTensorElementFn GetStringTensorElement;
  /** Slot 38: ::KilnReleaseValueFn. */
  KilnReleaseValueFn ReleaseValue;

  /* ---- Session options (slots 39-49): kiln/c/session.h --------------------------------------- */
  /** Slot 39: ::KilnCreateSessionOptionsFn. */
  KilnCreateSessionOptionsFn CreateSessionOptions;
  /** Slot 40: ::KilnCloneSessionOptionsFn. */
  KilnCloneSessionOptionsFn CloneSessionOptions;
  /** Slot 41: ::KilnSetIntraOpNumThreadsFn. */
  KilnSetIntraOpNumThreadsFn SetIntraOpNumThreads;
  /** Slot 42: ::KilnSetSessionGraphOptimizationLevelFn. */
  KilnSetSessionGraphOptimizationLevelFn SetSessionGraphOptimizationLevel;
  /** Slot 43: ::KilnSetSessionLogSeverityLevelFn. */
  KilnSetSessionLogSeverityLevelFn SetSessionLogSeverityLevel;
  /** Slot 44: ::KilnSetSessionLogIdFn. */
  KilnSetSessionLogIdFn SetSessionLogId;
  /** Slot 45: ::KilnEnableProfilingFn. */
  KilnEnableProfilingFn EnableProfiling;
  /** Slot 46: ::KilnDisableProfilingFn. */
  KilnDisableProfilingFn DisableProfiling;
  /** Slot 47: ::KilnAddFreeDimensionOverrideByNameFn. */
  KilnAddFreeDimensionOverrideByNameFn AddFreeDimensionOverrideByName;
  /** Slot 48: ::KilnAddSessionConfigEntryFn. */
  KilnAddSessionConfigEntryFn AddSessionConfigEntry;
  /** Slot 49: ::KilnReleaseSessionOptionsFn. */
  KilnReleaseSessionOptionsFn ReleaseSessionOptions;

  /* ---- Sessions (slots 50-65): kiln/c/session.h ---------------------------------------------- */
  /** Slot 50: ::KilnCreateSessionFn. */
  KilnCreateSessionFn CreateSession;
  /** Slot 51: ::KilnCreateSessionFromArrayFn. */
  KilnCreateSessionFromArrayFn CreateSessionFromArray;
  /** Slot 52: ::KilnSessionGetInputCountFn. */
  KilnSessionGetInputCountFn SessionGetInputCount;
  /** Slot 53: ::KilnSessionGetOutputCountFn. */
  KilnSessionGetOutputCountFn SessionGetOutputCount;
  /** Slot 54: ::KilnSessionGetInputNameFn. */
  KilnSessionGetInputNameFn SessionGetInputName;
  /** Slot 55: ::KilnSessionGetOutputNameFn. */
  KilnSessionGetOutputNameFn SessionGetOutputName;
  /** Slot 56: ::KilnSessionGetInputValueTypeFn. */
  KilnSessionGetInputValueTypeFn SessionGetInputValueType;
  /** Slot 57: ::KilnSessionGetOutputValueTypeFn. */
  KilnSessionGetOutputValueTypeFn SessionGetOutputValueType;
  /** Slot 58: ::KilnCreateSessionInputTensorInfoFn. */
  KilnCreateSessionInputTensorInfoFn CreateSessionInputTensorInfo;
  /** Slot 59: ::KilnCreateSessionOutputTensorInfoFn. */
  KilnCreateSessionOutputTensorInfoFn CreateSessionOutputTensorInfo;
  /** Slot 60: ::KilnSessionGetModelMetadataStringFn. */
  KilnSessionGetModelMetadataStringFn SessionGetModelMetadataString;
  /** Slot 61: ::KilnSessionGetModelVersionFn. */
  KilnSessionGetModelVersionFn SessionGetModelVersion;
  /** Slot 62: ::KilnSessionGetCustomMetadataKeysFn. */
  KilnSessionGetCustomMetadataKeysFn SessionGetCustomMetadataKeys;
  /** Slot 63: ::KilnSessionLookupCustomMetadataFn. */
  KilnSessionLookupCustomMetadataFn SessionLookupCustomMetadata;
  /** Slot 64: ::KilnSessionEndProfilingFn. */
  KilnSessionEndProfilingFn SessionEndProfiling;
  /** Slot 65: ::KilnReleaseSessionFn. */
  KilnReleaseSessionFn ReleaseSession;

  /* ---- Running (slots 66-72): kiln/c/session.h ----------------------------------------------- */
  /** Slot 66: ::KilnCreateRunOptionsFn. */
  KilnCreateRunOptionsFn CreateRunOptions;
  /** Slot 67: ::KilnRunOptionsSetRunTagFn. */
  KilnRunOptionsSetRunTagFn RunOptionsSetRunTag;
  /** Slot 68: ::KilnRunOptionsSetRunLogSeverityLevelFn. */
  KilnRunOptionsSetRunLogSeverityLevelFn RunOptionsSetRunLogSeverityLevel;
  /** Slot 69: ::KilnRunOptionsSetTerminateFn. */
  KilnRunOptionsSetTerminateFn RunOptionsSetTerminate;
  /** Slot 70: ::KilnRunOptionsUnsetTerminateFn. */
  KilnRunOptionsUnsetTerminateFn RunOptionsUnsetTerminate;
  /** Slot 71: ::KilnReleaseRunOptionsFn. */
  KilnReleaseRunOptionsFn ReleaseRunOptions;
  /** Slot 72: ::KilnRunFn. */
  KilnRunFn Run;

  /* ---- Sequences and optionals (slots 73-78): kiln/c/values.h -------------------------------- */
  /** Slot 73: ::KilnCreateSequenceValueFn. */
  KilnCreateSequenceValueFn CreateSequenceValue;
  /** Slot 74: ::KilnCreateOptionalValueFn. */
  KilnCreateOptionalValueFn CreateOptionalValue;
  /** Slot 75: ::KilnGetValueCountFn. */
  KilnGetValueCountFn GetValueCount;
  /** Slot 76: ::KilnGetValueElementFn. */
  KilnGetValueElementFn GetValueElement;
  /** Slot 77: ::KilnHasValueFn. */
  KilnHasValueFn HasValue;
  /** Slot 78: ::KilnGetValueElementTypeFn. */
  KilnGetValueElementTypeFn GetValueElementType;

  /* ---- Session inputs and config (slots 79-87): kiln/c/session_config.h ---------------------- */
  KilnSessionGetOverridableInitializerCountFn SessionGetOverridableInitializerCount; /**< Slot 79:
                                                ::KilnSessionGetOverridableInitializerCountFn. */
  KilnSessionGetOverridableInitializerNameFn SessionGetOverridableInitializerName;   /**< Slot 80:
                                                 ::KilnSessionGetOverridableInitializerNameFn. */
  KilnCreateSessionOverridableInitializerTensorInfoFn
      CreateSessionOverridableInitializerTensorInfo; /**< Slot 81:
        ::KilnCreateSessionOverridableInitializerTensorInfoFn.
      */
  /** Slot 82: ::KilnSessionOptionsAddInitializerFn. */
  KilnSessionOptionsAddInitializerFn SessionOptionsAddInitializer;
  /** Slot 83: ::KilnAddFreeDimensionOverrideFn. */
  KilnAddFreeDimensionOverrideFn AddFreeDimensionOverride;
  /** Slot 84: ::KilnSessionOptionsGetConfigEntryFn. */
  KilnSessionOptionsGetConfigEntryFn SessionOptionsGetConfigEntry;
  /** Slot 85: ::KilnRunOptionsAddConfigEntryFn. */
  KilnRunOptionsAddConfigEntryFn RunOptionsAddConfigEntry;
  /** Slot 86: ::KilnRunOptionsGetConfigEntryFn. */
  KilnRunOptionsGetConfigEntryFn RunOptionsGetConfigEntry;
  /** Slot 87: ::KilnSessionGetProfilingStartTimeNsFn. */
  KilnSessionGetProfilingStartTimeNsFn SessionGetProfilingStartTimeNs;

  /* ---- IO binding and asynchronous runs (slots 88-100): kiln/c/io_binding.h ------------------ */
  /** Slot 88: ::KilnCreateIoBindingFn. */
  KilnCreateIoBindingFn CreateIoBinding;
  /** Slot 89: ::KilnReleaseIoBindingFn. */
  KilnReleaseIoBindingFn ReleaseIoBinding;
  /** Slot 90: ::KilnBindInputFn. */
  KilnBindInputFn BindInput;
  /** Slot 91: ::KilnBindOutputFn. */
  KilnBindOutputFn BindOutput;
  /** Slot 92: ::KilnBindOutputToDeviceFn. */
  KilnBindOutputToDeviceFn BindOutputToDevice;
  /** Slot 93: ::KilnGetBoundOutputNamesFn. */
  KilnGetBoundOutputNamesFn GetBoundOutputNames;
  /** Slot 94: ::KilnGetBoundOutputValuesFn. */
  KilnGetBoundOutputValuesFn GetBoundOutputValues;
  /** Slot 95: ::KilnClearBoundInputsFn. */
  KilnClearBoundInputsFn ClearBoundInputs;
  /** Slot 96: ::KilnClearBoundOutputsFn. */
  KilnClearBoundOutputsFn ClearBoundOutputs;
  /** Slot 97: ::KilnSynchronizeBoundInputsFn. */
  KilnSynchronizeBoundInputsFn SynchronizeBoundInputs;
  /** Slot 98: ::KilnSynchronizeBoundOutputsFn. */
  KilnSynchronizeBoundOutputsFn SynchronizeBoundOutputs;
  /** Slot 99: ::KilnRunWithBindingFn. */
  KilnRunWithBindingFn RunWithBinding;
  /** Slot 100: ::KilnRunAsyncFn. */
  KilnRunAsyncFn RunAsync;

  /* ---- Optimized model (slot 101): kiln/c/session_config.h ----------------------------------- */
  /** Slot 101: ::KilnSetOptimizedModelFilePathFn. */
  KilnSetOptimizedModelFilePathFn SetOptimizedModelFilePath;

  /* ---- Parallel execution (slots 102-103): kiln/c/session_config.h --------------------------- */
  /** Slot 102: ::KilnSetInterOpNumThreadsFn. */
  KilnSetInterOpNumThreadsFn SetInterOpNumThreads;
  /** Slot 103: ::KilnSetSessionExecutionModeFn. */
  KilnSetSessionExecutionModeFn SetSessionExecutionMode;

  /* ---- Custom operators (slots 104-126): kiln/kiln_custom_op.h ---------------------------- */
  /** Slot 104: ::KilnSessionOptionsRegisterCustomOpsLibraryFn. */
  KilnSessionOptionsRegisterCustomOpsLibraryFn SessionOptionsRegisterCustomOpsLibrary;
  /** Slot 105: ::KilnSessionOptionsRegisterCustomOpsFn. */
  KilnSessionOptionsRegisterCustomOpsFn SessionOptionsRegisterCustomOps;
  /** Slot 106: ::KilnCustomOpRegistryAddFn. */
  KilnCustomOpRegistryAddFn CustomOpRegistryAdd;
  /** Slot 107: ::KilnKernelInfoGetNodeNameFn. */
  KilnKernelInfoGetNodeNameFn KernelInfoGetNodeName;
  /** Slot 108: ::KilnKernelInfoGetInputCountFn. */
  KilnKernelInfoGetInputCountFn KernelInfoGetInputCount;
  /** Slot 109: ::KilnKernelInfoGetOutputCountFn. */
  KilnKernelInfoGetOutputCountFn KernelInfoGetOutputCount;
  /** Slot 110: ::KilnKernelInfoGetAttributeIntFn. */
  KilnKernelInfoGetAttributeIntFn KernelInfoGetAttributeInt;
  /** Slot 111: ::KilnKernelInfoGetAttributeFloatFn. */
  KilnKernelInfoGetAttributeFloatFn KernelInfoGetAttributeFloat;
  /** Slot 112: ::KilnKernelInfoGetAttributeStringFn. */
  KilnKernelInfoGetAttributeStringFn KernelInfoGetAttributeString;
  /** Slot 113: ::KilnKernelInfoGetAttributeIntsFn. */
  KilnKernelInfoGetAttributeIntsFn KernelInfoGetAttributeInts;
  /** Slot 114: ::KilnKernelInfoGetAttributeFloatsFn. */
  KilnKernelInfoGetAttributeFloatsFn KernelInfoGetAttributeFloats;
  /** Slot 115: ::KilnKernelInfoGetAttributeStringsFn. */
  KilnKernelInfoGetAttributeStringsFn KernelInfoGetAttributeStrings;
  /** Slot 116: ::KilnKernelContextGetInputCountFn. */
  KilnKernelContextGetInputCountFn KernelContextGetInputCount;
  /** Slot 117: ::KilnKernelContextGetOutputCountFn. */
  KilnKernelContextGetOutputCountFn KernelContextGetOutputCount;
  /** Slot 118: ::KilnKernelContextGetInputFn. */
  KilnKernelContextGetInputFn KernelContextGetInput;
  /** Slot 119: ::KilnKernelContextGetOutputFn. */
  KilnKernelContextGetOutputFn KernelContextGetOutput;
  /** Slot 120: ::KilnKernelContextParallelForFn. */
  KilnKernelContextParallelForFn KernelContextParallelFor;
  /** Slot 121: ::KilnKernelContextIsTerminatedFn. */
  KilnKernelContextIsTerminatedFn KernelContextIsTerminated;
  /** Slot 122: ::KilnKernelContextLogFn. */
  KilnKernelContextLogFn KernelContextLog;
  /** Slot 123: ::KilnShapeInferContextGetKernelInfoFn. */
  KilnShapeInferContextGetKernelInfoFn ShapeInferContextGetKernelInfo;
  /** Slot 124: ::KilnShapeInferContextGetInputTypeInfoFn. */
  KilnShapeInferContextGetInputTypeInfoFn ShapeInferContextGetInputTypeInfo;
  /** Slot 125: ::KilnShapeInferContextSetOutputTypeInfoFn. */
  KilnShapeInferContextSetOutputTypeInfoFn ShapeInferContextSetOutputTypeInfo;
  /** Slot 126: ::KilnKernelContextGetKernelInfoFn. */
  KilnKernelContextGetKernelInfoFn KernelContextGetKernelInfo;
  /** Slot 127: ::KilnGetGraphApiFn (the graph sub-table, kiln/kiln_graph_api.h). */
  KilnGetGraphApiFn GetGraphApi;
  /** Slot 128: ::KilnGetTensorDataFn. */
  KilnGetTensorDataFn GetTensorData;
};

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_C_API_H_ */
