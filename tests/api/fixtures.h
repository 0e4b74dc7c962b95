// Objects of every kind, live and released, and sentinel-filled out-parameters: the common
// ground of the table-driven contract and failure-injection tests.
#ifndef KILN_TESTS_API_FIXTURES_H_
#define KILN_TESTS_API_FIXTURES_H_

#include <string>

#include "api_test_util.h"
#include "graph_fixtures.h"
#include "test_models.h"

namespace kiln_test {

// Live objects of every kind, plus released ("stale") ones, for the cases to use.
struct Objects {
  KilnEnv* env = nullptr;
  KilnMemoryInfo* info = nullptr;
  KilnAllocator* allocator = nullptr;
  KilnValue* value = nullptr;
  KilnValue* strings = nullptr;
  KilnValue* seq = nullptr;  // seq(tensor(float)) of two copies of `value`
  KilnValue* opt = nullptr;  // optional(tensor(float)) holding a copy of `value`
  KilnTensorTypeAndShapeInfo* shape = nullptr;
  KilnSessionOptions* session_options = nullptr;  // one intra-op thread, profiling on
  KilnSession* session = nullptr;                 // models::Identity(), from session_options
  KilnSession* two_outputs = nullptr;             // models::TwoOutputs(), from session_options
  KilnSession* initializers = nullptr;            // models::Initializers(), from session_options
  KilnRunOptions* run_options = nullptr;
  KilnValue* x = nullptr;     // float [3, 2]: an input for `session` (and a for `two_outputs`)
  KilnValue* b_in = nullptr;  // int64 [3]: input b of `two_outputs`
  KilnValue* y = nullptr;     // float [3, 2]: a caller's output tensor for `session`
  KilnIoBinding* binding = nullptr;  // for `session`, nothing bound
  GraphObjects g;  // the graph API's (graph_fixtures.h); its view is of `initializers`
  KilnEnv* stale_env = nullptr;
  KilnMemoryInfo* stale_info = nullptr;
  KilnValue* stale_value = nullptr;
  KilnTensorTypeAndShapeInfo* stale_shape = nullptr;
  KilnSessionOptions* stale_session_options = nullptr;
  KilnSession* stale_session = nullptr;
  KilnRunOptions* stale_run_options = nullptr;
  KilnIoBinding* stale_binding = nullptr;
  void* block = nullptr;  // from `allocator`
  float data[6] = {};
  int64_t dims[2] = {2, 3};
  int64_t x_dims[2] = {3, 2};
  int64_t b_dims[1] = {3};
  const std::string model = models::Identity();
  const std::string& model_path = models::IdentityModelPath();
  const std::string profile_prefix = models::ScratchDir().path() + "/profile";
  // Long enough to need the heap.
  const std::string optimized_model_path =
      models::ScratchDir().path() + "/optimized_model_written_by_the_session.onnx";

  Objects() {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "contract", &env));
    ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &info));
    ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
    ExpectOk(api().CreateTensorAsValue(allocator, dims, 2, KILN_ELEMENT_TYPE_FLOAT, &value));
    ExpectOk(api().CreateTensorAsValue(allocator, dims, 2, KILN_ELEMENT_TYPE_STRING, &strings));
    ExpectOk(api().GetTensorTypeAndShape(value, &shape));
    const KilnValue* pair[] = {value, value};
    ExpectOk(api().CreateSequenceValue(pair, 2, KILN_ELEMENT_TYPE_FLOAT, &seq));
    ExpectOk(
        api().CreateOptionalValue(value, KILN_VALUE_TYPE_TENSOR, KILN_ELEMENT_TYPE_FLOAT, &opt));
    ExpectOk(api().AllocatorAlloc(allocator, 32, &block));
    ExpectOk(api().CreateSessionOptions(&session_options));
    ExpectOk(api().SetIntraOpNumThreads(session_options, 1));
    ExpectOk(api().EnableProfiling(session_options, profile_prefix.c_str()));
    ExpectOk(
        api().CreateSessionFromArray(env, model.data(), model.size(), session_options, &session));
    const std::string two = models::TwoOutputs();
    ExpectOk(
        api().CreateSessionFromArray(env, two.data(), two.size(), session_options, &two_outputs));
    const std::string inits = models::Initializers();
    ExpectOk(api().CreateSessionFromArray(env, inits.data(), inits.size(), session_options,
                                          &initializers));
    ExpectOk(api().CreateRunOptions(&run_options));
    ExpectOk(api().CreateTensorAsValue(allocator, x_dims, 2, KILN_ELEMENT_TYPE_FLOAT, &x));
    ExpectOk(api().CreateTensorAsValue(allocator, b_dims, 1, KILN_ELEMENT_TYPE_INT64, &b_in));
    ExpectOk(api().CreateTensorAsValue(allocator, x_dims, 2, KILN_ELEMENT_TYPE_FLOAT, &y));
    ExpectOk(api().CreateIoBinding(session, &binding));
    g.Make(value, initializers);  // its stale handles too, released below
    // Released last, so no live object above can reuse their addresses.
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "stale", &stale_env));
    ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &stale_info));
    ExpectOk(api().CreateTensorAsValue(allocator, dims, 2, KILN_ELEMENT_TYPE_FLOAT, &stale_value));
    ExpectOk(api().GetTensorTypeAndShape(value, &stale_shape));
    ExpectOk(api().CloneSessionOptions(session_options, &stale_session_options));
    ExpectOk(api().CreateSessionFromArray(env, model.data(), model.size(), session_options,
                                          &stale_session));
    ExpectOk(api().CreateRunOptions(&stale_run_options));
    ExpectOk(api().CreateIoBinding(session, &stale_binding));
    api().ReleaseEnv(stale_env);
    api().ReleaseMemoryInfo(stale_info);
    api().ReleaseValue(stale_value);
    api().ReleaseTensorTypeAndShapeInfo(stale_shape);
    api().ReleaseSessionOptions(stale_session_options);
    api().ReleaseSession(stale_session);
    api().ReleaseRunOptions(stale_run_options);
    api().ReleaseIoBinding(stale_binding);
    g.ReleaseStale();
  }
  ~Objects() {
    g.Release();
    api().ReleaseIoBinding(binding);
    api().ReleaseValue(y);
    api().ReleaseValue(b_in);
    api().ReleaseValue(x);
    api().ReleaseRunOptions(run_options);
    api().ReleaseSession(initializers);
    api().ReleaseSession(two_outputs);
    api().ReleaseSession(session);
    api().ReleaseSessionOptions(session_options);
    ExpectOk(api().AllocatorFree(allocator, block));
    api().ReleaseTensorTypeAndShapeInfo(shape);
    api().ReleaseValue(opt);
    api().ReleaseValue(seq);
    api().ReleaseValue(strings);
    api().ReleaseValue(value);
    api().ReleaseMemoryInfo(info);
    api().ReleaseEnv(env);
  }
};

// Out-parameters of every type, pre-filled with sentinels.
struct Outs {
  KilnEnv* env = Sentinel<KilnEnv>();
  KilnMemoryInfo* info = Sentinel<KilnMemoryInfo>();
  const KilnMemoryInfo* const_info = Sentinel<const KilnMemoryInfo>();
  const char* text = Sentinel<const char>();
  int i = 0x5e5e;
  // Enum sentinels are valid values (loading any other is undefined) that the calls below would
  // never produce for the fixture objects.
  KilnMemType mem_type = KILN_MEM_TYPE_CPU_INPUT;
  KilnAllocatorType allocator_type = KILN_ARENA_ALLOCATOR;
  KilnAllocator* allocator = Sentinel<KilnAllocator>();
  void* pointer = Sentinel<void>();
  KilnValue* value = Sentinel<KilnValue>();
  KilnValueType value_type = KILN_VALUE_TYPE_MAP;
  size_t size = kSizeSentinel;
  KilnTensorTypeAndShapeInfo* shape = Sentinel<KilnTensorTypeAndShapeInfo>();
  KilnElementType element_type = KILN_ELEMENT_TYPE_INT2;
  int64_t dims[2] = {-5, -5};
  const char* names[2] = {Sentinel<const char>(), Sentinel<const char>()};
  char bytes[4] = {'#', '#', '#', '#'};
  size_t offsets[6] = {kSizeSentinel, kSizeSentinel, kSizeSentinel,
                       kSizeSentinel, kSizeSentinel, kSizeSentinel};
  KilnSessionOptions* session_options = Sentinel<KilnSessionOptions>();
  KilnSession* session = Sentinel<KilnSession>();
  KilnRunOptions* run_options = Sentinel<KilnRunOptions>();
  char* string = Sentinel<char>();
  char** strings = Sentinel<char*>();
  int64_t version = int64_t{0x5e5e5e5e};
  uint64_t u64 = uint64_t{0x5e5e5e5e};
  KilnValue* outputs[2] = {nullptr, nullptr};  // Run's slots: empty ones must stay empty
  KilnIoBinding* binding = Sentinel<KilnIoBinding>();
  KilnValue** values = Sentinel<KilnValue*>();
  // The custom-op entries' (kiln/kiln_custom_op.h).
  float f = 24158.0f;
  const int64_t* ints = Sentinel<const int64_t>();
  const float* floats = Sentinel<const float>();
  const char* const* string_list = Sentinel<const char* const>();
  const KilnValue* const_value = Sentinel<const KilnValue>();
  const KilnKernelInfo* kernel_info = Sentinel<const KilnKernelInfo>();
  GraphOuts g;  // the graph API's (graph_fixtures.h)

  bool Untouched() const {
    const Outs fresh;
    return env == fresh.env && info == fresh.info && const_info == fresh.const_info &&
           text == fresh.text && i == fresh.i && mem_type == fresh.mem_type &&
           allocator_type == fresh.allocator_type && allocator == fresh.allocator &&
           pointer == fresh.pointer && value == fresh.value && value_type == fresh.value_type &&
           size == fresh.size && shape == fresh.shape && element_type == fresh.element_type &&
           dims[0] == -5 && dims[1] == -5 && names[0] == fresh.names[0] &&
           names[1] == fresh.names[1] && std::string(bytes, 4) == "####" &&
           offsets[0] == kSizeSentinel && offsets[5] == kSizeSentinel &&
           session_options == fresh.session_options && session == fresh.session &&
           run_options == fresh.run_options && string == fresh.string && strings == fresh.strings &&
           version == fresh.version && u64 == fresh.u64 && outputs[0] == nullptr &&
           outputs[1] == nullptr && binding == fresh.binding && values == fresh.values &&
           f == fresh.f && ints == fresh.ints && floats == fresh.floats &&
           string_list == fresh.string_list && const_value == fresh.const_value &&
           kernel_info == fresh.kernel_info && g.Untouched();
  }
};

}  // namespace kiln_test

#endif  // KILN_TESTS_API_FIXTURES_H_
