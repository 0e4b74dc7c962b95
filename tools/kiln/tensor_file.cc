#include "tensor_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "args.h"
#include "elements.h"
#include "npy.h"

namespace kiln::cli {
namespace {

constexpr int kLastElementType = KILN_ELEMENT_TYPE_INT2;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Copies `count` typed-field values into the tensor's data, each narrowed to `Out`.
template <typename Out, typename Field>
void CopyNarrowed(const Field& field, size_t count, void* data) {
  for (size_t i = 0; i < count; ++i) {
    const auto v = static_cast<Out>(field.Get(static_cast<int>(i)));
    std::memcpy(static_cast<char*>(data) + i * sizeof(Out), &v, sizeof(Out));
  }
}

template <typename Field>
void CheckCount(const Field& field, size_t want, const char* field_name, const std::string& what) {
  if (static_cast<size_t>(field.size()) != want) {
    throw Error(what + ": the TensorProto has " + std::to_string(field.size()) + " values in " +
                field_name + " but its dims need " + std::to_string(want));
  }
}

// Fills a tensor from the TensorProto's typed field for its element type.
void CopyTypedFields(const onnx::TensorProto& p, KilnElementType type, size_t count, void* data,
                     const std::string& what) {
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_COMPLEX64: {
      const size_t n = type == KILN_ELEMENT_TYPE_FLOAT ? count : 2 * count;
      CheckCount(p.float_data(), n, "float_data", what);
      CopyNarrowed<float>(p.float_data(), n, data);
      return;
    }
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_COMPLEX128: {
      const size_t n = type == KILN_ELEMENT_TYPE_DOUBLE ? count : 2 * count;
      CheckCount(p.double_data(), n, "double_data", what);
      CopyNarrowed<double>(p.double_data(), n, data);
      return;
    }
    case KILN_ELEMENT_TYPE_INT64:
      CheckCount(p.int64_data(), count, "int64_data", what);
      CopyNarrowed<int64_t>(p.int64_data(), count, data);
      return;
    case KILN_ELEMENT_TYPE_UINT32:
      CheckCount(p.uint64_data(), count, "uint64_data", what);
      CopyNarrowed<uint32_t>(p.uint64_data(), count, data);
      return;
    case KILN_ELEMENT_TYPE_UINT64:
      CheckCount(p.uint64_data(), count, "uint64_data", what);
      CopyNarrowed<uint64_t>(p.uint64_data(), count, data);
      return;
    case KILN_ELEMENT_TYPE_INT32:
      CheckCount(p.int32_data(), count, "int32_data", what);
      CopyNarrowed<int32_t>(p.int32_data(), count, data);
      return;
    case KILN_ELEMENT_TYPE_INT16:
    case KILN_ELEMENT_TYPE_UINT16:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
      CheckCount(p.int32_data(), count, "int32_data", what);
      CopyNarrowed<uint16_t>(p.int32_data(), count, data);
      return;
    case KILN_ELEMENT_TYPE_INT8:
    case KILN_ELEMENT_TYPE_UINT8:
    case KILN_ELEMENT_TYPE_BOOL:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FN:
    case KILN_ELEMENT_TYPE_FLOAT8E4M3FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2:
    case KILN_ELEMENT_TYPE_FLOAT8E5M2FNUZ:
    case KILN_ELEMENT_TYPE_FLOAT8E8M0:
      CheckCount(p.int32_data(), count, "int32_data", what);
      if (type == KILN_ELEMENT_TYPE_BOOL) {
        for (const int32_t v : p.int32_data()) {
          if (v != 0 && v != 1) throw Error(what + ": a bool element is not 0 or 1");
        }
      }
      CopyNarrowed<uint8_t>(p.int32_data(), count, data);
      return;
    default:
      throw Error(what + ": " + ElementTypeName(type) +
                  " tensors are only read from raw_data, which this TensorProto leaves empty");
  }
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read '" + path + "': a folder");
  const std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (f == nullptr) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) bytes.append(buf, n);
  if (std::ferror(f.get()) != 0) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  return bytes;
}

kiln::Value TensorFromProto(const onnx::TensorProto& p, const std::string& what) {
  if (p.has_segment()) {
    throw Error(what +
                ": looks like a SequenceProto, an OptionalProto or a segmented TensorProto, but "
                "a tensor is expected here (segmented TensorProtos are not supported)");
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    throw Error(what + ": the tensor's data is in an external file, which is not supported yet");
  }
  if (p.data_type() <= 0 || p.data_type() > kLastElementType) {
    throw Error(what + ": the TensorProto's data_type " + std::to_string(p.data_type()) +
                " is not a tensor element type");
  }
  const auto type = static_cast<KilnElementType>(p.data_type());
  const std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  for (const int64_t d : dims) {
    if (d < 0) throw Error(what + ": the TensorProto has a negative dimension");
  }
  kiln::Value value = kiln::Value::CreateTensor(kiln::Allocator::Default(), dims, type);
  const size_t count = value.type_and_shape().element_count();
  if (type == KILN_ELEMENT_TYPE_STRING) {
    if (p.has_raw_data()) throw Error(what + ": a string TensorProto cannot use raw_data");
    CheckCount(p.string_data(), count, "string_data", what);
    value.fill_strings(std::vector<std::string>(p.string_data().begin(), p.string_data().end()));
    return value;
  }
  const size_t size = value.size_in_bytes();
  if (p.has_raw_data()) {
    if (p.raw_data().size() != size) {
      throw Error(what + ": the TensorProto's raw_data is " + std::to_string(p.raw_data().size()) +
                  " bytes but its dims and data_type need " + std::to_string(size));
    }
    if (size != 0) std::memcpy(value.data<void>(), p.raw_data().data(), size);
    return value;
  }
  if (count != 0) CopyTypedFields(p, type, count, value.data<void>(), what);
  return value;
}

kiln::Value LoadTensorFile(const std::string& path) {
  const std::string bytes = ReadFile(path);
  const bool npy_extension = std::filesystem::path(path).extension() == ".npy";
  if (npy_extension || bytes.starts_with("\x93NUMPY")) {
    const NpyArray array = ParseNpy(bytes, path);
    kiln::Value value =
        kiln::Value::CreateTensor(kiln::Allocator::Default(), array.shape, array.type);
    if (!array.data.empty()) std::memcpy(value.data<void>(), array.data.data(), array.data.size());
    return value;
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    throw Error(path + ": not a serialized ONNX TensorProto, nor a .npy file");
  }
  return TensorFromProto(proto, path);
}

namespace {

// Parses `bytes` as a `T`; a field T does not have (such as a TensorProto's raw_data) means the
// file holds some other proto.
template <typename T>
T ParseProto(const std::string& bytes, const std::string& path, const char* type_name) {
  T proto;
  if (!proto.ParseFromString(bytes) || !proto.unknown_fields().empty()) {
    throw Error(path + ": not a serialized ONNX " + type_name);
  }
  return proto;
}

std::vector<kiln::Value> TensorsOf(const onnx::SequenceProto& p, KilnElementType declared,
                                   const std::string& what) {
  if (p.elem_type() != onnx::SequenceProto::TENSOR) {
    throw Error(what + ": the SequenceProto's elem_type is " + std::to_string(p.elem_type()) +
                "; only sequences of tensors (elem_type TENSOR, 1) are supported");
  }
  std::vector<kiln::Value> tensors;
  for (int i = 0; i < p.tensor_values_size(); ++i) {
    const std::string entry = what + ": tensor " + std::to_string(i);
    kiln::Value t = TensorFromProto(p.tensor_values(i), entry);
    const KilnElementType type = t.element_type();
    if (declared != KILN_ELEMENT_TYPE_UNDEFINED && type != declared) {
      throw Error(entry + " holds " + ElementTypeName(type) + " but the sequence is of " +
                  ElementTypeName(declared));
    }
    tensors.push_back(std::move(t));
  }
  return tensors;
}

kiln::Value SequenceFromProto(const onnx::SequenceProto& p, KilnElementType declared,
                              const std::string& what) {
  std::vector<kiln::Value> tensors = TensorsOf(p, declared, what);
  KilnElementType type = declared;
  if (type == KILN_ELEMENT_TYPE_UNDEFINED) {
    if (tensors.empty()) {
      throw Error(what + ": an empty sequence, and the model declares no element type for it");
    }
    type = tensors[0].element_type();
  }
  return kiln::Value::CreateSequence(tensors, type);
}

}  // namespace

kiln::Value LoadSequenceFile(const std::string& path, KilnElementType declared) {
  const auto proto = ParseProto<onnx::SequenceProto>(ReadFile(path), path, "SequenceProto");
  return SequenceFromProto(proto, declared, path);
}

kiln::Value LoadOptionalFile(const std::string& path, bool holds_sequence,
                             KilnElementType declared) {
  const auto p = ParseProto<onnx::OptionalProto>(ReadFile(path), path, "OptionalProto");
  const char* expected = holds_sequence ? "a sequence" : "a tensor";
  switch (p.elem_type()) {
    case onnx::OptionalProto::UNDEFINED:
      break;
    case onnx::OptionalProto::TENSOR:
      if (holds_sequence)
        throw Error(path + ": the optional holds a tensor, but the model's " + "holds " + expected);
      if (!p.has_tensor_value()) break;
      {
        kiln::Value t = TensorFromProto(p.tensor_value(), path);
        if (declared != KILN_ELEMENT_TYPE_UNDEFINED && t.element_type() != declared) {
          throw Error(path + ": the optional's tensor holds " + ElementTypeName(t.element_type()) +
                      " but the model's holds " + ElementTypeName(declared));
        }
        return kiln::Value::CreateOptional(t);
      }
    case onnx::OptionalProto::SEQUENCE:
      if (!holds_sequence)
        throw Error(path + ": the optional holds a sequence, but the model's " + "holds " +
                    expected);
      if (!p.has_sequence_value()) break;
      return kiln::Value::CreateOptional(SequenceFromProto(p.sequence_value(), declared, path));
    default:
      throw Error(path + ": the OptionalProto's elem_type is " + std::to_string(p.elem_type()) +
                  "; only optional tensors (1) and sequences (3) are supported");
  }
  if (declared == KILN_ELEMENT_TYPE_UNDEFINED) {
    throw Error(path + ": an empty optional, and the model declares no element type for it");
  }
  return kiln::Value::CreateOptional(
      holds_sequence ? KILN_VALUE_TYPE_SEQUENCE : KILN_VALUE_TYPE_TENSOR, declared);
}

onnx::SequenceProto SequenceToProto(const kiln::Value& value, const std::string& name) {
  onnx::SequenceProto proto;
  proto.set_name(name);
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (size_t i = 0; i < value.count(); ++i) {
    *proto.add_tensor_values() = TensorToProto(value.element(i), "");
  }
  return proto;
}

onnx::OptionalProto OptionalToProto(const kiln::Value& value, const std::string& name,
                                    bool holds_sequence) {
  onnx::OptionalProto proto;
  proto.set_name(name);
  if (!value.has_value()) {
    proto.set_elem_type(holds_sequence ? onnx::OptionalProto::SEQUENCE
                                       : onnx::OptionalProto::TENSOR);
    return proto;
  }
  const kiln::Value content = value.element(0);
  if (content.is_tensor()) {
    proto.set_elem_type(onnx::OptionalProto::TENSOR);
    *proto.mutable_tensor_value() = TensorToProto(content, "");
  } else {
    proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
    *proto.mutable_sequence_value() = SequenceToProto(content, "");
  }
  return proto;
}

onnx::TensorProto TensorToProto(const kiln::Value& value, const std::string& name) {
  if (!value.is_tensor()) {
    throw Error("'" + name + "' is not a tensor: only tensors can be written yet");
  }
  const kiln::TensorTypeAndShapeInfo info = value.type_and_shape();
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(info.element_type());
  for (const int64_t d : info.shape()) proto.add_dims(d);
  if (info.element_type() == KILN_ELEMENT_TYPE_STRING) {
    for (const std::string& s : value.strings()) proto.add_string_data(s);
  } else {
    const size_t size = value.size_in_bytes();
    const char* data = size == 0 ? nullptr : value.data<char>();
    proto.set_raw_data(std::string(data, data + size));
  }
  return proto;
}

void WriteProtoFile(const google::protobuf::MessageLite& proto, const std::string& path) {
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) throw Error("cannot serialize a value for '" + path + "'");
  const std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (f == nullptr) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size() ||
      std::fflush(f.get()) != 0) {
    throw Error("cannot write '" + path + "': " + std::strerror(errno));
  }
}

}  // namespace kiln::cli
