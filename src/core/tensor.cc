#include "core/tensor.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#include "core/error.h"

namespace kiln {
namespace {

struct Sizes {
  size_t count;
  size_t bytes;
};

Sizes CheckedSizes(DataType type, const Shape& shape) {
  if (!IsKnownDataType(static_cast<int32_t>(type))) {
    throw Error(ErrorCode::kInvalidArgument,
                "unknown element type " + std::to_string(static_cast<int32_t>(type)));
  }
  const std::optional<size_t> count = shape.ElementCount();
  if (!count) {
    throw Error(ErrorCode::kInvalidArgument,
                "shape " + shape.ToString() + " has an unknown dimension or overflows size_t");
  }
  const std::optional<size_t> bytes = StorageBytes(type, *count);
  if (!bytes) {
    throw Error(ErrorCode::kInvalidArgument, std::to_string(*count) + " elements of " +
                                                 DataTypeName(type) + " overflow size_t bytes");
  }
  return {*count, *bytes};
}

}  // namespace

Tensor::Tensor(DataType type, Shape shape, size_t count, size_t bytes, const MemoryInfo& info)
    : type_(type), shape_(std::move(shape)), count_(count), bytes_(bytes), info_(info) {}

std::unique_ptr<Tensor> Tensor::Allocate(DataType type, Shape shape,
                                         std::shared_ptr<Allocator> allocator) {
  return AllocateImpl(type, std::move(shape), std::move(allocator), true);
}

std::unique_ptr<Tensor> Tensor::AllocateForOverwrite(DataType type, Shape shape,
                                                     std::shared_ptr<Allocator> allocator) {
  return AllocateImpl(type, std::move(shape), std::move(allocator), false);
}

std::unique_ptr<Tensor> Tensor::AllocateImpl(DataType type, Shape shape,
                                             std::shared_ptr<Allocator> allocator, bool zero) {
  const Sizes sizes = CheckedSizes(type, shape);
  const MemoryInfo info = allocator->Info();
  std::unique_ptr<Tensor> t(new Tensor(type, std::move(shape), sizes.count, sizes.bytes, info));
  if (sizes.bytes == 0) return t;
  void* p = allocator->Alloc(sizes.bytes);
  if (p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory,
                "the allocator could not provide " + std::to_string(sizes.bytes) + " bytes");
  }
  if (reinterpret_cast<uintptr_t>(p) % kTensorAlignment != 0) {
    allocator->Free(p);
    throw Error(ErrorCode::kInvalidArgument,
                "the allocator returned memory that is not 64-byte aligned");
  }
  if (type == DataType::kString) {
    auto* s = static_cast<std::string*>(p);
    for (size_t i = 0; i < sizes.count; ++i) new (s + i) std::string();  // noexcept
  } else if (zero) {
    std::memset(p, 0, sizes.bytes);
  }
  t->data_ = p;
  t->owner_ = std::move(allocator);
  return t;
}

std::unique_ptr<Tensor> Tensor::Wrap(DataType type, Shape shape, void* data, size_t bytes,
                                     const MemoryInfo& info) {
  if (type == DataType::kString) {
    throw Error(ErrorCode::kInvalidArgument,
                "a string tensor cannot wrap a caller's buffer; allocate it and fill its strings");
  }
  const Sizes sizes = CheckedSizes(type, shape);
  if (bytes != sizes.bytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "the buffer holds " + std::to_string(bytes) + " bytes but " + shape.ToString() +
                    " of " + DataTypeName(type) + " needs " + std::to_string(sizes.bytes));
  }
  if (data == nullptr && bytes != 0) {
    throw Error(ErrorCode::kInvalidArgument, "the buffer is NULL");
  }
  std::unique_ptr<Tensor> t(new Tensor(type, std::move(shape), sizes.count, sizes.bytes, info));
  t->data_ = data;
  return t;
}

Tensor::~Tensor() {
  if (owner_ == nullptr || data_ == nullptr) return;
  if (type_ == DataType::kString) {
    std::string* s = strings();
    for (size_t i = 0; i < count_; ++i) s[i].~basic_string();
  }
  owner_->Free(data_);
}

}  // namespace kiln
