/**
 * @file
 * Kiln — the C++ wrapper over the C ABI (header-only, C++17 and later).
 *
 * Every call goes through the KilnApi table; a failed call throws kiln::Exception carrying the
 * KilnErrorCode and the library's message, and every object is a move-only RAII type:
 *
 * @code
 *   #include <kiln/kiln_cxx_api.h>
 *
 *   try {
 *     kiln::Env env(KILN_LOGGING_LEVEL_WARNING, "my-app");
 *     std::vector<float> data = {0, 1, 2, 3, 4, 5};
 *     kiln::MemoryInfo cpu =
 *         kiln::MemoryInfo::CreateCpu(KILN_DEVICE_ALLOCATOR, KILN_MEM_TYPE_DEFAULT);
 *     kiln::Value tensor = kiln::Value::CreateTensor(cpu, data.data(), data.size(), {2, 3});
 *     float* p = tensor.data<float>();  // the same memory as data
 *     std::vector<int64_t> shape = tensor.type_and_shape().shape();  // {2, 3}
 *   } catch (const kiln::Exception& e) {
 *     std::cerr << "kiln: " << e.what() << " (code " << e.code() << ")\n";
 *   }
 * @endcode
 *
 * The contract:
 * - kiln::Api() is the table every call uses. It is fetched on first use with
 *   KilnGetApiBase()->GetApi(KILN_API_VERSION). A program that defines KILN_API_MANUAL_INIT before
 *   including this header (in every translation unit that includes it) never references
 *   KilnGetApiBase and must call kiln::InitApi first, e.g. with the table a custom-operator library
 *   receives at registration.
 * - A call that fails throws kiln::Exception; the C status is released first, and no object is
 *   made from the out-parameter of a failed call.
 * - Status, Env, MemoryInfo, TensorTypeAndShapeInfo and Value own their handle: they release it
 *   when destroyed, are movable but not copyable, and a moved-from object holds NULL. get() lends
 *   the raw handle; release() gives up ownership of it.
 * - ConstMemoryInfo and Allocator only borrow their handle; they are valid while its owner lives.
 * - Strings are UTF-8, in and out.
 */
#ifndef KILN_KILN_CXX_API_H_
#define KILN_KILN_CXX_API_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <kiln/kiln_c_api.h>

/** The C++ wrapper over Kiln's C ABI. */
namespace kiln {

/** An error reported by Kiln (or by this wrapper): a code and a UTF-8 message. */
class Exception : public std::exception {
 public:
  /**
   * Makes an exception.
   *
   * @param code     The error code.
   * @param message  The UTF-8 message, copied; NULL is taken as "".
   */
  Exception(KilnErrorCode code, const char* message)
      : code_(code),
        message_(message == nullptr ? "" : message) {}  // NOLINT(bugprone-throw-keyword-missing)

  /**
   * Makes an exception.
   *
   * @param code     The error code.
   * @param message  The UTF-8 message, copied.
   */
  Exception(KilnErrorCode code, const std::string& message)
      : code_(code), message_(message) {}  // NOLINT(bugprone-throw-keyword-missing)

  /**
   * The error code.
   *
   * @return The code the failing call reported.
   */
  KilnErrorCode code() const noexcept { return code_; }

  /**
   * The message: it names the entry that failed and the argument at fault.
   *
   * @return A UTF-8 string owned by the exception.
   */
  const char* what() const noexcept override { return message_.what(); }

 private:
  KilnErrorCode code_;
  std::runtime_error message_;  // holds the text; unlike std::string, copying it cannot throw
};

/// @cond INTERNAL
namespace detail {

// The table kiln::Api() returns; NULL until it is fetched or set by InitApi. Constant-initialised,
// so it has no constructor or destructor to run.
inline std::atomic<const KilnApi*>& ApiSlot() noexcept {
  static std::atomic<const KilnApi*> api{nullptr};
  return api;
}

}  // namespace detail
/// @endcond

/**
 * Sets the table every call of this wrapper uses. Required before anything else when
 * KILN_API_MANUAL_INIT is defined; otherwise it replaces the table fetched on first use. The
 * table must stay valid for the life of the process.
 *
 * @param api  The table, e.g. KilnGetApiBase()->GetApi(KILN_API_VERSION).
 * @throws Exception  KILN_INVALID_ARGUMENT when @p api is NULL.
 */
inline void InitApi(const KilnApi* api) {
  if (api == nullptr) {
    throw Exception(KILN_INVALID_ARGUMENT, "kiln::InitApi: argument 'api' is NULL");
  }
  detail::ApiSlot().store(api, std::memory_order_release);
}

/**
 * The table every call of this wrapper uses. Thread-safe.
 *
 * @return The table set by InitApi or, without KILN_API_MANUAL_INIT, fetched on first use.
 * @throws Exception  KILN_FAIL when KILN_API_MANUAL_INIT is defined and InitApi has not been
 *                    called, or when the library does not provide KILN_API_VERSION.
 */
inline const KilnApi& Api() {
  const KilnApi* api = detail::ApiSlot().load(std::memory_order_acquire);
  if (api != nullptr) return *api;
#ifdef KILN_API_MANUAL_INIT
  throw Exception(
      KILN_FAIL,
      "kiln::Api: KILN_API_MANUAL_INIT is defined and kiln::InitApi has not been called");
#else
  api = KilnGetApiBase()->GetApi(KILN_API_VERSION);
  if (api == nullptr) {
    throw Exception(KILN_FAIL, "kiln::Api: this libkiln does not provide API version " +
                                   std::to_string(KILN_API_VERSION) +
                                   " (its log says which it provides)");
  }
  // Threads racing here store the same table.
  detail::ApiSlot().store(api, std::memory_order_release);
  return *api;
#endif
}

/// @cond INTERNAL
namespace detail {

// Release functions for Handle<T>. Called only with a non-NULL handle, which Kiln made through
// Api(), so Api() cannot throw here.
inline void Release(KilnStatus* p) noexcept {
  Api().ReleaseStatus(p);
}
inline void Release(KilnEnv* p) noexcept {
  Api().ReleaseEnv(p);
}
inline void Release(KilnMemoryInfo* p) noexcept {
  Api().ReleaseMemoryInfo(p);
}
inline void Release(KilnTensorTypeAndShapeInfo* p) noexcept {
  Api().ReleaseTensorTypeAndShapeInfo(p);
}
inline void Release(KilnValue* p) noexcept {
  Api().ReleaseValue(p);
}

}  // namespace detail
/// @endcond

/**
 * The ownership every RAII type of this wrapper shares: it holds one handle, releases it when
 * destroyed, and can be moved but not copied.
 *
 * @tparam T  The C handle type (KilnStatus, KilnEnv, KilnMemoryInfo, KilnTensorTypeAndShapeInfo
 *            or KilnValue).
 */
template <typename T>
class Handle {
 public:
  /**
   * Not copyable: a handle has one owner.
   *
   * @param other  Not used.
   */
  Handle(const Handle& other) = delete;

  /**
   * Not copyable: a handle has one owner.
   *
   * @param other  Not used.
   * @return Not used.
   */
  Handle& operator=(const Handle& other) = delete;

  /**
   * Takes the handle of @p other, which is left holding NULL.
   *
   * @param other  The object to move from.
   */
  Handle(Handle&& other) noexcept : p_(other.p_) { other.p_ = nullptr; }

  /**
   * Releases the handle held, then takes the handle of @p other, which is left holding NULL.
   *
   * @param other  The object to move from.
   * @return This object.
   */
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      Reset(other.p_);
      other.p_ = nullptr;
    }
    return *this;
  }

  /**
   * Lends the handle, for calls through the C API.
   *
   * @return The handle (NULL when empty), still owned by this object.
   */
  T* get() const noexcept { return p_; }

  /**
   * Gives up ownership of the handle; this object is left holding NULL.
   *
   * @return The handle (NULL when empty), now owned by the caller.
   */
  T* release() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }

  /**
   * Whether a handle is held.
   *
   * @return true when the handle is not NULL.
   */
  explicit operator bool() const noexcept { return p_ != nullptr; }

 protected:
  /** Holds NULL. */
  Handle() noexcept = default;

  /**
   * Takes ownership of a handle.
   *
   * @param p  The handle (may be NULL); it must have been made through Api().
   */
  explicit Handle(T* p) noexcept : p_(p) {}

  /** Releases the handle held, if any. */
  ~Handle() { Reset(nullptr); }

  /**
   * Releases the handle held, if any, and takes ownership of @p p.
   *
   * @param p  The new handle (may be NULL).
   */
  void Reset(T* p) noexcept {
    if (p_ != nullptr) detail::Release(p_);
    p_ = p;
  }

 private:
  T* p_ = nullptr;
};

/** An owned KilnStatus: NULL means success. */
class Status : public Handle<KilnStatus> {
 public:
  /** A success status (holds NULL). */
  Status() noexcept = default;

  /**
   * Takes ownership of a status.
   *
   * @param status  The status; NULL means success.
   */
  explicit Status(KilnStatus* status) noexcept : Handle(status) {}

  /**
   * Creates a status with KilnApi::CreateStatus, e.g. for a callback to report an error.
   *
   * @param code     The error code.
   * @param message  The UTF-8 message, copied up to its first NUL byte.
   */
  Status(KilnErrorCode code, const std::string& message)
      : Handle(Api().CreateStatus(code, message.c_str())) {}

  /**
   * Creates a status carrying the code and message of an exception.
   *
   * @param e  The exception.
   */
  explicit Status(const Exception& e) : Handle(Api().CreateStatus(e.code(), e.what())) {}

  /**
   * Whether this is a success status.
   *
   * @return true when no status is held.
   */
  bool ok() const noexcept { return get() == nullptr; }

  /**
   * The error code.
   *
   * @return KILN_OK for success, else the status's code.
   */
  KilnErrorCode code() const { return ok() ? KILN_OK : Api().GetErrorCode(get()); }

  /**
   * The message.
   *
   * @return A copy of the UTF-8 message; "" for success.
   */
  std::string message() const { return ok() ? std::string() : Api().GetErrorMessage(get()); }
};

/**
 * Throws the error a C entry reported, if any. The status is released in every case, also when
 * building the exception fails.
 *
 * @param status  What a KilnApi entry returned; the function takes ownership of it.
 * @throws Exception  With the status's code and message, when @p status is not NULL.
 */
inline void ThrowOnError(KilnStatus* status) {
  if (status == nullptr) return;
  const Status owned(status);
  throw Exception(owned.code(), Api().GetErrorMessage(owned.get()));
}

/** An owned KilnEnv: process-level state, chiefly where log messages go. */
class Env : public Handle<KilnEnv> {
 public:
  /** Holds NULL. */
  Env() noexcept = default;

  /**
   * Takes ownership of an Env.
   *
   * @param env  The Env (may be NULL).
   */
  explicit Env(KilnEnv* env) noexcept : Handle(env) {}

  /**
   * Creates an Env that logs to standard error (KilnApi::CreateEnv).
   *
   * @param min_severity  Messages below this level are dropped.
   * @param log_id        UTF-8 name carried by every message (copied); must not be NULL.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  Env(KilnLoggingLevel min_severity, const char* log_id) {
    KilnEnv* env = nullptr;
    ThrowOnError(Api().CreateEnv(min_severity, log_id, &env));
    Reset(env);
  }

  /**
   * Creates an Env that sends its log messages to a callback (KilnApi::CreateEnvWithCustomLogger).
   * The first live Env also receives messages tied to no Env, such as GetApi's.
   *
   * @param logging_function  The callback; must not be NULL. It may be called from any thread and
   *                          must not call back into Kiln.
   * @param logger_param      Passed to every call of the callback; may be NULL.
   * @param min_severity      Messages below this level are dropped.
   * @param log_id            UTF-8 name carried by every message (copied); must not be NULL.
   * @throws Exception  KILN_INVALID_ARGUMENT, KILN_OUT_OF_MEMORY.
   */
  Env(KilnLoggingFunction logging_function, void* logger_param, KilnLoggingLevel min_severity,
      const char* log_id) {
    KilnEnv* env = nullptr;
    ThrowOnError(Api().CreateEnvWithCustomLogger(logging_function, logger_param, min_severity,
                                                 log_id, &env));
    Reset(env);
  }
};

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

/** An owned KilnTensorTypeAndShapeInfo: a snapshot of a tensor's element type and shape. */
class TensorTypeAndShapeInfo : public Handle<KilnTensorTypeAndShapeInfo> {
 public:
  /** Holds NULL. */
  TensorTypeAndShapeInfo() noexcept = default;

  /**
   * Takes ownership of a type-and-shape info.
   *
   * @param info  The info (may be NULL).
   */
  explicit TensorTypeAndShapeInfo(KilnTensorTypeAndShapeInfo* info) noexcept : Handle(info) {}

  /**
   * The element type (KilnApi::GetTensorElementType).
   *
   * @return The element type.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnElementType element_type() const {
    KilnElementType type = KILN_ELEMENT_TYPE_UNDEFINED;
    ThrowOnError(Api().GetTensorElementType(get(), &type));
    return type;
  }

  /**
   * The number of dimensions (KilnApi::GetDimensionsCount).
   *
   * @return The rank.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  size_t rank() const {
    size_t rank = 0;
    ThrowOnError(Api().GetDimensionsCount(get(), &rank));
    return rank;
  }

  /**
   * The dimensions (KilnApi::GetDimensions).
   *
   * @return One entry per dimension; -1 marks a dimension not known until run.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  std::vector<int64_t> shape() const {
    std::vector<int64_t> dims(rank());
    ThrowOnError(Api().GetDimensions(get(), dims.data(), dims.size()));
    return dims;
  }

  /**
   * The symbolic names of the dimensions (KilnApi::GetSymbolicDimensions).
   *
   * @return One UTF-8 name per dimension; "" for a dimension with no name.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  std::vector<std::string> symbolic_shape() const {
    std::vector<const char*> names(rank(), nullptr);
    ThrowOnError(Api().GetSymbolicDimensions(get(), names.data(), names.size()));
    return std::vector<std::string>(names.begin(), names.end());
  }

  /**
   * The number of elements: the product of the dimensions, 1 for rank 0
   * (KilnApi::GetTensorShapeElementCount).
   *
   * @return The element count.
   * @throws Exception  KILN_INVALID_ARGUMENT when a dimension is unknown or the handle is empty.
   */
  size_t element_count() const {
    size_t count = 0;
    ThrowOnError(Api().GetTensorShapeElementCount(get(), &count));
    return count;
  }
};

/// @cond INTERNAL
namespace detail {

template <typename T>
struct AlwaysFalse : std::false_type {};

template <typename T>
constexpr KilnElementType ElementTypeOf() {
  static_assert(sizeof(bool) == 1, "Kiln's bool elements are one byte");
  if constexpr (std::is_same_v<T, float>) {
    return KILN_ELEMENT_TYPE_FLOAT;
  } else if constexpr (std::is_same_v<T, double>) {
    return KILN_ELEMENT_TYPE_DOUBLE;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return KILN_ELEMENT_TYPE_INT8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return KILN_ELEMENT_TYPE_INT16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return KILN_ELEMENT_TYPE_INT32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return KILN_ELEMENT_TYPE_INT64;
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return KILN_ELEMENT_TYPE_UINT8;
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return KILN_ELEMENT_TYPE_UINT16;
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    return KILN_ELEMENT_TYPE_UINT32;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return KILN_ELEMENT_TYPE_UINT64;
  } else if constexpr (std::is_same_v<T, bool>) {
    return KILN_ELEMENT_TYPE_BOOL;
  } else {
    static_assert(AlwaysFalse<T>::value,
                  "no Kiln element type for T: use float, double, bool or a <cstdint> type");
    return KILN_ELEMENT_TYPE_UNDEFINED;
  }
}

// A NUL byte would silently cut a string short at the C boundary.
inline void CheckNoNul(const std::string& s, const char* entry, const std::string& what) {
  if (s.find('\0') != std::string::npos) {
    throw Exception(KILN_INVALID_ARGUMENT, std::string(entry) + ": " + what +
                                               " contains a NUL byte, which Kiln's strings "
                                               "cannot hold");
  }
}

}  // namespace detail
/// @endcond

/**
 * The element type of tensors over a C++ array of T: float, double, bool, int8_t to int64_t and
 * uint8_t to uint64_t. Any other T fails to compile.
 *
 * @tparam T  The C++ element type.
 */
template <typename T>
inline constexpr KilnElementType kElementTypeOf = detail::ElementTypeOf<T>();

/** An owned KilnValue: a tensor. */
class Value : public Handle<KilnValue> {
 public:
  /** Holds NULL. */
  Value() noexcept = default;

  /**
   * Takes ownership of a value.
   *
   * @param value  The value (may be NULL).
   */
  explicit Value(KilnValue* value) noexcept : Handle(value) {}

  /**
   * Creates a tensor whose memory Kiln allocates and owns, zero-filled (string tensors hold empty
   * strings) (KilnApi::CreateTensorAsValue).
   *
   * @param allocator     Where the data comes from; it must outlive the tensor.
   * @param shape         The dimensions, each >= 0.
   * @param element_type  Any defined KilnElementType.
   * @return The owned tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT (a negative dimension, a size that overflows, an
   *                    unknown type), KILN_OUT_OF_MEMORY.
   */
  static Value CreateTensor(Allocator allocator, const std::vector<int64_t>& shape,
                            KilnElementType element_type) {
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateTensorAsValue(allocator.get(), shape.data(), shape.size(),
                                           element_type, &value));
    return Value(value);
  }

  /**
   * Creates a tensor over an array the caller owns, without copying it
   * (KilnApi::CreateTensorWithDataAsValue). The array must stay alive and unmoved for the life
   * of the tensor.
   *
   * @tparam T  The element type: see kElementTypeOf.
   * @param info   Where the array lives; must describe CPU memory. It is copied.
   * @param data   The array; may be NULL only when @p count is 0.
   * @param count  The number of elements in @p data; must equal the shape's element count.
   * @param shape  The dimensions, each >= 0.
   * @return The owned tensor; releasing it leaves the array alone.
   * @throws Exception  KILN_INVALID_ARGUMENT (a negative dimension, @p count not matching the
   *                    shape, memory info not for the CPU), KILN_OUT_OF_MEMORY.
   */
  template <typename T>
  static Value CreateTensor(ConstMemoryInfo info, T* data, size_t count,
                            const std::vector<int64_t>& shape) {
    static_assert(!std::is_const_v<T>, "a tensor's data is writable: pass a non-const array");
    constexpr KilnElementType element_type = kElementTypeOf<T>;
    if (count > std::numeric_limits<size_t>::max() / sizeof(T)) {
      throw Exception(KILN_INVALID_ARGUMENT, "kiln::Value::CreateTensor: argument 'count' (" +
                                                 std::to_string(count) +
                                                 " elements) overflows size_t in bytes");
    }
    KilnValue* value = nullptr;
    ThrowOnError(Api().CreateTensorWithDataAsValue(
        info.get(), data, count * sizeof(T), shape.data(), shape.size(), element_type, &value));
    return Value(value);
  }

  /**
   * What kind of value this is (KilnApi::GetValueType).
   *
   * @return The kind.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  KilnValueType value_type() const {
    KilnValueType type = KILN_VALUE_TYPE_UNKNOWN;
    ThrowOnError(Api().GetValueType(get(), &type));
    return type;
  }

  /**
   * Whether this is a tensor (KilnApi::IsTensor).
   *
   * @return true for a tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  bool is_tensor() const {
    int is_tensor = 0;
    ThrowOnError(Api().IsTensor(get(), &is_tensor));
    return is_tensor != 0;
  }

  /**
   * The data of a non-string tensor, for reading and writing (KilnApi::GetTensorMutableData).
   * The element type is not checked against T.
   *
   * @tparam T  The type to view the elements as.
   * @return A pointer borrowed from this tensor; NULL for a Kiln-allocated tensor with no
   *         elements.
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  template <typename T>
  T* data() {
    void* data = nullptr;
    ThrowOnError(Api().GetTensorMutableData(get(), &data));
    return static_cast<T*>(data);
  }

  /**
   * The data of a non-string tensor, for reading (KilnApi::GetTensorMutableData).
   * The element type is not checked against T.
   *
   * @tparam T  The type to view the elements as.
   * @return A pointer borrowed from this tensor; NULL for a Kiln-allocated tensor with no
   *         elements.
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  template <typename T>
  const T* data() const {
    void* data = nullptr;
    ThrowOnError(Api().GetTensorMutableData(get(), &data));
    return static_cast<const T*>(data);
  }

  /**
   * The size of a non-string tensor's data (KilnApi::GetTensorSizeInBytes).
   *
   * @return The size in bytes (packed for sub-byte types).
   * @throws Exception  KILN_INVALID_ARGUMENT for a string tensor or an empty handle.
   */
  size_t size_in_bytes() const {
    size_t size = 0;
    ThrowOnError(Api().GetTensorSizeInBytes(get(), &size));
    return size;
  }

  /**
   * Where the tensor's data lives (KilnApi::GetTensorMemoryInfo).
   *
   * @return A memory info borrowed from this tensor.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle.
   */
  ConstMemoryInfo memory_info() const {
    const KilnMemoryInfo* info = nullptr;
    ThrowOnError(Api().GetTensorMemoryInfo(get(), &info));
    return ConstMemoryInfo(info);
  }

  /**
   * The tensor's element type and shape (KilnApi::GetTensorTypeAndShape).
   *
   * @return An owned snapshot.
   * @throws Exception  KILN_INVALID_ARGUMENT for an empty handle, KILN_OUT_OF_MEMORY.
   */
  TensorTypeAndShapeInfo type_and_shape() const {
    KilnTensorTypeAndShapeInfo* info = nullptr;
    ThrowOnError(Api().GetTensorTypeAndShape(get(), &info));
    return TensorTypeAndShapeInfo(info);
  }

  /**
   * Sets every element of a string tensor (KilnApi::FillStringTensor). All strings are checked
   * before any is stored, so on failure the tensor is unchanged.
   *
   * @param strings  UTF-8 strings without NUL bytes, one per element, in row-major order.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, wrong count, invalid UTF-8, a
   *                    NUL byte), KILN_OUT_OF_MEMORY.
   */
  void fill_strings(const std::vector<std::string>& strings) {
    std::vector<const char*> c_strings;
    c_strings.reserve(strings.size());
    for (size_t i = 0; i < strings.size(); ++i) {
      detail::CheckNoNul(strings[i], "kiln::Value::fill_strings",
                         "element " + std::to_string(i) + " of argument 'strings'");
      c_strings.push_back(strings[i].c_str());
    }
    ThrowOnError(Api().FillStringTensor(get(), c_strings.data(), c_strings.size()));
  }

  /**
   * Sets one element of a string tensor (KilnApi::FillStringTensorElement).
   *
   * @param index  The element, in row-major order.
   * @param s      A UTF-8 string without NUL bytes.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, index out of range, invalid
   *                    UTF-8, a NUL byte), KILN_OUT_OF_MEMORY.
   */
  void set_string(size_t index, const std::string& s) {
    detail::CheckNoNul(s, "kiln::Value::set_string", "argument 's'");
    ThrowOnError(Api().FillStringTensorElement(get(), s.c_str(), index));
  }

  /**
   * One element of a string tensor (KilnApi::GetStringTensorElementLength and
   * KilnApi::GetStringTensorElement).
   *
   * @param index  The element, in row-major order.
   * @return A copy of the UTF-8 string.
   * @throws Exception  KILN_INVALID_ARGUMENT (not a string tensor, index out of range).
   */
  std::string string_at(size_t index) const {
    size_t length = 0;
    ThrowOnError(Api().GetStringTensorElementLength(get(), index, &length));
    std::string s(length, '\0');
    ThrowOnError(Api().GetStringTensorElement(get(), s.size(), index, s.data()));
    return s;
  }

  /**
   * Every element of a string tensor (KilnApi::GetStringTensorDataLength and
   * KilnApi::GetStringTensorContent).
   *
   * @return Copies of the UTF-8 strings, in row-major order.
   * @throws Exception  KILN_INVALID_ARGUMENT for a tensor that is not a string tensor,
   *                    KILN_OUT_OF_MEMORY.
   */
  std::vector<std::string> strings() const {
    size_t total = 0;
    ThrowOnError(Api().GetStringTensorDataLength(get(), &total));
    const size_t count = type_and_shape().element_count();
    std::string bytes(total, '\0');
    std::vector<size_t> offsets(count);
    ThrowOnError(
        Api().GetStringTensorContent(get(), bytes.data(), total, offsets.data(), offsets.size()));
    std::vector<std::string> result;
    result.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const size_t end = i + 1 < count ? offsets[i + 1] : total;
      result.emplace_back(bytes, offsets[i], end - offsets[i]);
    }
    return result;
  }
};

}  // namespace kiln

#endif  // KILN_KILN_CXX_API_H_
