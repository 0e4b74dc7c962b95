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

// A plain aggregate so families can keep their lists in constant-initialised arrays.
struct KernelDef {
  const char* domain;  // "" for the default ONNX domain
  const char* op_type;
  int since;  // first opset version this kernel implements
  int until;  // last one, inclusive (kLatestOpset for "still current")
  KernelFactory create;
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
  // Adds entries; a (domain, op) pair may have several non-overlapping opset ranges.
  void Add(std::span<const KernelDef> defs);
  // The entry for this op at this opset, or nullptr. "ai.onnx" is the same as "".
  const KernelDef* Find(std::string_view domain, std::string_view op_type, int64_t opset) const;
  // Whether any opset of the op is registered (to tell an unknown op from an unsupported opset).
  bool Knows(std::string_view domain, std::string_view op_type) const;

 private:
  std::unordered_map<std::string, std::vector<const KernelDef*>> by_op_;
};

// The CPU provider's registry, built on first use.
const KernelRegistry& CpuKernels();

// Makes the per-thread workspaces the CPU kernels keep (GEMM packing panels) for the calling
// thread: intra-op pool workers call it when they start, so steady-state runs allocate nothing.
void PrepareCpuKernelThread() noexcept;

}  // namespace kiln

#endif  // KILN_KERNELS_REGISTRY_H_
