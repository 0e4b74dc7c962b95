// Entries: tensor values and their type-and-shape info (CreateTensorAsValue …
// ReleaseTensorTypeAndShapeInfo, ReleaseValue).
#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "api/allocators.h"
#include "api/arguments.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {
namespace {

// Bytes a tensor of `shape` (already checked by Shape::FromUser) and `type` needs.
size_t CheckedBytes(DataType type, const Shape& shape, const char* argument) {
  const size_t count = *shape.ElementCount();
  const std::optional<size_t> bytes = StorageBytes(type, count);
  if (!bytes) {
    ThrowInvalidArgument(argument, shape.ToString() + " elements of " + DataTypeName(type) +
                                       " need more bytes than size_t can count");
  }
  return *bytes;
}

Tensor& UnwrapTensor(const KilnValue* value, const char* argument) {
  const KilnValue& v = Unwrap(value, argument);
  if (v.tensor == nullptr)
    ThrowInvalidArgument(argument, "is a " + v.other.TypeText() + ", not a tensor");
  return *v.tensor;
}

// The tensor of `value`, which must not hold strings.
Tensor& UnwrapNumericTensor(const KilnValue* value, const char* argument) {
  Tensor& t = UnwrapTensor(value, argument);
  if (t.type() == DataType::kString) {
    ThrowInvalidArgument(argument, "is a string tensor; use the string tensor entries");
  }
  return t;
}

void Publish(std::unique_ptr<Tensor> tensor, KilnValue** out) {
  auto value =
      std::unique_ptr<KilnValue>(new KilnValue{std::shared_ptr<Tensor>(std::move(tensor)), {}});
  api::Publish(std::move(value), out);
}

}  // namespace

KilnStatus* KILN_API_CALL CreateTensorAsValue(KilnAllocator* allocator, const int64_t* shape,
                                              size_t shape_len, KilnElementType element_type,
                                              KilnValue** out) {
  return Guard("CreateTensorAsValue", [&] {
    CheckAllocator(allocator, "allocator");
    Shape s = Shape::FromUser("shape", shape, shape_len);
    const DataType type = CheckedElementType(element_type, "element_type");
    CheckedBytes(type, s, "shape");
    CheckOut(out, "out");
    std::unique_ptr<Tensor> t;
    try {
      t = Tensor::Allocate(type, std::move(s), AdaptAllocator(allocator, "allocator"));
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kInvalidArgument) throw;
      ThrowInvalidArgument("allocator", e.what());
    }
    Publish(std::move(t), out);
  });
}

KilnStatus* KILN_API_CALL CreateTensorWithDataAsValue(const KilnMemoryInfo* info, void* data,
                                                      size_t data_len, const int64_t* shape,
                                                      size_t shape_len,
                                                      KilnElementType element_type,
                                                      KilnValue** out) {
  return Guard("CreateTensorWithDataAsValue", [&] {
    const MemoryInfo& memory = Unwrap(info, "info").info;
    if (!memory.IsCpu()) {
      ThrowInvalidArgument("info", std::string("describes ") + memory.name +
                                       " memory; only CPU memory is supported");
    }
    Shape s = Shape::FromUser("shape", shape, shape_len);
    const DataType type = CheckedElementType(element_type, "element_type");
    if (type == DataType::kString) {
      ThrowInvalidArgument("element_type",
                           "a string tensor cannot wrap a caller's buffer; create it with "
                           "CreateTensorAsValue and fill it with FillStringTensor");
    }
    const size_t needed = CheckedBytes(type, s, "shape");
    if (data_len != needed) {
      ThrowInvalidArgument("data_len", std::to_string(data_len) + " bytes, but " + s.ToString() +
                                           " of " + DataTypeName(type) + " needs " +
                                           std::to_string(needed));
    }
    if (data == nullptr && data_len != 0) ThrowInvalidArgument("data", "is NULL");
    CheckOut(out, "out");
    Publish(Tensor::Wrap(type, std::move(s), data, data_len, memory), out);
  });
}

KilnStatus* KILN_API_CALL GetValueType(const KilnValue* value, KilnValueType* out) {
  return Guard("GetValueType", [&] {
    const KilnValue& v = Unwrap(value, "value");
    CheckOut(out, "out");
    if (v.tensor != nullptr) {
      *out = KILN_VALUE_TYPE_TENSOR;
    } else {
      *out = v.other.kind() == Value::Kind::kSequence ? KILN_VALUE_TYPE_SEQUENCE
                                                      : KILN_VALUE_TYPE_OPTIONAL;
    }
  });
}

KilnStatus* KILN_API_CALL IsTensor(const KilnValue* value, int* out) {
  return Guard("IsTensor", [&] {
    const KilnValue& v = Unwrap(value, "value");
    CheckOut(out, "out");
    *out = v.tensor != nullptr ? 1 : 0;
  });
}

KilnStatus* KILN_API_CALL GetTensorMutableData(KilnValue* value, void** out) {
  return Guard("GetTensorMutableData", [&] {
    Tensor& t = UnwrapNumericTensor(value, "value");
    RefuseReadOnly(*value, "value");
    CheckOut(out, "out");
    *out = t.data();
  });
}

KilnStatus* KILN_API_CALL GetTensorData(const KilnValue* value, const void** out) {
  return Guard("GetTensorData", [&] {
    const Tensor& t = UnwrapNumericTensor(value, "value");
    CheckOut(out, "out");
    *out = t.data();
  });
}

KilnStatus* KILN_API_CALL GetTensorSizeInBytes(const KilnValue* value, size_t* out) {
  return Guard("GetTensorSizeInBytes", [&] {
    const Tensor& t = UnwrapNumericTensor(value, "value");
    CheckOut(out, "out");
    *out = t.byte_size();
  });
}

KilnStatus* KILN_API_CALL GetTensorMemoryInfo(const KilnValue* value, const KilnMemoryInfo** out) {
  return Guard("GetTensorMemoryInfo", [&] {
    const Tensor& t = UnwrapTensor(value, "value");
    CheckOut(out, "out");
    *out = InternMemoryInfo(t.memory_info());
  });
}

KilnStatus* KILN_API_CALL GetTensorTypeAndShape(const KilnValue* value,
                                                KilnTensorTypeAndShapeInfo** out) {
  return Guard("GetTensorTypeAndShape", [&] {
    const Tensor& t = UnwrapTensor(value, "value");
    CheckOut(out, "out");
    api::Publish(std::unique_ptr<KilnTensorTypeAndShapeInfo>(
                     new KilnTensorTypeAndShapeInfo{t.type(), t.shape()}),
                 out);
  });
}

KilnStatus* KILN_API_CALL GetTensorElementType(const KilnTensorTypeAndShapeInfo* info,
                                               KilnElementType* out) {
  return Guard("GetTensorElementType", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = static_cast<KilnElementType>(i.type);
  });
}

KilnStatus* KILN_API_CALL GetDimensionsCount(const KilnTensorTypeAndShapeInfo* info, size_t* out) {
  return Guard("GetDimensionsCount", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = i.shape.rank();
  });
}

namespace {

// Checks a caller's array for one entry per dimension.
template <class T>
void CheckRankArray(const T* array, size_t len, size_t rank, const char* argument,
                    const char* len_argument) {
  if (len < rank) {
    ThrowInvalidArgument(len_argument,
                         std::to_string(len) + " is less than the rank, " + std::to_string(rank));
  }
  if (array == nullptr && rank != 0) ThrowInvalidArgument(argument, "is NULL");
}

}  // namespace

KilnStatus* KILN_API_CALL GetDimensions(const KilnTensorTypeAndShapeInfo* info, int64_t* dims,
                                        size_t dims_len) {
  return Guard("GetDimensions", [&] {
    const auto& i = Unwrap(info, "info");
    CheckRankArray(dims, dims_len, i.shape.rank(), "dims", "dims_len");
    std::copy(i.shape.dims().begin(), i.shape.dims().end(), dims);
  });
}

KilnStatus* KILN_API_CALL GetSymbolicDimensions(const KilnTensorTypeAndShapeInfo* info,
                                                const char** names, size_t names_len) {
  return Guard("GetSymbolicDimensions", [&] {
    const auto& i = Unwrap(info, "info");
    CheckRankArray(names, names_len, i.shape.rank(), "names", "names_len");
    for (size_t d = 0; d < i.shape.rank(); ++d) names[d] = i.shape.symbols()[d].c_str();
  });
}

KilnStatus* KILN_API_CALL GetTensorShapeElementCount(const KilnTensorTypeAndShapeInfo* info,
                                                     size_t* out) {
  return Guard("GetTensorShapeElementCount", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    const std::optional<size_t> count = i.shape.ElementCount();
    if (!count) {
      ThrowInvalidArgument(
          "info", "shape " + i.shape.ToString() + " has a dimension not known until run time");
    }
    *out = *count;
  });
}

void KILN_API_CALL ReleaseTensorTypeAndShapeInfo(KilnTensorTypeAndShapeInfo* info) {
  Release(info, "ReleaseTensorTypeAndShapeInfo");
}

void KILN_API_CALL ReleaseValue(KilnValue* value) {
  Release(value, "ReleaseValue");
}

}  // namespace kiln::api
