/**
 * @file
 * Kiln C++ wrapper: sessions. kiln::SessionOptions configure a kiln::Session, which loads a
 * model once and runs it any number of times, from any number of threads; kiln::RunOptions
 * configure single runs.
 *
 * @code
 *   #include <kiln/kiln_cxx_api.h>
 *
 *   kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "my-app");
 *   kiln::SessionOptions options = kiln::SessionOptions::Create();
 *   options.SetIntraOpNumThreads(1);
 *   kiln::Session session = kiln::Session::Create(env, "model.onnx", options);
 *   std::vector<float> pixels(64);
 *   kiln::MemoryInfo cpu =
 *       kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
 *   std::vector<kiln::Value> inputs;
 *   inputs.push_back(kiln::Value::CreateTensor(cpu, pixels.data(), pixels.size(), {1, 1, 8, 8}));
 *   std::vector<kiln::Value> outputs = session.Run({"image"}, inputs, {"logits"});
 *   const float* logits = outputs[0].data<float>();
 * @endcode
 */
#ifndef KILN_CXX_SESSION_H_
#define KILN_CXX_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kiln/cxx/core.h>
#include <kiln/cxx/env.h>
#include <kiln/cxx/io_binding.h>
#include <kiln/cxx/memory.h>
#include <kiln/cxx/value.h>

namespace kiln {

/**
 * Owned KilnSessionOptions: how a session is created. A plain value: each session copies it, so
 * changing options afterwards does not affect sessions already made. An empty object (holding
 * NULL) stands for the defaults wherever options are taken.
 */
class SessionOptions : public Handle<KilnSessionOptions> {
 public:
  /** Holds NULL: passed to Session::Create, it means the defaults. */
  SessionOptions() noexcept = default;

  /**
   * Takes ownership of session options.
   *
   * @param options  The options (may be NULL).
   */
  explicit SessionOptions(KilnSessionOptions* options) noexcept : Handle(options) {}

  /**
   * Creates options with the defaults: one intra-op thread per hardware thread, optimization
   * level KILN_GRAPH_OPTIMIZATION_ALL, log severity WARNING, no profiling
   * (KilnApi::CreateSessionOptions).
   *
   * @return The owned options.
   * @throws Exception  KILN_OUT_OF_MEMORY.
   */
  static SessionOptions Create() {
    KilnSessionOptions* options = nullptr;
    ThrowOnError(Api().CreateSessionOptions(&options));
    return SessionOptions(options);
  }

  /**
   * Copies these options (KilnApi::CloneSessionOptions).
   *
   * @return The owned copy.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  SessionOptions Clone() const {
    KilnSessionOptions* options = nullptr;
    ThrowOnError(Api().CloneSessionOptions(get(), &options));
    return SessionOptions(options);
  }

  /**
   * Sets how many threads (the calling thread included) a session uses inside each operator
   * (KilnApi::SetIntraOpNumThreads).
   *
   * @param threads  1 to 1024, or 0 for one per hardware thread.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (out of range, empty handle).
   */
  SessionOptions& SetIntraOpNumThreads(int threads) {
    ThrowOnError(Api().SetIntraOpNumThreads(get(), threads));
    return *this;
  }

  /**
   * Sets how many threads (the calling thread included) a session in the parallel execution mode
   * runs independent steps on (KilnApi::SetInterOpNumThreads).
   *
   * @param threads  1 to 1024, or 0 for one per hardware thread.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (out of range, empty handle).
   */
  SessionOptions& SetInterOpNumThreads(int threads) {
    ThrowOnError(Api().SetInterOpNumThreads(get(), threads));
    return *this;
  }

  /**
   * Runs the graph's steps in order, or independent ones at once on the inter-op threads
   * (KilnApi::SetSessionExecutionMode).
   *
   * @param mode  KILN_EXECUTION_MODE_SEQUENTIAL or KILN_EXECUTION_MODE_PARALLEL.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a KilnExecutionMode, empty handle).
   */
  SessionOptions& SetExecutionMode(KilnExecutionMode mode) {
    ThrowOnError(Api().SetSessionExecutionMode(get(), mode));
    return *this;
  }

  /**
   * Sets how much the session may rewrite the graph
   * (KilnApi::SetSessionGraphOptimizationLevel).
   *
   * @param level  A KilnGraphOptimizationLevel (0 to 3).
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (out of range, empty handle).
   */
  SessionOptions& SetGraphOptimizationLevel(KilnGraphOptimizationLevel level) {
    ThrowOnError(Api().SetSessionGraphOptimizationLevel(get(), level));
    return *this;
  }

  /**
   * Sets the least severity the session logs (KilnApi::SetSessionLogSeverityLevel).
   *
   * @param severity  A KilnLoggingLevel (0 to 4).
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (out of range, empty handle).
   */
  SessionOptions& SetLogSeverityLevel(KilnLoggingLevel severity) {
    ThrowOnError(Api().SetSessionLogSeverityLevel(get(), severity));
    return *this;
  }

  /**
   * Sets the id the session's log messages carry (KilnApi::SetSessionLogId).
   *
   * @param log_id  UTF-8 without NUL bytes, copied.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (invalid UTF-8, a NUL byte, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  SessionOptions& SetLogId(const std::string& log_id) {
    detail::CheckNoNul(log_id, "kiln::SessionOptions::SetLogId", "argument 'log_id'");
    ThrowOnError(Api().SetSessionLogId(get(), log_id.c_str()));
    return *this;
  }

  /**
   * Turns profiling on: Session::EndProfiling then writes a Chrome trace-event JSON file named
   * "<prefix>_<time>_<n>.json" (KilnApi::EnableProfiling).
   *
   * @param prefix  A non-empty UTF-8 path prefix without NUL bytes, copied.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (empty prefix, a NUL byte, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  SessionOptions& EnableProfiling(const std::string& prefix) {
    detail::CheckNoNul(prefix, "kiln::SessionOptions::EnableProfiling", "argument 'prefix'");
    ThrowOnError(Api().EnableProfiling(get(), prefix.c_str()));
    return *this;
  }

  /**
   * Turns profiling off, the default (KilnApi::DisableProfiling).
   *
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  SessionOptions& DisableProfiling() {
    ThrowOnError(Api().DisableProfiling(get()));
    return *this;
  }

  /**
   * Makes sessions made with these options write their graph, as optimized, to an ONNX file when
   * they are created; "" turns it off (KilnApi::SetOptimizedModelFilePath, which says what is
   * written).
   *
   * @param path  A UTF-8 path without NUL bytes, copied.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (a NUL byte, not UTF-8, empty handle),
   *                    KILN_OUT_OF_MEMORY. Session::Create throws KILN_NO_SUCHFILE naming the
   *                    path when the file cannot be written.
   */
  SessionOptions& SetOptimizedModelFilePath(const std::string& path) {
    detail::CheckNoNul(path, "kiln::SessionOptions::SetOptimizedModelFilePath", "argument 'path'");
    ThrowOnError(Api().SetOptimizedModelFilePath(get(), path.c_str()));
    return *this;
  }

  /**
   * Fixes a named free dimension (an ONNX dim_param such as "batch") of the model's inputs
   * (KilnApi::AddFreeDimensionOverrideByName).
   *
   * @param name   The dimension's name: non-empty UTF-8 without NUL bytes.
   * @param value  Its value, >= 0.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  SessionOptions& AddFreeDimensionOverrideByName(const std::string& name, int64_t value) {
    detail::CheckNoNul(name, "kiln::SessionOptions::AddFreeDimensionOverrideByName",
                       "argument 'name'");
    ThrowOnError(Api().AddFreeDimensionOverrideByName(get(), name.c_str(), value));
    return *this;
  }

  /**
   * Opens a custom-op library and registers its ops for the sessions made from these options
   * (KilnApi::SessionOptionsRegisterCustomOpsLibrary: a path without a slash is searched for as
   * dlopen searches; one with a slash is used as it is).
   *
   * @param path  The library's path, UTF-8, without NUL bytes.
   * @return This object.
   * @throws Exception  KILN_NO_SUCHFILE (cannot be opened), KILN_FAIL (no entry, or its entry
   *                    failed), KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY; the options are then
   *                    as they were.
   */
  SessionOptions& RegisterCustomOpsLibrary(const std::string& path) {
    detail::CheckNoNul(path, "kiln::SessionOptions::RegisterCustomOpsLibrary", "argument 'path'");
    ThrowOnError(Api().SessionOptionsRegisterCustomOpsLibrary(get(), path.c_str()));
    return *this;
  }

  /**
   * Registers custom ops linked into the program (KilnApi::SessionOptionsRegisterCustomOps).
   *
   * @param register_ops  The registration function, called once, here.
   * @return This object.
   * @throws Exception  as RegisterCustomOpsLibrary.
   */
  SessionOptions& RegisterCustomOps(KilnRegisterCustomOpsFn register_ops) {
    ThrowOnError(Api().SessionOptionsRegisterCustomOps(get(), register_ops));
    return *this;
  }

  /**
   * Sets a configuration entry; the keys are listed at KilnApi::AddSessionConfigEntry.
   *
   * @param key    A known key, without NUL bytes.
   * @param value  A value the key accepts, without NUL bytes.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT naming the key or value, KILN_OUT_OF_MEMORY.
   */
  SessionOptions& AddConfigEntry(const std::string& key, const std::string& value) {
    detail::CheckNoNul(key, "kiln::SessionOptions::AddConfigEntry", "argument 'key'");
    detail::CheckNoNul(value, "kiln::SessionOptions::AddConfigEntry", "argument 'value'");
    ThrowOnError(Api().AddSessionConfigEntry(get(), key.c_str(), value.c_str()));
    return *this;
  }

  /**
   * The value of a configuration entry set with AddConfigEntry
   * (KilnApi::SessionOptionsGetConfigEntry).
   *
   * @param key  A known key, without NUL bytes.
   * @return A copy of the value; std::nullopt when the key is not set.
   * @throws Exception  KILN_INVALID_ARGUMENT (an unknown key, empty handle), KILN_OUT_OF_MEMORY.
   */
  std::optional<std::string> GetConfigEntry(const std::string& key) const {
    detail::CheckNoNul(key, "kiln::SessionOptions::GetConfigEntry", "argument 'key'");
    return detail::OptionalString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionOptionsGetConfigEntry(get(), key.c_str(), allocator, out);
    });
  }

  /**
   * Makes sessions created with these options use @p value's tensor, its memory shared and not
   * copied, in place of the model's initializer @p name (KilnApi::SessionOptionsAddInitializer).
   * The options and the sessions keep the tensor alive; a buffer it wraps must stay alive and
   * unchanged as long as they live. Session::Create checks the name, element type and shape.
   *
   * @param name   The initializer's name: non-empty UTF-8 without NUL bytes.
   * @param value  A tensor.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a tensor, empty name or handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  SessionOptions& AddInitializer(const std::string& name, const Value& value) {
    detail::CheckNoNul(name, "kiln::SessionOptions::AddInitializer", "argument 'name'");
    ThrowOnError(Api().SessionOptionsAddInitializer(get(), name.c_str(), value.get()));
    return *this;
  }

  /**
   * Fixes every input dimension carrying an ONNX dimension denotation such as "DATA_BATCH"
   * (compared without regard to case) to a value (KilnApi::AddFreeDimensionOverride).
   *
   * @param dim_denotation  The denotation: non-empty UTF-8 without NUL bytes.
   * @param value           Its value, >= 0.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  SessionOptions& AddFreeDimensionOverride(const std::string& dim_denotation, int64_t value) {
    detail::CheckNoNul(dim_denotation, "kiln::SessionOptions::AddFreeDimensionOverride",
                       "argument 'dim_denotation'");
    ThrowOnError(Api().AddFreeDimensionOverride(get(), dim_denotation.c_str(), value));
    return *this;
  }
};

/**
 * Owned KilnRunOptions: a tag, a log severity and a terminate flag for one or more runs. An
 * empty object (holding NULL) stands for the defaults in Session::Run.
 */
class RunOptions : public Handle<KilnRunOptions> {
 public:
  /** Holds NULL: passed to Session::Run, it means the defaults. */
  RunOptions() noexcept = default;

  /**
   * Takes ownership of run options.
   *
   * @param options  The options (may be NULL).
   */
  explicit RunOptions(KilnRunOptions* options) noexcept : Handle(options) {}

  /**
   * Creates run options: no tag, log severity WARNING, not terminated
   * (KilnApi::CreateRunOptions).
   *
   * @return The owned options.
   * @throws Exception  KILN_OUT_OF_MEMORY.
   */
  static RunOptions Create() {
    KilnRunOptions* options = nullptr;
    ThrowOnError(Api().CreateRunOptions(&options));
    return RunOptions(options);
  }

  /**
   * Sets the tag a run's log messages carry (KilnApi::RunOptionsSetRunTag).
   *
   * @param tag  UTF-8 without NUL bytes, copied.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  RunOptions& SetRunTag(const std::string& tag) {
    detail::CheckNoNul(tag, "kiln::RunOptions::SetRunTag", "argument 'tag'");
    ThrowOnError(Api().RunOptionsSetRunTag(get(), tag.c_str()));
    return *this;
  }

  /**
   * Sets the least severity a run logs (KilnApi::RunOptionsSetRunLogSeverityLevel).
   *
   * @param severity  A KilnLoggingLevel (0 to 4).
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT.
   */
  RunOptions& SetRunLogSeverityLevel(KilnLoggingLevel severity) {
    ThrowOnError(Api().RunOptionsSetRunLogSeverityLevel(get(), severity));
    return *this;
  }

  /**
   * Asks every run using these options to stop: a run in progress stops before its next node
   * and throws KILN_TERMINATED; a new run throws it at once. Safe to call from any thread while
   * runs are in progress (KilnApi::RunOptionsSetTerminate).
   *
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  RunOptions& SetTerminate() {
    ThrowOnError(Api().RunOptionsSetTerminate(get()));
    return *this;
  }

  /**
   * Clears the terminate request (KilnApi::RunOptionsUnsetTerminate).
   *
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  RunOptions& UnsetTerminate() {
    ThrowOnError(Api().RunOptionsUnsetTerminate(get()));
    return *this;
  }

  /**
   * Sets a configuration entry for the runs using these options; the keys are listed at
   * KilnApi::RunOptionsAddConfigEntry.
   *
   * @param key    A known key, without NUL bytes.
   * @param value  A value the key accepts, without NUL bytes.
   * @return This object.
   * @throws Exception  KILN_INVALID_ARGUMENT naming the key or value, KILN_OUT_OF_MEMORY.
   */
  RunOptions& AddConfigEntry(const std::string& key, const std::string& value) {
    detail::CheckNoNul(key, "kiln::RunOptions::AddConfigEntry", "argument 'key'");
    detail::CheckNoNul(value, "kiln::RunOptions::AddConfigEntry", "argument 'value'");
    ThrowOnError(Api().RunOptionsAddConfigEntry(get(), key.c_str(), value.c_str()));
    return *this;
  }

  /**
   * The value of a configuration entry set with AddConfigEntry
   * (KilnApi::RunOptionsGetConfigEntry).
   *
   * @param key  A known key, without NUL bytes.
   * @return A copy of the value; std::nullopt when the key is not set.
   * @throws Exception  KILN_INVALID_ARGUMENT (an unknown key, empty handle), KILN_OUT_OF_MEMORY.
   */
  std::optional<std::string> GetConfigEntry(const std::string& key) const {
    detail::CheckNoNul(key, "kiln::RunOptions::GetConfigEntry", "argument 'key'");
    return detail::OptionalString([&](KilnAllocator* allocator, char** out) {
      return Api().RunOptionsGetConfigEntry(get(), key.c_str(), allocator, out);
    });
  }
};

/**
 * An owned KilnSession: a loaded model, ready to run from any number of threads at once. Values
 * it returns stay valid after it is destroyed.
 */
class Session : public Handle<KilnSession> {
 public:
  /** Holds NULL. */
  Session() noexcept = default;

  /**
   * Takes ownership of a session.
   *
   * @param session  The session (may be NULL).
   */
  explicit Session(KilnSession* session) noexcept : Handle(session) {}

  /**
   * Loads a model file and prepares it to run (KilnApi::CreateSession).
   *
   * @param env      The environment whose logger the session uses; it may be destroyed first.
   * @param path     UTF-8 path of an .onnx file, without NUL bytes.
   * @param options  Options; an empty SessionOptions means the defaults.
   * @return The owned session.
   * @throws Exception  KILN_NO_SUCHFILE, KILN_INVALID_PROTOBUF, KILN_INVALID_GRAPH,
   *                    KILN_NOT_IMPLEMENTED (an op Kiln does not run, named),
   * KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  static Session Create(const Env& env, const std::string& path,
                        const SessionOptions& options = SessionOptions()) {
    detail::CheckNoNul(path, "kiln::Session::Create", "argument 'path'");
    KilnSession* session = nullptr;
    ThrowOnError(Api().CreateSession(env.get(), path.c_str(), options.get(), &session));
    return Session(session);
  }

  /**
   * Loads a serialized model from memory (KilnApi::CreateSessionFromArray). The bytes are copied
   * as needed: they may be freed once this returns. Such a model cannot use external data.
   *
   * @param env      The environment whose logger the session uses.
   * @param data     The ModelProto bytes.
   * @param size     Their count (at most 2 GiB).
   * @param options  Options; an empty SessionOptions means the defaults.
   * @return The owned session.
   * @throws Exception  As for Create.
   */
  static Session CreateFromBytes(const Env& env, const void* data, size_t size,
                                 const SessionOptions& options = SessionOptions()) {
    KilnSession* session = nullptr;
    ThrowOnError(Api().CreateSessionFromArray(env.get(), data, size, options.get(), &session));
    return Session(session);
  }

  /**
   * How many inputs the model takes, initializers excluded (KilnApi::SessionGetInputCount).
   *
   * @return The count.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  size_t input_count() const {
    size_t count = 0;
    ThrowOnError(Api().SessionGetInputCount(get(), &count));
    return count;
  }

  /**
   * How many outputs the model gives (KilnApi::SessionGetOutputCount).
   *
   * @return The count.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  size_t output_count() const {
    size_t count = 0;
    ThrowOnError(Api().SessionGetOutputCount(get(), &count));
    return count;
  }

  /**
   * The name of an input (KilnApi::SessionGetInputName).
   *
   * @param index  0 to input_count() - 1.
   * @return A copy of the UTF-8 name.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  std::string input_name(size_t index) const {
    return detail::AllocatedString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionGetInputName(get(), index, allocator, out);
    });
  }

  /**
   * The name of an output (KilnApi::SessionGetOutputName).
   *
   * @param index  0 to output_count() - 1.
   * @return A copy of the UTF-8 name.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  std::string output_name(size_t index) const {
    return detail::AllocatedString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionGetOutputName(get(), index, allocator, out);
    });
  }

  /**
   * The names of every input, in the model's order.
   *
   * @return One UTF-8 name per input.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> input_names() const {
    std::vector<std::string> names(input_count());
    for (size_t i = 0; i < names.size(); ++i) names[i] = input_name(i);
    return names;
  }

  /**
   * The names of every output, in the model's order.
   *
   * @return One UTF-8 name per output.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> output_names() const {
    std::vector<std::string> names(output_count());
    for (size_t i = 0; i < names.size(); ++i) names[i] = output_name(i);
    return names;
  }

  /**
   * What kind of value an input is (KilnApi::SessionGetInputValueType).
   *
   * @param index  0 to input_count() - 1.
   * @return The kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle).
   */
  KilnValueType input_value_type(size_t index) const {
    KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
    ThrowOnError(Api().SessionGetInputValueType(get(), index, &type));
    return type;
  }

  /**
   * What kind of value an output is (KilnApi::SessionGetOutputValueType).
   *
   * @param index  0 to output_count() - 1.
   * @return The kind; KILN_VALUE_TYPE_UNKNOWN when the model leaves it out.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle).
   */
  KilnValueType output_value_type(size_t index) const {
    KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
    ThrowOnError(Api().SessionGetOutputValueType(get(), index, &type));
    return type;
  }

  /**
   * The element type and shape of an input tensor, or of the tensors in a sequence or optional
   * input (KilnApi::CreateSessionInputTensorInfo). Unknown dimensions are -1 with their symbolic
   * names in TensorTypeAndShapeInfo::symbolic_shape; an unknown rank gives no dimensions.
   *
   * @param index  0 to input_count() - 1.
   * @return An owned snapshot.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  TensorTypeAndShapeInfo input_tensor_info(size_t index) const {
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ThrowOnError(Api().CreateSessionInputTensorInfo(get(), index, &info));
    return TensorTypeAndShapeInfo(info);
  }

  /**
   * The element type and shape of an output tensor, as for input_tensor_info
   * (KilnApi::CreateSessionOutputTensorInfo).
   *
   * @param index  0 to output_count() - 1.
   * @return An owned snapshot.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  TensorTypeAndShapeInfo output_tensor_info(size_t index) const {
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ThrowOnError(Api().CreateSessionOutputTensorInfo(get(), index, &info));
    return TensorTypeAndShapeInfo(info);
  }

  /**
   * One string of the model's metadata (KilnApi::SessionGetModelMetadataString).
   *
   * @param field  Which string: producer name, graph name, description, ...
   * @return A copy of the UTF-8 string; "" when the model leaves it out.
   * @throws Exception  KILN_INVALID_ARGUMENT (unknown field, empty handle), KILN_OUT_OF_MEMORY.
   */
  std::string metadata_string(KilnModelMetadataField field) const {
    return detail::AllocatedString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionGetModelMetadataString(get(), field, allocator, out);
    });
  }

  /**
   * The model's version (KilnApi::SessionGetModelVersion).
   *
   * @return ModelProto.model_version; 0 when absent.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  int64_t model_version() const {
    int64_t version = 0;
    ThrowOnError(Api().SessionGetModelVersion(get(), &version));
    return version;
  }

  /**
   * The keys of the model's custom metadata, ModelProto.metadata_props
   * (KilnApi::SessionGetCustomMetadataKeys).
   *
   * @return Copies of the UTF-8 keys, sorted.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> custom_metadata_keys() const {
    KilnAllocator* allocator = Allocator::Default().get();
    detail::AllocatedStrings keys(allocator);
    ThrowOnError(Api().SessionGetCustomMetadataKeys(get(), allocator, keys.out(), keys.count()));
    return keys.Copy();
  }

  /**
   * The value of a custom metadata key (KilnApi::SessionLookupCustomMetadata).
   *
   * @param key  The key: UTF-8 without NUL bytes.
   * @return A copy of the value; std::nullopt when the model has no such key.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  std::optional<std::string> custom_metadata(const std::string& key) const {
    detail::CheckNoNul(key, "kiln::Session::custom_metadata", "argument 'key'");
    KilnAllocator* allocator = Allocator::Default().get();
    detail::AllocatedMemory value(allocator);
    ThrowOnError(Api().SessionLookupCustomMetadata(get(), allocator, key.c_str(),
                                                   reinterpret_cast<char**>(value.out())));
    if (value.get() == nullptr) return std::nullopt;
    return std::string(static_cast<const char*>(value.get()));
  }

  /**
   * How many overridable initializers the model has: initializers it also lists as inputs,
   * which Run takes by name like inputs and otherwise gives the model's value
   * (KilnApi::SessionGetOverridableInitializerCount).
   *
   * @return The count.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  size_t overridable_initializer_count() const {
    size_t count = 0;
    ThrowOnError(Api().SessionGetOverridableInitializerCount(get(), &count));
    return count;
  }

  /**
   * The name of an overridable initializer (KilnApi::SessionGetOverridableInitializerName).
   *
   * @param index  0 to overridable_initializer_count() - 1.
   * @return A copy of the UTF-8 name.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  std::string overridable_initializer_name(size_t index) const {
    return detail::AllocatedString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionGetOverridableInitializerName(get(), index, allocator, out);
    });
  }

  /**
   * The names of every overridable initializer, in the model's order.
   *
   * @return One UTF-8 name per overridable initializer.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> overridable_initializer_names() const {
    std::vector<std::string> names(overridable_initializer_count());
    for (size_t i = 0; i < names.size(); ++i) names[i] = overridable_initializer_name(i);
    return names;
  }

  /**
   * The element type and shape of an overridable initializer, as for input_tensor_info
   * (KilnApi::CreateSessionOverridableInitializerTensorInfo).
   *
   * @param index  0 to overridable_initializer_count() - 1.
   * @return An owned snapshot.
   * @throws Exception  KILN_INVALID_ARGUMENT (index out of range, empty handle),
   *                    KILN_OUT_OF_MEMORY.
   */
  TensorTypeAndShapeInfo overridable_initializer_tensor_info(size_t index) const {
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ThrowOnError(Api().CreateSessionOverridableInitializerTensorInfo(get(), index, &info));
    return TensorTypeAndShapeInfo(info);
  }

  /**
   * When the session's profiler started: nanoseconds since the Unix epoch, system clock
   * (KilnApi::SessionGetProfilingStartTimeNs).
   *
   * @return The time; 0 when the session was created without profiling.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  uint64_t profiling_start_time_ns() const {
    uint64_t ns = 0;
    ThrowOnError(Api().SessionGetProfilingStartTimeNs(get(), &ns));
    return ns;
  }

  /**
   * Writes the profile recorded so far (KilnApi::SessionEndProfiling).
   *
   * @return The path of the Chrome trace-event JSON file written.
   * @throws Exception  KILN_INVALID_ARGUMENT when profiling is off, KILN_FAIL when the file
   *                    cannot be written, KILN_OUT_OF_MEMORY.
   */
  std::string EndProfiling() {
    return detail::AllocatedString([&](KilnAllocator* allocator, char** out) {
      return Api().SessionEndProfiling(get(), allocator, out);
    });
  }

  /**
   * Runs the model (KilnApi::Run). Safe to call from many threads at once.
   *
   * @param run_options   Options; an empty RunOptions means the defaults.
   * @param input_names   One name per input value: every model input exactly once, and any
   *                      overridable initializers to feed.
   * @param inputs        The input tensors, in the order of @p input_names.
   * @param output_names  The outputs wanted (at least one), each a model output.
   * @return One new value per name in @p output_names, in that order.
   * @throws Exception  KILN_INVALID_ARGUMENT (the two input lists differ in length, a NUL byte in
   *                    a name, an unknown, missing or repeated name, a wrong element type or
   *                    shape), KILN_TERMINATED, KILN_NOT_IMPLEMENTED, KILN_ENGINE_ERROR or
   *                    KILN_RUNTIME_EXCEPTION naming the node that failed, KILN_OUT_OF_MEMORY.
   */
  std::vector<Value> Run(const RunOptions& run_options, const std::vector<std::string>& input_names,
                         const std::vector<Value>& inputs,
                         const std::vector<std::string>& output_names) const {
    if (input_names.size() != inputs.size()) {
      throw Exception(KILN_INVALID_ARGUMENT,
                      "kiln::Session::Run: " + std::to_string(input_names.size()) +
                          " input names but " + std::to_string(inputs.size()) + " input values");
    }
    std::vector<const char*> c_input_names;
    std::vector<const KilnValue*> c_inputs;
    c_input_names.reserve(inputs.size());
    c_inputs.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      detail::CheckNoNul(input_names[i], "kiln::Session::Run",
                         "entry " + std::to_string(i) + " of argument 'input_names'");
      c_input_names.push_back(input_names[i].c_str());
      c_inputs.push_back(inputs[i].get());
    }
    std::vector<const char*> c_output_names;
    c_output_names.reserve(output_names.size());
    for (size_t i = 0; i < output_names.size(); ++i) {
      detail::CheckNoNul(output_names[i], "kiln::Session::Run",
                         "entry " + std::to_string(i) + " of argument 'output_names'");
      c_output_names.push_back(output_names[i].c_str());
    }
    // Everything that can throw is done before the run, so its outputs cannot leak.
    std::vector<KilnValue*> c_outputs(output_names.size(), nullptr);
    std::vector<Value> outputs;
    outputs.reserve(output_names.size());
    ThrowOnError(Api().Run(get(), run_options.get(), c_input_names.data(), c_inputs.data(),
                           c_inputs.size(), c_output_names.data(), c_output_names.size(),
                           c_outputs.data()));
    for (KilnValue* v : c_outputs) outputs.emplace_back(v);
    return outputs;
  }

  /**
   * Runs the model with the default run options (KilnApi::Run).
   *
   * @param input_names   One name per input value: every model input exactly once, and any
   *                      overridable initializers to feed.
   * @param inputs        The input tensors, in the order of @p input_names.
   * @param output_names  The outputs wanted (at least one), each a model output.
   * @return One new value per name in @p output_names, in that order.
   * @throws Exception  As for the overload taking RunOptions.
   */
  std::vector<Value> Run(const std::vector<std::string>& input_names,
                         const std::vector<Value>& inputs,
                         const std::vector<std::string>& output_names) const {
    return Run(RunOptions(), input_names, inputs, output_names);
  }

  /**
   * Creates an IO binding for this session (KilnApi::CreateIoBinding).
   *
   * @return The owned binding; it keeps the session alive.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  IoBinding CreateIoBinding() const {
    KilnIoBinding* binding = nullptr;
    ThrowOnError(Api().CreateIoBinding(get(), &binding));
    return IoBinding(binding);
  }

  /**
   * Runs the model on a binding's inputs into its outputs (KilnApi::RunWithBinding); the outputs
   * are then read with IoBinding::output_values.
   *
   * @param run_options  Options; an empty RunOptions means the defaults.
   * @param binding      A binding created by this session, with every input and at least one
   *                     output bound.
   * @throws Exception  KILN_INVALID_ARGUMENT (a binding of another session, an input not bound, no
   *                    output bound, a bound value of the wrong type or shape), and the codes of
   *                    Run.
   */
  void Run(const RunOptions& run_options, const IoBinding& binding) const {
    ThrowOnError(Api().RunWithBinding(get(), run_options.get(), binding.get()));
  }

  /**
   * What RunAsync calls when its run has finished, on one of Kiln's threads: the outputs (one new
   * value per output name) and a success status, or no outputs and the error. It must not throw
   * (std::terminate is called if it does) and should return soon.
   */
  using RunAsyncCallback = std::function<void(std::vector<Value> outputs, Status status)>;

  /**
   * Starts a run on another thread and returns (KilnApi::RunAsync). The run shares the session,
   * the options and the inputs, so they may be destroyed as soon as this returns.
   *
   * @param run_options   Options; an empty RunOptions means the defaults. SetTerminate on them
   *                      stops the run (the callback then gets KILN_TERMINATED).
   * @param input_names   One name per input value, as for Run.
   * @param inputs        The input values, in the order of @p input_names.
   * @param output_names  The outputs wanted (at least one), as for Run.
   * @param callback      Called once with the outcome (see RunAsyncCallback).
   * @throws Exception  Only for what is checked before the run starts: KILN_INVALID_ARGUMENT
   *                    (the two input lists differ in length, a NUL byte in a name, no output
   *                    name, an empty callback or handle), KILN_OUT_OF_MEMORY, KILN_FAIL. The
   *                    run's own errors (unknown names, a wrong type or shape, a failing node)
   *                    reach the callback; then it is not called.
   */
  void RunAsync(const RunOptions& run_options, const std::vector<std::string>& input_names,
                const std::vector<Value>& inputs, const std::vector<std::string>& output_names,
                RunAsyncCallback callback) const {
    if (input_names.size() != inputs.size()) {
      throw Exception(KILN_INVALID_ARGUMENT,
                      "kiln::Session::RunAsync: " + std::to_string(input_names.size()) +
                          " input names but " + std::to_string(inputs.size()) + " input values");
    }
    if (!callback) {
      throw Exception(KILN_INVALID_ARGUMENT,
                      "kiln::Session::RunAsync: argument 'callback' is empty");
    }
    std::vector<const char*> c_input_names;
    std::vector<const KilnValue*> c_inputs;
    c_input_names.reserve(inputs.size());
    c_inputs.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      detail::CheckNoNul(input_names[i], "kiln::Session::RunAsync",
                         "entry " + std::to_string(i) + " of argument 'input_names'");
      c_input_names.push_back(input_names[i].c_str());
      c_inputs.push_back(inputs[i].get());
    }
    std::vector<const char*> c_output_names;
    c_output_names.reserve(output_names.size());
    for (size_t i = 0; i < output_names.size(); ++i) {
      detail::CheckNoNul(output_names[i], "kiln::Session::RunAsync",
                         "entry " + std::to_string(i) + " of argument 'output_names'");
      c_output_names.push_back(output_names[i].c_str());
    }
    // The run fills the state's slots; the trampoline takes the state back.
    auto state = std::make_unique<AsyncState>();
    state->callback = std::move(callback);
    state->outputs.assign(output_names.size(), nullptr);
    ThrowOnError(Api().RunAsync(get(), run_options.get(), c_input_names.data(), c_inputs.data(),
                                c_inputs.size(), c_output_names.data(), c_output_names.size(),
                                state->outputs.data(), &AsyncState::Done, state.get()));
    static_cast<void>(state.release());  // AsyncState::Done takes it back
  }

 private:
  // What a RunAsync call keeps until its callback: the user's function and the output slots.
  struct AsyncState {
    RunAsyncCallback callback;
    std::vector<KilnValue*> outputs;

    static void KILN_API_CALL Done(void* user_data, KilnValue** outputs, size_t count,
                                   KilnStatus* status) noexcept {
      const std::unique_ptr<AsyncState> state(static_cast<AsyncState*>(user_data));
      Status owned(status);
      std::vector<Value> values;
      if (owned.ok()) {
        try {
          values.reserve(count);
        } catch (...) {
          for (size_t i = 0; i < count; ++i) Api().ReleaseValue(outputs[i]);
          owned = Status(KILN_OUT_OF_MEMORY, "kiln::Session::RunAsync: out of memory");
        }
        if (owned.ok()) {
          for (size_t i = 0; i < count; ++i) values.emplace_back(outputs[i]);
        }
      }
      state->callback(std::move(values), std::move(owned));
    }
  };
};

}  // namespace kiln

#endif  // KILN_CXX_SESSION_H_
