// The contract cases of the session inputs and config entries (slots 79-87); contract_test.cc
// runs them with the others.
#include "contract_cases.h"

namespace kiln_test {

std::vector<Case> SessionInputsNullCases() {
  return {
      {"SessionGetOverridableInitializerCount", "session",
       [](Objects&, Outs& o) {
         return api().SessionGetOverridableInitializerCount(nullptr, &o.size);
       }},
      {"SessionGetOverridableInitializerCount", "out",
       [](Objects& b, Outs&) {
         return api().SessionGetOverridableInitializerCount(b.initializers, nullptr);
       }},
      {"SessionGetOverridableInitializerName", "session",
       [](Objects& b, Outs& o) {
         return api().SessionGetOverridableInitializerName(nullptr, 0, b.allocator, &o.string);
       }},
      {"SessionGetOverridableInitializerName", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionGetOverridableInitializerName(b.initializers, 0, nullptr, &o.string);
       }},
      {"SessionGetOverridableInitializerName", "out",
       [](Objects& b, Outs&) {
         return api().SessionGetOverridableInitializerName(b.initializers, 0, b.allocator, nullptr);
       }},
      {"CreateSessionOverridableInitializerTensorInfo", "session",
       [](Objects&, Outs& o) {
         return api().CreateSessionOverridableInitializerTensorInfo(nullptr, 0, &o.shape);
       }},
      {"CreateSessionOverridableInitializerTensorInfo", "out",
       [](Objects& b, Outs&) {
         return api().CreateSessionOverridableInitializerTensorInfo(b.initializers, 0, nullptr);
       }},
      {"SessionOptionsAddInitializer", "options",
       [](Objects& b, Outs&) { return api().SessionOptionsAddInitializer(nullptr, "c", b.value); }},
      {"SessionOptionsAddInitializer", "name",
       [](Objects& b, Outs&) {
         return api().SessionOptionsAddInitializer(b.session_options, nullptr, b.value);
       }},
      {"SessionOptionsAddInitializer", "value",
       [](Objects& b, Outs&) {
         return api().SessionOptionsAddInitializer(b.session_options, "c", nullptr);
       }},
      {"AddFreeDimensionOverride", "options",
       [](Objects&, Outs&) { return api().AddFreeDimensionOverride(nullptr, "DATA_BATCH", 1); }},
      {"AddFreeDimensionOverride", "dim_denotation",
       [](Objects& b, Outs&) {
         return api().AddFreeDimensionOverride(b.session_options, nullptr, 1);
       }},
      {"SessionOptionsGetConfigEntry", "options",
       [](Objects& b, Outs& o) {
         return api().SessionOptionsGetConfigEntry(nullptr, "kiln.arena.enable", b.allocator,
                                                   &o.string);
       }},
      {"SessionOptionsGetConfigEntry", "key",
       [](Objects& b, Outs& o) {
         return api().SessionOptionsGetConfigEntry(b.session_options, nullptr, b.allocator,
                                                   &o.string);
       }},
      {"SessionOptionsGetConfigEntry", "allocator",
       [](Objects& b, Outs& o) {
         return api().SessionOptionsGetConfigEntry(b.session_options, "kiln.arena.enable", nullptr,
                                                   &o.string);
       }},
      {"SessionOptionsGetConfigEntry", "out",
       [](Objects& b, Outs&) {
         return api().SessionOptionsGetConfigEntry(b.session_options, "kiln.arena.enable",
                                                   b.allocator, nullptr);
       }},
      {"RunOptionsAddConfigEntry", "options",
       [](Objects&, Outs&) {
         return api().RunOptionsAddConfigEntry(nullptr, "kiln.run.check_finite", "1");
       }},
      {"RunOptionsAddConfigEntry", "key",
       [](Objects& b, Outs&) {
         return api().RunOptionsAddConfigEntry(b.run_options, nullptr, "1");
       }},
      {"RunOptionsAddConfigEntry", "value",
       [](Objects& b, Outs&) {
         return api().RunOptionsAddConfigEntry(b.run_options, "kiln.run.check_finite", nullptr);
       }},
      {"RunOptionsGetConfigEntry", "options",
       [](Objects& b, Outs& o) {
         return api().RunOptionsGetConfigEntry(nullptr, "kiln.run.check_finite", b.allocator,
                                               &o.string);
       }},
      {"RunOptionsGetConfigEntry", "key",
       [](Objects& b, Outs& o) {
         return api().RunOptionsGetConfigEntry(b.run_options, nullptr, b.allocator, &o.string);
       }},
      {"RunOptionsGetConfigEntry", "allocator",
       [](Objects& b, Outs& o) {
         return api().RunOptionsGetConfigEntry(b.run_options, "kiln.run.check_finite", nullptr,
                                               &o.string);
       }},
      {"RunOptionsGetConfigEntry", "out",
       [](Objects& b, Outs&) {
         return api().RunOptionsGetConfigEntry(b.run_options, "kiln.run.check_finite", b.allocator,
                                               nullptr);
       }},
      {"SessionGetProfilingStartTimeNs", "session",
       [](Objects&, Outs& o) { return api().SessionGetProfilingStartTimeNs(nullptr, &o.u64); }},
      {"SessionGetProfilingStartTimeNs", "out",
       [](Objects& b, Outs&) { return api().SessionGetProfilingStartTimeNs(b.session, nullptr); }},
  };
}

std::vector<Case> SessionInputsHandleCases(bool stale) {
  // A handle of the wrong kind for each kind of argument (as contract_test.cc chooses them).
  auto as_value = [stale](Objects& b) -> KilnValue* {
    return stale ? b.stale_value : reinterpret_cast<KilnValue*>(b.env);
  };
  auto as_session_options = [stale](Objects& b) -> KilnSessionOptions* {
    return stale ? b.stale_session_options : reinterpret_cast<KilnSessionOptions*>(b.run_options);
  };
  auto as_session = [stale](Objects& b) -> KilnSession* {
    return stale ? b.stale_session : reinterpret_cast<KilnSession*>(b.session_options);
  };
  auto as_run_options = [stale](Objects& b) -> KilnRunOptions* {
    return stale ? b.stale_run_options : reinterpret_cast<KilnRunOptions*>(b.session);
  };
  std::vector<Case> cases = {
      {"SessionGetOverridableInitializerCount", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetOverridableInitializerCount(as_session(b), &o.size);
       }},
      {"SessionGetOverridableInitializerName", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetOverridableInitializerName(as_session(b), 0, b.allocator,
                                                           &o.string);
       }},
      {"CreateSessionOverridableInitializerTensorInfo", "session",
       [=](Objects& b, Outs& o) {
         return api().CreateSessionOverridableInitializerTensorInfo(as_session(b), 0, &o.shape);
       }},
      {"SessionOptionsAddInitializer", "options",
       [=](Objects& b, Outs&) {
         return api().SessionOptionsAddInitializer(as_session_options(b), "c", b.value);
       }},
      {"SessionOptionsAddInitializer", "value",
       [=](Objects& b, Outs&) {
         return api().SessionOptionsAddInitializer(b.session_options, "c", as_value(b));
       }},
      {"AddFreeDimensionOverride", "options",
       [=](Objects& b, Outs&) {
         return api().AddFreeDimensionOverride(as_session_options(b), "DATA_BATCH", 1);
       }},
      {"SessionOptionsGetConfigEntry", "options",
       [=](Objects& b, Outs& o) {
         return api().SessionOptionsGetConfigEntry(as_session_options(b), "kiln.arena.enable",
                                                   b.allocator, &o.string);
       }},
      {"RunOptionsAddConfigEntry", "options",
       [=](Objects& b, Outs&) {
         return api().RunOptionsAddConfigEntry(as_run_options(b), "kiln.run.check_finite", "1");
       }},
      {"RunOptionsGetConfigEntry", "options",
       [=](Objects& b, Outs& o) {
         return api().RunOptionsGetConfigEntry(as_run_options(b), "kiln.run.check_finite",
                                               b.allocator, &o.string);
       }},
      {"SessionGetProfilingStartTimeNs", "session",
       [=](Objects& b, Outs& o) {
         return api().SessionGetProfilingStartTimeNs(as_session(b), &o.u64);
       }},
  };
  if (!stale) {
    // A caller's KilnAllocator can only be told apart from Kiln's own handles.
    auto env_as_allocator = [](Objects& b) { return reinterpret_cast<KilnAllocator*>(b.env); };
    cases.push_back({"SessionGetOverridableInitializerName", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionGetOverridableInitializerName(
                           b.initializers, 0, env_as_allocator(b), &o.string);
                     }});
    cases.push_back({"SessionOptionsGetConfigEntry", "allocator", [=](Objects& b, Outs& o) {
                       return api().SessionOptionsGetConfigEntry(
                           b.session_options, "kiln.arena.enable", env_as_allocator(b), &o.string);
                     }});
    cases.push_back({"RunOptionsGetConfigEntry", "allocator", [=](Objects& b, Outs& o) {
                       return api().RunOptionsGetConfigEntry(b.run_options, "kiln.run.check_finite",
                                                             env_as_allocator(b), &o.string);
                     }});
  }
  return cases;
}

}  // namespace kiln_test
