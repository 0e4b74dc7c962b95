// Session inputs and config (slots 79-87): overridable initializers, initializers from the
// caller's memory, free dimensions by denotation, config entries of sessions and runs, and the
// profiler's start time.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

// Owns what a test makes and releases it at the end.
struct Scope {
  KilnEnv* env = nullptr;
  KilnMemoryInfo* cpu = nullptr;
  KilnAllocator* allocator = nullptr;
  std::vector<KilnSessionOptions*> options;
  std::vector<KilnSession*> sessions;
  std::vector<KilnValue*> values;
  std::vector<KilnRunOptions*> run_options;

  Scope() {
    ExpectOk(api().CreateEnv(KILN_LOGGING_LEVEL_FATAL, "inputs", &env));
    ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
    ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  }
  ~Scope() {
    for (KilnValue* v : values) api().ReleaseValue(v);
    for (KilnSession* s : sessions) api().ReleaseSession(s);
    for (KilnSessionOptions* o : options) api().ReleaseSessionOptions(o);
    for (KilnRunOptions* r : run_options) api().ReleaseRunOptions(r);
    api().ReleaseMemoryInfo(cpu);
    api().ReleaseEnv(env);
  }
  KilnSessionOptions* Options(int level = 3) {
    KilnSessionOptions* o = nullptr;
    ExpectOk(api().CreateSessionOptions(&o));
    ExpectOk(api().SetIntraOpNumThreads(o, 1));
    ExpectOk(
        api().SetSessionGraphOptimizationLevel(o, static_cast<KilnGraphOptimizationLevel>(level)));
    options.push_back(o);
    return o;
  }
  KilnRunOptions* RunOptions() {
    KilnRunOptions* r = nullptr;
    ExpectOk(api().CreateRunOptions(&r));
    run_options.push_back(r);
    return r;
  }
  // A session, or NULL with the status in *status when status is given.
  KilnSession* Session(const std::string& model, KilnSessionOptions* o,
                       KilnStatus** status = nullptr) {
    KilnSession* s = nullptr;
    KilnStatus* st = api().CreateSessionFromArray(env, model.data(), model.size(), o, &s);
    if (status != nullptr) {
      *status = st;
    } else {
      ExpectOk(st);
    }
    if (s != nullptr) sessions.push_back(s);
    return s;
  }
  // A float tensor over `data` (the caller's buffer).
  KilnValue* Floats(float* data, std::vector<int64_t> dims) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    KilnValue* v = nullptr;
    ExpectOk(api().CreateTensorWithDataAsValue(cpu, data, n * sizeof(float), dims.data(),
                                               dims.size(), KILN_ELEMENT_TYPE_FLOAT, &v));
    values.push_back(v);
    return v;
  }
  // The string an entry returned through `allocator`, freed.
  std::string Take(char* name) {
    std::string s = name == nullptr ? "(null)" : name;
    if (name != nullptr) ExpectOk(api().AllocatorFree(allocator, name));
    return s;
  }
};

const float* Data(const KilnValue* v) {
  void* p = nullptr;
  ExpectOk(api().GetTensorMutableData(const_cast<KilnValue*>(v), &p));
  return static_cast<const float*>(p);
}

// Runs `session` with the named inputs and returns output `out` as two floats; the status of a
// failed run goes to *status (and the result is empty).
std::vector<float> RunModel(KilnSession* session, const KilnRunOptions* ro,
                            std::vector<const char*> names, std::vector<const KilnValue*> inputs,
                            const char* out, KilnStatus** status = nullptr) {
  KilnValue* result = nullptr;
  KilnStatus* st =
      api().Run(session, ro, names.data(), inputs.data(), names.size(), &out, 1, &result);
  if (status != nullptr) {
    *status = st;
  } else {
    ExpectOk(st);
  }
  if (result == nullptr) return {};
  std::vector<float> v(Data(result), Data(result) + 2);
  api().ReleaseValue(result);
  return v;
}

std::string Message(KilnStatus* st) {
  std::string m = st == nullptr ? "(success)" : api().GetErrorMessage(st);
  api().ReleaseStatus(st);
  return m;
}

void ExpectMentions(const std::string& message, std::initializer_list<const char*> parts) {
  for (const char* p : parts) {
    EXPECT_NE(message.find(p), std::string::npos) << "'" << p << "' not in: " << message;
  }
}

// ---- Input values ------------------------------------------------------------------------------

// A bool is one byte, 0 or 1: a caller's bool tensor with another byte is refused, naming the
// input and the element, and no output is made (found by the run-path fuzzer: kernels read the
// bytes as C++ bool, for which 255 is undefined behaviour).
TEST(RunInputs, ABoolTensorWithAByteOtherThanZeroOrOneIsRefused) {
  Scope s;
  KilnSession* session = s.Session(models::BoolIdentity(), s.Options());
  uint8_t bytes[4] = {0, 1, 255, 1};
  const int64_t dims[1] = {4};
  KilnValue* x = nullptr;
  ExpectOk(api().CreateTensorWithDataAsValue(s.cpu, bytes, sizeof bytes, dims, 1,
                                             KILN_ELEMENT_TYPE_BOOL, &x));
  s.values.push_back(x);
  const char* in = "x";
  const char* out = "y";
  KilnValue* y = nullptr;  // NULL: Kiln makes the output, and leaves it NULL on failure
  KilnStatus* st = api().Run(session, nullptr, &in, &x, 1, &out, 1, &y);
  EXPECT_EQ(api().GetErrorCode(st), KILN_INVALID_ARGUMENT);
  ExpectMentions(Message(st), {"Run: ", "input 'x'", "bool element 2 is 255", "0 or 1"});
  EXPECT_EQ(y, nullptr);
  // The same tensor with its bytes set right runs, and the session is still usable.
  bytes[2] = 1;
  y = nullptr;
  ExpectOk(api().Run(session, nullptr, &in, &x, 1, &out, 1, &y));
  void* data = nullptr;
  ExpectOk(api().GetTensorMutableData(y, &data));
  EXPECT_EQ(std::vector<uint8_t>(static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + 4),
            (std::vector<uint8_t>{0, 1, 1, 1}));
  api().ReleaseValue(y);
}

// ---- Overridable initializers ------------------------------------------------------------------

TEST(OverridableInitializers, AreListedApartFromTheInputs) {
  Scope s;
  KilnSession* session = s.Session(models::Initializers(), s.Options());
  size_t inputs = 0;
  size_t overridable = 0;
  ExpectOk(api().SessionGetInputCount(session, &inputs));
  ExpectOk(api().SessionGetOverridableInitializerCount(session, &overridable));
  EXPECT_EQ(inputs, 1u);
  EXPECT_EQ(overridable, 1u);
  char* name = nullptr;
  ExpectOk(api().SessionGetInputName(session, 0, s.allocator, &name));
  EXPECT_EQ(s.Take(name), "x");
  name = nullptr;
  ExpectOk(api().SessionGetOverridableInitializerName(session, 0, s.allocator, &name));
  EXPECT_EQ(s.Take(name), "w");
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().CreateSessionOverridableInitializerTensorInfo(session, 0, &info));
  KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
  size_t rank = 0;
  int64_t dim = 0;
  ExpectOk(api().GetTensorElementType(info, &type));
  ExpectOk(api().GetDimensionsCount(info, &rank));
  ExpectOk(api().GetDimensions(info, &dim, 1));
  api().ReleaseTensorTypeAndShapeInfo(info);
  EXPECT_EQ(type, KILN_ELEMENT_TYPE_FLOAT);
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(dim, 2);

  // Out of range: named, out-parameters untouched.
  char* untouched = Sentinel<char>();
  ExpectError(api().SessionGetOverridableInitializerName(session, 1, s.allocator, &untouched),
              KILN_INVALID_ARGUMENT, "SessionGetOverridableInitializerName", "index");
  EXPECT_EQ(untouched, Sentinel<char>());
  KilnTensorTypeAndShapeInfo* no_info = Sentinel<KilnTensorTypeAndShapeInfo>();
  ExpectError(api().CreateSessionOverridableInitializerTensorInfo(session, 1, &no_info),
              KILN_INVALID_ARGUMENT, "CreateSessionOverridableInitializerTensorInfo", "index");
  EXPECT_EQ(no_info, Sentinel<KilnTensorTypeAndShapeInfo>());
}

TEST(OverridableInitializers, BeforeIrVersion4AnInitializerListedAsAnInputIsAConstant) {
  Scope s;
  KilnSession* session = s.Session(models::Initializers(3), s.Options());
  size_t inputs = 0;
  size_t overridable = 5;
  ExpectOk(api().SessionGetInputCount(session, &inputs));
  ExpectOk(api().SessionGetOverridableInitializerCount(session, &overridable));
  EXPECT_EQ(inputs, 1u);
  EXPECT_EQ(overridable, 0u);
  float x[2] = {1, 2};
  float w[2] = {-1, -2};
  KilnStatus* st = nullptr;
  RunModel(session, nullptr, {"x", "w"}, {s.Floats(x, {2}), s.Floats(w, {2})}, "y", &st);
  ExpectMentions(Message(st), {"'w'", "is not an input of the model"});
  EXPECT_EQ(RunModel(session, nullptr, {"x"}, {s.Floats(x, {2})}, "y"),
            (std::vector<float>{11, 22}));
}

TEST(OverridableInitializers, RunUsesTheModelsValueUnlessFedAtEveryLevel) {
  for (int level : {0, 1, 2, 3}) {
    SCOPED_TRACE("level " + std::to_string(level));
    Scope s;
    KilnSession* session = s.Session(models::Initializers(), s.Options(level));
    float x[2] = {1, 2};
    float w[2] = {-5, 7};
    KilnValue* xv = s.Floats(x, {2});
    EXPECT_EQ(RunModel(session, nullptr, {"x"}, {xv}, "y"), (std::vector<float>{11, 22}));
    EXPECT_EQ(RunModel(session, nullptr, {"w", "x"}, {s.Floats(w, {2}), xv}, "y"),
              (std::vector<float>{-4, 9}));
    // The model's value again: feeding it once changed nothing.
    EXPECT_EQ(RunModel(session, nullptr, {"x"}, {xv}, "y"), (std::vector<float>{11, 22}));
  }
}

TEST(OverridableInitializers, AFedValueIsCheckedLikeAnInput) {
  Scope s;
  KilnSession* session = s.Session(models::Initializers(), s.Options());
  float x[2] = {1, 2};
  float w[3] = {1, 2, 3};
  KilnValue* xv = s.Floats(x, {2});
  KilnStatus* st = nullptr;
  EXPECT_TRUE(RunModel(session, nullptr, {"x", "w"}, {xv, s.Floats(w, {3})}, "y", &st).empty());
  ExpectMentions(Message(st), {"Run: ", "'w'", "dimension 0 must be 2, not 3"});
  int64_t i64[2] = {1, 2};
  const int64_t dims[1] = {2};
  KilnValue* ints = nullptr;
  ExpectOk(api().CreateTensorWithDataAsValue(s.cpu, i64, sizeof i64, dims, 1,
                                             KILN_ELEMENT_TYPE_INT64, &ints));
  s.values.push_back(ints);
  RunModel(session, nullptr, {"x", "w"}, {xv, ints}, "y", &st);
  ExpectMentions(Message(st), {"'w'", "must be float, not int64"});
  RunModel(session, nullptr, {"x", "w", "w"}, {xv, xv, xv}, "y", &st);
  ExpectMentions(Message(st), {"'w' is given twice"});
  // A constant initializer is not an input; a missing input is still missing.
  RunModel(session, nullptr, {"x", "c"}, {xv, xv}, "y", &st);
  ExpectMentions(Message(st), {"'c'", "nor an overridable initializer"});
  RunModel(session, nullptr, {"w"}, {xv}, "y", &st);
  ExpectMentions(Message(st), {"input 'x' is missing"});
}

// ---- Initializers from the caller's memory -----------------------------------------------------

TEST(SessionOptionsAddInitializer, ASessionReadsTheCallersMemory) {
  Scope s;
  KilnSessionOptions* o = s.Options(0);  // Add reads c at every run
  float c[2] = {100, 200};
  KilnValue* cv = nullptr;
  const int64_t dims[1] = {2};
  ExpectOk(
      api().CreateTensorWithDataAsValue(s.cpu, c, sizeof c, dims, 1, KILN_ELEMENT_TYPE_FLOAT, &cv));
  ExpectOk(api().SessionOptionsAddInitializer(o, "c", cv));
  api().ReleaseValue(cv);  // the options hold the tensor
  KilnSessionOptions* clone = nullptr;
  ExpectOk(api().CloneSessionOptions(o, &clone));
  s.options.push_back(clone);
  KilnSession* first = s.Session(models::Initializers(), o);
  float x[2] = {1, 2};
  KilnValue* xv = s.Floats(x, {2});
  EXPECT_EQ(RunModel(first, nullptr, {"x"}, {xv}, "z"), (std::vector<float>{101, 202}));
  // Not a copy: the session sees what the caller writes to the buffer afterwards.
  c[0] = 1000;
  EXPECT_EQ(RunModel(first, nullptr, {"x"}, {xv}, "z"), (std::vector<float>{1001, 202}));
  // The clone shares it too, and so does a session made after the write.
  c[1] = 2000;
  KilnSession* second = s.Session(models::Initializers(), clone);
  EXPECT_EQ(RunModel(second, nullptr, {"x"}, {xv}, "z"), (std::vector<float>{1001, 2002}));
  EXPECT_EQ(RunModel(first, nullptr, {"x"}, {xv}, "z"), (std::vector<float>{1001, 2002}));
  // The options may go before the sessions.
  for (KilnSessionOptions*& p : s.options) {
    api().ReleaseSessionOptions(p);
    p = nullptr;
  }
  c[0] = 5;
  EXPECT_EQ(RunModel(second, nullptr, {"x"}, {xv}, "z"), (std::vector<float>{6, 2002}));
  // y uses the model's w, untouched.
  EXPECT_EQ(RunModel(second, nullptr, {"x"}, {xv}, "y"), (std::vector<float>{11, 22}));
}

TEST(SessionOptionsAddInitializer, ReplacesAnOverridableInitializersDefault) {
  Scope s;
  KilnSessionOptions* o = s.Options();
  float w[2] = {-10, -20};
  ExpectOk(api().SessionOptionsAddInitializer(o, "w", s.Floats(w, {2})));
  KilnSession* session = s.Session(models::Initializers(), o);
  float x[2] = {1, 2};
  float fed[2] = {3, 4};
  KilnValue* xv = s.Floats(x, {2});
  EXPECT_EQ(RunModel(session, nullptr, {"x"}, {xv}, "y"), (std::vector<float>{-9, -18}));
  EXPECT_EQ(RunModel(session, nullptr, {"x", "w"}, {xv, s.Floats(fed, {2})}, "y"),
            (std::vector<float>{4, 6}));
  size_t count = 0;
  ExpectOk(api().SessionGetOverridableInitializerCount(session, &count));
  EXPECT_EQ(count, 1u);
}

TEST(SessionOptionsAddInitializer, CreateSessionRejectsUnknownNamesAndOtherTypesOrShapes) {
  Scope s;
  float three[3] = {1, 2, 3};
  {
    KilnSessionOptions* o = s.Options();
    ExpectOk(api().SessionOptionsAddInitializer(o, "x", s.Floats(three, {2})));
    KilnStatus* st = nullptr;
    EXPECT_EQ(s.Session(models::Initializers(), o, &st), nullptr);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(api().GetErrorCode(st), KILN_INVALID_ARGUMENT);
    ExpectMentions(Message(st), {"CreateSessionFromArray: ", "'x'", "not an initializer"});
  }
  {
    KilnSessionOptions* o = s.Options();
    ExpectOk(api().SessionOptionsAddInitializer(o, "nowhere", s.Floats(three, {2})));
    KilnStatus* st = nullptr;
    EXPECT_EQ(s.Session(models::Initializers(), o, &st), nullptr);
    ExpectMentions(Message(st), {"'nowhere'", "not an initializer of the model's main graph"});
  }
  {
    KilnSessionOptions* o = s.Options();
    ExpectOk(api().SessionOptionsAddInitializer(o, "c", s.Floats(three, {3})));
    KilnStatus* st = nullptr;
    EXPECT_EQ(s.Session(models::Initializers(), o, &st), nullptr);
    ExpectMentions(Message(st), {"'c'", "float [3]", "the model's is float [2]"});
  }
  {
    KilnSessionOptions* o = s.Options();
    int64_t ints[2] = {1, 2};
    const int64_t dims[1] = {2};
    KilnValue* v = nullptr;
    ExpectOk(api().CreateTensorWithDataAsValue(s.cpu, ints, sizeof ints, dims, 1,
                                               KILN_ELEMENT_TYPE_INT64, &v));
    s.values.push_back(v);
    ExpectOk(api().SessionOptionsAddInitializer(o, "w", v));
    KilnStatus* st = nullptr;
    EXPECT_EQ(s.Session(models::Initializers(), o, &st), nullptr);
    ExpectMentions(Message(st), {"'w'", "int64 [2]", "the model's is float [2]"});
  }
}

TEST(SessionOptionsAddInitializer, RejectsAnEmptyNameAndValuesThatAreNotTensors) {
  Scope s;
  KilnSessionOptions* o = s.Options();
  float two[2] = {1, 2};
  KilnValue* t = s.Floats(two, {2});
  ExpectError(api().SessionOptionsAddInitializer(o, "", t), KILN_INVALID_ARGUMENT,
              "SessionOptionsAddInitializer", "name");
  const KilnValue* tensors[] = {t};
  KilnValue* seq = nullptr;
  ExpectOk(api().CreateSequenceValue(tensors, 1, KILN_ELEMENT_TYPE_FLOAT, &seq));
  s.values.push_back(seq);
  ExpectError(api().SessionOptionsAddInitializer(o, "c", seq), KILN_INVALID_ARGUMENT,
              "SessionOptionsAddInitializer", "value");
  // Nothing was recorded: a session from these options uses the model's c.
  KilnSession* session = s.Session(models::Initializers(), o);
  EXPECT_EQ(RunModel(session, nullptr, {"x"}, {t}, "z"), (std::vector<float>{2, 4}));
}

// ---- Free dimensions by denotation -------------------------------------------------------------

std::vector<int64_t> InputDims(KilnSession* session) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  ExpectOk(api().CreateSessionInputTensorInfo(session, 0, &info));
  size_t rank = 0;
  ExpectOk(api().GetDimensionsCount(info, &rank));
  std::vector<int64_t> dims(rank);
  ExpectOk(api().GetDimensions(info, dims.data(), rank));
  api().ReleaseTensorTypeAndShapeInfo(info);
  return dims;
}

TEST(AddFreeDimensionOverride, FixesEveryDimensionWithTheDenotationWhateverItsCase) {
  Scope s;
  EXPECT_EQ(InputDims(s.Session(models::Denoted(), s.Options())), (std::vector<int64_t>{-1, 2, 3}));
  KilnSessionOptions* o = s.Options();
  ExpectOk(api().AddFreeDimensionOverride(o, "data_batch", 4));
  KilnSession* session = s.Session(models::Denoted(), o);
  EXPECT_EQ(InputDims(session), (std::vector<int64_t>{4, 2, 3}));
  std::vector<float> data(5 * 6, 1.0f);
  const char* in = "x";
  const char* out = "y";
  KilnValue* y = nullptr;
  KilnValue* wrong = s.Floats(data.data(), {5, 2, 3});
  KilnStatus* st = api().Run(session, nullptr, &in, &wrong, 1, &out, 1, &y);
  ExpectMentions(Message(st), {"'x'", "dimension 0 must be 4, not 5"});
  EXPECT_EQ(y, nullptr);
  KilnValue* right = s.Floats(data.data(), {4, 2, 3});
  ExpectOk(api().Run(session, nullptr, &in, &right, 1, &out, 1, &y));
  api().ReleaseValue(y);
}

TEST(AddFreeDimensionOverride, AFixedDimensionOfAnotherSizeIsAnError) {
  Scope s;
  KilnSessionOptions* same = s.Options();
  ExpectOk(api().AddFreeDimensionOverride(same, "DATA_CHANNEL", 2));
  EXPECT_EQ(InputDims(s.Session(models::Denoted(), same)), (std::vector<int64_t>{-1, 2, 3}));
  KilnSessionOptions* other = s.Options();
  ExpectOk(api().AddFreeDimensionOverride(other, "DATA_CHANNEL", 5));
  KilnStatus* st = nullptr;
  EXPECT_EQ(s.Session(models::Denoted(), other, &st), nullptr);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(api().GetErrorCode(st), KILN_INVALID_ARGUMENT);
  ExpectMentions(Message(st),
                 {"'x' dimension 1", "denotation 'DATA_CHANNEL'", "overridden to 5", "size is 2"});
  // A dim_param override that disagrees with a denotation override on the same dimension.
  KilnSessionOptions* both = s.Options();
  ExpectOk(api().AddFreeDimensionOverride(both, "DATA_BATCH", 3));
  ExpectOk(api().AddFreeDimensionOverrideByName(both, "batch", 6));
  EXPECT_EQ(s.Session(models::Denoted(), both, &st), nullptr);
  ExpectMentions(Message(st), {"'x' dimension 0", "overridden to 3", "size is 6"});
}

TEST(AddFreeDimensionOverride, RejectsAnEmptyDenotationAndANegativeValue) {
  Scope s;
  KilnSessionOptions* o = s.Options();
  ExpectError(api().AddFreeDimensionOverride(o, "", 1), KILN_INVALID_ARGUMENT,
              "AddFreeDimensionOverride", "dim_denotation");
  ExpectError(api().AddFreeDimensionOverride(o, "DATA_BATCH", -1), KILN_INVALID_ARGUMENT,
              "AddFreeDimensionOverride", "value");
  EXPECT_EQ(InputDims(s.Session(models::Denoted(), o)), (std::vector<int64_t>{-1, 2, 3}));
}

// ---- Config entries ----------------------------------------------------------------------------

// The entry's value, "(unset)" for NULL.
template <typename Options, typename Get>
std::string Entry(Get get, Options* o, const char* key) {
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  char* out = Sentinel<char>();
  ExpectOk(get(o, key, allocator, &out));
  if (out == Sentinel<char>()) return "(untouched)";
  if (out == nullptr) return "(unset)";
  std::string v = out;
  ExpectOk(api().AllocatorFree(allocator, out));
  return v;
}

TEST(SessionOptionsGetConfigEntry, ReadsBackWhatWasSet) {
  Scope s;
  KilnSessionOptions* o = s.Options();
  EXPECT_EQ(Entry(api().SessionOptionsGetConfigEntry, o, "kiln.arena.enable"), "(unset)");
  ExpectOk(api().AddSessionConfigEntry(o, "kiln.arena.enable", "0"));
  EXPECT_EQ(Entry(api().SessionOptionsGetConfigEntry, o, "kiln.arena.enable"), "0");
  EXPECT_EQ(Entry(api().SessionOptionsGetConfigEntry, o, "kiln.run.check_finite"), "(unset)");
  KilnSessionOptions* clone = nullptr;
  ExpectOk(api().CloneSessionOptions(o, &clone));
  s.options.push_back(clone);
  EXPECT_EQ(Entry(api().SessionOptionsGetConfigEntry, clone, "kiln.arena.enable"), "0");
  char* out = Sentinel<char>();
  KilnStatus* st = api().SessionOptionsGetConfigEntry(o, "session.no_such_key", s.allocator, &out);
  const std::string m = Message(st);
  ExpectMentions(m, {"SessionOptionsGetConfigEntry: ", "argument 'key'", "session.no_such_key"});
  EXPECT_EQ(out, Sentinel<char>());
}

TEST(RunOptionsConfigEntry, KeysAreAListedSetReadBackAfterSetting) {
  Scope s;
  KilnRunOptions* r = s.RunOptions();
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "kiln.run.check_finite"), "(unset)");
  ExpectOk(api().RunOptionsAddConfigEntry(r, "kiln.run.check_finite", "1"));
  ExpectOk(api().RunOptionsAddConfigEntry(r, "memory.enable_memory_arena_shrinkage", "cpu:0"));
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "kiln.run.check_finite"), "1");
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "memory.enable_memory_arena_shrinkage"),
            "cpu:0");
  ExpectOk(api().RunOptionsAddConfigEntry(r, "memory.enable_memory_arena_shrinkage", ""));
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "memory.enable_memory_arena_shrinkage"), "");

  KilnStatus* st = api().RunOptionsAddConfigEntry(r, "kiln.arena.enable", "1");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(api().GetErrorCode(st), KILN_INVALID_ARGUMENT);
  ExpectMentions(Message(st), {"RunOptionsAddConfigEntry: ", "argument 'key'",
                               "'kiln.arena.enable'", "memory.enable_memory_arena_shrinkage"});
  st = api().RunOptionsAddConfigEntry(r, "kiln.run.check_finite", "yes");
  ExpectMentions(Message(st), {"argument 'value'", "'yes'", "kiln.run.check_finite"});
  st = api().RunOptionsAddConfigEntry(r, "memory.enable_memory_arena_shrinkage", "gpu:0");
  ExpectMentions(Message(st), {"argument 'value'", "'gpu:0'", "cpu:0"});
  // The failed calls changed nothing.
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "kiln.run.check_finite"), "1");
  EXPECT_EQ(Entry(api().RunOptionsGetConfigEntry, r, "memory.enable_memory_arena_shrinkage"), "");
  char* out = Sentinel<char>();
  st = api().RunOptionsGetConfigEntry(r, "kiln.arena.enable", s.allocator, &out);
  ExpectMentions(Message(st), {"RunOptionsGetConfigEntry: ", "argument 'key'"});
  EXPECT_EQ(out, Sentinel<char>());
}

TEST(RunOptionsConfigEntry, CheckFiniteOverridesTheSessionsSettingForThatRun) {
  Scope s;
  KilnSessionOptions* checking = s.Options(0);  // level 0: the Identity node stays
  ExpectOk(api().AddSessionConfigEntry(checking, "kiln.run.check_finite", "1"));
  KilnSession* plain = s.Session(models::Identity(), s.Options(0));
  KilnSession* checked = s.Session(models::Identity(), checking);
  float x[2] = {1, std::numeric_limits<float>::infinity()};
  KilnValue* xv = s.Floats(x, {1, 2});
  KilnRunOptions* on = s.RunOptions();
  ExpectOk(api().RunOptionsAddConfigEntry(on, "kiln.run.check_finite", "1"));
  KilnRunOptions* off = s.RunOptions();
  ExpectOk(api().RunOptionsAddConfigEntry(off, "kiln.run.check_finite", "0"));
  KilnStatus* st = nullptr;
  RunModel(plain, nullptr, {"x"}, {xv}, "y", &st);
  EXPECT_EQ(st, nullptr) << Message(st);
  RunModel(plain, on, {"x"}, {xv}, "y", &st);
  ExpectMentions(Message(st), {models::kNodeName, "NaN or infinity"});
  RunModel(checked, nullptr, {"x"}, {xv}, "y", &st);
  ExpectMentions(Message(st), {models::kNodeName, "NaN or infinity"});
  EXPECT_EQ(RunModel(checked, off, {"x"}, {xv}, "y"),
            (std::vector<float>{1, std::numeric_limits<float>::infinity()}));
}

// ---- Profiling start time ----------------------------------------------------------------------

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

TEST(SessionGetProfilingStartTimeNs, IsTakenWhileTheSessionIsCreated) {
  Scope s;
  KilnSessionOptions* o = s.Options();
  const std::string prefix = models::ScratchDir().path() + "/start_time";
  ExpectOk(api().EnableProfiling(o, prefix.c_str()));
  const uint64_t before = NowNs();
  KilnSession* session = s.Session(models::Identity(), o);
  const uint64_t after = NowNs();
  uint64_t start = 0;
  ExpectOk(api().SessionGetProfilingStartTimeNs(session, &start));
  EXPECT_LE(before, start);
  EXPECT_LE(start, after);
  uint64_t off = 7;
  ExpectOk(api().SessionGetProfilingStartTimeNs(s.Session(models::Identity(), s.Options()), &off));
  EXPECT_EQ(off, 0u);
}

}  // namespace
}  // namespace kiln_test
