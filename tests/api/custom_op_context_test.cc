// The entries a custom op's callbacks call (kernel info, kernel context, shape inference), called
// from inside the probe's callbacks (custom_op_probe.h) with their live handles: what each gives,
// what each refuses, and that what they hand out lives no longer than the callback.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "custom_op_probe.h"
#include "custom_op_test_util.h"
#include "fixtures.h"
#include "test_models.h"

namespace kiln_test {
namespace {

using probe::Live;
using probe::Stage;

// Expects KILN_INVALID_ARGUMENT from `entry` naming `argument`, then releases the status.
void ExpectRefused(KilnStatus* status, const char* entry, const char* argument) {
  ExpectError(status, KILN_INVALID_ARGUMENT, entry, argument);
}

// The attributes a node's kernel info gives.
KilnStatus* ReadAttributes(const KilnKernelInfo* info, probe::Attributes& got) {
  const char* s = nullptr;
  const int64_t* ints = nullptr;
  const float* floats = nullptr;
  const char* const* strings = nullptr;
  size_t n_ints = 0, n_floats = 0, n_strings = 0;
  KilnStatus* st = api().KernelInfoGetAttributeInt(info, "i", &got.i);
  if (st == nullptr) st = api().KernelInfoGetAttributeFloat(info, "f", &got.f);
  if (st == nullptr) st = api().KernelInfoGetAttributeString(info, "s", &s);
  if (st == nullptr) st = api().KernelInfoGetAttributeInts(info, "ints", &ints, &n_ints);
  if (st == nullptr) st = api().KernelInfoGetAttributeFloats(info, "floats", &floats, &n_floats);
  if (st == nullptr) {
    st = api().KernelInfoGetAttributeStrings(info, "strings", &strings, &n_strings);
  }
  if (st != nullptr) return st;
  got.s = s;
  got.ints.assign(ints, ints + n_ints);
  got.floats.assign(floats, floats + n_floats);
  got.strings.assign(strings, strings + n_strings);
  return nullptr;
}

void ExpectSame(const probe::Attributes& got, const probe::Attributes& want) {
  EXPECT_EQ(got.i, want.i);
  EXPECT_EQ(got.f, want.f);
  EXPECT_EQ(got.s, want.s);
  EXPECT_EQ(got.ints, want.ints);
  EXPECT_EQ(got.floats, want.floats);
  EXPECT_EQ(got.strings, want.strings);
}

TEST(CustomOpContext, KernelInfoGivesTheNodeAndItsAttributesOrTheirDefaults) {
  TestEnv env;
  for (bool set : {false, true}) {
    SCOPED_TRACE(set ? "attributes set by the node" : "defaults");
    probe::Attributes got{};
    std::string name;
    size_t inputs = 0, outputs = 0;
    probe::Setup setup;
    setup.model = probe::Model(set);
    probe::Outcome o = probe::Run(
        env.get(), Stage::kCreateKernel,
        [&](const Live& l) {
          const char* n = nullptr;
          KilnStatus* s = api().KernelInfoGetNodeName(l.info, &n);
          if (s == nullptr) name = n;
          if (s == nullptr) s = api().KernelInfoGetInputCount(l.info, &inputs);
          if (s == nullptr) s = api().KernelInfoGetOutputCount(l.info, &outputs);
          if (s == nullptr) s = ReadAttributes(l.info, got);
          return s;
        },
        setup);
    EXPECT_TRUE(o.reached);
    ExpectOk(o.outer);
    ExpectOk(o.inner);
    EXPECT_EQ(name, probe::kNode);
    EXPECT_EQ(inputs, 1u);
    EXPECT_EQ(outputs, 1u);
    ExpectSame(got, set ? probe::NodeAttributes() : probe::Defaults());
  }
}

TEST(CustomOpContext, KernelInfoRefusesAnAttributeOfAnotherTypeOrNotDeclared) {
  TestEnv env;
  ExpectOk(probe::InCallback(env.get(), Stage::kCreateKernel, [](const Live& l) {
    Outs o;
    ExpectRefused(api().KernelInfoGetAttributeInt(l.info, "f", &o.version),
                  "KernelInfoGetAttributeInt", "name");
    ExpectRefused(api().KernelInfoGetAttributeFloats(l.info, "ints", &o.floats, &o.size),
                  "KernelInfoGetAttributeFloats", "name");
    ExpectRefused(api().KernelInfoGetAttributeString(l.info, "undeclared", &o.text),
                  "KernelInfoGetAttributeString", "name");
    EXPECT_TRUE(o.Untouched());
    return static_cast<KilnStatus*>(nullptr);
  }));
}

TEST(CustomOpContext, ShapeInferContextGivesTheInputsAndSetsTheOutputsOnce) {
  TestEnv env;
  ExpectOk(probe::InCallback(env.get(), Stage::kInferShapes, [](const Live& l) {
    const KilnKernelInfo* info = nullptr;
    ExpectOk(api().ShapeInferContextGetKernelInfo(l.infer, &info));
    const char* name = nullptr;
    ExpectOk(api().KernelInfoGetNodeName(info, &name));
    EXPECT_STREQ(name, probe::kNode);
    KilnTensorTypeAndShapeInfo* x = nullptr;
    ExpectOk(api().ShapeInferContextGetInputTypeInfo(l.infer, 0, &x));
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    int64_t dims[2] = {0, 0};
    ExpectOk(api().GetTensorElementType(x, &type));
    ExpectOk(api().GetDimensions(x, dims, 2));
    api().ReleaseTensorTypeAndShapeInfo(x);
    EXPECT_EQ(type, KILN_ELEMENT_TYPE_FLOAT);
    EXPECT_EQ(dims[0], 3);
    EXPECT_EQ(dims[1], 2);
    Outs o;
    ExpectRefused(api().ShapeInferContextGetInputTypeInfo(l.infer, 1, &o.shape),
                  "ShapeInferContextGetInputTypeInfo", "index");
    EXPECT_TRUE(o.Untouched());
    const int64_t y[] = {3, -1};
    ExpectRefused(
        api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_INT64, y, 2),
        "ShapeInferContextSetOutputTypeInfo", "element_type");
    ExpectRefused(
        api().ShapeInferContextSetOutputTypeInfo(l.infer, 1, KILN_ELEMENT_TYPE_FLOAT, y, 2),
        "ShapeInferContextSetOutputTypeInfo", "index");
    const int64_t below[] = {3, -2};
    ExpectRefused(
        api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT, below, 2),
        "ShapeInferContextSetOutputTypeInfo", "dims");
    ExpectOk(api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT, y, 2));
    ExpectRefused(
        api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT, y, 2),
        "ShapeInferContextSetOutputTypeInfo", "index");
    return static_cast<KilnStatus*>(nullptr);
  }));
}

TEST(CustomOpContext, KernelContextGivesTheInputsAndEachOutputOnce) {
  TestEnv env;
  ExpectOk(probe::InCallback(env.get(), Stage::kCompute, [](const Live& l) {
    size_t inputs = 0, outputs = 0;
    ExpectOk(api().KernelContextGetInputCount(l.ctx, &inputs));
    ExpectOk(api().KernelContextGetOutputCount(l.ctx, &outputs));
    EXPECT_EQ(inputs, 1u);
    EXPECT_EQ(outputs, 1u);
    // The node, as CreateKernel saw it.
    const KilnKernelInfo* info = nullptr;
    ExpectOk(api().KernelContextGetKernelInfo(l.ctx, &info));
    const char* name = nullptr;
    ExpectOk(api().KernelInfoGetNodeName(info, &name));
    EXPECT_STREQ(name, probe::kNode);
    const KilnValue* x = nullptr;
    ExpectOk(api().KernelContextGetInput(l.ctx, 0, &x));
    void* data = nullptr;
    ExpectOk(api().GetTensorMutableData(const_cast<KilnValue*>(x), &data));
    for (int i = 0; data != nullptr && i < 6; ++i) {
      EXPECT_EQ(static_cast<const float*>(data)[i], static_cast<float>(i));
    }
    const KilnValue* again = nullptr;
    ExpectOk(api().KernelContextGetInput(l.ctx, 0, &again));
    EXPECT_EQ(again, x) << "one handle per input and call";
    Outs o;
    ExpectRefused(api().KernelContextGetInput(l.ctx, 1, &o.const_value), "KernelContextGetInput",
                  "index");
    const int64_t dims[] = {3, 2};
    ExpectRefused(api().KernelContextGetOutput(l.ctx, 1, dims, 2, &o.value),
                  "KernelContextGetOutput", "index");
    const int64_t negative[] = {3, -1};
    ExpectRefused(api().KernelContextGetOutput(l.ctx, 0, negative, 2, &o.value),
                  "KernelContextGetOutput", "dims");
    EXPECT_TRUE(o.Untouched());
    KilnValue* y = nullptr;
    ExpectOk(api().KernelContextGetOutput(l.ctx, 0, dims, 2, &y));
    ExpectRefused(api().KernelContextGetOutput(l.ctx, 0, dims, 2, &o.value),
                  "KernelContextGetOutput", "index");
    EXPECT_TRUE(o.Untouched());
    return static_cast<KilnStatus*>(nullptr);
  }));
}

// The values KernelContextGetInput and KernelContextGetOutput hand out are borrowed for the
// Compute call: afterwards they are released handles.
TEST(CustomOpContext, ValuesHandedToComputeAreReleasedAfterIt) {
  TestEnv env;
  const KilnValue* x = nullptr;
  KilnValue* y = nullptr;
  ExpectOk(probe::InCallback(env.get(), Stage::kCompute, [&](const Live& l) {
    const int64_t dims[] = {3, 2};
    KilnStatus* s = api().KernelContextGetInput(l.ctx, 0, &x);
    if (s == nullptr) s = api().KernelContextGetOutput(l.ctx, 0, dims, 2, &y);
    return s;
  }));
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  void* data = Sentinel<void>();
  ExpectError(api().GetTensorMutableData(const_cast<KilnValue*>(x), &data), KILN_INVALID_ARGUMENT,
              "GetTensorMutableData", "value");
  ExpectError(api().GetTensorMutableData(y, &data), KILN_INVALID_ARGUMENT, "GetTensorMutableData",
              "value");
  EXPECT_EQ(data, Sentinel<void>());
  api().ReleaseValue(y);  // ignored: not the caller's
}

// `status` is KILN_INVALID_ARGUMENT from `entry`, naming `argument` and saying it is lent.
void ExpectRefusedAsLent(KilnStatus* status, const char* entry, const char* argument) {
  ASSERT_NE(status, nullptr) << entry << " kept a lent value";
  const std::string message = api().GetErrorMessage(status);
  EXPECT_NE(message.find("lent"), std::string::npos) << message;
  ExpectError(status, KILN_INVALID_ARGUMENT, entry, argument);
}

// A lent value cannot be kept past the Compute call: not freed by ReleaseValue, not bound, not
// made an initializer, not handed to RunAsync.
TEST(CustomOpContext, LentValuesCannotBeKeptBeyondCompute) {
  TestEnv env;
  KilnSession* identity = nullptr;
  const std::string model = models::Identity();
  ExpectOk(MakeSession(env.get(), model, nullptr, &identity));
  ASSERT_NE(identity, nullptr);
  KilnIoBinding* binding = nullptr;
  ExpectOk(api().CreateIoBinding(identity, &binding));
  Options options;
  ExpectOk(probe::InCallback(env.get(), Stage::kCompute, [&](const Live& l) {
    const int64_t dims[] = {3, 2};
    const KilnValue* x = nullptr;
    KilnValue* y = nullptr;
    ExpectOk(api().KernelContextGetInput(l.ctx, 0, &x));
    ExpectOk(api().KernelContextGetOutput(l.ctx, 0, dims, 2, &y));
    api().ReleaseValue(y);  // ignored (and logged): lent, not the library's
    void* data = nullptr;
    ExpectOk(api().GetTensorMutableData(y, &data));
    ExpectRefusedAsLent(api().BindInput(binding, "x", x), "BindInput", "value");
    ExpectRefusedAsLent(api().BindOutput(binding, "y", y), "BindOutput", "value");
    ExpectRefusedAsLent(api().SessionOptionsAddInitializer(options.get(), "w", x),
                        "SessionOptionsAddInitializer", "value");
    const char* in[] = {"x"};
    const char* out[] = {"y"};
    KilnValue* outputs[] = {nullptr};
    ExpectRefusedAsLent(api().RunAsync(
                            identity, nullptr, in, &x, 1, out, 1, outputs,
                            [](void*, KilnValue**, size_t, KilnStatus* s) {
                              ADD_FAILURE() << "a run was started";
                              api().ReleaseStatus(s);
                            },
                            nullptr),
                        "RunAsync", "inputs");
    return static_cast<KilnStatus*>(nullptr);
  }));
  api().ReleaseIoBinding(binding);
  api().ReleaseSession(identity);
}

struct Items {
  std::vector<std::atomic<int>> seen = std::vector<std::atomic<int>>(1000);
  size_t failing = SIZE_MAX;  // the item whose share fails
};

KilnStatus* KILN_API_CALL VisitItems(void* data, size_t begin, size_t end) {
  auto* items = static_cast<Items*>(data);
  for (size_t i = begin; i < end; ++i) {
    items->seen[i].fetch_add(1);
    if (i == items->failing) return api().CreateStatus(KILN_ENGINE_ERROR, "item 500 failed");
  }
  return nullptr;
}

TEST(CustomOpContext, ParallelForRunsEveryItemOnceAndReturnsAFailure) {
  TestEnv env;
  Options options;
  ExpectOk(api().SetIntraOpNumThreads(options.get(), 2));
  Items all;
  Items failing;
  failing.failing = 500;
  KilnStatus* failed = nullptr;
  probe::Setup setup;
  setup.options = options.get();
  probe::Outcome o = probe::Run(
      env.get(), Stage::kCompute,
      [&](const Live& l) {
        KilnStatus* s =
            api().KernelContextParallelFor(l.ctx, &VisitItems, &all, all.seen.size(), 7);
        if (s == nullptr) s = api().KernelContextParallelFor(l.ctx, &VisitItems, &all, 0, 0);
        failed =
            api().KernelContextParallelFor(l.ctx, &VisitItems, &failing, failing.seen.size(), 0);
        return s;
      },
      setup);
  EXPECT_TRUE(o.reached);
  ExpectOk(o.outer);
  ExpectOk(o.inner);
  int wrong = 0;
  for (const auto& n : all.seen) wrong += n.load() == 1 ? 0 : 1;
  EXPECT_EQ(wrong, 0) << "items not run exactly once";
  EXPECT_EQ(failing.seen[500].load(), 1);
  const Failure f = Take(failed);
  EXPECT_EQ(f.code, KILN_ENGINE_ERROR);
  EXPECT_NE(f.message.find("item 500 failed"), std::string::npos) << f.message;
}

// The log goes through the session's logger: its Env's sink (not the process's first Env's), at
// the session's level, under the category "kiln.custom_op", naming the node.
TEST(CustomOpContext, KernelContextLogReachesTheEnvLogger) {
  TestEnv first;  // the process's first Env: its logger gets messages tied to no Env
  CapturedLog log;
  TestEnv env(&log);
  Options options;
  ExpectOk(api().SetSessionLogSeverityLevel(options.get(), KILN_LOGGING_LEVEL_WARNING));
  probe::Setup setup;
  setup.options = options.get();
  probe::Outcome o = probe::Run(
      env.get(), Stage::kCompute,
      [](const Live& l) {
        KilnStatus* s = api().KernelContextLog(l.ctx, KILN_LOGGING_LEVEL_INFO, "below the level");
        if (s == nullptr) {
          s = api().KernelContextLog(l.ctx, KILN_LOGGING_LEVEL_WARNING, "hello from Compute");
        }
        return s;
      },
      setup);
  EXPECT_TRUE(o.reached);
  ExpectOk(o.outer);
  ExpectOk(o.inner);
  std::vector<CapturedLog::Entry> custom;
  for (const CapturedLog::Entry& e : log.Entries()) {
    if (e.category == "kiln.custom_op") custom.push_back(e);
  }
  ASSERT_EQ(custom.size(), 1u) << log.All();
  EXPECT_EQ(custom[0].severity, KILN_LOGGING_LEVEL_WARNING);
  ExpectMentions(custom[0].message, {"hello from Compute", probe::kNode});
  EXPECT_TRUE(log.Containing("below the level").empty()) << log.All();
  ExpectOk(probe::InCallback(env.get(), Stage::kCompute, [](const Live& l) {
    ExpectRefused(api().KernelContextLog(l.ctx, static_cast<KilnLoggingLevel>(7), "x"),
                  "KernelContextLog", "severity");
    return static_cast<KilnStatus*>(nullptr);
  }));
}

// A Compute sees the run's terminate flag as it changes, and the run then stops.
TEST(CustomOpContext, KernelContextIsTerminatedFollowsTheRunOptions) {
  TestEnv env;
  KilnRunOptions* run_options = nullptr;
  ExpectOk(api().CreateRunOptions(&run_options));
  int before = -1, after = -1;
  probe::Setup setup;
  setup.run_options = run_options;
  probe::Outcome o = probe::Run(
      env.get(), Stage::kCompute,
      [&](const Live& l) {
        KilnStatus* s = api().KernelContextIsTerminated(l.ctx, &before);
        if (s == nullptr) s = api().RunOptionsSetTerminate(run_options);
        if (s == nullptr) s = api().KernelContextIsTerminated(l.ctx, &after);
        return s;
      },
      setup);
  EXPECT_TRUE(o.reached);
  ExpectOk(o.inner);
  EXPECT_EQ(before, 0);
  EXPECT_EQ(after, 1);
  const Failure f = Take(o.outer);
  EXPECT_TRUE(f.code == KILN_OK || f.code == KILN_TERMINATED) << f.message;
  ExpectOk(api().RunOptionsUnsetTerminate(run_options));
  o = probe::Run(
      env.get(), Stage::kCompute,
      [&](const Live& l) { return api().KernelContextIsTerminated(l.ctx, &after); }, setup);
  ExpectOk(o.outer);
  ExpectOk(o.inner);
  EXPECT_EQ(after, 0);
  api().ReleaseRunOptions(run_options);
}

}  // namespace
}  // namespace kiln_test
