// Every slot of the KilnApi table, in order, as the tests know it. table_test.cc checks this list
// against the real struct, so a slot added to the header without being added here (and so
// without contract, handle and failure-injection cases) fails the suite.
#ifndef KILN_TESTS_API_SLOTS_H_
#define KILN_TESTS_API_SLOTS_H_

#include <cstddef>
#include <set>
#include <string>

#include "kiln/kiln_c_api.h"

// X(name, returns_status)
#define KILN_TEST_SLOTS(X)                               \
  X(CreateStatus, false)                                 \
  X(GetErrorCode, false)                                 \
  X(GetErrorMessage, false)                              \
  X(ReleaseStatus, false)                                \
  X(CreateEnv, true)                                     \
  X(CreateEnvWithCustomLogger, true)                     \
  X(ReleaseEnv, false)                                   \
  X(CreateCpuMemoryInfo, true)                           \
  X(MemoryInfoGetName, true)                             \
  X(MemoryInfoGetId, true)                               \
  X(MemoryInfoGetMemType, true)                          \
  X(MemoryInfoGetType, true)                             \
  X(MemoryInfoEquals, true)                              \
  X(ReleaseMemoryInfo, false)                            \
  X(GetAllocatorWithDefaultOptions, true)                \
  X(AllocatorAlloc, true)                                \
  X(AllocatorFree, true)                                 \
  X(AllocatorGetInfo, true)                              \
  X(CreateTensorAsValue, true)                           \
  X(CreateTensorWithDataAsValue, true)                   \
  X(GetValueType, true)                                  \
  X(IsTensor, true)                                      \
  X(GetTensorMutableData, true)                          \
  X(GetTensorSizeInBytes, true)                          \
  X(GetTensorMemoryInfo, true)                           \
  X(GetTensorTypeAndShape, true)                         \
  X(GetTensorElementType, true)                          \
  X(GetDimensionsCount, true)                            \
  X(GetDimensions, true)                                 \
  X(GetSymbolicDimensions, true)                         \
  X(GetTensorShapeElementCount, true)                    \
  X(ReleaseTensorTypeAndShapeInfo, false)                \
  X(FillStringTensor, true)                              \
  X(FillStringTensorElement, true)                       \
  X(GetStringTensorDataLength, true)                     \
  X(GetStringTensorContent, true)                        \
  X(GetStringTensorElementLength, true)                  \
  X(GetStringTensorElement, true)                        \
  X(ReleaseValue, false)                                 \
  X(CreateSessionOptions, true)                          \
  X(CloneSessionOptions, true)                           \
  X(SetIntraOpNumThreads, true)                          \
  X(SetSessionGraphOptimizationLevel, true)              \
  X(SetSessionLogSeverityLevel, true)                    \
  X(SetSessionLogId, true)                               \
  X(EnableProfiling, true)                               \
  X(DisableProfiling, true)                              \
  X(AddFreeDimensionOverrideByName, true)                \
  X(AddSessionConfigEntry, true)                         \
  X(ReleaseSessionOptions, false)                        \
  X(CreateSession, true)                                 \
  X(CreateSessionFromArray, true)                        \
  X(SessionGetInputCount, true)                          \
  X(SessionGetOutputCount, true)                         \
  X(SessionGetInputName, true)                           \
  X(SessionGetOutputName, true)                          \
  X(SessionGetInputValueType, true)                      \
  X(SessionGetOutputValueType, true)                     \
  X(CreateSessionInputTensorInfo, true)                  \
  X(CreateSessionOutputTensorInfo, true)                 \
  X(SessionGetModelMetadataString, true)                 \
  X(SessionGetModelVersion, true)                        \
  X(SessionGetCustomMetadataKeys, true)                  \
  X(SessionLookupCustomMetadata, true)                   \
  X(SessionEndProfiling, true)                           \
  X(ReleaseSession, false)                               \
  X(CreateRunOptions, true)                              \
  X(RunOptionsSetRunTag, true)                           \
  X(RunOptionsSetRunLogSeverityLevel, true)              \
  X(RunOptionsSetTerminate, true)                        \
  X(RunOptionsUnsetTerminate, true)                      \
  X(ReleaseRunOptions, false)                            \
  X(Run, true)                                           \
  X(CreateSequenceValue, true)                           \
  X(CreateOptionalValue, true)                           \
  X(GetValueCount, true)                                 \
  X(GetValueElement, true)                               \
  X(HasValue, true)                                      \
  X(GetValueElementType, true)                           \
  X(SessionGetOverridableInitializerCount, true)         \
  X(SessionGetOverridableInitializerName, true)          \
  X(CreateSessionOverridableInitializerTensorInfo, true) \
  X(SessionOptionsAddInitializer, true)                  \
  X(AddFreeDimensionOverride, true)                      \
  X(SessionOptionsGetConfigEntry, true)                  \
  X(RunOptionsAddConfigEntry, true)                      \
  X(RunOptionsGetConfigEntry, true)                      \
  X(SessionGetProfilingStartTimeNs, true)                \
  X(CreateIoBinding, true)                               \
  X(ReleaseIoBinding, false)                             \
  X(BindInput, true)                                     \
  X(BindOutput, true)                                    \
  X(BindOutputToDevice, true)                            \
  X(GetBoundOutputNames, true)                           \
  X(GetBoundOutputValues, true)                          \
  X(ClearBoundInputs, true)                              \
  X(ClearBoundOutputs, true)                             \
  X(SynchronizeBoundInputs, true)                        \
  X(SynchronizeBoundOutputs, true)                       \
  X(RunWithBinding, true)                                \
  X(RunAsync, true)                                      \
  X(SetOptimizedModelFilePath, true)                     \
  X(SetInterOpNumThreads, true)                          \
  X(SetSessionExecutionMode, true)                       \
  X(SessionOptionsRegisterCustomOpsLibrary, true)        \
  X(SessionOptionsRegisterCustomOps, true)               \
  X(CustomOpRegistryAdd, true)                           \
  X(KernelInfoGetNodeName, true)                         \
  X(KernelInfoGetInputCount, true)                       \
  X(KernelInfoGetOutputCount, true)                      \
  X(KernelInfoGetAttributeInt, true)                     \
  X(KernelInfoGetAttributeFloat, true)                   \
  X(KernelInfoGetAttributeString, true)                  \
  X(KernelInfoGetAttributeInts, true)                    \
  X(KernelInfoGetAttributeFloats, true)                  \
  X(KernelInfoGetAttributeStrings, true)                 \
  X(KernelContextGetInputCount, true)                    \
  X(KernelContextGetOutputCount, true)                   \
  X(KernelContextGetInput, true)                         \
  X(KernelContextGetOutput, true)                        \
  X(KernelContextParallelFor, true)                      \
  X(KernelContextIsTerminated, true)                     \
  X(KernelContextLog, true)                              \
  X(ShapeInferContextGetKernelInfo, true)                \
  X(ShapeInferContextGetInputTypeInfo, true)             \
  X(ShapeInferContextSetOutputTypeInfo, true)            \
  X(KernelContextGetKernelInfo, true)                    \
  X(GetGraphApi, false)                                  \
  X(GetTensorData, true)

namespace kiln_test {

struct SlotInfo {
  const char* name;
  size_t offset;
  bool returns_status;
};

#define KILN_TEST_SLOT_INFO(name, returns_status) {#name, offsetof(KilnApi, name), returns_status},
inline constexpr SlotInfo kSlots[] = {KILN_TEST_SLOTS(KILN_TEST_SLOT_INFO)};
#undef KILN_TEST_SLOT_INFO

inline std::set<std::string> SlotNames(bool status_returning_only) {
  std::set<std::string> names;
  for (const SlotInfo& s : kSlots) {
    if (!status_returning_only || s.returns_status) names.insert(s.name);
  }
  return names;
}

}  // namespace kiln_test

#endif  // KILN_TESTS_API_SLOTS_H_
