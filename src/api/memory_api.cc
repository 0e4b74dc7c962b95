// Entries: memory infos (CreateCpuMemoryInfo … ReleaseMemoryInfo) and allocators
// (GetAllocatorWithDefaultOptions, AllocatorAlloc, AllocatorFree, AllocatorGetInfo).
#include <memory>
#include <string>

#include "api/allocators.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"

namespace kiln::api {

KilnStatus* KILN_API_CALL CreateCpuMemoryInfo(KilnAllocatorType allocator_type,
                                              KilnMemType mem_type, KilnMemoryInfo** out) {
  return Guard("CreateCpuMemoryInfo", [&] {
    const int at = EnumValue(allocator_type);
    const int mt = EnumValue(mem_type);
    if (at != KILN_DEVICE_ALLOCATOR && at != KILN_ARENA_ALLOCATOR) {
      ThrowInvalidArgument("allocator_type", std::to_string(at) +
                                                 " is not KILN_DEVICE_ALLOCATOR or "
                                                 "KILN_ARENA_ALLOCATOR");
    }
    if (mt != KILN_MEM_TYPE_CPU_INPUT && mt != KILN_MEM_TYPE_CPU_OUTPUT &&
        mt != KILN_MEM_TYPE_DEFAULT) {
      ThrowInvalidArgument("mem_type", std::to_string(mt) + " is not a KilnMemType");
    }
    CheckOut(out, "out");
    MemoryInfo info = kCpuMemoryInfo;
    info.allocator_type = static_cast<AllocatorType>(at);
    info.mem_type = static_cast<MemType>(mt);
    Publish(std::unique_ptr<KilnMemoryInfo>(new KilnMemoryInfo{info}), out);
  });
}

KilnStatus* KILN_API_CALL MemoryInfoGetName(const KilnMemoryInfo* info, const char** out) {
  return Guard("MemoryInfoGetName", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = i.info.name;
  });
}

KilnStatus* KILN_API_CALL MemoryInfoGetId(const KilnMemoryInfo* info, int* out) {
  return Guard("MemoryInfoGetId", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = i.info.id;
  });
}

KilnStatus* KILN_API_CALL MemoryInfoGetMemType(const KilnMemoryInfo* info, KilnMemType* out) {
  return Guard("MemoryInfoGetMemType", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = static_cast<KilnMemType>(i.info.mem_type);
  });
}

KilnStatus* KILN_API_CALL MemoryInfoGetType(const KilnMemoryInfo* info, KilnAllocatorType* out) {
  return Guard("MemoryInfoGetType", [&] {
    const auto& i = Unwrap(info, "info");
    CheckOut(out, "out");
    *out = static_cast<KilnAllocatorType>(i.info.allocator_type);
  });
}

KilnStatus* KILN_API_CALL MemoryInfoEquals(const KilnMemoryInfo* a, const KilnMemoryInfo* b,
                                           int* out) {
  return Guard("MemoryInfoEquals", [&] {
    const auto& ia = Unwrap(a, "a");
    const auto& ib = Unwrap(b, "b");
    CheckOut(out, "out");
    *out = ia.info.SameMemory(ib.info) ? 1 : 0;
  });
}

void KILN_API_CALL ReleaseMemoryInfo(KilnMemoryInfo* info) {
  Release(info, "ReleaseMemoryInfo");
}

KilnStatus* KILN_API_CALL GetAllocatorWithDefaultOptions(KilnAllocator** out) {
  return Guard("GetAllocatorWithDefaultOptions", [&] {
    CheckOut(out, "out");
    *out = DefaultAllocator();
  });
}

KilnStatus* KILN_API_CALL AllocatorAlloc(KilnAllocator* allocator, size_t size, void** out) {
  return Guard("AllocatorAlloc", [&] {
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    void* p = allocator->Alloc(allocator, size);
    if (p == nullptr) {
      throw Error(ErrorCode::kOutOfMemory,
                  "the allocator could not provide " + std::to_string(size) + " bytes");
    }
    *out = p;
  });
}

KilnStatus* KILN_API_CALL AllocatorFree(KilnAllocator* allocator, void* p) {
  return Guard("AllocatorFree", [&] {
    CheckAllocator(allocator, "allocator");
    if (p != nullptr) allocator->Free(allocator, p);
  });
}

KilnStatus* KILN_API_CALL AllocatorGetInfo(const KilnAllocator* allocator,
                                           const KilnMemoryInfo** out) {
  return Guard("AllocatorGetInfo", [&] {
    CheckAllocator(allocator, "allocator");
    CheckOut(out, "out");
    *out = AllocatorInfo(allocator, "allocator");
  });
}

}  // namespace kiln::api
