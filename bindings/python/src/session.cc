// Session options, run options and sessions: the native classes the Python layer drives.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "native.h"

namespace kilnpy {
namespace {

// One input or output as the ABI describes it.
struct IoInfo {
  std::string name;
  int value_type = KILN_VALUE_TYPE_UNKNOWN;
  int element_type = KILN_ELEMENT_TYPE_UNDEFINED;
  std::vector<int64_t> dims;          // -1: unknown
  std::vector<std::string> symbolic;  // "" where the dimension has no name
};

py::tuple InfoTuple(const IoInfo& i) {
  return py::make_tuple(i.name, i.value_type, i.element_type, i.dims, i.symbolic);
}

template <typename NameF, typename KindF, typename InfoF>
std::vector<IoInfo> ReadIo(size_t count, NameF name, KindF kind, InfoF info) {
  std::vector<IoInfo> out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i].name =
        kiln::detail::AllocatedString([&](KilnAllocator* a, char** s) { return name(i, a, s); });
    KilnValueType vt = KILN_VALUE_TYPE_UNKNOWN;
    Check(kind(i, &vt));
    out[i].value_type = vt;
    KilnTensorTypeAndShapeInfo* raw = nullptr;
    Check(info(i, &raw));
    kiln::TensorTypeAndShapeInfo ti(raw);
    out[i].element_type = ti.element_type();
    out[i].dims = ti.shape();
    out[i].symbolic = ti.symbolic_shape();
  }
  return out;
}

class SessionOptions {
 public:
  SessionOptions() : options_(kiln::SessionOptions::Create()) {}
  kiln::SessionOptions& get() { return options_; }

 private:
  kiln::SessionOptions options_;
};

class RunOptions {
 public:
  RunOptions() : options_(kiln::RunOptions::Create()) {}
  kiln::RunOptions& get() { return options_; }

 private:
  kiln::RunOptions options_;
};

// One run started by Session::RunAsync: what must live until Kiln calls Done on its thread.
struct AsyncJob {
  py::object callback;
  py::object user_data;
  std::vector<std::string> in_names;
  std::vector<std::string> out_names;
  std::vector<ValuePtr> inputs;     // keeps the fed arrays alive
  std::vector<KilnValue*> outputs;  // the slots the run fills

  // The KilnRunAsyncCallback: converts the results and calls the Python callback, GIL held.
  static void KILN_API_CALL Done(void* self, KilnValue** outputs, size_t count,
                                 KilnStatus* status) {
    if (_Py_IsFinalizing()) {  // the interpreter is going away: nothing can be called
      api().ReleaseStatus(status);
      return;
    }
    py::gil_scoped_acquire gil;
    std::unique_ptr<AsyncJob> job(static_cast<AsyncJob*>(self));
    std::string err;
    py::object results = py::none();
    if (status != nullptr) {
      err = api().GetErrorMessage(status);
      api().ReleaseStatus(status);
    } else {
      std::vector<ValuePtr> owned;
      for (size_t i = 0; i < count; ++i) owned.push_back(std::make_shared<Value>(outputs[i]));
      try {
        py::list list(count);
        for (size_t i = 0; i < count; ++i) {
          py::capsule base(new ValuePtr(owned[i]),
                           [](void* p) { delete static_cast<ValuePtr*>(p); });
          list[i] = ToPython(owned[i], base);
        }
        results = list;
      } catch (const std::exception& e) {
        err = e.what();
      }
    }
    try {
      job->callback(results, job->user_data, err);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("kiln run_async callback");
    }
  }
};

class Session {
 public:
  Session(const Session&) = delete;  // input_index_ points into its own vectors
  Session& operator=(const Session&) = delete;
  Session(const py::object& model, SessionOptions& options) {
    KilnSession* s = nullptr;
    if (const KilnModel* m = ModelHandleOf(model)) {
      py::gil_scoped_release release;
      Check(GraphApi().CreateSessionFromModel(DefaultEnv(), m, options.get().get(), &s));
    } else if (py::isinstance<py::bytes>(model)) {
      std::string_view bytes = py::reinterpret_borrow<py::bytes>(model);
      py::gil_scoped_release release;
      Check(api().CreateSessionFromArray(DefaultEnv(), bytes.data(), bytes.size(),
                                         options.get().get(), &s));
    } else {
      const std::string path = model.cast<std::string>();
      if (path.find('\0') != std::string::npos) {
        throw kiln::Exception(KILN_INVALID_ARGUMENT, "path holds a NUL character");
      }
      py::gil_scoped_release release;
      Check(api().CreateSession(DefaultEnv(), path.c_str(), options.get().get(), &s));
    }
    session_ = std::shared_ptr<KilnSession>(s, [](KilnSession* p) { api().ReleaseSession(p); });
    const KilnSession* h = session_.get();
    size_t n_in = 0, n_out = 0;
    Check(api().SessionGetInputCount(h, &n_in));
    Check(api().SessionGetOutputCount(h, &n_out));
    inputs_ = ReadIo(
        n_in,
        [&](size_t i, KilnAllocator* a, char** o) { return api().SessionGetInputName(h, i, a, o); },
        [&](size_t i, KilnValueType* o) { return api().SessionGetInputValueType(h, i, o); },
        [&](size_t i, KilnTensorTypeAndShapeInfo** o) {
          return api().CreateSessionInputTensorInfo(h, i, o);
        });
    outputs_ = ReadIo(
        n_out,
        [&](size_t i, KilnAllocator* a, char** o) {
          return api().SessionGetOutputName(h, i, a, o);
        },
        [&](size_t i, KilnValueType* o) { return api().SessionGetOutputValueType(h, i, o); },
        [&](size_t i, KilnTensorTypeAndShapeInfo** o) {
          return api().CreateSessionOutputTensorInfo(h, i, o);
        });
    size_t n_init = 0;
    Check(api().SessionGetOverridableInitializerCount(h, &n_init));
    initializers_ = ReadIo(
        n_init,
        [&](size_t i, KilnAllocator* a, char** o) {
          return api().SessionGetOverridableInitializerName(h, i, a, o);
        },
        [&](size_t, KilnValueType* o) {
          *o = KILN_VALUE_TYPE_TENSOR;
          return static_cast<KilnStatus*>(nullptr);
        },
        [&](size_t i, KilnTensorTypeAndShapeInfo** o) {
          return api().CreateSessionOverridableInitializerTensorInfo(h, i, o);
        });
    for (size_t i = 0; i < inputs_.size(); ++i) input_index_.emplace(inputs_[i].name, &inputs_[i]);
    for (const IoInfo& i : initializers_) input_index_.emplace(i.name, &i);
    for (const IoInfo& o : outputs_) all_output_names_.push_back(o.name.c_str());
  }

  py::list Inputs() const { return Tuples(inputs_); }
  py::list Outputs() const { return Tuples(outputs_); }
  py::list OverridableInitializers() const { return Tuples(initializers_); }
  uint64_t ProfilingStartTimeNs() const {
    uint64_t ns = 0;
    Check(api().SessionGetProfilingStartTimeNs(session_.get(), &ns));
    return ns;
  }

  py::dict Metadata() const {
    py::dict d;
    const KilnSession* h = session_.get();
    auto field = [&](KilnModelMetadataField f) {
      return kiln::detail::AllocatedString([&](KilnAllocator* a, char** s) {
        return api().SessionGetModelMetadataString(h, f, a, s);
      });
    };
    d["producer_name"] = field(KILN_METADATA_PRODUCER_NAME);
    d["producer_version"] = field(KILN_METADATA_PRODUCER_VERSION);
    d["graph_name"] = field(KILN_METADATA_GRAPH_NAME);
    d["domain"] = field(KILN_METADATA_DOMAIN);
    d["description"] = field(KILN_METADATA_DESCRIPTION);
    d["graph_description"] = field(KILN_METADATA_GRAPH_DESCRIPTION);
    int64_t version = 0;
    Check(api().SessionGetModelVersion(h, &version));
    d["version"] = version;
    kiln::detail::AllocatedStrings keys(kiln::Allocator::Default().get());
    Check(api().SessionGetCustomMetadataKeys(h, kiln::Allocator::Default().get(), keys.out(),
                                             keys.count()));
    py::dict custom;
    for (const std::string& k : keys.Copy()) {
      custom[py::str(k)] = kiln::detail::AllocatedString([&](KilnAllocator* a, char** s) {
        return api().SessionLookupCustomMetadata(h, a, k.c_str(), s);
      });
    }
    d["custom_metadata_map"] = custom;
    return d;
  }

  std::string EndProfiling() {
    return kiln::detail::AllocatedString([&](KilnAllocator* a, char** s) {
      return api().SessionEndProfiling(session_.get(), a, s);
    });
  }

  // Runs with `feed` (name -> array, Value, list for a sequence, None for an empty optional)
  // and returns the outputs named (all when None), as numpy / lists, or as Values.
  // Starts a run on Kiln's threads (KilnApi::RunAsync) and returns; `callback(outputs,
  // user_data, err)` is called with the GIL held when it ends: the outputs as run gives them and
  // err "" on success, else None and the error's message.
  void RunAsync(const py::object& output_names, const py::dict& feed, RunOptions* run_options,
                const py::object& callback, const py::object& user_data) {
    auto job = std::make_unique<AsyncJob>();
    job->callback = callback;
    job->user_data = user_data;
    PrepareFeed(feed, job->in_names, job->inputs);
    job->out_names = OutputNames(output_names);
    std::vector<const char*> in_names, out_names;
    std::vector<const KilnValue*> in_handles;
    for (size_t i = 0; i < job->inputs.size(); ++i) {
      in_names.push_back(job->in_names[i].c_str());
      in_handles.push_back(job->inputs[i]->handle);
    }
    for (const std::string& n : job->out_names) out_names.push_back(n.c_str());
    job->outputs.assign(out_names.size(), nullptr);
    KilnStatus* status =
        api().RunAsync(session_.get(), run_options == nullptr ? nullptr : run_options->get().get(),
                       in_names.data(), in_handles.data(), in_handles.size(), out_names.data(),
                       out_names.size(), job->outputs.data(), &AsyncJob::Done, job.get());
    Check(status);
    job.release();  // AsyncJob::Done owns it now
  }

  // `given`: None, or one entry per output: a Value (a tensor written in place) or None.
  py::list Run(const py::object& output_names, const py::dict& feed, RunOptions* run_options,
               bool as_values, const py::object& given) {
    std::vector<std::string> names_storage;
    std::vector<const char*> out_names;
    if (output_names.is_none()) {
      out_names = all_output_names_;
    } else {
      names_storage = OutputNames(output_names);
      for (const std::string& n : names_storage) out_names.push_back(n.c_str());
    }
    std::vector<std::string> in_names_storage;
    std::vector<ValuePtr> values;
    PrepareFeed(feed, in_names_storage, values);
    std::vector<const char*> in_names;
    std::vector<const KilnValue*> in_handles;
    in_names.reserve(values.size());
    in_handles.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      in_names.push_back(in_names_storage[i].c_str());
      in_handles.push_back(values[i]->handle);
    }
    return RunPrepared(out_names, in_names, in_handles, run_options, as_values, given);
  }

  // The names of the outputs wanted: all for None, else a list or tuple of str.
  std::vector<std::string> OutputNames(const py::object& output_names) const {
    std::vector<std::string> names_storage;
    if (output_names.is_none()) {
      for (const IoInfo& o : outputs_) names_storage.push_back(o.name);
      return names_storage;
    }
    {
      if (!py::isinstance<py::list>(output_names) && !py::isinstance<py::tuple>(output_names)) {
        throw py::type_error("output_names must be a list of output names (str) or None, got " +
                             std::string(py::str(py::type::of(output_names))));
      }
      for (py::handle n : output_names) {
        if (!PyUnicode_Check(n.ptr())) {
          throw py::type_error("output_names: every entry must be a str, got " +
                               std::string(py::str(py::type::of(n))));
        }
        names_storage.push_back(n.cast<std::string>());
      }
    }
    return names_storage;
  }

  // Converts the feed to values (kept alive by `values`) and checks no input is missing.
  void PrepareFeed(const py::dict& feed, std::vector<std::string>& in_names_storage,
                   std::vector<ValuePtr>& values) const {
    in_names_storage.reserve(feed.size());
    values.reserve(feed.size());
    for (auto item : feed) {
      if (!PyUnicode_Check(item.first.ptr())) {
        throw py::type_error("input_feed: every key must be an input name (str), got " +
                             std::string(py::str(py::type::of(item.first))));
      }
      in_names_storage.push_back(item.first.cast<std::string>());
      values.push_back(ToValue(in_names_storage.back(), item.second));
    }
    CheckMissing(in_names_storage);
  }

  py::list RunPrepared(const std::vector<const char*>& out_names,
                       const std::vector<const char*>& in_names,
                       const std::vector<const KilnValue*>& in_handles, RunOptions* run_options,
                       bool as_values, const py::object& given) {
    std::vector<KilnValue*> outs(out_names.size(), nullptr);
    std::vector<ValuePtr> given_values;
    if (!given.is_none()) {
      given_values = given.cast<std::vector<ValuePtr>>();
      if (given_values.size() != outs.size()) {
        throw kiln::Exception(KILN_INVALID_ARGUMENT, "run: " + std::to_string(given_values.size()) +
                                                         " output values given for " +
                                                         std::to_string(outs.size()) +
                                                         " output names");
      }
      for (size_t i = 0; i < outs.size(); ++i) {
        if (given_values[i] != nullptr) outs[i] = given_values[i]->handle;
      }
    }
    KilnStatus* status = nullptr;
    {
      py::gil_scoped_release release;
      status =
          api().Run(session_.get(), run_options == nullptr ? nullptr : run_options->get().get(),
                    in_names.data(), in_handles.data(), in_handles.size(), out_names.data(),
                    out_names.size(), outs.data());
    }
    Check(status);
    std::vector<ValuePtr> owned;
    owned.reserve(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      const bool was_given = i < given_values.size() && given_values[i] != nullptr;
      owned.push_back(was_given ? given_values[i] : std::make_shared<Value>(outs[i]));
    }
    py::list result(owned.size());
    for (size_t i = 0; i < owned.size(); ++i) {
      if (as_values) {
        result[i] = py::cast(owned[i]);
      } else {
        // The array's base: a capsule owning the value (lighter than a Value object).
        py::capsule base(new ValuePtr(owned[i]), [](void* p) { delete static_cast<ValuePtr*>(p); });
        result[i] = ToPython(owned[i], base);
      }
    }
    return result;
  }

  KilnSession* handle() const { return session_.get(); }
  // Drops this object's hold on the session: it is released now, or when the last graph view of
  // it (and array over its initializers) goes.
  void Close() { session_.reset(); }

  // The session's optimized graph, or the graph as loaded (kept with the config entry
  // kiln.graph.keep_loaded = 1), as a read-only view that keeps the session alive.
  py::object Graph(bool optimized) const {
    if (session_ == nullptr) throw kiln::Exception(KILN_INVALID_ARGUMENT, "the session is closed");
    return SessionGraph(session_, optimized);
  }

 private:
  static py::list Tuples(const std::vector<IoInfo>& io) {
    py::list l;
    for (const IoInfo& i : io) l.append(InfoTuple(i));
    return l;
  }

  ValuePtr ToValue(const std::string& name, py::handle obj) const {
    if (py::isinstance<Value>(obj)) return obj.cast<ValuePtr>();
    const auto it = input_index_.find(name);
    const IoInfo* info = it == input_index_.end() ? nullptr : it->second;
    const auto elem = static_cast<KilnElementType>(info == nullptr ? KILN_ELEMENT_TYPE_UNDEFINED
                                                                   : info->element_type);
    if (info != nullptr && info->value_type == KILN_VALUE_TYPE_SEQUENCE &&
        (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj))) {
      return SequenceFrom(obj, elem);
    }
    if (info != nullptr && info->value_type == KILN_VALUE_TYPE_OPTIONAL) {
      if (obj.is_none()) return OptionalOf(nullptr, KILN_VALUE_TYPE_TENSOR, elem);
      if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
        return OptionalOf(SequenceFrom(obj, elem), KILN_VALUE_TYPE_SEQUENCE, elem);
      }
      return OptionalOf(TensorFromObject(obj, elem), KILN_VALUE_TYPE_TENSOR, elem);
    }
    return TensorFromObject(obj, elem);
  }

  static ValuePtr SequenceFrom(py::handle obj, KilnElementType elem) {
    std::vector<ValuePtr> items;
    for (py::handle item : obj) {
      items.push_back(py::isinstance<Value>(item) ? item.cast<ValuePtr>()
                                                  : TensorFromObject(item, elem));
    }
    return SequenceOf(items, elem);
  }

  // onnxruntime raises ValueError, before running, when a required input is not fed.
  void CheckMissing(const std::vector<std::string>& fed) const {
    if (fed.size() >= inputs_.size()) {
      bool all = true;
      for (const IoInfo& i : inputs_) {
        bool found = false;
        for (const std::string& f : fed) found = found || f == i.name;
        if (!found && i.value_type != KILN_VALUE_TYPE_OPTIONAL) all = false;
      }
      if (all) return;
    }
    py::list missing;
    for (const IoInfo& i : inputs_) {
      bool found = false;
      for (const std::string& f : fed) found = found || f == i.name;
      if (!found && i.value_type != KILN_VALUE_TYPE_OPTIONAL) missing.append(i.name);
    }
    if (missing.empty()) return;
    py::list given;
    for (const std::string& f : fed) given.append(f);
    throw py::value_error("Required inputs (" + std::string(py::repr(missing)) +
                          ") are missing from input feed (" + std::string(py::repr(given)) + ").");
  }

  // Shared with the graph views (graph.cc), which keep it alive after Close.
  std::shared_ptr<KilnSession> session_;
  std::vector<IoInfo> inputs_;
  std::vector<IoInfo> outputs_;
  std::vector<IoInfo> initializers_;  // overridable: fed like inputs, optional
  std::unordered_map<std::string, const IoInfo*> input_index_;
  std::vector<const char*> all_output_names_;
};

// A KilnIoBinding and the values bound in it (their numpy arrays kept alive here).
class IoBinding {
 public:
  explicit IoBinding(const Session& session)
      : cpu_(kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT)) {
    KilnIoBinding* b = nullptr;
    Check(api().CreateIoBinding(session.handle(), &b));
    binding_ = b;
  }
  IoBinding(const IoBinding&) = delete;
  IoBinding& operator=(const IoBinding&) = delete;
  ~IoBinding() { api().ReleaseIoBinding(binding_); }

  void BindInput(const std::string& name, const ValuePtr& value) {
    Check(api().BindInput(binding_, NoNul(name), value == nullptr ? nullptr : value->handle));
    inputs_[name] = value;
  }
  // Binds an output to a caller's tensor (written in place by each run) or, for None, leaves it
  // to Kiln.
  void BindOutput(const std::string& name, const ValuePtr& value) {
    if (value == nullptr) {
      Check(api().BindOutputToDevice(binding_, NoNul(name), cpu_.get()));
    } else {
      Check(api().BindOutput(binding_, NoNul(name), value->handle));
    }
    outputs_[name] = value;
  }
  void ClearInputs() {
    Check(api().ClearBoundInputs(binding_));
    inputs_.clear();
  }
  void ClearOutputs() {
    Check(api().ClearBoundOutputs(binding_));
    outputs_.clear();
  }
  void SynchronizeInputs() { Check(api().SynchronizeBoundInputs(binding_)); }
  void SynchronizeOutputs() { Check(api().SynchronizeBoundOutputs(binding_)); }
  void Run(const Session& session, RunOptions* run_options) {
    KilnStatus* status = nullptr;
    {
      py::gil_scoped_release release;
      status = api().RunWithBinding(
          session.handle(), run_options == nullptr ? nullptr : run_options->get().get(), binding_);
    }
    Check(status);
  }
  std::vector<std::string> OutputNames() const {
    kiln::detail::AllocatedStrings names(kiln::Allocator::Default().get());
    Check(api().GetBoundOutputNames(binding_, kiln::Allocator::Default().get(), names.out(),
                                    names.count()));
    return names.Copy();
  }
  // The last run's outputs: the bound tensors, or the values Kiln made.
  std::vector<ValuePtr> Outputs() const {
    KilnAllocator* allocator = kiln::Allocator::Default().get();
    KilnValue** values = nullptr;
    size_t count = 0;
    Check(api().GetBoundOutputValues(binding_, allocator, &values, &count));
    std::vector<ValuePtr> out;
    size_t owned = 0;  // values[0, owned) are held by `out`
    try {
      out.reserve(count);
      for (; owned < count; ++owned) out.push_back(std::make_shared<Value>(values[owned]));
    } catch (...) {
      // Out of memory part-way: the handles not yet held are released, none leaks.
      for (size_t i = owned; i < count; ++i) api().ReleaseValue(values[i]);
      api().ReleaseStatus(api().AllocatorFree(allocator, values));
      throw;
    }
    api().ReleaseStatus(api().AllocatorFree(allocator, values));
    return out;
  }

 private:
  static const char* NoNul(const std::string& s) {
    if (s.find('\0') != std::string::npos) {
      throw kiln::Exception(KILN_INVALID_ARGUMENT, "IO binding: a name holds a NUL character");
    }
    return s.c_str();
  }

  KilnIoBinding* binding_ = nullptr;
  kiln::MemoryInfo cpu_;
  std::unordered_map<std::string, ValuePtr> inputs_;
  std::unordered_map<std::string, ValuePtr> outputs_;
};

}  // namespace

const KilnSessionOptions* SessionOptionsHandle(py::handle options) {
  if (options.is_none()) return nullptr;
  return options.cast<SessionOptions&>().get().get();
}

void DefineSessions(py::module_& m) {
  py::class_<SessionOptions>(m, "SessionOptions", "Owned KilnSessionOptions.")
      .def(py::init<>())
      .def("set_intra_op_num_threads",
           [](SessionOptions& o, int n) { o.get().SetIntraOpNumThreads(n); })
      .def("set_inter_op_num_threads",
           [](SessionOptions& o, int n) { o.get().SetInterOpNumThreads(n); })
      .def("set_execution_mode",
           [](SessionOptions& o, int mode) {
             o.get().SetExecutionMode(static_cast<KilnExecutionMode>(mode));
           })
      .def("set_graph_optimization_level",
           [](SessionOptions& o, int level) {
             o.get().SetGraphOptimizationLevel(static_cast<KilnGraphOptimizationLevel>(level));
           })
      .def("set_log_severity_level",
           [](SessionOptions& o, int level) {
             o.get().SetLogSeverityLevel(static_cast<KilnLoggingLevel>(level));
           })
      .def("set_log_id", [](SessionOptions& o, const std::string& id) { o.get().SetLogId(id); })
      .def("enable_profiling",
           [](SessionOptions& o, const std::string& prefix) { o.get().EnableProfiling(prefix); })
      .def("add_free_dimension_override_by_name",
           [](SessionOptions& o, const std::string& name, int64_t value) {
             o.get().AddFreeDimensionOverrideByName(name, value);
           })
      .def("add_free_dimension_override_by_denotation",
           [](SessionOptions& o, const std::string& denotation, int64_t value) {
             o.get().AddFreeDimensionOverride(denotation, value);
           })
      .def("add_initializer",
           [](SessionOptions& o, const std::string& name, const ValuePtr& value) {
             if (name.find('\0') != std::string::npos) {
               throw kiln::Exception(KILN_INVALID_ARGUMENT, "add_initializer: name holds a NUL");
             }
             Check(api().SessionOptionsAddInitializer(o.get().get(), name.c_str(),
                                                      value == nullptr ? nullptr : value->handle));
           })
      .def("set_optimized_model_filepath",
           [](SessionOptions& o, const std::string& path) {
             o.get().SetOptimizedModelFilePath(path);
           })
      .def("register_custom_ops_library",
           [](SessionOptions& o, const std::string& path) {
             o.get().RegisterCustomOpsLibrary(path);
           })
      .def("add_config_entry",
           [](SessionOptions& o, const std::string& key, const std::string& value) {
             o.get().AddConfigEntry(key, value);
           });

  py::class_<RunOptions>(m, "RunOptions", "Owned KilnRunOptions.")
      .def(py::init<>())
      .def("set_tag", [](RunOptions& o, const std::string& tag) { o.get().SetRunTag(tag); })
      .def("set_log_severity_level",
           [](RunOptions& o, int level) {
             o.get().SetRunLogSeverityLevel(static_cast<KilnLoggingLevel>(level));
           })
      .def("set_terminate", [](RunOptions& o) { o.get().SetTerminate(); })
      .def("unset_terminate", [](RunOptions& o) { o.get().UnsetTerminate(); })
      .def("add_config_entry", [](RunOptions& o, const std::string& key, const std::string& value) {
        o.get().AddConfigEntry(key, value);
      });

  py::class_<Session>(m, "Session", "Owned KilnSession.")
      .def(py::init<const py::object&, SessionOptions&>(), py::arg("model"), py::arg("options"))
      .def("inputs", &Session::Inputs)
      .def("outputs", &Session::Outputs)
      .def("overridable_initializers", &Session::OverridableInitializers)
      .def("profiling_start_time_ns", &Session::ProfilingStartTimeNs)
      .def("metadata", &Session::Metadata)
      .def("end_profiling", &Session::EndProfiling)
      .def("run", &Session::Run, py::arg("output_names").none(true), py::arg("feed"),
           py::arg("run_options").none(true), py::arg("as_values") = false,
           py::arg("given") = py::none())
      .def("run_async", &Session::RunAsync, py::arg("output_names").none(true), py::arg("feed"),
           py::arg("run_options").none(true), py::arg("callback"), py::arg("user_data"))
      .def("graph", &Session::Graph, py::arg("optimized"),
           "A read-only view of the optimized graph (True) or the graph as loaded (False).")
      .def("close", &Session::Close);

  py::class_<IoBinding>(m, "IoBinding", "Owned KilnIoBinding.")
      .def(py::init<const Session&>(), py::arg("session"))
      .def("bind_input", &IoBinding::BindInput)
      .def("bind_output", &IoBinding::BindOutput, py::arg("name"), py::arg("value").none(true))
      .def("clear_inputs", &IoBinding::ClearInputs)
      .def("clear_outputs", &IoBinding::ClearOutputs)
      .def("synchronize_inputs", &IoBinding::SynchronizeInputs)
      .def("synchronize_outputs", &IoBinding::SynchronizeOutputs)
      .def("run", &IoBinding::Run, py::arg("session"), py::arg("run_options").none(true))
      .def("output_names", &IoBinding::OutputNames)
      .def("outputs", &IoBinding::Outputs);
}

}  // namespace kilnpy
