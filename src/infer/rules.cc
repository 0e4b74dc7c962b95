// FindRule: the table of every family's rules.
#include "infer/rules.h"

#include <string>
#include <unordered_map>

namespace kiln::infer {
namespace {

const std::unordered_map<std::string, Rule>& Table() {
  static const std::unordered_map<std::string, Rule> table = [] {
    std::unordered_map<std::string, Rule> t;
    for (std::span<const RuleDef> list : {ElementwiseRules(), LinalgRules(), NnRules(),
                                          ReduceRules(), ShapeRules(), TensorRules()}) {
      for (const RuleDef& d : list) t.emplace(d.op_type, d.rule);
    }
    return t;
  }();
  return table;
}

}  // namespace

Rule FindRule(std::string_view domain, std::string_view op_type) noexcept {
  if (!domain.empty() && domain != "ai.onnx") return nullptr;
  const auto& table = Table();
  auto it = table.find(std::string(op_type));
  return it == table.end() ? nullptr : it->second;
}

}  // namespace kiln::infer
