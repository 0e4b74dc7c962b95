// Entries: CreateIoBinding … RunWithBinding (slots 88-99). A binding checks and resolves its names
// when they are bound and keeps the engine's argument lists ready, so a run hands them over as
// they are: with every output bound to a caller's tensor it allocates nothing.
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "api/allocators.h"
#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/run_arguments.h"
#include "api/status.h"

namespace kiln::api {
namespace {

// The index of `name` among the model's inputs or outputs; throws INVALID_ARGUMENT naming
// "name" when it is not one of them.
size_t ModelIndex(const std::vector<runtime::Session::IoDesc>& descs, const std::string& name,
                  const char* what) {
  for (size_t k = 0; k < descs.size(); ++k) {
    if (descs[k].name == name) return k;
  }
  std::string known;
  for (const auto& d : descs) known += (known.empty() ? "'" : ", '") + d.name + "'";
  ThrowInvalidArgument("name", "'" + name + "' is not an " + what + " of the model (its " + what +
                                   "s: " + known + ")");
}

size_t IndexOf(const std::vector<std::string>& names, const std::string& name) {
  size_t i = 0;
  while (i < names.size() && names[i] != name) ++i;
  return i;
}

// Binds `name` to `tensor` (null: each run makes the value). Either every list grows by one or,
// when memory runs out, nothing changes.
void BindOutputTensor(KilnIoBinding& b, std::string name, std::shared_ptr<Tensor> tensor) {
  const std::lock_guard<std::mutex> lock(b.mutex);
  b.has_results = false;  // the kept outputs no longer match the bound names
  const size_t i = IndexOf(b.output_names, name);
  if (i < b.output_names.size()) {
    b.output_tensors[i] = std::move(tensor);
    return;
  }
  const size_t n = b.output_names.size() + 1;
  b.output_names.reserve(n);
  b.output_tensors.reserve(n);
  b.run_tensors.reserve(n);
  b.run_others.reserve(n);
  b.result_tensors.reserve(n);
  b.result_others.reserve(n);
  b.output_names.push_back(std::move(name));
  b.output_tensors.push_back(std::move(tensor));
  b.run_tensors.emplace_back();
  b.run_others.emplace_back();
  b.result_tensors.emplace_back();
  b.result_others.emplace_back();
}

// The engine names Run's arguments in its messages; through a binding they all come from it.
[[noreturn]] void RethrowNamingBinding(const Error& e) {
  const std::string what = e.what();
  const std::string prefix = "argument '";
  const size_t end = what.find("': ");
  if (e.code() != ErrorCode::kInvalidArgument || what.rfind(prefix, 0) != 0 ||
      end == std::string::npos) {
    throw;
  }
  throw Error(e.code(), "argument 'binding': " + what.substr(end + 3));
}

}  // namespace

KilnStatus* KILN_API_CALL CreateIoBinding(KilnSession* session, KilnIoBinding** out) {
  return Guard("CreateIoBinding", [&] {
    const auto& s = Unwrap(session, "session");
    CheckOut(out, "out");
    auto binding = std::make_unique<KilnIoBinding>();
    binding->session = s.session;
    Publish(std::move(binding), out);
  });
}

void KILN_API_CALL ReleaseIoBinding(KilnIoBinding* binding) {
  Release(binding, "ReleaseIoBinding");
}

KilnStatus* KILN_API_CALL BindInput(KilnIoBinding* binding, const char* name,
                                    const KilnValue* value) {
  return Guard("BindInput", [&] {
    auto& b = Unwrap(binding, "binding");
    std::string n = CheckedUtf8(name, "name");
    const auto& v = Unwrap(value, "value");
    RefuseLent(v, "value");
    ModelIndex(b.session->inputs(), n, "input");
    Value bound = v.tensor != nullptr ? Value(v.tensor) : v.other;
    const std::lock_guard<std::mutex> lock(b.mutex);
    const size_t i = IndexOf(b.input_names, n);
    if (i < b.input_names.size()) {
      b.inputs[i] = std::move(bound);
      return;
    }
    b.input_names.reserve(b.input_names.size() + 1);
    b.inputs.reserve(b.inputs.size() + 1);
    b.input_names.push_back(std::move(n));
    b.inputs.push_back(std::move(bound));
  });
}

KilnStatus* KILN_API_CALL BindOutput(KilnIoBinding* binding, const char* name, KilnValue* value) {
  return Guard("BindOutput", [&] {
    auto& b = Unwrap(binding, "binding");
    std::string n = CheckedUtf8(name, "name");
    const auto& v = Unwrap(value, "value");
    RefuseLent(v, "value");
    RefuseReadOnly(v, "value");
    ModelIndex(b.session->outputs(), n, "output");
    if (v.tensor == nullptr) {
      ThrowInvalidArgument("value", "is a " + v.other.TypeText() +
                                        "; only tensors can be written into (bind the output "
                                        "with BindOutputToDevice)");
    }
    if (v.tensor->type() == DataType::kString) {
      throw Error(ErrorCode::kNotImplemented,
                  "argument 'value': string tensors cannot be written in place (bind the output "
                  "with BindOutputToDevice)");
    }
    BindOutputTensor(b, std::move(n), v.tensor);
  });
}

KilnStatus* KILN_API_CALL BindOutputToDevice(KilnIoBinding* binding, const char* name,
                                             const KilnMemoryInfo* info) {
  return Guard("BindOutputToDevice", [&] {
    auto& b = Unwrap(binding, "binding");
    std::string n = CheckedUtf8(name, "name");
    const auto& i = Unwrap(info, "info");
    ModelIndex(b.session->outputs(), n, "output");
    if (!i.info.IsCpu()) {
      throw Error(ErrorCode::kNotImplemented, std::string("argument 'info': device '") +
                                                  i.info.name + "' is not supported (only Cpu)");
    }
    BindOutputTensor(b, std::move(n), nullptr);
  });
}

KilnStatus* KILN_API_CALL GetBoundOutputNames(const KilnIoBinding* binding,
                                              KilnAllocator* allocator, char*** names,
                                              size_t* count) {
  return Guard("GetBoundOutputNames", [&] {
    const auto& b = Unwrap(binding, "binding");
    CheckAllocator(allocator, "allocator");
    CheckOut(names, "names");
    CheckOut(count, "count");
    const std::lock_guard<std::mutex> lock(b.mutex);
    if (b.output_names.empty()) {
      *names = nullptr;
      *count = 0;
      return;
    }
    const size_t n = b.output_names.size();
    auto** array = static_cast<char**>(allocator->Alloc(allocator, n * sizeof(char*)));
    if (array == nullptr) throw Error(ErrorCode::kOutOfMemory, "the allocator returned NULL");
    size_t made = 0;
    try {
      for (; made < n; ++made) array[made] = CopyString(allocator, b.output_names[made]);
    } catch (...) {
      for (size_t i = 0; i < made; ++i) allocator->Free(allocator, array[i]);
      allocator->Free(allocator, array);
      throw;
    }
    *names = array;
    *count = n;
  });
}

KilnStatus* KILN_API_CALL GetBoundOutputValues(const KilnIoBinding* binding,
                                               KilnAllocator* allocator, KilnValue*** values,
                                               size_t* count) {
  return Guard("GetBoundOutputValues", [&] {
    const auto& b = Unwrap(binding, "binding");
    CheckAllocator(allocator, "allocator");
    CheckOut(values, "values");
    CheckOut(count, "count");
    const std::lock_guard<std::mutex> lock(b.mutex);
    if (!b.has_results) {
      ThrowInvalidArgument("binding",
                           "has no outputs yet: no run has succeeded since its outputs "
                           "were last bound or cleared");
    }
    const size_t n = b.result_tensors.size();
    std::vector<std::unique_ptr<KilnValue>> made(n);
    for (size_t i = 0; i < n; ++i) {
      made[i] = std::make_unique<KilnValue>();
      made[i]->tensor = b.result_tensors[i];
      if (made[i]->tensor == nullptr) made[i]->other = b.result_others[i];
    }
    auto** array = static_cast<KilnValue**>(allocator->Alloc(allocator, n * sizeof(KilnValue*)));
    if (array == nullptr) throw Error(ErrorCode::kOutOfMemory, "the allocator returned NULL");
    size_t registered = 0;
    try {
      for (; registered < n; ++registered) {
        registry::Add(made[registered].get(), HandleKind::kValue);
      }
    } catch (...) {
      for (size_t i = 0; i < registered; ++i) registry::Remove(made[i].get(), HandleKind::kValue);
      allocator->Free(allocator, array);
      throw;
    }
    for (size_t i = 0; i < n; ++i) array[i] = made[i].release();
    *values = array;
    *count = n;
  });
}

KilnStatus* KILN_API_CALL ClearBoundInputs(KilnIoBinding* binding) {
  return Guard("ClearBoundInputs", [&] {
    auto& b = Unwrap(binding, "binding");
    const std::lock_guard<std::mutex> lock(b.mutex);
    b.input_names.clear();
    b.inputs.clear();
  });
}

KilnStatus* KILN_API_CALL ClearBoundOutputs(KilnIoBinding* binding) {
  return Guard("ClearBoundOutputs", [&] {
    auto& b = Unwrap(binding, "binding");
    const std::lock_guard<std::mutex> lock(b.mutex);
    b.output_names.clear();
    b.output_tensors.clear();
    b.run_tensors.clear();
    b.run_others.clear();
    b.result_tensors.clear();
    b.result_others.clear();
    b.has_results = false;
  });
}

KilnStatus* KILN_API_CALL SynchronizeBoundInputs(KilnIoBinding* binding) {
  // Every bound value is in CPU memory, ready as soon as it is written.
  return Guard("SynchronizeBoundInputs", [&] { Unwrap(binding, "binding"); });
}

KilnStatus* KILN_API_CALL SynchronizeBoundOutputs(KilnIoBinding* binding) {
  // CPU runs have finished writing their outputs when they return.
  return Guard("SynchronizeBoundOutputs", [&] { Unwrap(binding, "binding"); });
}

KilnStatus* KILN_API_CALL RunWithBinding(KilnSession* session, const KilnRunOptions* run_options,
                                         const KilnIoBinding* binding) {
  return Guard("RunWithBinding", [&] {
    const auto& s = Unwrap(session, "session");
    const runtime::RunOptions& ro =
        run_options != nullptr ? *Unwrap(run_options, "run_options").options : DefaultRunOptions();
    const auto& b = Unwrap(binding, "binding");
    const std::lock_guard<std::mutex> lock(b.mutex);
    if (b.session != s.session) {
      ThrowInvalidArgument("binding", "was created for another session");
    }
    // Bound names are distinct model inputs, so a count short of the model's means one is missing.
    const auto& model_inputs = s.session->inputs();
    if (b.input_names.size() != model_inputs.size()) {
      for (const auto& d : model_inputs) {
        if (IndexOf(b.input_names, d.name) == b.input_names.size()) {
          ThrowInvalidArgument("binding", "input '" + d.name + "' is not bound");
        }
      }
    }
    if (b.output_names.empty()) ThrowInvalidArgument("binding", "has no output bound");
    LogRun(s.logger, ro, b.inputs.size(), b.output_names.size());
    for (size_t i = 0; i < b.output_names.size(); ++i) {
      b.run_tensors[i] = b.output_tensors[i];
      b.run_others[i] = Value();
    }
    try {
      s.session->Run(ro, b.input_names, b.inputs, b.output_names, b.run_tensors, b.run_others);
    } catch (const Error& e) {
      RethrowNamingBinding(e);
    }
    b.result_tensors.swap(b.run_tensors);
    b.result_others.swap(b.run_others);
    b.has_results = true;
    for (auto& t : b.run_tensors) t.reset();  // the previous run's outputs are not kept
    for (auto& v : b.run_others) v = Value();
  });
}

}  // namespace kiln::api
