#include "onnx/tensor_proto.h"

#include <kiln_onnx/onnx.pb.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

ExternalRef ParseExternal(const ::kiln_onnx::TensorProto& proto, const std::string& what) {
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

struct ExternalSource {
  std::filesystem::path file;
  uint64_t offset;
};

// Finds and checks external data before anything is allocated for it: the path must stay inside
// `model_dir` and the file must hold `bytes` bytes at the offset.
ExternalSource LocateExternal(const ::kiln_onnx::TensorProto& proto, const std::string& what,
                              const std::string& model_dir, size_t bytes) {
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
  return {file, ref.offset};
}

void ReadExternal(const ExternalSource& src, const std::string& what, void* dst, size_t bytes) {
  std::ifstream in(src.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(src.offset));
  in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
  if (!in) throw Error(ErrorCode::kNoSuchFile, what + ": reading external data failed");
}

// How many entries the typed field for `type` must hold for `count` elements (`bytes` packed
// bytes for the sub-byte types); its name; and in `have` how many it holds.
std::pair<size_t, const char*> TypedFieldSize(const ::kiln_onnx::TensorProto& p, DataType type,
                                              size_t count, size_t bytes, size_t* have) {
  switch (type) {
    case DataType::kFloat:
      *have = p.float_data_size();
      return {count, "float_data"};
    case DataType::kComplex64:
      *have = p.float_data_size();
      return {count * 2, "float_data"};
    case DataType::kDouble:
      *have = p.double_data_size();
      return {count, "double_data"};
    case DataType::kComplex128:
      *have = p.double_data_size();
      return {count * 2, "double_data"};
    case DataType::kInt64:
      *have = p.int64_data_size();
      return {count, "int64_data"};
    case DataType::kUint32:
    case DataType::kUint64:
      *have = p.uint64_data_size();
      return {count, "uint64_data"};
    case DataType::kString:
      *have = p.string_data_size();
      return {count, "string_data"};
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kFloat4E2M1:
    case DataType::kInt2:
    case DataType::kUint2:
      *have = p.int32_data_size();
      return {bytes, "int32_data (packed bytes)"};
    default:
      *have = p.int32_data_size();
      return {count, "int32_data"};
  }
}

template <typename Dst, typename Field>
void CopyField(const Field& field, void* dst) {
  Dst* p = static_cast<Dst*>(dst);
  for (int i = 0; i < field.size(); ++i) p[i] = static_cast<Dst>(field.Get(i));
}

// int32_data of the types narrower than 32 bits holds one element per entry (bits for float16
// and the float8s), except the sub-byte types where each entry holds one packed byte. The 8-bit
// types and the packed bytes take each entry's low byte; a bool is true for any non-zero entry.
void FromInt32Data(const ::kiln_onnx::TensorProto& p, DataType type, size_t count,
                   const std::string& what, Tensor& t) {
  const auto& f = p.int32_data();
  switch (type) {
    case DataType::kInt32:
      CopyField<int32_t>(f, t.data());
      return;
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBfloat16:
      CopyField<uint16_t>(f, t.data());
      return;
    case DataType::kBool: {
      // True for any non-zero entry (as ONNX's numpy_helper reads it), not only a non-zero low
      // byte: 256 is true.
      auto* b = static_cast<uint8_t*>(t.data());
      for (size_t i = 0; i < count; ++i) b[i] = f.Get(static_cast<int>(i)) != 0 ? 1 : 0;
      return;
    }
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kFloat4E2M1:
    case DataType::kInt2:
    case DataType::kUint2:
      CopyField<uint8_t>(f, t.data());
      return;
    default:
      Bad(what, std::string("int32_data cannot hold ") + DataTypeName(type));
  }
}

// Copies lifted raw_data in slices; with drop_pages, each slice's whole pages are given back once
// copied, so at most one slice of the file is resident beside the tensors built so far. The page
// at either end may hold a neighbour's bytes: it stays (dropping it would only cost a re-read).
void CopyLifted(const LiftedRawData& src, void* dst) {
  if (!src.drop_pages) {
    std::memcpy(dst, src.data, src.size);
    return;
  }
  constexpr size_t kSlice = size_t{4} << 20;
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(src.data);
  size_t dropped = (page - begin % page) % page;  // offset of the first page not yet given back
  for (size_t done = 0; done < src.size;) {
    const size_t n = std::min(kSlice, src.size - done);
    std::memcpy(static_cast<uint8_t*>(dst) + done, src.data + done, n);
    done += n;
    const size_t partial = (begin + done) % page;  // bytes copied of the page `done` is in
    if (done >= partial && done - partial > dropped) {
      // Advice only: if it fails, the pages stay until the loader unmaps the file.
      ::madvise(const_cast<uint8_t*>(src.data + dropped), done - partial - dropped, MADV_DONTNEED);
      dropped = done - partial;
    }
  }
}

// Raw bool bytes other than 0 and 1 read as true, like int32_data's non-zero entries (and
// numpy's bool from bytes): the kernels read bools as C++ bool, for which another byte is
// undefined behaviour.
void NormalizeBools(Tensor& t) {
  if (t.type() != DataType::kBool) return;
  auto* b = static_cast<uint8_t*>(t.data());
  for (size_t i = 0; i < t.element_count(); ++i) b[i] = b[i] != 0 ? 1 : 0;
}

}  // namespace

std::shared_ptr<Tensor> TensorFromProto(const ::kiln_onnx::TensorProto& p, const std::string& what,
                                        const std::string& model_dir, const LiftedRawData* lifted) {
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
  const size_t count = *shape.ElementCount();
  const size_t bytes = type == DataType::kString ? 0 : *StorageBytes(type, count);
  // Every size is checked against the data before anything is allocated, so a small corrupt
  // file cannot make Kiln reserve gigabytes.
  if (p.data_location() == ::kiln_onnx::TensorProto::EXTERNAL) {
    if (type == DataType::kString) Bad(what, "string tensors cannot use external data");
    const ExternalSource src = LocateExternal(p, what, model_dir, bytes);
    std::shared_ptr<Tensor> t = Tensor::AllocateForOverwrite(type, shape, CpuAllocator());
    ReadExternal(src, what, t->data(), bytes);
    NormalizeBools(*t);
    return t;
  }
  if (p.has_raw_data()) {
    if (type == DataType::kString) Bad(what, "string tensors cannot use raw_data");
    const size_t have = lifted != nullptr ? lifted->size : p.raw_data().size();
    if (have != bytes) {
      Bad(what, "raw_data holds " + std::to_string(have) + " bytes but " + shape.ToString() +
                    " of " + DataTypeName(type) + " needs " + std::to_string(bytes));
    }
    std::shared_ptr<Tensor> t = Tensor::AllocateForOverwrite(type, shape, CpuAllocator());
    if (bytes == 0) return t;
    if (lifted != nullptr) {
      CopyLifted(*lifted, t->data());
    } else {
      std::memcpy(t->data(), p.raw_data().data(), bytes);
    }
    NormalizeBools(*t);
    return t;
  }
  size_t have = 0;
  const auto [want, field] = TypedFieldSize(p, type, count, bytes, &have);
  if (have != want) {
    Bad(what, std::string(field) + " holds " + std::to_string(have) + " values but its dims need " +
                  std::to_string(want));
  }
  std::shared_ptr<Tensor> t = Tensor::Allocate(type, shape, CpuAllocator());
  switch (type) {
    case DataType::kFloat:
    case DataType::kComplex64:  // real and imaginary parts interleaved
      CopyField<float>(p.float_data(), t->data());
      break;
    case DataType::kDouble:
    case DataType::kComplex128:
      CopyField<double>(p.double_data(), t->data());
      break;
    case DataType::kInt64:
      CopyField<int64_t>(p.int64_data(), t->data());
      break;
    case DataType::kUint32:
      CopyField<uint32_t>(p.uint64_data(), t->data());
      break;
    case DataType::kUint64:
      CopyField<uint64_t>(p.uint64_data(), t->data());
      break;
    case DataType::kString:
      for (size_t i = 0; i < count; ++i) t->strings()[i] = p.string_data(static_cast<int>(i));
      break;
    default:
      FromInt32Data(p, type, count, what, *t);
      break;
  }
  return t;
}

void TensorToProto(const Tensor& tensor, ::kiln_onnx::TensorProto* proto) {
  proto->set_data_type(static_cast<int32_t>(tensor.type()));
  proto->clear_dims();
  for (int64_t d : tensor.shape().dims()) proto->add_dims(d);
  if (tensor.type() == DataType::kString) {
    proto->clear_string_data();
    for (size_t i = 0; i < tensor.element_count(); ++i) proto->add_string_data(tensor.strings()[i]);
    return;
  }
  if (tensor.byte_size() == 0) {
    proto->set_raw_data(std::string());  // present and empty: still says the data is raw
  } else {
    proto->set_raw_data(tensor.data(), tensor.byte_size());
  }
}

}  // namespace kiln::onnx
