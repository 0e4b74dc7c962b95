#include "core/allocator.h"

#include <cstdint>
#include <cstring>
#include <new>

#include "core/unload.h"

namespace kiln {

bool MemoryInfo::IsCpu() const noexcept {
  return std::strcmp(name, kCpuMemoryInfo.name) == 0;
}

bool MemoryInfo::SameMemory(const MemoryInfo& other) const noexcept {
  return std::strcmp(name, other.name) == 0 && id == other.id && mem_type == other.mem_type;
}

void* CpuAlignedAlloc(size_t bytes) noexcept {
  // No object may exceed PTRDIFF_MAX bytes; past that, the aligned operator new's rounding up to
  // the alignment can even wrap around to a tiny block.
  if (bytes > static_cast<size_t>(PTRDIFF_MAX)) return nullptr;
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
  // Built on first use and not a static object, so it outlives every static that might use it;
  // freed when the library is unloaded (core/unload.h).
  static const auto* const kAllocator =
      KeepUntilUnload(new std::shared_ptr<Allocator>(std::make_shared<CpuAllocatorImpl>()));
  return *kAllocator;
}

}  // namespace kiln
