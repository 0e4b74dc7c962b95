// RunAsync through the C ABI: the results and errors of Run reaching the callback, arguments
// checked before it returns, terminate during a run, handles released while it runs, and many
// runs at once.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "binding_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

class RunAsyncTest : public ::testing::Test {
 protected:
  Owned<KilnEnv> env_ = NewEnv("run-async-test");
  const std::string identity_ = models::Identity();
  Owned<KilnSession> session_ = Load(env_.get(), identity_);
};

// "Run: <rest>" as RunAsync reports it: "RunAsync: <rest>".
std::string AsRunAsync(const std::string& run_message) {
  EXPECT_EQ(run_message.rfind("Run: ", 0), 0u) << run_message;
  return "RunAsync: " + run_message.substr(5);
}

TEST_F(RunAsyncTest, GivesWhatRunGives) {
  const std::string two = models::TwoOutputs();
  Owned<KilnSession> s = Load(env_.get(), two);
  Owned<KilnValue> a = Tensor({2, 2}, {1, 2, 3, 4});
  Owned<KilnValue> b = Tensor<int64_t>({3}, {5, 6, 7}, KILN_ELEMENT_TYPE_INT64);
  Owned<KilnValue> a_copy = Tensor({2, 2}, {0, 0, 0, 0});
  const char* in[] = {"a", "b"};
  const KilnValue* inputs[] = {a.get(), b.get()};
  const char* out[] = {"a_copy", "b_copy"};
  KilnValue* outputs[] = {a_copy.get(), nullptr};
  AsyncResult result;
  ExpectOk(api().RunAsync(s.get(), nullptr, in, inputs, 2, out, 2, outputs, &AsyncResult::Callback,
                          &result));
  ASSERT_TRUE(result.Wait());
  EXPECT_EQ(result.calls, 1);
  EXPECT_EQ(result.outcome.code, KILN_OK) << result.outcome.message;
  EXPECT_EQ(result.outputs, outputs);  // the caller's array, filled
  EXPECT_EQ(result.output_count, 2u);
  EXPECT_EQ(outputs[0], a_copy.get());
  ASSERT_NE(outputs[1], nullptr);
  Owned<KilnValue> b_copy(outputs[1]);

  KilnValue* sync[] = {nullptr, nullptr};
  ExpectOk(api().Run(s.get(), nullptr, in, inputs, 2, out, 2, sync));
  Owned<KilnValue> sync_a(sync[0]);
  Owned<KilnValue> sync_b(sync[1]);
  EXPECT_EQ(Values(a_copy.get()), Values(sync[0]));
  EXPECT_EQ(Values<int64_t>(b_copy.get()), Values<int64_t>(sync[1]));
  EXPECT_EQ(Values<int64_t>(b_copy.get()), (std::vector<int64_t>{5, 6, 7}));
}

TEST_F(RunAsyncTest, ErrorsOfTheRunReachTheCallbackAsRunGivesThem) {
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().AddSessionConfigEntry(options, "kiln.run.check_finite", "1"));
  Owned<KilnSession> checked = Load(env_.get(), identity_, options);
  api().ReleaseSessionOptions(options);
  Owned<KilnValue> nan = Tensor({1, 2}, {1, std::numeric_limits<float>::quiet_NaN()});
  Owned<KilnValue> ints = Tensor<int64_t>({1, 2}, {1, 2}, KILN_ELEMENT_TYPE_INT64);
  Owned<KilnValue> x = Tensor({1, 2}, {1, 2});
  struct Bad {
    const char* what;
    KilnSession* session;
    const char* input_name;
    KilnValue* input;
    const char* output_name;
  };
  const Bad cases[] = {
      {"a kernel error naming the node", checked.get(), "x", nan.get(), "y"},
      {"an input of the wrong type", session_.get(), "x", ints.get(), "y"},
      {"an unknown input", session_.get(), "nope", x.get(), "y"},
      {"an unknown output", session_.get(), "x", x.get(), "nope"},
  };
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.what);
    const char* in[] = {c.input_name};
    const KilnValue* inputs[] = {c.input};
    const char* out[] = {c.output_name};
    Owned<KilnValue> y = Tensor({1, 2}, {-7, -7});
    KilnValue* run_slots[] = {y.get()};
    const Outcome sync = Take(api().Run(c.session, nullptr, in, inputs, 1, out, 1, run_slots));
    ASSERT_NE(sync.code, KILN_OK);
    for (bool given : {true, false}) {
      KilnValue* slots[] = {given ? y.get() : nullptr};
      AsyncResult result;
      ExpectOk(api().RunAsync(c.session, nullptr, in, inputs, 1, out, 1, slots,
                              &AsyncResult::Callback, &result));
      ASSERT_TRUE(result.Wait());
      EXPECT_EQ(result.outcome.code, sync.code);
      EXPECT_EQ(result.outcome.message, AsRunAsync(sync.message));
      EXPECT_EQ(slots[0], given ? y.get() : nullptr);  // untouched
      EXPECT_EQ(Values(y.get()), (std::vector<float>{-7, -7}));
    }
  }
}

TEST_F(RunAsyncTest, BadArgumentsAreReturnedAtOnceAndNoRunStarts) {
  Owned<KilnValue> x = Tensor({1, 2}, {1, 2});
  Owned<KilnValue> seq_item = Tensor({1, 2}, {1, 2});
  const KilnValue* items[] = {seq_item.get()};
  KilnValue* seq = nullptr;
  ExpectOk(api().CreateSequenceValue(items, 1, KILN_ELEMENT_TYPE_FLOAT, &seq));
  Owned<KilnValue> seq_owned(seq);
  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  const char* bad_utf8[] = {"\xc3"};
  AsyncResult result;
  KilnValue* slots[] = {nullptr};
  ExpectError(api().RunAsync(session_.get(), nullptr, in, inputs, 1, out, 0, slots,
                             &AsyncResult::Callback, &result),
              KILN_INVALID_ARGUMENT, "RunAsync", "output_count");
  ExpectError(api().RunAsync(session_.get(), nullptr, in, inputs, 1, bad_utf8, 1, slots,
                             &AsyncResult::Callback, &result),
              KILN_INVALID_ARGUMENT, "RunAsync", "output_names");
  KilnValue* not_a_tensor[] = {seq};
  ExpectError(api().RunAsync(session_.get(), nullptr, in, inputs, 1, out, 1, not_a_tensor,
                             &AsyncResult::Callback, &result),
              KILN_INVALID_ARGUMENT, "RunAsync", "outputs");
  EXPECT_EQ(not_a_tensor[0], seq);
  EXPECT_EQ(slots[0], nullptr);
  // A run started afterwards is the callback's first call.
  ExpectOk(api().RunAsync(session_.get(), nullptr, in, inputs, 1, out, 1, slots,
                          &AsyncResult::Callback, &result));
  ASSERT_TRUE(result.Wait());
  EXPECT_EQ(result.calls, 1);
  Owned<KilnValue> y(slots[0]);
  EXPECT_EQ(Values(y.get()), (std::vector<float>{1, 2}));
}

// Opens when the session logs the start of a run (a verbose "kiln.run" message, logged on the
// thread that runs it).
struct RunStarted {
  std::mutex mutex;
  std::condition_variable cv;
  bool started = false;

  static void KILN_API_CALL Log(void* param, KilnLoggingLevel, const char* category, const char*,
                                const char*, const char*) {
    if (std::strcmp(category, "kiln.run") != 0) return;
    auto* self = static_cast<RunStarted*>(param);
    std::lock_guard<std::mutex> lock(self->mutex);
    self->started = true;
    self->cv.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::minutes(1), [this] { return started; });
  }
};

TEST_F(RunAsyncTest, TerminateDuringARunReachesTheCallback) {
  RunStarted started;
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnvWithCustomLogger(&RunStarted::Log, &started, KILN_LOGGING_LEVEL_WARNING,
                                           "terminate", &env));
  Owned<KilnEnv> env_owned(env);
  KilnSessionOptions* options = nullptr;
  ExpectOk(api().CreateSessionOptions(&options));
  ExpectOk(api().SetIntraOpNumThreads(options, 1));
  ExpectOk(api().SetSessionGraphOptimizationLevel(options, KILN_GRAPH_OPTIMIZATION_DISABLE_ALL));
  // Thousands of nodes over a megabyte each: far longer than the steps below take.
  constexpr int64_t kElements = int64_t{1} << 18;
  const std::string chain = models::NegChain(3000, kElements);
  Owned<KilnSession> s = Load(env, chain, options);
  api().ReleaseSessionOptions(options);
  Owned<KilnRunOptions> ro = NewRunOptions();
  ExpectOk(api().RunOptionsSetRunLogSeverityLevel(ro.get(), KILN_LOGGING_LEVEL_VERBOSE));
  Owned<KilnValue> x = Tensor({kElements});
  const char* in[] = {"x"};
  const KilnValue* inputs[] = {x.get()};
  const char* out[] = {"y"};
  KilnValue* slots[] = {nullptr};
  AsyncResult result;
  ExpectOk(api().RunAsync(s.get(), ro.get(), in, inputs, 1, out, 1, slots, &AsyncResult::Callback,
                          &result));
  ASSERT_TRUE(started.Wait());  // the run is under way on Kiln's thread
  ExpectOk(api().RunOptionsSetTerminate(ro.get()));
  ASSERT_TRUE(result.Wait());
  EXPECT_EQ(result.outcome.code, KILN_TERMINATED) << result.outcome.message;
  EXPECT_EQ(result.outcome.message.rfind("RunAsync: ", 0), 0u) << result.outcome.message;
  EXPECT_NE(result.outcome.message.find("terminated"), std::string::npos);
  EXPECT_EQ(slots[0], nullptr);
}

TEST_F(RunAsyncTest, HandlesMayBeReleasedAsSoonAsItReturns) {
  const std::string two = models::TwoOutputs();
  KilnSession* session = nullptr;
  ExpectOk(api().CreateSessionFromArray(env_.get(), two.data(), two.size(), nullptr, &session));
  KilnRunOptions* ro = nullptr;
  ExpectOk(api().CreateRunOptions(&ro));
  ExpectOk(api().RunOptionsSetRunTag(ro, "released"));
  KilnValue* a = Tensor({3, 2}, {1, 2, 3, 4, 5, 6}).release();
  KilnValue* b = Tensor<int64_t>({3}, {7, 8, 9}, KILN_ELEMENT_TYPE_INT64).release();
  // A caller's output tensor over a caller's array: the run keeps the tensor, the array is ours.
  std::vector<float> written(6, -1.0f);
  KilnMemoryInfo* cpu = nullptr;
  ExpectOk(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &cpu));
  const int64_t shape[] = {3, 2};
  KilnValue* given = nullptr;
  ExpectOk(api().CreateTensorWithDataAsValue(cpu, written.data(), written.size() * sizeof(float),
                                             shape, 2, KILN_ELEMENT_TYPE_FLOAT, &given));
  api().ReleaseMemoryInfo(cpu);
  const char* in[] = {"a", "b"};
  const KilnValue* inputs[] = {a, b};
  const char* out[] = {"a_copy", "b_copy"};
  KilnValue* slots[] = {given, nullptr};
  AsyncResult result;
  ExpectOk(
      api().RunAsync(session, ro, in, inputs, 2, out, 2, slots, &AsyncResult::Callback, &result));
  api().ReleaseSession(session);
  api().ReleaseRunOptions(ro);
  api().ReleaseValue(a);
  api().ReleaseValue(b);
  api().ReleaseValue(given);  // its slot is left holding a stale handle, never dereferenced
  ASSERT_TRUE(result.Wait());
  EXPECT_EQ(result.outcome.code, KILN_OK) << result.outcome.message;
  EXPECT_EQ(written, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  ASSERT_NE(slots[1], nullptr);
  Owned<KilnValue> made(slots[1]);
  EXPECT_EQ(Values<int64_t>(made.get()), (std::vector<int64_t>{7, 8, 9}));
}

// Many runs at once, started from several threads: each callback gets its own run's results.
TEST_F(RunAsyncTest, ManyRunsAtOnceEachGetTheirOwnResults) {
  constexpr int kThreads = 4;
  constexpr int kRunsPerThread = 24;
  constexpr int kRuns = kThreads * kRunsPerThread;
  struct Call {
    Owned<KilnValue> x;
    KilnValue* slots[1] = {nullptr};
    AsyncResult result;
  };
  std::vector<std::unique_ptr<Call>> calls(kRuns);
  for (int i = 0; i < kRuns; ++i) {
    calls[i] = std::make_unique<Call>();
    const int64_t batch = i % 5 + 1;
    std::vector<float> values(static_cast<size_t>(batch) * 2);
    for (size_t k = 0; k < values.size(); ++k)
      values[k] = static_cast<float>(static_cast<size_t>(i) * 100 + k);
    calls[i]->x = Tensor({batch, 2}, values);
  }
  std::atomic<int> start_failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRunsPerThread; ++r) {
        Call& c = *calls[t * kRunsPerThread + r];
        const char* in[] = {"x"};
        const KilnValue* inputs[] = {c.x.get()};
        const char* out[] = {"y"};
        KilnStatus* s = api().RunAsync(session_.get(), nullptr, in, inputs, 1, out, 1, c.slots,
                                       &AsyncResult::Callback, &c.result);
        if (s != nullptr) {
          api().ReleaseStatus(s);
          ++start_failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(start_failures.load(), 0);
  for (int i = 0; i < kRuns; ++i) {
    SCOPED_TRACE(i);
    Call& c = *calls[i];
    ASSERT_TRUE(c.result.Wait());
    EXPECT_EQ(c.result.calls, 1);
    EXPECT_EQ(c.result.outcome.code, KILN_OK) << c.result.outcome.message;
    ASSERT_NE(c.slots[0], nullptr);
    Owned<KilnValue> y(c.slots[0]);
    EXPECT_EQ(Values(y.get()), Values(c.x.get()));
  }
}

// A callback may start the next run.
struct Chain {
  Chain(KilnSession* s, KilnValue* input, int runs) : session(s), x(input), left(runs) {}
  KilnSession* session;
  KilnValue* x;
  const char* in[1] = {"x"};
  const char* out[1] = {"y"};
  KilnValue* slots[1] = {nullptr};
  int left;
  AsyncResult done;

  static void KILN_API_CALL Next(void* user_data, KilnValue** outputs, size_t count,
                                 KilnStatus* status) {
    auto* c = static_cast<Chain*>(user_data);
    if (status == nullptr && --c->left > 0) {
      api().ReleaseValue(outputs[0]);
      outputs[0] = nullptr;
      const KilnValue* inputs[] = {c->x};
      status = api().RunAsync(c->session, nullptr, c->in, inputs, 1, c->out, 1, c->slots, &Next, c);
      if (status == nullptr) return;
    }
    AsyncResult::Callback(&c->done, outputs, count, status);
  }
};

TEST_F(RunAsyncTest, ACallbackMayStartAnotherRun) {
  Owned<KilnValue> x = Tensor({1, 2}, {8, 9});
  Chain chain(session_.get(), x.get(), 5);
  const KilnValue* inputs[] = {x.get()};
  ExpectOk(api().RunAsync(session_.get(), nullptr, chain.in, inputs, 1, chain.out, 1, chain.slots,
                          &Chain::Next, &chain));
  ASSERT_TRUE(chain.done.Wait());
  EXPECT_EQ(chain.done.outcome.code, KILN_OK) << chain.done.outcome.message;
  EXPECT_EQ(chain.left, 0);
  ASSERT_NE(chain.slots[0], nullptr);
  Owned<KilnValue> y(chain.slots[0]);
  EXPECT_EQ(Values(y.get()), (std::vector<float>{8, 9}));
}

}  // namespace
}  // namespace kiln_test
