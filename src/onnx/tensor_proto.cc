#include "onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"

namespace kiln::onnx {
namespace {

[[noreturn]] void Bad(const std::string& what, const std::string& msg) {
  throw Error(ErrorCode::kInvalidProtobuf, what + ": " + msg);
}

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

uint64_t ParseUint(const std::string& what, const std::string& key, const std::string& text) {
  if (text.empty() || text.size() > 20 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    Bad(what, "external data '" + key + "' is not a non-negative integer: '" + text + "'");
  }
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) Bad(what, "external data '" + key + "' is out of range: " + text);
  return v;
}

ExternalRef ParseExternal(const ::onnx::TensorProto& proto, const std::string& what) {
  ExternalRef ref;
  for (const auto& kv : proto.external_data()) {
    if (kv.key() == "location") {
      ref.location = kv.value();
    } else if (kv.key() == "offset") {
      ref.offset = ParseUint(what, "offset", kv.value());
    } else if (kv.key() == "length") {
      ref.length = ParseUint(what, "length", kv.value());
    }
  }
  if (ref.location.empty()) Bad(what, "external data has no 'location'");
  return ref;
}

// Reads `bytes` bytes of external data into `dst`, refusing any path that leaves `model_dir`.
void ReadExternal(const ::onnx::TensorProto& proto, const std::string& what,
                  const std::string& model_dir, void* dst, size_t bytes) {
  namespace fs = std::filesystem;
  const ExternalRef ref = ParseExternal(proto, what);
  if (model_dir.empty()) {
    throw Error(ErrorCode::kInvalidGraph,
                what + ": uses external data, but the model was not loaded from a file");
  }
  const fs::path rel(ref.location);
  if (rel.is_absolute() || ref.location.find('\0') != std::string::npos) {
    throw Error(ErrorCode::kInvalidGraph,
                what + ": external data path '" + ref.location + "' must be relative");
  }
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::path(model_dir), ec);
  const fs::path file = fs::weakly_canonical(dir / rel, ec);
  if (ec) {
    throw Error(ErrorCode::kNoSuchFile,
                what + ": external data '" + ref.location + "': " + ec.message());
  }
  // Both are canonical (symlinks resolved), so a plain prefix check on components is enough.
  auto d = dir.begin();
  auto f = file.begin();
  for (; d != dir.end(); ++d, ++f) {
    if (f == file.end() || *d != *f) {
      throw Error(ErrorCode::kInvalidGraph,
                  what + ": external data path '" + ref.location + "' leaves the model's folder");
    }
  }
  if (ref.length && *ref.length != bytes) {
    Bad(what, "external data length " + std::to_string(*ref.length) + " does not match the " +
                  std::to_string(bytes) + " bytes its type and dims need");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw Error(ErrorCode::kNoSuchFile,
                what + ": cannot open external data file '" + ref.location + "'");
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  if (ref.offset > size || size - ref.offset < bytes) {
    Bad(what, "external data file '" + ref.location + "' holds " + std::to_string(size) +
                  " bytes; offset " + std::to_string(ref.offset) + " + " + std::to_string(bytes) +
                  " bytes runs past its end");
  }
  in.seekg(static_cast<std::streamoff>(ref.offset));
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (!in) {
    throw Error(ErrorCode::kNoSuchFile,
                what + ": reading external data '" + ref.location + "' failed");
  }
}

template <typename Field>
void CheckCount(const std::string& what, const Field& field, size_t want, const char* name) {
  if (static_cast<size_t>(field.size()) != want) {
    Bad(what, std::string(name) + " holds " + std::to_string(field.size()) +
                  " values but its dims need " + std::to_string(want));
  }
}

template <typename Dst, typename Field>
void CopyField(const Field& field, void* dst) {
  Dst* p = static_cast<Dst*>(dst);
  for (int i = 0; i < field.size(); ++i) p[i] = static_cast<Dst>(field.Get(i));
}

// int32_data of the types narrower than 32 bits holds one element per entry (bits for float16
// and the float8s), except the sub-byte types where each entry holds one packed byte.
void FromInt32Data(const ::onnx::TensorProto& p, DataType type, size_t count,
                   const std::string& what, Tensor& t) {
  const auto& f = p.int32_data();
  switch (type) {
    case DataType::kInt32:
      CheckCount(what, f, count, "int32_data");
      CopyField<int32_t>(f, t.data());
      return;
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBfloat16:
      CheckCount(what, f, count, "int32_data");
      CopyField<uint16_t>(f, t.data());
      return;
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kBool:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
      CheckCount(what, f, count, "int32_data");
      CopyField<uint8_t>(f, t.data());
      if (type == DataType::kBool) {
        auto* b = static_cast<uint8_t*>(t.data());
        for (size_t i = 0; i < count; ++i) b[i] = b[i] != 0;
      }
      return;
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kFloat4E2M1:
    case DataType::kInt2:
    case DataType::kUint2:
      CheckCount(what, f, t.byte_size(), "int32_data (packed bytes)");
      CopyField<uint8_t>(f, t.data());
      return;
    default:
      Bad(what, std::string("int32_data cannot hold ") + DataTypeName(type));
  }
}

}  // namespace

std::shared_ptr<Tensor> TensorFromProto(const ::onnx::TensorProto& p, const std::string& what,
                                        const std::string& model_dir) {
  if (p.has_segment()) {
    throw Error(ErrorCode::kNotImplemented, what + ": segmented tensors are not supported");
  }
  const int32_t type_value = p.data_type();
  if (!IsKnownDataType(type_value)) {
    Bad(what, "data_type " + std::to_string(type_value) + " is not a known element type");
  }
  const auto type = static_cast<DataType>(type_value);
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      Bad(what,
          "dimension " + std::to_string(i) + " is negative (" + std::to_string(dims[i]) + ")");
    }
  }
  Shape shape(dims);
  if (!shape.ElementCount() || !StorageBytes(type, *shape.ElementCount())) {
    Bad(what, "dims " + shape.ToString() + " overflow the address space");
  }
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, shape, CpuAllocator());
  const size_t count = t->element_count();
  const size_t bytes = t->byte_size();

  if (p.data_location() == ::onnx::TensorProto::EXTERNAL) {
    if (type == DataType::kString) Bad(what, "string tensors cannot use external data");
    ReadExternal(p, what, model_dir, t->data(), bytes);
    return t;
  }
  if (p.has_raw_data()) {
    if (type == DataType::kString) Bad(what, "string tensors cannot use raw_data");
    if (p.raw_data().size() != bytes) {
      Bad(what, "raw_data holds " + std::to_string(p.raw_data().size()) + " bytes but " +
                    shape.ToString() + " of " + DataTypeName(type) + " needs " +
                    std::to_string(bytes));
    }
    if (bytes != 0) std::memcpy(t->data(), p.raw_data().data(), bytes);
    return t;
  }
  switch (type) {
    case DataType::kFloat:
      CheckCount(what, p.float_data(), count, "float_data");
      CopyField<float>(p.float_data(), t->data());
      break;
    case DataType::kComplex64:
      CheckCount(what, p.float_data(), count * 2, "float_data");
      CopyField<float>(p.float_data(), t->data());
      break;
    case DataType::kDouble:
      CheckCount(what, p.double_data(), count, "double_data");
      CopyField<double>(p.double_data(), t->data());
      break;
    case DataType::kComplex128:
      CheckCount(what, p.double_data(), count * 2, "double_data");
      CopyField<double>(p.double_data(), t->data());
      break;
    case DataType::kInt64:
      CheckCount(what, p.int64_data(), count, "int64_data");
      CopyField<int64_t>(p.int64_data(), t->data());
      break;
    case DataType::kUint32:
      CheckCount(what, p.uint64_data(), count, "uint64_data");
      CopyField<uint32_t>(p.uint64_data(), t->data());
      break;
    case DataType::kUint64:
      CheckCount(what, p.uint64_data(), count, "uint64_data");
      CopyField<uint64_t>(p.uint64_data(), t->data());
      break;
    case DataType::kString:
      CheckCount(what, p.string_data(), count, "string_data");
      for (size_t i = 0; i < count; ++i) t->strings()[i] = p.string_data(static_cast<int>(i));
      break;
    default:
      FromInt32Data(p, type, count, what, *t);
      break;
  }
  return t;
}

}  // namespace kiln::onnx
