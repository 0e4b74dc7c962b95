// The kernel registry: one table keyed by (domain, op type, opset range). Each kernel family
// lists its entries in its own file (kernels/cpu/<family>/); kernels/cpu/cpu_kernels.cc is the one
// place that gathers the families.
//
//   const kiln::KernelDef* def = kiln::CpuKernels().Find("", "Relu", 14);
//   std::unique_ptr<kiln::Kernel> k = def->create(info);
#ifndef KILN_KERNELS_REGISTRY_H_
#define KILN_KERNELS_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels/kernel.h"

namespace kiln {

using KernelFactory = std::unique_ptr<Kernel> (*)(const KernelInfo&);
// A factory with state of its own: a custom op's (runtime/custom_op.h), given KernelDef::state.
using StatefulKernelFactory = std::unique_ptr<Kernel> (*)(const KernelInfo&, const void* state);

// A plain aggregate so families can keep their lists in constant-initialised arrays.
struct KernelDef {
  const char* domain;  // "" for the default ONNX domain
  const char* op_type;
  int since;  // first opset version this kernel implements
  int until;  // last one, inclusive (kLatestOpset for "still current")
  KernelFactory create;
  // Instead of `create` (then nullptr): a factory given `state` (a session's custom ops).
  StatefulKernelFactory create_with_state = nullptr;
  const void* state = nullptr;

  std::unique_ptr<Kernel> Create(const KernelInfo& info) const {
    return create_with_state != nullptr ? create_with_state(info, state) : create(info);
  }
};

// The newest ai.onnx opset Kiln knows (ONNX 1.23's). Its versions 24-28 of the ops Kiln has
// only add element types (Cast, Reshape, TopK, Range, …; per ../shared/onnx-tests), so kernels
// registered "to kLatestOpset" keep their semantics there.
inline constexpr int kLatestOpset = 28;

// `std::make_unique<K>(info)` as a KernelFactory.
template <typename K>
std::unique_ptr<Kernel> Make(const KernelInfo& info) {
  return std::make_unique<K>(info);
}

class KernelRegistry {
 public:
  KernelRegistry() = default;
  // A registry whose own entries come first, then `fallback`'s (which must outlive it): a
  // session's custom ops over the CPU kernels.
  explicit KernelRegistry(const KernelRegistry* fallback) : fallback_(fallback) {}
  // Adds entries (kept by address: they must outlive the registry); a (domain, op) pair may have
  // several non-overlapping opset ranges.
  void Add(std::span<const KernelDef> defs);
  // The entry for this op at this opset, or nullptr. "ai.onnx" is the same as "".
  const KernelDef* Find(std::string_view domain, std::string_view op_type, int64_t opset) const;
  // Whether any opset of the op is registered (to tell an unknown op from an unsupported opset).
  bool Knows(std::string_view domain, std::string_view op_type) const;
  // Whether any op of the domain is registered.
  bool KnowsDomain(std::string_view domain) const;

 private:
  std::unordered_map<std::string, std::vector<const KernelDef*>> by_op_;
  const KernelRegistry* fallback_ = nullptr;
};

// The CPU provider's registry, built on first use.
const KernelRegistry& CpuKernels();

// Makes the per-thread workspaces the CPU kernels keep (GEMM packing panels) for the calling
// thread: intra-op pool workers call it when they start, so steady-state runs allocate nothing.
void PrepareCpuKernelThread() noexcept;

}  // namespace kiln

#endif  // KILN_KERNELS_REGISTRY_H_
