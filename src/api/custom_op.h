// The C ABI's custom operators inside Kiln: a library's KilnCustomOp description copied and
// checked (CustomOpAdapter, a runtime::CustomOp), its kernels (custom_op_kernel.cc) and the
// transient handles its callbacks get (KilnKernelInfo, KilnKernelContext,
// KilnShapeInferContext, KilnCustomOpRegistry).
//
//   auto op = CustomOpAdapter::FromDescription(desc, library, "library 'libops.so'");
//   options.custom_ops.push_back(op);  // a session then runs its nodes with op->CreateKernel
#ifndef KILN_API_CUSTOM_OP_H_
#define KILN_API_CUSTOM_OP_H_

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/handles.h"
#include "core/data_type.h"
#include "infer/infer.h"
#include "ir/attribute.h"
#include "kernels/kernel.h"
#include "kiln/kiln_c_api.h"
#include "runtime/custom_op.h"
#include "runtime/shared_library.h"

namespace kiln::api {

// One input or output as the description gives it.
struct CustomArg {
  std::string name;
  int type_param = -1;  // index into the type parameters, or -1: `fixed`
  DataType fixed = DataType::kUndefined;
  KilnCustomOpArgKind kind = KILN_CUSTOM_OP_ARG_REQUIRED;
};

struct CustomTypeParam {
  std::string name;
  std::vector<DataType> allowed;

  bool Allows(DataType t) const noexcept {
    for (DataType a : allowed) {
      if (a == t) return true;
    }
    return false;
  }
};

struct CustomAttr {
  ir::Attribute value;  // name, type and the default (unused when required)
  bool required = false;
};

// The callbacks, as the library gave them.
struct CustomCallbacks {
  void* op_state = nullptr;
  KilnCustomOpInferShapesFn infer = nullptr;
  KilnCustomOpCreateKernelFn create = nullptr;
  KilnCustomOpComputeFn compute = nullptr;
  KilnCustomOpDestroyKernelFn destroy = nullptr;
  KilnCustomOpReleaseFn release = nullptr;
};

class CustomOpAdapter final : public runtime::CustomOp,
                              public std::enable_shared_from_this<CustomOpAdapter> {
 public:
  // Checks and copies a description; throws Error (kInvalidArgument, kNotImplemented) naming the
  // op and the field. `library` (null for the program's own ops) stays loaded while the adapter
  // lives.
  static std::shared_ptr<CustomOpAdapter> FromDescription(
      const KilnCustomOp* desc, std::shared_ptr<runtime::SharedLibrary> library,
      std::string origin);
  // Calls ReleaseOpState (a failure is logged), then lets the library go.
  ~CustomOpAdapter() override;

  const std::string& domain() const noexcept override { return domain_; }
  const std::string& name() const noexcept override { return name_; }
  int since() const noexcept override { return since_; }
  int until() const noexcept override { return until_; }
  bool overrides_builtin() const noexcept override { return overrides_; }
  const std::string& origin() const noexcept override { return origin_; }
  std::unique_ptr<Kernel> CreateKernel(const KernelInfo& info) const override;

  const runtime::SharedLibrary* library() const noexcept { return library_.get(); }
  const std::vector<CustomTypeParam>& type_params() const noexcept { return type_params_; }
  const std::vector<CustomArg>& inputs() const noexcept { return inputs_; }
  const std::vector<CustomArg>& outputs() const noexcept { return outputs_; }
  const std::vector<CustomAttr>& attributes() const noexcept { return attributes_; }
  const CustomCallbacks& callbacks() const noexcept { return callbacks_; }
  // Leaves op_state to the library: for a description Kiln checked but did not take.
  void ForgetOpState() noexcept { callbacks_.release = nullptr; }
  // "<origin>: op '<domain>.<name>'", for messages.
  std::string Describe() const;
  // The description's argument for node input (or output) i: the variadic last one for any
  // past the end; nullptr when there is none.
  const CustomArg* InputArg(size_t i) const noexcept;
  const CustomArg* OutputArg(size_t i) const noexcept;

 private:
  CustomOpAdapter() = default;

  std::shared_ptr<runtime::SharedLibrary> library_;  // first: the last to go
  std::string origin_;
  std::string domain_;
  std::string name_;
  int since_ = 1;
  int until_ = 0;
  bool overrides_ = false;
  std::vector<CustomTypeParam> type_params_;
  std::vector<CustomArg> inputs_;
  std::vector<CustomArg> outputs_;
  std::vector<CustomAttr> attributes_;
  CustomCallbacks callbacks_;
};

// Turns what a library's callback returned into an exception: nothing for NULL; else Error with
// the status's code (KILN_FAIL when it has none), "<what> failed: <message>". A pointer that is
// not a live status is reported as such. The status is released.
void ThrowIfFailed(KilnStatus* status, const std::string& what);

// Calls a library's callback: a returned status or a C++ exception escaping it becomes an Error
// saying so. `what()` describes the call for the message; it is called only on failure, so that
// a call that must happen (DestroyKernel, ReleaseOpState) is never kept from happening by the
// message's allocation.
template <class What, class Call>
void CallLibrary(const What& what, Call&& call) {
  KilnStatus* status = nullptr;
  const char* exception = nullptr;
  std::string exception_text;
  try {
    status = call();
  } catch (const std::exception& e) {
    exception = "";
    try {
      exception_text = e.what();
    } catch (...) {  // (the text is only for the message)
    }
  } catch (...) {
    exception = "";
  }
  if (exception != nullptr) {
    throw Error(ErrorCode::kFail, what() + " threw an exception" +
                                      (exception_text.empty() ? "" : ": " + exception_text));
  }
  if (status != nullptr) ThrowIfFailed(status, what());
}

// A node's attributes resolved against the description: each declared one, the node's value or
// the default, with the string pointers the C entries hand out.
struct ResolvedAttribute {
  const ir::Attribute* value = nullptr;
  std::vector<const char*> strings;  // for STRINGS
};

}  // namespace kiln::api

// ---- The transient handles (registered while a callback runs) -------------------------------

struct KilnCustomOpRegistry {
  std::shared_ptr<kiln::runtime::SharedLibrary> library;
  std::string origin;
  std::vector<std::shared_ptr<const kiln::api::CustomOpAdapter>> added;
};

struct KilnKernelInfo {
  const kiln::api::CustomOpAdapter* op;
  const kiln::KernelInfo* node;
  const std::vector<kiln::api::ResolvedAttribute>* attributes;  // one per declared attribute
};

struct KilnShapeInferContext {
  const KilnKernelInfo* info;
  kiln::infer::InferenceContext* ctx;
  std::vector<kiln::DataType> bound;  // per type parameter: as the inputs or a set output bind it
  std::vector<bool> set;              // per output: set by the callback
  std::vector<kiln::infer::TensorFacts> outputs;  // per output: what the callback set
};

namespace kiln::api {
class CustomKernel;
}  // namespace kiln::api

struct KilnKernelContext {
  const kiln::api::CustomKernel* kernel;
  kiln::KernelContext* ctx;
  const KilnKernelInfo* info;         // the node, lent for the call as the context is
  std::vector<kiln::DataType> bound;  // per type parameter, as the inputs bind it
  // The input values (made before Compute, null for one left out: the entries only read them)
  // and the output values handed out, lent (registry::RemoveLent) until the Compute call ends.
  std::vector<std::unique_ptr<KilnValue>> inputs;
  std::vector<std::unique_ptr<KilnValue>> outputs;
  std::thread::id thread;  // Compute's: outputs are made and ParallelFor called from it only
};

namespace kiln::api {
template <>
struct HandleTraits<KilnCustomOpRegistry> {
  static constexpr HandleKind kKind = HandleKind::kCustomOpRegistry;
};
template <>
struct HandleTraits<KilnKernelInfo> {
  static constexpr HandleKind kKind = HandleKind::kKernelInfo;
};
template <>
struct HandleTraits<KilnKernelContext> {
  static constexpr HandleKind kKind = HandleKind::kKernelContext;
};
template <>
struct HandleTraits<KilnShapeInferContext> {
  static constexpr HandleKind kKind = HandleKind::kShapeInferContext;
};

// Registers a transient handle for the life of this object (a callback's call).
class ScopedHandle {
 public:
  template <class H>
  explicit ScopedHandle(H* handle) : handle_(handle), kind_(HandleTraits<H>::kKind) {
    registry::Add(handle, kind_, /*permanent=*/true);  // lent: no Release entry frees it
  }
  ScopedHandle(const ScopedHandle&) = delete;
  ScopedHandle& operator=(const ScopedHandle&) = delete;
  ~ScopedHandle() { registry::RemoveLent(handle_, kind_); }

 private:
  const void* handle_;
  HandleKind kind_;
};

}  // namespace kiln::api

#endif  // KILN_API_CUSTOM_OP_H_
