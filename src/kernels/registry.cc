#include "kernels/registry.h"

namespace kiln {
namespace {

std::string Key(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  std::string key(domain);
  key += ':';
  key += op_type;
  return key;
}

}  // namespace

void KernelRegistry::Add(std::span<const KernelDef> defs) {
  for (const KernelDef& d : defs) by_op_[Key(d.domain, d.op_type)].push_back(&d);
}

const KernelDef* KernelRegistry::Find(std::string_view domain, std::string_view op_type,
                                      int64_t opset) const {
  auto it = by_op_.find(Key(domain, op_type));
  if (it != by_op_.end()) {
    for (const KernelDef* d : it->second) {
      if (opset >= d->since && opset <= d->until) return d;
    }
  }
  return fallback_ != nullptr ? fallback_->Find(domain, op_type, opset) : nullptr;
}

bool KernelRegistry::Knows(std::string_view domain, std::string_view op_type) const {
  return by_op_.count(Key(domain, op_type)) != 0 ||
         (fallback_ != nullptr && fallback_->Knows(domain, op_type));
}

bool KernelRegistry::KnowsDomain(std::string_view domain) const {
  if (domain == "ai.onnx") domain = "";
  for (const auto& [key, defs] : by_op_) {
    if (key.size() > domain.size() && key.compare(0, domain.size(), domain) == 0 &&
        key[domain.size()] == ':') {
      return true;
    }
  }
  return fallback_ != nullptr && fallback_->KnowsDomain(domain);
}

}  // namespace kiln
