// kiln_alloc_probe MODEL [--require-none]: heap allocations per steady-state run of a model with
// static input shapes (free dimensions are fixed to 1 through free-dimension overrides). Inputs are
// zero-filled (valid token ids, valid indices), outputs are caller-given tensors. What counts: the
// process's C allocations (c_alloc_counter.cc: malloc, posix_memalign, ..., which operator new
// uses too), so that a library allocating with malloc, as oneDNN does, is seen; in sanitizer
// builds, whose runtimes own those functions, the global operator new/delete of this binary only
// (tests/api/alloc_hook.cc). Prints "allocations per run: N (what was counted)"; with
// --require-none, exits 1 when N is not 0.
#include <kiln/kiln_cxx_api.h>

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

int Probe(const std::string& path, bool require_none) {
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
        std::fprintf(stderr, "input '%s' has a free dimension: not a static-shape model\n",
                     in_names[i].c_str());
        return 2;
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
  constexpr int kRuns = 5;
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
    std::fprintf(stderr, "run failed: %s\n", api.GetErrorMessage(failed));
    api.ReleaseStatus(failed);
    return 2;
  }
  std::printf("allocations per run: %ld (%s)\n", seen / kRuns, counted);
  return require_none && seen != 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "--require-none") != 0)) {
    std::fprintf(stderr, "usage: kiln_alloc_probe MODEL [--require-none]\n");
    return 2;
  }
  try {
    return Probe(argv[1], argc == 3);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_alloc_probe: %s\n", e.what());
    return 2;
  }
}
