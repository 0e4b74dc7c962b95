// A dense tensor: element type, shape and a buffer that is either Kiln's (from an Allocator) or
// the caller's (wrapped, never freed by Kiln). String tensors hold std::string elements.
//
//   auto t = kiln::Tensor::Allocate(kiln::DataType::kFloat, kiln::Shape({2, 3}),
//                                   kiln::CpuAllocator());
//   float* p = static_cast<float*>(t->data());
#ifndef KILN_CORE_TENSOR_H_
#define KILN_CORE_TENSOR_H_

#include <cstddef>
#include <memory>
#include <string>

#include "core/allocator.h"
#include "core/data_type.h"
#include "core/shape.h"

namespace kiln {

class Tensor {
 public:
  // Allocates zero-filled storage (empty strings for kString) from `allocator`, which must return
  // 64-byte aligned memory. Throws kInvalidArgument for an unknown type, an unknown dimension or a
  // size that overflows, kOutOfMemory when the allocator returns nullptr.
  static std::unique_ptr<Tensor> Allocate(DataType type, Shape shape,
                                          std::shared_ptr<Allocator> allocator);
  // Like Allocate, but the storage of a non-string tensor is left uninitialised, for a caller
  // that writes all of it at once (the loader copying an initializer's bytes).
  static std::unique_ptr<Tensor> AllocateForOverwrite(DataType type, Shape shape,
                                                      std::shared_ptr<Allocator> allocator);

  // Wraps `data` (not copied, not freed). `bytes` must equal StorageBytes(type, elements); kString
  // cannot be wrapped.
  static std::unique_ptr<Tensor> Wrap(DataType type, Shape shape, void* data, size_t bytes,
                                      const MemoryInfo& info);

  ~Tensor();
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  DataType type() const noexcept { return type_; }
  const Shape& shape() const noexcept { return shape_; }
  size_t element_count() const noexcept { return count_; }
  // Bytes of storage (packed for sub-byte types); for kString, of the std::string objects.
  size_t byte_size() const noexcept { return bytes_; }
  const MemoryInfo& memory_info() const noexcept { return info_; }

  void* data() noexcept { return data_; }
  const void* data() const noexcept { return data_; }
  // Only for kString tensors.
  std::string* strings() noexcept { return static_cast<std::string*>(data_); }
  const std::string* strings() const noexcept { return static_cast<const std::string*>(data_); }

 private:
  Tensor(DataType type, Shape shape, size_t count, size_t bytes, const MemoryInfo& info);
  static std::unique_ptr<Tensor> AllocateImpl(DataType type, Shape shape,
                                              std::shared_ptr<Allocator> allocator, bool zero);

  DataType type_;
  Shape shape_;
  size_t count_;
  size_t bytes_;
  MemoryInfo info_;
  void* data_ = nullptr;
  std::shared_ptr<Allocator> owner_;  // null when the buffer is the caller's
};

}  // namespace kiln

#endif  // KILN_CORE_TENSOR_H_
