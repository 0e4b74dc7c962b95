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
  // An overriding op is found only under its OverrideDomain, where the session moves the nodes
  // the model has of it: a node of that op the optimizer makes (a fusion's) stays Kiln's.
  for (const auto& op : ops) {
    const std::string* name = &names_.emplace_back(op->name());
    const std::string& domain =
        names_.emplace_back(op->overrides_builtin() ? OverrideDomain(op->domain()) : op->domain());
    defs_.push_back({domain.c_str(), name->c_str(), op->since(), op->until(), nullptr,
                     &CreateCustomKernel, op.get()});
  }
  registry_.Add(defs_);
}

size_t ClaimOverriddenNodes(ir::Graph& g, const CustomOps& ops, bool restore) {
  size_t moved = 0;
  for (const auto& node : g.nodes()) {
    // Bodies of If, Loop and Scan too. The session owns its model and made every graph in it,
    // so writing through the attributes' const pointers is writing to graphs made writable; no
    // pass reads a node's domain meanwhile but this one.
    for (const ir::Attribute& a : node->attributes()) {
      if (a.g) moved += ClaimOverriddenNodes(const_cast<ir::Graph&>(*a.g), ops, restore);
      for (const auto& sub : a.graphs) {
        moved += ClaimOverriddenNodes(const_cast<ir::Graph&>(*sub), ops, restore);
      }
    }
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
