// The C++ wrapper's IO binding and asynchronous runs: kiln::IoBinding, Session::CreateIoBinding,
// Session::Run with a binding and Session::RunAsync, over test_models.cc's Identity models.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kiln/kiln_cxx_api.h"
#include "test_models.h"

namespace {

static_assert(!std::is_copy_constructible_v<kiln::IoBinding> &&
              std::is_nothrow_move_constructible_v<kiln::IoBinding> &&
              std::is_nothrow_move_assignable_v<kiln::IoBinding>);

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

kiln::MemoryInfo Cpu() {
  return kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
}

kiln::Value FloatTensor(std::vector<float>& data, const std::vector<int64_t>& shape) {
  return kiln::Value::CreateTensor(Cpu(), data.data(), data.size(), shape);
}

std::vector<float> Floats(const kiln::Value& v) {
  const float* p = v.data<float>();
  return std::vector<float>(p, p + v.type_and_shape().element_count());
}

class CxxIoBinding : public ::testing::Test {
 protected:
  kiln::Env env_{KILN_LOGGING_LEVEL_FATAL, "cxx-io-binding-test"};
  const std::string identity_ = kiln_test::models::Identity();
  kiln::Session session_ = kiln::Session::CreateFromBytes(env_, identity_.data(), identity_.size());
};

TEST_F(CxxIoBinding, BindsRunsAndReadsBack) {
  kiln::IoBinding binding = session_.CreateIoBinding();
  ASSERT_TRUE(binding);
  std::vector<float> x_data = {1, 2, 3, 4};
  std::vector<float> y_data = {0, 0, 0, 0};
  kiln::Value x = FloatTensor(x_data, {2, 2});
  kiln::Value y = FloatTensor(y_data, {2, 2});
  binding.BindInput("x", x);
  binding.BindOutput("y", y);
  binding.SynchronizeInputs();
  session_.Run(kiln::RunOptions(), binding);
  binding.SynchronizeOutputs();
  EXPECT_EQ(y_data, x_data);
  x_data[3] = 40;  // bound by reference
  session_.Run(kiln::RunOptions(), binding);
  EXPECT_EQ(y_data, (std::vector<float>{1, 2, 3, 40}));
  EXPECT_EQ(binding.output_names(), (std::vector<std::string>{"y"}));
  std::vector<kiln::Value> values = binding.output_values();
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].data<float>(), y_data.data());  // the bound tensor itself

  // Left to Kiln: a new value per run.
  binding.BindOutput("y", Cpu());
  session_.Run(kiln::RunOptions(), binding);
  std::vector<kiln::Value> made = binding.output_values();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_NE(made[0].data<float>(), y_data.data());
  EXPECT_EQ(Floats(made[0]), (std::vector<float>{1, 2, 3, 40}));

  binding.ClearBoundOutputs();
  EXPECT_EQ(binding.output_names(), std::vector<std::string>{});
  ExpectKilnError([&] { binding.output_values(); }, KILN_INVALID_ARGUMENT, "argument 'binding'");
  binding.ClearBoundInputs();
  binding.BindOutput("y", Cpu());
  ExpectKilnError([&] { session_.Run(kiln::RunOptions(), binding); }, KILN_INVALID_ARGUMENT,
                  "input 'x' is not bound");
}

TEST_F(CxxIoBinding, ErrorsThrowNamingTheArgument) {
  kiln::IoBinding binding = session_.CreateIoBinding();
  std::vector<float> data = {1, 2};
  kiln::Value x = FloatTensor(data, {1, 2});
  ExpectKilnError([&] { binding.BindInput("nope", x); }, KILN_INVALID_ARGUMENT,
                  "BindInput: argument 'name': 'nope' is not an input");
  ExpectKilnError([&] { binding.BindOutput("x", x); }, KILN_INVALID_ARGUMENT,
                  "BindOutput: argument 'name'");
  ExpectKilnError([&] { binding.BindOutput(std::string("y\0z", 3), Cpu()); }, KILN_INVALID_ARGUMENT,
                  "NUL");
  kiln::Session other = kiln::Session::CreateFromBytes(env_, identity_.data(), identity_.size());
  binding.BindInput("x", x);
  binding.BindOutput("y", Cpu());
  ExpectKilnError([&] { other.Run(kiln::RunOptions(), binding); }, KILN_INVALID_ARGUMENT,
                  "another session");
  kiln::IoBinding empty;
  ExpectKilnError([&] { empty.ClearBoundInputs(); }, KILN_INVALID_ARGUMENT, "argument 'binding'");
  ExpectKilnError([&] { kiln::Session().CreateIoBinding(); }, KILN_INVALID_ARGUMENT,
                  "argument 'session'");
}

TEST_F(CxxIoBinding, TheBindingKeepsTheSessionAlive) {
  kiln::IoBinding binding;
  {
    kiln::Session s = kiln::Session::CreateFromBytes(env_, identity_.data(), identity_.size());
    binding = s.CreateIoBinding();
  }
  std::vector<float> data = {5, 6};
  binding.BindInput("x", FloatTensor(data, {1, 2}));  // a temporary: the binding shares it
  binding.BindOutput("y", Cpu());
  EXPECT_EQ(binding.output_names(), (std::vector<std::string>{"y"}));
}

// The outcome of a RunAsync callback, through a future.
struct AsyncOutcome {
  std::vector<std::vector<float>> outputs;
  KilnErrorCode code = KILN_OK;
  std::string message;
};

std::future<AsyncOutcome> StartRun(const kiln::Session& s, const kiln::RunOptions& ro,
                                   const std::string& input, kiln::Value x,
                                   const std::string& output) {
  auto promise = std::make_shared<std::promise<AsyncOutcome>>();
  std::future<AsyncOutcome> future = promise->get_future();
  std::vector<kiln::Value> inputs;
  inputs.push_back(std::move(x));
  s.RunAsync(ro, {input}, inputs, {output},
             [promise](const std::vector<kiln::Value>& outputs, const kiln::Status& status) {
               AsyncOutcome o;
               o.code = status.code();
               o.message = status.message();
               for (const kiln::Value& v : outputs) o.outputs.push_back(Floats(v));
               promise->set_value(std::move(o));
             });
  return future;
}

TEST_F(CxxIoBinding, RunAsyncGivesWhatRunGives) {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  std::future<AsyncOutcome> f = StartRun(session_, kiln::RunOptions(), "x",
                                         FloatTensor(data, {3, 2}), "y");  // inputs released here
  ASSERT_EQ(f.wait_for(std::chrono::minutes(1)), std::future_status::ready);
  const AsyncOutcome o = f.get();
  EXPECT_EQ(o.code, KILN_OK) << o.message;
  ASSERT_EQ(o.outputs.size(), 1u);
  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(data, {3, 2}));
  std::vector<kiln::Value> sync = session_.Run({"x"}, inputs, {"y"});
  EXPECT_EQ(o.outputs[0], Floats(sync[0]));
}

TEST_F(CxxIoBinding, RunAsyncErrorsReachTheCallbackOrThrowAtOnce) {
  std::vector<float> data = {1, 2};
  std::future<AsyncOutcome> f =
      StartRun(session_, kiln::RunOptions(), "x", FloatTensor(data, {1, 2}), "nope");
  ASSERT_EQ(f.wait_for(std::chrono::minutes(1)), std::future_status::ready);
  const AsyncOutcome o = f.get();
  EXPECT_EQ(o.code, KILN_INVALID_ARGUMENT);
  EXPECT_NE(o.message.find("RunAsync: argument 'output_names'"), std::string::npos) << o.message;
  EXPECT_TRUE(o.outputs.empty());

  kiln::RunOptions stop = kiln::RunOptions::Create();
  stop.SetTerminate();
  f = StartRun(session_, stop, "x", FloatTensor(data, {1, 2}), "y");
  ASSERT_EQ(f.wait_for(std::chrono::minutes(1)), std::future_status::ready);
  EXPECT_EQ(f.get().code, KILN_TERMINATED);

  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(data, {1, 2}));
  ExpectKilnError([&] { session_.RunAsync(kiln::RunOptions(), {"x"}, inputs, {"y"}, nullptr); },
                  KILN_INVALID_ARGUMENT, "argument 'callback'");
  ExpectKilnError(
      [&] {
        session_.RunAsync(kiln::RunOptions(), {"x", "x"}, inputs, {"y"},
                          [](const std::vector<kiln::Value>&, const kiln::Status&) {});
      },
      KILN_INVALID_ARGUMENT, "2 input names but 1 input values");
  ExpectKilnError(
      [&] {
        session_.RunAsync(kiln::RunOptions(), {"x"}, inputs, {},
                          [](const std::vector<kiln::Value>&, const kiln::Status&) {});
      },
      KILN_INVALID_ARGUMENT, "RunAsync: argument 'output_count'");
}

}  // namespace
