#include "tensor_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
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

// The bits one element takes in a tensor's data (and in raw_data); 0 for strings.
size_t StorageBits(KilnElementType type) {
  switch (type) {
    case KILN_ELEMENT_TYPE_STRING:
      return 0;
    case KILN_ELEMENT_TYPE_UINT2:
    case KILN_ELEMENT_TYPE_INT2:
      return 2;
    case KILN_ELEMENT_TYPE_UINT4:
    case KILN_ELEMENT_TYPE_INT4:
    case KILN_ELEMENT_TYPE_FLOAT4E2M1:
      return 4;
    case KILN_ELEMENT_TYPE_UINT16:
    case KILN_ELEMENT_TYPE_INT16:
    case KILN_ELEMENT_TYPE_FLOAT16:
    case KILN_ELEMENT_TYPE_BFLOAT16:
      return 16;
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_INT32:
    case KILN_ELEMENT_TYPE_UINT32:
      return 32;
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_INT64:
    case KILN_ELEMENT_TYPE_UINT64:
    case KILN_ELEMENT_TYPE_COMPLEX64:
      return 64;
    case KILN_ELEMENT_TYPE_COMPLEX128:
      return 128;
    default:  // the 8-bit integers, bool and the 8-bit floats
      return 8;
  }
}

// Whether the sub-byte type's int32_data holds packed bytes (two or four elements each), as
// ONNX specifies, rather than one element per entry.
bool IsPacked(KilnElementType type) {
  const size_t bits = StorageBits(type);
  return bits != 0 && bits < 8;
}

// The typed field a TensorProto of `type` keeps its values in, as ONNX specifies: its name, how
// many entries it holds, and how many `count` elements need (`bytes` packed bytes for the
// sub-byte types).
struct TypedField {
  const char* name;
  size_t have;
  size_t want;
};

TypedField FieldFor(const onnx::TensorProto& p, KilnElementType type, size_t count, size_t bytes) {
  const auto n = [](int size) { return static_cast<size_t>(size); };
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
      return {"float_data", n(p.float_data_size()), count};
    case KILN_ELEMENT_TYPE_COMPLEX64:  // real and imaginary parts interleaved
      return {"float_data", n(p.float_data_size()), 2 * count};
    case KILN_ELEMENT_TYPE_DOUBLE:
      return {"double_data", n(p.double_data_size()), count};
    case KILN_ELEMENT_TYPE_COMPLEX128:
      return {"double_data", n(p.double_data_size()), 2 * count};
    case KILN_ELEMENT_TYPE_INT64:
      return {"int64_data", n(p.int64_data_size()), count};
    case KILN_ELEMENT_TYPE_UINT32:
    case KILN_ELEMENT_TYPE_UINT64:
      return {"uint64_data", n(p.uint64_data_size()), count};
    case KILN_ELEMENT_TYPE_STRING:
      return {"string_data", n(p.string_data_size()), count};
    default:
      if (IsPacked(type)) return {"int32_data (packed bytes)", n(p.int32_data_size()), bytes};
      return {"int32_data", n(p.int32_data_size()), count};
  }
}

// Copies a typed field's values into a tensor's data, each narrowed to `Out`.
template <typename Out, typename Field>
void CopyNarrowed(const Field& field, void* data) {
  for (int i = 0; i < field.size(); ++i) {
    const auto v = static_cast<Out>(field.Get(i));
    std::memcpy(static_cast<char*>(data) + static_cast<size_t>(i) * sizeof(Out), &v, sizeof(Out));
  }
}

// Fills a tensor's data from the TensorProto's typed field for its element type (FieldFor has
// checked its length): 16-bit types (float16 and bfloat16 as their bits) take the low 16 bits of
// each int32_data entry, 8-bit types (the 8-bit floats as their bits) the low byte, and the
// sub-byte types one packed byte per entry, the first element in the low bits; a bool is true for
// any non-zero entry.
void CopyTypedField(const onnx::TensorProto& p, KilnElementType type, void* data) {
  switch (type) {
    case KILN_ELEMENT_TYPE_FLOAT:
    case KILN_ELEMENT_TYPE_COMPLEX64:
      CopyNarrowed<float>(p.float_data(), data);
      return;
    case KILN_ELEMENT_TYPE_DOUBLE:
    case KILN_ELEMENT_TYPE_COMPLEX128:
      CopyNarrowed<double>(p.double_data(), data);
      return;
    case KILN_ELEMENT_TYPE_INT64:
      CopyNarrowed<int64_t>(p.int64_data(), data);
      return;
    case KILN_ELEMENT_TYPE_UINT32:
      CopyNarrowed<uint32_t>(p.uint64_data(), data);
      return;
    case KILN_ELEMENT_TYPE_UINT64:
      CopyNarrowed<uint64_t>(p.uint64_data(), data);
      return;
    case KILN_ELEMENT_TYPE_INT32:
      CopyNarrowed<int32_t>(p.int32_data(), data);
      return;
    case KILN_ELEMENT_TYPE_BOOL: {
      auto* b = static_cast<uint8_t*>(data);
      for (int i = 0; i < p.int32_data_size(); ++i) b[i] = p.int32_data(i) != 0 ? 1 : 0;
      return;
    }
    default:
      if (StorageBits(type) == 16) {
        CopyNarrowed<uint16_t>(p.int32_data(), data);
      } else {
        CopyNarrowed<uint8_t>(p.int32_data(), data);
      }
  }
}

// The value of an external_data key that must be a whole number.
uint64_t ExternalNumber(const std::string& what, const std::string& key, const std::string& text) {
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(what + ": external data '" + key + "' is not a whole number: '" + text + "'");
  }
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) throw Error(what + ": external data '" + key + "' is out of range: " + text);
  return v;
}

// Where a tensor's external data is, found and checked as Kiln's loader checks an
// initializer's before anything is allocated for it: 'location' relative to `base_dir` and inside
// it (symbolic links resolved), 'offset' (default 0) and 'length' (when given, exactly `bytes`),
// and the file holding `bytes` bytes at the offset.
struct ExternalSource {
  std::unique_ptr<std::FILE, FileCloser> in;
  std::filesystem::path file;
  uint64_t offset = 0;
};

ExternalSource LocateExternalData(const onnx::TensorProto& p, const std::string& what,
                                  const std::string& base_dir, size_t bytes) {
  namespace fs = std::filesystem;
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const auto& entry : p.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset = ExternalNumber(what, "offset", entry.value());
    if (entry.key() == "length") length = ExternalNumber(what, "length", entry.value());
  }
  if (location.empty()) throw Error(what + ": external data has no 'location'");
  if (fs::path(location).is_absolute() || location.find('\0') != std::string::npos) {
    throw Error(what + ": external data path '" + location + "' must be relative");
  }
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(base_dir.empty() ? fs::path(".") : fs::path(base_dir));
  const fs::path file = fs::weakly_canonical(dir / location, ec);
  if (ec) throw Error(what + ": external data '" + location + "': " + ec.message());
  // Both are canonical (symbolic links resolved): the folder's parts must begin the file's. Each
  // iterator is compared with its end before it is read or moved, never stepped past it (a
  // location such as ".." gives a file with fewer parts than the folder).
  auto d = dir.begin();
  auto f = file.begin();
  while (d != dir.end() && f != file.end() && *d == *f) {
    ++d;
    ++f;
  }
  if (d != dir.end()) {
    throw Error(what + ": external data path '" + location + "' leaves the folder '" +
                dir.string() + "'");
  }
  if (length && *length != bytes) {
    throw Error(what + ": external data length " + std::to_string(*length) +
                " does not match the " + std::to_string(bytes) +
                " bytes its dims and data_type need");
  }
  ExternalSource src{std::unique_ptr<std::FILE, FileCloser>(std::fopen(file.c_str(), "rb")), file,
                     offset};
  if (src.in == nullptr) {
    throw Error(what + ": cannot read external data '" + file.string() +
                "': " + std::strerror(errno));
  }
  const uintmax_t size = fs::file_size(file, ec);
  if (ec || offset > size || size - offset < bytes) {
    throw Error(what + ": external data file '" + file.string() + "' holds " +
                std::to_string(size) + " bytes; offset " + std::to_string(offset) + " + " +
                std::to_string(bytes) + " bytes runs past its end");
  }
  if (bytes != 0 && offset > static_cast<uint64_t>(std::numeric_limits<long>::max())) {
    throw Error(what + ": external data offset " + std::to_string(offset) + " is too large");
  }
  return src;
}

// Reads the `bytes` bytes LocateExternalData found into `data`.
void ReadExternalData(const ExternalSource& src, const std::string& what, size_t bytes,
                      void* data) {
  if (bytes == 0) return;
  if (std::fseek(src.in.get(), static_cast<long>(src.offset), SEEK_SET) != 0 ||
      std::fread(data, 1, bytes, src.in.get()) != bytes) {
    throw Error(what + ": reading external data '" + src.file.string() + "' failed");
  }
}

// The bytes `count` elements of `type` take in a tensor's data (sub-byte types packed), or
// nothing when that overflows size_t, as Kiln's loader (StorageBytes) counts them: a string takes
// a std::string.
std::optional<size_t> DataBytes(KilnElementType type, size_t count) {
  const size_t bits =
      type == KILN_ELEMENT_TYPE_STRING ? sizeof(std::string) * 8 : StorageBits(type);
  if (bits % 8 == 0) {
    if (count > std::numeric_limits<size_t>::max() / (bits / 8)) return std::nullopt;
    return count * (bits / 8);
  }
  const size_t per_byte = 8 / bits;  // 2 or 4 elements share a byte
  return count / per_byte + (count % per_byte != 0 ? 1 : 0);
}

}  // namespace

std::string FolderOf(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

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

kiln::Value TensorFromProto(const onnx::TensorProto& p, const std::string& what,
                            const std::string& base_dir) {
  if (p.has_segment()) {
    throw Error(what +
                ": looks like a SequenceProto, an OptionalProto or a segmented TensorProto, but "
                "a tensor is expected here (segmented TensorProtos are not supported)");
  }
  if (p.data_type() <= 0 || p.data_type() > kLastElementType) {
    throw Error(what + ": the TensorProto's data_type " + std::to_string(p.data_type()) +
                " is not a tensor element type");
  }
  const auto type = static_cast<KilnElementType>(p.data_type());
  const std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  // Every size is checked against the data before anything is allocated, so that a small
  // corrupt file cannot make the tool reserve gigabytes. As for Kiln's loader, a tensor with a
  // dimension 0 is empty however large the others are, and the size in bytes must fit size_t.
  for (const int64_t d : dims) {
    if (d < 0) throw Error(what + ": the TensorProto has a negative dimension");
  }
  size_t count = 0;
  if (std::find(dims.begin(), dims.end(), 0) == dims.end()) {
    count = 1;
    for (const int64_t d : dims) {
      if (count > std::numeric_limits<size_t>::max() / static_cast<uint64_t>(d)) {
        throw Error(what + ": the TensorProto's dims overflow the address space");
      }
      count *= static_cast<size_t>(d);
    }
  }
  if (!DataBytes(type, count)) {
    throw Error(what + ": the TensorProto's dims overflow the address space");
  }
  // The bytes of the data (0 for strings, whose values are not stored in place).
  const size_t bytes = type == KILN_ELEMENT_TYPE_STRING ? 0 : *DataBytes(type, count);
  const bool external = p.data_location() == onnx::TensorProto::EXTERNAL;
  const auto make = [&] {
    return kiln::Value::CreateTensor(kiln::Allocator::Default(), dims, type);
  };
  if (type == KILN_ELEMENT_TYPE_STRING) {
    if (external) throw Error(what + ": a string TensorProto cannot use external data");
    if (p.has_raw_data()) throw Error(what + ": a string TensorProto cannot use raw_data");
    const TypedField field = FieldFor(p, type, count, bytes);
    if (field.have != field.want) {
      throw Error(what + ": the TensorProto has " + std::to_string(field.have) +
                  " values in string_data but its dims need " + std::to_string(field.want));
    }
    kiln::Value value = make();
    value.fill_strings(std::vector<std::string>(p.string_data().begin(), p.string_data().end()));
    return value;
  }
  if (external) {
    const ExternalSource src = LocateExternalData(p, what, base_dir, bytes);
    kiln::Value value = make();
    ReadExternalData(src, what, bytes, bytes == 0 ? nullptr : value.data<void>());
    return value;
  }
  if (p.has_raw_data()) {
    if (p.raw_data().size() != bytes) {
      throw Error(what + ": the TensorProto's raw_data is " + std::to_string(p.raw_data().size()) +
                  " bytes but its dims and data_type need " + std::to_string(bytes));
    }
    kiln::Value value = make();
    if (bytes != 0) std::memcpy(value.data<void>(), p.raw_data().data(), bytes);
    return value;
  }
  const TypedField field = FieldFor(p, type, count, bytes);
  if (field.have != field.want) {
    throw Error(what + ": the TensorProto has " + std::to_string(field.have) + " values in " +
                field.name + " but its dims need " + std::to_string(field.want));
  }
  kiln::Value value = make();
  if (bytes != 0) CopyTypedField(p, type, value.data<void>());
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
  return TensorFromProto(proto, path, FolderOf(path));
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

// The tensors of a SequenceProto read from `path` (which names it in errors, and whose folder
// holds any external data).
std::vector<kiln::Value> TensorsOf(const onnx::SequenceProto& p, KilnElementType declared,
                                   const std::string& path) {
  if (p.elem_type() != onnx::SequenceProto::TENSOR) {
    throw Error(path + ": the SequenceProto's elem_type is " + std::to_string(p.elem_type()) +
                "; only sequences of tensors (elem_type TENSOR, 1) are supported");
  }
  std::vector<kiln::Value> tensors;
  for (int i = 0; i < p.tensor_values_size(); ++i) {
    const std::string entry = path + ": tensor " + std::to_string(i);
    kiln::Value t = TensorFromProto(p.tensor_values(i), entry, FolderOf(path));
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
                              const std::string& path) {
  std::vector<kiln::Value> tensors = TensorsOf(p, declared, path);
  KilnElementType type = declared;
  if (type == KILN_ELEMENT_TYPE_UNDEFINED) {
    if (tensors.empty()) {
      throw Error(path + ": an empty sequence, and the model declares no element type for it");
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
        kiln::Value t = TensorFromProto(p.tensor_value(), path, FolderOf(path));
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
