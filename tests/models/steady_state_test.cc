// Steady state (issue 3, planner): once a static-shape model has run, a run whose outputs are
// caller-given tensors (through Run, or bound to an IO binding) makes no heap allocation at all —
// counted by replacing the global operator new/delete in this binary (tests/api/alloc_hook.cc); the
// library resolves to them.
#include <gtest/gtest.h>
#include <kiln/kiln_c_api.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "../api/alloc_hook.h"
#include "../api/test_models.h"

#ifndef KILN_DIGITS_DIR
#error "KILN_DIGITS_DIR must name examples/digits"
#endif

namespace {

namespace hook = kiln_test::alloc_hook;

const KilnApi* Api() {
  return KilnGetApiBase()->GetApi(KILN_API_VERSION);
}

#define ASSERT_OK(call)                                     \
  do {                                                      \
    KilnStatus* st_ = (call);                               \
    ASSERT_EQ(st_, nullptr) << Api()->GetErrorMessage(st_); \
  } while (0)

struct Runner {
  KilnEnv* env = nullptr;
  KilnSessionOptions* options = nullptr;
  KilnSession* session = nullptr;
  KilnMemoryInfo* cpu = nullptr;
  ~Runner() {
    Api()->ReleaseSession(session);
    Api()->ReleaseSessionOptions(options);
    Api()->ReleaseMemoryInfo(cpu);
    Api()->ReleaseEnv(env);
  }
};

// Allocations made by `runs` runs of the digits CNN after a first one, with `threads` intra-op
// threads; the outputs are written into a caller-given tensor.
void CountSteadyStateAllocations(int threads, long* seen, std::array<float, 10>* logits) {
  Runner r;
  ASSERT_OK(Api()->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "steady", &r.env));
  ASSERT_OK(Api()->CreateSessionOptions(&r.options));
  ASSERT_OK(Api()->SetIntraOpNumThreads(r.options, threads));
  // The model's batch dimension is free; fixing it makes every shape static.
  ASSERT_OK(Api()->AddFreeDimensionOverrideByName(r.options, "batch", 1));
  const std::string path = std::string(KILN_DIGITS_DIR) + "/digits.onnx";
  ASSERT_OK(Api()->CreateSession(r.env, path.c_str(), r.options, &r.session));
  ASSERT_OK(Api()->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &r.cpu));

  std::array<float, 64> pixels{};
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>(i % 17) / 16.0f;
  const int64_t in_shape[] = {1, 1, 8, 8};
  const int64_t out_shape[] = {1, 10};
  KilnValue* input = nullptr;
  KilnValue* output = nullptr;
  ASSERT_OK(Api()->CreateTensorWithDataAsValue(r.cpu, pixels.data(), sizeof pixels, in_shape, 4,
                                               KILN_ELEMENT_TYPE_FLOAT, &input));
  ASSERT_OK(Api()->CreateTensorWithDataAsValue(r.cpu, logits->data(), sizeof *logits, out_shape, 2,
                                               KILN_ELEMENT_TYPE_FLOAT, &output));
  const char* in_names[] = {"image"};
  const char* out_names[] = {"logits"};
  ASSERT_OK(Api()->Run(r.session, nullptr, in_names, &input, 1, out_names, 1, &output));
  hook::Arm(-1, false);  // count only: the -1st allocation never comes
  KilnStatus* failed = nullptr;
  for (int i = 0; i < 20 && failed == nullptr; ++i) {
    failed = Api()->Run(r.session, nullptr, in_names, &input, 1, out_names, 1, &output);
  }
  *seen = hook::Seen();
  hook::Disarm();
  Api()->ReleaseValue(input);
  Api()->ReleaseValue(output);
  ASSERT_EQ(failed, nullptr) << Api()->GetErrorMessage(failed);
}

// The same through an IO binding: input and output bound once, then RunWithBinding.
void CountSteadyStateBindingAllocations(int threads, long* seen, std::array<float, 10>* logits) {
  Runner r;
  ASSERT_OK(Api()->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "steady", &r.env));
  ASSERT_OK(Api()->CreateSessionOptions(&r.options));
  ASSERT_OK(Api()->SetIntraOpNumThreads(r.options, threads));
  ASSERT_OK(Api()->AddFreeDimensionOverrideByName(r.options, "batch", 1));
  const std::string path = std::string(KILN_DIGITS_DIR) + "/digits.onnx";
  ASSERT_OK(Api()->CreateSession(r.env, path.c_str(), r.options, &r.session));
  ASSERT_OK(Api()->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &r.cpu));

  std::array<float, 64> pixels{};
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>(i % 17) / 16.0f;
  const int64_t in_shape[] = {1, 1, 8, 8};
  const int64_t out_shape[] = {1, 10};
  KilnValue* input = nullptr;
  KilnValue* output = nullptr;
  ASSERT_OK(Api()->CreateTensorWithDataAsValue(r.cpu, pixels.data(), sizeof pixels, in_shape, 4,
                                               KILN_ELEMENT_TYPE_FLOAT, &input));
  ASSERT_OK(Api()->CreateTensorWithDataAsValue(r.cpu, logits->data(), sizeof *logits, out_shape, 2,
                                               KILN_ELEMENT_TYPE_FLOAT, &output));
  KilnIoBinding* binding = nullptr;
  ASSERT_OK(Api()->CreateIoBinding(r.session, &binding));
  ASSERT_OK(Api()->BindInput(binding, "image", input));
  ASSERT_OK(Api()->BindOutput(binding, "logits", output));
  Api()->ReleaseValue(input);  // the binding shares both tensors
  Api()->ReleaseValue(output);
  ASSERT_OK(Api()->RunWithBinding(r.session, nullptr, binding));
  hook::Arm(-1, false);  // count only: the -1st allocation never comes
  KilnStatus* failed = nullptr;
  for (int i = 0; i < 20 && failed == nullptr; ++i) {
    failed = Api()->RunWithBinding(r.session, nullptr, binding);
  }
  *seen = hook::Seen();
  hook::Disarm();
  Api()->ReleaseIoBinding(binding);
  ASSERT_EQ(failed, nullptr) << Api()->GetErrorMessage(failed);
}

TEST(SteadyState, DigitsRunsWithABindingMakeNoHeapAllocation) {
  for (int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    long seen = -1;
    std::array<float, 10> bound{};
    CountSteadyStateBindingAllocations(threads, &seen, &bound);
    EXPECT_EQ(seen, 0) << "heap allocations in 20 steady-state runs with a binding";
    long plain_seen = -1;
    std::array<float, 10> plain{};
    CountSteadyStateAllocations(threads, &plain_seen, &plain);
    EXPECT_EQ(bound, plain) << "a run with a binding gives what Run gives";
    EXPECT_NE(bound, (std::array<float, 10>{}));
  }
}

TEST(SteadyState, DigitsRunsMakeNoHeapAllocationOneThread) {
  long seen = -1;
  std::array<float, 10> logits{};
  CountSteadyStateAllocations(1, &seen, &logits);
  EXPECT_EQ(seen, 0) << "heap allocations in 20 steady-state runs";
  EXPECT_NE(logits, (std::array<float, 10>{})) << "the runs wrote the caller's tensor";
}

TEST(SteadyState, DigitsRunsMakeNoHeapAllocationTwoThreads) {
  long seen = -1;
  std::array<float, 10> logits{};
  CountSteadyStateAllocations(2, &seen, &logits);
  EXPECT_EQ(seen, 0) << "heap allocations in 20 steady-state runs";
}

// A model with an overridable initializer (w, y = x + w) and a constant one (c, z = x + c):
// steady-state runs make no heap allocation whether they feed w or leave it to its default, and
// with run options carrying config entries.
TEST(SteadyState, OverridableInitializerRunsMakeNoHeapAllocation) {
  Runner r;
  ASSERT_OK(Api()->CreateEnv(KILN_LOGGING_LEVEL_WARNING, "steady", &r.env));
  ASSERT_OK(Api()->CreateSessionOptions(&r.options));
  ASSERT_OK(Api()->SetIntraOpNumThreads(r.options, 1));
  const std::string model = kiln_test::models::Initializers();
  ASSERT_OK(
      Api()->CreateSessionFromArray(r.env, model.data(), model.size(), r.options, &r.session));
  ASSERT_OK(Api()->CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &r.cpu));
  KilnRunOptions* run_options = nullptr;
  ASSERT_OK(Api()->CreateRunOptions(&run_options));
  ASSERT_OK(Api()->RunOptionsAddConfigEntry(run_options, "kiln.run.check_finite", "1"));
  ASSERT_OK(
      Api()->RunOptionsAddConfigEntry(run_options, "memory.enable_memory_arena_shrinkage", "0"));
  float x[2] = {1, 2};
  float w[2] = {-3, -4};
  float y[2] = {};
  float z[2] = {};
  const int64_t shape[] = {2};
  KilnValue* values[4] = {};
  for (auto [i, data] : {std::pair{0, x}, std::pair{1, w}, std::pair{2, y}, std::pair{3, z}}) {
    ASSERT_OK(Api()->CreateTensorWithDataAsValue(r.cpu, data, 2 * sizeof(float), shape, 1,
                                                 KILN_ELEMENT_TYPE_FLOAT, &values[i]));
  }
  const char* in_names[] = {"x", "w"};
  const char* out_names[] = {"y", "z"};
  KilnValue* outputs[] = {values[2], values[3]};
  long seen[2] = {-1, -1};
  for (size_t fed = 1; fed <= 2; ++fed) {
    ASSERT_OK(Api()->Run(r.session, run_options, in_names, values, fed, out_names, 2, outputs));
    hook::Arm(-1, false);
    KilnStatus* failed = nullptr;
    for (int i = 0; i < 20 && failed == nullptr; ++i) {
      failed = Api()->Run(r.session, run_options, in_names, values, fed, out_names, 2, outputs);
    }
    seen[fed - 1] = hook::Seen();
    hook::Disarm();
    EXPECT_EQ(failed, nullptr) << Api()->GetErrorMessage(failed);
    Api()->ReleaseStatus(failed);
    EXPECT_EQ(y[0], fed == 1 ? 11.0f : -2.0f);
    EXPECT_EQ(z[1], 4.0f);
  }
  for (KilnValue* v : values) Api()->ReleaseValue(v);
  Api()->ReleaseRunOptions(run_options);
  EXPECT_EQ(seen[0], 0) << "heap allocations in 20 runs leaving w to its default";
  EXPECT_EQ(seen[1], 0) << "heap allocations in 20 runs feeding w";
}

}  // namespace
