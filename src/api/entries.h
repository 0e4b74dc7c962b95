// Every entry of the KilnApi table, implemented across src/api/*_api.cc and gathered into the
// table by api_table.cc. Each has exactly the signature of its slot.
#ifndef KILN_API_ENTRIES_H_
#define KILN_API_ENTRIES_H_

#include "kiln/kiln_c_api.h"

namespace kiln::api {

// status_api.cc
KilnStatus* KILN_API_CALL CreateStatus(KilnErrorCode code, const char* msg);
KilnErrorCode KILN_API_CALL GetErrorCode(const KilnStatus* status);
const char* KILN_API_CALL GetErrorMessage(const KilnStatus* status);
void KILN_API_CALL ReleaseStatus(KilnStatus* status);

// env_api.cc
KilnStatus* KILN_API_CALL CreateEnv(KilnLoggingLevel min_severity, const char* log_id,
                                    KilnEnv** out);
KilnStatus* KILN_API_CALL CreateEnvWithCustomLogger(KilnLoggingFunction logging_function,
                                                    void* logger_param,
                                                    KilnLoggingLevel min_severity,
                                                    const char* log_id, KilnEnv** out);
void KILN_API_CALL ReleaseEnv(KilnEnv* env);

// memory_api.cc
KilnStatus* KILN_API_CALL CreateCpuMemoryInfo(KilnAllocatorType allocator_type,
                                              KilnMemType mem_type, KilnMemoryInfo** out);
KilnStatus* KILN_API_CALL MemoryInfoGetName(const KilnMemoryInfo* info, const char** out);
KilnStatus* KILN_API_CALL MemoryInfoGetId(const KilnMemoryInfo* info, int* out);
KilnStatus* KILN_API_CALL MemoryInfoGetMemType(const KilnMemoryInfo* info, KilnMemType* out);
KilnStatus* KILN_API_CALL MemoryInfoGetType(const KilnMemoryInfo* info, KilnAllocatorType* out);
KilnStatus* KILN_API_CALL MemoryInfoEquals(const KilnMemoryInfo* a, const KilnMemoryInfo* b,
                                           int* out);
void KILN_API_CALL ReleaseMemoryInfo(KilnMemoryInfo* info);
KilnStatus* KILN_API_CALL GetAllocatorWithDefaultOptions(KilnAllocator** out);
KilnStatus* KILN_API_CALL AllocatorAlloc(KilnAllocator* allocator, size_t size, void** out);
KilnStatus* KILN_API_CALL AllocatorFree(KilnAllocator* allocator, void* p);
KilnStatus* KILN_API_CALL AllocatorGetInfo(const KilnAllocator* allocator,
                                           const KilnMemoryInfo** out);

// tensor_api.cc
KilnStatus* KILN_API_CALL CreateTensorAsValue(KilnAllocator* allocator, const int64_t* shape,
                                              size_t shape_len, KilnElementType element_type,
                                              KilnValue** out);
KilnStatus* KILN_API_CALL CreateTensorWithDataAsValue(const KilnMemoryInfo* info, void* data,
                                                      size_t data_len, const int64_t* shape,
                                                      size_t shape_len,
                                                      KilnElementType element_type,
                                                      KilnValue** out);
KilnStatus* KILN_API_CALL GetValueType(const KilnValue* value, KilnValueType* out);
KilnStatus* KILN_API_CALL IsTensor(const KilnValue* value, int* out);
KilnStatus* KILN_API_CALL GetTensorMutableData(KilnValue* value, void** out);
KilnStatus* KILN_API_CALL GetTensorData(const KilnValue* value, const void** out);
KilnStatus* KILN_API_CALL GetTensorSizeInBytes(const KilnValue* value, size_t* out);
KilnStatus* KILN_API_CALL GetTensorMemoryInfo(const KilnValue* value, const KilnMemoryInfo** out);
KilnStatus* KILN_API_CALL GetTensorTypeAndShape(const KilnValue* value,
                                                KilnTensorTypeAndShapeInfo** out);
KilnStatus* KILN_API_CALL GetTensorElementType(const KilnTensorTypeAndShapeInfo* info,
                                               KilnElementType* out);
KilnStatus* KILN_API_CALL GetDimensionsCount(const KilnTensorTypeAndShapeInfo* info, size_t* out);
KilnStatus* KILN_API_CALL GetDimensions(const KilnTensorTypeAndShapeInfo* info, int64_t* dims,
                                        size_t dims_len);
KilnStatus* KILN_API_CALL GetSymbolicDimensions(const KilnTensorTypeAndShapeInfo* info,
                                                const char** names, size_t names_len);
KilnStatus* KILN_API_CALL GetTensorShapeElementCount(const KilnTensorTypeAndShapeInfo* info,
                                                     size_t* out);
void KILN_API_CALL ReleaseTensorTypeAndShapeInfo(KilnTensorTypeAndShapeInfo* info);
void KILN_API_CALL ReleaseValue(KilnValue* value);

// string_tensor_api.cc
KilnStatus* KILN_API_CALL FillStringTensor(KilnValue* value, const char* const* s, size_t s_len);
KilnStatus* KILN_API_CALL FillStringTensorElement(KilnValue* value, const char* s, size_t index);
KilnStatus* KILN_API_CALL GetStringTensorDataLength(const KilnValue* value, size_t* out);
KilnStatus* KILN_API_CALL GetStringTensorContent(const KilnValue* value, void* s, size_t s_len,
                                                 size_t* offsets, size_t offsets_len);
KilnStatus* KILN_API_CALL GetStringTensorElementLength(const KilnValue* value, size_t index,
                                                       size_t* out);
KilnStatus* KILN_API_CALL GetStringTensorElement(const KilnValue* value, size_t s_len, size_t index,
                                                 void* s);

// session_options_api.cc
KilnStatus* KILN_API_CALL CreateSessionOptions(KilnSessionOptions** out);
KilnStatus* KILN_API_CALL CloneSessionOptions(const KilnSessionOptions* options,
                                              KilnSessionOptions** out);
KilnStatus* KILN_API_CALL SetIntraOpNumThreads(KilnSessionOptions* options, int threads);
KilnStatus* KILN_API_CALL SetSessionGraphOptimizationLevel(KilnSessionOptions* options,
                                                           KilnGraphOptimizationLevel level);
KilnStatus* KILN_API_CALL SetSessionLogSeverityLevel(KilnSessionOptions* options,
                                                     KilnLoggingLevel severity);
KilnStatus* KILN_API_CALL SetSessionLogId(KilnSessionOptions* options, const char* log_id);
KilnStatus* KILN_API_CALL EnableProfiling(KilnSessionOptions* options, const char* prefix);
KilnStatus* KILN_API_CALL DisableProfiling(KilnSessionOptions* options);
KilnStatus* KILN_API_CALL AddFreeDimensionOverrideByName(KilnSessionOptions* options,
                                                         const char* name, int64_t value);
KilnStatus* KILN_API_CALL AddSessionConfigEntry(KilnSessionOptions* options, const char* key,
                                                const char* value);
void KILN_API_CALL ReleaseSessionOptions(KilnSessionOptions* options);

// session_api.cc
KilnStatus* KILN_API_CALL CreateSession(const KilnEnv* env, const char* path,
                                        const KilnSessionOptions* options, KilnSession** out);
KilnStatus* KILN_API_CALL CreateSessionFromArray(const KilnEnv* env, const void* data,
                                                 size_t data_len, const KilnSessionOptions* options,
                                                 KilnSession** out);
KilnStatus* KILN_API_CALL SessionGetInputCount(const KilnSession* session, size_t* out);
KilnStatus* KILN_API_CALL SessionGetOutputCount(const KilnSession* session, size_t* out);
KilnStatus* KILN_API_CALL SessionGetInputName(const KilnSession* session, size_t index,
                                              KilnAllocator* allocator, char** out);
KilnStatus* KILN_API_CALL SessionGetOutputName(const KilnSession* session, size_t index,
                                               KilnAllocator* allocator, char** out);
KilnStatus* KILN_API_CALL SessionGetInputValueType(const KilnSession* session, size_t index,
                                                   KilnValueType* out);
KilnStatus* KILN_API_CALL SessionGetOutputValueType(const KilnSession* session, size_t index,
                                                    KilnValueType* out);
KilnStatus* KILN_API_CALL CreateSessionInputTensorInfo(const KilnSession* session, size_t index,
                                                       KilnTensorTypeAndShapeInfo** out);
KilnStatus* KILN_API_CALL CreateSessionOutputTensorInfo(const KilnSession* session, size_t index,
                                                        KilnTensorTypeAndShapeInfo** out);
KilnStatus* KILN_API_CALL SessionGetModelMetadataString(const KilnSession* session,
                                                        KilnModelMetadataField field,
                                                        KilnAllocator* allocator, char** out);
KilnStatus* KILN_API_CALL SessionGetModelVersion(const KilnSession* session, int64_t* out);
KilnStatus* KILN_API_CALL SessionGetCustomMetadataKeys(const KilnSession* session,
                                                       KilnAllocator* allocator, char*** keys,
                                                       size_t* count);
KilnStatus* KILN_API_CALL SessionLookupCustomMetadata(const KilnSession* session,
                                                      KilnAllocator* allocator, const char* key,
                                                      char** out);
KilnStatus* KILN_API_CALL SessionEndProfiling(KilnSession* session, KilnAllocator* allocator,
                                              char** out);
void KILN_API_CALL ReleaseSession(KilnSession* session);

// run_api.cc
KilnStatus* KILN_API_CALL CreateRunOptions(KilnRunOptions** out);
KilnStatus* KILN_API_CALL RunOptionsSetRunTag(KilnRunOptions* options, const char* tag);
KilnStatus* KILN_API_CALL RunOptionsSetRunLogSeverityLevel(KilnRunOptions* options,
                                                           KilnLoggingLevel severity);
KilnStatus* KILN_API_CALL RunOptionsSetTerminate(KilnRunOptions* options);
KilnStatus* KILN_API_CALL RunOptionsUnsetTerminate(KilnRunOptions* options);
void KILN_API_CALL ReleaseRunOptions(KilnRunOptions* options);
KilnStatus* KILN_API_CALL Run(KilnSession* session, const KilnRunOptions* run_options,
                              const char* const* input_names, const KilnValue* const* inputs,
                              size_t input_count, const char* const* output_names,
                              size_t output_count, KilnValue** outputs);

// sequence_api.cc
KilnStatus* KILN_API_CALL CreateSequenceValue(const KilnValue* const* tensors, size_t count,
                                              KilnElementType element_type, KilnValue** out);
KilnStatus* KILN_API_CALL CreateOptionalValue(const KilnValue* content,
                                              KilnValueType contained_type,
                                              KilnElementType element_type, KilnValue** out);
KilnStatus* KILN_API_CALL GetValueCount(const KilnValue* value, size_t* out);
KilnStatus* KILN_API_CALL GetValueElement(const KilnValue* value, size_t index, KilnValue** out);
KilnStatus* KILN_API_CALL HasValue(const KilnValue* value, int* out);
KilnStatus* KILN_API_CALL GetValueElementType(const KilnValue* value, KilnElementType* out);

// session_inputs_api.cc
KilnStatus* KILN_API_CALL SessionGetOverridableInitializerCount(const KilnSession* session,
                                                                size_t* out);
KilnStatus* KILN_API_CALL SessionGetOverridableInitializerName(const KilnSession* session,
                                                               size_t index,
                                                               KilnAllocator* allocator,
                                                               char** out);
KilnStatus* KILN_API_CALL CreateSessionOverridableInitializerTensorInfo(
    const KilnSession* session, size_t index, KilnTensorTypeAndShapeInfo** out);
KilnStatus* KILN_API_CALL SessionOptionsAddInitializer(KilnSessionOptions* options,
                                                       const char* name, const KilnValue* value);
KilnStatus* KILN_API_CALL AddFreeDimensionOverride(KilnSessionOptions* options,
                                                   const char* dim_denotation, int64_t value);
KilnStatus* KILN_API_CALL SessionOptionsGetConfigEntry(const KilnSessionOptions* options,
                                                       const char* key, KilnAllocator* allocator,
                                                       char** out);
KilnStatus* KILN_API_CALL RunOptionsAddConfigEntry(KilnRunOptions* options, const char* key,
                                                   const char* value);
KilnStatus* KILN_API_CALL RunOptionsGetConfigEntry(const KilnRunOptions* options, const char* key,
                                                   KilnAllocator* allocator, char** out);
KilnStatus* KILN_API_CALL SessionGetProfilingStartTimeNs(const KilnSession* session, uint64_t* out);

// io_binding_api.cc
KilnStatus* KILN_API_CALL CreateIoBinding(KilnSession* session, KilnIoBinding** out);
void KILN_API_CALL ReleaseIoBinding(KilnIoBinding* binding);
KilnStatus* KILN_API_CALL BindInput(KilnIoBinding* binding, const char* name,
                                    const KilnValue* value);
KilnStatus* KILN_API_CALL BindOutput(KilnIoBinding* binding, const char* name, KilnValue* value);
KilnStatus* KILN_API_CALL BindOutputToDevice(KilnIoBinding* binding, const char* name,
                                             const KilnMemoryInfo* info);
KilnStatus* KILN_API_CALL GetBoundOutputNames(const KilnIoBinding* binding,
                                              KilnAllocator* allocator, char*** names,
                                              size_t* count);
KilnStatus* KILN_API_CALL GetBoundOutputValues(const KilnIoBinding* binding,
                                               KilnAllocator* allocator, KilnValue*** values,
                                               size_t* count);
KilnStatus* KILN_API_CALL ClearBoundInputs(KilnIoBinding* binding);
KilnStatus* KILN_API_CALL ClearBoundOutputs(KilnIoBinding* binding);
KilnStatus* KILN_API_CALL SynchronizeBoundInputs(KilnIoBinding* binding);
KilnStatus* KILN_API_CALL SynchronizeBoundOutputs(KilnIoBinding* binding);
KilnStatus* KILN_API_CALL RunWithBinding(KilnSession* session, const KilnRunOptions* run_options,
                                         const KilnIoBinding* binding);

// run_async_api.cc
KilnStatus* KILN_API_CALL RunAsync(KilnSession* session, const KilnRunOptions* run_options,
                                   const char* const* input_names, const KilnValue* const* inputs,
                                   size_t input_count, const char* const* output_names,
                                   size_t output_count, KilnValue** outputs,
                                   KilnRunAsyncCallback callback, void* user_data);

// optimized_model_api.cc
KilnStatus* KILN_API_CALL SetOptimizedModelFilePath(KilnSessionOptions* options, const char* path);

// session_options_api.cc (parallel execution)
KilnStatus* KILN_API_CALL SetInterOpNumThreads(KilnSessionOptions* options, int threads);
KilnStatus* KILN_API_CALL SetSessionExecutionMode(KilnSessionOptions* options,
                                                  KilnExecutionMode mode);

// custom_op_api.cc
KilnStatus* KILN_API_CALL SessionOptionsRegisterCustomOpsLibrary(KilnSessionOptions* options,
                                                                 const char* path);
KilnStatus* KILN_API_CALL SessionOptionsRegisterCustomOps(KilnSessionOptions* options,
                                                          KilnRegisterCustomOpsFn register_ops);
KilnStatus* KILN_API_CALL CustomOpRegistryAdd(KilnCustomOpRegistry* registry,
                                              const KilnCustomOp* op);

// custom_op_kernel.cc
KilnStatus* KILN_API_CALL KernelInfoGetNodeName(const KilnKernelInfo* info, const char** out);
KilnStatus* KILN_API_CALL KernelInfoGetInputCount(const KilnKernelInfo* info, size_t* out);
KilnStatus* KILN_API_CALL KernelInfoGetOutputCount(const KilnKernelInfo* info, size_t* out);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeInt(const KilnKernelInfo* info, const char* name,
                                                    int64_t* out);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeFloat(const KilnKernelInfo* info, const char* name,
                                                      float* out);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeString(const KilnKernelInfo* info, const char* name,
                                                       const char** out);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeInts(const KilnKernelInfo* info, const char* name,
                                                     const int64_t** values, size_t* count);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeFloats(const KilnKernelInfo* info, const char* name,
                                                       const float** values, size_t* count);
KilnStatus* KILN_API_CALL KernelInfoGetAttributeStrings(const KilnKernelInfo* info,
                                                        const char* name,
                                                        const char* const** values, size_t* count);
KilnStatus* KILN_API_CALL KernelContextGetInputCount(const KilnKernelContext* ctx, size_t* out);
KilnStatus* KILN_API_CALL KernelContextGetOutputCount(const KilnKernelContext* ctx, size_t* out);
KilnStatus* KILN_API_CALL KernelContextGetInput(const KilnKernelContext* ctx, size_t index,
                                                const KilnValue** out);
KilnStatus* KILN_API_CALL KernelContextGetOutput(KilnKernelContext* ctx, size_t index,
                                                 const int64_t* dims, size_t dim_count,
                                                 KilnValue** out);
KilnStatus* KILN_API_CALL KernelContextParallelFor(KilnKernelContext* ctx, KilnParallelForFn fn,
                                                   void* data, size_t total, size_t grain);
KilnStatus* KILN_API_CALL KernelContextIsTerminated(const KilnKernelContext* ctx, int* out);
KilnStatus* KILN_API_CALL KernelContextLog(const KilnKernelContext* ctx, KilnLoggingLevel severity,
                                           const char* message);
KilnStatus* KILN_API_CALL KernelContextGetKernelInfo(const KilnKernelContext* ctx,
                                                     const KilnKernelInfo** out);
KilnStatus* KILN_API_CALL ShapeInferContextGetKernelInfo(const KilnShapeInferContext* ctx,
                                                         const KilnKernelInfo** out);
KilnStatus* KILN_API_CALL ShapeInferContextGetInputTypeInfo(const KilnShapeInferContext* ctx,
                                                            size_t index,
                                                            KilnTensorTypeAndShapeInfo** out);
KilnStatus* KILN_API_CALL ShapeInferContextSetOutputTypeInfo(KilnShapeInferContext* ctx,
                                                             size_t index,
                                                             KilnElementType element_type,
                                                             const int64_t* dims, size_t dim_count);

// graph_api_table.cc
const KilnGraphApi* KILN_API_CALL GetGraphApi(uint32_t version);

}  // namespace kiln::api

#endif  // KILN_API_ENTRIES_H_
