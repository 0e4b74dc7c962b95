// The module `kiln.capi._kiln`: errors, the default Env, and the classes of values.cc,
// session.cc and graph.cc.
#include <mutex>
#include <string>

#include "native.h"

namespace kilnpy {
namespace {

// The Python class each KilnErrorCode raises, set once by the Python layer
// (kiln/capi/_errors.py). Leaked on purpose: it must outlive every translation at exit.
py::dict& ErrorClasses() {
  static auto* classes = new py::dict();
  return *classes;
}

std::mutex& EnvMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
KilnEnv*& EnvSlot() {
  static KilnEnv* env = nullptr;
  return env;
}
int& EnvSeverity() {
  static int severity = KILN_LOGGING_LEVEL_WARNING;
  return severity;
}

void SetDefaultSeverity(int severity) {
  if (severity < KILN_LOGGING_LEVEL_VERBOSE || severity > KILN_LOGGING_LEVEL_FATAL) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT, "set_default_logger_severity: severity " +
                                                     std::to_string(severity) +
                                                     " is not 0 (verbose) to 4 (fatal)");
  }
  KilnEnv* made = nullptr;
  Check(api().CreateEnv(static_cast<KilnLoggingLevel>(severity), "kiln-python", &made));
  std::lock_guard<std::mutex> lock(EnvMutex());
  // Sessions copy the Env's logger, so the old Env can go at once.
  api().ReleaseEnv(EnvSlot());
  EnvSlot() = made;
  EnvSeverity() = severity;
}

}  // namespace

const KilnEnv* DefaultEnv() {
  std::lock_guard<std::mutex> lock(EnvMutex());
  if (EnvSlot() == nullptr) {
    Check(api().CreateEnv(static_cast<KilnLoggingLevel>(EnvSeverity()), "kiln-python", &EnvSlot()));
  }
  return EnvSlot();
}

}  // namespace kilnpy

PYBIND11_MODULE(_kiln, m) {
  namespace py = pybind11;
  using namespace kilnpy;
  m.doc() = "Kiln's native module: a thin layer over the C ABI (use the kiln package instead).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kiln::Exception& e) {
      py::object cls = ErrorClasses().attr("get")(static_cast<int>(e.code()));
      if (cls.is_none()) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      } else {
        py::object err = cls(e.what());
        err.attr("code") = static_cast<int>(e.code());
        PyErr_SetObject(cls.ptr(), err.ptr());
      }
    }
  });
  m.def(
      "set_error_classes", [](const py::dict& classes) { ErrorClasses() = classes; },
      "Sets the exception class raised for each KilnErrorCode.");
  m.def("version", [] { return std::string(KilnGetApiBase()->GetVersionString()); });
  m.def("api_version", [] { return KILN_API_VERSION; });
  m.def("set_default_logger_severity", &SetDefaultSeverity, py::arg("severity"));
  m.def("default_logger_severity", [] {
    std::lock_guard<std::mutex> lock(EnvMutex());
    return EnvSeverity();
  });
  DefineValues(m);
  DefineSessions(m);
  DefineGraphs(m);
}
