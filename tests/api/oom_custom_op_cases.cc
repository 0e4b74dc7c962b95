// Failure injection over the custom-op entries (slots 104-125), joined to oom_test.cc's cases,
// and over a custom-op library's whole life: registered, a session made with its op, a run
// through it. The entries that take a registry, kernel info, kernel context or shape-inference
// context are called inside the probe's callbacks (custom_op_probe.h) with the hook armed around
// that call only: the session the callback belongs to is made and run unhooked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc_hook.h"
#include "api_test_util.h"
#include "custom_op_probe.h"
#include "custom_op_test_util.h"
#include "oom_cases.h"
#include "test_models.h"

namespace kiln_test {
namespace {

using probe::Live;
using probe::Stage;

// What the callback checks, unhooked, after the call: whether a failed call left a trace.
using After = std::function<void(const Live& live, bool failed)>;

KilnStatus* Hooked(Objects& b, Stage stage, const probe::Call& call, const After& after = nullptr) {
  alloc_hook::Pause();
  KilnStatus* status = probe::InCallback(b.env, stage, [&](const Live& l) {
    alloc_hook::Resume();
    KilnStatus* s = call(l);
    alloc_hook::Pause();
    if (after) after(l, s != nullptr);
    return s;
  });
  alloc_hook::Resume();  // as the harness left it: it disarms next
  return status;
}

// A retry after a failed call must succeed: the failure left no trace.
void ExpectRetrySucceeds(KilnStatus* retry, const char* what) {
  if (retry != nullptr) {
    ADD_FAILURE() << what << ": " << api().GetErrorMessage(retry);
    api().ReleaseStatus(retry);
  }
}

KilnStatus* KILN_API_CALL NoWork(void*, size_t, size_t) {
  return nullptr;
}

// Whether registering `again` on the options succeeds as a failed first registration left them
// (it must), or fails as a successful one left them (the ops are there already).
const char* RegisteredWrong(KilnStatus* again, bool failed) {
  const bool registered = again == nullptr;
  api().ReleaseStatus(again);
  if (failed && !registered) return "a failed registration left its ops registered";
  if (!failed && registered) return "the registration registered nothing";
  return nullptr;
}

const std::string& AddOneModel() {
  static const std::string model = models::CustomOp("test.kiln.ops", "AddOne", "add_one");
  return model;
}

}  // namespace

std::vector<OomCase> CustomOpOomCases() {
  static const int64_t kDims[] = {3, 2};
  return {
      // ---- Registration
      {"SessionOptionsRegisterCustomOpsLibrary",
       [](Objects& b, Outs&, Made&) {
         return api().SessionOptionsRegisterCustomOpsLibrary(b.session_options,
                                                             KILN_TEST_OPS_LIB_GOOD);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) {
         return RegisteredWrong(api().SessionOptionsRegisterCustomOpsLibrary(
                                    b.session_options, KILN_TEST_OPS_LIB_GOOD),
                                failed);
       }},
      {"SessionOptionsRegisterCustomOps",
       [](Objects& b, Outs&, Made&) {
         return api().SessionOptionsRegisterCustomOps(b.session_options, &probe::Register);
       },
       nullptr,
       [](Objects& b, Made&, bool failed) {
         return RegisteredWrong(
             api().SessionOptionsRegisterCustomOps(b.session_options, &probe::Register), failed);
       }},
      {"CustomOpRegistryAdd",
       [](Objects& b, Outs&, Made&) {
         return Hooked(b, Stage::kRegister, [](const Live& l) {
           return api().CustomOpRegistryAdd(l.registry, probe::SecondOp());
         });
       }},
      // ---- Kernel info
      {"KernelInfoGetNodeName",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel,
                       [&](const Live& l) { return api().KernelInfoGetNodeName(l.info, &o.text); });
       }},
      {"KernelInfoGetInputCount",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetInputCount(l.info, &o.size);
         });
       }},
      {"KernelInfoGetOutputCount",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetOutputCount(l.info, &o.size);
         });
       }},
      {"KernelInfoGetAttributeInt",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInt(l.info, "i", &o.version);
         });
       }},
      {"KernelInfoGetAttributeFloat",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloat(l.info, "f", &o.f);
         });
       }},
      {"KernelInfoGetAttributeString",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeString(l.info, "s", &o.text);
         });
       }},
      {"KernelInfoGetAttributeInts",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInts(l.info, "ints", &o.ints, &o.size);
         });
       }},
      {"KernelInfoGetAttributeFloats",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloats(l.info, "floats", &o.floats, &o.size);
         });
       }},
      {"KernelInfoGetAttributeStrings",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeStrings(l.info, "strings", &o.string_list, &o.size);
         });
       }},
      // ---- Kernel context
      {"KernelContextGetInputCount",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCompute, [&](const Live& l) {
           return api().KernelContextGetInputCount(l.ctx, &o.size);
         });
       }},
      {"KernelContextGetOutputCount",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCompute, [&](const Live& l) {
           return api().KernelContextGetOutputCount(l.ctx, &o.size);
         });
       }},
      {"KernelContextGetInput",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCompute, [&](const Live& l) {
           return api().KernelContextGetInput(l.ctx, 0, &o.const_value);
         });
       }},
      {"KernelContextGetOutput",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(
             b, Stage::kCompute,
             [&](const Live& l) {
               return api().KernelContextGetOutput(l.ctx, 0, kDims, 2, &o.value);
             },
             [](const Live& l, bool failed) {
               KilnValue* y = nullptr;
               if (failed) {
                 ExpectRetrySucceeds(api().KernelContextGetOutput(l.ctx, 0, kDims, 2, &y),
                                     "KernelContextGetOutput failed, then failed again");
               }
             });
       }},
      {"KernelContextParallelFor",
       [](Objects& b, Outs&, Made&) {
         return Hooked(b, Stage::kCompute, [](const Live& l) {
           return api().KernelContextParallelFor(l.ctx, &NoWork, nullptr, 64, 1);
         });
       }},
      {"KernelContextGetKernelInfo",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCompute, [&](const Live& l) {
           return api().KernelContextGetKernelInfo(l.ctx, &o.kernel_info);
         });
       }},
      {"KernelContextIsTerminated",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kCompute,
                       [&](const Live& l) { return api().KernelContextIsTerminated(l.ctx, &o.i); });
       }},
      {"KernelContextLog",
       [](Objects& b, Outs&, Made&) {
         return Hooked(b, Stage::kCompute, [](const Live& l) {
           return api().KernelContextLog(l.ctx, KILN_LOGGING_LEVEL_ERROR,
                                         "a message long enough to need the heap to hold it");
         });
       }},
      // ---- Shape inference
      {"ShapeInferContextGetKernelInfo",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kInferShapes, [&](const Live& l) {
           return api().ShapeInferContextGetKernelInfo(l.infer, &o.kernel_info);
         });
       }},
      {"ShapeInferContextGetInputTypeInfo",
       [](Objects& b, Outs& o, Made&) {
         return Hooked(b, Stage::kInferShapes, [&](const Live& l) {
           KilnStatus* s = api().ShapeInferContextGetInputTypeInfo(l.infer, 0, &o.shape);
           if (s == nullptr) api().ReleaseTensorTypeAndShapeInfo(o.shape);
           return s;
         });
       }},
      {"ShapeInferContextSetOutputTypeInfo",
       [](Objects& b, Outs&, Made&) {
         return Hooked(
             b, Stage::kInferShapes,
             [](const Live& l) {
               return api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT,
                                                               kDims, 2);
             },
             [](const Live& l, bool failed) {
               if (failed) {
                 ExpectRetrySucceeds(
                     api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT,
                                                              kDims, 2),
                     "ShapeInferContextSetOutputTypeInfo failed, then failed again");
               }
             });
       }},
  };
}

namespace {

// An AddOne session in the fixture's place (its options registering the test library), and its
// input x filled.
void UseAddOneSession(Objects& b) {
  KilnSession* session = nullptr;
  ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(b.session_options, KILN_TEST_OPS_LIB_GOOD));
  ExpectOk(MakeSession(b.env, AddOneModel(), b.session_options, &session));
  api().ReleaseSession(b.session);
  b.session = session;
  void* x = nullptr;
  ExpectOk(api().GetTensorMutableData(b.x, &x));
  for (int i = 0; i < 6; ++i) static_cast<float*>(x)[i] = static_cast<float>(i) - 2.5f;
}

// Runs `c` with every allocation failing in turn (only the Nth, then the Nth and all later), after
// a warm-up; every kernel the test library made must have been destroyed at the end.
void RunWithTheLibrary(const OomCase& c) {
  Pin lib(KILN_TEST_OPS_LIB_GOOD);
  const Counts before = lib.Calls();
  for (bool sticky : {false, true}) {
    {
      // Warm-up: the lazily built state reaches its steady size.
      Objects b;
      Outs o;
      Made made;
      c.setup(b);
      ExpectOk(c.call(b, o, made));
      for (auto& release : made.releases) release();
    }
    const Result r = RunUntilSuccess(c, sticky);
    EXPECT_GT(r.injected, 0) << c.entry << ": no allocation failed";
  }
  const Counts made = lib.Calls() - before;
  EXPECT_GT(made.create_kernel, 0);
  EXPECT_EQ(made.destroy_kernel, made.create_kernel) << "kernels made and never destroyed";
}

// A run through a library's op: every allocation of the run failing in turn, the library's
// Compute included (it passes Kiln's failures on).
TEST(FailureInjection, CustomOpRunThroughALibrary) {
  RunWithTheLibrary(
      {"Run (custom op)",
       [](Objects& b, Outs&, Made& m) {
         const char* in[] = {"x"};
         const char* out[] = {"y"};
         KilnStatus* s = api().Run(b.session, b.run_options, in, &b.x, 1, out, 1, m.slots);
         if (s == nullptr) m.releases.push_back([v = m.slots[0]] { api().ReleaseValue(v); });
         return s;
       },
       &UseAddOneSession,
       [](Objects&, Made& m, bool failed) -> const char* {
         if (failed) return m.slots[0] == nullptr ? nullptr : "a failed Run filled its slot";
         void* y = nullptr;
         if (m.slots[0] == nullptr || api().GetTensorMutableData(m.slots[0], &y) != nullptr) {
           return "Run gave no tensor";
         }
         for (int i = 0; i < 6; ++i) {
           if (static_cast<float*>(y)[i] != static_cast<float>(i) - 1.5f) return "wrong values";
         }
         return nullptr;
       }});
}

// A session made with a library's op: every allocation of its making failing in turn, the
// library's InferShapes and CreateKernel included.
TEST(FailureInjection, CustomOpSessionMadeFromALibrary) {
  RunWithTheLibrary({"CreateSessionFromArray (custom op)",
                     [](Objects& b, Outs& o, Made& m) {
                       const std::string& model = AddOneModel();
                       KilnStatus* s = api().CreateSessionFromArray(
                           b.env, model.data(), model.size(), b.session_options, &o.session);
                       if (s == nullptr) {
                         m.releases.push_back([p = o.session] { api().ReleaseSession(p); });
                       }
                       return s;
                     },
                     [](Objects& b) {
                       (void)AddOneModel();
                       ExpectOk(api().SessionOptionsRegisterCustomOpsLibrary(
                           b.session_options, KILN_TEST_OPS_LIB_GOOD));
                     }});
}

}  // namespace
}  // namespace kiln_test
