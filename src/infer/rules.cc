// FindRule: the table of every family's rules.
#include "infer/rules.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace kiln::infer {
namespace {

std::string Key(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  std::string key(domain);
  key += ':';
  key += op_type;
  return key;
}

const std::unordered_map<std::string, Rule>& Table() {
  static const std::unordered_map<std::string, Rule> table = [] {
    std::unordered_map<std::string, Rule> t;
    for (std::span<const RuleDef> list :
         {ElementwiseRules(), LinalgRules(), NnRules(), ReduceRules(), ShapeRules(), TensorRules(),
          NhwcRules(), ContribRules(), LossNormRules(), AttentionRules(), QuantRules(),
          SignalRules(), ImageRules(), DataRules()}) {
      for (const RuleDef& d : list) t.emplace(Key(d.domain, d.op_type), d.rule);
    }
    return t;
  }();
  return table;
}

}  // namespace

Rule FindRule(std::string_view domain, std::string_view op_type) noexcept {
  const auto& table = Table();
  auto it = table.find(Key(domain, op_type));
  return it == table.end() ? nullptr : it->second;
}

}  // namespace kiln::infer
