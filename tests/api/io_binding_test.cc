// IO binding through the C ABI (CreateIoBinding … RunWithBinding): binding by name, runs into
// caller tensors and into values Kiln makes, what is kept between runs, every error, lifetimes.
// The models are test_models.cc's Identity ones; the steady state without allocation is checked
// in tests/models/steady_state_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "binding_test_util.h"
#include "counting_allocator.h"
#include "test_models.h"

namespace kiln_test {
namespace {

class IoBindingTest : public ::testing::Test {
 protected:
  Owned<KilnEnv> env_ = NewEnv("io-binding-test");
  const std::string identity_ = models::Identity();
  Owned<KilnSession> session_ = Load(env_.get(), identity_);
};

// GetBoundOutputNames through a counting allocator, which must end with nothing live.
std::vector<std::string> BoundNames(const KilnIoBinding* binding) {
  CountingAllocator counting;
  char** names = Sentinel<char*>();
  size_t count = kSizeSentinel;
  ExpectOk(api().GetBoundOutputNames(binding, counting.get(), &names, &count));
  std::vector<std::string> out;
  if (count == 0) {
    EXPECT_EQ(names, nullptr);
  }
  for (size_t i = 0; i < count; ++i) {
    out.emplace_back(names[i]);
    counting.get()->Free(counting.get(), names[i]);
  }
  if (names != nullptr) counting.get()->Free(counting.get(), names);
  EXPECT_EQ(counting.live(), 0);
  return out;
}

// GetBoundOutputValues, each value owned; the array is freed.
std::vector<Owned<KilnValue>> BoundValues(const KilnIoBinding* binding) {
  KilnAllocator* allocator = DefaultAllocator();
  KilnValue** values = nullptr;
  size_t count = 0;
  ExpectOk(api().GetBoundOutputValues(binding, allocator, &values, &count));
  std::vector<Owned<KilnValue>> out;
  for (size_t i = 0; i < count; ++i) out.emplace_back(values[i]);
  ExpectOk(api().AllocatorFree(allocator, values));
  return out;
}

void ExpectFailure(KilnStatus* status, KilnErrorCode code, const char* entry,
                   std::initializer_list<std::string> fragments) {
  const Outcome o = Take(status);
  EXPECT_EQ(o.code, code) << o.message;
  EXPECT_EQ(o.message.rfind(std::string(entry) + ": ", 0), 0u) << o.message;
  for (const std::string& f : fragments) {
    EXPECT_NE(o.message.find(f), std::string::npos) << "'" << f << "' not in: " << o.message;
  }
}

TEST_F(IoBindingTest, RunsLikeRunIntoAValueKilnMakes) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutputToDevice(binding.get(), "y", cpu));
  EXPECT_EQ(BoundNames(binding.get()), (std::vector<std::string>{"y"}));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  ExpectOk(api().SynchronizeBoundOutputs(binding.get()));
  std::vector<Owned<KilnValue>> first = BoundValues(binding.get());
  ASSERT_EQ(first.size(), 1u);

  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  KilnValue* y = nullptr;
  ExpectOk(api().Run(session_.get(), nullptr, in, inputs, 1, out, 1, &y));
  Owned<KilnValue> y_owned(y);
  EXPECT_EQ(Values(first[0].get()), Values(y));

  // Each run makes a new value; the ones handed out before are untouched.
  MutableData(x.get())[0] = 10;
  ExpectOk(api().SynchronizeBoundInputs(binding.get()));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  std::vector<Owned<KilnValue>> second = BoundValues(binding.get());
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(Values(second[0].get()), (std::vector<float>{10, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values(first[0].get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_NE(MutableData(second[0].get()), MutableData(first[0].get()));
}

TEST_F(IoBindingTest, WritesACallersTensorInPlaceEachRun) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  Owned<KilnValue> y = Tensor({3, 2}, {-1, -1, -1, -1, -1, -1});
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  for (float first : {1.0f, 7.0f, -3.0f}) {
    MutableData(x.get())[0] = first;  // the binding shares x's tensor
    ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
    EXPECT_EQ(Values(y.get()), (std::vector<float>{first, 2, 3, 4, 5, 6}));
  }
  // The bound tensor itself comes back, shared.
  std::vector<Owned<KilnValue>> values = BoundValues(binding.get());
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(MutableData(values[0].get()), MutableData(y.get()));
}

TEST_F(IoBindingTest, BindingANameAgainReplacesIt) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x1 = Tensor({1, 2}, {1, 2});
  Owned<KilnValue> x2 = Tensor({2, 2}, {3, 4, 5, 6});
  Owned<KilnValue> y1 = Tensor({1, 2}, {0, 0});
  Owned<KilnValue> y2 = Tensor({2, 2}, {0, 0, 0, 0});
  ExpectOk(api().BindInput(binding.get(), "x", x1.get()));
  ExpectOk(api().BindInput(binding.get(), "x", x2.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y1.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y2.get()));
  EXPECT_EQ(BoundNames(binding.get()), (std::vector<std::string>{"y"}));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  EXPECT_EQ(Values(y2.get()), (std::vector<float>{3, 4, 5, 6}));
  EXPECT_EQ(Values(y1.get()), (std::vector<float>{0, 0}));
  // From a caller's tensor to a value Kiln makes: y2 is no longer written.
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_ARENA_ALLOCATOR, KILN_MEM_TYPE_CPU_OUTPUT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindOutputToDevice(binding.get(), "y", cpu));
  MutableData(x2.get())[0] = 30;
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  EXPECT_EQ(Values(y2.get()), (std::vector<float>{3, 4, 5, 6}));
  std::vector<Owned<KilnValue>> values = BoundValues(binding.get());
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(Values(values[0].get()), (std::vector<float>{30, 4, 5, 6}));
}

TEST_F(IoBindingTest, OutputsComeInTheOrderTheyWereFirstBound) {
  const std::string two = models::TwoOutputs();
  Owned<KilnSession> s = Load(env_.get(), two);
  Owned<KilnIoBinding> binding = NewBinding(s.get());
  Owned<KilnValue> a = Tensor({1, 2}, {1.5f, 2.5f});
  Owned<KilnValue> b = Tensor<int64_t>({3}, {7, 8, 9}, KILN_ELEMENT_TYPE_INT64);
  Owned<KilnValue> a_copy = Tensor({1, 2});
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindOutputToDevice(binding.get(), "b_copy", cpu));
  ExpectOk(api().BindOutput(binding.get(), "a_copy", a_copy.get()));
  ExpectOk(api().BindInput(binding.get(), "b", b.get()));
  ExpectOk(api().BindInput(binding.get(), "a", a.get()));
  ExpectOk(api().BindOutputToDevice(binding.get(), "b_copy", cpu));  // keeps its place
  EXPECT_EQ(BoundNames(binding.get()), (std::vector<std::string>{"b_copy", "a_copy"}));
  ExpectOk(api().RunWithBinding(s.get(), nullptr, binding.get()));
  std::vector<Owned<KilnValue>> values = BoundValues(binding.get());
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(Values<int64_t>(values[0].get()), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(Values(values[1].get()), (std::vector<float>{1.5f, 2.5f}));
  EXPECT_EQ(Values(a_copy.get()), (std::vector<float>{1.5f, 2.5f}));
}

TEST_F(IoBindingTest, SequenceAndOptionalOutputsAreMadeByTheRun) {
  const std::string model = models::SequencePassThrough();
  Owned<KilnSession> s = Load(env_.get(), model);
  Owned<KilnIoBinding> binding = NewBinding(s.get());
  Owned<KilnValue> cond = Tensor<uint8_t>({}, {1}, KILN_ELEMENT_TYPE_BOOL);
  Owned<KilnValue> t = Tensor({1, 2}, {4, 5});
  const KilnValue* items[] = {t.get()};
  KilnValue* seq = nullptr;
  ExpectOk(api().CreateSequenceValue(items, 1, KILN_ELEMENT_TYPE_FLOAT, &seq));
  Owned<KilnValue> seq_owned(seq);
  Owned<KilnValue> o_content = Tensor<int64_t>({3}, {1, 2, 3}, KILN_ELEMENT_TYPE_INT64);
  KilnValue* opt = nullptr;
  ExpectOk(api().CreateOptionalValue(o_content.get(), KILN_VALUE_TYPE_TENSOR,
                                     KILN_ELEMENT_TYPE_INT64, &opt));
  Owned<KilnValue> opt_owned(opt);
  ExpectOk(api().BindInput(binding.get(), "cond", cond.get()));
  ExpectOk(api().BindInput(binding.get(), "s", seq));
  ExpectOk(api().BindInput(binding.get(), "o", opt));
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindOutputToDevice(binding.get(), "s_out", cpu));
  ExpectOk(api().BindOutputToDevice(binding.get(), "o_out", cpu));
  // Not a tensor: it cannot be written into.
  ExpectFailure(api().BindOutput(binding.get(), "s_out", seq), KILN_INVALID_ARGUMENT, "BindOutput",
                {"argument 'value'", "seq(tensor(float))"});
  ExpectOk(api().RunWithBinding(s.get(), nullptr, binding.get()));
  std::vector<Owned<KilnValue>> values = BoundValues(binding.get());
  ASSERT_EQ(values.size(), 2u);
  KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
  ExpectOk(api().GetValueType(values[0].get(), &type));
  EXPECT_EQ(type, KILN_VALUE_TYPE_SEQUENCE);
  size_t count = 0;
  ExpectOk(api().GetValueCount(values[0].get(), &count));
  EXPECT_EQ(count, 1u);
  ExpectOk(api().GetValueType(values[1].get(), &type));
  EXPECT_EQ(type, KILN_VALUE_TYPE_OPTIONAL);
}

TEST_F(IoBindingTest, UnknownNamesAreRejectedWhenBoundNamingThem) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({1, 2});
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectFailure(api().BindInput(binding.get(), "nope", x.get()), KILN_INVALID_ARGUMENT, "BindInput",
                {"argument 'name'", "'nope' is not an input", "'x'"});
  ExpectFailure(api().BindInput(binding.get(), "y", x.get()), KILN_INVALID_ARGUMENT, "BindInput",
                {"argument 'name'", "'y' is not an input"});
  ExpectFailure(api().BindOutput(binding.get(), "x", x.get()), KILN_INVALID_ARGUMENT, "BindOutput",
                {"argument 'name'", "'x' is not an output", "'y'"});
  ExpectFailure(api().BindOutputToDevice(binding.get(), "nope", cpu), KILN_INVALID_ARGUMENT,
                "BindOutputToDevice", {"argument 'name'", "'nope' is not an output"});
  ExpectFailure(api().BindInput(binding.get(), "\xff", x.get()), KILN_INVALID_ARGUMENT, "BindInput",
                {"argument 'name'", "UTF-8"});
  // Nothing was bound.
  EXPECT_EQ(BoundNames(binding.get()), std::vector<std::string>{});
  ExpectFailure(api().RunWithBinding(session_.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"argument 'binding'", "input 'x' is not bound"});
}

TEST_F(IoBindingTest, AStringTensorCannotBeAnOutputWrittenInPlace) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> strings = Tensor({3, 2}, std::vector<float>{}, KILN_ELEMENT_TYPE_STRING);
  ExpectFailure(api().BindOutput(binding.get(), "y", strings.get()), KILN_NOT_IMPLEMENTED,
                "BindOutput", {"argument 'value'", "BindOutputToDevice"});
  EXPECT_EQ(BoundNames(binding.get()), std::vector<std::string>{});
}

TEST_F(IoBindingTest, RunErrorsNameTheBindingAndLeaveEverythingAsItWas) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({3, 2}, {1, 2, 3, 4, 5, 6});
  Owned<KilnValue> y = Tensor({3, 2}, {-1, -1, -1, -1, -1, -1});
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectFailure(api().RunWithBinding(session_.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"argument 'binding'", "no output"});
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));

  // An input of the wrong element type: named by the run, reported against the binding.
  Owned<KilnValue> ints = Tensor<int64_t>({3, 2}, {9, 9, 9, 9, 9, 9}, KILN_ELEMENT_TYPE_INT64);
  ExpectOk(api().BindInput(binding.get(), "x", ints.get()));
  ExpectFailure(api().RunWithBinding(session_.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"argument 'binding'", "'x'"});
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  // A bound output of the wrong shape: the caller's tensors and the kept outputs are untouched.
  Owned<KilnValue> x2 = Tensor({2, 2}, {7, 7, 7, 7});
  ExpectOk(api().BindInput(binding.get(), "x", x2.get()));
  ExpectFailure(api().RunWithBinding(session_.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"argument 'binding'", "output 'y'"});
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  std::vector<Owned<KilnValue>> kept = BoundValues(binding.get());
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(Values(kept[0].get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  // A run stopped by its options.
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  MutableData(x.get())[0] = 100;
  Owned<KilnRunOptions> stop = NewRunOptions();
  ExpectOk(api().RunOptionsSetTerminate(stop.get()));
  ExpectFailure(api().RunWithBinding(session_.get(), stop.get(), binding.get()), KILN_TERMINATED,
                "RunWithBinding", {"terminated"});
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ExpectOk(api().RunOptionsUnsetTerminate(stop.get()));
  ExpectOk(api().RunWithBinding(session_.get(), stop.get(), binding.get()));
  EXPECT_EQ(Values(y.get()), (std::vector<float>{100, 2, 3, 4, 5, 6}));
}

TEST_F(IoBindingTest, AKernelErrorNamesTheNodeAndWritesNothing) {
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().AddSessionConfigEntry(options, "kiln.run.check_finite", "1"));
  Owned<KilnSession> checked = Load(env_.get(), identity_, options);
  api().ReleaseSessionOptions(options);
  Owned<KilnIoBinding> binding = NewBinding(checked.get());
  Owned<KilnValue> x = Tensor({1, 2}, {1, std::numeric_limits<float>::quiet_NaN()});
  Owned<KilnValue> y = Tensor({1, 2}, {-7, -7});
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  const Outcome o = Take(api().RunWithBinding(checked.get(), nullptr, binding.get()));
  EXPECT_TRUE(o.code == KILN_RUNTIME_EXCEPTION || o.code == KILN_ENGINE_ERROR) << o.message;
  EXPECT_NE(o.message.find(models::kNodeName), std::string::npos) << o.message;
  EXPECT_EQ(Values(y.get()), (std::vector<float>{-7, -7}));
  KilnValue** values = Sentinel<KilnValue*>();
  size_t count = kSizeSentinel;
  ExpectFailure(api().GetBoundOutputValues(binding.get(), DefaultAllocator(), &values, &count),
                KILN_INVALID_ARGUMENT, "GetBoundOutputValues", {"argument 'binding'"});
  EXPECT_EQ(values, Sentinel<KilnValue*>());
  EXPECT_EQ(count, kSizeSentinel);
}

TEST_F(IoBindingTest, ABindingRunsOnlyWithItsOwnSession) {
  Owned<KilnSession> other = Load(env_.get(), identity_);
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({1, 2}, {1, 2});
  Owned<KilnValue> y = Tensor({1, 2}, {0, 0});
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  ExpectFailure(api().RunWithBinding(other.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"argument 'binding'", "another session"});
  EXPECT_EQ(Values(y.get()), (std::vector<float>{0, 0}));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2}));
}

TEST_F(IoBindingTest, OutputValuesNeedARunSinceTheOutputsWereBound) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({1, 2}, {1, 2});
  Owned<KilnValue> y = Tensor({1, 2}, {0, 0});
  KilnValue** values = Sentinel<KilnValue*>();
  size_t count = kSizeSentinel;
  auto expect_none = [&](const char* when) {
    SCOPED_TRACE(when);
    ExpectFailure(api().GetBoundOutputValues(binding.get(), DefaultAllocator(), &values, &count),
                  KILN_INVALID_ARGUMENT, "GetBoundOutputValues",
                  {"argument 'binding'", "no run has succeeded"});
    EXPECT_EQ(values, Sentinel<KilnValue*>());
    EXPECT_EQ(count, kSizeSentinel);
  };
  expect_none("before any run");
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  expect_none("bound, not run");
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  EXPECT_EQ(BoundValues(binding.get()).size(), 1u);
  ExpectOk(api().BindOutput(binding.get(), "y", y.get()));
  expect_none("after binding an output again");
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  ExpectOk(api().ClearBoundInputs(binding.get()));  // the outputs are kept
  EXPECT_EQ(BoundValues(binding.get()).size(), 1u);
  ExpectFailure(api().RunWithBinding(session_.get(), nullptr, binding.get()), KILN_INVALID_ARGUMENT,
                "RunWithBinding", {"input 'x' is not bound"});
  ExpectOk(api().ClearBoundOutputs(binding.get()));
  expect_none("after clearing the outputs");
  EXPECT_EQ(BoundNames(binding.get()), std::vector<std::string>{});
}

TEST_F(IoBindingTest, ReturnedArraysComeFromTheCallersAllocator) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({1, 2}, {1, 2});
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutputToDevice(binding.get(), "y", cpu));
  ExpectOk(api().RunWithBinding(session_.get(), nullptr, binding.get()));
  for (int fail_from : {1, 2}) {  // the array, then the name
    SCOPED_TRACE(fail_from);
    CountingAllocator failing;
    failing.FailFrom(fail_from);
    char** names = Sentinel<char*>();
    size_t count = kSizeSentinel;
    ExpectFailure(api().GetBoundOutputNames(binding.get(), failing.get(), &names, &count),
                  KILN_OUT_OF_MEMORY, "GetBoundOutputNames", {});
    EXPECT_EQ(names, Sentinel<char*>());
    EXPECT_EQ(count, kSizeSentinel);
    EXPECT_EQ(failing.live(), 0);
  }
  CountingAllocator failing;
  failing.FailFrom(1);
  KilnValue** values = Sentinel<KilnValue*>();
  size_t count = kSizeSentinel;
  ExpectFailure(api().GetBoundOutputValues(binding.get(), failing.get(), &values, &count),
                KILN_OUT_OF_MEMORY, "GetBoundOutputValues", {});
  EXPECT_EQ(values, Sentinel<KilnValue*>());
  CountingAllocator counting;
  ExpectOk(api().GetBoundOutputValues(binding.get(), counting.get(), &values, &count));
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(counting.live(), 1);
  EXPECT_EQ(Values(values[0]), (std::vector<float>{1, 2}));
  api().ReleaseValue(values[0]);
  counting.get()->Free(counting.get(), values);
  EXPECT_EQ(counting.live(), 0);
}

TEST_F(IoBindingTest, TheBindingOutlivesItsSessionAndItsValuesHandles) {
  KilnSession* session = nullptr;
  ExpectOk(api().CreateSessionFromArray(env_.get(), identity_.data(), identity_.size(), nullptr,
                                        &session));
  KilnIoBinding* binding = nullptr;
  ExpectOk(api().CreateIoBinding(session, &binding));
  Owned<KilnIoBinding> owned(binding);
  std::vector<float> out(2, 0.0f);
  {
    Owned<KilnValue> x = Tensor({1, 2}, {3, 4});
    KilnMemoryInfo* cpu = nullptr;
    ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
    const int64_t shape[] = {1, 2};
    KilnValue* y = nullptr;
    ExpectOk(api().CreateTensorWithDataAsValue(cpu, out.data(), out.size() * sizeof(float), shape,
                                               2, KILN_ELEMENT_TYPE_FLOAT, &y));
    api().ReleaseMemoryInfo(cpu);
    ExpectOk(api().BindInput(binding, "x", x.get()));
    ExpectOk(api().BindOutput(binding, "y", y));
    api().ReleaseValue(y);
  }  // x's handle is released too
  ExpectOk(api().RunWithBinding(session, nullptr, binding));
  EXPECT_EQ(out, (std::vector<float>{3, 4}));
  api().ReleaseSession(session);
  // Binding and reading back still work without the session's handle.
  Owned<KilnValue> x = Tensor({1, 2}, {5, 6});
  ExpectOk(api().BindInput(binding, "x", x.get()));
  std::vector<Owned<KilnValue>> values = BoundValues(binding);
  ASSERT_EQ(values.size(), 1u);
  owned.reset();
  EXPECT_EQ(Values(values[0].get()), (std::vector<float>{3, 4}));  // outlives the binding
}

// Runs on one binding from several threads take turns; each sees a whole run.
TEST_F(IoBindingTest, ThreadsSharingABindingTakeTurns) {
  Owned<KilnIoBinding> binding = NewBinding(session_.get());
  Owned<KilnValue> x = Tensor({2, 2}, {1, 2, 3, 4});
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  Owned<KilnMemoryInfo> cpu_owned(cpu);
  ExpectOk(api().BindInput(binding.get(), "x", x.get()));
  ExpectOk(api().BindOutputToDevice(binding.get(), "y", cpu));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 50; ++r) {
        KilnStatus* s = api().RunWithBinding(session_.get(), nullptr, binding.get());
        if (s != nullptr) {
          api().ReleaseStatus(s);
          ++failures;
          continue;
        }
        KilnValue** values = nullptr;
        size_t count = 0;
        s = api().GetBoundOutputValues(binding.get(), DefaultAllocator(), &values, &count);
        if (s != nullptr || count != 1 || Values(values[0]) != std::vector<float>{1, 2, 3, 4}) {
          ++failures;
        }
        api().ReleaseStatus(s);
        for (size_t i = 0; i < count; ++i) api().ReleaseValue(values[i]);
        ExpectOk(api().AllocatorFree(DefaultAllocator(), values));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace kiln_test
