// Sessions through the C ABI (slots 39-72): loading, model information and metadata, Run and its
// every error, session and run options, profiling. The contract is kiln_c_api.h's Doxygen; the
// models are built in test_models.cc and rely on the Identity kernel alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "counting_allocator.h"
#include "test_models.h"

namespace kiln_test {
namespace {

// ---- Owning wrappers ---------------------------------------------------------------------------

struct ReleaseEnvFn {
  void operator()(KilnEnv* p) const { api().ReleaseEnv(p); }
};
struct ReleaseSessionOptionsFn {
  void operator()(KilnSessionOptions* p) const { api().ReleaseSessionOptions(p); }
};
struct ReleaseSessionFn {
  void operator()(KilnSession* p) const { api().ReleaseSession(p); }
};
struct ReleaseRunOptionsFn {
  void operator()(KilnRunOptions* p) const { api().ReleaseRunOptions(p); }
};
struct ReleaseValueFn {
  void operator()(KilnValue* p) const { api().ReleaseValue(p); }
};
struct ReleaseInfoFn {
  void operator()(KilnTensorTypeAndShapeInfo* p) const { api().ReleaseTensorTypeAndShapeInfo(p); }
};
using EnvPtr = std::unique_ptr<KilnEnv, ReleaseEnvFn>;
using OptionsPtr = std::unique_ptr<KilnSessionOptions, ReleaseSessionOptionsFn>;
using SessionPtr = std::unique_ptr<KilnSession, ReleaseSessionFn>;
using RunOptionsPtr = std::unique_ptr<KilnRunOptions, ReleaseRunOptionsFn>;
using ValuePtr = std::unique_ptr<KilnValue, ReleaseValueFn>;
using InfoPtr = std::unique_ptr<KilnTensorTypeAndShapeInfo, ReleaseInfoFn>;

EnvPtr NewEnv() {
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "session-test", &env));
  return EnvPtr(env);
}

OptionsPtr NewOptions() {
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  return OptionsPtr(options);
}

RunOptionsPtr NewRunOptions() {
  KilnRunOptions* options = nullptr;
  ExpectOk(api().CreateRunOptions(&options));
  return RunOptionsPtr(options);
}

SessionPtr Load(const KilnEnv* env, const std::string& model,
                const KilnSessionOptions* options = nullptr) {
  KilnSession* session = nullptr;
  ExpectOk(api().CreateSessionFromArray(env, model.data(), model.size(), options, &session));
  return SessionPtr(session);
}

KilnAllocator* DefaultAllocator() {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  return allocator;
}

template <class T>
T* MutableData(KilnValue* v) {
  void* p = nullptr;
  ExpectOk(api().GetTensorMutableData(v, &p));
  return static_cast<T*>(p);
}

// A tensor of `type` and `shape` from Kiln's allocator, holding `values` (zeros when empty).
template <class T = float>
ValuePtr Tensor(std::vector<int64_t> shape, std::vector<T> values = {},
                KilnElementType type = KILN_ELEMENT_TYPE_FLOAT) {
  KilnValue* v = nullptr;
  ExpectOk(api().CreateTensorAsValue(DefaultAllocator(), shape.data(), shape.size(), type, &v));
  if (v != nullptr && !values.empty()) {
    T* data = MutableData<T>(v);
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  }
  return ValuePtr(v);
}

ValuePtr Int64Tensor(std::vector<int64_t> shape, std::vector<int64_t> values) {
  return Tensor<int64_t>(std::move(shape), std::move(values), KILN_ELEMENT_TYPE_INT64);
}

template <class T = float>
std::vector<T> Values(KilnValue* v) {
  size_t bytes = 0;
  ExpectOk(api().GetTensorSizeInBytes(v, &bytes));
  const T* data = MutableData<T>(v);
  return std::vector<T>(data, data + bytes / sizeof(T));
}

std::vector<int64_t> Dims(const KilnTensorTypeAndShapeInfo* info) {
  size_t rank = 0;
  ExpectOk(api().GetDimensionsCount(info, &rank));
  std::vector<int64_t> dims(rank);
  ExpectOk(api().GetDimensions(info, dims.data(), dims.size()));
  return dims;
}

std::vector<std::string> Symbols(const KilnTensorTypeAndShapeInfo* info) {
  size_t rank = 0;
  ExpectOk(api().GetDimensionsCount(info, &rank));
  std::vector<const char*> names(rank);
  ExpectOk(api().GetSymbolicDimensions(info, names.data(), names.size()));
  return std::vector<std::string>(names.begin(), names.end());
}

KilnElementType ElementType(const KilnTensorTypeAndShapeInfo* info) {
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  ExpectOk(api().GetTensorElementType(info, &type));
  return type;
}

std::vector<int64_t> ShapeOf(KilnValue* v) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().GetTensorTypeAndShape(v, &info));
  InfoPtr owned(info);
  return Dims(info);
}

// Takes a string an entry allocated from `allocator`, and frees it.
std::string Take(KilnAllocator* allocator, char* s) {
  std::string text = s == nullptr ? "(NULL)" : s;
  ExpectOk(api().AllocatorFree(allocator, s));
  return text;
}

// Asserts `status` has `code` and a message that starts with "<entry>: " and contains every
// fragment; releases it.
void ExpectFailure(KilnStatus* status, KilnErrorCode code, const char* entry,
                   std::initializer_list<std::string> fragments) {
  ASSERT_NE(status, nullptr) << entry << " succeeded";
  const std::string message = api().GetErrorMessage(status);
  EXPECT_EQ(api().GetErrorCode(status), code) << message;
  api().ReleaseStatus(status);
  EXPECT_EQ(message.rfind(std::string(entry) + ": ", 0), 0u) << message;
  for (const std::string& f : fragments) {
    EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' is not in: " << message;
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class SessionTest : public testing::Test {
 protected:
  EnvPtr env_ = NewEnv();
  const std::string identity_ = models::Identity();
  const std::string two_outputs_ = models::TwoOutputs();
};

// ---- Loading -----------------------------------------------------------------------------------

TEST_F(SessionTest, CreatesFromAFileAndFromAnArray) {
  models::TempDir dir;
  const std::string path = dir.Write("identity.onnx", identity_);
  KilnSession* from_file = nullptr;
  ExpectOk(api().CreateSession(env_.get(), path.c_str(), nullptr, &from_file));
  ASSERT_NE(from_file, nullptr);
  SessionPtr a(from_file);

  KilnSession* from_array = nullptr;
  {
    // The buffer may be freed as soon as CreateSessionFromArray returns.
    std::string bytes = identity_;
    ExpectOk(
        api().CreateSessionFromArray(env_.get(), bytes.data(), bytes.size(), nullptr, &from_array));
    bytes.assign(bytes.size(), '\0');
  }
  ASSERT_NE(from_array, nullptr);
  SessionPtr b(from_array);

  for (KilnSession* s : {a.get(), b.get()}) {
    size_t inputs = 0;
    size_t outputs = 0;
    ExpectOk(api().SessionGetInputCount(s, &inputs));
    ExpectOk(api().SessionGetOutputCount(s, &outputs));
    EXPECT_EQ(inputs, 1u);
    EXPECT_EQ(outputs, 1u);
    ValuePtr x = Tensor({2, 2}, {1, 2, 3, 4});
    const char* in[] = {"x"};
    const char* out[] = {"y"};
    KilnValue* y = nullptr;
    const KilnValue* inputs_array[] = {x.get()};
    ExpectOk(api().Run(s, nullptr, in, inputs_array, 1, out, 1, &y));
    ValuePtr owned(y);
    EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4}));
  }
}

TEST_F(SessionTest, AMissingFileIsNoSuchFile) {
  models::TempDir dir;
  const std::string path = dir.path() + "/absent.onnx";
  KilnSession* out = Sentinel<KilnSession>();
  ExpectFailure(api().CreateSession(env_.get(), path.c_str(), nullptr, &out), KILN_NO_SUCHFILE,
                "CreateSession", {path});
  EXPECT_EQ(out, Sentinel<KilnSession>());
  // A folder is not a model file either.
  ExpectFailure(api().CreateSession(env_.get(), dir.path().c_str(), nullptr, &out),
                KILN_NO_SUCHFILE, "CreateSession", {dir.path()});
  EXPECT_EQ(out, Sentinel<KilnSession>());
}

TEST_F(SessionTest, GarbageBytesAreInvalidProtobuf) {
  const std::string garbage = "\xff\xff\xff\xff this is not a protobuf \x01\x02";
  KilnSession* out = Sentinel<KilnSession>();
  ExpectFailure(
      api().CreateSessionFromArray(env_.get(), garbage.data(), garbage.size(), nullptr, &out),
      KILN_INVALID_PROTOBUF, "CreateSessionFromArray", {});
  EXPECT_EQ(out, Sentinel<KilnSession>());
  models::TempDir dir;
  const std::string path = dir.Write("garbage.onnx", garbage);
  ExpectFailure(api().CreateSession(env_.get(), path.c_str(), nullptr, &out), KILN_INVALID_PROTOBUF,
                "CreateSession", {});
  EXPECT_EQ(out, Sentinel<KilnSession>());
  // A valid model cut short is not a model.
  ExpectFailure(api().CreateSessionFromArray(env_.get(), identity_.data(), identity_.size() / 2,
                                             nullptr, &out),
                KILN_INVALID_PROTOBUF, "CreateSessionFromArray", {});
  EXPECT_EQ(out, Sentinel<KilnSession>());
}

TEST_F(SessionTest, AnUnknownOpIsNotImplementedNamingNodeOpDomainAndOpset) {
  const std::string model = models::UnknownOp();
  KilnSession* out = Sentinel<KilnSession>();
  ExpectFailure(api().CreateSessionFromArray(env_.get(), model.data(), model.size(), nullptr, &out),
                KILN_NOT_IMPLEMENTED, "CreateSessionFromArray",
                {models::kUnknownOpNode, models::kUnknownOpType, models::kUnknownOpDomain,
                 std::to_string(models::kUnknownOpOpset)});
  EXPECT_EQ(out, Sentinel<KilnSession>());
}

TEST_F(SessionTest, ZeroLengthArrayIsRejected) {
  KilnSession* out = Sentinel<KilnSession>();
  ExpectError(api().CreateSessionFromArray(env_.get(), identity_.data(), 0, nullptr, &out),
              KILN_INVALID_ARGUMENT, "CreateSessionFromArray", "data_len");
  EXPECT_EQ(out, Sentinel<KilnSession>());
}

TEST_F(SessionTest, EnvMayBeReleasedBeforeTheSession) {
  EnvPtr env = NewEnv();
  SessionPtr s = Load(env.get(), identity_);
  env.reset();
  ValuePtr x = Tensor({1, 2}, {5, 6});
  const char* in[] = {"x"};
  const char* out[] = {"y"};
  const KilnValue* inputs[] = {x.get()};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &y));
  ValuePtr owned(y);
  EXPECT_EQ(Values(y), (std::vector<float>{5, 6}));
}

// ---- Model information -------------------------------------------------------------------------

TEST_F(SessionTest, NamesThroughTheDefaultAllocator) {
  SessionPtr s = Load(env_.get(), two_outputs_);
  KilnAllocator* allocator = DefaultAllocator();
  size_t inputs = 0;
  size_t outputs = 0;
  ExpectOk(api().SessionGetInputCount(s.get(), &inputs));
  ExpectOk(api().SessionGetOutputCount(s.get(), &outputs));
  ASSERT_EQ(inputs, 2u);
  ASSERT_EQ(outputs, 2u);
  const char* want_in[] = {"a", "b"};
  const char* want_out[] = {"a_copy", "b_copy"};
  for (size_t i = 0; i < 2; ++i) {
    char* name = nullptr;
    ExpectOk(api().SessionGetInputName(s.get(), i, allocator, &name));
    EXPECT_EQ(Take(allocator, name), want_in[i]);
    ExpectOk(api().SessionGetOutputName(s.get(), i, allocator, &name));
    EXPECT_EQ(Take(allocator, name), want_out[i]);
  }
}

TEST_F(SessionTest, StringsThroughACountingAllocatorAreAllFreed) {
  SessionPtr s = Load(env_.get(), identity_);
  CountingAllocator counting;
  KilnAllocator* allocator = counting.get();
  char* text = nullptr;
  ExpectOk(api().SessionGetInputName(s.get(), 0, allocator, &text));
  EXPECT_EQ(counting.live(), 1);
  EXPECT_EQ(Take(allocator, text), "x");
  ExpectOk(api().SessionGetOutputName(s.get(), 0, allocator, &text));
  EXPECT_EQ(Take(allocator, text), "y");
  ExpectOk(
      api().SessionGetModelMetadataString(s.get(), KILN_METADATA_PRODUCER_NAME, allocator, &text));
  EXPECT_EQ(Take(allocator, text), models::kProducerName);
  char** keys = nullptr;
  size_t count = 0;
  ExpectOk(api().SessionGetCustomMetadataKeys(s.get(), allocator, &keys, &count));
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(counting.live(), 3);  // the array and two keys
  for (size_t i = 0; i < count; ++i) Take(allocator, keys[i]);
  ExpectOk(api().AllocatorFree(allocator, keys));
  ExpectOk(api().SessionLookupCustomMetadata(s.get(), allocator, models::kKeys[0], &text));
  EXPECT_EQ(Take(allocator, text), models::kValues[0]);
  EXPECT_EQ(counting.live(), 0);
  EXPECT_EQ(counting.calls(), 7);
}

TEST_F(SessionTest, AnAllocatorThatFailsGivesOutOfMemoryAndOutUntouched) {
  SessionPtr s = Load(env_.get(), identity_);
  CountingAllocator counting;
  counting.FailFrom(1);
  char* text = Sentinel<char>();
  KilnStatus* st = api().SessionGetInputName(s.get(), 0, counting.get(), &text);
  EXPECT_EQ(api().GetErrorCode(st), KILN_OUT_OF_MEMORY);
  api().ReleaseStatus(st);
  EXPECT_EQ(text, Sentinel<char>());
  st = api().SessionLookupCustomMetadata(s.get(), counting.get(), models::kKeys[1], &text);
  EXPECT_EQ(api().GetErrorCode(st), KILN_OUT_OF_MEMORY);
  api().ReleaseStatus(st);
  EXPECT_EQ(text, Sentinel<char>());
  EXPECT_EQ(counting.live(), 0);
}

TEST_F(SessionTest, IndexOutOfRangeIsRejectedNamingIndex) {
  SessionPtr s = Load(env_.get(), identity_);
  KilnAllocator* allocator = DefaultAllocator();
  char* text = Sentinel<char>();
  ExpectError(api().SessionGetInputName(s.get(), 1, allocator, &text), KILN_INVALID_ARGUMENT,
              "SessionGetInputName", "index");
  ExpectError(api().SessionGetOutputName(s.get(), 1, allocator, &text), KILN_INVALID_ARGUMENT,
              "SessionGetOutputName", "index");
  EXPECT_EQ(text, Sentinel<char>());
  KilnValueType type = KILN_VALUE_TYPE_MAP;
  ExpectError(api().SessionGetInputValueType(s.get(), 1, &type), KILN_INVALID_ARGUMENT,
              "SessionGetInputValueType", "index");
  ExpectError(api().SessionGetOutputValueType(s.get(), 7, &type), KILN_INVALID_ARGUMENT,
              "SessionGetOutputValueType", "index");
  EXPECT_EQ(type, KILN_VALUE_TYPE_MAP);
  KilnTensorTypeAndShapeInfo* info = Sentinel<KilnTensorTypeAndShapeInfo>();
  ExpectError(api().CreateSessionInputTensorInfo(s.get(), 1, &info), KILN_INVALID_ARGUMENT,
              "CreateSessionInputTensorInfo", "index");
  ExpectError(api().CreateSessionOutputTensorInfo(s.get(), 1, &info), KILN_INVALID_ARGUMENT,
              "CreateSessionOutputTensorInfo", "index");
  EXPECT_EQ(info, Sentinel<KilnTensorTypeAndShapeInfo>());
}

TEST_F(SessionTest, ValueTypesAreTensors) {
  SessionPtr s = Load(env_.get(), two_outputs_);
  for (size_t i = 0; i < 2; ++i) {
    KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
    ExpectOk(api().SessionGetInputValueType(s.get(), i, &type));
    EXPECT_EQ(type, KILN_VALUE_TYPE_TENSOR);
    type = KILN_VALUE_TYPE_UNKNOWN;
    ExpectOk(api().SessionGetOutputValueType(s.get(), i, &type));
    EXPECT_EQ(type, KILN_VALUE_TYPE_TENSOR);
  }
}

TEST_F(SessionTest, TensorInfoGivesAFreeDimensionAsMinusOneWithItsName) {
  SessionPtr s = Load(env_.get(), two_outputs_);
  for (bool input : {true, false}) {
    SCOPED_TRACE(input ? "inputs" : "outputs");
    KilnTensorTypeAndShapeInfo* a = nullptr;
    KilnTensorTypeAndShapeInfo* b = nullptr;
    if (input) {
      ExpectOk(api().CreateSessionInputTensorInfo(s.get(), 0, &a));
      ExpectOk(api().CreateSessionInputTensorInfo(s.get(), 1, &b));
    } else {
      ExpectOk(api().CreateSessionOutputTensorInfo(s.get(), 0, &a));
      ExpectOk(api().CreateSessionOutputTensorInfo(s.get(), 1, &b));
    }
    InfoPtr owned_a(a);
    InfoPtr owned_b(b);
    EXPECT_EQ(ElementType(a), KILN_ELEMENT_TYPE_FLOAT);
    EXPECT_EQ(Dims(a), (std::vector<int64_t>{-1, 2}));
    EXPECT_EQ(Symbols(a), (std::vector<std::string>{"batch", ""}));
    size_t count = kSizeSentinel;
    ExpectError(api().GetTensorShapeElementCount(a, &count), KILN_INVALID_ARGUMENT,
                "GetTensorShapeElementCount", "info");
    EXPECT_EQ(count, kSizeSentinel);
    EXPECT_EQ(ElementType(b), KILN_ELEMENT_TYPE_INT64);
    EXPECT_EQ(Dims(b), (std::vector<int64_t>{3}));
    EXPECT_EQ(Symbols(b), (std::vector<std::string>{""}));
    ExpectOk(api().GetTensorShapeElementCount(b, &count));
    EXPECT_EQ(count, 3u);
  }
}

TEST_F(SessionTest, MetadataStringsForEveryField) {
  SessionPtr s = Load(env_.get(), identity_);
  SessionPtr bare = Load(env_.get(), two_outputs_);
  KilnAllocator* allocator = DefaultAllocator();
  struct Field {
    KilnModelMetadataField field;
    const char* value;
    const char* bare_value;  // for the model that sets nothing but its graph's name
  };
  const Field fields[] = {
      {KILN_METADATA_PRODUCER_NAME, models::kProducerName, ""},
      {KILN_METADATA_PRODUCER_VERSION, models::kProducerVersion, ""},
      {KILN_METADATA_GRAPH_NAME, models::kGraphName, "two_outputs"},
      {KILN_METADATA_DOMAIN, models::kDomain, ""},
      {KILN_METADATA_DESCRIPTION, models::kDescription, ""},
      {KILN_METADATA_GRAPH_DESCRIPTION, models::kGraphDescription, ""},
  };
  for (const Field& f : fields) {
    SCOPED_TRACE(static_cast<int>(f.field));
    char* text = nullptr;
    ExpectOk(api().SessionGetModelMetadataString(s.get(), f.field, allocator, &text));
    EXPECT_EQ(Take(allocator, text), f.value);
    text = nullptr;
    ExpectOk(api().SessionGetModelMetadataString(bare.get(), f.field, allocator, &text));
    EXPECT_EQ(Take(allocator, text), f.bare_value);
  }
  // C callers can pass any int for the enum.
  char* text = Sentinel<char>();
  ExpectError(api().SessionGetModelMetadataString(s.get(), static_cast<KilnModelMetadataField>(6),
                                                  allocator, &text),
              KILN_INVALID_ARGUMENT, "SessionGetModelMetadataString", "field");
  EXPECT_EQ(text, Sentinel<char>());
}

TEST_F(SessionTest, ModelVersion) {
  SessionPtr s = Load(env_.get(), identity_);
  SessionPtr bare = Load(env_.get(), two_outputs_);
  int64_t version = -1;
  ExpectOk(api().SessionGetModelVersion(s.get(), &version));
  EXPECT_EQ(version, models::kModelVersion);
  ExpectOk(api().SessionGetModelVersion(bare.get(), &version));
  EXPECT_EQ(version, 0);
}

TEST_F(SessionTest, CustomMetadataKeysAreSorted) {
  SessionPtr s = Load(env_.get(), identity_);
  KilnAllocator* allocator = DefaultAllocator();
  char** keys = nullptr;
  size_t count = 0;
  ExpectOk(api().SessionGetCustomMetadataKeys(s.get(), allocator, &keys, &count));
  ASSERT_EQ(count, 2u);
  ASSERT_NE(keys, nullptr);
  std::vector<std::string> got;
  for (size_t i = 0; i < count; ++i) got.push_back(Take(allocator, keys[i]));
  ExpectOk(api().AllocatorFree(allocator, keys));
  // The model lists them as "zeta.owner", "alpha.license".
  EXPECT_EQ(got, (std::vector<std::string>{"alpha.license", "zeta.owner"}));

  SessionPtr bare = Load(env_.get(), two_outputs_);
  keys = Sentinel<char*>();
  count = kSizeSentinel;
  ExpectOk(api().SessionGetCustomMetadataKeys(bare.get(), allocator, &keys, &count));
  EXPECT_EQ(keys, nullptr);
  EXPECT_EQ(count, 0u);
}

// Kiln must free the keys it already copied when a later one cannot be allocated.
TEST_F(SessionTest, CustomMetadataKeysFreeWhatWasCopiedWhenAnAllocationFails) {
  SessionPtr s = Load(env_.get(), identity_);
  for (int fail_from = 1; fail_from <= 3; ++fail_from) {  // the array, the first key, the second
    SCOPED_TRACE(fail_from);
    CountingAllocator counting;
    counting.FailFrom(fail_from);
    char** keys = Sentinel<char*>();
    size_t count = kSizeSentinel;
    KilnStatus* st = api().SessionGetCustomMetadataKeys(s.get(), counting.get(), &keys, &count);
    EXPECT_EQ(api().GetErrorCode(st), KILN_OUT_OF_MEMORY) << api().GetErrorMessage(st);
    api().ReleaseStatus(st);
    EXPECT_EQ(keys, Sentinel<char*>());
    EXPECT_EQ(count, kSizeSentinel);
    EXPECT_EQ(counting.live(), 0) << "blocks leaked";
  }
}

TEST_F(SessionTest, LookupCustomMetadata) {
  SessionPtr s = Load(env_.get(), identity_);
  KilnAllocator* allocator = DefaultAllocator();
  for (size_t i = 0; i < 2; ++i) {
    char* value = nullptr;
    ExpectOk(api().SessionLookupCustomMetadata(s.get(), allocator, models::kKeys[i], &value));
    EXPECT_EQ(Take(allocator, value), models::kValues[i]);
  }
  char* value = Sentinel<char>();
  ExpectOk(api().SessionLookupCustomMetadata(s.get(), allocator, "no.such.key", &value));
  EXPECT_EQ(value, nullptr);
  value = Sentinel<char>();
  ExpectOk(api().SessionLookupCustomMetadata(s.get(), allocator, "", &value));
  EXPECT_EQ(value, nullptr);
}

// ---- Run ---------------------------------------------------------------------------------------

TEST_F(SessionTest, RunIntoANewValue) {
  SessionPtr s = Load(env_.get(), identity_);
  for (int64_t batch : {1, 3, 0}) {
    SCOPED_TRACE(batch);
    std::vector<float> data;
    for (int64_t i = 0; i < batch * 2; ++i) data.push_back(static_cast<float>(i) * 1.5f - 2.0f);
    ValuePtr x = Tensor({batch, 2}, data);
    const char* in[] = {"x"};
    const KilnValue* inputs[] = {x.get()};
    const char* out[] = {"y"};
    KilnValue* y = nullptr;
    ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &y));
    ASSERT_NE(y, nullptr);
    ValuePtr owned(y);
    EXPECT_NE(y, x.get());
    int is_tensor = 0;
    ExpectOk(api().IsTensor(y, &is_tensor));
    EXPECT_EQ(is_tensor, 1);
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ExpectOk(api().GetTensorTypeAndShape(y, &info));
    InfoPtr owned_info(info);
    EXPECT_EQ(ElementType(info), KILN_ELEMENT_TYPE_FLOAT);
    EXPECT_EQ(Dims(info), (std::vector<int64_t>{batch, 2}));
    if (batch != 0) {
      EXPECT_EQ(Values(y), data);
    }
  }
}

TEST_F(SessionTest, RunIntoACallersTensorWritesItInPlace) {
  SessionPtr s = Load(env_.get(), identity_);
  ValuePtr x = Tensor({2, 2}, {1, -2, 3.5f, 4});
  ValuePtr y = Tensor({2, 2}, {9, 9, 9, 9});
  float* before = MutableData<float>(y.get());
  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  KilnValue* outputs[] = {y.get()};
  RunOptionsPtr ro = NewRunOptions();
  ExpectOk(api().Run(s.get(), ro.get(), in, inputs, 1, out, 1, outputs));
  EXPECT_EQ(outputs[0], y.get());
  EXPECT_EQ(MutableData<float>(y.get()), before);
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, -2, 3.5f, 4}));
}

TEST_F(SessionTest, RunTwoOutputsInAnyOrderOrOneOfThem) {
  SessionPtr s = Load(env_.get(), two_outputs_);
  ValuePtr a = Tensor({1, 2}, {7, 8});
  ValuePtr b = Int64Tensor({3}, {-1, 0, int64_t{1} << 40});
  // The inputs in the other order than the model's.
  const char* in[] = {"b", "a"};
  const KilnValue* inputs[] = {b.get(), a.get()};
  {
    const char* out[] = {"b_copy", "a_copy"};
    KilnValue* outputs[] = {nullptr, nullptr};
    ExpectOk(api().Run(s.get(), nullptr, in, inputs, 2, out, 2, outputs));
    ValuePtr b_copy(outputs[0]);
    ValuePtr a_copy(outputs[1]);
    EXPECT_EQ(Values<int64_t>(outputs[0]), (std::vector<int64_t>{-1, 0, int64_t{1} << 40}));
    EXPECT_EQ(Values(outputs[1]), (std::vector<float>{7, 8}));
  }
  {
    const char* out[] = {"b_copy"};
    KilnValue* outputs[] = {nullptr};
    ExpectOk(api().Run(s.get(), nullptr, in, inputs, 2, out, 1, outputs));
    ValuePtr b_copy(outputs[0]);
    EXPECT_EQ(Values<int64_t>(outputs[0]), (std::vector<int64_t>{-1, 0, int64_t{1} << 40}));
  }
  {
    // One caller's tensor, one new value.
    ValuePtr a_copy = Tensor({1, 2}, {0, 0});
    const char* out[] = {"a_copy", "b_copy"};
    KilnValue* outputs[] = {a_copy.get(), nullptr};
    ExpectOk(api().Run(s.get(), nullptr, in, inputs, 2, out, 2, outputs));
    ValuePtr b_copy(outputs[1]);
    EXPECT_EQ(outputs[0], a_copy.get());
    EXPECT_EQ(Values(a_copy.get()), (std::vector<float>{7, 8}));
    EXPECT_EQ(Values<int64_t>(outputs[1]), (std::vector<int64_t>{-1, 0, int64_t{1} << 40}));
  }
}

// A failing Run on the two-output model: the caller's tensor for a_copy (filled with -7) and the
// empty slot for b_copy must come back exactly as they were.
class RunFailure : public SessionTest {
 protected:
  void SetUp() override {
    session_ = Load(env_.get(), two_outputs_);
    ASSERT_NE(session_, nullptr);
  }

  // Runs with the given inputs and outputs (a_copy's slot holds the caller's tensor `a_out`,
  // b_copy's is empty) and checks the failure.
  void Expect(std::vector<const char*> in, std::vector<const KilnValue*> inputs,
              std::vector<const char*> out, size_t output_count, const char* argument,
              std::initializer_list<std::string> fragments, ValuePtr a_out = nullptr) {
    if (a_out == nullptr) a_out = Tensor({2, 2}, {-7, -7, -7, -7});
    const std::vector<float> before = Values(a_out.get());
    const std::vector<int64_t> shape_before = ShapeOf(a_out.get());
    std::vector<KilnValue*> outputs(std::max<size_t>(out.size(), 2), nullptr);
    for (size_t i = 0; i < out.size(); ++i) {
      if (std::string(out[i]) == "a_copy") outputs[i] = a_out.get();
    }
    const std::vector<KilnValue*> slots_before = outputs;
    KilnStatus* status = api().Run(session_.get(), nullptr, in.data(), inputs.data(), in.size(),
                                   out.data(), output_count, outputs.data());
    ASSERT_NE(status, nullptr);
    const std::string message = api().GetErrorMessage(status);
    ExpectError(status, KILN_INVALID_ARGUMENT, "Run", argument);
    for (const std::string& f : fragments) {
      EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' is not in: " << message;
    }
    EXPECT_EQ(outputs, slots_before) << "a failed Run changed an output slot";
    EXPECT_EQ(Values(a_out.get()), before) << "a failed Run wrote the caller's tensor";
    EXPECT_EQ(ShapeOf(a_out.get()), shape_before);
  }

  SessionPtr session_;
  ValuePtr a_ = Tensor({2, 2}, {1, 2, 3, 4});
  ValuePtr b_ = Int64Tensor({3}, {1, 2, 3});
};

TEST_F(RunFailure, UnknownInputName) {
  Expect({"a", "b", "c"}, {a_.get(), b_.get(), a_.get()}, {"a_copy", "b_copy"}, 2, "input_names",
         {"'c'", "not an input"});
}

TEST_F(RunFailure, MissingInput) {
  Expect({"a"}, {a_.get()}, {"a_copy", "b_copy"}, 2, "input_names", {"input 'b'", "missing"});
}

TEST_F(RunFailure, NoInputsAtAll) {
  Expect({}, {}, {"a_copy", "b_copy"}, 2, "input_names", {"missing"});
}

TEST_F(RunFailure, InputGivenTwice) {
  Expect({"a", "b", "a"}, {a_.get(), b_.get(), a_.get()}, {"a_copy", "b_copy"}, 2, "input_names",
         {"input 'a'", "twice"});
}

TEST_F(RunFailure, WrongElementType) {
  ValuePtr b_float = Tensor({3}, {1, 2, 3});
  Expect({"a", "b"}, {a_.get(), b_float.get()}, {"a_copy", "b_copy"}, 2, "inputs",
         {"input 'b'", "int64", "float"});
}

TEST_F(RunFailure, WrongRank) {
  ValuePtr a_flat = Tensor({4}, {1, 2, 3, 4});
  Expect({"a", "b"}, {a_flat.get(), b_.get()}, {"a_copy", "b_copy"}, 2, "inputs",
         {"input 'a'", "rank 2"});
}

TEST_F(RunFailure, WrongFixedDimension) {
  ValuePtr a_wide = Tensor({2, 3});
  Expect({"a", "b"}, {a_wide.get(), b_.get()}, {"a_copy", "b_copy"}, 2, "inputs",
         {"input 'a'", "dimension 1", "must be 2", "not 3"});
  ValuePtr b_long = Int64Tensor({4}, {1, 2, 3, 4});
  Expect({"a", "b"}, {a_.get(), b_long.get()}, {"a_copy", "b_copy"}, 2, "inputs",
         {"input 'b'", "dimension 0", "must be 3", "not 4"});
}

TEST_F(RunFailure, UnknownOutputName) {
  Expect({"a", "b"}, {a_.get(), b_.get()}, {"a_copy", "b_copy", "c_copy"}, 3, "output_names",
         {"'c_copy'", "not an output"});
}

TEST_F(RunFailure, OutputCountZero) {
  Expect({"a", "b"}, {a_.get(), b_.get()}, {"a_copy", "b_copy"}, 0, "output_count", {});
}

TEST_F(RunFailure, CallersOutputTensorOfTheWrongShape) {
  Expect({"a", "b"}, {a_.get(), b_.get()}, {"a_copy", "b_copy"}, 2, "outputs", {"output 'a_copy'"},
         Tensor({4, 1}, {-7, -7, -7, -7}));
  Expect({"a", "b"}, {a_.get(), b_.get()}, {"a_copy", "b_copy"}, 2, "outputs", {"output 'a_copy'"},
         Tensor({2, 2, 1}, {-7, -7, -7, -7}));
}

TEST_F(RunFailure, CallersOutputTensorOfTheWrongType) {
  ValuePtr wrong = Tensor<int32_t>({2, 2}, {-7, -7, -7, -7}, KILN_ELEMENT_TYPE_INT32);
  const std::vector<int32_t> before = Values<int32_t>(wrong.get());
  const char* in[] = {"a", "b"};
  const KilnValue* inputs[] = {a_.get(), b_.get()};
  const char* out[] = {"a_copy", "b_copy"};
  KilnValue* outputs[] = {wrong.get(), nullptr};
  ExpectError(api().Run(session_.get(), nullptr, in, inputs, 2, out, 2, outputs),
              KILN_INVALID_ARGUMENT, "Run", "outputs");
  EXPECT_EQ(outputs[0], wrong.get());
  EXPECT_EQ(outputs[1], nullptr);
  EXPECT_EQ(Values<int32_t>(wrong.get()), before);
}

// ---- Session options ---------------------------------------------------------------------------

TEST_F(SessionTest, FreeDimensionOverrideFixesTheDimension) {
  OptionsPtr options = NewOptions();
  ExpectOk(api().AddFreeDimensionOverrideByName(options.get(), "batch", 4));
  SessionPtr s = Load(env_.get(), identity_, options.get());
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().CreateSessionInputTensorInfo(s.get(), 0, &info));
  InfoPtr owned(info);
  EXPECT_EQ(Dims(info), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(Symbols(info)[1], "");
  size_t count = 0;
  ExpectOk(api().GetTensorShapeElementCount(info, &count));
  EXPECT_EQ(count, 8u);

  const char* in[] = {"x"};
  const char* out[] = {"y"};
  ValuePtr x4 = Tensor({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const KilnValue* inputs4[] = {x4.get()};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(s.get(), nullptr, in, inputs4, 1, out, 1, &y));
  ValuePtr owned_y(y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

  ValuePtr x3 = Tensor({3, 2});
  const KilnValue* inputs3[] = {x3.get()};
  KilnValue* none = nullptr;
  KilnStatus* st = api().Run(s.get(), nullptr, in, inputs3, 1, out, 1, &none);
  ExpectFailure(st, KILN_INVALID_ARGUMENT, "Run", {"input 'x'", "must be 4", "not 3"});
  EXPECT_EQ(none, nullptr);

  // The options are copied into the session: a session made without the override still takes
  // any batch size.
  SessionPtr free = Load(env_.get(), identity_);
  ExpectOk(api().Run(free.get(), nullptr, in, inputs3, 1, out, 1, &none));
  api().ReleaseValue(none);
}

TEST_F(SessionTest, OptionSettersRejectBadValuesNamingThem) {
  OptionsPtr options = NewOptions();
  KilnSessionOptions* o = options.get();
  ExpectOk(api().SetIntraOpNumThreads(o, 0));
  ExpectOk(api().SetIntraOpNumThreads(o, 1024));
  ExpectError(api().SetIntraOpNumThreads(o, -1), KILN_INVALID_ARGUMENT, "SetIntraOpNumThreads",
              "threads");
  ExpectError(api().SetIntraOpNumThreads(o, 1025), KILN_INVALID_ARGUMENT, "SetIntraOpNumThreads",
              "threads");
  ExpectOk(api().SetInterOpNumThreads(o, 0));
  ExpectOk(api().SetInterOpNumThreads(o, 1024));
  ExpectError(api().SetInterOpNumThreads(o, -1), KILN_INVALID_ARGUMENT, "SetInterOpNumThreads",
              "threads");
  ExpectError(api().SetInterOpNumThreads(o, 1025), KILN_INVALID_ARGUMENT, "SetInterOpNumThreads",
              "threads");
  ExpectError(api().SetSessionExecutionMode(o, static_cast<KilnExecutionMode>(2)),
              KILN_INVALID_ARGUMENT, "SetSessionExecutionMode", "mode");
  ExpectError(api().SetSessionExecutionMode(o, static_cast<KilnExecutionMode>(-1)),
              KILN_INVALID_ARGUMENT, "SetSessionExecutionMode", "mode");
  ExpectError(api().SetSessionGraphOptimizationLevel(o, static_cast<KilnGraphOptimizationLevel>(4)),
              KILN_INVALID_ARGUMENT, "SetSessionGraphOptimizationLevel", "level");
  ExpectError(
      api().SetSessionGraphOptimizationLevel(o, static_cast<KilnGraphOptimizationLevel>(-1)),
      KILN_INVALID_ARGUMENT, "SetSessionGraphOptimizationLevel", "level");
  ExpectError(api().SetSessionLogSeverityLevel(o, static_cast<KilnLoggingLevel>(5)),
              KILN_INVALID_ARGUMENT, "SetSessionLogSeverityLevel", "severity");
  ExpectError(api().SetSessionLogId(o, "\xc3\x28"), KILN_INVALID_ARGUMENT, "SetSessionLogId",
              "log_id");
  ExpectError(api().EnableProfiling(o, ""), KILN_INVALID_ARGUMENT, "EnableProfiling", "prefix");
  ExpectError(api().AddFreeDimensionOverrideByName(o, "", 1), KILN_INVALID_ARGUMENT,
              "AddFreeDimensionOverrideByName", "name");
  ExpectError(api().AddFreeDimensionOverrideByName(o, "batch", -1), KILN_INVALID_ARGUMENT,
              "AddFreeDimensionOverrideByName", "value");
  // Every level and severity the header lists is accepted, and a session still loads.
  for (KilnGraphOptimizationLevel l :
       {KILN_GRAPH_OPTIMIZATION_DISABLE_ALL, KILN_GRAPH_OPTIMIZATION_BASIC,
        KILN_GRAPH_OPTIMIZATION_EXTENDED, KILN_GRAPH_OPTIMIZATION_ALL}) {
    ExpectOk(api().SetSessionGraphOptimizationLevel(o, l));
  }
  ExpectOk(api().SetSessionLogSeverityLevel(o, KILN_LOGGING_LEVEL_VERBOSE));
  ExpectOk(api().SetSessionLogId(o, "options-test"));
  ExpectOk(api().SetIntraOpNumThreads(o, 2));
  ExpectOk(api().SetSessionExecutionMode(o, KILN_EXECUTION_MODE_PARALLEL));
  ExpectOk(api().SetInterOpNumThreads(o, 2));
  SessionPtr s = Load(env_.get(), identity_, o);
  EXPECT_NE(s, nullptr);
}

TEST_F(SessionTest, CloneSessionOptionsCopiesEverySetting) {
  OptionsPtr options = NewOptions();
  ExpectOk(api().AddFreeDimensionOverrideByName(options.get(), "batch", 2));
  KilnSessionOptions* clone = nullptr;
  ExpectOk(api().CloneSessionOptions(options.get(), &clone));
  OptionsPtr owned(clone);
  // Changing the original afterwards does not change the clone.
  ExpectOk(api().AddFreeDimensionOverrideByName(options.get(), "batch", 5));
  SessionPtr s = Load(env_.get(), identity_, clone);
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().CreateSessionInputTensorInfo(s.get(), 0, &info));
  InfoPtr owned_info(info);
  EXPECT_EQ(Dims(info), (std::vector<int64_t>{2, 2}));
}

TEST_F(SessionTest, ConfigEntriesAcceptEveryDocumentedKeyAndValue) {
  for (const char* key : {"kiln.arena.enable", "kiln.run.check_finite"}) {
    for (const char* value : {"0", "1"}) {
      SCOPED_TRACE(std::string(key) + "=" + value);
      OptionsPtr options = NewOptions();
      ExpectOk(api().AddSessionConfigEntry(options.get(), key, value));
      // A session made with it runs.
      SessionPtr s = Load(env_.get(), identity_, options.get());
      ASSERT_NE(s, nullptr);
      for (int round = 0; round < 3; ++round) {
        ValuePtr x = Tensor({2, 2}, {1, 2, 3, static_cast<float>(round)});
        const char* in[] = {"x"};
        const KilnValue* inputs[] = {x.get()};
        const char* out[] = {"y"};
        KilnValue* y = nullptr;
        ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &y));
        ValuePtr owned(y);
        EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, static_cast<float>(round)}));
      }
    }
  }
}

TEST_F(SessionTest, ConfigEntriesRejectUnknownKeysAndBadValuesNamingTheKey) {
  OptionsPtr options = NewOptions();
  ExpectFailure(api().AddSessionConfigEntry(options.get(), "kiln.no.such.key", "1"),
                KILN_INVALID_ARGUMENT, "AddSessionConfigEntry",
                {"argument 'key'", "kiln.no.such.key"});
  for (const char* key : {"kiln.arena.enable", "kiln.run.check_finite"}) {
    for (const char* value : {"2", "true", "", " 1"}) {
      SCOPED_TRACE(std::string(key) + "=" + value);
      ExpectFailure(api().AddSessionConfigEntry(options.get(), key, value), KILN_INVALID_ARGUMENT,
                    "AddSessionConfigEntry", {"argument 'value'", key});
    }
  }
}

TEST_F(SessionTest, CheckFiniteFailsARunWithANanNamingTheNode) {
  OptionsPtr options = NewOptions();
  ExpectOk(api().AddSessionConfigEntry(options.get(), "kiln.run.check_finite", "1"));
  SessionPtr checked = Load(env_.get(), identity_, options.get());
  SessionPtr unchecked = Load(env_.get(), identity_);
  const char* in[] = {"x"};
  const char* out[] = {"y"};
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    SCOPED_TRACE(bad);
    ValuePtr x = Tensor({1, 2}, {1, bad});
    const KilnValue* inputs[] = {x.get()};
    ValuePtr y = Tensor({1, 2}, {-7, -7});
    KilnValue* outputs[] = {y.get()};
    KilnStatus* st = api().Run(checked.get(), nullptr, in, inputs, 1, out, 1, outputs);
    ASSERT_NE(st, nullptr);
    const KilnErrorCode code = api().GetErrorCode(st);
    EXPECT_TRUE(code == KILN_RUNTIME_EXCEPTION || code == KILN_ENGINE_ERROR) << code;
    ExpectFailure(st, code, "Run", {models::kNodeName});
    EXPECT_EQ(outputs[0], y.get());
    EXPECT_EQ(Values(y.get()), (std::vector<float>{-7, -7}));
    KilnValue* none = nullptr;
    ExpectFailure(api().Run(checked.get(), nullptr, in, inputs, 1, out, 1, &none), code, "Run",
                  {models::kNodeName});
    EXPECT_EQ(none, nullptr);
    // Off by default: the same input runs.
    ExpectOk(api().Run(unchecked.get(), nullptr, in, inputs, 1, out, 1, outputs));
    EXPECT_EQ(Values(y.get())[0], 1.0f);
  }
  // Finite values pass the check.
  ValuePtr x = Tensor({1, 2}, {1, 2});
  const KilnValue* inputs[] = {x.get()};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(checked.get(), nullptr, in, inputs, 1, out, 1, &y));
  api().ReleaseValue(y);
}

// ---- Run options -------------------------------------------------------------------------------

TEST_F(SessionTest, TerminateStopsRunsAndUnsetTerminateLetsThemRunAgain) {
  SessionPtr s = Load(env_.get(), identity_);
  RunOptionsPtr ro = NewRunOptions();
  ExpectOk(api().RunOptionsSetRunTag(ro.get(), "terminate-test"));
  ExpectOk(api().RunOptionsSetRunLogSeverityLevel(ro.get(), KILN_LOGGING_LEVEL_ERROR));
  ValuePtr x = Tensor({1, 2}, {1, 2});
  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  ValuePtr y = Tensor({1, 2}, {-7, -7});
  ExpectOk(api().RunOptionsSetTerminate(ro.get()));
  for (int i = 0; i < 2; ++i) {  // it stays set
    KilnValue* none = nullptr;
    ExpectFailure(api().Run(s.get(), ro.get(), in, inputs, 1, out, 1, &none), KILN_TERMINATED,
                  "Run", {});
    EXPECT_EQ(none, nullptr);
    KilnValue* outputs[] = {y.get()};
    ExpectFailure(api().Run(s.get(), ro.get(), in, inputs, 1, out, 1, outputs), KILN_TERMINATED,
                  "Run", {});
    EXPECT_EQ(Values(y.get()), (std::vector<float>{-7, -7}));
  }
  // Other runs, with other options or none, are not affected.
  KilnValue* other = nullptr;
  ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &other));
  api().ReleaseValue(other);
  ExpectOk(api().RunOptionsUnsetTerminate(ro.get()));
  KilnValue* outputs[] = {y.get()};
  ExpectOk(api().Run(s.get(), ro.get(), in, inputs, 1, out, 1, outputs));
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2}));
}

TEST_F(SessionTest, RunOptionSettersRejectBadValuesNamingThem) {
  RunOptionsPtr ro = NewRunOptions();
  for (int bad : {-1, 5}) {
    ExpectError(
        api().RunOptionsSetRunLogSeverityLevel(ro.get(), static_cast<KilnLoggingLevel>(bad)),
        KILN_INVALID_ARGUMENT, "RunOptionsSetRunLogSeverityLevel", "severity");
  }
  ExpectError(api().RunOptionsSetRunTag(ro.get(), "\xff"), KILN_INVALID_ARGUMENT,
              "RunOptionsSetRunTag", "tag");
  ExpectOk(api().RunOptionsSetRunTag(ro.get(), ""));
}

// ---- Profiling ---------------------------------------------------------------------------------

TEST_F(SessionTest, EndProfilingWritesAJsonFileNamingTheNode) {
  models::TempDir dir;
  const std::string prefix = dir.path() + "/kiln_profile";
  OptionsPtr options = NewOptions();
  ExpectOk(api().EnableProfiling(options.get(), prefix.c_str()));
  SessionPtr s = Load(env_.get(), identity_, options.get());
  ValuePtr x = Tensor({1, 2}, {1, 2});
  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &y));
  api().ReleaseValue(y);
  CountingAllocator counting;
  char* path = nullptr;
  ExpectOk(api().SessionEndProfiling(s.get(), counting.get(), &path));
  ASSERT_NE(path, nullptr);
  const std::string file = Take(counting.get(), path);
  EXPECT_EQ(counting.live(), 0);
  EXPECT_EQ(file.rfind(prefix + "_", 0), 0u) << file;
  ASSERT_GE(file.size(), 5u);
  EXPECT_EQ(file.substr(file.size() - 5), ".json") << file;
  ASSERT_TRUE(std::filesystem::is_regular_file(file)) << file;
  const std::string json = ReadFile(file);
  EXPECT_EQ(json.find_first_not_of(" \n\r\t"), json.find('[')) << json;
  EXPECT_NE(json.find(std::string("\"") + models::kNodeName + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("Identity"), std::string::npos) << json;
}

TEST_F(SessionTest, EndProfilingWithoutProfilingIsInvalidArgument) {
  SessionPtr plain = Load(env_.get(), identity_);
  OptionsPtr options = NewOptions();
  ExpectOk(api().EnableProfiling(options.get(), "/tmp/kiln_never_written"));
  ExpectOk(api().DisableProfiling(options.get()));
  SessionPtr disabled = Load(env_.get(), identity_, options.get());
  for (KilnSession* s : {plain.get(), disabled.get()}) {
    char* path = Sentinel<char>();
    ExpectError(api().SessionEndProfiling(s, DefaultAllocator(), &path), KILN_INVALID_ARGUMENT,
                "SessionEndProfiling", "session");
    EXPECT_EQ(path, Sentinel<char>());
  }
}

// ---- Lifetimes ---------------------------------------------------------------------------------

TEST_F(SessionTest, AValueOutlivesItsSession) {
  KilnValue* y = nullptr;
  {
    OptionsPtr options = NewOptions();
    ExpectOk(api().AddSessionConfigEntry(options.get(), "kiln.arena.enable", "1"));
    SessionPtr s = Load(env_.get(), identity_, options.get());
    ValuePtr x = Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
    const char* in[] = {"x"};
    const KilnValue* inputs[] = {x.get()};
    const char* out[] = {"y"};
    ExpectOk(api().Run(s.get(), nullptr, in, inputs, 1, out, 1, &y));
  }
  ASSERT_NE(y, nullptr);
  ValuePtr owned(y);
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  MutableData<float>(y)[0] = 10;  // still writable
  EXPECT_EQ(Values(y)[0], 10.0f);
  const KilnMemoryInfo* info = nullptr;
  ExpectOk(api().GetTensorMemoryInfo(y, &info));
  const char* name = nullptr;
  ExpectOk(api().MemoryInfoGetName(info, &name));
  EXPECT_STREQ(name, "Cpu");
}

}  // namespace
}  // namespace kiln_test
