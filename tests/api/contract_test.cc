// The contract for every entry at once (DESIGN.md §3 rules 3, 5 and 8): each pointer argument
// passed NULL, each handle argument passed a handle of the wrong type or an already released one.
// Each case checks the code, that the message names the entry and the argument, and that the
// out-parameter is untouched. The tables must cover every entry of both tables (slots.h, and
// graph_slots.h for the graph API's sub-table; its Release entries are graph_view_test.cc's).
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "contract_cases.h"
#include "fixtures.h"
#include "graph_slots.h"

namespace kiln_test {
namespace {

void KILN_API_CALL NoLog(void*, KilnLoggingLevel, const char*, const char*, const char*,
                         const char*) {}

// One NULL case per pointer argument of every status-returning entry.
std::vector<Case> NullCases() {
  return {
      {"CreateEnv", "log_id",
       [](Objects&, Outs& o) { return api().CreateEnv(KILN_LOGGING_LEVEL_INFO, nullptr, &o.env); }},
      {"CreateEnv", "out",
       [](Objects&, Outs&) { return api().CreateEnv(KILN_LOGGING_LEVEL_INFO, "x", nullptr); }},
      {"CreateEnvWithCustomLogger", "logging_function",
       [](Objects&, Outs& o) {
         return api().CreateEnvWithCustomLogger(nullptr, nullptr, KILN_LOGGING_LEVEL_INFO, "x",
                                                &o.env);
       }},
      {"CreateEnvWithCustomLogger", "log_id",
       [](Objects&, Outs& o) {
         return api().CreateEnvWithCustomLogger(&NoLog, nullptr, KILN_LOGGING_LEVEL_INFO, nullptr,
                                                &o.env);
       }},
      {"CreateEnvWithCustomLogger", "out",
       [](Objects&, Outs&) {
         return api().CreateEnvWithCustomLogger(&NoLog, nullptr, KILN_LOGGING_LEVEL_INFO, "x",
                                                nullptr);
       }},
      {"CreateCpuMemoryInfo", "out",
       [](Objects&, Outs&) {
         return api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, nullptr);
       }},
      {"MemoryInfoGetName", "info",
       [](Objects&, Outs& o) { return api().MemoryInfoGetName(nullptr, &o.text); }},
      {"MemoryInfoGetName", "out",
       [](Objects& b, Outs&) { return api().MemoryInfoGetName(b.info, nullptr); }},
      {"MemoryInfoGetId", "info",
       [](Objects&, Outs& o) { return api().MemoryInfoGetId(nullptr, &o.i); }},
      {"MemoryInfoGetId", "out",
       [](Objects& b, Outs&) { return api().MemoryInfoGetId(b.info, nullptr); }},
      {"MemoryInfoGetMemType", "info",
       [](Objects&, Outs& o) { return api().MemoryInfoGetMemType(nullptr, &o.mem_type); }},
      {"MemoryInfoGetMemType", "out",
       [](Objects& b, Outs&) { return api().MemoryInfoGetMemType(b.info, nullptr); }},
      {"MemoryInfoGetType", "info",
       [](Objects&, Outs& o) { return api().MemoryInfoGetType(nullptr, &o.allocator_type); }},
      {"MemoryInfoGetType", "out",
       [](Objects& b, Outs&) { return api().MemoryInfoGetType(b.info, nullptr); }},
      {"MemoryInfoEquals", "a",
       [](Objects& b, Outs& o) { return api().MemoryInfoEquals(nullptr, b.info, &o.i); }},
      {"MemoryInfoEquals", "b",
       [](Objects& b, Outs& o) { return api().MemoryInfoEquals(b.info, nullptr, &o.i); }},
      {"MemoryInfoEquals", "out",
       [](Objects& b, Outs&) { return api().MemoryInfoEquals(b.info, b.info, nullptr); }},
      {"GetAllocatorWithDefaultOptions", "out",
       [](Objects&, Outs&) { return api().GetAllocatorWithDefaultOptions(nullptr); }},
      {"AllocatorAlloc", "allocator",
       [](Objects&, Outs& o) { return api().AllocatorAlloc(nullptr, 8, &o.pointer); }},
      {"AllocatorAlloc", "out",
       [](Objects& b, Outs&) { return api().AllocatorAlloc(b.allocator, 8, nullptr); }},
      {"AllocatorFree", "allocator",
       [](Objects&, Outs& o) { return api().AllocatorFree(nullptr, o.pointer); }},
      {"AllocatorGetInfo", "allocator",
       [](Objects&, Outs& o) { return api().AllocatorGetInfo(nullptr, &o.const_info); }},
      {"AllocatorGetInfo", "out",
       [](Objects& b, Outs&) { return api().AllocatorGetInfo(b.allocator, nullptr); }},
      {"CreateTensorAsValue", "allocator",
       [](Objects& b, Outs& o) {
         return api().CreateTensorAsValue(nullptr, b.dims, 2, KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateTensorAsValue", "shape",
       [](Objects& b, Outs& o) {
         return api().CreateTensorAsValue(b.allocator, nullptr, 2, KILN_ELEMENT_TYPE_FLOAT,
                                          &o.value);
       }},
      {"CreateTensorAsValue", "out",
       [](Objects& b, Outs&) {
         return api().CreateTensorAsValue(b.allocator, b.dims, 2, KILN_ELEMENT_TYPE_FLOAT, nullptr);
       }},
      {"CreateTensorWithDataAsValue", "info",
       [](Objects& b, Outs& o) {
         return api().CreateTensorWithDataAsValue(nullptr, b.data, sizeof b.data, b.dims, 2,
                                                  KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateTensorWithDataAsValue", "data",
       [](Objects& b, Outs& o) {
         return api().CreateTensorWithDataAsValue(b.info, nullptr, sizeof b.data, b.dims, 2,
                                                  KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateTensorWithDataAsValue", "shape",
       [](Objects& b, Outs& o) {
         return api().CreateTensorWithDataAsValue(b.info, b.data, sizeof b.data, nullptr, 2,
                                                  KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateTensorWithDataAsValue", "out",
       [](Objects& b, Outs&) {
         return api().CreateTensorWithDataAsValue(b.info, b.data, sizeof b.data, b.dims, 2,
                                                  KILN_ELEMENT_TYPE_FLOAT, nullptr);
       }},
      {"GetValueType", "value",
       [](Objects&, Outs& o) { return api().GetValueType(nullptr, &o.value_type); }},
      {"GetValueType", "out",
       [](Objects& b, Outs&) { return api().GetValueType(b.value, nullptr); }},
      {"IsTensor", "value", [](Objects&, Outs& o) { return api().IsTensor(nullptr, &o.i); }},
      {"IsTensor", "out", [](Objects& b, Outs&) { return api().IsTensor(b.value, nullptr); }},
      {"GetTensorMutableData", "value",
       [](Objects&, Outs& o) { return api().GetTensorMutableData(nullptr, &o.pointer); }},
      {"GetTensorMutableData", "out",
       [](Objects& b, Outs&) { return api().GetTensorMutableData(b.value, nullptr); }},
      {"GetTensorData", "value",
       [](Objects&, Outs& o) { return api().GetTensorData(nullptr, &o.g.data); }},
      {"GetTensorData", "out",
       [](Objects& b, Outs&) { return api().GetTensorData(b.value, nullptr); }},
      {"GetTensorSizeInBytes", "value",
       [](Objects&, Outs& o) { return api().GetTensorSizeInBytes(nullptr, &o.size); }},
      {"GetTensorSizeInBytes", "out",
       [](Objects& b, Outs&) { return api().GetTensorSizeInBytes(b.value, nullptr); }},
      {"GetTensorMemoryInfo", "value",
       [](Objects&, Outs& o) { return api().GetTensorMemoryInfo(nullptr, &o.const_info); }},
      {"GetTensorMemoryInfo", "out",
       [](Objects& b, Outs&) { return api().GetTensorMemoryInfo(b.value, nullptr); }},
      {"GetTensorTypeAndShape", "value",
       [](Objects&, Outs& o) { return api().GetTensorTypeAndShape(nullptr, &o.shape); }},
      {"GetTensorTypeAndShape", "out",
       [](Objects& b, Outs&) { return api().GetTensorTypeAndShape(b.value, nullptr); }},
      {"GetTensorElementType", "info",
       [](Objects&, Outs& o) { return api().GetTensorElementType(nullptr, &o.element_type); }},
      {"GetTensorElementType", "out",
       [](Objects& b, Outs&) { return api().GetTensorElementType(b.shape, nullptr); }},
      {"GetDimensionsCount", "info",
       [](Objects&, Outs& o) { return api().GetDimensionsCount(nullptr, &o.size); }},
      {"GetDimensionsCount", "out",
       [](Objects& b, Outs&) { return api().GetDimensionsCount(b.shape, nullptr); }},
      {"GetDimensions", "info",
       [](Objects&, Outs& o) { return api().GetDimensions(nullptr, o.dims, 2); }},
      {"GetDimensions", "dims",
       [](Objects& b, Outs&) { return api().GetDimensions(b.shape, nullptr, 2); }},
      {"GetSymbolicDimensions", "info",
       [](Objects&, Outs& o) { return api().GetSymbolicDimensions(nullptr, o.names, 2); }},
      {"GetSymbolicDimensions", "names",
       [](Objects& b, Outs&) { return api().GetSymbolicDimensions(b.shape, nullptr, 2); }},
      {"GetTensorShapeElementCount", "info",
       [](Objects&, Outs& o) { return api().GetTensorShapeElementCount(nullptr, &o.size); }},
      {"GetTensorShapeElementCount", "out",
       [](Objects& b, Outs&) { return api().GetTensorShapeElementCount(b.shape, nullptr); }},
      {"FillStringTensor", "value",
       [](Objects&, Outs&) {
         const char* s[] = {"a", "b", "c", "d", "e", "f"};
         return api().FillStringTensor(nullptr, s, 6);
       }},
      {"FillStringTensor", "s",
       [](Objects& b, Outs&) { return api().FillStringTensor(b.strings, nullptr, 6); }},
      {"FillStringTensorElement", "value",
       [](Objects&, Outs&) { return api().FillStringTensorElement(nullptr, "a", 0); }},
      {"FillStringTensorElement", "s",
       [](Objects& b, Outs&) { return api().FillStringTensorElement(b.strings, nullptr, 0); }},
      {"GetStringTensorDataLength", "value",
       [](Objects&, Outs& o) { return api().GetStringTensorDataLength(nullptr, &o.size); }},
      {"GetStringTensorDataLength", "out",
       [](Objects& b, Outs&) { return api().GetStringTensorDataLength(b.strings, nullptr); }},
      {"GetStringTensorContent", "value",
       [](Objects&, Outs& o) {
         return api().GetStringTensorContent(nullptr, o.bytes, 4, o.offsets, 6);
       }},
      {"GetStringTensorContent", "offsets",
       [](Objects& b, Outs& o) {
         return api().GetStringTensorContent(b.strings, o.bytes, 4, nullptr, 6);
       }},
      {"GetStringTensorElementLength", "value",
       [](Objects&, Outs& o) { return api().GetStringTensorElementLength(nullptr, 0, &o.size); }},
      {"GetStringTensorElementLength", "out",
       [](Objects& b, Outs&) { return api().GetStringTensorElementLength(b.strings, 0, nullptr); }},
      {"GetStringTensorElement", "value",
       [](Objects&, Outs& o) { return api().GetStringTensorElement(nullptr, 4, 0, o.bytes); }},
      // ---- Session options
      {"CreateSessionOptions", "out",
       [](Objects&, Outs&) { return api().CreateSessionOptions(nullptr); }},
      {"CloneSessionOptions", "options",
       [](Objects&, Outs& o) { return api().CloneSessionOptions(nullptr, &o.session_options); }},
      {"CloneSessionOptions", "out",
       [](Objects& b, Outs&) { return api().CloneSessionOptions(b.session_options, nullptr); }},
      {"SetIntraOpNumThreads", "options",
       [](Objects&, Outs&) { return api().SetIntraOpNumThreads(nullptr, 2); }},
      {"SetSessionGraphOptimizationLevel", "options",
       [](Objects&, Outs&) {
         return api().SetSessionGraphOptimizationLevel(nullptr, KILN_GRAPH_OPTIMIZATION_BASIC);
       }},
      {"SetSessionLogSeverityLevel", "options",
       [](Objects&, Outs&) {
         return api().SetSessionLogSeverityLevel(nullptr, KILN_LOGGING_LEVEL_INFO);
       }},
      {"SetSessionLogId", "options",
       [](Objects&, Outs&) { return api().SetSessionLogId(nullptr, "id"); }},
      {"SetSessionLogId", "log_id",
       [](Objects& b, Outs&) { return api().SetSessionLogId(b.session_options, nullptr); }},
      {"EnableProfiling", "options",
       [](Objects& b, Outs&) { return api().EnableProfiling(nullptr, b.profile_prefix.c_str()); }},
      {"EnableProfiling", "prefix",
       [](Objects& b, Outs&) { return api().EnableProfiling(b.session_options, nullptr); }},
      {"DisableProfiling", "options",
       [](Objects&, Outs&) { return api().DisableProfiling(nullptr); }},
      {"AddFreeDimensionOverrideByName", "options",
       [](Objects&, Outs&) { return api().AddFreeDimensionOverrideByName(nullptr, "batch", 1); }},
      {"AddFreeDimensionOverrideByName", "name",
       [](Objects& b, Outs&) {
         return api().AddFreeDimensionOverrideByName(b.session_options, nullptr, 1);
       }},
      {"AddSessionConfigEntry", "options",
       [](Objects&, Outs&) {
         return api().AddSessionConfigEntry(nullptr, "kiln.arena.enable", "1");
       }},
      {"AddSessionConfigEntry", "key",
       [](Objects& b, Outs&) {
         return api().AddSessionConfigEntry(b.session_options, nullptr, "1");
       }},
      {"AddSessionConfigEntry", "value",
       [](Objects& b, Outs&) {
         return api().AddSessionConfigEntry(b.session_options, "kiln.arena.enable", nullptr);
       }},
      // ---- Sessions
      {"CreateSession", "env",
       [](Objects& b, Outs& o) {
         return api().CreateSession(nullptr, b.model_path.c_str(), nullptr, &o.session);
       }},
      {"CreateSession", "path",
       [](Objects& b, Outs& o) {
         return api().CreateSession(b.env, nullptr, nullptr, &o.session);
       }},
      {"CreateSession", "out",
       [](Objects& b, Outs&) {
         return api().CreateSession(b.env, b.model_path.c_str(), nullptr, nullptr);
       }},
      {"CreateSessionFromArray", "env",
       [](Objects& b, Outs& o) {
         return api().CreateSessionFromArray(nullptr, b.model.data(), b.model.size(), nullptr,
                                             &o.session);
       }},
      {"CreateSessionFromArray", "data",
       [](Objects& b, Outs& o) {
         return api().CreateSessionFromArray(b.env, nullptr, b.model.size(), nullptr, &o.session);
       }},
      {"CreateSessionFromArray", "out",
       [](Objects& b, Outs&) {
         return api().CreateSessionFromArray(b.env, b.model.data(), b.model.size(), nullptr,
                                             nullptr);
       }},
      {"SessionGetInputCount", "session",
       [](Objects&, Outs& o) { return api().SessionGetInputCount(nullptr, &o.size); }},
      {"SessionGetInputCount", "out",
       [](Objects& b, Outs&) { return api().SessionGetInputCount(b.session, nullptr); }},
      {"SessionGetOutputCount", "session",
       [](Objects&, Outs& o) { return api().SessionGetOutputCount(nullptr, &o.size); }},
      {"SessionGetOutputCount", "out",
       [](Objects& b, Outs&) { return api().SessionGetOutputCount(b.session, nullptr); }},
      {"SessionGetInputName", "session",
       [](Objects& b, Outs& o) {
         return api().SessionGetInputName(nullptr, 0, b.allocator, &o.string);
       }},
      {"SessionGetInputName", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionGetInputName(b.session, 0, nullptr, &o.string);
       }},
      {"SessionGetInputName", "out",
       [](Objects& b, Outs&) {
         return api().SessionGetInputName(b.session, 0, b.allocator, nullptr);
       }},
      {"SessionGetOutputName", "session",
       [](Objects& b, Outs& o) {
         return api().SessionGetOutputName(nullptr, 0, b.allocator, &o.string);
       }},
      {"SessionGetOutputName", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionGetOutputName(b.session, 0, nullptr, &o.string);
       }},
      {"SessionGetOutputName", "out",
       [](Objects& b, Outs&) {
         return api().SessionGetOutputName(b.session, 0, b.allocator, nullptr);
       }},
      {"SessionGetInputValueType", "session",
       [](Objects&, Outs& o) { return api().SessionGetInputValueType(nullptr, 0, &o.value_type); }},
      {"SessionGetInputValueType", "out",
       [](Objects& b, Outs&) { return api().SessionGetInputValueType(b.session, 0, nullptr); }},
      {"SessionGetOutputValueType", "session",
       [](Objects&, Outs& o) {
         return api().SessionGetOutputValueType(nullptr, 0, &o.value_type);
       }},
      {"SessionGetOutputValueType", "out",
       [](Objects& b, Outs&) { return api().SessionGetOutputValueType(b.session, 0, nullptr); }},
      {"CreateSessionInputTensorInfo", "session",
       [](Objects&, Outs& o) { return api().CreateSessionInputTensorInfo(nullptr, 0, &o.shape); }},
      {"CreateSessionInputTensorInfo", "out",
       [](Objects& b, Outs&) { return api().CreateSessionInputTensorInfo(b.session, 0, nullptr); }},
      {"CreateSessionOutputTensorInfo", "session",
       [](Objects&, Outs& o) { return api().CreateSessionOutputTensorInfo(nullptr, 0, &o.shape); }},
      {"CreateSessionOutputTensorInfo", "out",
       [](Objects& b, Outs&) {
         return api().CreateSessionOutputTensorInfo(b.session, 0, nullptr);
       }},
      {"SessionGetModelMetadataString", "session",
       [](Objects& b, Outs& o) {
         return api().SessionGetModelMetadataString(nullptr, KILN_METADATA_PRODUCER_NAME,
                                                    b.allocator, &o.string);
       }},
      {"SessionGetModelMetadataString", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionGetModelMetadataString(b.session, KILN_METADATA_PRODUCER_NAME, nullptr,
                                                    &o.string);
       }},
      {"SessionGetModelMetadataString", "out",
       [](Objects& b, Outs&) {
         return api().SessionGetModelMetadataString(b.session, KILN_METADATA_PRODUCER_NAME,
                                                    b.allocator, nullptr);
       }},
      {"SessionGetModelVersion", "session",
       [](Objects&, Outs& o) { return api().SessionGetModelVersion(nullptr, &o.version); }},
      {"SessionGetModelVersion", "out",
       [](Objects& b, Outs&) { return api().SessionGetModelVersion(b.session, nullptr); }},
      {"SessionGetCustomMetadataKeys", "session",
       [](Objects& b, Outs& o) {
         return api().SessionGetCustomMetadataKeys(nullptr, b.allocator, &o.strings, &o.size);
       }},
      {"SessionGetCustomMetadataKeys", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionGetCustomMetadataKeys(b.session, nullptr, &o.strings, &o.size);
       }},
      {"SessionGetCustomMetadataKeys", "keys",
       [](Objects& b, Outs& o) {
         return api().SessionGetCustomMetadataKeys(b.session, b.allocator, nullptr, &o.size);
       }},
      {"SessionGetCustomMetadataKeys", "count",
       [](Objects& b, Outs& o) {
         return api().SessionGetCustomMetadataKeys(b.session, b.allocator, &o.strings, nullptr);
       }},
      {"SessionLookupCustomMetadata", "session",
       [](Objects& b, Outs& o) {
         return api().SessionLookupCustomMetadata(nullptr, b.allocator, models::kKeys[0],
                                                  &o.string);
       }},
      {"SessionLookupCustomMetadata", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionLookupCustomMetadata(b.session, nullptr, models::kKeys[0], &o.string);
       }},
      {"SessionLookupCustomMetadata", "key",
       [](Objects& b, Outs& o) {
         return api().SessionLookupCustomMetadata(b.session, b.allocator, nullptr, &o.string);
       }},
      {"SessionLookupCustomMetadata", "out",
       [](Objects& b, Outs&) {
         return api().SessionLookupCustomMetadata(b.session, b.allocator, models::kKeys[0],
                                                  nullptr);
       }},
      {"SessionEndProfiling", "session",
       [](Objects& b, Outs& o) {
         return api().SessionEndProfiling(nullptr, b.allocator, &o.string);
       }},
      {"SessionEndProfiling", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionEndProfiling(b.session, nullptr, &o.string);
       }},
      {"SessionEndProfiling", "out",
       [](Objects& b, Outs&) {
         return api().SessionEndProfiling(b.session, b.allocator, nullptr);
       }},
      // ---- Running
      {"CreateRunOptions", "out", [](Objects&, Outs&) { return api().CreateRunOptions(nullptr); }},
      {"RunOptionsSetRunTag", "options",
       [](Objects&, Outs&) { return api().RunOptionsSetRunTag(nullptr, "tag"); }},
      {"RunOptionsSetRunTag", "tag",
       [](Objects& b, Outs&) { return api().RunOptionsSetRunTag(b.run_options, nullptr); }},
      {"RunOptionsSetRunLogSeverityLevel", "options",
       [](Objects&, Outs&) {
         return api().RunOptionsSetRunLogSeverityLevel(nullptr, KILN_LOGGING_LEVEL_INFO);
       }},
      {"RunOptionsSetTerminate", "options",
       [](Objects&, Outs&) { return api().RunOptionsSetTerminate(nullptr); }},
      {"RunOptionsUnsetTerminate", "options",
       [](Objects&, Outs&) { return api().RunOptionsUnsetTerminate(nullptr); }},
      {"Run", "session",
       [](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         return api().Run(nullptr, b.run_options, in, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "input_names",
       [](Objects& b, Outs& o) {
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, nullptr, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "input_names",  // an entry of the array
       [](Objects& b, Outs& o) {
         const char* in[] = {nullptr};
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "inputs",
       [](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, in, nullptr, 1, out, 1, o.outputs);
       }},
      {"Run", "inputs",  // an entry of the array
       [](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const KilnValue* inputs[] = {nullptr};
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, in, inputs, 1, out, 1, o.outputs);
       }},
      {"Run", "output_names",
       [](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         return api().Run(b.session, b.run_options, in, &b.x, 1, nullptr, 1, o.outputs);
       }},
      {"Run", "output_names",  // an entry of the array
       [](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const char* out[] = {nullptr};
         return api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "outputs",
       [](Objects& b, Outs&) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, nullptr);
       }},
      // ---- Sequences and optionals
      {"CreateSequenceValue", "tensors",
       [](Objects&, Outs& o) {
         return api().CreateSequenceValue(nullptr, 1, KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateSequenceValue", "tensors",  // an entry of the array
       [](Objects&, Outs& o) {
         const KilnValue* tensors[] = {nullptr};
         return api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateSequenceValue", "out",
       [](Objects& b, Outs&) {
         const KilnValue* tensors[] = {b.value};
         return api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, nullptr);
       }},
      // CreateOptionalValue's content may be NULL (an empty optional).
      {"CreateOptionalValue", "out",
       [](Objects& b, Outs&) {
         return api().CreateOptionalValue(b.value, KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT,
                                          nullptr);
       }},
      {"GetValueCount", "value",
       [](Objects&, Outs& o) { return api().GetValueCount(nullptr, &o.size); }},
      {"GetValueCount", "out",
       [](Objects& b, Outs&) { return api().GetValueCount(b.seq, nullptr); }},
      {"GetValueElement", "value",
       [](Objects&, Outs& o) { return api().GetValueElement(nullptr, 0, &o.value); }},
      {"GetValueElement", "out",
       [](Objects& b, Outs&) { return api().GetValueElement(b.seq, 0, nullptr); }},
      {"HasValue", "value", [](Objects&, Outs& o) { return api().HasValue(nullptr, &o.i); }},
      {"HasValue", "out", [](Objects& b, Outs&) { return api().HasValue(b.opt, nullptr); }},
      {"GetValueElementType", "value",
       [](Objects&, Outs& o) { return api().GetValueElementType(nullptr, &o.element_type); }},
      {"GetValueElementType", "out",
       [](Objects& b, Outs&) { return api().GetValueElementType(b.seq, nullptr); }},
      // ---- Optimized model
      {"SetOptimizedModelFilePath", "options",
       [](Objects&, Outs&) { return api().SetOptimizedModelFilePath(nullptr, "m.onnx"); }},
      {"SetOptimizedModelFilePath", "path",
       [](Objects& b, Outs&) {
         return api().SetOptimizedModelFilePath(b.session_options, nullptr);
       }},
      // ---- Parallel execution
      {"SetInterOpNumThreads", "options",
       [](Objects&, Outs&) { return api().SetInterOpNumThreads(nullptr, 2); }},
      {"SetSessionExecutionMode", "options",
       [](Objects&, Outs&) {
         return api().SetSessionExecutionMode(nullptr, KILN_EXECUTION_MODE_PARALLEL);
       }},
  };
}

// Every handle argument given a live handle of another type, then a released one of its own.
std::vector<Case> HandleCases(bool stale) {
  // A handle of the wrong kind for each kind of argument.
  auto as_info = [stale](Objects& b) -> const KilnMemoryInfo* {
    return stale ? b.stale_info : reinterpret_cast<const KilnMemoryInfo*>(b.value);
  };
  auto as_value = [stale](Objects& b) -> KilnValue* {
    return stale ? b.stale_value : reinterpret_cast<KilnValue*>(b.env);
  };
  auto as_shape = [stale](Objects& b) -> const KilnTensorTypeAndShapeInfo* {
    return stale ? b.stale_shape : reinterpret_cast<const KilnTensorTypeAndShapeInfo*>(b.info);
  };
  auto as_env = [stale](Objects& b) -> const KilnEnv* {
    return stale ? b.stale_env : reinterpret_cast<const KilnEnv*>(b.session);
  };
  auto as_session_options = [stale](Objects& b) -> KilnSessionOptions* {
    return stale ? b.stale_session_options : reinterpret_cast<KilnSessionOptions*>(b.run_options);
  };
  auto as_session = [stale](Objects& b) -> KilnSession* {
    return stale ? b.stale_session : reinterpret_cast<KilnSession*>(b.session_options);
  };
  auto as_run_options = [stale](Objects& b) -> KilnRunOptions* {
    return stale ? b.stale_run_options : reinterpret_cast<KilnRunOptions*>(b.session);
  };
  std::vector<Case> cases = {
      {"MemoryInfoGetName", "info",
       [=](Objects& b, Outs& o) { return api().MemoryInfoGetName(as_info(b), &o.text); }},
      {"MemoryInfoGetId", "info",
       [=](Objects& b, Outs& o) { return api().MemoryInfoGetId(as_info(b), &o.i); }},
      {"MemoryInfoGetMemType", "info",
       [=](Objects& b, Outs& o) { return api().MemoryInfoGetMemType(as_info(b), &o.mem_type); }},
      {"MemoryInfoGetType", "info",
       [=](Objects& b, Outs& o) { return api().MemoryInfoGetType(as_info(b), &o.allocator_type); }},
      {"MemoryInfoEquals", "a",
       [=](Objects& b, Outs& o) { return api().MemoryInfoEquals(as_info(b), b.info, &o.i); }},
      {"MemoryInfoEquals", "b",
       [=](Objects& b, Outs& o) { return api().MemoryInfoEquals(b.info, as_info(b), &o.i); }},
      {"CreateTensorWithDataAsValue", "info",
       [=](Objects& b, Outs& o) {
         return api().CreateTensorWithDataAsValue(as_info(b), b.data, sizeof b.data, b.dims, 2,
                                                  KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"GetValueType", "value",
       [=](Objects& b, Outs& o) { return api().GetValueType(as_value(b), &o.value_type); }},
      {"IsTensor", "value", [=](Objects& b, Outs& o) { return api().IsTensor(as_value(b), &o.i); }},
      {"GetTensorMutableData", "value",
       [=](Objects& b, Outs& o) { return api().GetTensorMutableData(as_value(b), &o.pointer); }},
      {"GetTensorData", "value",
       [=](Objects& b, Outs& o) { return api().GetTensorData(as_value(b), &o.g.data); }},
      {"GetTensorSizeInBytes", "value",
       [=](Objects& b, Outs& o) { return api().GetTensorSizeInBytes(as_value(b), &o.size); }},
      {"GetTensorMemoryInfo", "value",
       [=](Objects& b, Outs& o) { return api().GetTensorMemoryInfo(as_value(b), &o.const_info); }},
      {"GetTensorTypeAndShape", "value",
       [=](Objects& b, Outs& o) { return api().GetTensorTypeAndShape(as_value(b), &o.shape); }},
      {"GetTensorElementType", "info",
       [=](Objects& b, Outs& o) {
         return api().GetTensorElementType(as_shape(b), &o.element_type);
       }},
      {"GetDimensionsCount", "info",
       [=](Objects& b, Outs& o) { return api().GetDimensionsCount(as_shape(b), &o.size); }},
      {"GetDimensions", "info",
       [=](Objects& b, Outs& o) { return api().GetDimensions(as_shape(b), o.dims, 2); }},
      {"GetSymbolicDimensions", "info",
       [=](Objects& b, Outs& o) { return api().GetSymbolicDimensions(as_shape(b), o.names, 2); }},
      {"GetTensorShapeElementCount", "info",
       [=](Objects& b, Outs& o) { return api().GetTensorShapeElementCount(as_shape(b), &o.size); }},
      {"FillStringTensor", "value",
       [=](Objects& b, Outs&) {
         const char* s[] = {"a", "b", "c", "d", "e", "f"};
         return api().FillStringTensor(as_value(b), s, 6);
       }},
      {"FillStringTensorElement", "value",
       [=](Objects& b, Outs&) { return api().FillStringTensorElement(as_value(b), "a", 0); }},
      {"GetStringTensorDataLength", "value",
       [=](Objects& b, Outs& o) { return api().GetStringTensorDataLength(as_value(b), &o.size); }},
      {"GetStringTensorContent", "value",
       [=](Objects& b, Outs& o) {
         return api().GetStringTensorContent(as_value(b), o.bytes, 4, o.offsets, 6);
       }},
      {"GetStringTensorElementLength", "value",
       [=](Objects& b, Outs& o) {
         return api().GetStringTensorElementLength(as_value(b), 0, &o.size);
       }},
      {"GetStringTensorElement", "value",
       [=](Objects& b, Outs& o) {
         return api().GetStringTensorElement(as_value(b), 4, 0, o.bytes);
       }},
      // ---- Session options
      {"CloneSessionOptions", "options",
       [=](Objects& b, Outs& o) {
         return api().CloneSessionOptions(as_session_options(b), &o.session_options);
       }},
      {"SetIntraOpNumThreads", "options",
       [=](Objects& b, Outs&) { return api().SetIntraOpNumThreads(as_session_options(b), 2); }},
      {"SetSessionGraphOptimizationLevel", "options",
       [=](Objects& b, Outs&) {
         return api().SetSessionGraphOptimizationLevel(as_session_options(b),
                                                       KILN_GRAPH_OPTIMIZATION_BASIC);
       }},
      {"SetSessionLogSeverityLevel", "options",
       [=](Objects& b, Outs&) {
         return api().SetSessionLogSeverityLevel(as_session_options(b), KILN_LOGGING_LEVEL_INFO);
       }},
      {"SetSessionLogId", "options",
       [=](Objects& b, Outs&) { return api().SetSessionLogId(as_session_options(b), "id"); }},
      {"EnableProfiling", "options",
       [=](Objects& b, Outs&) {
         return api().EnableProfiling(as_session_options(b), b.profile_prefix.c_str());
       }},
      {"DisableProfiling", "options",
       [=](Objects& b, Outs&) { return api().DisableProfiling(as_session_options(b)); }},
      {"AddFreeDimensionOverrideByName", "options",
       [=](Objects& b, Outs&) {
         return api().AddFreeDimensionOverrideByName(as_session_options(b), "batch", 1);
       }},
      {"AddSessionConfigEntry", "options",
       [=](Objects& b, Outs&) {
         return api().AddSessionConfigEntry(as_session_options(b), "kiln.arena.enable", "1");
       }},
      // ---- Sessions
      {"CreateSession", "env",
       [=](Objects& b, Outs& o) {
         return api().CreateSession(as_env(b), b.model_path.c_str(), nullptr, &o.session);
       }},
      {"CreateSession", "options",
       [=](Objects& b, Outs& o) {
         return api().CreateSession(b.env, b.model_path.c_str(), as_session_options(b), &o.session);
       }},
      {"CreateSessionFromArray", "env",
       [=](Objects& b, Outs& o) {
         return api().CreateSessionFromArray(as_env(b), b.model.data(), b.model.size(), nullptr,
                                             &o.session);
       }},
      {"CreateSessionFromArray", "options",
       [=](Objects& b, Outs& o) {
         return api().CreateSessionFromArray(b.env, b.model.data(), b.model.size(),
                                             as_session_options(b), &o.session);
       }},
      {"SessionGetInputCount", "session",
       [=](Objects& b, Outs& o) { return api().SessionGetInputCount(as_session(b), &o.size); }},
      {"SessionGetOutputCount", "session",
       [=](Objects& b, Outs& o) { return api().SessionGetOutputCount(as_session(b), &o.size); }},
      {"SessionGetInputName", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetInputName(as_session(b), 0, b.allocator, &o.string);
       }},
      {"SessionGetOutputName", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetOutputName(as_session(b), 0, b.allocator, &o.string);
       }},
      {"SessionGetInputValueType", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetInputValueType(as_session(b), 0, &o.value_type);
       }},
      {"SessionGetOutputValueType", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetOutputValueType(as_session(b), 0, &o.value_type);
       }},
      {"CreateSessionInputTensorInfo", "session",
       [=](Objects& b, Outs& o) {
         return api().CreateSessionInputTensorInfo(as_session(b), 0, &o.shape);
       }},
      {"CreateSessionOutputTensorInfo", "session",
       [=](Objects& b, Outs& o) {
         return api().CreateSessionOutputTensorInfo(as_session(b), 0, &o.shape);
       }},
      {"SessionGetModelMetadataString", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetModelMetadataString(as_session(b), KILN_METADATA_PRODUCER_NAME,
                                                    b.allocator, &o.string);
       }},
      {"SessionGetModelVersion", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetModelVersion(as_session(b), &o.version);
       }},
      {"SessionGetCustomMetadataKeys", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetCustomMetadataKeys(as_session(b), b.allocator, &o.strings, &o.size);
       }},
      {"SessionLookupCustomMetadata", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionLookupCustomMetadata(as_session(b), b.allocator, models::kKeys[0],
                                                  &o.string);
       }},
      {"SessionEndProfiling", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionEndProfiling(as_session(b), b.allocator, &o.string);
       }},
      // ---- Running
      {"RunOptionsSetRunTag", "options",
       [=](Objects& b, Outs&) { return api().RunOptionsSetRunTag(as_run_options(b), "tag"); }},
      {"RunOptionsSetRunLogSeverityLevel", "options",
       [=](Objects& b, Outs&) {
         return api().RunOptionsSetRunLogSeverityLevel(as_run_options(b), KILN_LOGGING_LEVEL_INFO);
       }},
      {"RunOptionsSetTerminate", "options",
       [=](Objects& b, Outs&) { return api().RunOptionsSetTerminate(as_run_options(b)); }},
      {"RunOptionsUnsetTerminate", "options",
       [=](Objects& b, Outs&) { return api().RunOptionsUnsetTerminate(as_run_options(b)); }},
      {"Run", "session",
       [=](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         return api().Run(as_session(b), b.run_options, in, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "run_options",
       [=](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         return api().Run(b.session, as_run_options(b), in, &b.x, 1, out, 1, o.outputs);
       }},
      {"Run", "inputs[0]",
       [=](Objects& b, Outs& o) {
         const char* in[] = {"x"};
         const KilnValue* inputs[] = {as_value(b)};
         const char* out[] = {"y"};
         return api().Run(b.session, b.run_options, in, inputs, 1, out, 1, o.outputs);
       }},
      {"Run", "outputs[0]",
       [=](Objects& b, Outs&) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         KilnValue* outputs[] = {as_value(b)};
         KilnStatus* s = api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, outputs);
         EXPECT_EQ(outputs[0], as_value(b)) << "a failed Run replaced a caller's slot";
         return s;
       }},
      // ---- Sequences and optionals
      {"CreateSequenceValue", "tensors[0]",
       [=](Objects& b, Outs& o) {
         const KilnValue* tensors[] = {as_value(b)};
         return api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"CreateOptionalValue", "content",
       [=](Objects& b, Outs& o) {
         return api().CreateOptionalValue(as_value(b), KILN_VALUE_TYPE_TENSOR,
                                          KILN_ELEMENT_TYPE_FLOAT, &o.value);
       }},
      {"GetValueCount", "value",
       [=](Objects& b, Outs& o) { return api().GetValueCount(as_value(b), &o.size); }},
      {"GetValueElement", "value",
       [=](Objects& b, Outs& o) { return api().GetValueElement(as_value(b), 0, &o.value); }},
      {"HasValue", "value", [=](Objects& b, Outs& o) { return api().HasValue(as_value(b), &o.i); }},
      {"GetValueElementType", "value",
       [=](Objects& b, Outs& o) {
         return api().GetValueElementType(as_value(b), &o.element_type);
       }},
      {"SetOptimizedModelFilePath", "options",
       [=](Objects& b, Outs&) {
         return api().SetOptimizedModelFilePath(as_session_options(b), "m.onnx");
       }},
      {"SetInterOpNumThreads", "options",
       [=](Objects& b, Outs&) { return api().SetInterOpNumThreads(as_session_options(b), 2); }},
      {"SetSessionExecutionMode", "options",
       [=](Objects& b, Outs&) {
         return api().SetSessionExecutionMode(as_session_options(b), KILN_EXECUTION_MODE_PARALLEL);
       }},
  };
  if (!stale) {
    // A KilnAllocator is the caller's struct, so only Kiln's own handles can be told apart from
    // it (a released one would be read); that is checked here.
    auto env_as_allocator = [](Objects& b) { return reinterpret_cast<KilnAllocator*>(b.env); };
    cases.push_back({"AllocatorAlloc", "allocator", [=](Objects& b, Outs& o) {
                       return api().AllocatorAlloc(env_as_allocator(b), 8, &o.pointer);
                     }});
    cases.push_back({"AllocatorFree", "allocator", [=](Objects& b, Outs&) {
                       return api().AllocatorFree(env_as_allocator(b), b.data);
                     }});
    cases.push_back({"AllocatorGetInfo", "allocator", [=](Objects& b, Outs& o) {
                       return api().AllocatorGetInfo(env_as_allocator(b), &o.const_info);
                     }});
    cases.push_back({"CreateTensorAsValue", "allocator", [=](Objects& b, Outs& o) {
                       return api().CreateTensorAsValue(env_as_allocator(b), b.dims, 2,
                                                        KILN_ELEMENT_TYPE_FLOAT, &o.value);
                     }});
    cases.push_back({"SessionGetInputName", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionGetInputName(b.session, 0, env_as_allocator(b),
                                                        &o.string);
                     }});
    cases.push_back({"SessionGetOutputName", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionGetOutputName(b.session, 0, env_as_allocator(b),
                                                         &o.string);
                     }});
    cases.push_back({"SessionGetModelMetadataString", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionGetModelMetadataString(
                           b.session, KILN_METADATA_PRODUCER_NAME, env_as_allocator(b), &o.string);
                     }});
    cases.push_back({"SessionGetCustomMetadataKeys", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionGetCustomMetadataKeys(b.session, env_as_allocator(b),
                                                                 &o.strings, &o.size);
                     }});
    cases.push_back({"SessionLookupCustomMetadata", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionLookupCustomMetadata(b.session, env_as_allocator(b),
                                                                models::kKeys[0], &o.string);
                     }});
    cases.push_back({"SessionEndProfiling", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionEndProfiling(b.session, env_as_allocator(b), &o.string);
                     }});
  }
  return cases;
}

void RunCases(const std::vector<Case>& cases, const char* expected_fragment) {
  Objects objects;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.entry) + " / " + c.argument);
    Outs outs;
    KilnStatus* status = c.call(objects, outs);
    if (status != nullptr && expected_fragment != nullptr) {
      EXPECT_NE(std::string(api().GetErrorMessage(status)).find(expected_fragment),
                std::string::npos)
          << api().GetErrorMessage(status);
    }
    ExpectError(status, KILN_INVALID_ARGUMENT, c.entry, c.argument);
    EXPECT_TRUE(outs.Untouched());
  }
}

std::set<std::string> Entries(const std::vector<Case>& cases) {
  std::set<std::string> names;
  for (const Case& c : cases) names.insert(c.entry);
  return names;
}

std::vector<Case> Joined(std::vector<Case> cases, const std::vector<Case>& more) {
  cases.insert(cases.end(), more.begin(), more.end());
  return cases;
}

TEST(Contract, EveryEntryRejectsNullPointers) {
  const std::vector<Case> cases =
      Joined(Joined(Joined(Joined(NullCases(), SessionInputsNullCases()), BindingNullCases()),
                    CustomOpNullCases()),
             GraphNullCases());
  EXPECT_EQ(Entries(cases), AllSlotNames(/*status_returning_only=*/true));
  RunCases(cases, "is NULL");
}

// Entries whose arguments include no handle.
std::set<std::string> NoHandleArgument() {
  std::set<std::string> names = {"CreateEnv",
                                 "CreateEnvWithCustomLogger",
                                 "CreateCpuMemoryInfo",
                                 "GetAllocatorWithDefaultOptions",
                                 "CreateSessionOptions",
                                 "CreateRunOptions"};
  const std::set<std::string> graph = GraphNoHandleArgument();
  names.insert(graph.begin(), graph.end());
  return names;
}

TEST(Contract, EveryHandleArgumentRejectsAHandleOfAnotherType) {
  const std::vector<Case> cases =
      Joined(Joined(Joined(Joined(HandleCases(false), SessionInputsHandleCases(false)),
                           BindingHandleCases(false)),
                    CustomOpHandleCases(false)),
             GraphHandleCases(false));
  std::set<std::string> expected = AllSlotNames(true);
  for (const std::string& n : NoHandleArgument()) expected.erase(n);
  EXPECT_EQ(Entries(cases), expected);
  RunCases(cases, "is a Kiln");
}

TEST(Contract, EveryHandleArgumentRejectsAReleasedHandle) {
  const std::vector<Case> cases =
      Joined(Joined(Joined(Joined(HandleCases(true), SessionInputsHandleCases(true)),
                           BindingHandleCases(true)),
                    CustomOpHandleCases(true)),
             GraphHandleCases(true));
  std::set<std::string> expected = AllSlotNames(true);
  for (const std::string& n : NoHandleArgument()) expected.erase(n);
  for (const char* n :
       {"AllocatorAlloc", "AllocatorFree", "AllocatorGetInfo", "CreateTensorAsValue"}) {
    expected.erase(n);  // their handle is a caller's KilnAllocator
  }
  EXPECT_EQ(Entries(cases), expected);
  RunCases(cases, "is not a live");
}

TEST(Contract, EveryReleaseAcceptsNullAndIgnoresForeignHandles) {
  api().ReleaseStatus(nullptr);
  api().ReleaseEnv(nullptr);
  api().ReleaseMemoryInfo(nullptr);
  api().ReleaseTensorTypeAndShapeInfo(nullptr);
  api().ReleaseValue(nullptr);
  api().ReleaseSessionOptions(nullptr);
  api().ReleaseSession(nullptr);
  api().ReleaseRunOptions(nullptr);
  api().ReleaseIoBinding(nullptr);
  Objects b;
  // Each of these is logged as ignored (env_test.cc checks the message); b.env, the first live
  // Env, drops anything below FATAL, so nothing is printed here.
  api().ReleaseStatus(reinterpret_cast<KilnStatus*>(b.value));
  api().ReleaseEnv(reinterpret_cast<KilnEnv*>(b.value));
  api().ReleaseMemoryInfo(reinterpret_cast<KilnMemoryInfo*>(b.value));
  api().ReleaseTensorTypeAndShapeInfo(reinterpret_cast<KilnTensorTypeAndShapeInfo*>(b.value));
  api().ReleaseValue(reinterpret_cast<KilnValue*>(b.env));
  api().ReleaseSessionOptions(reinterpret_cast<KilnSessionOptions*>(b.session));
  api().ReleaseSession(reinterpret_cast<KilnSession*>(b.run_options));
  api().ReleaseRunOptions(reinterpret_cast<KilnRunOptions*>(b.session_options));
  api().ReleaseIoBinding(reinterpret_cast<KilnIoBinding*>(b.session));
  api().ReleaseEnv(b.stale_env);
  api().ReleaseMemoryInfo(b.stale_info);
  api().ReleaseTensorTypeAndShapeInfo(b.stale_shape);
  api().ReleaseValue(b.stale_value);
  api().ReleaseSessionOptions(b.stale_session_options);
  api().ReleaseSession(b.stale_session);
  api().ReleaseRunOptions(b.stale_run_options);
  api().ReleaseIoBinding(b.stale_binding);
  // Everything is still alive and usable.
  int is_tensor = 0;
  ExpectOk(api().IsTensor(b.value, &is_tensor));
  EXPECT_EQ(is_tensor, 1);
  const char* name = nullptr;
  ExpectOk(api().MemoryInfoGetName(b.info, &name));
  size_t rank = 0;
  ExpectOk(api().GetDimensionsCount(b.shape, &rank));
  EXPECT_EQ(rank, 2u);
  ExpectOk(api().SetIntraOpNumThreads(b.session_options, 1));
  ExpectOk(api().RunOptionsSetRunTag(b.run_options, "still alive"));
  ExpectOk(api().ClearBoundInputs(b.binding));
  const char* in[] = {"x"};
  const char* out[] = {"y"};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, &y));
  EXPECT_NE(y, nullptr);
  api().ReleaseValue(y);
}

}  // namespace
}  // namespace kiln_test
