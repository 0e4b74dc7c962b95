// The KilnApi table, KilnApiBase and KilnGetApiBase: the library's only exported symbol.
//
// Slot order is the ABI. Each slot's offset is pinned below; appending a slot means declaring its
// type in its family header (include/kiln/c/), adding it at the end of the struct, the
// initializer and the pins, and bumping kSlotCount.
#include <cstddef>
#include <cstdio>

#include "api/entries.h"
#include "core/allocator.h"
#include "core/data_type.h"
#include "core/error.h"
#include "core/logging.h"

namespace kiln::api {
namespace {

constexpr KilnApi kApiV1 = {
    .CreateStatus = &CreateStatus,
    .GetErrorCode = &GetErrorCode,
    .GetErrorMessage = &GetErrorMessage,
    .ReleaseStatus = &ReleaseStatus,
    .CreateEnv = &CreateEnv,
    .CreateEnvWithCustomLogger = &CreateEnvWithCustomLogger,
    .ReleaseEnv = &ReleaseEnv,
    .CreateCpuMemoryInfo = &CreateCpuMemoryInfo,
    .MemoryInfoGetName = &MemoryInfoGetName,
    .MemoryInfoGetId = &MemoryInfoGetId,
    .MemoryInfoGetMemType = &MemoryInfoGetMemType,
    .MemoryInfoGetType = &MemoryInfoGetType,
    .MemoryInfoEquals = &MemoryInfoEquals,
    .ReleaseMemoryInfo = &ReleaseMemoryInfo,
    .GetAllocatorWithDefaultOptions = &GetAllocatorWithDefaultOptions,
    .AllocatorAlloc = &AllocatorAlloc,
    .AllocatorFree = &AllocatorFree,
    .AllocatorGetInfo = &AllocatorGetInfo,
    .CreateTensorAsValue = &CreateTensorAsValue,
    .CreateTensorWithDataAsValue = &CreateTensorWithDataAsValue,
    .GetValueType = &GetValueType,
    .IsTensor = &IsTensor,
    .GetTensorMutableData = &GetTensorMutableData,
    .GetTensorSizeInBytes = &GetTensorSizeInBytes,
    .GetTensorMemoryInfo = &GetTensorMemoryInfo,
    .GetTensorTypeAndShape = &GetTensorTypeAndShape,
    .GetTensorElementType = &GetTensorElementType,
    .GetDimensionsCount = &GetDimensionsCount,
    .GetDimensions = &GetDimensions,
    .GetSymbolicDimensions = &GetSymbolicDimensions,
    .GetTensorShapeElementCount = &GetTensorShapeElementCount,
    .ReleaseTensorTypeAndShapeInfo = &ReleaseTensorTypeAndShapeInfo,
    .FillStringTensor = &FillStringTensor,
    .FillStringTensorElement = &FillStringTensorElement,
    .GetStringTensorDataLength = &GetStringTensorDataLength,
    .GetStringTensorContent = &GetStringTensorContent,
    .GetStringTensorElementLength = &GetStringTensorElementLength,
    .GetStringTensorElement = &GetStringTensorElement,
    .ReleaseValue = &ReleaseValue,
    .CreateSessionOptions = &CreateSessionOptions,
    .CloneSessionOptions = &CloneSessionOptions,
    .SetIntraOpNumThreads = &SetIntraOpNumThreads,
    .SetSessionGraphOptimizationLevel = &SetSessionGraphOptimizationLevel,
    .SetSessionLogSeverityLevel = &SetSessionLogSeverityLevel,
    .SetSessionLogId = &SetSessionLogId,
    .EnableProfiling = &EnableProfiling,
    .DisableProfiling = &DisableProfiling,
    .AddFreeDimensionOverrideByName = &AddFreeDimensionOverrideByName,
    .AddSessionConfigEntry = &AddSessionConfigEntry,
    .ReleaseSessionOptions = &ReleaseSessionOptions,
    .CreateSession = &CreateSession,
    .CreateSessionFromArray = &CreateSessionFromArray,
    .SessionGetInputCount = &SessionGetInputCount,
    .SessionGetOutputCount = &SessionGetOutputCount,
    .SessionGetInputName = &SessionGetInputName,
    .SessionGetOutputName = &SessionGetOutputName,
    .SessionGetInputValueType = &SessionGetInputValueType,
    .SessionGetOutputValueType = &SessionGetOutputValueType,
    .CreateSessionInputTensorInfo = &CreateSessionInputTensorInfo,
    .CreateSessionOutputTensorInfo = &CreateSessionOutputTensorInfo,
    .SessionGetModelMetadataString = &SessionGetModelMetadataString,
    .SessionGetModelVersion = &SessionGetModelVersion,
    .SessionGetCustomMetadataKeys = &SessionGetCustomMetadataKeys,
    .SessionLookupCustomMetadata = &SessionLookupCustomMetadata,
    .SessionEndProfiling = &SessionEndProfiling,
    .ReleaseSession = &ReleaseSession,
    .CreateRunOptions = &CreateRunOptions,
    .RunOptionsSetRunTag = &RunOptionsSetRunTag,
    .RunOptionsSetRunLogSeverityLevel = &RunOptionsSetRunLogSeverityLevel,
    .RunOptionsSetTerminate = &RunOptionsSetTerminate,
    .RunOptionsUnsetTerminate = &RunOptionsUnsetTerminate,
    .ReleaseRunOptions = &ReleaseRunOptions,
    .Run = &Run,
    .CreateSequenceValue = &CreateSequenceValue,
    .CreateOptionalValue = &CreateOptionalValue,
    .GetValueCount = &GetValueCount,
    .GetValueElement = &GetValueElement,
    .HasValue = &HasValue,
    .GetValueElementType = &GetValueElementType,
    .SessionGetOverridableInitializerCount = &SessionGetOverridableInitializerCount,
    .SessionGetOverridableInitializerName = &SessionGetOverridableInitializerName,
    .CreateSessionOverridableInitializerTensorInfo = &CreateSessionOverridableInitializerTensorInfo,
    .SessionOptionsAddInitializer = &SessionOptionsAddInitializer,
    .AddFreeDimensionOverride = &AddFreeDimensionOverride,
    .SessionOptionsGetConfigEntry = &SessionOptionsGetConfigEntry,
    .RunOptionsAddConfigEntry = &RunOptionsAddConfigEntry,
    .RunOptionsGetConfigEntry = &RunOptionsGetConfigEntry,
    .SessionGetProfilingStartTimeNs = &SessionGetProfilingStartTimeNs,
    .CreateIoBinding = &CreateIoBinding,
    .ReleaseIoBinding = &ReleaseIoBinding,
    .BindInput = &BindInput,
    .BindOutput = &BindOutput,
    .BindOutputToDevice = &BindOutputToDevice,
    .GetBoundOutputNames = &GetBoundOutputNames,
    .GetBoundOutputValues = &GetBoundOutputValues,
    .ClearBoundInputs = &ClearBoundInputs,
    .ClearBoundOutputs = &ClearBoundOutputs,
    .SynchronizeBoundInputs = &SynchronizeBoundInputs,
    .SynchronizeBoundOutputs = &SynchronizeBoundOutputs,
    .RunWithBinding = &RunWithBinding,
    .RunAsync = &RunAsync,
    .SetOptimizedModelFilePath = &SetOptimizedModelFilePath,
    .SetInterOpNumThreads = &SetInterOpNumThreads,
    .SetSessionExecutionMode = &SetSessionExecutionMode,
    .SessionOptionsRegisterCustomOpsLibrary = &SessionOptionsRegisterCustomOpsLibrary,
    .SessionOptionsRegisterCustomOps = &SessionOptionsRegisterCustomOps,
    .CustomOpRegistryAdd = &CustomOpRegistryAdd,
    .KernelInfoGetNodeName = &KernelInfoGetNodeName,
    .KernelInfoGetInputCount = &KernelInfoGetInputCount,
    .KernelInfoGetOutputCount = &KernelInfoGetOutputCount,
    .KernelInfoGetAttributeInt = &KernelInfoGetAttributeInt,
    .KernelInfoGetAttributeFloat = &KernelInfoGetAttributeFloat,
    .KernelInfoGetAttributeString = &KernelInfoGetAttributeString,
    .KernelInfoGetAttributeInts = &KernelInfoGetAttributeInts,
    .KernelInfoGetAttributeFloats = &KernelInfoGetAttributeFloats,
    .KernelInfoGetAttributeStrings = &KernelInfoGetAttributeStrings,
    .KernelContextGetInputCount = &KernelContextGetInputCount,
    .KernelContextGetOutputCount = &KernelContextGetOutputCount,
    .KernelContextGetInput = &KernelContextGetInput,
    .KernelContextGetOutput = &KernelContextGetOutput,
    .KernelContextParallelFor = &KernelContextParallelFor,
    .KernelContextIsTerminated = &KernelContextIsTerminated,
    .KernelContextLog = &KernelContextLog,
    .ShapeInferContextGetKernelInfo = &ShapeInferContextGetKernelInfo,
    .ShapeInferContextGetInputTypeInfo = &ShapeInferContextGetInputTypeInfo,
    .ShapeInferContextSetOutputTypeInfo = &ShapeInferContextSetOutputTypeInfo,
    .KernelContextGetKernelInfo = &KernelContextGetKernelInfo,
    .GetGraphApi = &GetGraphApi,
    .GetTensorData = &GetTensorData,
};

// ---- Pins: a shipped slot never moves ----------------------------------------------------------
#define KILN_PIN_SLOT(name, index) \
  static_assert(offsetof(KilnApi, name) == (index) * sizeof(void*), "slot " #name " moved")
KILN_PIN_SLOT(CreateStatus, 0);
KILN_PIN_SLOT(GetErrorCode, 1);
KILN_PIN_SLOT(GetErrorMessage, 2);
KILN_PIN_SLOT(ReleaseStatus, 3);
KILN_PIN_SLOT(CreateEnv, 4);
KILN_PIN_SLOT(CreateEnvWithCustomLogger, 5);
KILN_PIN_SLOT(ReleaseEnv, 6);
KILN_PIN_SLOT(CreateCpuMemoryInfo, 7);
KILN_PIN_SLOT(MemoryInfoGetName, 8);
KILN_PIN_SLOT(MemoryInfoGetId, 9);
KILN_PIN_SLOT(MemoryInfoGetMemType, 10);
KILN_PIN_SLOT(MemoryInfoGetType, 11);
KILN_PIN_SLOT(MemoryInfoEquals, 12);
KILN_PIN_SLOT(ReleaseMemoryInfo, 13);
KILN_PIN_SLOT(GetAllocatorWithDefaultOptions, 14);
KILN_PIN_SLOT(AllocatorAlloc, 15);
KILN_PIN_SLOT(AllocatorFree, 16);
KILN_PIN_SLOT(AllocatorGetInfo, 17);
KILN_PIN_SLOT(CreateTensorAsValue, 18);
KILN_PIN_SLOT(CreateTensorWithDataAsValue, 19);
KILN_PIN_SLOT(GetValueType, 20);
KILN_PIN_SLOT(IsTensor, 21);
KILN_PIN_SLOT(GetTensorMutableData, 22);
KILN_PIN_SLOT(GetTensorSizeInBytes, 23);
KILN_PIN_SLOT(GetTensorMemoryInfo, 24);
KILN_PIN_SLOT(GetTensorTypeAndShape, 25);
KILN_PIN_SLOT(GetTensorElementType, 26);
KILN_PIN_SLOT(GetDimensionsCount, 27);
KILN_PIN_SLOT(GetDimensions, 28);
KILN_PIN_SLOT(GetSymbolicDimensions, 29);
KILN_PIN_SLOT(GetTensorShapeElementCount, 30);
KILN_PIN_SLOT(ReleaseTensorTypeAndShapeInfo, 31);
KILN_PIN_SLOT(FillStringTensor, 32);
KILN_PIN_SLOT(FillStringTensorElement, 33);
KILN_PIN_SLOT(GetStringTensorDataLength, 34);
KILN_PIN_SLOT(GetStringTensorContent, 35);
KILN_PIN_SLOT(GetStringTensorElementLength, 36);
KILN_PIN_SLOT(GetStringTensorElement, 37);
KILN_PIN_SLOT(ReleaseValue, 38);
KILN_PIN_SLOT(CreateSessionOptions, 39);
KILN_PIN_SLOT(CloneSessionOptions, 40);
KILN_PIN_SLOT(SetIntraOpNumThreads, 41);
KILN_PIN_SLOT(SetSessionGraphOptimizationLevel, 42);
KILN_PIN_SLOT(SetSessionLogSeverityLevel, 43);
KILN_PIN_SLOT(SetSessionLogId, 44);
KILN_PIN_SLOT(EnableProfiling, 45);
KILN_PIN_SLOT(DisableProfiling, 46);
KILN_PIN_SLOT(AddFreeDimensionOverrideByName, 47);
KILN_PIN_SLOT(AddSessionConfigEntry, 48);
KILN_PIN_SLOT(ReleaseSessionOptions, 49);
KILN_PIN_SLOT(CreateSession, 50);
KILN_PIN_SLOT(CreateSessionFromArray, 51);
KILN_PIN_SLOT(SessionGetInputCount, 52);
KILN_PIN_SLOT(SessionGetOutputCount, 53);
KILN_PIN_SLOT(SessionGetInputName, 54);
KILN_PIN_SLOT(SessionGetOutputName, 55);
KILN_PIN_SLOT(SessionGetInputValueType, 56);
KILN_PIN_SLOT(SessionGetOutputValueType, 57);
KILN_PIN_SLOT(CreateSessionInputTensorInfo, 58);
KILN_PIN_SLOT(CreateSessionOutputTensorInfo, 59);
KILN_PIN_SLOT(SessionGetModelMetadataString, 60);
KILN_PIN_SLOT(SessionGetModelVersion, 61);
KILN_PIN_SLOT(SessionGetCustomMetadataKeys, 62);
KILN_PIN_SLOT(SessionLookupCustomMetadata, 63);
KILN_PIN_SLOT(SessionEndProfiling, 64);
KILN_PIN_SLOT(ReleaseSession, 65);
KILN_PIN_SLOT(CreateRunOptions, 66);
KILN_PIN_SLOT(RunOptionsSetRunTag, 67);
KILN_PIN_SLOT(RunOptionsSetRunLogSeverityLevel, 68);
KILN_PIN_SLOT(RunOptionsSetTerminate, 69);
KILN_PIN_SLOT(RunOptionsUnsetTerminate, 70);
KILN_PIN_SLOT(ReleaseRunOptions, 71);
KILN_PIN_SLOT(Run, 72);
KILN_PIN_SLOT(CreateSequenceValue, 73);
KILN_PIN_SLOT(CreateOptionalValue, 74);
KILN_PIN_SLOT(GetValueCount, 75);
KILN_PIN_SLOT(GetValueElement, 76);
KILN_PIN_SLOT(HasValue, 77);
KILN_PIN_SLOT(GetValueElementType, 78);
KILN_PIN_SLOT(SessionGetOverridableInitializerCount, 79);
KILN_PIN_SLOT(SessionGetOverridableInitializerName, 80);
KILN_PIN_SLOT(CreateSessionOverridableInitializerTensorInfo, 81);
KILN_PIN_SLOT(SessionOptionsAddInitializer, 82);
KILN_PIN_SLOT(AddFreeDimensionOverride, 83);
KILN_PIN_SLOT(SessionOptionsGetConfigEntry, 84);
KILN_PIN_SLOT(RunOptionsAddConfigEntry, 85);
KILN_PIN_SLOT(RunOptionsGetConfigEntry, 86);
KILN_PIN_SLOT(SessionGetProfilingStartTimeNs, 87);
KILN_PIN_SLOT(CreateIoBinding, 88);
KILN_PIN_SLOT(ReleaseIoBinding, 89);
KILN_PIN_SLOT(BindInput, 90);
KILN_PIN_SLOT(BindOutput, 91);
KILN_PIN_SLOT(BindOutputToDevice, 92);
KILN_PIN_SLOT(GetBoundOutputNames, 93);
KILN_PIN_SLOT(GetBoundOutputValues, 94);
KILN_PIN_SLOT(ClearBoundInputs, 95);
KILN_PIN_SLOT(ClearBoundOutputs, 96);
KILN_PIN_SLOT(SynchronizeBoundInputs, 97);
KILN_PIN_SLOT(SynchronizeBoundOutputs, 98);
KILN_PIN_SLOT(RunWithBinding, 99);
KILN_PIN_SLOT(RunAsync, 100);
KILN_PIN_SLOT(SetOptimizedModelFilePath, 101);
KILN_PIN_SLOT(SetInterOpNumThreads, 102);
KILN_PIN_SLOT(SetSessionExecutionMode, 103);
KILN_PIN_SLOT(SessionOptionsRegisterCustomOpsLibrary, 104);
KILN_PIN_SLOT(SessionOptionsRegisterCustomOps, 105);
KILN_PIN_SLOT(CustomOpRegistryAdd, 106);
KILN_PIN_SLOT(KernelInfoGetNodeName, 107);
KILN_PIN_SLOT(KernelInfoGetInputCount, 108);
KILN_PIN_SLOT(KernelInfoGetOutputCount, 109);
KILN_PIN_SLOT(KernelInfoGetAttributeInt, 110);
KILN_PIN_SLOT(KernelInfoGetAttributeFloat, 111);
KILN_PIN_SLOT(KernelInfoGetAttributeString, 112);
KILN_PIN_SLOT(KernelInfoGetAttributeInts, 113);
KILN_PIN_SLOT(KernelInfoGetAttributeFloats, 114);
KILN_PIN_SLOT(KernelInfoGetAttributeStrings, 115);
KILN_PIN_SLOT(KernelContextGetInputCount, 116);
KILN_PIN_SLOT(KernelContextGetOutputCount, 117);
KILN_PIN_SLOT(KernelContextGetInput, 118);
KILN_PIN_SLOT(KernelContextGetOutput, 119);
KILN_PIN_SLOT(KernelContextParallelFor, 120);
KILN_PIN_SLOT(KernelContextIsTerminated, 121);
KILN_PIN_SLOT(KernelContextLog, 122);
KILN_PIN_SLOT(ShapeInferContextGetKernelInfo, 123);
KILN_PIN_SLOT(ShapeInferContextGetInputTypeInfo, 124);
KILN_PIN_SLOT(ShapeInferContextSetOutputTypeInfo, 125);
KILN_PIN_SLOT(KernelContextGetKernelInfo, 126);
KILN_PIN_SLOT(GetGraphApi, 127);
KILN_PIN_SLOT(GetTensorData, 128);

#undef KILN_PIN_SLOT
constexpr size_t kSlotCount = 129;
static_assert(sizeof(KilnApi) == kSlotCount * sizeof(void*), "a slot has no pin");

// ---- The C enums and the engine's enums share their values ----------------------------------
static_assert(static_cast<int>(ErrorCode::kTerminated) == KILN_TERMINATED);
static_assert(static_cast<int>(ErrorCode::kOutOfMemory) == KILN_OUT_OF_MEMORY);
static_assert(static_cast<int>(ErrorCode::kInvalidArgument) == KILN_INVALID_ARGUMENT);
static_assert(static_cast<int>(DataType::kInt2) == KILN_ELEMENT_TYPE_INT2);
static_assert(kMaxDataType == KILN_ELEMENT_TYPE_INT2);
static_assert(static_cast<int>(DataType::kString) == KILN_ELEMENT_TYPE_STRING);
static_assert(static_cast<int>(MemType::kCpuInput) == KILN_MEM_TYPE_CPU_INPUT);
static_assert(static_cast<int>(AllocatorType::kArena) == KILN_ARENA_ALLOCATOR);
static_assert(static_cast<int>(LogLevel::kFatal) == KILN_LOGGING_LEVEL_FATAL);

const KilnApi* KILN_API_CALL GetApi(uint32_t version) {
  if (version == 1) return &kApiV1;
  char message[160];
  std::snprintf(message, sizeof message,
                "GetApi: API version %u is not provided by this libkiln (it provides 1 to %d)",
                static_cast<unsigned>(version), KILN_API_VERSION);
  LogProcess(LogLevel::kError, "kiln.api", KILN_LOCATION, message);
  return nullptr;
}

const char* KILN_API_CALL GetVersionString() {
  return KILN_VERSION_STRING;
}

constexpr KilnApiBase kApiBase = {&GetApi, &GetVersionString};

}  // namespace
}  // namespace kiln::api

extern "C" KILN_EXPORT const KilnApiBase* KILN_API_CALL KilnGetApiBase(void) {
  return &kiln::api::kApiBase;
}
