// The contract cases of the IO binding entries and RunAsync, joined to the tables of
// contract_test.cc, which check that every entry has its cases.
#include <gtest/gtest.h>

#include <vector>

#include "api_test_util.h"
#include "contract_cases.h"

namespace kiln_test {
namespace {

// A bad argument must be reported by RunAsync itself; its run is never started.
void KILN_API_CALL NotCalled(void*, KilnValue**, size_t, KilnStatus* status) {
  ADD_FAILURE() << "RunAsync started a run whose arguments it should have rejected";
  api().ReleaseStatus(status);
}

KilnStatus* RunAsyncWith(KilnSession* session, const KilnRunOptions* run_options,
                         const char* const* in, const KilnValue* const* inputs,
                         const char* const* out, KilnValue** outputs,
                         KilnRunAsyncCallback callback = &NotCalled) {
  return api().RunAsync(session, run_options, in, inputs, 1, out, 1, outputs, callback, nullptr);
}

}  // namespace

std::vector<Case> BindingNullCases() {
  static const char* const kIn[] = {"x"};
  static const char* const kOut[] = {"y"};
  return {
      {"CreateIoBinding", "session",
       [](Objects&, Outs& o) { return api().CreateIoBinding(nullptr, &o.binding); }},
      {"CreateIoBinding", "out",
       [](Objects& b, Outs&) { return api().CreateIoBinding(b.session, nullptr); }},
      {"BindInput", "binding",
       [](Objects& b, Outs&) { return api().BindInput(nullptr, "x", b.x); }},
      {"BindInput", "name",
       [](Objects& b, Outs&) { return api().BindInput(b.binding, nullptr, b.x); }},
      {"BindInput", "value",
       [](Objects& b, Outs&) { return api().BindInput(b.binding, "x", nullptr); }},
      {"BindOutput", "binding",
       [](Objects& b, Outs&) { return api().BindOutput(nullptr, "y", b.y); }},
      {"BindOutput", "name",
       [](Objects& b, Outs&) { return api().BindOutput(b.binding, nullptr, b.y); }},
      {"BindOutput", "value",
       [](Objects& b, Outs&) { return api().BindOutput(b.binding, "y", nullptr); }},
      {"BindOutputToDevice", "binding",
       [](Objects& b, Outs&) { return api().BindOutputToDevice(nullptr, "y", b.info); }},
      {"BindOutputToDevice", "name",
       [](Objects& b, Outs&) { return api().BindOutputToDevice(b.binding, nullptr, b.info); }},
      {"BindOutputToDevice", "info",
       [](Objects& b, Outs&) { return api().BindOutputToDevice(b.binding, "y", nullptr); }},
      {"GetBoundOutputNames", "binding",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputNames(nullptr, b.allocator, &o.strings, &o.size);
       }},
      {"GetBoundOutputNames", "allocator",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputNames(b.binding, nullptr, &o.strings, &o.size);
       }},
      {"GetBoundOutputNames", "names",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputNames(b.binding, b.allocator, nullptr, &o.size);
       }},
      {"GetBoundOutputNames", "count",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputNames(b.binding, b.allocator, &o.strings, nullptr);
       }},
      {"GetBoundOutputValues", "binding",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputValues(nullptr, b.allocator, &o.values, &o.size);
       }},
      {"GetBoundOutputValues", "allocator",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputValues(b.binding, nullptr, &o.values, &o.size);
       }},
      {"GetBoundOutputValues", "values",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputValues(b.binding, b.allocator, nullptr, &o.size);
       }},
      {"GetBoundOutputValues", "count",
       [](Objects& b, Outs& o) {
         return api().GetBoundOutputValues(b.binding, b.allocator, &o.values, nullptr);
       }},
      {"ClearBoundInputs", "binding",
       [](Objects&, Outs&) { return api().ClearBoundInputs(nullptr); }},
      {"ClearBoundOutputs", "binding",
       [](Objects&, Outs&) { return api().ClearBoundOutputs(nullptr); }},
      {"SynchronizeBoundInputs", "binding",
       [](Objects&, Outs&) { return api().SynchronizeBoundInputs(nullptr); }},
      {"SynchronizeBoundOutputs", "binding",
       [](Objects&, Outs&) { return api().SynchronizeBoundOutputs(nullptr); }},
      {"RunWithBinding", "session",
       [](Objects& b, Outs&) { return api().RunWithBinding(nullptr, b.run_options, b.binding); }},
      {"RunWithBinding", "binding",
       [](Objects& b, Outs&) { return api().RunWithBinding(b.session, b.run_options, nullptr); }},
      {"RunAsync", "session",
       [](Objects& b, Outs& o) {
         return RunAsyncWith(nullptr, b.run_options, kIn, &b.x, kOut, o.outputs);
       }},
      {"RunAsync", "input_names",
       [](Objects& b, Outs& o) {
         return RunAsyncWith(b.session, b.run_options, nullptr, &b.x, kOut, o.outputs);
       }},
      {"RunAsync", "input_names",  // an entry of the array
       [](Objects& b, Outs& o) {
         const char* in[] = {nullptr};
         return RunAsyncWith(b.session, b.run_options, in, &b.x, kOut, o.outputs);
       }},
      {"RunAsync", "inputs",
       [](Objects& b, Outs& o) {
         return RunAsyncWith(b.session, b.run_options, kIn, nullptr, kOut, o.outputs);
       }},
      {"RunAsync", "inputs",  // an entry of the array
       [](Objects& b, Outs& o) {
         const KilnValue* inputs[] = {nullptr};
         return RunAsyncWith(b.session, b.run_options, kIn, inputs, kOut, o.outputs);
       }},
      {"RunAsync", "output_names",
       [](Objects& b, Outs& o) {
         return RunAsyncWith(b.session, b.run_options, kIn, &b.x, nullptr, o.outputs);
       }},
      {"RunAsync", "output_names",  // an entry of the array
       [](Objects& b, Outs& o) {
         const char* out[] = {nullptr};
         return RunAsyncWith(b.session, b.run_options, kIn, &b.x, out, o.outputs);
       }},
      {"RunAsync", "outputs",
       [](Objects& b, Outs&) {
         return RunAsyncWith(b.session, b.run_options, kIn, &b.x, kOut, nullptr);
       }},
      {"RunAsync", "callback",
       [](Objects& b, Outs& o) {
         return RunAsyncWith(b.session, b.run_options, kIn, &b.x, kOut, o.outputs, nullptr);
       }},
  };
}

std::vector<Case> BindingHandleCases(bool stale) {
  static const char* const kIn[] = {"x"};
  static const char* const kOut[] = {"y"};
  auto as_binding = [stale](Objects& b) -> KilnIoBinding* {
    return stale ? b.stale_binding : reinterpret_cast<KilnIoBinding*>(b.run_options);
  };
  auto as_value = [stale](Objects& b) -> KilnValue* {
    return stale ? b.stale_value : reinterpret_cast<KilnValue*>(b.env);
  };
  auto as_info = [stale](Objects& b) -> const KilnMemoryInfo* {
    return stale ? b.stale_info : reinterpret_cast<const KilnMemoryInfo*>(b.value);
  };
  auto as_session = [stale](Objects& b) -> KilnSession* {
    return stale ? b.stale_session : reinterpret_cast<KilnSession*>(b.binding);
  };
  auto as_run_options = [stale](Objects& b) -> KilnRunOptions* {
    return stale ? b.stale_run_options : reinterpret_cast<KilnRunOptions*>(b.binding);
  };
  std::vector<Case> cases = {
      {"CreateIoBinding", "session",
       [=](Objects& b, Outs& o) { return api().CreateIoBinding(as_session(b), &o.binding); }},
      {"BindInput", "binding",
       [=](Objects& b, Outs&) { return api().BindInput(as_binding(b), "x", b.x); }},
      {"BindInput", "value",
       [=](Objects& b, Outs&) { return api().BindInput(b.binding, "x", as_value(b)); }},
      {"BindOutput", "binding",
       [=](Objects& b, Outs&) { return api().BindOutput(as_binding(b), "y", b.y); }},
      {"BindOutput", "value",
       [=](Objects& b, Outs&) { return api().BindOutput(b.binding, "y", as_value(b)); }},
      {"BindOutputToDevice", "binding",
       [=](Objects& b, Outs&) { return api().BindOutputToDevice(as_binding(b), "y", b.info); }},
      {"BindOutputToDevice", "info",
       [=](Objects& b, Outs&) { return api().BindOutputToDevice(b.binding, "y", as_info(b)); }},
      {"GetBoundOutputNames", "binding",
       [=](Objects& b, Outs& o) {
         return api().GetBoundOutputNames(as_binding(b), b.allocator, &o.strings, &o.size);
       }},
      {"GetBoundOutputValues", "binding",
       [=](Objects& b, Outs& o) {
         return api().GetBoundOutputValues(as_binding(b), b.allocator, &o.values, &o.size);
       }},
      {"ClearBoundInputs", "binding",
       [=](Objects& b, Outs&) { return api().ClearBoundInputs(as_binding(b)); }},
      {"ClearBoundOutputs", "binding",
       [=](Objects& b, Outs&) { return api().ClearBoundOutputs(as_binding(b)); }},
      {"SynchronizeBoundInputs", "binding",
       [=](Objects& b, Outs&) { return api().SynchronizeBoundInputs(as_binding(b)); }},
      {"SynchronizeBoundOutputs", "binding",
       [=](Objects& b, Outs&) { return api().SynchronizeBoundOutputs(as_binding(b)); }},
      {"RunWithBinding", "session",
       [=](Objects& b, Outs&) {
         return api().RunWithBinding(as_session(b), b.run_options, b.binding);
       }},
      {"RunWithBinding", "run_options",
       [=](Objects& b, Outs&) {
         return api().RunWithBinding(b.session, as_run_options(b), b.binding);
       }},
      {"RunWithBinding", "binding",
       [=](Objects& b, Outs&) {
         return api().RunWithBinding(b.session, b.run_options, as_binding(b));
       }},
      {"RunAsync", "session",
       [=](Objects& b, Outs& o) {
         return RunAsyncWith(as_session(b), b.run_options, kIn, &b.x, kOut, o.outputs);
       }},
      {"RunAsync", "run_options",
       [=](Objects& b, Outs& o) {
         return RunAsyncWith(b.session, as_run_options(b), kIn, &b.x, kOut, o.outputs);
       }},
      {"RunAsync", "inputs[0]",
       [=](Objects& b, Outs& o) {
         const KilnValue* inputs[] = {as_value(b)};
         return RunAsyncWith(b.session, b.run_options, kIn, inputs, kOut, o.outputs);
       }},
      {"RunAsync", "outputs[0]",
       [=](Objects& b, Outs&) {
         KilnValue* outputs[] = {as_value(b)};
         KilnStatus* s = RunAsyncWith(b.session, b.run_options, kIn, &b.x, kOut, outputs);
         EXPECT_EQ(outputs[0], as_value(b)) << "a failed RunAsync replaced a caller's slot";
         return s;
       }},
  };
  if (!stale) {
    // A KilnAllocator is the caller's struct: only Kiln's own handles can be told apart from it.
    auto env_as_allocator = [](Objects& b) { return reinterpret_cast<KilnAllocator*>(b.env); };
    cases.push_back({"GetBoundOutputNames", "allocator", [=](Objects& b, Outs& o) {
                       return api().GetBoundOutputNames(b.binding, env_as_allocator(b), &o.strings,
                                                        &o.size);
                     }});
    cases.push_back({"GetBoundOutputValues", "allocator", [=](Objects& b, Outs& o) {
                       return api().GetBoundOutputValues(b.binding, env_as_allocator(b), &o.values,
                                                         &o.size);
                     }});
  }
  return cases;
}

}  // namespace kiln_test
