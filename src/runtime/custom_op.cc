#include "runtime/custom_op.h"

namespace kiln::runtime {
namespace {

std::unique_ptr<Kernel> CreateCustomKernel(const KernelInfo& info, const void* state) {
  return static_cast<const CustomOp*>(state)->CreateKernel(info);
}

bool IsDefaultDomain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

bool SameDomain(const std::string& a, const std::string& b) {
  return a == b || (IsDefaultDomain(a) && IsDefaultDomain(b));
}

}  // namespace

std::string OverrideDomain(const std::string& domain) {
  return "ai.kiln.override." + (IsDefaultDomain(domain) ? std::string("ai.onnx") : domain);
}

CustomKernels::CustomKernels(const CustomOps& ops) : registry_(&CpuKernels()) {
  // An overriding op is found under its own domain (subgraph nodes, which the session does not
  // move) and under its OverrideDomain (main-graph nodes, moved there while optimizing).
  for (const auto& op : ops) {
    const std::string* name = &names_.emplace_back(op->name());
    defs_.push_back({names_.emplace_back(op->domain()).c_str(), name->c_str(), op->since(),
                     op->until(), nullptr, &CreateCustomKernel, op.get()});
    if (op->overrides_builtin()) {
      defs_.push_back({names_.emplace_back(OverrideDomain(op->domain())).c_str(), name->c_str(),
                       op->since(), op->until(), nullptr, &CreateCustomKernel, op.get()});
    }
  }
  registry_.Add(defs_);
}

size_t ClaimOverriddenNodes(ir::Graph& g, const CustomOps& ops, bool restore) {
  size_t moved = 0;
  for (const auto& node : g.nodes()) {
    for (const auto& op : ops) {
      if (!op->overrides_builtin() || node->op_type() != op->name()) continue;
      const std::string claimed = OverrideDomain(op->domain());
      if (restore ? node->domain() == claimed
                  : SameDomain(node->domain(), op->domain()) && node->opset() >= op->since() &&
                        node->opset() <= op->until()) {
        node->set_domain(restore ? (IsDefaultDomain(op->domain()) ? std::string() : op->domain())
                                 : claimed);
        ++moved;
        break;
      }
    }
  }
  return moved;
}

}  // namespace kiln::runtime
