// kiln_alloc_probe MODEL... [--require-none] [--each]: heap allocations per steady-state run of a
// model with static input shapes (free dimensions are fixed to 1 through free-dimension overrides).
// Inputs are zero-filled (valid token ids, valid indices), outputs are caller-given tensors. What
// counts: the process's C allocations (c_alloc_counter.cc: malloc, posix_memalign, ..., which
// operator new uses too), so that a library allocating with malloc, as oneDNN does, is seen; in
// sanitizer builds, whose runtimes own those functions, the global operator new/delete of this
// binary only (tests/api/alloc_hook.cc).
//
// One model: prints "allocations per run: N (what was counted)", or the error on stderr and exits
// 2; with --require-none, exits 1 when N is not 0. Several, or --each (alloc_sweep.py, which would
// otherwise start a process per case, most of its time): one line per model on stdout, in order
// and flushed, "MODEL: allocations per run: N (...)" or "MODEL: not measured: WHY", so that the
// caller knows how far a probe that crashed got; exits 1 when --require-none and one allocated.
#include <kiln/kiln_cxx_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "../api/alloc_hook.h"
#if defined(KILN_COUNT_C_ALLOCATIONS)
#include "c_alloc_counter.h"
#endif

namespace {

namespace hook = kiln_test::alloc_hook;

struct Measure {
  long seen = -1;   // allocations over the counted runs; -1: not measured
  std::string why;  // why not
  const char* counted = "";
};
constexpr int kRuns = 5;

Measure Probe(const std::string& path) {
  kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "alloc-probe");
  kiln::SessionOptions options = kiln::SessionOptions::Create();
  options.SetIntraOpNumThreads(1);
  {
    kiln::Session probe = kiln::Session::Create(env, path, options);
    for (size_t i = 0; i < probe.input_count(); ++i) {
      for (const std::string& name : probe.input_tensor_info(i).symbolic_shape()) {
        if (!name.empty()) options.AddFreeDimensionOverrideByName(name, 1);
      }
    }
  }
  kiln::Session session = kiln::Session::Create(env, path, options);
  kiln::Allocator allocator = kiln::Allocator::Default();

  std::vector<std::string> in_names = session.input_names();
  std::vector<std::string> out_names = session.output_names();
  std::vector<kiln::Value> inputs;
  for (size_t i = 0; i < in_names.size(); ++i) {
    kiln::TensorTypeAndShapeInfo info = session.input_tensor_info(i);
    std::vector<int64_t> shape = info.shape();
    for (int64_t d : shape) {
      if (d < 0) {
        return {-1, "input '" + in_names[i] + "' has a free dimension: not a static-shape model"};
      }
    }
    inputs.push_back(kiln::Value::CreateTensor(allocator, shape, info.element_type()));
  }
  // A first run with Kiln-allocated outputs gives their types and shapes.
  std::vector<kiln::Value> outputs = session.Run(in_names, inputs, out_names);

  std::vector<const char*> c_in_names;
  std::vector<const KilnValue*> c_inputs;
  for (size_t i = 0; i < in_names.size(); ++i) {
    c_in_names.push_back(in_names[i].c_str());
    c_inputs.push_back(inputs[i].get());
  }
  std::vector<const char*> c_out_names;
  std::vector<KilnValue*> c_outputs;
  for (size_t i = 0; i < out_names.size(); ++i) {
    c_out_names.push_back(out_names[i].c_str());
    c_outputs.push_back(outputs[i].get());
  }
  const KilnApi& api = *KilnGetApiBase()->GetApi(KILN_API_VERSION);
  auto run = [&] {
    return api.Run(session.get(), nullptr, c_in_names.data(), c_inputs.data(), c_inputs.size(),
                   c_out_names.data(), c_out_names.size(), c_outputs.data());
  };
  KilnStatus* failed = run();  // the first run into the caller's tensors
#if defined(KILN_COUNT_C_ALLOCATIONS)
  const char* counted = "C allocations, operator new's included";
  kiln_test::c_alloc_counter::Start();
  for (int i = 0; i < kRuns && failed == nullptr; ++i) failed = run();
  const long seen = kiln_test::c_alloc_counter::Stop();
#else
  const char* counted = "operator new only: a sanitizer build";
  hook::Arm(-1, false);  // count only
  for (int i = 0; i < kRuns && failed == nullptr; ++i) failed = run();
  const long seen = hook::Seen();
  hook::Disarm();
#endif
  if (failed != nullptr) {
    Measure m{-1, std::string("run failed: ") + api.GetErrorMessage(failed)};
    api.ReleaseStatus(failed);
    return m;
  }
  return {seen, "", counted};
}

Measure ProbeOrWhy(const std::string& path) {
  try {
    return Probe(path);
  } catch (const std::exception& e) {
    return {-1, e.what()};
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool require_none = false;
  bool each = false;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--require-none") == 0) {
      require_none = true;
    } else if (std::strcmp(argv[i], "--each") == 0) {
      each = true;
    } else {
      models.emplace_back(argv[i]);
    }
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: kiln_alloc_probe MODEL... [--require-none] [--each]\n");
    return 2;
  }
  if (models.size() == 1 && !each) {
    const Measure m = ProbeOrWhy(models[0]);
    if (m.seen < 0) {
      std::fprintf(stderr, "kiln_alloc_probe: %s\n", m.why.c_str());
      return 2;
    }
    std::printf("allocations per run: %ld (%s)\n", m.seen / kRuns, m.counted);
    return require_none && m.seen != 0 ? 1 : 0;
  }
  bool allocated = false;
  for (const std::string& model : models) {
    const Measure m = ProbeOrWhy(model);
    if (m.seen < 0) {
      std::string why = m.why;  // on one line: the caller reads a line per model
      std::replace(why.begin(), why.end(), '\n', ' ');
      std::printf("%s: not measured: %s\n", model.c_str(), why.c_str());
    } else {
      std::printf("%s: allocations per run: %ld (%s)\n", model.c_str(), m.seen / kRuns, m.counted);
      allocated = allocated || m.seen != 0;
    }
    std::fflush(stdout);
  }
  return require_none && allocated ? 1 : 0;
}
