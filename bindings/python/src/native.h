// The native half of the Python package: a thin pybind11 module over Kiln's C ABI (through the
// header-only C++ wrapper). Handles in, handles out; everything shaped like onnxruntime lives in
// the Python layer (kiln/capi/*.py).
//
//   from kiln.capi import _kiln
//   s = _kiln.Session(b"...model bytes...", _kiln.SessionOptions())
//   outputs = s.run(["y"], {"x": np.ones((2, 3), np.float32)}, None, False)
#ifndef KILN_PY_NATIVE_H_
#define KILN_PY_NATIVE_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <kiln/kiln_cxx_api.h>
#include <memory>
#include <string>
#include <vector>

namespace kilnpy {

namespace py = pybind11;

inline const KilnApi& api() {
  return kiln::Api();
}

// Throws kiln::Exception (turned into the onnxruntime-shaped Python class) for a failed status.
inline void Check(KilnStatus* status) {
  kiln::ThrowOnError(status);
}

// One owned KilnValue and, for a tensor over a numpy array's buffer, the array that keeps the
// buffer alive. Destroyed with the GIL held.
struct Value {
  KilnValue* handle = nullptr;
  py::object keep;  // the wrapped array, or None

  Value() = default;
  explicit Value(KilnValue* h) : handle(h) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  ~Value() { api().ReleaseValue(handle); }
};
using ValuePtr = std::shared_ptr<Value>;

// ---- values.cc ----------------------------------------------------------------------------------

// The Kiln element type of a numpy dtype (ml_dtypes' bfloat16 and float8 types by name);
// KILN_ELEMENT_TYPE_UNDEFINED when ONNX has none.
KilnElementType ElementTypeOf(const py::dtype& dtype);
// The numpy dtype Kiln returns a type as: bfloat16 and the float8 types come back as ml_dtypes'
// types when that package is installed, else as uint16 / uint8 views of the bits.
py::dtype DtypeOf(KilnElementType type);
// "tensor(float)" style name of an element type ("float", "int64", …).
const char* ElementTypeName(KilnElementType type);

// A tensor value for a Python object: a numpy array (wrapped without a copy when it is
// C-contiguous and aligned, else copied), or anything numpy.asarray takes (lists, scalars).
// `expected` (UNDEFINED: any) lets a uint16 array stand for bfloat16 and a uint8 array for a
// float8 type. Strings ('U', 'S' and object arrays) are copied into a string tensor.
ValuePtr TensorFromObject(py::handle obj, KilnElementType expected);
// A tensor Kiln allocates (zero-filled).
ValuePtr TensorOfShape(const std::vector<int64_t>& shape, KilnElementType type);
// A sequence of copies of tensors; an optional holding a copy of a tensor or a sequence.
ValuePtr SequenceOf(const std::vector<ValuePtr>& tensors, KilnElementType type);
ValuePtr OptionalOf(const ValuePtr& content, KilnValueType contained, KilnElementType type);

// What Python sees of a value: a numpy array for a tensor (over Kiln's buffer, owned by
// `owner`; strings are copied into an object array), a list for a sequence, None or the content
// for an optional.
py::object ToPython(const ValuePtr& value, py::handle owner);
// A numpy array over a tensor's buffer whose base is `base` (which must keep the value alive).
py::array TensorArray(KilnValue* tensor, py::handle base);
// A read-only numpy array of a tensor that cannot be changed (a model's initializer or tensor
// attribute, read with GetTensorData): over its buffer with `base` keeping it alive; strings and
// 4-/2-bit types are copies (read-only too).
py::array ReadOnlyTensorArray(const KilnValue* tensor, py::handle base);

void DefineValues(py::module_& m);

// ---- session.cc ---------------------------------------------------------------------------------
void DefineSessions(py::module_& m);
// The KilnSessionOptions of a native SessionOptions object; null for None.
const KilnSessionOptions* SessionOptionsHandle(py::handle options);

// ---- graph.cc -----------------------------------------------------------------------------------
// The graph sub-table (include/kiln/kiln_graph_api.h).
const KilnGraphApi& GraphApi();
// What keeps graph API handles valid: the model that owns them, or the session whose view they
// are of (a shared KilnSession, so that a view outlives Session.close()).
using Anchor = std::shared_ptr<const void>;
// The KilnModel of a native Model object; null when `obj` is not one.
const KilnModel* ModelHandleOf(py::handle obj);
// A native Graph over one of a session's views (SessionGetGraph), anchored to the session.
py::object SessionGraph(const std::shared_ptr<KilnSession>& session, bool optimized);
void DefineGraphs(py::module_& m);

// ---- module.cc ----------------------------------------------------------------------------------
// The Env every session is created with (remade by set_default_logger_severity).
const KilnEnv* DefaultEnv();

}  // namespace kilnpy

#endif  // KILN_PY_NATIVE_H_
