// The contract cases of the custom-op entries (slots 104-125), joined to the tables of
// contract_test.cc, which check that every entry has its cases. A registry, kernel info, kernel
// context or shape-inference context is live only during the callback it is given to, so the
// cases that need a live one run inside the probe's callbacks (custom_op_probe.h), and the stale
// ones are handles such a callback had, used after it returned.
#include <vector>

#include "api_test_util.h"
#include "contract_cases.h"
#include "custom_op_probe.h"

namespace kiln_test {
namespace {

using probe::Live;
using probe::Stage;

// A library path the handle cases never reach: the handle is refused first.
constexpr const char* kNeverOpened = "libkiln_contract_never_opened.so";

KilnStatus* KILN_API_CALL NoWork(void*, size_t, size_t) {
  ADD_FAILURE() << "KernelContextParallelFor ran a body it should have refused";
  return nullptr;
}

// Runs `call` in the probe's callback of `stage` (in the fixture's Env).
KilnStatus* In(Objects& b, Stage stage, const probe::Call& call) {
  return probe::InCallback(b.env, stage, call);
}

}  // namespace

std::vector<Case> CustomOpNullCases() {
  static const int64_t kDims[] = {3, 2};
  return {
      // ---- Registration
      {"SessionOptionsRegisterCustomOpsLibrary", "options",
       [](Objects&, Outs&) {
         return api().SessionOptionsRegisterCustomOpsLibrary(nullptr, kNeverOpened);
       }},
      {"SessionOptionsRegisterCustomOpsLibrary", "path",
       [](Objects& b, Outs&) {
         return api().SessionOptionsRegisterCustomOpsLibrary(b.session_options, nullptr);
       }},
      {"SessionOptionsRegisterCustomOps", "options",
       [](Objects&, Outs&) {
         return api().SessionOptionsRegisterCustomOps(nullptr, &probe::Register);
       }},
      {"SessionOptionsRegisterCustomOps", "register_ops",
       [](Objects& b, Outs&) {
         return api().SessionOptionsRegisterCustomOps(b.session_options, nullptr);
       }},
      {"CustomOpRegistryAdd", "registry",
       [](Objects&, Outs&) { return api().CustomOpRegistryAdd(nullptr, probe::SecondOp()); }},
      {"CustomOpRegistryAdd", "op",
       [](Objects& b, Outs&) {
         return In(b, Stage::kRegister,
                   [](const Live& l) { return api().CustomOpRegistryAdd(l.registry, nullptr); });
       }},
      // ---- Kernel info
      {"KernelInfoGetNodeName", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetNodeName(nullptr, &o.text); }},
      {"KernelInfoGetNodeName", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel,
                   [](const Live& l) { return api().KernelInfoGetNodeName(l.info, nullptr); });
       }},
      {"KernelInfoGetInputCount", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetInputCount(nullptr, &o.size); }},
      {"KernelInfoGetInputCount", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel,
                   [](const Live& l) { return api().KernelInfoGetInputCount(l.info, nullptr); });
       }},
      {"KernelInfoGetOutputCount", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetOutputCount(nullptr, &o.size); }},
      {"KernelInfoGetOutputCount", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel,
                   [](const Live& l) { return api().KernelInfoGetOutputCount(l.info, nullptr); });
       }},
      {"KernelInfoGetAttributeInt", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetAttributeInt(nullptr, "i", &o.version); }},
      {"KernelInfoGetAttributeInt", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInt(l.info, nullptr, &o.version);
         });
       }},
      {"KernelInfoGetAttributeInt", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel, [](const Live& l) {
           return api().KernelInfoGetAttributeInt(l.info, "i", nullptr);
         });
       }},
      {"KernelInfoGetAttributeFloat", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetAttributeFloat(nullptr, "f", &o.f); }},
      {"KernelInfoGetAttributeFloat", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloat(l.info, nullptr, &o.f);
         });
       }},
      {"KernelInfoGetAttributeFloat", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel, [](const Live& l) {
           return api().KernelInfoGetAttributeFloat(l.info, "f", nullptr);
         });
       }},
      {"KernelInfoGetAttributeString", "info",
       [](Objects&, Outs& o) { return api().KernelInfoGetAttributeString(nullptr, "s", &o.text); }},
      {"KernelInfoGetAttributeString", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeString(l.info, nullptr, &o.text);
         });
       }},
      {"KernelInfoGetAttributeString", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCreateKernel, [](const Live& l) {
           return api().KernelInfoGetAttributeString(l.info, "s", nullptr);
         });
       }},
      {"KernelInfoGetAttributeInts", "info",
       [](Objects&, Outs& o) {
         return api().KernelInfoGetAttributeInts(nullptr, "ints", &o.ints, &o.size);
       }},
      {"KernelInfoGetAttributeInts", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInts(l.info, nullptr, &o.ints, &o.size);
         });
       }},
      {"KernelInfoGetAttributeInts", "values",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInts(l.info, "ints", nullptr, &o.size);
         });
       }},
      {"KernelInfoGetAttributeInts", "count",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeInts(l.info, "ints", &o.ints, nullptr);
         });
       }},
      {"KernelInfoGetAttributeFloats", "info",
       [](Objects&, Outs& o) {
         return api().KernelInfoGetAttributeFloats(nullptr, "floats", &o.floats, &o.size);
       }},
      {"KernelInfoGetAttributeFloats", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloats(l.info, nullptr, &o.floats, &o.size);
         });
       }},
      {"KernelInfoGetAttributeFloats", "values",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloats(l.info, "floats", nullptr, &o.size);
         });
       }},
      {"KernelInfoGetAttributeFloats", "count",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeFloats(l.info, "floats", &o.floats, nullptr);
         });
       }},
      {"KernelInfoGetAttributeStrings", "info",
       [](Objects&, Outs& o) {
         return api().KernelInfoGetAttributeStrings(nullptr, "strings", &o.string_list, &o.size);
       }},
      {"KernelInfoGetAttributeStrings", "name",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeStrings(l.info, nullptr, &o.string_list, &o.size);
         });
       }},
      {"KernelInfoGetAttributeStrings", "values",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeStrings(l.info, "strings", nullptr, &o.size);
         });
       }},
      {"KernelInfoGetAttributeStrings", "count",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCreateKernel, [&](const Live& l) {
           return api().KernelInfoGetAttributeStrings(l.info, "strings", &o.string_list, nullptr);
         });
       }},
      // ---- Kernel context
      {"KernelContextGetInputCount", "ctx",
       [](Objects&, Outs& o) { return api().KernelContextGetInputCount(nullptr, &o.size); }},
      {"KernelContextGetInputCount", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute,
                   [](const Live& l) { return api().KernelContextGetInputCount(l.ctx, nullptr); });
       }},
      {"KernelContextGetOutputCount", "ctx",
       [](Objects&, Outs& o) { return api().KernelContextGetOutputCount(nullptr, &o.size); }},
      {"KernelContextGetOutputCount", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute,
                   [](const Live& l) { return api().KernelContextGetOutputCount(l.ctx, nullptr); });
       }},
      {"KernelContextGetInput", "ctx",
       [](Objects&, Outs& o) { return api().KernelContextGetInput(nullptr, 0, &o.const_value); }},
      {"KernelContextGetInput", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute,
                   [](const Live& l) { return api().KernelContextGetInput(l.ctx, 0, nullptr); });
       }},
      {"KernelContextGetOutput", "ctx",
       [](Objects&, Outs& o) {
         return api().KernelContextGetOutput(nullptr, 0, kDims, 2, &o.value);
       }},
      {"KernelContextGetOutput", "dims",
       [](Objects& b, Outs& o) {
         return In(b, Stage::kCompute, [&](const Live& l) {
           return api().KernelContextGetOutput(l.ctx, 0, nullptr, 2, &o.value);
         });
       }},
      {"KernelContextGetOutput", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute, [](const Live& l) {
           return api().KernelContextGetOutput(l.ctx, 0, kDims, 2, nullptr);
         });
       }},
      {"KernelContextParallelFor", "ctx",
       [](Objects&, Outs&) {
         return api().KernelContextParallelFor(nullptr, &NoWork, nullptr, 4, 1);
       }},
      {"KernelContextParallelFor", "fn",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute, [](const Live& l) {
           return api().KernelContextParallelFor(l.ctx, nullptr, nullptr, 4, 1);
         });
       }},
      {"KernelContextIsTerminated", "ctx",
       [](Objects&, Outs& o) { return api().KernelContextIsTerminated(nullptr, &o.i); }},
      {"KernelContextGetKernelInfo", "ctx",
       [](Objects&, Outs& o) { return api().KernelContextGetKernelInfo(nullptr, &o.kernel_info); }},
      {"KernelContextGetKernelInfo", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute,
                   [](const Live& l) { return api().KernelContextGetKernelInfo(l.ctx, nullptr); });
       }},
      {"KernelContextIsTerminated", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute,
                   [](const Live& l) { return api().KernelContextIsTerminated(l.ctx, nullptr); });
       }},
      {"KernelContextLog", "ctx",
       [](Objects&, Outs&) {
         return api().KernelContextLog(nullptr, KILN_LOGGING_LEVEL_WARNING, "a message");
       }},
      {"KernelContextLog", "message",
       [](Objects& b, Outs&) {
         return In(b, Stage::kCompute, [](const Live& l) {
           return api().KernelContextLog(l.ctx, KILN_LOGGING_LEVEL_WARNING, nullptr);
         });
       }},
      // ---- Shape inference
      {"ShapeInferContextGetKernelInfo", "ctx",
       [](Objects&, Outs& o) {
         return api().ShapeInferContextGetKernelInfo(nullptr, &o.kernel_info);
       }},
      {"ShapeInferContextGetKernelInfo", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kInferShapes, [](const Live& l) {
           return api().ShapeInferContextGetKernelInfo(l.infer, nullptr);
         });
       }},
      {"ShapeInferContextGetInputTypeInfo", "ctx",
       [](Objects&, Outs& o) {
         return api().ShapeInferContextGetInputTypeInfo(nullptr, 0, &o.shape);
       }},
      {"ShapeInferContextGetInputTypeInfo", "out",
       [](Objects& b, Outs&) {
         return In(b, Stage::kInferShapes, [](const Live& l) {
           return api().ShapeInferContextGetInputTypeInfo(l.infer, 0, nullptr);
         });
       }},
      {"ShapeInferContextSetOutputTypeInfo", "ctx",
       [](Objects&, Outs&) {
         return api().ShapeInferContextSetOutputTypeInfo(nullptr, 0, KILN_ELEMENT_TYPE_FLOAT, kDims,
                                                         2);
       }},
      {"ShapeInferContextSetOutputTypeInfo", "dims",
       [](Objects& b, Outs&) {
         return In(b, Stage::kInferShapes, [](const Live& l) {
           return api().ShapeInferContextSetOutputTypeInfo(l.infer, 0, KILN_ELEMENT_TYPE_FLOAT,
                                                           nullptr, 2);
         });
       }},
  };
}

std::vector<Case> CustomOpHandleCases(bool stale) {
  static const int64_t kDims[] = {3, 2};
  auto as_options = [stale](Objects& b) -> KilnSessionOptions* {
    return stale ? b.stale_session_options : reinterpret_cast<KilnSessionOptions*>(b.run_options);
  };
  auto as_registry = [stale](Objects& b) -> KilnCustomOpRegistry* {
    return stale ? probe::StaleHandles().registry
                 : reinterpret_cast<KilnCustomOpRegistry*>(b.session);
  };
  auto as_info = [stale](Objects& b) -> const KilnKernelInfo* {
    return stale ? probe::StaleHandles().info : reinterpret_cast<const KilnKernelInfo*>(b.value);
  };
  auto as_ctx = [stale](Objects& b) -> KilnKernelContext* {
    return stale ? probe::StaleHandles().ctx
                 : reinterpret_cast<KilnKernelContext*>(b.session_options);
  };
  auto as_infer = [stale](Objects& b) -> KilnShapeInferContext* {
    return stale ? probe::StaleHandles().infer : reinterpret_cast<KilnShapeInferContext*>(b.env);
  };
  std::vector<Case> cases = {
      // ---- Registration
      {"SessionOptionsRegisterCustomOpsLibrary", "options",
       [=](Objects& b, Outs&) {
         return api().SessionOptionsRegisterCustomOpsLibrary(as_options(b), kNeverOpened);
       }},
      {"SessionOptionsRegisterCustomOps", "options",
       [=](Objects& b, Outs&) {
         return api().SessionOptionsRegisterCustomOps(as_options(b), &probe::Register);
       }},
      {"CustomOpRegistryAdd", "registry",
       [=](Objects& b, Outs&) {
         return api().CustomOpRegistryAdd(as_registry(b), probe::SecondOp());
       }},
      // ---- Kernel info
      {"KernelInfoGetNodeName", "info",
       [=](Objects& b, Outs& o) { return api().KernelInfoGetNodeName(as_info(b), &o.text); }},
      {"KernelInfoGetInputCount", "info",
       [=](Objects& b, Outs& o) { return api().KernelInfoGetInputCount(as_info(b), &o.size); }},
      {"KernelInfoGetOutputCount", "info",
       [=](Objects& b, Outs& o) { return api().KernelInfoGetOutputCount(as_info(b), &o.size); }},
      {"KernelInfoGetAttributeInt", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeInt(as_info(b), "i", &o.version);
       }},
      {"KernelInfoGetAttributeFloat", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeFloat(as_info(b), "f", &o.f);
       }},
      {"KernelInfoGetAttributeString", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeString(as_info(b), "s", &o.text);
       }},
      {"KernelInfoGetAttributeInts", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeInts(as_info(b), "ints", &o.ints, &o.size);
       }},
      {"KernelInfoGetAttributeFloats", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeFloats(as_info(b), "floats", &o.floats, &o.size);
       }},
      {"KernelInfoGetAttributeStrings", "info",
       [=](Objects& b, Outs& o) {
         return api().KernelInfoGetAttributeStrings(as_info(b), "strings", &o.string_list, &o.size);
       }},
      // ---- Kernel context
      {"KernelContextGetInputCount", "ctx",
       [=](Objects& b, Outs& o) { return api().KernelContextGetInputCount(as_ctx(b), &o.size); }},
      {"KernelContextGetOutputCount", "ctx",
       [=](Objects& b, Outs& o) { return api().KernelContextGetOutputCount(as_ctx(b), &o.size); }},
      {"KernelContextGetInput", "ctx",
       [=](Objects& b, Outs& o) {
         return api().KernelContextGetInput(as_ctx(b), 0, &o.const_value);
       }},
      {"KernelContextGetOutput", "ctx",
       [=](Objects& b, Outs& o) {
         return api().KernelContextGetOutput(as_ctx(b), 0, kDims, 2, &o.value);
       }},
      {"KernelContextParallelFor", "ctx",
       [=](Objects& b, Outs&) {
         return api().KernelContextParallelFor(as_ctx(b), &NoWork, nullptr, 4, 1);
       }},
      {"KernelContextIsTerminated", "ctx",
       [=](Objects& b, Outs& o) { return api().KernelContextIsTerminated(as_ctx(b), &o.i); }},
      {"KernelContextGetKernelInfo", "ctx",
       [=](Objects& b, Outs& o) {
         return api().KernelContextGetKernelInfo(as_ctx(b), &o.kernel_info);
       }},
      {"KernelContextLog", "ctx",
       [=](Objects& b, Outs&) {
         return api().KernelContextLog(as_ctx(b), KILN_LOGGING_LEVEL_WARNING, "a message");
       }},
      // ---- Shape inference
      {"ShapeInferContextGetKernelInfo", "ctx",
       [=](Objects& b, Outs& o) {
         return api().ShapeInferContextGetKernelInfo(as_infer(b), &o.kernel_info);
       }},
      {"ShapeInferContextGetInputTypeInfo", "ctx",
       [=](Objects& b, Outs& o) {
         return api().ShapeInferContextGetInputTypeInfo(as_infer(b), 0, &o.shape);
       }},
      {"ShapeInferContextSetOutputTypeInfo", "ctx",
       [=](Objects& b, Outs&) {
         return api().ShapeInferContextSetOutputTypeInfo(as_infer(b), 0, KILN_ELEMENT_TYPE_FLOAT,
                                                         kDims, 2);
       }},
  };
  if (!stale) {
    // One transient handle where another is expected, both live in the same callback's thread.
    cases.push_back({"KernelInfoGetNodeName", "info", [](Objects& b, Outs& o) {
                       return In(b, Stage::kCompute, [&](const Live& l) {
                         return api().KernelInfoGetNodeName(
                             reinterpret_cast<const KilnKernelInfo*>(l.ctx), &o.text);
                       });
                     }});
    cases.push_back({"KernelContextGetInputCount", "ctx", [](Objects& b, Outs& o) {
                       return In(b, Stage::kInferShapes, [&](const Live& l) {
                         return api().KernelContextGetInputCount(
                             reinterpret_cast<const KilnKernelContext*>(l.infer), &o.size);
                       });
                     }});
    cases.push_back({"ShapeInferContextGetKernelInfo", "ctx", [](Objects& b, Outs& o) {
                       return In(b, Stage::kCreateKernel, [&](const Live& l) {
                         return api().ShapeInferContextGetKernelInfo(
                             reinterpret_cast<const KilnShapeInferContext*>(l.info),
                             &o.kernel_info);
                       });
                     }});
    cases.push_back({"CustomOpRegistryAdd", "registry", [](Objects& b, Outs&) {
                       return In(b, Stage::kCreateKernel, [](const Live& l) {
                         return api().CustomOpRegistryAdd(reinterpret_cast<KilnCustomOpRegistry*>(
                                                              const_cast<KilnKernelInfo*>(l.info)),
                                                          probe::SecondOp());
                       });
                     }});
  }
  return cases;
}

}  // namespace kiln_test
