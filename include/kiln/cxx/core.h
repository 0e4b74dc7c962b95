/**
 * @file
 * Kiln C++ wrapper, the core: kiln::Exception, the API table every call uses (kiln::Api,
 * kiln::InitApi), kiln::Handle (the ownership every RAII type shares), kiln::Status and
 * kiln::ThrowOnError.
 *
 * @code
 *   #include <kiln/cxx/core.h>
 *
 *   try {
 *     kiln::ThrowOnError(kiln::Api().CreateStatus(KILN_FAIL, "boom"));
 *   } catch (const kiln::Exception& e) {
 *     // e.code() == KILN_FAIL, e.what() == "boom"
 *   }
 * @endcode
 *
 * Programs usually include kiln/kiln_cxx_api.h, which includes every part of the wrapper and
 * states its contract.
 */
#ifndef KILN_CXX_CORE_H_
#define KILN_CXX_CORE_H_

#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>

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
inline void Release(KilnSessionOptions* p) noexcept {
  Api().ReleaseSessionOptions(p);
}
inline void Release(KilnSession* p) noexcept {
  Api().ReleaseSession(p);
}
inline void Release(KilnRunOptions* p) noexcept {
  Api().ReleaseRunOptions(p);
}
inline void Release(KilnIoBinding* p) noexcept {
  Api().ReleaseIoBinding(p);
}

}  // namespace detail
/// @endcond

/**
 * The ownership every RAII type of this wrapper shares: it holds one handle, releases it when
 * destroyed, and can be moved but not copied.
 *
 * @tparam T  The C handle type (KilnStatus, KilnEnv, KilnMemoryInfo, KilnTensorTypeAndShapeInfo,
 *            KilnValue, KilnSessionOptions, KilnSession, KilnRunOptions or KilnIoBinding).
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

}  // namespace kiln

#endif  // KILN_CXX_CORE_H_
