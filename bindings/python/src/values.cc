// Tensors, sequences and optionals between numpy and Kiln: the dtype table, wrapping arrays
// without a copy, and numpy arrays over Kiln's buffers.
#include <cstring>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "native.h"

namespace kilnpy {
namespace {

struct TypeRow {
  KilnElementType type;
  const char* onnx_name;   // as in "tensor(float)"
  const char* numpy_name;  // numpy's dtype name, or ml_dtypes' for the types numpy lacks
};

// Every element type ONNX has, with its names.
constexpr TypeRow kTypes[] = {
    {KILN_ELEMENT_TYPE_FLOAT, "float", "float32"},
    {KILN_ELEMENT_TYPE_UINT8, "uint8", "uint8"},
    {KILN_ELEMENT_TYPE_INT8, "int8", "int8"},
    {KILN_ELEMENT_TYPE_UINT16, "uint16", "uint16"},
    {KILN_ELEMENT_TYPE_INT16, "int16", "int16"},
    {KILN_ELEMENT_TYPE_INT32, "int32", "int32"},
    {KILN_ELEMENT_TYPE_INT64, "int64", "int64"},
    {KILN_ELEMENT_TYPE_STRING, "string", "object"},
    {KILN_ELEMENT_TYPE_BOOL, "bool", "bool"},
    {KILN_ELEMENT_TYPE_FLOAT16, "float16", "float16"},
    {KILN_ELEMENT_TYPE_DOUBLE, "double", "float64"},
    {KILN_ELEMENT_TYPE_UINT32, "uint32", "uint32"},
    {KILN_ELEMENT_TYPE_UINT64, "uint64", "uint64"},
    {KILN_ELEMENT_TYPE_COMPLEX64, "complex64", "complex64"},
    {KILN_ELEMENT_TYPE_COMPLEX128, "complex128", "complex128"},
    {KILN_ELEMENT_TYPE_BFLOAT16, "bfloat16", "bfloat16"},
    {KILN_ELEMENT_TYPE_FLOAT8E4M3FN, "float8e4m3fn", "float8_e4m3fn"},
    {KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ, "float8e4m3fnuz", "float8_e4m3fnuz"},
    {KILN_ELEMENT_TYPE_FLOAT8E5M2, "float8e5m2", "float8_e5m2"},
    {KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ, "float8e5m2fnuz", "float8_e5m2fnuz"},
    {KILN_ELEMENT_TYPE_UINT4, "uint4", "uint4"},
    {KILN_ELEMENT_TYPE_INT4, "int4", "int4"},
    {KILN_ELEMENT_TYPE_FLOAT4E2M1, "float4e2m1", "float4_e2m1fn"},
    {KILN_ELEMENT_TYPE_FLOAT8E8M0, "float8e8m0", "float8_e8m0fnu"},
    {KILN_ELEMENT_TYPE_UINT2, "uint2", "uint2"},
    {KILN_ELEMENT_TYPE_INT2, "int2", "int2"},
};

const TypeRow* RowOf(KilnElementType type) {
  for (const TypeRow& r : kTypes) {
    if (r.type == type) return &r;
  }
  return nullptr;
}

bool IsSubByte(KilnElementType t) {
  return t == KILN_ELEMENT_TYPE_UINT4 || t == KILN_ELEMENT_TYPE_INT4 ||
         t == KILN_ELEMENT_TYPE_FLOAT4E2M1 || t == KILN_ELEMENT_TYPE_UINT2 ||
         t == KILN_ELEMENT_TYPE_INT2;
}

// 8-bit float types, stored as one byte each.
bool IsFloat8(KilnElementType t) {
  return t == KILN_ELEMENT_TYPE_FLOAT8E4M3FN || t == KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ ||
         t == KILN_ELEMENT_TYPE_FLOAT8E5M2 || t == KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ ||
         t == KILN_ELEMENT_TYPE_FLOAT8E8M0;
}

const KilnMemoryInfo* CpuInfo() {
  // Made once and never released (a process-lifetime description, like Kiln's own).
  static const KilnMemoryInfo* info = [] {
    KilnMemoryInfo* i = nullptr;
    Check(api().CreateCpuMemoryInfo(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT, &i));
    return i;
  }();
  return info;
}

KilnAllocator* DefaultAllocator() {
  KilnAllocator* a = nullptr;
  Check(api().GetAllocatorWithDefaultOptions(&a));
  return a;
}

std::vector<int64_t> ShapeOf(const py::array& a) {
  std::vector<int64_t> dims(static_cast<size_t>(a.ndim()));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = a.shape(static_cast<py::ssize_t>(i));
  return dims;
}

// The UTF-8 bytes of one element of a string array (str, bytes, or anything str() takes).
std::string Utf8Of(py::handle item) {
  if (PyBytes_Check(item.ptr())) return std::string(py::reinterpret_borrow<py::bytes>(item));
  if (PyUnicode_Check(item.ptr())) return std::string(py::reinterpret_borrow<py::str>(item));
  return std::string(py::str(item));
}

ValuePtr StringTensor(const py::array& a) {
  auto v = TensorOfShape(ShapeOf(a), KILN_ELEMENT_TYPE_STRING);
  const py::ssize_t n = a.size();
  if (n == 0) return v;
  py::list flat = a.attr("ravel")().attr("tolist")();
  std::vector<std::string> strings;
  strings.reserve(static_cast<size_t>(n));
  for (py::handle item : flat) strings.push_back(Utf8Of(item));
  std::vector<const char*> pointers;
  pointers.reserve(strings.size());
  for (const std::string& s : strings) {
    if (s.find('\0') != std::string::npos) {
      throw kiln::Exception(KILN_INVALID_ARGUMENT,
                            "string tensor: element " + std::to_string(pointers.size()) +
                                " holds a NUL character, which ONNX strings cannot");
    }
    pointers.push_back(s.c_str());
  }
  Check(api().FillStringTensor(v->handle, pointers.data(), pointers.size()));
  return v;
}

py::object StringArray(const KilnValue* tensor) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  Check(api().GetTensorTypeAndShape(tensor, &info));
  kiln::TensorTypeAndShapeInfo owned(info);
  const std::vector<int64_t> shape = owned.shape();
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  size_t total = 0;
  Check(api().GetStringTensorDataLength(tensor, &total));
  std::string bytes(total, '\0');
  std::vector<size_t> offsets(count);
  if (count > 0) {
    Check(api().GetStringTensorContent(tensor, total == 0 ? nullptr : bytes.data(), total,
                                       offsets.data(), count));
  }
  py::array out(py::dtype("object"), shape);
  auto** items = static_cast<PyObject**>(out.mutable_data());
  for (size_t i = 0; i < count; ++i) {
    const size_t end = i + 1 < count ? offsets[i + 1] : total;
    PyObject* s = PyUnicode_DecodeUTF8(bytes.data() + offsets[i],
                                       static_cast<Py_ssize_t>(end - offsets[i]), "replace");
    if (s == nullptr) throw py::error_already_set();
    Py_XDECREF(items[i]);
    items[i] = s;
  }
  return out;
}

// Elements per byte of a 4-bit or 2-bit type, and the range of its values one per byte (the
// 4-bit float as its 4-bit codes).
struct SubByte {
  int per_byte;
  int low, high;
};
SubByte SubByteOf(KilnElementType t) {
  switch (t) {
    case KILN_ELEMENT_TYPE_INT4:
      return {2, -8, 7};
    case KILN_ELEMENT_TYPE_INT2:
      return {4, -2, 1};
    case KILN_ELEMENT_TYPE_UINT2:
      return {4, 0, 3};
    default:  // UINT4, FLOAT4E2M1
      return {2, 0, 15};
  }
}

// The numpy dtype of an unpacked 4-bit or 2-bit tensor: ml_dtypes' type when it is installed,
// else int8 for the signed integers and uint8 for the others (a 4-bit float as its code).
py::dtype UnpackedDtype(KilnElementType type) {
  try {
    py::module_ ml = py::module_::import("ml_dtypes");
    const char* name = RowOf(type)->numpy_name;
    if (py::hasattr(ml, name)) return py::dtype::from_args(ml.attr(name));
  } catch (py::error_already_set&) {
  }
  const bool is_signed = type == KILN_ELEMENT_TYPE_INT4 || type == KILN_ELEMENT_TYPE_INT2;
  return py::dtype(is_signed ? "int8" : "uint8");
}

// A 4-bit or 2-bit tensor from an array of one element per byte, packed as ONNX stores them
// (the first element in the lowest bits). Values out of the type's range are refused.
ValuePtr PackedTensor(const py::array& given, KilnElementType type) {
  const SubByte sb = SubByteOf(type);
  // Whatever the array's 1-byte dtype (int8, uint8, ml_dtypes'), its bytes as int8 or uint8.
  const bool is_signed = sb.low < 0;
  if (given.itemsize() != 1) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT,
                          std::string("a ") + ElementTypeName(type) +
                              " tensor is given one element per byte, not as numpy dtype '" +
                              std::string(py::str(given.dtype())) + "'");
  }
  py::array bytes = py::module_::import("numpy").attr("ascontiguousarray")(given).attr("view")(
      is_signed ? "int8" : "uint8");
  const std::vector<int64_t> shape = ShapeOf(given);
  ValuePtr v = TensorOfShape(shape, type);
  const size_t n = static_cast<size_t>(bytes.size());
  if (n == 0) return v;
  void* out = nullptr;
  Check(api().GetTensorMutableData(v->handle, &out));
  auto* packed = static_cast<uint8_t*>(out);
  const int bits = 8 / sb.per_byte;
  const unsigned mask = (1u << bits) - 1;
  std::memset(packed, 0,
              (n + static_cast<size_t>(sb.per_byte) - 1) / static_cast<size_t>(sb.per_byte));
  for (size_t i = 0; i < n; ++i) {
    const int value = is_signed ? static_cast<const int8_t*>(bytes.data())[i]
                                : static_cast<const uint8_t*>(bytes.data())[i];
    if (value < sb.low || value > sb.high) {
      throw kiln::Exception(KILN_INVALID_ARGUMENT, std::string("element ") + std::to_string(i) +
                                                       " (" + std::to_string(value) +
                                                       ") is out of " + ElementTypeName(type) +
                                                       "'s range " + std::to_string(sb.low) +
                                                       " to " + std::to_string(sb.high));
    }
    const size_t shift = (i % static_cast<size_t>(sb.per_byte)) * static_cast<size_t>(bits);
    packed[i / static_cast<size_t>(sb.per_byte)] |=
        static_cast<uint8_t>((static_cast<unsigned>(value) & mask) << shift);
  }
  return v;
}

// A 4-bit or 2-bit tensor unpacked into a new array, one element per byte (sign-extended for the
// signed types): numpy has no sub-byte arrays, so this is a copy, not a view.
py::array UnpackedArray(const KilnValue* tensor, KilnElementType type,
                        const std::vector<int64_t>& shape) {
  const SubByte sb = SubByteOf(type);
  py::array out(UnpackedDtype(type), shape);
  const size_t n = static_cast<size_t>(out.size());
  if (n == 0) return out;
  const void* data = nullptr;
  Check(api().GetTensorData(tensor, &data));
  const auto* packed = static_cast<const uint8_t*>(data);
  auto* dst = static_cast<uint8_t*>(out.mutable_data());
  const int bits = 8 / sb.per_byte;
  const unsigned mask = (1u << bits) - 1;
  for (size_t i = 0; i < n; ++i) {
    const size_t shift = (i % static_cast<size_t>(sb.per_byte)) * static_cast<size_t>(bits);
    unsigned v = (packed[i / static_cast<size_t>(sb.per_byte)] >> shift) & mask;
    if (sb.low < 0 && (v >> (bits - 1)) != 0) v |= ~mask;  // sign-extend
    dst[i] = static_cast<uint8_t>(v);
  }
  return out;
}

}  // namespace

KilnElementType ElementTypeOf(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const py::ssize_t size = dtype.itemsize();
  switch (kind) {
    case 'f':
      return size == 2   ? KILN_ELEMENT_TYPE_FLOAT16
             : size == 4 ? KILN_ELEMENT_TYPE_FLOAT
             : size == 8 ? KILN_ELEMENT_TYPE_DOUBLE
                         : KILN_ELEMENT_TYPE_UNDEFINED;
    case 'i':
      return size == 1   ? KILN_ELEMENT_TYPE_INT8
             : size == 2 ? KILN_ELEMENT_TYPE_INT16
             : size == 4 ? KILN_ELEMENT_TYPE_INT32
             : size == 8 ? KILN_ELEMENT_TYPE_INT64
                         : KILN_ELEMENT_TYPE_UNDEFINED;
    case 'u':
      return size == 1   ? KILN_ELEMENT_TYPE_UINT8
             : size == 2 ? KILN_ELEMENT_TYPE_UINT16
             : size == 4 ? KILN_ELEMENT_TYPE_UINT32
             : size == 8 ? KILN_ELEMENT_TYPE_UINT64
                         : KILN_ELEMENT_TYPE_UNDEFINED;
    case 'b':
      return KILN_ELEMENT_TYPE_BOOL;
    case 'c':
      return size == 8    ? KILN_ELEMENT_TYPE_COMPLEX64
             : size == 16 ? KILN_ELEMENT_TYPE_COMPLEX128
                          : KILN_ELEMENT_TYPE_UNDEFINED;
    case 'U':
    case 'S':
    case 'O':
      return KILN_ELEMENT_TYPE_STRING;
    default: {
      // ml_dtypes' types (kind 'V'): matched by name.
      const std::string name = py::str(dtype.attr("name"));
      for (const TypeRow& r : kTypes) {
        if (name == r.numpy_name) return r.type;
      }
      return KILN_ELEMENT_TYPE_UNDEFINED;
    }
  }
}

py::dtype DtypeOf(KilnElementType type) {
  const TypeRow* row = RowOf(type);
  if (row == nullptr) {
    throw kiln::Exception(KILN_NOT_IMPLEMENTED,
                          "element type " + std::to_string(type) + " has no numpy dtype");
  }
  if (type == KILN_ELEMENT_TYPE_BFLOAT16 || IsFloat8(type)) {
    try {
      py::module_ ml = py::module_::import("ml_dtypes");
      return py::dtype::from_args(ml.attr(row->numpy_name));
    } catch (py::error_already_set&) {
      // ml_dtypes is not installed: the bits as unsigned integers (documented).
      return py::dtype(type == KILN_ELEMENT_TYPE_BFLOAT16 ? "uint16" : "uint8");
    }
  }
  // numpy's type numbers (NPY_TYPES): a dtype from its number skips parsing a name.
  using api = py::detail::npy_api;
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
      return py::dtype(api::NPY_FLOAT_);
    case KILN_ELEMENT_TYPE_DOUBLE:
      return py::dtype(api::NPY_DOUBLE_);
    case KILN_ELEMENT_TYPE_INT64:
      return py::dtype(api::NPY_INT64_);
    case KILN_ELEMENT_TYPE_INT32:
      return py::dtype(api::NPY_INT32_);
    case KILN_ELEMENT_TYPE_UINT8:
      return py::dtype(api::NPY_UINT8_);
    case KILN_ELEMENT_TYPE_INT8:
      return py::dtype(api::NPY_INT8_);
    case KILN_ELEMENT_TYPE_BOOL:
      return py::dtype(api::NPY_BOOL_);
    default:
      return py::dtype(row->numpy_name);
  }
}

const char* ElementTypeName(KilnElementType type) {
  const TypeRow* row = RowOf(type);
  return row == nullptr ? "undefined" : row->onnx_name;
}

ValuePtr TensorOfShape(const std::vector<int64_t>& shape, KilnElementType type) {
  KilnValue* v = nullptr;
  Check(api().CreateTensorAsValue(DefaultAllocator(), shape.data(), shape.size(), type, &v));
  return std::make_shared<Value>(v);
}

ValuePtr TensorFromObject(py::handle obj, KilnElementType expected) {
  py::array a;
  if (py::isinstance<py::array>(obj)) {
    a = py::reinterpret_borrow<py::array>(obj);
  } else {
    a = py::module_::import("numpy").attr("asarray")(obj);
  }
  KilnElementType type = ElementTypeOf(a.dtype());
  if (type == KILN_ELEMENT_TYPE_STRING) return StringTensor(a);
  // Without ml_dtypes, bfloat16 and float8 inputs are given as the bits in unsigned integers.
  if (expected == KILN_ELEMENT_TYPE_BFLOAT16 && type == KILN_ELEMENT_TYPE_UINT16) type = expected;
  if (IsFloat8(expected) && type == KILN_ELEMENT_TYPE_UINT8) type = expected;
  if (type == KILN_ELEMENT_TYPE_UNDEFINED) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT, "numpy dtype '" + std::string(py::str(a.dtype())) +
                                                     "' has no ONNX element type");
  }
  // 4-bit and 2-bit tensors are given one element per byte (ml_dtypes' int4 and the like, or,
  // for an input declared so, int8/uint8 values) and packed.
  if (IsSubByte(expected) && (type == KILN_ELEMENT_TYPE_INT8 || type == KILN_ELEMENT_TYPE_UINT8)) {
    type = expected;
  }
  if (IsSubByte(type)) return PackedTensor(a, type);
  constexpr int kWrappable = static_cast<int>(py::array::c_style) |
                             static_cast<int>(py::detail::npy_api::NPY_ARRAY_ALIGNED_);
  if ((a.flags() & kWrappable) != kWrappable) {
    a = py::module_::import("numpy").attr("ascontiguousarray")(a);  // a copy
  }
  const std::vector<int64_t> shape = ShapeOf(a);
  KilnValue* v = nullptr;
  // Kiln only reads inputs: a read-only array is wrapped too.
  void* data = const_cast<void*>(a.data());
  Check(api().CreateTensorWithDataAsValue(CpuInfo(), data, static_cast<size_t>(a.nbytes()),
                                          shape.data(), shape.size(), type, &v));
  auto value = std::make_shared<Value>(v);
  value->keep = a;
  return value;
}

ValuePtr SequenceOf(const std::vector<ValuePtr>& tensors, KilnElementType type) {
  std::vector<const KilnValue*> handles;
  handles.reserve(tensors.size());
  for (const ValuePtr& t : tensors) handles.push_back(t->handle);
  KilnValue* v = nullptr;
  Check(api().CreateSequenceValue(handles.data(), handles.size(), type, &v));
  return std::make_shared<Value>(v);
}

ValuePtr OptionalOf(const ValuePtr& content, KilnValueType contained, KilnElementType type) {
  KilnValue* v = nullptr;
  Check(api().CreateOptionalValue(content == nullptr ? nullptr : content->handle, contained, type,
                                  &v));
  return std::make_shared<Value>(v);
}

py::array TensorArray(KilnValue* tensor, py::handle base) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  Check(api().GetTensorTypeAndShape(tensor, &info));
  kiln::TensorTypeAndShapeInfo owned(info);
  const KilnElementType type = owned.element_type();
  if (IsSubByte(type)) return UnpackedArray(tensor, type, owned.shape());
  const std::vector<int64_t> shape = owned.shape();
  py::dtype dtype = DtypeOf(type);
  void* data = nullptr;
  Check(api().GetTensorMutableData(tensor, &data));
  if (data == nullptr) return py::array(dtype, shape);  // no elements
  return py::array(dtype, shape, data, base);
}

py::array ReadOnlyTensorArray(const KilnValue* tensor, py::handle base) {
  KilnTensorTypeAndShapeInfo* info = nullptr;
  Check(api().GetTensorTypeAndShape(tensor, &info));
  kiln::TensorTypeAndShapeInfo owned(info);
  const KilnElementType type = owned.element_type();
  const std::vector<int64_t> shape = owned.shape();
  py::array out;
  if (type == KILN_ELEMENT_TYPE_STRING) {
    out = py::reinterpret_borrow<py::array>(StringArray(tensor));
  } else if (IsSubByte(type)) {
    out = UnpackedArray(tensor, type, shape);
  } else {
    py::dtype dtype = DtypeOf(type);
    const void* data = nullptr;
    Check(api().GetTensorData(tensor, &data));
    out = data == nullptr ? py::array(dtype, shape) : py::array(dtype, shape, data, base);
  }
  py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

py::object ToPython(const ValuePtr& value, py::handle owner) {
  KilnValueType kind = KILN_VALUE_TYPE_UNKNOWN;
  Check(api().GetValueType(value->handle, &kind));
  if (kind == KILN_VALUE_TYPE_TENSOR) {
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    Check(api().GetValueElementType(value->handle, &type));
    if (type == KILN_ELEMENT_TYPE_STRING) return StringArray(value->handle);
    return TensorArray(value->handle, owner);
  }
  size_t count = 0;
  Check(api().GetValueCount(value->handle, &count));
  if (kind == KILN_VALUE_TYPE_OPTIONAL) {
    if (count == 0) return py::none();
    KilnValue* e = nullptr;
    Check(api().GetValueElement(value->handle, 0, &e));
    auto element = std::make_shared<Value>(e);
    return ToPython(element, py::cast(element));
  }
  if (kind == KILN_VALUE_TYPE_SEQUENCE) {
    py::list items;
    for (size_t i = 0; i < count; ++i) {
      KilnValue* e = nullptr;
      Check(api().GetValueElement(value->handle, i, &e));
      auto element = std::make_shared<Value>(e);
      items.append(ToPython(element, py::cast(element)));
    }
    return items;
  }
  throw kiln::Exception(KILN_NOT_IMPLEMENTED,
                        "a value of kind " + std::to_string(kind) + " has no Python form yet");
}

// Copies tensor `src`'s data into tensor `dst`, as onnxruntime's CPU data transfer does: the
// bytes, which must be as many in both (sub-byte types packed), or for strings each element, as
// many in both. Nothing to do when both are the same buffer. With `check_only`, only the checks
// (so that a list of copies can be checked whole before any is made).
void CopyTensorData(const Value& src, Value& dst, bool check_only) {
  for (KilnValue* v : {src.handle, dst.handle}) {
    int is_tensor = 0;
    Check(api().IsTensor(v, &is_tensor));
    if (is_tensor == 0) {
      throw kiln::Exception(KILN_INVALID_ARGUMENT, "copy_tensors: a value is not a tensor");
    }
  }
  if (dst.keep && !dst.keep.is_none() &&
      !py::cast<bool>(dst.keep.attr("flags").attr("writeable"))) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT,
                          "copy_tensors: the destination wraps a read-only numpy array");
  }
  KilnElementType src_type = KILN_ELEMENT_TYPE_UNDEFINED;
  KilnElementType dst_type = KILN_ELEMENT_TYPE_UNDEFINED;
  Check(api().GetValueElementType(src.handle, &src_type));
  Check(api().GetValueElementType(dst.handle, &dst_type));
  const bool src_strings = src_type == KILN_ELEMENT_TYPE_STRING;
  if (src_strings != (dst_type == KILN_ELEMENT_TYPE_STRING)) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT,
                          "copy_tensors: a string tensor and a non-string tensor");
  }
  if (src_strings) {
    const auto element_count = [](const KilnValue* tensor) {
      KilnTensorTypeAndShapeInfo* info = nullptr;
      Check(api().GetTensorTypeAndShape(tensor, &info));
      const kiln::TensorTypeAndShapeInfo owned(info);
      size_t n = 0;
      Check(api().GetTensorShapeElementCount(info, &n));
      return n;
    };
    const size_t count = element_count(src.handle);
    const size_t dst_count = element_count(dst.handle);
    if (count != dst_count) {
      throw kiln::Exception(
          KILN_INVALID_ARGUMENT,
          "copy_tensors: " + std::to_string(count) + " strings into " + std::to_string(dst_count));
    }
    if (check_only || count == 0 || src.handle == dst.handle) return;
    size_t total = 0;
    Check(api().GetStringTensorDataLength(src.handle, &total));
    std::string bytes(total, '\0');
    std::vector<size_t> offsets(count);
    Check(api().GetStringTensorContent(src.handle, total == 0 ? nullptr : bytes.data(), total,
                                       offsets.data(), count));
    std::vector<std::string> strings;
    strings.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const size_t end = i + 1 < count ? offsets[i + 1] : total;
      strings.emplace_back(bytes, offsets[i], end - offsets[i]);
    }
    std::vector<const char*> pointers;
    pointers.reserve(count);
    for (const std::string& str : strings) pointers.push_back(str.c_str());
    Check(api().FillStringTensor(dst.handle, pointers.data(), pointers.size()));
    return;
  }
  size_t src_bytes = 0;
  size_t dst_bytes = 0;
  Check(api().GetTensorSizeInBytes(src.handle, &src_bytes));
  Check(api().GetTensorSizeInBytes(dst.handle, &dst_bytes));
  if (src_bytes != dst_bytes) {
    throw kiln::Exception(KILN_INVALID_ARGUMENT,
                          "copy_tensors: the source has " + std::to_string(src_bytes) +
                              " bytes, the destination " + std::to_string(dst_bytes));
  }
  if (check_only || src_bytes == 0) return;
  const void* from = nullptr;
  void* to = nullptr;
  Check(api().GetTensorData(src.handle, &from));
  Check(api().GetTensorMutableData(dst.handle, &to));
  if (from != to) std::memmove(to, from, src_bytes);
}

}  // namespace kilnpy

namespace kilnpy {

void DefineValues(py::module_& m) {
  py::class_<Value, ValuePtr>(m, "Value",
                              "An owned KilnValue: a tensor, a sequence or an optional.")
      .def_static(
          "from_object",
          [](py::handle obj, int expected) {
            return TensorFromObject(obj, static_cast<KilnElementType>(expected));
          },
          py::arg("obj"), py::arg("expected") = 0,
          "A tensor over a numpy array (no copy when C-contiguous) or a copy of anything "
          "numpy.asarray takes.")
      .def_static(
          "from_shape_and_type",
          [](const std::vector<int64_t>& shape, int type) {
            return TensorOfShape(shape, static_cast<KilnElementType>(type));
          },
          py::arg("shape"), py::arg("element_type"), "A zero-filled tensor Kiln allocates.")
      .def_static(
          "from_pointer",
          [](uintptr_t pointer, size_t nbytes, const std::vector<int64_t>& shape, int type) {
            KilnValue* v = nullptr;
            Check(api().CreateTensorWithDataAsValue(CpuInfo(), reinterpret_cast<void*>(pointer),
                                                    nbytes, shape.data(), shape.size(),
                                                    static_cast<KilnElementType>(type), &v));
            return std::make_shared<Value>(v);
          },
          py::arg("pointer"), py::arg("nbytes"), py::arg("shape"), py::arg("element_type"),
          "A tensor over memory the caller owns and keeps alive (no copy).")
      .def_static(
          "sequence",
          [](const std::vector<ValuePtr>& tensors, int type) {
            return SequenceOf(tensors, static_cast<KilnElementType>(type));
          },
          py::arg("tensors"), py::arg("element_type"), "A sequence holding copies of tensors.")
      .def_static(
          "optional",
          [](const ValuePtr& content, int contained, int type) {
            return OptionalOf(content, static_cast<KilnValueType>(contained),
                              static_cast<KilnElementType>(type));
          },
          py::arg("content").none(true), py::arg("contained"), py::arg("element_type"),
          "An optional, empty (content None) or holding a copy of content.")
      .def(
          "numpy", [](const ValuePtr& self) { return ToPython(self, py::cast(self)); },
          "The value as numpy: an array over the tensor's buffer (no copy), a list for a "
          "sequence, None or the content for an optional.")
      .def("data_ptr",
           [](const Value& self) {
             void* p = nullptr;
             Check(api().GetTensorMutableData(self.handle, &p));
             return reinterpret_cast<uintptr_t>(p);
           })
      .def("shape",
           [](const Value& self) {
             KilnTensorTypeAndShapeInfo* info = nullptr;
             Check(api().GetTensorTypeAndShape(self.handle, &info));
             return kiln::TensorTypeAndShapeInfo(info).shape();
           })
      .def("element_type",
           [](const Value& self) {
             KilnElementType t = KILN_ELEMENT_TYPE_UNDEFINED;
             Check(api().GetValueElementType(self.handle, &t));
             return static_cast<int>(t);
           })
      .def("value_type",
           [](const Value& self) {
             KilnValueType t = KILN_VALUE_TYPE_UNKNOWN;
             Check(api().GetValueType(self.handle, &t));
             return static_cast<int>(t);
           })
      .def("has_value",
           [](const Value& self) {
             int has = 0;
             Check(api().HasValue(self.handle, &has));
             return has != 0;
           })
      .def("count",
           [](const Value& self) {
             size_t n = 0;
             Check(api().GetValueCount(self.handle, &n));
             return n;
           })
      .def("element",
           [](const Value& self, size_t index) {
             KilnValue* e = nullptr;
             Check(api().GetValueElement(self.handle, index, &e));
             return std::make_shared<Value>(e);
           })
      .def(
          "copy_from",
          [](Value& self, const Value& src, bool check_only) {
            CopyTensorData(src, self, check_only);
          },
          py::arg("src"), py::arg("check_only") = false,
          "Copies tensor src's data into this tensor (as many bytes, or as many strings); with "
          "check_only, only checks that it could.")
      .def(
          "wraps", [](const Value& self) { return self.keep; },
          "The numpy array whose buffer the tensor wraps, or None.");
}

}  // namespace kilnpy
