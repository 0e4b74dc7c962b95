// Where memory lives (MemoryInfo) and who hands it out (Allocator).
//
//   std::shared_ptr<kiln::Allocator> cpu = kiln::CpuAllocator();
//   void* p = cpu->Alloc(256);  // 64-byte aligned, nullptr when out of memory
//   cpu->Free(p);
#ifndef KILN_CORE_ALLOCATOR_H_
#define KILN_CORE_ALLOCATOR_H_

#include <cstddef>
#include <memory>

namespace kiln {

// Every tensor buffer Kiln allocates starts on this boundary.
inline constexpr size_t kTensorAlignment = 64;

// Same values as the C ABI's KilnMemType and KilnAllocatorType.
enum class MemType : int { kCpuInput = -2, kCpuOutput = -1, kDefault = 0 };
enum class AllocatorType : int { kInvalid = -1, kDevice = 0, kArena = 1 };

// A plain value (trivially destructible, so a constant one can be a static).
struct MemoryInfo {
  const char* name = "Cpu";  // a device name with static storage
  int id = 0;
  MemType mem_type = MemType::kDefault;
  AllocatorType allocator_type = AllocatorType::kDevice;

  bool IsCpu() const noexcept;
  // Same device, id and memory type; the allocator type does not matter.
  bool SameMemory(const MemoryInfo& other) const noexcept;
};

inline constexpr MemoryInfo kCpuMemoryInfo{};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns nullptr when out of memory. `bytes` may be 0.
  virtual void* Alloc(size_t bytes) = 0;
  virtual void Free(void* p) noexcept = 0;
  virtual const MemoryInfo& Info() const noexcept = 0;
};

// Kiln's process-wide CPU allocator: 64-byte aligned, thread-safe, never destroyed.
const std::shared_ptr<Allocator>& CpuAllocator();

// The raw functions behind CpuAllocator, for callers that need plain function pointers.
void* CpuAlignedAlloc(size_t bytes) noexcept;
void CpuAlignedFree(void* p) noexcept;

}  // namespace kiln

#endif  // KILN_CORE_ALLOCATOR_H_
