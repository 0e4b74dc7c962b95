#include "core/allocator.h"

#include <cstring>
#include <new>

namespace kiln {

bool MemoryInfo::IsCpu() const noexcept {
  return std::strcmp(name, kCpuMemoryInfo.name) == 0;
}

bool MemoryInfo::SameMemory(const MemoryInfo& other) const noexcept {
  return std::strcmp(name, other.name) == 0 && id == other.id && mem_type == other.mem_type;
}

void* CpuAlignedAlloc(size_t bytes) noexcept {
  return ::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{kTensorAlignment}, std::nothrow);
}

void CpuAlignedFree(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kTensorAlignment}, std::nothrow);
}

namespace {

class CpuAllocatorImpl final : public Allocator {
 public:
  void* Alloc(size_t bytes) override { return CpuAlignedAlloc(bytes); }
  void Free(void* p) noexcept override { CpuAlignedFree(p); }
  const MemoryInfo& Info() const noexcept override { return kCpuMemoryInfo; }
};

}  // namespace

const std::shared_ptr<Allocator>& CpuAllocator() {
  // Built on first use and never destroyed, so it outlives every static that might use it.
  static const auto* const kAllocator =
      new std::shared_ptr<Allocator>(std::make_shared<CpuAllocatorImpl>());
  return *kAllocator;
}

}  // namespace kiln
