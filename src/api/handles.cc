#include "api/handles.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "core/unload.h"

namespace kiln::api {
namespace {

struct Entry {
  HandleKind kind;
  bool permanent;
};

// Keys are addresses disguised by an XOR, so that the registry does not count as a reference to
// the handles: LeakSanitizer still reports a handle nobody released.
using Key = uintptr_t;
constexpr Key kDisguise = 0xA5A5A5A5A5A5A5A5u;
Key KeyOf(const void* handle) {
  return reinterpret_cast<Key>(handle) ^ kDisguise;
}

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<Key, Entry> handles;
};

// Constant-initialised, trivially destructible.
std::atomic<Registry*> instance{nullptr};

// Built on first use and not destroyed by a static destructor (handles may be released from
// static destructors); freed when the library is unloaded (core/unload.h), after which a handle
// released late is only unknown. Returns nullptr when it cannot be built yet (out of memory); a
// later call tries again.
Registry* GetRegistry(bool create) noexcept {
  Registry* r = instance.load(std::memory_order_acquire);
  if (r != nullptr || !create) return r;
  static std::mutex build_mutex;
  std::lock_guard<std::mutex> lock(build_mutex);
  r = instance.load(std::memory_order_relaxed);
  if (r == nullptr) {
    try {
      r = new Registry();
      r->handles.reserve(64);
    } catch (...) {
      delete r;
      return nullptr;
    }
    instance.store(r, std::memory_order_release);
    AtUnload(
        [](void* p) {
          instance.store(nullptr, std::memory_order_release);
          delete static_cast<Registry*>(p);
        },
        r);
  }
  return r;
}

}  // namespace

const char* HandleKindName(HandleKind kind) noexcept {
  switch (kind) {
    case HandleKind::kStatus:
      return "KilnStatus";
    case HandleKind::kEnv:
      return "KilnEnv";
    case HandleKind::kMemoryInfo:
      return "KilnMemoryInfo";
    case HandleKind::kValue:
      return "KilnValue";
    case HandleKind::kTensorTypeAndShapeInfo:
      return "KilnTensorTypeAndShapeInfo";
    case HandleKind::kSessionOptions:
      return "KilnSessionOptions";
    case HandleKind::kSession:
      return "KilnSession";
    case HandleKind::kRunOptions:
      return "KilnRunOptions";
    case HandleKind::kIoBinding:
      return "KilnIoBinding";
    case HandleKind::kCustomOpRegistry:
      return "KilnCustomOpRegistry";
    case HandleKind::kModel:
      return "KilnModel";
    case HandleKind::kGraph:
      return "KilnGraph";
    case HandleKind::kNode:
      return "KilnNode";
    case HandleKind::kValueInfo:
      return "KilnValueInfo";
    case HandleKind::kAttribute:
      return "KilnAttribute";
    case HandleKind::kTypeInfo:
      return "KilnTypeInfo";
    case HandleKind::kKernelInfo:
      return "KilnKernelInfo";
    case HandleKind::kKernelContext:
      return "KilnKernelContext";
    case HandleKind::kShapeInferContext:
      return "KilnShapeInferContext";
  }
  return "unknown handle";
}

namespace registry {

void Add(const void* handle, HandleKind kind, bool permanent) {
  Registry* r = GetRegistry(true);
  if (r == nullptr) throw std::bad_alloc();
  std::unique_lock<std::shared_mutex> lock(r->mutex);
  r->handles[KeyOf(handle)] = Entry{kind, permanent};
}

std::optional<HandleKind> Find(const void* handle) noexcept {
  Registry* r = GetRegistry(false);
  if (r == nullptr) return std::nullopt;
  std::shared_lock<std::shared_mutex> lock(r->mutex);
  auto it = r->handles.find(KeyOf(handle));
  if (it == r->handles.end()) return std::nullopt;
  return it->second.kind;
}

bool Remove(const void* handle, HandleKind kind) noexcept {
  Registry* r = GetRegistry(false);
  if (r == nullptr) return false;
  std::unique_lock<std::shared_mutex> lock(r->mutex);
  auto it = r->handles.find(KeyOf(handle));
  if (it == r->handles.end() || it->second.kind != kind || it->second.permanent) return false;
  r->handles.erase(it);
  return true;
}

bool RemoveLent(const void* handle, HandleKind kind) noexcept {
  Registry* r = GetRegistry(false);
  if (r == nullptr) return false;
  std::unique_lock<std::shared_mutex> lock(r->mutex);
  auto it = r->handles.find(KeyOf(handle));
  if (it == r->handles.end() || it->second.kind != kind) return false;
  r->handles.erase(it);
  return true;
}

bool MakeBorrowed(const void* handle, HandleKind kind) noexcept {
  Registry* r = GetRegistry(false);
  if (r == nullptr) return false;
  std::unique_lock<std::shared_mutex> lock(r->mutex);
  auto it = r->handles.find(KeyOf(handle));
  if (it == r->handles.end() || it->second.kind != kind) return false;
  it->second.permanent = true;
  return true;
}

}  // namespace registry

void CheckHandle(const void* handle, HandleKind kind, const char* argument) {
  if (handle == nullptr) ThrowInvalidArgument(argument, "is NULL");
  const std::optional<HandleKind> found = registry::Find(handle);
  if (!found) {
    ThrowInvalidArgument(argument, std::string("is not a live ") + HandleKindName(kind) +
                                       " (already released, or not made by Kiln)");
  }
  if (*found != kind) {
    ThrowInvalidArgument(argument, std::string("is a ") + HandleKindName(*found) + ", not a " +
                                       HandleKindName(kind));
  }
}

void RefuseLent(const KilnValue& value, const char* argument) {
  if (value.lent) {
    ThrowInvalidArgument(argument,
                         "is lent to a custom op's Compute for that call only and "
                         "cannot be kept beyond it (copy it into a value of your own)");
  }
}

void RefuseReadOnly(const KilnValue& value, const char* argument) {
  if (value.read_only) {
    ThrowInvalidArgument(argument,
                         "is a model's constant, which cannot be changed (read it with "
                         "GetTensorData; copy it into a value of your own to change it)");
  }
}

void LogIgnoredRelease(const char* entry, const void* handle, HandleKind kind) noexcept {
  const std::optional<HandleKind> found = registry::Find(handle);
  const char* what = !found           ? "is not a live handle (released twice?)"
                     : *found != kind ? "is a handle of another type"
                                      : "is borrowed, not owned by the caller";
  char message[256];
  std::snprintf(message, sizeof message, "%s: argument %p %s; ignored", entry, handle, what);
  LogProcess(LogLevel::kWarning, "kiln.api", KILN_LOCATION, message);
}

const KilnMemoryInfo* InternMemoryInfo(const MemoryInfo& info) {
  struct Interned {
    std::mutex mutex;
    std::deque<KilnMemoryInfo> infos;  // a deque never moves its elements
  };
  static auto* const kInterned = KeepUntilUnload(new Interned());
  std::lock_guard<std::mutex> lock(kInterned->mutex);
  for (const KilnMemoryInfo& i : kInterned->infos) {
    if (i.info.SameMemory(info) && i.info.allocator_type == info.allocator_type) return &i;
  }
  kInterned->infos.push_back(KilnMemoryInfo{info});
  const KilnMemoryInfo* added = &kInterned->infos.back();
  try {
    registry::Add(added, HandleKind::kMemoryInfo, /*permanent=*/true);
  } catch (...) {
    kInterned->infos.pop_back();
    throw;
  }
  return added;
}

}  // namespace kiln::api
