// The C++ wrapper's sessions (kiln/cxx/session.h): SessionOptions, Session and RunOptions over
// small Identity models from tests/tools/test_models.h.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "../tools/test_models.h"
#include "kiln/kiln_cxx_api.h"

namespace {

template <typename T>
constexpr bool kMoveOnly =
    !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
    std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_assignable_v<T>;
static_assert(kMoveOnly<kiln::SessionOptions>);
static_assert(kMoveOnly<kiln::Session>);
static_assert(kMoveOnly<kiln::RunOptions>);

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

std::string RichBytes() {
  return kiln::test::RichModel().SerializeAsString();
}

kiln::Value FloatTensor(std::vector<float>& data, const std::vector<int64_t>& shape) {
  const kiln::MemoryInfo cpu =
      kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);  // copied
  return kiln::Value::CreateTensor(cpu, data.data(), data.size(), shape);
}

class CxxSession : public ::testing::Test {
 protected:
  kiln::Env env_{KILN_LOGGING_LEVEL_WARNING, "cxx-session-test"};
};

TEST_F(CxxSession, DescribesInputsOutputsAndMetadata) {
  const std::string bytes = RichBytes();
  const kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size());
  EXPECT_EQ(s.input_count(), 2u);
  EXPECT_EQ(s.output_count(), 4u);
  EXPECT_EQ(s.input_names(), (std::vector<std::string>{"x", "ids"}));
  EXPECT_EQ(s.output_names(), (std::vector<std::string>{"x_out", "ids_out", "w_out", "b_out"}));
  EXPECT_EQ(s.input_name(1), "ids");
  EXPECT_EQ(s.output_name(2), "w_out");
  EXPECT_EQ(s.input_value_type(0), KILN_VALUE_TYPE_TENSOR);
  EXPECT_EQ(s.output_value_type(3), KILN_VALUE_TYPE_TENSOR);

  const kiln::TensorTypeAndShapeInfo ids = s.input_tensor_info(1);
  EXPECT_EQ(ids.element_type(), KILN_ELEMENT_TYPE_INT64);
  EXPECT_EQ(ids.shape(), (std::vector<int64_t>{2, -1, -1}));
  EXPECT_EQ(ids.symbolic_shape(), (std::vector<std::string>{"", "seq", ""}));
  const kiln::TensorTypeAndShapeInfo w = s.output_tensor_info(2);
  EXPECT_EQ(w.element_type(), KILN_ELEMENT_TYPE_FLOAT);
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{3, 4}));

  EXPECT_EQ(s.metadata_string(KILN_METADATA_PRODUCER_NAME), "kiln-tests");
  EXPECT_EQ(s.metadata_string(KILN_METADATA_PRODUCER_VERSION), "1.2");
  EXPECT_EQ(s.metadata_string(KILN_METADATA_GRAPH_NAME), "rich_graph");
  EXPECT_EQ(s.metadata_string(KILN_METADATA_DOMAIN), "org.kiln.tests");
  EXPECT_EQ(s.metadata_string(KILN_METADATA_DESCRIPTION), "A test model");
  EXPECT_EQ(s.metadata_string(KILN_METADATA_GRAPH_DESCRIPTION), "");
  EXPECT_EQ(s.model_version(), 7);
  EXPECT_EQ(s.custom_metadata_keys(), (std::vector<std::string>{"author", "license"}));
  EXPECT_EQ(s.custom_metadata("license"), std::optional<std::string>("MIT"));
  EXPECT_EQ(s.custom_metadata("missing"), std::nullopt);

  ExpectKilnError([&] { s.input_name(2); }, KILN_INVALID_ARGUMENT, "index");
  ExpectKilnError([&] { s.output_tensor_info(4); }, KILN_INVALID_ARGUMENT, "index");
  // 7: within the enum's range of values (so no undefined behaviour), but not a field.
  ExpectKilnError([&] { s.metadata_string(static_cast<KilnModelMetadataField>(7)); },
                  KILN_INVALID_ARGUMENT, "field");
  ExpectKilnError([&] { s.custom_metadata(std::string("a\0b", 3)); }, KILN_INVALID_ARGUMENT, "NUL");
}

TEST_F(CxxSession, NoCustomMetadataIsAnEmptyList) {
  const std::string bytes = kiln::test::IdentityModel({{"x", 1, {"1"}}}).SerializeAsString();
  const kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size());
  EXPECT_TRUE(s.custom_metadata_keys().empty());
}

TEST_F(CxxSession, CreateFromPathWithOptionsAndRun) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_cxx_session_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = kiln::test::WriteModel(kiln::test::RichModel(), dir / "rich.onnx");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(2)
      .SetExecutionMode(KILN_EXECUTION_MODE_PARALLEL)
      .SetInterOpNumThreads(2)
      .SetGraphOptimizationLevel(KILN_GRAPH_OPTIMIZATION_BASIC)
      .SetLogSeverityLevel(KILN_LOGGING_LEVEL_ERROR)
      .SetLogId("cxx")
      .AddFreeDimensionOverrideByName("batch", 2)
      .AddConfigEntry("kiln.arena.enable", "0")
      .EnableProfiling((dir / "profile").string())
      .DisableProfiling();
  const kiln::SessionOptions copy = options.Clone();
  kiln::Session s = kiln::Session::Create(env_, path, copy);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(s.input_tensor_info(0).shape(), (std::vector<int64_t>{2, 3}));  // the override

  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(x, {2, 3}));
  inputs.push_back(
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, 1, 1}, KILN_ELEMENT_TYPE_INT64));
  inputs[1].data<int64_t>()[1] = 42;
  kiln::RunOptions run_options = kiln::RunOptions::Create();
  run_options.SetRunTag("tag").SetRunLogSeverityLevel(KILN_LOGGING_LEVEL_ERROR);
  const std::vector<kiln::Value> outputs =
      s.Run(run_options, {"x", "ids"}, inputs, {"b_out", "x_out", "ids_out"});
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].type_and_shape().shape(), (std::vector<int64_t>{5}));
  EXPECT_EQ(outputs[0].data<int64_t>()[4], 2);
  EXPECT_EQ(outputs[1].type_and_shape().shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(outputs[1].data<float>()[5], 6.0f);
  EXPECT_EQ(outputs[2].data<int64_t>()[1], 42);

  // Outputs stay valid after the session is gone.
  const std::vector<kiln::Value> kept = s.Run({"x", "ids"}, inputs, {"x_out"});
  s = kiln::Session();
  EXPECT_EQ(kept[0].data<float>()[0], 1.0f);
}

TEST_F(CxxSession, WritesTheOptimizedModel) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_cxx_optimized_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = kiln::test::WriteModel(kiln::test::RichModel(), dir / "rich.onnx");
  const std::string written = (dir / "optimized.onnx").string();
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetGraphOptimizationLevel(KILN_GRAPH_OPTIMIZATION_ALL).SetOptimizedModelFilePath(written);
  const kiln::Session s = kiln::Session::Create(env_, path, options);
  ASSERT_TRUE(std::filesystem::exists(written));
  options.SetOptimizedModelFilePath("");  // off: loading the written model writes nothing
  const kiln::Session back = kiln::Session::Create(env_, written, options);
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(x, {2, 3}));
  inputs.push_back(
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {2, 1, 1}, KILN_ELEMENT_TYPE_INT64));
  inputs[1].data<int64_t>()[1] = 42;
  const std::vector<std::string> names = {"b_out", "x_out", "ids_out"};
  const std::vector<kiln::Value> want = s.Run({"x", "ids"}, inputs, names);
  const std::vector<kiln::Value> got = back.Run({"x", "ids"}, inputs, names);
  ASSERT_EQ(want.size(), got.size());
  EXPECT_EQ(got[0].type_and_shape().shape(), want[0].type_and_shape().shape());
  EXPECT_EQ(got[0].data<int64_t>()[4], want[0].data<int64_t>()[4]);
  EXPECT_EQ(got[1].data<float>()[5], 6.0f);
  EXPECT_EQ(got[2].data<int64_t>()[1], 42);

  ExpectKilnError([&] { options.SetOptimizedModelFilePath(std::string("a\0b", 3)); },
                  KILN_INVALID_ARGUMENT, "path");
  options.SetOptimizedModelFilePath((dir / "no" / "such" / "m.onnx").string());
  ExpectKilnError([&] { kiln::Session::Create(env_, path, options); }, KILN_NO_SUCHFILE,
                  (dir / "no" / "such" / "m.onnx").string());
  std::filesystem::remove_all(dir);
}

TEST_F(CxxSession, RunErrors) {
  const std::string bytes = kiln::test::IdentityModel({{"x", 1, {"2"}}}).SerializeAsString();
  const kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size());
  std::vector<float> x = {1, 2};
  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(x, {2}));
  ExpectKilnError(
      [&] {
        s.Run({"x", "y"}, inputs, {"x_out"});
      },
      KILN_INVALID_ARGUMENT, "2 input names but 1 input values");
  ExpectKilnError([&] { s.Run({"y"}, inputs, {"x_out"}); }, KILN_INVALID_ARGUMENT,
                  "'y' is not an input");
  ExpectKilnError([&] { s.Run({"x"}, inputs, {"nope"}); }, KILN_INVALID_ARGUMENT,
                  "'nope' is not an output");
  ExpectKilnError([&] { s.Run({"x"}, inputs, {}); }, KILN_INVALID_ARGUMENT, "output_count");
  ExpectKilnError([&] { s.Run({std::string("x\0", 2)}, inputs, {"x_out"}); }, KILN_INVALID_ARGUMENT,
                  "NUL");
  ExpectKilnError([&] { s.Run({}, {}, {"x_out"}); }, KILN_INVALID_ARGUMENT, "'x' is missing");

  kiln::RunOptions stop = kiln::RunOptions::Create();
  stop.SetTerminate();
  ExpectKilnError([&] { s.Run(stop, {"x"}, inputs, {"x_out"}); }, KILN_TERMINATED, "");
  stop.UnsetTerminate();
  EXPECT_EQ(s.Run(stop, {"x"}, inputs, {"x_out"}).size(), 1u);
}

TEST_F(CxxSession, CreationAndOptionErrors) {
  ExpectKilnError([&] { kiln::Session::Create(env_, "/nonexistent/model.onnx"); }, KILN_NO_SUCHFILE,
                  "model.onnx");
  const std::string junk = "not a model";
  ExpectKilnError([&] { kiln::Session::CreateFromBytes(env_, junk.data(), junk.size()); },
                  KILN_INVALID_PROTOBUF, "");
  ExpectKilnError([&] { kiln::Session::Create(env_, std::string("a\0b", 3)); },
                  KILN_INVALID_ARGUMENT, "NUL");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  ExpectKilnError([&] { options.SetIntraOpNumThreads(5000); }, KILN_INVALID_ARGUMENT, "threads");
  ExpectKilnError([&] { options.SetInterOpNumThreads(-2); }, KILN_INVALID_ARGUMENT, "threads");
  ExpectKilnError([&] { options.AddConfigEntry("no.such.key", "1"); }, KILN_INVALID_ARGUMENT,
                  "no.such.key");
  ExpectKilnError([&] { options.EnableProfiling(""); }, KILN_INVALID_ARGUMENT, "prefix");
  kiln::SessionOptions empty;
  ExpectKilnError([&] { empty.SetIntraOpNumThreads(1); }, KILN_INVALID_ARGUMENT, "options");
  // (An out-of-range KilnExecutionMode cannot be made in C++ without undefined behaviour; the C
  // ABI's refusal of one is tested in SessionTest.OptionSettersRejectBadValuesNamingThem.)
  ExpectKilnError([&] { empty.SetExecutionMode(KILN_EXECUTION_MODE_PARALLEL); },
                  KILN_INVALID_ARGUMENT, "options");
  kiln::RunOptions empty_run;
  ExpectKilnError([&] { empty_run.SetTerminate(); }, KILN_INVALID_ARGUMENT, "options");
  const kiln::Session none;
  ExpectKilnError([&] { none.input_count(); }, KILN_INVALID_ARGUMENT, "session");

  const std::string bytes = kiln::test::IdentityModel({{"x", 1, {"2"}}}).SerializeAsString();
  kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size(), options);
  ExpectKilnError([&] { s.EndProfiling(); }, KILN_INVALID_ARGUMENT, "profiling");
}

TEST_F(CxxSession, EndProfilingWritesTheTrace) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kiln_cxx_profile_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.EnableProfiling((dir / "trace").string());
  const std::string bytes = kiln::test::IdentityModel({{"x", 1, {"2"}}}).SerializeAsString();
  kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size(), options);
  std::vector<float> x = {1, 2};
  std::vector<kiln::Value> inputs;
  inputs.push_back(FloatTensor(x, {2}));
  s.Run({"x"}, inputs, {"x_out"});
  const std::string path = s.EndProfiling();
  EXPECT_EQ(path.rfind((dir / "trace_").string(), 0), 0u) << path;
  EXPECT_TRUE(std::filesystem::exists(path)) << path;
  std::filesystem::remove_all(dir);
}

TEST_F(CxxSession, SequencesAndOptionalsRoundTrip) {
  const std::string bytes = kiln::test::SequencePassThroughModel().SerializeAsString();
  const kiln::Session s = kiln::Session::CreateFromBytes(env_, bytes.data(), bytes.size());
  EXPECT_EQ(s.input_value_type(1), KILN_VALUE_TYPE_SEQUENCE);
  EXPECT_EQ(s.input_value_type(2), KILN_VALUE_TYPE_OPTIONAL);

  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  std::vector<float> b = {7, 8, 9, 10, 11, 12};
  std::vector<kiln::Value> tensors;
  tensors.push_back(FloatTensor(a, {2, 3}));
  tensors.push_back(FloatTensor(b, {2, 3}));
  kiln::Value seq = kiln::Value::CreateSequence(tensors, KILN_ELEMENT_TYPE_FLOAT);
  a[0] = 100;  // the sequence holds a copy
  EXPECT_EQ(seq.value_type(), KILN_VALUE_TYPE_SEQUENCE);
  EXPECT_FALSE(seq.is_tensor());
  EXPECT_EQ(seq.count(), 2u);
  EXPECT_TRUE(seq.has_value());
  EXPECT_EQ(seq.element_type(), KILN_ELEMENT_TYPE_FLOAT);
  kiln::Value first = seq.element(0);
  EXPECT_EQ(first.data<float>()[0], 1.0f);
  first.data<float>()[0] = -1;  // an element is a copy too
  EXPECT_EQ(seq.element(0).data<float>()[0], 1.0f);

  kiln::Value ids =
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {3}, KILN_ELEMENT_TYPE_INT64);
  for (int i = 0; i < 3; ++i) ids.data<int64_t>()[i] = i + 1;
  const kiln::Value empty_seq = kiln::Value::CreateSequence({}, KILN_ELEMENT_TYPE_FLOAT);
  std::vector<kiln::Value> inputs;
  inputs.push_back(
      kiln::Value::CreateTensor(kiln::Allocator::Default(), {}, KILN_ELEMENT_TYPE_BOOL));
  inputs.push_back(std::move(seq));
  inputs.push_back(kiln::Value::CreateOptional(ids));
  inputs.push_back(kiln::Value::CreateOptional(KILN_VALUE_TYPE_SEQUENCE, KILN_ELEMENT_TYPE_FLOAT));
  const std::vector<kiln::Value> out =
      s.Run({"cond", "seq", "opt", "optseq"}, inputs, {"seq_out", "opt_out", "optseq_out"});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].count(), 2u);
  EXPECT_EQ(out[0].element(1).data<float>()[5], 12.0f);
  EXPECT_TRUE(out[1].has_value());
  EXPECT_EQ(out[1].count(), 1u);
  EXPECT_EQ(out[1].element(0).data<int64_t>()[2], 3);
  EXPECT_EQ(out[1].element_type(), KILN_ELEMENT_TYPE_INT64);
  EXPECT_FALSE(out[2].has_value());
  EXPECT_EQ(out[2].count(), 0u);
  EXPECT_EQ(out[2].element_type(), KILN_ELEMENT_TYPE_FLOAT);
  const kiln::Value opt_seq = kiln::Value::CreateOptional(empty_seq);
  EXPECT_EQ(opt_seq.element(0).value_type(), KILN_VALUE_TYPE_SEQUENCE);

  ExpectKilnError([&] { out[2].element(0); }, KILN_INVALID_ARGUMENT, "empty");
  ExpectKilnError([&] { out[0].element(2); }, KILN_INVALID_ARGUMENT, "2 is out of range");
  ExpectKilnError([&] { ids.count(); }, KILN_INVALID_ARGUMENT, "not a sequence or an optional");
  ExpectKilnError([&] { out[0].data<float>(); }, KILN_INVALID_ARGUMENT, "not a tensor");
  ExpectKilnError([&] { kiln::Value::CreateSequence(tensors, KILN_ELEMENT_TYPE_INT64); },
                  KILN_INVALID_ARGUMENT, "entry 0");
  ExpectKilnError([&] { kiln::Value::CreateOptional(out[1]); }, KILN_INVALID_ARGUMENT, "content");
  ExpectKilnError([&] { kiln::Value().count(); }, KILN_INVALID_ARGUMENT, "value");
}

}  // namespace
