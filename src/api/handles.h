// The one place handles and engine objects meet: the structs behind the opaque C handles, the
// registry that makes every handle checkable, and Unwrap/Publish/Release.
//
//   KilnStatus* GetDimensionsCount(const KilnTensorTypeAndShapeInfo* info, size_t* out) {
//     return Guard("GetDimensionsCount", [&] {
//       const auto& i = Unwrap(info, "info");   // throws INVALID_ARGUMENT: NULL, stale, wrong type
//       CheckOut(out, "out");
//       *out = i.shape.rank();                   // out-parameters written last
//     });
//   }
#ifndef KILN_API_HANDLES_H_
#define KILN_API_HANDLES_H_

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/error.h"
#include "core/logging.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "kiln/kiln_c_api.h"
#include "runtime/options.h"
#include "runtime/session.h"

// ---- The structs behind the handles ----------------------------------------------------------

// One allocation: this header followed by the NUL-terminated message (see status.cc).
struct KilnStatus {
  KilnErrorCode code;
  const char* message;
};

struct KilnEnv {
  kiln::Logger logger;
};

struct KilnMemoryInfo {
  kiln::MemoryInfo info;
};

struct KilnValue {
  std::shared_ptr<kiln::Tensor> tensor;  // a tensor value; null for the others
  kiln::Value other;                     // a sequence or an optional when `tensor` is null
  // Lent to a custom op's Compute for the call only (its tensor may be the step's, not owned):
  // entries that keep a value beyond the call refuse it (RefuseLent).
  bool lent = false;
  // A model's constant (an initializer or tensor attribute shown by the graph API): read with
  // GetTensorData; entries that would change it refuse it (RefuseReadOnly).
  bool read_only = false;
};

struct KilnTensorTypeAndShapeInfo {
  kiln::DataType type;
  kiln::Shape shape;
};

struct KilnSessionOptions {
  kiln::runtime::SessionOptions options;
};

struct KilnSession {
  std::shared_ptr<kiln::runtime::Session> session;
  kiln::Logger logger;  // a copy of the Env's, so the Env may go first
  // The graph API's views of the session's graphs (api/graph_handles.h), made on first use and
  // released with the handle: type-erased, so that this header needs none of their types.
  std::shared_ptr<void> graph_views;
  std::unique_ptr<std::mutex> graph_views_mutex;
};

// Shared, so that a RunAsync in progress keeps the options (and sees their terminate flag) after
// the handle is released.
struct KilnRunOptions {
  std::shared_ptr<kiln::runtime::RunOptions> options;
};

// Inputs and outputs bound by name (io_binding_api.cc). Parallel vectors, as the engine's Run
// takes them. `mutex` is held by every entry that uses the binding, for the whole of a run.
struct KilnIoBinding {
  std::shared_ptr<kiln::runtime::Session> session;  // the session it was made for
  mutable std::mutex mutex;
  // Bound inputs, in the order they were first bound.
  std::vector<std::string> input_names;
  std::vector<kiln::Value> inputs;
  // Bound outputs, in the order they were first bound: a caller's tensor, or null where each run
  // makes the value.
  std::vector<std::string> output_names;
  std::vector<std::shared_ptr<kiln::Tensor>> output_tensors;
  // What a run hands the engine, sized with the outputs so that a run allocates nothing here.
  mutable std::vector<std::shared_ptr<kiln::Tensor>> run_tensors;
  mutable std::vector<kiln::Value> run_others;
  // The last successful run's outputs (a tensor, or another value where the tensor is null).
  mutable std::vector<std::shared_ptr<kiln::Tensor>> result_tensors;
  mutable std::vector<kiln::Value> result_others;
  mutable bool has_results = false;
};

namespace kiln::api {

enum class HandleKind : unsigned char {
  kStatus = 1,
  kEnv,
  kMemoryInfo,
  kValue,
  kTensorTypeAndShapeInfo,
  kSessionOptions,
  kSession,
  kRunOptions,
  kIoBinding,
  kCustomOpRegistry,  // the transient handles of custom ops (api/custom_op.h)
  kKernelInfo,
  kKernelContext,
  kShapeInferContext,
  kModel,  // the graph API's (api/graph_handles.h)
  kGraph,
  kNode,
  kValueInfo,
  kAttribute,
  kTypeInfo,
};

const char* HandleKindName(HandleKind kind) noexcept;

template <class H>
struct HandleTraits;
template <>
struct HandleTraits<KilnStatus> {
  static constexpr HandleKind kKind = HandleKind::kStatus;
};
template <>
struct HandleTraits<KilnEnv> {
  static constexpr HandleKind kKind = HandleKind::kEnv;
};
template <>
struct HandleTraits<KilnMemoryInfo> {
  static constexpr HandleKind kKind = HandleKind::kMemoryInfo;
};
template <>
struct HandleTraits<KilnValue> {
  static constexpr HandleKind kKind = HandleKind::kValue;
};
template <>
struct HandleTraits<KilnTensorTypeAndShapeInfo> {
  static constexpr HandleKind kKind = HandleKind::kTensorTypeAndShapeInfo;
};

template <>
struct HandleTraits<KilnSessionOptions> {
  static constexpr HandleKind kKind = HandleKind::kSessionOptions;
};

template <>
struct HandleTraits<KilnSession> {
  static constexpr HandleKind kKind = HandleKind::kSession;
};

template <>
struct HandleTraits<KilnRunOptions> {
  static constexpr HandleKind kKind = HandleKind::kRunOptions;
};

template <>
struct HandleTraits<KilnIoBinding> {
  static constexpr HandleKind kKind = HandleKind::kIoBinding;
};

// Every live handle's address and kind. Lookups never dereference the handle, so a released or
// foreign pointer is reported, not followed. Thread-safe.
namespace registry {
// Records a handle; `permanent` ones (borrowed statics) can never be released. Throws
// std::bad_alloc.
void Add(const void* handle, HandleKind kind, bool permanent = false);
// The kind of a live handle; nullopt for anything else. Never throws.
std::optional<HandleKind> Find(const void* handle) noexcept;
// Forgets a live, non-permanent handle of `kind`; false (and nothing done) otherwise.
bool Remove(const void* handle, HandleKind kind) noexcept;
// Forgets a handle of `kind` lent for the length of a call (added as permanent, so that no
// Release entry can free it meanwhile); false when there is none.
bool RemoveLent(const void* handle, HandleKind kind) noexcept;
// Makes a live handle of `kind` permanent (its Release entry refuses it from then on): a graph
// API object the caller gave to an `…Owned…` entry. Never allocates; false when there is none.
bool MakeBorrowed(const void* handle, HandleKind kind) noexcept;
}  // namespace registry

// Throws INVALID_ARGUMENT naming `argument` unless `handle` is a live handle of type H.
void CheckHandle(const void* handle, HandleKind kind, const char* argument);

template <class H>
H& Unwrap(H* handle, const char* argument) {
  CheckHandle(handle, HandleTraits<H>::kKind, argument);
  return *handle;
}
template <class H>
const H& Unwrap(const H* handle, const char* argument) {
  CheckHandle(handle, HandleTraits<H>::kKind, argument);
  return *handle;
}

// Entry i of a caller's array of value handles: NULL names `argument` and the index; a handle
// that is not a live value is named "argument[i]" (that name is only built for a message).
template <class V>
V& UnwrapEntry(V* value, const char* argument, size_t i) {
  if (value == nullptr) {
    ThrowInvalidArgument(argument, "entry " + std::to_string(i) + " is NULL");
  }
  if (registry::Find(value) != HandleKind::kValue) {
    const std::string entry = std::string(argument) + "[" + std::to_string(i) + "]";
    CheckHandle(value, HandleKind::kValue, entry.c_str());
  }
  return *value;
}

// The integer a caller passed for a C enum argument. C callers can pass any int, and in C++ merely
// loading an enum object holding a value outside the enum's range is undefined, so entries read
// enum arguments through this (a byte copy) and validate the integer.
template <class Enum>
int EnumValue(const Enum& e) noexcept {
  static_assert(sizeof(Enum) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

// Throws INVALID_ARGUMENT naming `argument` when the value is lent to a custom op's Compute:
// for entries that keep a value beyond the call (IO binding, initializers, RunAsync).
void RefuseLent(const KilnValue& value, const char* argument);

// Throws INVALID_ARGUMENT naming `argument` when the value is a model's read-only constant: for
// entries that would change its data.
void RefuseReadOnly(const KilnValue& value, const char* argument);

// Throws INVALID_ARGUMENT when an out-parameter is NULL.
template <class T>
void CheckOut(T* out, const char* argument) {
  if (out == nullptr) ThrowInvalidArgument(argument, "is NULL");
}

// Registers a new handle and hands it to the caller: the last step of a Create entry, so nothing
// is written to `*out` unless everything before succeeded.
template <class H>
void Publish(std::unique_ptr<H> handle, H** out) {
  registry::Add(handle.get(), HandleTraits<H>::kKind);
  *out = handle.release();
}

// Logs that `entry` was given something it cannot release, and ignores it.
void LogIgnoredRelease(const char* entry, const void* handle, HandleKind kind) noexcept;

// The body of every ReleaseX: NULL is fine, anything not a live owned H is logged and ignored.
template <class H>
void Release(H* handle, const char* entry) noexcept {
  if (handle == nullptr) return;
  if (registry::Remove(handle, HandleTraits<H>::kKind)) {
    delete handle;
  } else {
    LogIgnoredRelease(entry, handle, HandleTraits<H>::kKind);
  }
}

// Publishes a new info with the element type and shape of `type` (of the tensors inside, for a
// sequence or an optional; no dimensions for an unknown rank). Throws std::bad_alloc.
void PublishTensorInfo(const ir::TypeInfo& type, KilnTensorTypeAndShapeInfo** out);

// Makes the session of `model` (session_api.cc) and publishes it: CreateSession's last step, also
// the graph API's CreateSessionFromModel's.
void MakeSession(const KilnEnv& env, ir::Model model, const KilnSessionOptions* options,
                 KilnSession** out);

// A permanent KilnMemoryInfo equal to `info`, made once per distinct value and never released;
// what Get entries hand out. Throws std::bad_alloc.
const KilnMemoryInfo* InternMemoryInfo(const MemoryInfo& info);

}  // namespace kiln::api

#endif  // KILN_API_HANDLES_H_
