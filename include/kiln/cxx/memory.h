/**
 * @file
 * Kiln C++ wrapper: where memory lives (kiln::MemoryInfo, kiln::ConstMemoryInfo) and who provides
 * it (kiln::Allocator).
 *
 * @code
 *   #include <kiln/cxx/memory.h>
 *
 *   kiln::MemoryInfo cpu = kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR,
 * KILN_MEM_TYPE_DEFAULT); kiln::Allocator allocator = kiln::Allocator::Default(); void* p =
 * allocator.Alloc(256);  // 64-byte aligned allocator.Free(p);
 * @endcode
 */
#ifndef KILN_CXX_MEMORY_H_
#define KILN_CXX_MEMORY_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <kiln/cxx/core.h>

namespace kiln {

/** A borrowed KilnMemoryInfo: valid while the object it came from lives. */
class ConstMemoryInfo {
 public:
  /** Holds NULL. */
  ConstMemoryInfo() noexcept = default;

  /**
   * Borrows a memory info.
   *
   * @param info  The memory info (may be NULL).
   */
  explicit ConstMemoryInfo(const KilnMemoryInfo* info) noexcept : p_(info) {}

  /**
   * The borrowed handle.
   *
   * @return The handle (NULL when empty).
   */
  const KilnMemoryInfo* get() const noexcept { return p_; }

  /**
   * The device name (KilnApi::MemoryInfoGetName).
   *
   * @return A copy of the name, e.g. "Cpu".
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
   */
  std::string name() const {
    const char* name = nullptr;
    ThrowOnError(Api().MemoryInfoGetName(p_, &name));
    return name;
  }

  /**
   * The device id (KilnApi::MemoryInfoGetId).
   *
   * @return The id; 0 for the CPU.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
   */
  int id() const {
    int id = 0;
    ThrowOnError(Api().MemoryInfoGetId(p_, &id));
    return id;
  }

  /**
   * The memory type (KilnApi::MemoryInfoGetMemType).
   *
   * @return The memory type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
   */
  KilnMemType mem_type() const {
    KilnMemType mem_type = KILN_MEM_TYPE_DEFAULT;
    ThrowOnError(Api().MemoryInfoGetMemType(p_, &mem_type));
    return mem_type;
  }

  /**
   * The allocator type (KilnApi::MemoryInfoGetType).
   *
   * @return The allocator type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
   */
  KilnAllocatorType allocator_type() const {
    KilnAllocatorType allocator_type = KILN_INVALID_ALLOCATOR;
    ThrowOnError(Api().MemoryInfoGetType(p_, &allocator_type));
    return allocator_type;
  }

 private:
  const KilnMemoryInfo* p_ = nullptr;
};

/**
 * Whether two memory infos describe the same memory: same device, id and memory type; the
 * allocator type is not compared (KilnApi::MemoryInfoEquals).
 *
 * @param a  A memory info (a MemoryInfo converts to it).
 * @param b  Another memory info.
 * @return true when they describe the same memory.
 * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
 */
inline bool operator==(ConstMemoryInfo a, ConstMemoryInfo b) {
  int equal = 0;
  ThrowOnError(Api().MemoryInfoEquals(a.get(), b.get(), &equal));
  return equal != 0;
}

/**
 * Whether two memory infos describe different memory.
 *
 * @param a  A memory info (a MemoryInfo converts to it).
 * @param b  Another memory info.
 * @return The negation of a == b.
 * @throws Exception  KILN_INVALID_ARGUMENT for an empty or stale handle.
 */
inline bool operator!=(ConstMemoryInfo a, ConstMemoryInfo b) {
  return !(a == b);
}

/** An owned KilnMemoryInfo: where memory lives. */
class MemoryInfo : public Handle<KilnMemoryInfo> {
 public:
  /** Holds NULL. */
  MemoryInfo() noexcept = default;

  /**
   * Takes ownership of a memory info.
   *
   * @param info  The memory info (may be NULL).
   */
  explicit MemoryInfo(KilnMemoryInfo* info) noexcept : Handle(info) {}

  /**
   * Creates a description of CPU memory (KilnApi::CreateCpuMemoryInfo).
   *
   * @param allocator_type  KILN_DEVICE_ALLOCATOR or KILN_ARENA_ALLOCATOR.
   * @param mem_type        Any KilnMemType value.
   * @return The owned memory info.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  static MemoryInfo CreateCpu(KilnAllocatorType allocator_type, KilnMemType mem_type) {
    KilnMemoryInfo* info = nullptr;
    ThrowOnError(Api().CreateCpuMemoryInfo(allocator_type, mem_type, &info));
    return MemoryInfo(info);
  }

  /**
   * A borrowed view of this memory info, valid while this object holds it.
   *
   * @return The view.
   */
  operator ConstMemoryInfo() const noexcept { return ConstMemoryInfo(get()); }  // NOLINT

  /**
   * The device name (KilnApi::MemoryInfoGetName).
   *
   * @return A copy of the name, e.g. "Cpu".
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  std::string name() const { return ConstMemoryInfo(*this).name(); }

  /**
   * The device id (KilnApi::MemoryInfoGetId).
   *
   * @return The id; 0 for the CPU.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  int id() const { return ConstMemoryInfo(*this).id(); }

  /**
   * The memory type (KilnApi::MemoryInfoGetMemType).
   *
   * @return The memory type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnMemType mem_type() const { return ConstMemoryInfo(*this).mem_type(); }

  /**
   * The allocator type (KilnApi::MemoryInfoGetType).
   *
   * @return The allocator type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnAllocatorType allocator_type() const { return ConstMemoryInfo(*this).allocator_type(); }
};

/**
 * A borrowed KilnAllocator: Kiln's own, or one a program supplies. The allocator must outlive
 * this object and everything allocated from it.
 */
class Allocator {
 public:
  /**
   * Borrows an allocator.
   *
   * @param allocator  The allocator (may be NULL, which every call rejects).
   */
  explicit Allocator(KilnAllocator* allocator) noexcept : p_(allocator) {}

  /**
   * Kiln's CPU allocator: 64-byte aligned, thread-safe, valid for the life of the process
   * (KilnApi::GetAllocatorWithDefaultOptions).
   *
   * @return The allocator.
   * @throws Exception  If the library cannot provide it.
   */
  static Allocator Default() {
    KilnAllocator* allocator = nullptr;
    ThrowOnError(Api().GetAllocatorWithDefaultOptions(&allocator));
    return Allocator(allocator);
  }

  /**
   * The borrowed handle.
   *
   * @return The allocator.
   */
  KilnAllocator* get() const noexcept { return p_; }

  /**
   * Allocates memory (KilnApi::AllocatorAlloc).
   *
   * @param size  Bytes to allocate; 0 gives a valid pointer to no usable bytes.
   * @return The memory, to be given back with Free of this allocator.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  void* Alloc(size_t size) const {
    void* p = nullptr;
    ThrowOnError(Api().AllocatorAlloc(p_, size, &p));
    return p;
  }

  /**
   * Frees memory from Alloc (KilnApi::AllocatorFree).
   *
   * @param p  The memory; NULL is accepted and ignored.
   * @throws Exception  KILN_INVALID_ARGUMENT.
   */
  void Free(void* p) const { ThrowOnError(Api().AllocatorFree(p_, p)); }

  /**
   * Describes the memory this allocator returns (KilnApi::AllocatorGetInfo).
   *
   * @return A memory info borrowed from the allocator.
   * @throws Exception  KILN_INVALID_ARGUMENT.
   */
  ConstMemoryInfo Info() const {
    const KilnMemoryInfo* info = nullptr;
    ThrowOnError(Api().AllocatorGetInfo(p_, &info));
    return ConstMemoryInfo(info);
  }

 private:
  KilnAllocator* p_;
};

/// @cond INTERNAL
namespace detail {

// Owns memory Kiln returned through `allocator` (a string or an array) and frees it, also when an
// exception unwinds.
class AllocatedMemory {
 public:
  explicit AllocatedMemory(KilnAllocator* allocator) noexcept : allocator_(allocator) {}
  AllocatedMemory(const AllocatedMemory&) = delete;
  AllocatedMemory& operator=(const AllocatedMemory&) = delete;
  ~AllocatedMemory() {
    if (p_ != nullptr) Api().ReleaseStatus(Api().AllocatorFree(allocator_, p_));
  }
  void** out() noexcept { return &p_; }
  void* get() const noexcept { return p_; }

 private:
  KilnAllocator* allocator_;
  void* p_ = nullptr;
};

// Owns an array of strings Kiln returned through `allocator`, and each string in it.
class AllocatedStrings {
 public:
  explicit AllocatedStrings(KilnAllocator* allocator) noexcept : allocator_(allocator) {}
  AllocatedStrings(const AllocatedStrings&) = delete;
  AllocatedStrings& operator=(const AllocatedStrings&) = delete;
  ~AllocatedStrings() {
    if (strings_ == nullptr) return;
    for (size_t i = 0; i < count_; ++i) {
      Api().ReleaseStatus(Api().AllocatorFree(allocator_, strings_[i]));
    }
    Api().ReleaseStatus(Api().AllocatorFree(allocator_, strings_));
  }
  char*** out() noexcept { return &strings_; }
  size_t* count() noexcept { return &count_; }
  std::vector<std::string> Copy() const {
    return strings_ == nullptr ? std::vector<std::string>()
                               : std::vector<std::string>(strings_, strings_ + count_);
  }

 private:
  KilnAllocator* allocator_;
  char** strings_ = nullptr;
  size_t count_ = 0;
};

// Calls `entry(allocator, char** out)` and returns a copy of the string it allocated.
template <typename F>
std::string AllocatedString(F&& entry) {
  KilnAllocator* allocator = Allocator::Default().get();
  AllocatedMemory s(allocator);
  ThrowOnError(entry(allocator, reinterpret_cast<char**>(s.out())));
  return s.get() == nullptr ? std::string() : std::string(static_cast<const char*>(s.get()));
}

// Calls `entry(allocator, char** out)` and returns a copy of the string it allocated, or
// std::nullopt when it gave NULL.
template <typename F>
std::optional<std::string> OptionalString(F&& entry) {
  KilnAllocator* allocator = Allocator::Default().get();
  AllocatedMemory s(allocator);
  ThrowOnError(entry(allocator, reinterpret_cast<char**>(s.out())));
  if (s.get() == nullptr) return std::nullopt;
  return std::string(static_cast<const char*>(s.get()));
}

}  // namespace detail
/// @endcond

}  // namespace kiln

#endif  // KILN_CXX_MEMORY_H_
