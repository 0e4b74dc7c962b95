// The C++ wrapper (kiln_cxx_api.h): RAII, moves, exceptions and round trips for every type.
#include "kiln/kiln_cxx_api.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

// ---- Compile-time contract ---------------------------------------------------------------------

template <typename T>
constexpr bool kMoveOnly =
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>;
static_assert(kMoveOnly<kiln::Status>);
static_assert(kMoveOnly<kiln::Env>);
static_assert(kMoveOnly<kiln::MemoryInfo>);
static_assert(kMoveOnly<kiln::TensorTypeAndShapeInfo>);
static_assert(kMoveOnly<kiln::Value>);
static_assert(std::is_nothrow_copy_constructible_v<kiln::Exception>);
static_assert(std::is_base_of_v<std::exception, kiln::Exception>);

static_assert(kiln::kElementTypeOf<float> == KILN_ELEMENT_TYPE_FLOAT);
static_assert(kiln::kElementTypeOf<double> == KILN_ELEMENT_TYPE_DOUBLE);
static_assert(kiln::kElementTypeOf<int8_t> == KILN_ELEMENT_TYPE_INT8);
static_assert(kiln::kElementTypeOf<int16_t> == KILN_ELEMENT_TYPE_INT16);
static_assert(kiln::kElementTypeOf<int32_t> == KILN_ELEMENT_TYPE_INT32);
static_assert(kiln::kElementTypeOf<int64_t> == KILN_ELEMENT_TYPE_INT64);
static_assert(kiln::kElementTypeOf<uint8_t> == KILN_ELEMENT_TYPE_UINT8);
static_assert(kiln::kElementTypeOf<uint16_t> == KILN_ELEMENT_TYPE_UINT16);
static_assert(kiln::kElementTypeOf<uint32_t> == KILN_ELEMENT_TYPE_UINT32);
static_assert(kiln::kElementTypeOf<uint64_t> == KILN_ELEMENT_TYPE_UINT64);
static_assert(kiln::kElementTypeOf<bool> == KILN_ELEMENT_TYPE_BOOL);

// ---- Helpers ----------------------------------------------------------------------------------

// Runs `f`, which must throw kiln::Exception with `code` and a message containing `needle`.
template <typename F>
void ExpectKilnError(F&& f, KilnErrorCode code, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no kiln::Exception thrown; expected code " << code << " naming '" << needle
                  << "'";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' does not contain '" << needle << "'";
  }
}

bool IsAligned64(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 64 == 0;
}

kiln::MemoryInfo Cpu() {
  return kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
}

// Installs a modified copy of the real table for one scope, then puts the real one back. Lets a
// test see exactly which entries the wrapper calls, and feed it failures.
class ScopedApi {
 public:
  explicit ScopedApi(const KilnApi* table) : real_(&kiln::Api()) { kiln::InitApi(table); }
  ~ScopedApi() { kiln::InitApi(real_); }
  ScopedApi(const ScopedApi&) = delete;
  ScopedApi& operator=(const ScopedApi&) = delete;

 private:
  const KilnApi* real_;
};

// State of the instrumented entries below (one test at a time uses them).
const KilnApi* g_real = nullptr;
int g_value_releases = 0;
int g_status_releases = 0;
int g_garbage_releases = 0;
char g_garbage_byte;  // its address stands for a handle no one made

template <typename T>
T* Garbage() {
  return reinterpret_cast<T*>(&g_garbage_byte);
}

// A copy of the real table whose Release entries count their calls and never pass garbage on.
KilnApi CountingApi() {
  g_real = &kiln::Api();
  g_value_releases = g_status_releases = g_garbage_releases = 0;
  KilnApi api = *g_real;
  api.ReleaseValue = [](KilnValue* v) {
    if (v == nullptr) return;
    ++g_value_releases;
    if (v == Garbage<KilnValue>()) {
      ++g_garbage_releases;
      return;
    }
    g_real->ReleaseValue(v);
  };
  api.ReleaseStatus = [](KilnStatus* s) {
    if (s == nullptr) return;
    ++g_status_releases;
    g_real->ReleaseStatus(s);
  };
  api.ReleaseEnv = [](KilnEnv* e) {
    if (e == Garbage<KilnEnv>()) {
      ++g_garbage_releases;
      return;
    }
    g_real->ReleaseEnv(e);
  };
  api.ReleaseMemoryInfo = [](KilnMemoryInfo* m) {
    if (m == Garbage<KilnMemoryInfo>()) {
      ++g_garbage_releases;
      return;
    }
    g_real->ReleaseMemoryInfo(m);
  };
  api.ReleaseTensorTypeAndShapeInfo = [](KilnTensorTypeAndShapeInfo* i) {
    if (i == Garbage<KilnTensorTypeAndShapeInfo>()) {
      ++g_garbage_releases;
      return;
    }
    g_real->ReleaseTensorTypeAndShapeInfo(i);
  };
  return api;
}

// ---- Api and Exception ------------------------------------------------------------------------

TEST(CxxApi, ApiIsTheLibrarysTable) {
  const KilnApi* table = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(&kiln::Api(), table);
  EXPECT_EQ(&kiln::Api(), &kiln::Api());
}

TEST(CxxApi, InitApiRejectsNullAndKeepsTheTable) {
  const KilnApi* before = &kiln::Api();
  ExpectKilnError([] { kiln::InitApi(nullptr); }, KILN_INVALID_ARGUMENT, "'api'");
  EXPECT_EQ(&kiln::Api(), before);
}

TEST(CxxException, CarriesCodeAndMessageAndCopies) {
  const kiln::Exception e(KILN_NO_SUCHFILE, std::string("model.onnx: not found"));
  EXPECT_EQ(e.code(), KILN_NO_SUCHFILE);
  EXPECT_STREQ(e.what(), "model.onnx: not found");
  const kiln::Exception copy = e;  // NOLINT(performance-unnecessary-copy-initialization): tested
  EXPECT_EQ(copy.code(), KILN_NO_SUCHFILE);
  EXPECT_STREQ(copy.what(), "model.onnx: not found");
  EXPECT_STREQ(kiln::Exception(KILN_FAIL, static_cast<const char*>(nullptr)).what(), "");
  try {
    throw kiln::Exception(KILN_ENGINE_ERROR, "as std::exception");
  } catch (const std::exception& base) {
    EXPECT_STREQ(base.what(), "as std::exception");
  }
}

TEST(CxxException, ThrowOnErrorPassesNullThrough) {
  EXPECT_NO_THROW(kiln::ThrowOnError(nullptr));
}

TEST(CxxException, ThrowOnErrorThrowsTheStatusAndReleasesItOnce) {
  const KilnApi counting = CountingApi();
  const ScopedApi scope(&counting);
  KilnStatus* status = kiln::Api().CreateStatus(KILN_INVALID_GRAPH, "node 'n1' (Add): bad input");
  try {
    kiln::ThrowOnError(status);
    ADD_FAILURE() << "ThrowOnError did not throw";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_INVALID_GRAPH);
    EXPECT_STREQ(e.what(), "node 'n1' (Add): bad input");
  }
  EXPECT_EQ(g_status_releases, 1);
}

TEST(CxxException, LibraryErrorsNameTheEntryAndArgument) {
  ExpectKilnError(
      [] {
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, -3}, KILN_ELEMENT_TYPE_FLOAT);
      },
      KILN_INVALID_ARGUMENT, "'shape'");
  ExpectKilnError(
      [] {
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, -3}, KILN_ELEMENT_TYPE_FLOAT);
      },
      KILN_INVALID_ARGUMENT, "CreateTensorAsValue");
}

TEST(CxxException, FailedCallsNeverAdoptTheirOutParameter) {
  KilnApi api = CountingApi();
  // Each factory entry fails after scribbling on its out-parameter (which breaks the C contract
  // on purpose: the wrapper must not rely on the out-parameter of a failed call).
  api.CreateTensorAsValue = [](KilnAllocator*, const int64_t*, size_t, KilnElementType,
                               KilnValue** out) {
    *out = Garbage<KilnValue>();
    return g_real->CreateStatus(KILN_OUT_OF_MEMORY, "fake CreateTensorAsValue failure");
  };
  api.CreateTensorWithDataAsValue = [](const KilnMemoryInfo*, void*, size_t, const int64_t*, size_t,
                                       KilnElementType, KilnValue** out) {
    *out = Garbage<KilnValue>();
    return g_real->CreateStatus(KILN_FAIL, "fake CreateTensorWithDataAsValue failure");
  };
  api.CreateEnv = [](KilnLoggingLevel, const char*, KilnEnv** out) {
    *out = Garbage<KilnEnv>();
    return g_real->CreateStatus(KILN_FAIL, "fake CreateEnv failure");
  };
  api.CreateCpuMemoryInfo = [](KilnAllocatorType, KilnMemType, KilnMemoryInfo** out) {
    *out = Garbage<KilnMemoryInfo>();
    return g_real->CreateStatus(KILN_FAIL, "fake CreateCpuMemoryInfo failure");
  };
  api.GetTensorTypeAndShape = [](const KilnValue*, KilnTensorTypeAndShapeInfo** out) {
    *out = Garbage<KilnTensorTypeAndShapeInfo>();
    return g_real->CreateStatus(KILN_FAIL, "fake GetTensorTypeAndShape failure");
  };
  kiln::MemoryInfo cpu = Cpu();  // made with the real table
  const ScopedApi scope(&api);

  ExpectKilnError(
      [] { kiln::Value::CreateTensor(kiln::Allocator::Default(), {1}, KILN_ELEMENT_TYPE_FLOAT); },
      KILN_OUT_OF_MEMORY, "fake CreateTensorAsValue failure");
  float data[2] = {1, 2};
  ExpectKilnError([&] { kiln::Value::CreateTensor(cpu, data, 2, {2}); }, KILN_FAIL,
                  "fake CreateTensorWithDataAsValue failure");
  ExpectKilnError([] { kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "x"); }, KILN_FAIL,
                  "fake CreateEnv failure");
  ExpectKilnError([] { Cpu(); }, KILN_FAIL, "fake CreateCpuMemoryInfo failure");
  ExpectKilnError([] { kiln::Value().type_and_shape(); }, KILN_FAIL,
                  "fake GetTensorTypeAndShape failure");
  EXPECT_EQ(g_garbage_releases, 0);
  EXPECT_EQ(g_value_releases, 0);
  EXPECT_EQ(g_status_releases, 5);  // every failure's status was released
}

// ---- Status -----------------------------------------------------------------------------------

TEST(CxxStatus, DefaultIsSuccess) {
  const kiln::Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_FALSE(ok);
  EXPECT_EQ(ok.get(), nullptr);
  EXPECT_EQ(ok.code(), KILN_OK);
  EXPECT_EQ(ok.message(), "");
}

TEST(CxxStatus, CreatedByTheUser) {
  const kiln::Status s(KILN_NOT_IMPLEMENTED, "op 'Foo' is not supported \xE2\x9C\x93");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), KILN_NOT_IMPLEMENTED);
  EXPECT_EQ(s.message(), "op 'Foo' is not supported \xE2\x9C\x93");
  EXPECT_EQ(kiln::Api().GetErrorCode(s.get()), KILN_NOT_IMPLEMENTED);

  const kiln::Status from_exception(kiln::Exception(KILN_NO_MODEL, "no model loaded"));
  EXPECT_EQ(from_exception.code(), KILN_NO_MODEL);
  EXPECT_EQ(from_exception.message(), "no model loaded");
}

TEST(CxxStatus, MoveLeavesNullAndReleaseGivesUpOwnership) {
  kiln::Status a(KILN_FAIL, "first");
  KilnStatus* raw = a.get();
  kiln::Status b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_TRUE(a.ok());          // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.get(), raw);

  kiln::Status c(KILN_ENGINE_ERROR, "second");
  c = std::move(b);  // releases "second"
  EXPECT_EQ(c.get(), raw);
  EXPECT_EQ(c.message(), "first");

  KilnStatus* owned = c.release();
  EXPECT_EQ(owned, raw);
  EXPECT_EQ(c.get(), nullptr);
  kiln::Api().ReleaseStatus(owned);

  const kiln::Status adopted(kiln::Api().CreateStatus(KILN_TERMINATED, "stopped"));
  EXPECT_EQ(adopted.code(), KILN_TERMINATED);
}

// ---- Env and logging --------------------------------------------------------------------------

struct LogEntry {
  KilnLoggingLevel severity;
  std::string log_id;
  std::string message;
};

struct LogCapture {
  std::mutex mu;
  std::vector<LogEntry> entries;

  size_t size() {
    const std::lock_guard<std::mutex> lock(mu);
    return entries.size();
  }
};

void KILN_API_CALL Capture(void* param, KilnLoggingLevel severity, const char* /*category*/,
                           const char* log_id, const char* /*code_location*/, const char* message) {
  auto* capture = static_cast<LogCapture*>(param);
  const std::lock_guard<std::mutex> lock(capture->mu);
  capture->entries.push_back({severity, log_id, message});
}

TEST(CxxEnv, CreateAndMove) {
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "cxx-env");
  ASSERT_TRUE(env);
  KilnEnv* raw = env.get();
  kiln::Env moved(std::move(env));
  EXPECT_EQ(env.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.get(), raw);
  kiln::Env assigned;
  EXPECT_FALSE(assigned);
  assigned = std::move(moved);
  EXPECT_EQ(assigned.get(), raw);
  EXPECT_EQ(moved.get(), nullptr);  // NOLINT(bugprone-use-after-move)
}

TEST(CxxEnv, BadArgumentsThrow) {
  ExpectKilnError([] { kiln::Env env(KILN_LOGGING_LEVEL_WARNING, nullptr); }, KILN_INVALID_ARGUMENT,
                  "'log_id'");
  ExpectKilnError([] { kiln::Env env(static_cast<KilnLoggingLevel>(7), "x"); },
                  KILN_INVALID_ARGUMENT, "'min_severity'");
  ExpectKilnError([] { kiln::Env env(nullptr, nullptr, KILN_LOGGING_LEVEL_WARNING, "x"); },
                  KILN_INVALID_ARGUMENT, "'logging_function'");
}

TEST(CxxEnv, CustomLoggerReceivesGetApiErrorUntilReleased) {
  LogCapture log;
  {
    kiln::Env env(&Capture, &log, KILN_LOGGING_LEVEL_WARNING, "cxx-logger");
    EXPECT_EQ(KilnGetApiBase()->GetApi(9999), nullptr);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log.entries[0].severity, KILN_LOGGING_LEVEL_ERROR);
    EXPECT_EQ(log.entries[0].log_id, "cxx-logger");
    EXPECT_NE(log.entries[0].message.find("9999"), std::string::npos) << log.entries[0].message;

    // The handle survives a move: the moved-to Env still logs.
    const kiln::Env moved(std::move(env));
    EXPECT_EQ(KilnGetApiBase()->GetApi(9998), nullptr);
    ASSERT_EQ(log.size(), 2u);
    EXPECT_NE(log.entries[1].message.find("9998"), std::string::npos) << log.entries[1].message;
  }
  // Destroying the Env released it: the message goes to stderr, not to the callback.
  testing::internal::CaptureStderr();
  EXPECT_EQ(KilnGetApiBase()->GetApi(9997), nullptr);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(log.size(), 2u);
  EXPECT_NE(err.find("9997"), std::string::npos) << err;
}

// ---- MemoryInfo and Allocator -----------------------------------------------------------------

TEST(CxxMemoryInfo, CreateCpuAndGetters) {
  const kiln::MemoryInfo info =
      kiln::MemoryInfo::CreateCpu(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_CPU_OUTPUT);
  ASSERT_TRUE(info);
  EXPECT_EQ(info.name(), "Cpu");
  EXPECT_EQ(info.id(), 0);
  EXPECT_EQ(info.mem_type(), KILN_MEM_TYPE_CPU_OUTPUT);
  EXPECT_EQ(info.allocator_type(), KILN_ARENA_ALLOCATOR);

  const kiln::ConstMemoryInfo view = info;
  EXPECT_EQ(view.get(), info.get());
  EXPECT_EQ(view.name(), "Cpu");
  EXPECT_EQ(view.id(), 0);
  EXPECT_EQ(view.mem_type(), KILN_MEM_TYPE_CPU_OUTPUT);
  EXPECT_EQ(view.allocator_type(), KILN_ARENA_ALLOCATOR);
}

TEST(CxxMemoryInfo, Equality) {
  const kiln::MemoryInfo device = Cpu();
  const kiln::MemoryInfo arena =
      kiln::MemoryInfo::CreateCpu(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
  const kiln::MemoryInfo input =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_CPU_INPUT);
  EXPECT_TRUE(device == device);
  EXPECT_TRUE(device == arena);  // the allocator type is not compared
  EXPECT_FALSE(device != arena);
  EXPECT_FALSE(device == input);
  EXPECT_TRUE(device != input);
  EXPECT_TRUE(kiln::ConstMemoryInfo(input.get()) == input);
  ExpectKilnError([&] { return device == kiln::ConstMemoryInfo(); }, KILN_INVALID_ARGUMENT, "'b'");
}

// Bad enum values stay inside each enum's range of values (KilnMemType: -2..1, KilnElementType:
// 0..31): casting anything further out is undefined behaviour in C++ before Kiln sees it.
TEST(CxxMemoryInfo, BadArgumentsAndEmptyHandlesThrow) {
  ExpectKilnError(
      [] { kiln::MemoryInfo::CreateCpu(KILN_INVALID_ALLOCATOR, KILN_MEM_TYPE_DEFAULT); },
      KILN_INVALID_ARGUMENT, "'allocator_type'");
  ExpectKilnError(
      [] { kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, static_cast<KilnMemType>(1)); },
      KILN_INVALID_ARGUMENT, "'mem_type'");
  ExpectKilnError([] { return kiln::MemoryInfo().name(); }, KILN_INVALID_ARGUMENT, "'info'");
  ExpectKilnError([] { return kiln::ConstMemoryInfo().id(); }, KILN_INVALID_ARGUMENT, "'info'");
}

TEST(CxxMemoryInfo, MoveLeavesNull) {
  kiln::MemoryInfo a = Cpu();
  const KilnMemoryInfo* raw = a.get();
  kiln::MemoryInfo b = std::move(a);
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.get(), raw);
  ExpectKilnError([&] { return a.mem_type(); }, KILN_INVALID_ARGUMENT, "'info'");
  a = kiln::MemoryInfo::CreateCpu(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_CPU_INPUT);
  EXPECT_EQ(a.mem_type(), KILN_MEM_TYPE_CPU_INPUT);
  b = std::move(a);  // releases the first info
  EXPECT_EQ(b.mem_type(), KILN_MEM_TYPE_CPU_INPUT);
  KilnMemoryInfo* released = b.release();
  EXPECT_EQ(b.get(), nullptr);
  kiln::Api().ReleaseMemoryInfo(released);
}

TEST(CxxAllocator, DefaultAllocsAlignedMemoryAndFrees) {
  const kiln::Allocator allocator = kiln::Allocator::Default();
  ASSERT_NE(allocator.get(), nullptr);
  EXPECT_EQ(kiln::Allocator::Default().get(), allocator.get());
  for (size_t size : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 20}) {
    void* p = allocator.Alloc(size);
    ASSERT_NE(p, nullptr) << size;
    EXPECT_TRUE(IsAligned64(p)) << size;
    std::memset(p, 0xA5, size);  // every byte is usable (ASan checks)
    allocator.Free(p);
  }
  void* empty = allocator.Alloc(0);
  EXPECT_NE(empty, nullptr);
  allocator.Free(empty);
  allocator.Free(nullptr);
}

TEST(CxxAllocator, InfoDescribesCpuMemory) {
  const kiln::ConstMemoryInfo info = kiln::Allocator::Default().Info();
  ASSERT_NE(info.get(), nullptr);
  EXPECT_EQ(info.name(), "Cpu");
  EXPECT_EQ(info.id(), 0);
  EXPECT_EQ(info.mem_type(), KILN_MEM_TYPE_DEFAULT);
  EXPECT_TRUE(info == Cpu());
}

TEST(CxxAllocator, NullAllocatorThrows) {
  const kiln::Allocator none(nullptr);
  ExpectKilnError([&] { return none.Alloc(16); }, KILN_INVALID_ARGUMENT, "'allocator'");
  ExpectKilnError([&] { return none.Info(); }, KILN_INVALID_ARGUMENT, "'allocator'");
  ExpectKilnError([&] { kiln::Value::CreateTensor(none, {1}, KILN_ELEMENT_TYPE_FLOAT); },
                  KILN_INVALID_ARGUMENT, "'allocator'");
}

// ---- Tensors ----------------------------------------------------------------------------------

TEST(CxxValue, AllocatedTensorRoundTrip) {
  kiln::Value t =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, 3, 4}, KILN_ELEMENT_TYPE_FLOAT);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t.is_tensor());
  EXPECT_EQ(t.value_type(), KILN_VALUE_TYPE_TENSOR);
  EXPECT_EQ(t.size_in_bytes(), 24 * sizeof(float));
  float* data = t.data<float>();
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(IsAligned64(data));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(data[i], 0.0f) << i;  // zero-filled
  for (int i = 0; i < 24; ++i) data[i] = 0.5f * static_cast<float>(i);

  const kiln::Value& read_only = t;
  const float* again = read_only.data<float>();
  EXPECT_EQ(again, data);
  for (int i = 0; i < 24; ++i) EXPECT_EQ(again[i], 0.5f * static_cast<float>(i)) << i;

  const kiln::TensorTypeAndShapeInfo info = t.type_and_shape();
  EXPECT_EQ(info.element_type(), KILN_ELEMENT_TYPE_FLOAT);
  EXPECT_EQ(info.rank(), 3u);
  EXPECT_EQ(info.shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(info.symbolic_shape(), (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(info.element_count(), 24u);
  EXPECT_TRUE(t.memory_info() == kiln::Allocator::Default().Info());
}

TEST(CxxValue, ScalarAndEmptyTensors) {
  kiln::Value scalar =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {}, KILN_ELEMENT_TYPE_INT64);
  EXPECT_EQ(scalar.type_and_shape().rank(), 0u);
  EXPECT_TRUE(scalar.type_and_shape().shape().empty());
  EXPECT_EQ(scalar.type_and_shape().element_count(), 1u);
  EXPECT_EQ(scalar.size_in_bytes(), sizeof(int64_t));
  *scalar.data<int64_t>() = -42;
  EXPECT_EQ(*scalar.data<int64_t>(), -42);

  kiln::Value empty =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {0, 5}, KILN_ELEMENT_TYPE_DOUBLE);
  EXPECT_EQ(empty.type_and_shape().shape(), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(empty.type_and_shape().element_count(), 0u);
  EXPECT_EQ(empty.size_in_bytes(), 0u);
  EXPECT_EQ(empty.data<double>(), nullptr);
}

TEST(CxxValue, NegativeDimensionThrowsNamingShape) {
  ExpectKilnError(
      [] {
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, -1}, KILN_ELEMENT_TYPE_FLOAT);
      },
      KILN_INVALID_ARGUMENT, "'shape'");
  float data[2] = {0, 0};
  ExpectKilnError([&] { kiln::Value::CreateTensor(Cpu(), data, 2, {-2}); }, KILN_INVALID_ARGUMENT,
                  "'shape'");
}

TEST(CxxValue, BadTypeOrSizeThrowsNamingTheArgument) {
  ExpectKilnError(
      [] {
        // 27: not an element type, yet inside KilnElementType's range (see above).
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {1},
                                  static_cast<KilnElementType>(27));
      },
      KILN_INVALID_ARGUMENT, "'element_type'");
  float data[6] = {};
  ExpectKilnError(
      [&] {
        kiln::Value::CreateTensor(Cpu(), data, 5, {2, 3});
      },
      KILN_INVALID_ARGUMENT, "'data_len'");
  // count * sizeof(T) overflows: caught by the wrapper before the C call.
  ExpectKilnError(
      [&] { kiln::Value::CreateTensor(Cpu(), data, std::numeric_limits<size_t>::max() / 2, {1}); },
      KILN_INVALID_ARGUMENT, "'count'");
}

TEST(CxxValue, EmptyValueThrowsInsteadOfCrashing) {
  kiln::Value none;
  EXPECT_FALSE(none);
  ExpectKilnError([&] { return none.is_tensor(); }, KILN_INVALID_ARGUMENT, "'value'");
  ExpectKilnError([&] { return none.data<float>(); }, KILN_INVALID_ARGUMENT, "'value'");
  ExpectKilnError([&] { return none.type_and_shape(); }, KILN_INVALID_ARGUMENT, "'value'");
  ExpectKilnError([] { return kiln::TensorTypeAndShapeInfo().rank(); }, KILN_INVALID_ARGUMENT,
                  "'info'");
}

TEST(CxxValue, MoveReleasesEachTensorExactlyOnce) {
  const KilnApi counting = CountingApi();
  const ScopedApi scope(&counting);
  {
    kiln::Value a =
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {4}, KILN_ELEMENT_TYPE_INT32);
    KilnValue* raw = a.get();
    a.data<int32_t>()[3] = 7;

    kiln::Value b(std::move(a));
    EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move)
    EXPECT_FALSE(a);              // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(b.get(), raw);
    EXPECT_EQ(b.data<int32_t>()[3], 7);

    kiln::Value c =
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {1}, KILN_ELEMENT_TYPE_INT32);
    c = std::move(b);  // releases c's own tensor
    EXPECT_EQ(g_value_releases, 1);
    EXPECT_EQ(c.get(), raw);
    EXPECT_EQ(b.get(), nullptr);  // NOLINT(bugprone-use-after-move)

    kiln::Value& alias = c;
    c = std::move(alias);  // self-move keeps the tensor
    EXPECT_EQ(c.get(), raw);
    EXPECT_EQ(g_value_releases, 1);
  }
  EXPECT_EQ(g_value_releases, 2);  // a and b, moved from, released nothing
}

TEST(CxxValue, ReleaseGivesUpOwnership) {
  const KilnApi counting = CountingApi();
  const ScopedApi scope(&counting);
  KilnValue* raw = nullptr;
  {
    kiln::Value t =
        kiln::Value::CreateTensor(kiln::Allocator::Default(), {2}, KILN_ELEMENT_TYPE_UINT8);
    raw = t.release();
    EXPECT_EQ(t.get(), nullptr);
  }
  EXPECT_EQ(g_value_releases, 0);
  const kiln::Value adopted(raw);
  EXPECT_EQ(adopted.type_and_shape().shape(), (std::vector<int64_t>{2}));
}

TEST(CxxValue, TypeAndShapeInfoMoves) {
  const kiln::Value t =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {3, 1}, KILN_ELEMENT_TYPE_INT16);
  kiln::TensorTypeAndShapeInfo a = t.type_and_shape();
  const KilnTensorTypeAndShapeInfo* raw = a.get();
  kiln::TensorTypeAndShapeInfo b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.get(), raw);
  EXPECT_EQ(b.element_type(), KILN_ELEMENT_TYPE_INT16);
  a = t.type_and_shape();
  b = std::move(a);  // releases the first snapshot
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{3, 1}));
}

TEST(CxxValue, TensorOutlivesItsMemoryInfo) {
  float data[3] = {1, 2, 3};
  kiln::Value t;
  {
    const kiln::MemoryInfo info =
        kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_CPU_INPUT);
    t = kiln::Value::CreateTensor(info, data, 3, {3});
  }
  EXPECT_EQ(t.memory_info().mem_type(), KILN_MEM_TYPE_CPU_INPUT);
  EXPECT_EQ(t.memory_info().name(), "Cpu");
  EXPECT_EQ(t.data<float>()[2], 3.0f);
}

// ---- Tensors over user data, for every mapped element type -----------------------------------

template <typename T>
class CxxUserDataTensor : public testing::Test {};

using ElementTypes = testing::Types<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t,
                                    uint16_t, uint32_t, uint64_t, bool>;
TYPED_TEST_SUITE(CxxUserDataTensor, ElementTypes);

TYPED_TEST(CxxUserDataTensor, WrapsTheBufferWithoutCopying) {
  using T = TypeParam;
  T buffer[6];
  for (int i = 0; i < 6; ++i) buffer[i] = static_cast<T>(i % 2);
  const kiln::MemoryInfo cpu = Cpu();
  kiln::Value t = kiln::Value::CreateTensor(cpu, buffer, 6, {3, 2});
  EXPECT_TRUE(t.is_tensor());
  EXPECT_EQ(t.data<T>(), buffer);
  EXPECT_EQ(t.size_in_bytes(), sizeof buffer);
  const kiln::TensorTypeAndShapeInfo info = t.type_and_shape();
  EXPECT_EQ(info.element_type(), kiln::kElementTypeOf<T>);
  EXPECT_EQ(info.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(info.element_count(), 6u);
  EXPECT_TRUE(t.memory_info() == cpu);

  t.data<T>()[4] = static_cast<T>(1);  // written through the tensor, seen in the buffer
  EXPECT_EQ(buffer[4], static_cast<T>(1));
  buffer[1] = static_cast<T>(0);  // and the other way
  EXPECT_EQ(t.data<T>()[1], static_cast<T>(0));
}

// ---- String tensors ---------------------------------------------------------------------------

kiln::Value StringTensor(const std::vector<int64_t>& shape) {
  return kiln::Value::CreateTensor(kiln::Allocator::Default(), shape, KILN_ELEMENT_TYPE_STRING);
}

TEST(CxxStrings, StartEmptyThenFillAndReadBack) {
  kiln::Value t = StringTensor({2, 2});
  EXPECT_EQ(t.type_and_shape().element_type(), KILN_ELEMENT_TYPE_STRING);
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"", "", "", ""}));

  const std::vector<std::string> text = {
      "hello", "", "h\xC3\xA9llo w\xC3\xB6rld",                // é, ö: two bytes each
      "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x99\x82"  // 日本語, then a 4-byte emoji
  };
  t.fill_strings(text);
  EXPECT_EQ(t.strings(), text);
  for (size_t i = 0; i < text.size(); ++i) EXPECT_EQ(t.string_at(i), text[i]) << i;

  t.set_string(1, "\xE2\x82\xAC");  // €
  t.set_string(0, "");
  EXPECT_EQ(t.string_at(1), "\xE2\x82\xAC");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"", "\xE2\x82\xAC", text[2], text[3]}));
}

TEST(CxxStrings, AllEmptyAndNoElements) {
  kiln::Value t = StringTensor({3});
  t.fill_strings({"", "", ""});
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(t.string_at(2), "");

  kiln::Value none = StringTensor({0});
  none.fill_strings({});
  EXPECT_TRUE(none.strings().empty());
}

TEST(CxxStrings, InvalidUtf8ThrowsAndLeavesTheTensorAlone) {
  kiln::Value t = StringTensor({2});
  t.fill_strings({"a", "b"});
  ExpectKilnError([&] { t.fill_strings({"ok", "\xC3\x28"}); }, KILN_INVALID_ARGUMENT, "UTF-8");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"a", "b"}));
  ExpectKilnError([&] { t.set_string(0, "\xFF"); }, KILN_INVALID_ARGUMENT, "UTF-8");
  ExpectKilnError([&] { t.set_string(1, "\xF0\x9F\x99"); }, KILN_INVALID_ARGUMENT, "UTF-8");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"a", "b"}));
}

TEST(CxxStrings, NulBytesCountsAndIndicesAreChecked) {
  kiln::Value t = StringTensor({2});
  ExpectKilnError(
      [&] {
        t.fill_strings({"a", std::string("b\0c", 3)});
      },
      KILN_INVALID_ARGUMENT, "NUL");
  ExpectKilnError([&] { t.set_string(0, std::string("\0", 1)); }, KILN_INVALID_ARGUMENT, "NUL");
  ExpectKilnError([&] { t.fill_strings({"only one"}); }, KILN_INVALID_ARGUMENT, "'s_len'");
  ExpectKilnError([&] { t.set_string(2, "x"); }, KILN_INVALID_ARGUMENT, "'index'");
  ExpectKilnError([&] { return t.string_at(2); }, KILN_INVALID_ARGUMENT, "'index'");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"", ""}));
}

TEST(CxxStrings, StringAndNumericEntriesDoNotMix) {
  kiln::Value strings = StringTensor({1});
  ExpectKilnError([&] { return strings.data<char>(); }, KILN_INVALID_ARGUMENT, "string tensor");
  ExpectKilnError([&] { return strings.size_in_bytes(); }, KILN_INVALID_ARGUMENT, "string tensor");
  kiln::Value floats =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {1}, KILN_ELEMENT_TYPE_FLOAT);
  ExpectKilnError([&] { return floats.strings(); }, KILN_INVALID_ARGUMENT, "not a string tensor");
  ExpectKilnError([&] { floats.set_string(0, "x"); }, KILN_INVALID_ARGUMENT, "not a string tensor");
}

}  // namespace
