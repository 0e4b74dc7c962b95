#include "api/allocators.h"

#include <cstring>
#include <string>

#include "api/handles.h"

namespace kiln::api {
namespace {

void* KILN_API_CALL DefaultAlloc(KilnAllocator* /*self*/, size_t size) {
  return CpuAlignedAlloc(size);
}
void KILN_API_CALL DefaultFree(KilnAllocator* /*self*/, void* p) {
  CpuAlignedFree(p);
}
const KilnMemoryInfo* KILN_API_CALL DefaultInfo(const KilnAllocator* /*self*/) {
  try {
    return InternMemoryInfo(kCpuMemoryInfo);
  } catch (...) {
    return nullptr;
  }
}

// Constant-initialised and trivially destructible: safe as a static.
KilnAllocator g_default_allocator{KILN_API_VERSION, &DefaultAlloc, &DefaultFree, &DefaultInfo};

class UserAllocator final : public Allocator {
 public:
  UserAllocator(KilnAllocator* allocator, const MemoryInfo& info)
      : allocator_(allocator), info_(info) {}
  void* Alloc(size_t bytes) override { return allocator_->Alloc(allocator_, bytes); }
  void Free(void* p) noexcept override {
    try {
      allocator_->Free(allocator_, p);
    } catch (...) {
      // Free has no way to report; a C++ caller's callback that throws must not abort.
      LogProcess(LogLevel::kError, "kiln.api", KILN_LOCATION,
                 "a caller's KilnAllocator Free callback threw an exception; ignored");
    }
  }
  const MemoryInfo& Info() const noexcept override { return info_; }

 private:
  KilnAllocator* allocator_;
  MemoryInfo info_;
};

}  // namespace

KilnAllocator* DefaultAllocator() noexcept {
  return &g_default_allocator;
}

void CheckAllocator(const KilnAllocator* allocator, const char* argument) {
  if (allocator == nullptr) ThrowInvalidArgument(argument, "is NULL");
  if (const auto kind = registry::Find(allocator)) {
    ThrowInvalidArgument(argument,
                         std::string("is a ") + HandleKindName(*kind) + ", not a KilnAllocator");
  }
  if (allocator->version < 1) {
    ThrowInvalidArgument(argument, "has version 0; set it to KILN_API_VERSION");
  }
  if (allocator->Alloc == nullptr || allocator->Free == nullptr) {
    ThrowInvalidArgument(argument, "has a NULL Alloc or Free callback");
  }
}

const KilnMemoryInfo* AllocatorInfo(const KilnAllocator* allocator, const char* argument) {
  if (allocator == &g_default_allocator || allocator->Info == nullptr) {
    return InternMemoryInfo(kCpuMemoryInfo);
  }
  const KilnMemoryInfo* info = allocator->Info(allocator);
  if (info == nullptr) ThrowInvalidArgument(argument, "has an Info callback that returned NULL");
  if (registry::Find(info) != HandleKind::kMemoryInfo) {
    ThrowInvalidArgument(argument,
                         "has an Info callback that returned something other than a live "
                         "KilnMemoryInfo");
  }
  return info;
}

std::shared_ptr<Allocator> AdaptAllocator(KilnAllocator* allocator, const char* argument) {
  if (allocator == &g_default_allocator) return CpuAllocator();
  const KilnMemoryInfo* info = AllocatorInfo(allocator, argument);
  if (!info->info.IsCpu()) {
    ThrowInvalidArgument(argument, std::string("allocates ") + info->info.name +
                                       " memory; only CPU memory is supported");
  }
  return std::make_shared<UserAllocator>(allocator, info->info);
}

char* CopyString(KilnAllocator* allocator, const std::string& text) {
  auto* p = static_cast<char*>(allocator->Alloc(allocator, text.size() + 1));
  if (p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory,
                "the allocator could not provide " + std::to_string(text.size() + 1) + " bytes");
  }
  std::memcpy(p, text.c_str(), text.size() + 1);
  return p;
}

}  // namespace kiln::api
