// Entries: SessionOptionsRegisterCustomOpsLibrary, SessionOptionsRegisterCustomOps,
// CustomOpRegistryAdd (slots 104-106).
#include <memory>
#include <string>
#include <vector>

#include "api/custom_op.h"
#include "api/entries.h"
#include "api/handles.h"
#include "api/status.h"
#include "runtime/shared_library.h"

namespace kiln::api {
namespace {

bool Overlap(const runtime::CustomOp& a, const runtime::CustomOp& b) {
  return a.domain() == b.domain() && a.name() == b.name() && a.since() <= b.until() &&
         b.since() <= a.until();
}

// Runs a registration function and adds what it registered to the options: all of it or, on any
// failure, none (the ops it added are released, before their library).
void Register(KilnSessionOptions& options, KilnRegisterCustomOpsFn fn,
              std::shared_ptr<runtime::SharedLibrary> library, const std::string& origin) {
  KilnCustomOpRegistry registry{std::move(library), origin, {}};
  {
    ScopedHandle live(&registry);
    CallLibrary([&] { return origin + ": KilnRegisterCustomOps"; },
                [&] { return fn(&registry, KilnGetApiBase()); });
  }
  if (registry.added.empty()) {
    throw Error(ErrorCode::kFail, origin + ": KilnRegisterCustomOps registered no ops");
  }
  runtime::CustomOps ops = options.options.custom_ops;
  for (const auto& op : registry.added) {
    for (const auto& other : ops) {
      if (Overlap(*op, *other)) {
        throw Error(ErrorCode::kInvalidArgument, op->Describe() + " is registered already, by " +
                                                     other->origin() +
                                                     ", for overlapping opset versions");
      }
    }
    ops.push_back(op);
  }
  options.options.custom_ops = std::move(ops);
}

}  // namespace

KilnStatus* KILN_API_CALL SessionOptionsRegisterCustomOpsLibrary(KilnSessionOptions* options,
                                                                 const char* path) {
  return Guard("SessionOptionsRegisterCustomOpsLibrary", [&] {
    KilnSessionOptions& o = Unwrap(options, "options");
    if (path == nullptr) ThrowInvalidArgument("path", "is NULL");
    if (*path == '\0') ThrowInvalidArgument("path", "is empty");
    std::shared_ptr<runtime::SharedLibrary> library = runtime::SharedLibrary::Open(path);
    const std::string origin = "custom-op library '" + std::string(path) + "'";
    for (const auto& op : o.options.custom_ops) {
      const auto* adapter = dynamic_cast<const CustomOpAdapter*>(op.get());
      if (adapter != nullptr && adapter->library() != nullptr &&
          adapter->library()->handle() == library->handle()) {
        ThrowInvalidArgument("path", "'" + std::string(path) + "' is registered already (as " +
                                         adapter->origin() + ")");
      }
    }
    void* entry = library->Symbol(KILN_REGISTER_CUSTOM_OPS_SYMBOL);
    if (entry == nullptr) {
      throw Error(ErrorCode::kFail,
                  origin + " exports no " KILN_REGISTER_CUSTOM_OPS_SYMBOL " function");
    }
    Register(o, reinterpret_cast<KilnRegisterCustomOpsFn>(entry), std::move(library), origin);
  });
}

KilnStatus* KILN_API_CALL SessionOptionsRegisterCustomOps(KilnSessionOptions* options,
                                                          KilnRegisterCustomOpsFn register_ops) {
  return Guard("SessionOptionsRegisterCustomOps", [&] {
    KilnSessionOptions& o = Unwrap(options, "options");
    if (register_ops == nullptr) ThrowInvalidArgument("register_ops", "is NULL");
    Register(o, register_ops, nullptr, "custom ops registered by the program");
  });
}

KilnStatus* KILN_API_CALL CustomOpRegistryAdd(KilnCustomOpRegistry* registry,
                                              const KilnCustomOp* op) {
  return Guard("CustomOpRegistryAdd", [&] {
    KilnCustomOpRegistry& r = Unwrap(registry, "registry");
    if (op == nullptr) ThrowInvalidArgument("op", "is NULL");
    r.added.reserve(r.added.size() + 1);  // so that nothing fails once the op is Kiln's
    std::shared_ptr<CustomOpAdapter> adapter =
        CustomOpAdapter::FromDescription(op, r.library, r.origin);
    for (const auto& other : r.added) {
      if (Overlap(*adapter, *other)) {
        adapter->ForgetOpState();
        ThrowInvalidArgument(
            "op", adapter->Describe() + " is registered twice, for overlapping opset versions");
      }
    }
    r.added.push_back(std::move(adapter));
  });
}

}  // namespace kiln::api
