// Custom operators as the engine sees them: ops a library (or the program) registers through the
// C ABI (include/kiln/kiln_custom_op.h). The ABI's adapter (api/custom_op_kernel.cc) implements
// CustomOp over a library's callbacks; SessionOptions carry them; a Session resolves them before
// its built-in kernels (CustomKernels) and keeps the nodes of an op that overrides a built-in one
// out of the optimizer's reach (ClaimOverriddenNodes).
//
//   runtime::SessionOptions o;
//   o.custom_ops.push_back(op);             // std::shared_ptr<const CustomOp>
//   runtime::Session s(std::move(model), o);  // nodes of op->domain()/op->name() run its kernel
#ifndef KILN_RUNTIME_CUSTOM_OP_H_
#define KILN_RUNTIME_CUSTOM_OP_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "kernels/registry.h"

namespace kiln::runtime {

class CustomOp {
 public:
  virtual ~CustomOp() = default;
  // "" for the default ONNX domain.
  virtual const std::string& domain() const noexcept = 0;
  virtual const std::string& name() const noexcept = 0;
  // The opset range of domain() it implements, inclusive.
  virtual int since() const noexcept = 0;
  virtual int until() const noexcept = 0;
  // Whether it replaces Kiln's own op of that domain and name.
  virtual bool overrides_builtin() const noexcept = 0;
  // Where it came from, for messages: "library '<path>'" or "the program".
  virtual const std::string& origin() const noexcept = 0;
  // The kernel of one node. Throws Error naming the origin, op and callback on failure.
  virtual std::unique_ptr<Kernel> CreateKernel(const KernelInfo& info) const = 0;
};

using CustomOps = std::vector<std::shared_ptr<const CustomOp>>;

// The domain a node of an op that overrides a built-in one is moved to while the session
// optimizes and plans: no pass matches it there, and no built-in kernel or rule has it.
std::string OverrideDomain(const std::string& domain);

// A registry of custom ops over the CPU kernels.
class CustomKernels {
 public:
  explicit CustomKernels(const CustomOps& ops);
  CustomKernels(const CustomKernels&) = delete;
  CustomKernels& operator=(const CustomKernels&) = delete;
  const KernelRegistry& registry() const noexcept { return registry_; }

 private:
  std::deque<std::string> names_;  // the defs' strings
  std::vector<KernelDef> defs_;
  KernelRegistry registry_;
};

// Moves the nodes (subgraphs included) that an overriding op of `ops` implements to its
// OverrideDomain, or, with `restore`, back. Returns how many nodes moved. A session calls it on
// the model it owns before optimizing and after planning.
size_t ClaimOverriddenNodes(ir::Graph& g, const CustomOps& ops, bool restore);

}  // namespace kiln::runtime

#endif  // KILN_RUNTIME_CUSTOM_OP_H_
