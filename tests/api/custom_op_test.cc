// Custom operators through the C ABI (kiln/kiln_custom_op.h), as a library sees them: the test
// libraries of custom_ops/ (one source, one build per -D flag, none linking libkiln) registered,
// run, failing in each callback, with descriptions older, newer or wrong, overriding a built-in
// op, run from many threads, cloned with their options and unloaded. The entries a callback
// calls are tested in custom_op_context_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api_test_util.h"
#include "custom_op_probe.h"
#include "custom_op_test_util.h"
#include "test_models.h"

namespace kiln_test {
namespace {

constexpr const char* kDomain = "test.kiln.ops";

std::string AddOneModel(const std::string& node = "add_one",
                        const std::vector<std::pair<std::string, std::string>>& attributes = {}) {
  return models::CustomOp(kDomain, "AddOne", node, attributes);
}

// x[i] = i / 2 - 3, for `rows` rows of 2.
std::vector<float> Ramp(int64_t rows) {
  std::vector<float> x(static_cast<size_t>(rows * 2));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f - 3.0f;
  return x;
}

std::vector<float> PlusOne(std::vector<float> x) {
  for (float& v : x) v += 1.0f;
  return x;
}

// A session of AddOne made with `options` (which registered a library's AddOne) gives x + 1.
void ExpectAddOneRuns(KilnEnv* env, KilnSessionOptions* options) {
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env, AddOneModel(), options, &session));
  if (session == nullptr) return;
  for (int64_t rows : {1, 3, 100}) {
    Ran r = RunX(session, {rows, 2}, Ramp(rows));
    ExpectOk(r.status);
    EXPECT_EQ(r.dims, (std::vector<int64_t>{rows, 2}));
    EXPECT_EQ(r.y, PlusOne(Ramp(rows))) << rows << " rows";
  }
  api().ReleaseSession(session);
}

TEST(CustomOp, LibraryOpRunsAndMatchesTheReference) {
  TestEnv env;
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  ExpectAddOneRuns(env.get(), options.get());
}

TEST(CustomOp, ProfilingNamesTheCustomNodeAndItsOp) {
  TestEnv env;
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  const std::string prefix = models::ScratchDir().path() + "/custom_op_profile";
  ExpectOk(api().EnableProfiling(options.get(), prefix.c_str()));
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env.get(), AddOneModel("the_custom_node"), options.get(), &session));
  ASSERT_NE(session, nullptr);
  ExpectOk(RunX(session, {2, 2}, Ramp(2)).status);
  KilnAllocator* allocator = nullptr;
  ExpectOk(api().GetAllocatorWithDefaultOptions(&allocator));
  char* path = nullptr;
  ExpectOk(api().SessionEndProfiling(session, allocator, &path));
  ASSERT_NE(path, nullptr);
  std::ifstream in(path);
  const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("the_custom_node"), std::string::npos) << json;
  EXPECT_NE(json.find("AddOne"), std::string::npos) << json;
  ExpectOk(api().AllocatorFree(allocator, path));
  api().ReleaseSession(session);
}

TEST(CustomOp, KilnCallsEachCallbackAsOftenAsItShould) {
  Pin lib(KILN_TEST_OPS_LIB_GOOD);
  const Counts before = lib.Calls();
  TestEnv env;
  {
    Options options;
    ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
    KilnSession* session = nullptr;
    ExpectOk(MakeSession(env.get(), AddOneModel(), options.get(), &session));
    for (int i = 0; i < 3; ++i) ExpectOk(RunX(session, {2, 2}, Ramp(2)).status);
    const Counts live = lib.Calls() - before;
    EXPECT_GE(live.create_kernel, 1);
    EXPECT_EQ(live.create_kernel - live.destroy_kernel, 1) << "one kernel per node in a session";
    EXPECT_GE(live.infer_shapes, 1);
    EXPECT_EQ(live.compute, 3);
    api().ReleaseSession(session);
    const Counts gone = lib.Calls() - before;
    EXPECT_EQ(gone.destroy_kernel, gone.create_kernel) << "a kernel was not destroyed";
    EXPECT_EQ(gone.release_op_state, 0) << "the options still hold the op";
  }
  EXPECT_EQ((lib.Calls() - before).release_op_state, 1);
}

// ---- Failures in the library's callbacks
// ---------------------------------------------------------

// The failure fail_in asks for: a status naming the library, the op, the callback and the node.
TEST(CustomOp, CallbackFailuresNameTheLibraryTheOpTheCallbackAndTheNode) {
  Pin lib(KILN_TEST_OPS_LIB_GOOD);
  TestEnv env;
  for (const char* callback : {"InferShapes", "CreateKernel", "Compute"}) {
    SCOPED_TRACE(callback);
    const Counts before = lib.Calls();
    {
      Options options;
      ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
      const std::string node = std::string("fails_in_") + callback;
      KilnSession* session = nullptr;
      Failure f = Take(MakeSession(env.get(), AddOneModel(node, {{"fail_in", callback}}),
                                   options.get(), &session));
      if (std::string(callback) == "Compute") {
        EXPECT_EQ(f.code, KILN_OK) << f.message;
        f = Take(RunX(session, {3, 2}, Ramp(3)).status);
        EXPECT_EQ(f.code, KILN_ENGINE_ERROR) << "the run fails with the callback's code";
      } else {
        EXPECT_EQ(session, nullptr);
        EXPECT_NE(f.code, KILN_OK);
      }
      ExpectMentions(f.message, {KILN_TEST_OPS_LIB_GOOD, "AddOne", callback, node,
                                 std::string("test_ops was told to fail in ") + callback});
      api().ReleaseSession(session);
    }
    const Counts made = lib.Calls() - before;
    EXPECT_EQ(made.destroy_kernel, callback == std::string("CreateKernel") ? 0 : made.create_kernel)
        << "every kernel made (and none other) is destroyed";
  }
}

// DestroyKernel runs as the session goes: its failure can only be logged, naming the same.
TEST(CustomOp, DestroyKernelFailureIsLoggedNamingTheLibraryTheOpAndTheNode) {
  Pin lib(KILN_TEST_OPS_LIB_GOOD);
  const Counts before = lib.Calls();
  CapturedLog log;
  TestEnv env(&log);
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env.get(), AddOneModel("fails_in_destroy", {{"fail_in", "DestroyKernel"}}),
                       options.get(), &session));
  ExpectOk(RunX(session, {3, 2}, Ramp(3)).status);
  api().ReleaseSession(session);
  const std::vector<std::string> logged = log.Containing("DestroyKernel");
  ASSERT_EQ(static_cast<long>(logged.size()), (lib.Calls() - before).destroy_kernel)
      << "one message per failed DestroyKernel; " << log.All();
  for (const std::string& message : logged) {
    ExpectMentions(message, {KILN_TEST_OPS_LIB_GOOD, "AddOne", "fails_in_destroy",
                             "test_ops was told to fail in DestroyKernel"});
  }
}

TEST(CustomOp, CppExceptionFromTheRegistrationFunctionBecomesAStatus) {
  Options options;
  const Failure f = Take(api().SessionOptionsRegisterCustomOpsLibrary(
      options.get(), KILN_TEST_OPS_LIB_THROW_IN_REGISTER));
  EXPECT_EQ(f.code, KILN_FAIL) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_THROW_IN_REGISTER, "KilnRegisterCustomOps",
                             "test_ops_throw: KilnRegisterCustomOps threw"});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_THROW_IN_REGISTER));
}

TEST(CustomOp, CppExceptionFromComputeBecomesAStatus) {
  TestEnv env;
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(),
                                                        KILN_TEST_OPS_LIB_THROW_IN_COMPUTE));
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env.get(), models::CustomOp(kDomain, "Throw", "throwing_node"),
                       options.get(), &session));
  for (int attempt = 0; attempt < 2; ++attempt) {  // the session is still usable after one
    const Failure f = Take(RunX(session, {3, 2}, Ramp(3)).status);
    EXPECT_EQ(f.code, KILN_FAIL) << f.message;
    ExpectMentions(f.message, {KILN_TEST_OPS_LIB_THROW_IN_COMPUTE, "Throw", "Compute",
                               "throwing_node", "test_ops_throw: Compute threw"});
  }
  api().ReleaseSession(session);
  api().ReleaseSessionOptions(options.release());
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_THROW_IN_COMPUTE)) << "a C++ library is unloaded too";
}

TEST(CustomOp, ComputeAllocatingAnotherShapeThanInferShapesSaidFailsTheRun) {
  TestEnv env;
  Options options;
  ExpectOk(
      api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_WRONG_SHAPE));
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env.get(), AddOneModel("too_wide"), options.get(), &session));
  Ran r = RunX(session, {3, 2}, Ramp(3));
  EXPECT_TRUE(r.y.empty());
  const Failure f = Take(r.status);
  EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_WRONG_SHAPE, "AddOne", "too_wide", "shape"});
  api().ReleaseSession(session);
}

// ---- Descriptions of other versions, and wrong ones
// ----------------------------------------------

TEST(CustomOp, LargerDescriptionWhoseExtraBytesAreZeroLoads) {
  TestEnv env;
  Options options;
  ExpectOk(
      api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_LARGER_ZERO));
  ExpectAddOneRuns(env.get(), options.get());
}

TEST(CustomOp, LargerDescriptionWithAnExtraFieldSetIsNotImplemented) {
  Options options;
  const Failure f = Take(api().SessionOptionsRegisterCustomOpsLibrary(
      options.get(), KILN_TEST_OPS_LIB_LARGER_NONZERO));
  EXPECT_EQ(f.code, KILN_NOT_IMPLEMENTED) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_LARGER_NONZERO, "AddOne", "struct_size"});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_LARGER_NONZERO));
}

// A library built against an older header: what it lacks is absent, so DestroyKernel (past its
// struct_size, though set in its memory) is never called, nor ReleaseOpState.
TEST(CustomOp, SmallerDescriptionLoadsAndItsMissingCallbacksAreNeverCalled) {
  Pin lib(KILN_TEST_OPS_LIB_SMALLER);
  const Counts before = lib.Calls();
  {
    TestEnv env;
    Options options;
    ExpectOk(
        api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_SMALLER));
    ExpectAddOneRuns(env.get(), options.get());
  }
  const Counts made = lib.Calls() - before;
  EXPECT_GE(made.create_kernel, 1);
  EXPECT_EQ(made.destroy_kernel, 0);
  EXPECT_EQ(made.release_op_state, 0);
}

// Each wrong description is refused by CustomOpRegistryAdd, naming the library, the op and the
// field; the library is then closed.
TEST(CustomOp, WrongDescriptionsNameTheLibraryTheOpAndTheField) {
  struct Wrong {
    const char* library;
    const char* field;
  };
  for (const Wrong& w : {Wrong{KILN_TEST_OPS_LIB_BAD_ELEMENT_TYPE, "allowed_types[0]"},
                         Wrong{KILN_TEST_OPS_LIB_VARIADIC_NOT_LAST, "variadic"},
                         Wrong{KILN_TEST_OPS_LIB_UNKNOWN_TYPE_PARAM, "type_param 'U'"},
                         Wrong{KILN_TEST_OPS_LIB_UNBOUND_TYPE_PARAM, "'U'"},
                         Wrong{KILN_TEST_OPS_LIB_HUGE_COUNT, "input_count"}}) {
    SCOPED_TRACE(w.library);
    Options options;
    const Failure f = Take(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), w.library));
    EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
    ExpectMentions(f.message, {w.library, "AddOne", w.field});
    EXPECT_FALSE(Loaded(w.library));
  }
}

// ---- Registration failures
// -----------------------------------------------------------------------

TEST(CustomOp, MissingLibraryIsNoSuchFileAndLeavesTheOptionsAsTheyWere) {
  Options options;
  for (const char* path : {"/nonexistent/kiln/libkiln_missing_ops.so", "libkiln_missing_ops.so"}) {
    const Failure f = Take(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), path));
    EXPECT_EQ(f.code, KILN_NO_SUCHFILE) << f.message;
    ExpectMentions(f.message, {"SessionOptionsRegisterCustomOpsLibrary", path});
  }
  TestEnv env;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  ExpectAddOneRuns(env.get(), options.get());
}

TEST(CustomOp, LibraryWithoutTheEntryFails) {
  Options options;
  const Failure f =
      Take(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_NO_ENTRY));
  EXPECT_EQ(f.code, KILN_FAIL) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_NO_ENTRY, "KilnRegisterCustomOps"});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_NO_ENTRY));
}

TEST(CustomOp, LibraryRegisteringNothingFails) {
  Options options;
  const Failure f =
      Take(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_EMPTY));
  EXPECT_EQ(f.code, KILN_FAIL) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_EMPTY, "no ops"});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_EMPTY));
}

// The second AddOne is refused and fails the registration; the first, added already, is released
// (its ReleaseOpState called once), and the library closed.
TEST(CustomOp, DuplicateOpWithinOneLibraryFails) {
  Pin lib(KILN_TEST_OPS_LIB_DUPLICATE);
  const Counts before = lib.Calls();
  {
    Options options;
    const Failure f = Take(
        api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_DUPLICATE));
    EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
    ExpectMentions(f.message, {KILN_TEST_OPS_LIB_DUPLICATE, "AddOne", kDomain});
  }
  EXPECT_EQ((lib.Calls() - before).release_op_state, 1);
}

TEST(CustomOp, DuplicateOpAcrossTwoRegistrationsFails) {
  TestEnv env;
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  // Another library with an AddOne of the same domain and opsets.
  const Failure f = Take(
      api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_LARGER_ZERO));
  EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_LARGER_ZERO, "AddOne", KILN_TEST_OPS_LIB_GOOD});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_LARGER_ZERO));
  // The program's ops twice.
  ExpectOk(api().SessionOptionsRegisterCustomOps(options.get(), &RegisterTwice));
  const Failure again = Take(api().SessionOptionsRegisterCustomOps(options.get(), &RegisterTwice));
  EXPECT_EQ(again.code, KILN_INVALID_ARGUMENT) << again.message;
  ExpectMentions(again.message, {"Twice", kProgramDomain});
  // The options still hold the first library's ops.
  ExpectAddOneRuns(env.get(), options.get());
}

TEST(CustomOp, SameLibraryRegisteredTwiceFails) {
  TestEnv env;
  Options options;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  const Failure f =
      Take(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
  ExpectMentions(f.message, {"SessionOptionsRegisterCustomOpsLibrary", KILN_TEST_OPS_LIB_GOOD,
                             "registered already"});
  ExpectAddOneRuns(env.get(), options.get());
}

// ---- Overriding a built-in op
// --------------------------------------------------------------------

// y = Relu(Conv(x)): the library's Relu (leaky: x / 4 below zero) runs instead of Kiln's, at every
// optimization level; Conv+Relu, which Kiln fuses from level 2 on, stays two nodes (fused, the
// negative values would be 0).
TEST(CustomOp, OverridingOpReplacesTheBuiltInOneAndIsNotFused) {
  TestEnv env;
  const std::vector<float> x = {-1.0f, 0.0f, 1.0f, 2.0f};
  std::vector<float> conv, relu, leaky;
  for (float v : x) {
    conv.push_back(models::kConvWeight * v + models::kConvBias);
    relu.push_back(conv.back() > 0 ? conv.back() : 0.0f);
    leaky.push_back(conv.back() > 0 ? conv.back() : conv.back() * 0.25f);
  }
  ASSERT_NE(relu, leaky);
  for (KilnGraphOptimizationLevel level :
       {KILN_GRAPH_OPTIMIZATION_DISABLE_ALL, KILN_GRAPH_OPTIMIZATION_BASIC,
        KILN_GRAPH_OPTIMIZATION_EXTENDED, KILN_GRAPH_OPTIMIZATION_ALL}) {
    SCOPED_TRACE(static_cast<int>(level));
    for (bool overridden : {false, true}) {
      Options options;
      ExpectOk(api().SetSessionGraphOptimizationLevel(options.get(), level));
      if (overridden) {
        ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(),
                                                              KILN_TEST_OPS_LIB_OVERRIDE));
      }
      KilnSession* session = nullptr;
      ExpectOk(MakeSession(env.get(), models::ConvRelu(), options.get(), &session));
      Ran r = RunX(session, {1, 1, 2, 2}, x);
      ExpectOk(r.status);
      EXPECT_EQ(r.y, overridden ? leaky : relu) << (overridden ? "overridden" : "Kiln's Relu");
      api().ReleaseSession(session);
    }
  }
}

TEST(CustomOp, NamingABuiltInOpWithoutOverridesBuiltinFails) {
  Options options;
  const Failure f = Take(api().SessionOptionsRegisterCustomOpsLibrary(
      options.get(), KILN_TEST_OPS_LIB_OVERRIDE_UNFLAGGED));
  EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
  ExpectMentions(f.message, {KILN_TEST_OPS_LIB_OVERRIDE_UNFLAGGED, "Relu", "overrides_builtin"});
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_OVERRIDE_UNFLAGGED));
}

// "ai.kiln" and the domains overriding ops are moved to hold Kiln's own ops: a custom op may not
// join them.
const char* g_domain = nullptr;

KilnStatus* KILN_API_CALL RegisterInDomain(KilnCustomOpRegistry* registry,
                                           const KilnApiBase* base) {
  KilnCustomOp op = *probe::SecondOp();
  op.domain = g_domain;
  return base->GetApi(KILN_API_VERSION)->CustomOpRegistryAdd(registry, &op);
}

TEST(CustomOp, DomainsOfKilnsOwnAreRefused) {
  for (const char* domain : {"ai.kiln", "ai.kiln.override.ai.onnx", "ai.kiln.override.my.ops"}) {
    g_domain = domain;
    Options options;
    const Failure f = Take(api().SessionOptionsRegisterCustomOps(options.get(), &RegisterInDomain));
    EXPECT_EQ(f.code, KILN_INVALID_ARGUMENT) << f.message;
    ExpectMentions(f.message, {"CustomOpRegistryAdd", "Probe2", domain});
  }
}

// ---- Ops of the program itself, clones, threads
// ----------------------------------------------------

TEST(CustomOp, OpsLinkedIntoTheProgramRun) {
  const long released = TwiceReleases();
  TestEnv env;
  {
    Options options;
    ExpectOk(api().SessionOptionsRegisterCustomOps(options.get(), &RegisterTwice));
    KilnSession* session = nullptr;
    ExpectOk(MakeSession(env.get(), models::CustomOp(kProgramDomain, "Twice", "twice"),
                         options.get(), &session));
    Ran r = RunX(session, {4, 2}, Ramp(4));
    ExpectOk(r.status);
    std::vector<float> want = Ramp(4);
    for (float& v : want) v *= 2.0f;
    EXPECT_EQ(r.y, want);
    api().ReleaseSession(session);
    EXPECT_EQ(TwiceReleases(), released);
  }
  EXPECT_EQ(TwiceReleases(), released + 1) << "ReleaseOpState once the options are gone";
}

TEST(CustomOp, ClonedOptionsKeepTheOpsAndTheLibraryLoaded) {
  TestEnv env;
  KilnSessionOptions* original = nullptr;
  KilnSessionOptions* clone = nullptr;
  ExpectOk(api().CreateSessionOptions(&original));
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(original, KILN_TEST_OPS_LIB_GOOD));
  ExpectOk(api().CloneSessionOptions(original, &clone));
  api().ReleaseSessionOptions(original);
  EXPECT_TRUE(Loaded(KILN_TEST_OPS_LIB_GOOD)) << "the clone's ops need their library";
  ExpectAddOneRuns(env.get(), clone);
  EXPECT_TRUE(Loaded(KILN_TEST_OPS_LIB_GOOD));
  api().ReleaseSessionOptions(clone);
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_GOOD)) << "nothing uses the library any more";
}

// A session outlives the options it was made from, and keeps their library loaded.
TEST(CustomOp, SessionKeepsTheLibraryLoadedAfterItsOptionsAreReleased) {
  TestEnv env;
  KilnSession* session = nullptr;
  {
    Options options;
    ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
    ExpectOk(MakeSession(env.get(), AddOneModel(), options.get(), &session));
  }
  EXPECT_TRUE(Loaded(KILN_TEST_OPS_LIB_GOOD));
  Ran r = RunX(session, {3, 2}, Ramp(3));
  ExpectOk(r.status);
  EXPECT_EQ(r.y, PlusOne(Ramp(3)));
  api().ReleaseSession(session);
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_GOOD));
}

// Eight threads run one session at once, each with its own batch size and values, and each gets
// what a run alone gave.
TEST(CustomOp, ThreadsRunningOneSessionGetTheirSingleThreadedResults) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  TestEnv env;
  Options options;
  ExpectOk(api().SetIntraOpNumThreads(options.get(), 2));
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(options.get(), KILN_TEST_OPS_LIB_GOOD));
  KilnSession* session = nullptr;
  ExpectOk(MakeSession(env.get(), AddOneModel(), options.get(), &session));
  ASSERT_NE(session, nullptr);
  auto input = [](int t) {
    std::vector<float> x = Ramp(t * 37 + 1);
    for (float& v : x) v *= static_cast<float>(t + 1);
    return x;
  };
  std::vector<std::vector<float>> alone(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    Ran r = RunX(session, {t * 37 + 1, 2}, input(t));
    ExpectOk(r.status);
    alone[t] = r.y;
    EXPECT_EQ(alone[t], PlusOne(input(t)));
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        Ran r = RunX(session, {t * 37 + 1, 2}, input(t));
        if (r.status != nullptr || r.y != alone[t]) ++mismatches[t];
        api().ReleaseStatus(r.status);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  api().ReleaseSession(session);
}

}  // namespace

// Its own suite: a thousand cycles take a while, and the end state is the process's.
TEST(CustomOpUnload, LibraryIsUnloadedAfterAThousandCycles) {
  ASSERT_FALSE(Loaded(KILN_TEST_OPS_LIB_GOOD)) << "an earlier test left the library loaded";
  TestEnv env;
  const std::string model = AddOneModel();
  int failures = 0;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    KilnSessionOptions* options = nullptr;
    KilnSession* session = nullptr;
    KilnStatus* s = api().CreateSessionOptions(&options);
    if (s == nullptr)
      s = api().SessionOptionsRegisterCustomOpsLibrary(options, KILN_TEST_OPS_LIB_GOOD);
    if (s == nullptr) s = MakeSession(env.get(), model, options, &session);
    if (s == nullptr) {
      Ran r = RunX(session, {2, 2}, {1, 2, 3, 4});
      s = r.status;
      if (s == nullptr && r.y != std::vector<float>{2, 3, 4, 5}) ++failures;
    }
    if (cycle == 0) {
      EXPECT_TRUE(Loaded(KILN_TEST_OPS_LIB_GOOD)) << "dlopen(RTLD_NOLOAD) sees it";
    }
    if (s != nullptr) ++failures;
    api().ReleaseStatus(s);
    api().ReleaseSession(session);
    api().ReleaseSessionOptions(options);
  }
  EXPECT_EQ(failures, 0);
  EXPECT_FALSE(Loaded(KILN_TEST_OPS_LIB_GOOD)) << "dlclose did not unload the library";
}

}  // namespace kiln_test
