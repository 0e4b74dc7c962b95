// The C++ wrapper's session inputs and config: overridable initializers, AddInitializer,
// AddFreeDimensionOverride, config entries of sessions and runs, the profiling start time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kiln_cxx_api.h"
#include "test_models.h"

namespace {

namespace models = kiln_test::models;

kiln::Session Load(const kiln::Env& env, const std::string& model, const kiln::SessionOptions& o) {
  return kiln::Session::CreateFromBytes(env, model.data(), model.size(), o);
}

kiln::MemoryInfo Cpu() {
  return kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
}

std::vector<float> Floats(const kiln::Value& v) {
  return std::vector<float>(v.data<float>(), v.data<float>() + 2);
}

TEST(CxxSessionInputs, OverridableInitializersAreListedAndFedByName) {
  kiln::Env env(KILN_LOGGING_LEVEL_FATAL, "cxx-inputs");
  kiln::Session session = Load(env, models::Initializers(), kiln::SessionOptions::Create());
  EXPECT_EQ(session.input_names(), std::vector<std::string>{"x"});
  EXPECT_EQ(session.overridable_initializer_count(), 1u);
  EXPECT_EQ(session.overridable_initializer_name(0), "w");
  EXPECT_EQ(session.overridable_initializer_names(), std::vector<std::string>{"w"});
  kiln::TensorTypeAndShapeInfo info = session.overridable_initializer_tensor_info(0);
  EXPECT_EQ(info.element_type(), KILN_ELEMENT_TYPE_FLOAT);
  EXPECT_EQ(info.shape(), std::vector<int64_t>{2});
  try {
    session.overridable_initializer_name(1);
    ADD_FAILURE() << "no exception";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("argument 'index'"), std::string::npos) << e.what();
  }

  kiln::MemoryInfo cpu = Cpu();
  float x[2] = {1, 2};
  float w[2] = {3, 4};
  std::vector<kiln::Value> unfed;
  unfed.push_back(kiln::Value::CreateTensor(cpu, x, 2, {2}));
  EXPECT_EQ(Floats(session.Run({"x"}, unfed, {"y"})[0]), (std::vector<float>{11, 22}));
  std::vector<kiln::Value> fed;
  fed.push_back(kiln::Value::CreateTensor(cpu, x, 2, {2}));
  fed.push_back(kiln::Value::CreateTensor(cpu, w, 2, {2}));
  EXPECT_EQ(Floats(session.Run({"x", "w"}, fed, {"y"})[0]), (std::vector<float>{4, 6}));
}

TEST(CxxSessionInputs, AddInitializerSharesTheCallersMemory) {
  kiln::Env env(KILN_LOGGING_LEVEL_FATAL, "cxx-inputs");
  kiln::MemoryInfo cpu = Cpu();
  float c[2] = {100, 200};
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetGraphOptimizationLevel(KILN_GRAPH_OPTIMIZATION_DISABLE_ALL);
  {
    kiln::Value given = kiln::Value::CreateTensor(cpu, c, 2, {2});
    options.AddInitializer("c", given);
  }  // the options keep the tensor
  kiln::SessionOptions clone = options.Clone();
  kiln::Session session = Load(env, models::Initializers(), options);
  float x[2] = {1, 2};
  std::vector<kiln::Value> in;
  in.push_back(kiln::Value::CreateTensor(cpu, x, 2, {2}));
  EXPECT_EQ(Floats(session.Run({"x"}, in, {"z"})[0]), (std::vector<float>{101, 202}));
  c[1] = 0;
  EXPECT_EQ(Floats(session.Run({"x"}, in, {"z"})[0]), (std::vector<float>{101, 2}));
  kiln::Session from_clone = Load(env, models::Initializers(), clone);
  EXPECT_EQ(Floats(from_clone.Run({"x"}, in, {"z"})[0]), (std::vector<float>{101, 2}));

  float three[3] = {1, 2, 3};
  kiln::SessionOptions wrong = kiln::SessionOptions::Create();
  wrong.AddInitializer("c", kiln::Value::CreateTensor(cpu, three, 3, {3}));
  try {
    Load(env, models::Initializers(), wrong);
    ADD_FAILURE() << "no exception";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("float [3] but the model's is float [2]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(wrong.AddInitializer(std::string("c\0d", 3), kiln::Value()), kiln::Exception);
}

TEST(CxxSessionInputs, AddFreeDimensionOverrideFixesDenotedDimensions) {
  kiln::Env env(KILN_LOGGING_LEVEL_FATAL, "cxx-inputs");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.AddFreeDimensionOverride("DATA_BATCH", 7);
  kiln::Session session = Load(env, models::Denoted(), options);
  EXPECT_EQ(session.input_tensor_info(0).shape(), (std::vector<int64_t>{7, 2, 3}));
  EXPECT_THROW(options.AddFreeDimensionOverride("", 1), kiln::Exception);
  EXPECT_THROW(options.AddFreeDimensionOverride("DATA_BATCH", -1), kiln::Exception);
}

TEST(CxxSessionInputs, ConfigEntriesReadBack) {
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  EXPECT_EQ(options.GetConfigEntry("kiln.arena.enable"), std::nullopt);
  options.AddConfigEntry("kiln.arena.enable", "0");
  EXPECT_EQ(options.GetConfigEntry("kiln.arena.enable"), std::optional<std::string>("0"));
  EXPECT_THROW(options.GetConfigEntry("no.such.key"), kiln::Exception);

  kiln::RunOptions run = kiln::RunOptions::Create();
  EXPECT_EQ(run.GetConfigEntry("kiln.run.check_finite"), std::nullopt);
  run.AddConfigEntry("kiln.run.check_finite", "1")
      .AddConfigEntry("memory.enable_memory_arena_shrinkage", "cpu:0");
  EXPECT_EQ(run.GetConfigEntry("kiln.run.check_finite"), std::optional<std::string>("1"));
  EXPECT_EQ(run.GetConfigEntry("memory.enable_memory_arena_shrinkage"),
            std::optional<std::string>("cpu:0"));
  try {
    run.AddConfigEntry("session.unknown", "1");
    ADD_FAILURE() << "no exception";
  } catch (const kiln::Exception& e) {
    EXPECT_EQ(e.code(), KILN_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("'session.unknown'"), std::string::npos) << e.what();
  }

  // The run's check_finite takes effect: an infinity through the Identity node fails the run.
  kiln::Env env(KILN_LOGGING_LEVEL_FATAL, "cxx-inputs");
  kiln::SessionOptions level0 = kiln::SessionOptions::Create();
  level0.SetGraphOptimizationLevel(KILN_GRAPH_OPTIMIZATION_DISABLE_ALL);
  kiln::Session session = Load(env, models::Identity(), level0);
  kiln::MemoryInfo cpu = Cpu();
  float x[2] = {std::numeric_limits<float>::infinity(), 0};
  std::vector<kiln::Value> in;
  in.push_back(kiln::Value::CreateTensor(cpu, x, 2, {1, 2}));
  EXPECT_NO_THROW(session.Run({"x"}, in, {"y"}));
  EXPECT_THROW(session.Run(run, {"x"}, in, {"y"}), kiln::Exception);
}

TEST(CxxSessionInputs, ProfilingStartTime) {
  kiln::Env env(KILN_LOGGING_LEVEL_FATAL, "cxx-inputs");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.EnableProfiling(models::ScratchDir().path() + "/cxx_start");
  auto now = [] {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  };
  const uint64_t before = now();
  kiln::Session session = Load(env, models::Identity(), options);
  const uint64_t after = now();
  EXPECT_GE(session.profiling_start_time_ns(), before);
  EXPECT_LE(session.profiling_start_time_ns(), after);
  EXPECT_EQ(Load(env, models::Identity(), kiln::SessionOptions()).profiling_start_time_ns(), 0u);
}

}  // namespace
